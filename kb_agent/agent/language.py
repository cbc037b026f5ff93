"""The question's language and translated twins: two files are the same page in two languages when
their paths are equal after removing one language segment (`en/`, `zh/`, `zh-cn/`, `pages.zh/`) or
a language suffix (`x.zh.md`, `x.zh-CN.md`, `README-zh.md`, `README.中文.md`); an unmarked page with a marked twin beside
it (`README.md` and `README-zh.md`) is the original, in the other of English and Chinese."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from kb_agent.index.tokenize import has_cjk

Lang = Literal["en", "zh", "other"]

# folder names and suffixes that name a language; each maps to the language it is written in
LANGUAGE_CODES: dict[str, Lang] = {
    "en": "en", "en-us": "en", "en-gb": "en", "english": "en",
    "zh": "zh", "zh-cn": "zh", "zh-hans": "zh", "zh-hant": "zh", "zh-tw": "zh", "zh-hk": "zh", "cn": "zh", "chinese": "zh",
    # the language named in Chinese, as Chinese projects mark their translations (`README.中文.md`, `README_英文.md`)
    "中文": "zh", "简体中文": "zh", "繁體中文": "zh", "繁体中文": "zh", "英文": "en",
    **{code: "other" for code in ("ja", "ko", "fr", "de", "es", "it", "pt", "pt-br", "ru", "uk", "tr", "fa", "vi", "id", "pl", "nl")},
}
# a text is taken to be Chinese when at least this share of its letters are CJK characters
CJK_SHARE = 0.3

_SLOT = "\x00"  # stands for the language marker in a twin key (never part of a real path)
_DOTTED = re.compile(r"^(?P<base>.+)\.(?P<lang>[A-Za-z]{2,3}(?:[-_][A-Za-z]{2,4})?|[\u4e00-\u9fff]{2,4})$")
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


# a file-name suffix joined by - or _ (`README-zh.md`, `README_zh-CN.md`) names a language only for these
# codes: `do-it.md` or `my-id.md` are not Italian or Indonesian pages
_DASH_CODES = frozenset(c for c, lg in LANGUAGE_CODES.items() if lg in ("en", "zh") and c not in ("english", "chinese"))
_DASHED = re.compile(r"^(?P<base>.+?)(?P<sep>[-_])(?P<lang>[A-Za-z]{2}(?:[-_][A-Za-z]{2,4})?|[\u4e00-\u9fff]{2,4})$")


def _marker(path: str) -> tuple[str, str, Lang] | None:
    """(the path with the marker replaced by _SLOT, the separator joined to it, the language), None when unmarked."""
    parts = path.split("/")
    for i, seg in enumerate(parts[:-1]):
        lang = _code(seg)
        if lang is not None:
            return "/".join([*parts[:i], _SLOT, *parts[i + 1 :]]), "/", lang
        m = _DOTTED.match(seg)
        if m and _code(m.group("lang")) is not None:
            return "/".join([*parts[:i], m.group("base") + "." + _SLOT, *parts[i + 1 :]]), ".", _code(m.group("lang"))  # type: ignore[return-value]
    name = parts[-1]
    stem, dot, ext = name.rpartition(".")
    if dot:
        m = _DOTTED.match(stem)
        if m and _code(m.group("lang")) is not None:
            return "/".join([*parts[:-1], f"{m.group('base')}.{_SLOT}.{ext}"]), ".", _code(m.group("lang"))  # type: ignore[return-value]
        m = _DASHED.match(stem)
        if m and m.group("lang").lower().replace("_", "-") in _DASH_CODES:
            return "/".join([*parts[:-1], f"{m.group('base')}{m.group('sep')}{_SLOT}.{ext}"]), m.group("sep"), _code(m.group("lang"))  # type: ignore[return-value]
    return None


def _unmarked(template: str, sep: str) -> str:
    """The template with its language marker taken out: the path of the page in the default language."""
    if sep == "/":
        return template.replace(_SLOT + "/", "", 1)
    return template.replace(sep + _SLOT, "", 1)


def twin_key(path: str) -> tuple[str, Lang | None]:
    """The path with its language marker removed, and that language (None when unmarked).

    Folders are tried first (`en/x.md`, `docs/zh/x.md`, `pages.zh/x.md`), then the file suffix
    (`x.zh.md`, `x.zh-CN.md`, `README-zh.md`, `README_zh-CN.md`); only one marker is removed. An
    unmarked file's key is its own path, so `README.md` and `README-zh.md` share the key `README.md`.
    """
    found = _marker(path)
    if found is None:
        return path, None
    template, sep, lang = found
    return _unmarked(template, sep), lang


def page_language(path: str, exists: Callable[[str], bool]) -> Lang | None:
    """A page's language from its path: its marker's, or for an unmarked page that has a marked
    translation beside it (`README.md` next to `README-zh.md`), the other of English and Chinese;
    None when the path says nothing."""
    lang = twin_key(path)[1]
    if lang is not None:
        return lang
    marked = [lg for lg in ("zh", "en") for p in _suffix_variants(path, lg) if exists(p)]
    if marked and len(set(marked)) == 1:
        return "en" if marked[0] == "zh" else "zh"
    return None


def _suffix_variants(path: str, lang: Lang) -> list[str]:
    """Where an unmarked page's translation into `lang` may live: a suffixed file beside it
    (`x.zh.md`, `README-zh.md`, `README_zh-CN.md`), a dotted folder (`pages.zh/…` for `pages/…`), or a
    language folder inserted at any level (`zh/x.md`, `docs/zh/x.md` for `docs/x.md`)."""
    parts = path.split("/")
    stem, dot, ext = parts[-1].rpartition(".")
    if not dot:
        return []
    codes = [c for c, lg in LANGUAGE_CODES.items() if lg == lang and c not in ("english", "chinese")]
    cased = list(dict.fromkeys([*codes, *(c[:3] + c[3:].upper() for c in codes if "-" in c), *(c.upper() for c in codes)]))
    names = [f"{stem}.{c}.{ext}" for c in codes if c != "cn"]
    names += [f"{stem}{sep}{c}.{ext}" for sep in "-_" for c in cased]
    out = ["/".join([*parts[:-1], n]) for n in names]
    for i in range(len(parts) - 1):
        out += ["/".join([*parts[:i], f"{parts[i]}.{c}", *parts[i + 1 :]]) for c in codes]
    for i in range(len(parts)):
        out += ["/".join([*parts[:i], c, *parts[i:]]) for c in cased[: len(codes) + 1]]
    return list(dict.fromkeys(out))


def twin_paths(path: str, lang: Lang, candidates: list[str], exists: Callable[[str], bool] | None = None) -> list[str]:
    """Among `candidates`, the files that are `path`'s twin written in `lang`."""
    key, own = twin_key(path)
    if own is None and exists is not None:
        own = page_language(path, exists)
    if own is None or own == lang:
        return []
    out = []
    for c in candidates:
        if c == path or twin_key(c)[0] != key:
            continue
        c_lang = twin_key(c)[1] or (page_language(c, exists) if exists is not None else None)
        if c_lang == lang:
            out.append(c)
    return out


def language_variants(path: str, lang: Lang) -> list[str]:
    """Paths `path`'s twin in `lang` could have (one per code of that language; for a suffix-marked
    page also its unmarked original), to look for on disk."""
    found = _marker(path)
    if found is None:
        return _suffix_variants(path, lang)
    template, sep, own = found
    if own == lang:
        return []
    out = [template.replace(_SLOT, code) for code, lg in LANGUAGE_CODES.items() if lg == lang and code not in ("english", "chinese", "cn")]
    if sep != "/":
        out.append(_unmarked(template, sep))
    return out
