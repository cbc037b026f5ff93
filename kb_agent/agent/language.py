"""The question's language and translated twins: two files are the same page in two languages when
their paths are equal after removing one language segment (`en/`, `zh/`, `zh-cn/`, `pages.zh/`) or
a language suffix (`x.zh.md`, `x.zh-CN.md`)."""

from __future__ import annotations

import re
from typing import Literal

from kb_agent.index.tokenize import has_cjk

Lang = Literal["en", "zh", "other"]

# folder names and suffixes that name a language; each maps to the language it is written in
LANGUAGE_CODES: dict[str, Lang] = {
    "en": "en", "en-us": "en", "en-gb": "en", "english": "en",
    "zh": "zh", "zh-cn": "zh", "zh-hans": "zh", "zh-hant": "zh", "zh-tw": "zh", "zh-hk": "zh", "cn": "zh", "chinese": "zh",
    **{code: "other" for code in ("ja", "ko", "fr", "de", "es", "it", "pt", "pt-br", "ru", "uk", "tr", "fa", "vi", "id", "pl", "nl")},
}
# a text is taken to be Chinese when at least this share of its letters are CJK characters
CJK_SHARE = 0.3

_SLOT = "\x00"  # stands for the language marker in a twin key (never part of a real path)
_DOTTED = re.compile(r"^(?P<base>.+)\.(?P<lang>[A-Za-z]{2,3}(?:[-_][A-Za-z]{2,4})?)$")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[A-Za-z]+|[\u3400-\u9fff\uf900-\ufaff]")


def question_language(question: str) -> Lang:
    """Chinese when the question has any CJK character, else English."""
    return "zh" if has_cjk(question) else "en"


def text_language(text: str) -> Lang:
    """Chinese when CJK characters are at least CJK_SHARE of the text's words and characters."""
    tokens = _LETTER.findall(text)
    if not tokens:
        return "other"
    cjk = sum(1 for t in tokens if _CJK.match(t))
    return "zh" if cjk / len(tokens) >= CJK_SHARE else "en"


def _code(segment: str) -> Lang | None:
    return LANGUAGE_CODES.get(segment.lower().replace("_", "-"))


def twin_key(path: str) -> tuple[str, Lang | None]:
    """The path with its language marker replaced by a placeholder, and that language (None when unmarked).

    Folders are tried first (`en/x.md`, `docs/zh/x.md`, `pages.zh/x.md`), then the file suffix
    (`x.zh.md`, `x.zh-CN.md`); only one marker is removed.
    """
    parts = path.split("/")
    for i, seg in enumerate(parts[:-1]):
        lang = _code(seg)
        if lang is not None:
            return "/".join([*parts[:i], _SLOT, *parts[i + 1 :]]), lang
        m = _DOTTED.match(seg)
        if m and _code(m.group("lang")) is not None:
            return "/".join([*parts[:i], m.group("base") + "." + _SLOT, *parts[i + 1 :]]), _code(m.group("lang"))
    name = parts[-1]
    stem, dot, ext = name.rpartition(".")
    if dot:
        m = _DOTTED.match(stem)
        if m and _code(m.group("lang")) is not None:
            return "/".join([*parts[:-1], f"{m.group('base')}.{_SLOT}.{ext}"]), _code(m.group("lang"))
    return path, None


def twin_paths(path: str, lang: Lang, candidates: list[str]) -> list[str]:
    """Among `candidates`, the files that are `path`'s twin written in `lang`."""
    key, own = twin_key(path)
    if own is None:
        return []
    return [c for c in candidates if c != path and twin_key(c) == (key, lang)]


def language_variants(path: str, lang: Lang) -> list[str]:
    """Paths `path`'s twin in `lang` could have (one per code of that language), to look for on disk."""
    key, own = twin_key(path)
    if own is None or own == lang:
        return []
    return [key.replace(_SLOT, code) for code, lg in LANGUAGE_CODES.items() if lg == lang and code not in ("english", "chinese", "cn")]
