"""THE tokenizer: one function used by indexing, querying, BM25 scoring and tests.

Latin text is split into words with identifier awareness (`cache.ttl_seconds`, `getUserName`,
`OPS-1234` keep their whole form and also yield their parts) and Snowball-stemmed; CJK runs go
through jieba's search-mode cut. jieba is imported only when CJK text is seen, and its dictionary is
read only for the characters a text holds (kb_agent/index/jieba_cache.py), not whole (~0.7 s).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

TOKENIZER_VERSION = "1"

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{_CJK}]+")
# a "word": letters/digits joined by identifier punctuation (., _, -, /, :) inside the word
_WORD = re.compile(r"[A-Za-z0-9\u00c0-\u024f]+(?:[._\-/:][A-Za-z0-9\u00c0-\u024f]+)*")
_SPLIT_PUNCT = re.compile(r"[._\-/:]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

ENGLISH_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers him his how i if in into is it its itself just me more most my
    no nor not now of off on once only or other our ours out over own same she should so some such
    than that the their theirs them then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours
    should shall may might must us also get got
    don doesn didn isn aren wasn weren couldn shouldn wouldn hasn haven hadn mustn needn""".split()
)
CHINESE_STOPWORDS = frozenset(
    "的 了 是 在 和 与 或 及 把 被 我 你 他 她 它 们 这 那 个 吗 呢 吧 啊 怎么 怎样 如何 什么 哪 哪个 哪些 为什么 "
    "有 没有 要 会 能 可以 应该 一个 一下 多少 几 请 问 吗 中 对 就 都 也 还 让 给 从 到 以 用 为 而 "
    "某 某个 某些 某种 一些 这个 那个 这些 那些 这种 那种".split()
)
STOPWORDS = ENGLISH_STOPWORDS | CHINESE_STOPWORDS

_jieba: Any = None  # kb's own jieba Tokenizer (jieba's module-level one is left alone)
_jieba_lock = threading.Lock()


def _segmenter() -> Any:
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                from kb_agent.index.jieba_cache import load_segmenter

                _jieba = load_segmenter()
    return _jieba


@lru_cache(maxsize=50_000)
def _cut_cjk(run: str) -> tuple[str, ...]:
    seg = _segmenter()
    seg.prepare(run)
    return tuple(w for w in seg.tokenizer.cut_for_search(run) if w.strip())


_local = threading.local()


def _stemmer() -> Any:
    """This thread's Snowball stemmer: a stemmer keeps its word in itself while it works, so two
    threads sharing one (the agent runs plan steps in parallel) corrupt each other's words."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = _english_stemmer()()
    return stemmer


@lru_cache(maxsize=1)
def _english_stemmer() -> Callable[[], Any]:
    """What makes snowballstemmer's English stemmer, without importing its other 30 languages (~20 ms).

    `import snowballstemmer` loads every language's module; the English one needs only two helpers
    from the package. It is loaded from the same files under a private package name, so
    `snowballstemmer` itself stays untouched. With PyStemmer installed (which snowballstemmer would
    prefer) or if anything goes wrong, the public API is used, as before.
    """
    import importlib
    import importlib.util
    import sys
    import types

    try:
        spec = importlib.util.find_spec("snowballstemmer")
        if spec is not None and spec.submodule_search_locations and importlib.util.find_spec("Stemmer") is None:
            name = "_kb_snowballstemmer"
            if name not in sys.modules:
                pkg = types.ModuleType(name)
                pkg.__path__ = list(spec.submodule_search_locations)
                pkg.__package__ = name
                sys.modules[name] = pkg
            english: Callable[[], Any] = importlib.import_module(f"{name}.english_stemmer").EnglishStemmer
            return english
    except ImportError:
        pass
    import snowballstemmer

    return lambda: snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    if len(word) <= 3 or not word.isalpha():
        return word
    return str(_stemmer().stemWord(word))


@lru_cache(maxsize=200_000)
def _word_tokens(word: str) -> tuple[str, ...]:
    """Cached: the same words recur across passages, and re-scoring tokenizes many per query."""
    lower = word.lower()
    parts = [p for p in _SPLIT_PUNCT.split(word) if p]
    sub: list[str] = []
    for part in parts:
        pieces = _CAMEL.findall(part) if any(c.isupper() for c in part[1:]) else [part]
        sub.extend(p.lower() for p in pieces)
    if len(sub) == 1 and sub[0] == lower:
        return (_stem(lower),)
    return (lower, *(_stem(p) for p in sub))


def has_cjk(text: str) -> bool:
    return _CJK_RUN.search(text) is not None


def tokenize(text: str, *, drop_stopwords: bool = False) -> list[str]:
    """Split text into index terms (lower-case, stemmed Latin words, identifier parts, jieba words).

    Args:
        text: any text, English, Chinese or mixed.
        drop_stopwords: leave out common function words (for query keyword selection).

    Returns:
        The terms in reading order; compound identifiers appear whole and then as parts.
    """
    tokens: list[str] = []
    pos = 0
    for m in _CJK_RUN.finditer(text):
        _latin(text[pos : m.start()], tokens)
        tokens.extend(_cut_cjk(m.group()))
        pos = m.end()
    _latin(text[pos:], tokens)
    if drop_stopwords:
        tokens = [t for t in tokens if t not in STOPWORDS]
    return tokens


@lru_cache(maxsize=1 << 16)
def line_tokens(line: str) -> tuple[str, ...]:
    """tokenize(line), memoized: ranking tokenizes the same lines again in overlapping passages and windows."""
    return tuple(tokenize(line))


def tokenize_lines(text: str) -> list[str]:
    """tokenize(text), term for term, from each line's memoized tokens (no term spans a newline:
    neither a Latin word nor a CJK run holds one)."""
    out: list[str] = []
    for line in text.split("\n"):
        out.extend(line_tokens(line))
    return out


def _latin(segment: str, out: list[str]) -> None:
    for m in _WORD.finditer(segment):
        out.extend(_word_tokens(m.group()))


def estimate_tokens(text: str) -> int:
    """Rough model-token count: one per CJK character, ~1.3 per Latin word."""
    cjk = sum(len(m.group()) for m in _CJK_RUN.finditer(text))
    words = len(_WORD.findall(text))
    return cjk + int(words * 1.3) + 1


def matching_terms(terms: Iterable[str], text: str, *, translated: bool = True) -> set[str]:
    """The terms that `text` holds: a Latin term as one of the text's tokens, a CJK term also as a
    substring, because jieba cuts the same words differently in different sentences (a question's
    "关闭" may sit inside a passage's "关闭了" cut as one word).

    Args:
        terms: query terms, as `tokenize` returns them.
        text: the passage (or heading, path …) to look in.
        translated: also match an English word in a Chinese text through the glosses of the text's
            words (copy ~ 拷贝, hostname ~ 主机名); False matches only as written.
    """
    want = list(terms)
    if not want:
        return set()
    have = set(tokenize(text))
    got = {t for t in want if t in have or (has_cjk(t) and t in text)}
    if len(got) < len(want) and any(has_cjk(t) for t in want if t not in got):
        # a Chinese term matches an English text that writes its translation (删除 ~ "delete"), and a Chinese text
        # that writes it in an English name it defines (密码 ~ `allow_password_login`; not in its loose English
        # words: 发布 is no "Releases only" button)
        latin = have if not has_cjk(text) else _name_parts(text)
        if latin:
            got.update(t for t in want if t not in got and has_cjk(t) and _written_in_english(t, latin))
    if translated and len(got) < len(want) and has_cjk(text):
        # an English word matches a Chinese text that writes a word it translates (copy ~ 拷贝), in an English question
        # and in a Chinese one that writes a term in English (`hostname` ~ 主机名: "每台机器的 hostname 都不一样" over
        # "各节点主机名不重复"; session 20)
        words = [t for t in want if t not in got and t.isascii() and t.isalpha() and len(t) > 2]
        if words:
            english = _english_of(frozenset(w for w in have if has_cjk(w) and len(w) >= GLOSSED_MIN_CHARS))
            got.update(t for t in words if t in english)
    return got


# a name made of English words, as code and settings write it: snake_case, camelCase
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+")


def _name_parts(text: str) -> set[str]:
    """The tokens of the names a text writes in English words (`allow_password_login` → allow, password, login)."""
    return {t for m in _NAME.finditer(text) for t in tokenize(m.group())}


# a Chinese word this long or longer is glossed into English for an English question (one character
# stands for too many words: 深 deep, dark, late …)
GLOSSED_MIN_CHARS = 2
# a gloss of at most this many words is a translation a question would use word for word
GLOSS_WORDS_MATCHED = 2


@lru_cache(maxsize=4096)
def _english_of(words: frozenset[str]) -> frozenset[str]:
    """The English words (as tokens) that the glosses of these Chinese words write."""
    from kb_agent.index.glosses import lookup

    out: set[str] = set()
    for word, phrases in lookup(words).items():
        for toks in _gloss_tokens(word, phrases):
            if len(toks) <= GLOSS_WORDS_MATCHED:
                out.update(toks)
    return frozenset(out)


def _written_in_english(term: str, have: set[str]) -> bool:
    from kb_agent.index.glosses import glosses

    return any(all(tok in have for tok in toks) for toks in _gloss_tokens(term, glosses(term)))


@lru_cache(maxsize=8192)
def _gloss_tokens(term: str, phrases: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The glosses as tokens, an irregular verb's past forms with it (隐藏 "hide" is written "hidden")."""
    from kb_agent.index.glosses import with_past_forms

    return tuple(toks for toks in (tuple(tokenize(p, drop_stopwords=True)) for p in with_past_forms(phrases)) if toks)



# jieba's part-of-speech tags of words that are everyday language, not terms of art: verbs, adverbs,
# numerals and quantifiers, pronouns, conjunctions, particles, interjections, idioms, adjectives, locality
# and time words (想做到 v, 不能不 d, 一万亿 m). Nouns, verbal nouns and locutions (初始化 l) are not here
EVERYDAY_TAGS = frozenset("v vd vi d m mq q r c u ud ug uj ul uv uz y e o i a ad ag z zg f t".split())
_dict_bytes: list[bytes] = []
_dict_lock = threading.Lock()


def dictionary_tag(term: str) -> str | None:
    """jieba's part-of-speech tag of a dictionary word (its dictionary's third column), or None.

    The dictionary file (~5 MB) is read once per process, on the first call, as bytes (a few ms): only
    questions with a long Chinese word need it."""
    if not term or "\n" in term or " " in term:
        return None
    if not _dict_bytes:
        with _dict_lock:
            if not _dict_bytes:
                import jieba

                from kb_agent.index.jieba_cache import dictionary_path

                try:
                    _dict_bytes.append(b"\n" + dictionary_path(jieba).read_bytes())
                except OSError:
                    _dict_bytes.append(b"")
    data = _dict_bytes[0]
    at = data.find(b"\n" + term.encode("utf-8") + b" ")
    if at < 0:
        return None
    end = data.find(b"\n", at + 1)
    fields = data[at + 1 : end if end > 0 else len(data)].decode("utf-8", errors="replace").split()
    return fields[2] if len(fields) >= 3 else None


def is_dictionary_word(term: str) -> bool:
    """A CJK term jieba's dictionary knows (not one its HMM guessed from unknown characters)."""
    if not term:
        return False
    seg = _segmenter()
    seg.prepare(term)  # the dictionary's entries starting like the term
    return bool(seg.tokenizer.FREQ.get(term))
