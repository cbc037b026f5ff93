"""grade_evidence's scoring (Corrective RAG): the deterministic scorer, its calibrated weights, and
the keep/drop and GENERATE / REFINE / RE-RETRIEVE decision."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from kb_agent.agent.analyzer import _FILLER
from kb_agent.agent.state import GraderAction
from kb_agent.index.glosses import chinese_words
from kb_agent.index.tokenize import EVERYDAY_TAGS, dictionary_tag, has_cjk, is_dictionary_word, matching_terms, tokenize
from kb_agent.retrieval.lexical import bm25_idf
from kb_agent.types import Evidence

TermWeights = Callable[[Sequence[str]], dict[str, float]]

# Logistic weights of the deterministic scorer over FEATURES. The first five are a class-balanced
# logistic fit of "passage overlaps a gold range" on tests/fixtures/sample_questions.jsonl; `absent`
# and the bias were then grid-searched for answerable-vs-unanswerable separation at
# ANSWER_MIN_SCORE. A re-calibration on dev data (scale 0.952, bias -4.072; scripts/calibrate_grader.py,
# held-out numbers in docs/AGENT.md) reads better on held-out data but is not applied yet: it changes
# two sample_kb `kb check` answers (see docs/AGENT.md).
FEATURES = ("coverage", "heading_match", "norm_score", "rank", "exact_miss", "absent")
WEIGHTS = (2.953, 1.424, 1.147, 2.145, 0.122, -6.0)
BIAS = -3.073
# mean of the best few kept scores decides the action: the answer is written from the best items
DECISION_TOP_N = 3
# an empty question pool is weaker evidence (seed 000): the decision mean is scaled down by this
EMPTY_POOL_FACTOR = 0.85


def question_terms(question: str, term_weights: TermWeights | None = None) -> list[str]:
    """The question's content terms (tokenizer output minus stopwords and question filler), deduped;
    with an index's IdfWeights, glued CJK artefacts split into the KB's own terms."""
    # English question words are filler; a Chinese question's Latin words are names (`find 批量删掉 txt 文件`)
    filler = set() if has_cjk(question) else _filler_tokens()
    out = list(dict.fromkeys(t for t in tokenize(question, drop_stopwords=True) if t not in filler and len(t) > 1))
    # a measure word glued to the noun it counts (多少个字符 → 个字符 beside 字符) is that noun, not a term of its own; the
    # words of "how long / how many" (多长时间 → 长时间, 时间) are what is asked for, not what it is about
    asked = [m.span() for m in _ASKS_AMOUNT_ZH.finditer(question)]
    out = [t for t in out if not (len(t) > 2 and t[0] in _CLASSIFIERS and t[1:] in out)
           and not (has_cjk(t) and any(t in question[a:b] for a, b in asked))]
    if not has_cjk(question) and _ASKS_AMOUNT_EN.search(question):
        # so are an English question's: "how long does the server keep its statistics?" is about server, keep, statistics
        # (a page that says "for 7 days" writes no "long"), unless the question writes the word again elsewhere
        rest = set(tokenize(_ASKS_AMOUNT_EN.sub(" ", question)))
        asked_words = set(tokenize(" ".join(_ASKS_AMOUNT_EN.findall(question))))
        out = [t for t in out if t in rest or t not in asked_words]
    if isinstance(term_weights, IdfWeights):
        out = [t for t in term_weights.split_unseen(out) if t not in filler]
        if not has_cjk(question):
            # a verb and its particle the KB writes as one word ("back up" → backup, "log in" → login): both forms count
            joined = [t for m in _PHRASAL.finditer(question) for t in tokenize(m.group(1) + m.group(2)) if t not in out]
            out += [t for t, w in (term_weights(joined) if joined else {}).items() if w < UNKNOWN_TERM_WEIGHT]
    return out


_PHRASAL = re.compile(r"\b(back|set|clean|roll|shut|start|look|log|sign|check|time|break|lock|fall|push|pull|make|spin|tear|dry)[ -]"
                      r"(up|in|out|back|down|over|off)\b", re.I)


_CLASSIFIERS = frozenset("个条次项位台张份种行块只件篇层组")
_ASKS_AMOUNT_ZH = re.compile(r"多长时间|多少时间|多长|多久|多少|多大|几[秒分天次个条层台位倍]")
_ASKS_AMOUNT_EN = re.compile(r"\bhow\s+(?:long|often)\b", re.I)
_FILLER_TOKENS: set[str] = set()


def _filler_tokens() -> set[str]:
    if not _FILLER_TOKENS:
        _FILLER_TOKENS.update(t for w in _FILLER for t in tokenize(w))
    return _FILLER_TOKENS


def uniform_weights(terms: Sequence[str]) -> dict[str, float]:
    """Every term weighs 1 (used when no index statistics are available)."""
    return {t: 1.0 for t in terms}


@dataclass(frozen=True, slots=True)
class ItemFeatures:
    """The scorer's inputs for one evidence item."""

    coverage: float
    heading_match: float
    norm_score: float
    rank: float
    exact_miss: float
    absent: float  # weighted share of question terms the whole KB never uses

    def vector(self) -> tuple[float, ...]:
        return (self.coverage, self.heading_match, self.norm_score, self.rank, self.exact_miss, self.absent)


def item_features(
    terms: Sequence[str], weights: dict[str, float], exact_terms: Sequence[str], item: Evidence, position: int, unknown: frozenset[str] = frozenset()
) -> ItemFeatures:
    """Features of one item against the question terms.

    Args:
        terms: question_terms(question).
        weights: a weight per term (IDF from the index, or uniform).
        exact_terms: identifiers / quoted strings the question names.
        item: the evidence.
        position: its position in the merged list (0 = best).
        unknown: question terms absent from the whole KB (a sign the question is about something else).
    """
    total = sum(weights.get(t, 1.0) for t in terms) or 1.0
    body = matching_terms(terms, item.text)
    meta = matching_terms(terms, " ".join((*item.heading_path, *item.questions, item.path.replace("/", " "))))
    coverage = sum(weights.get(t, 1.0) for t in terms if t in body or t in meta) / total
    heading = sum(weights.get(t, 1.0) for t in terms if t in meta) / total
    rank = int(item.explain.get("rank", position))
    norm = float(item.explain.get("norm_score", 1.0 if rank == 0 else 0.5))
    low = item.text.lower()
    missing = [t for t in exact_terms if t.lower() not in low]
    return ItemFeatures(
        coverage=round(coverage, 4),
        heading_match=round(heading, 4),
        norm_score=round(min(max(norm, 0.0), 1.0), 4),
        rank=round(1.0 / (1.0 + rank), 4),
        exact_miss=(len(missing) / len(exact_terms)) if exact_terms else 0.0,
        absent=round(sum(weights.get(t, 1.0) for t in terms if t in unknown) / total, 4),
    )


# a passage that shares no term with the question keeps at most this share of its score: rank alone
# (the top hit of a tool that always returns something) must not make it look relevant
NO_COVERAGE_FACTOR = 0.5


def score_features(f: ItemFeatures, weights: Sequence[float] = WEIGHTS, bias: float = BIAS) -> float:
    """Calibrated relevance in 0..1 (a logistic over the features, halved when no term matches)."""
    z = bias + sum(w * x for w, x in zip(weights, f.vector()))
    p = 1.0 / (1.0 + math.exp(-z))
    if f.coverage == 0.0:
        p *= NO_COVERAGE_FACTOR
    return round(p, 4)


def deterministic_scores(
    question: str, items: Sequence[Evidence], *, exact_terms: Sequence[str] = (), term_weights: TermWeights = uniform_weights
) -> list[float]:
    """Score every item without a model.

    Args:
        question: the question.
        items: merged evidence, best first.
        exact_terms: exact strings the question names.
        term_weights: weights per question term (IDF from the index when available).

    Returns:
        One 0..1 score per item, in order.
    """
    terms = question_terms(question, term_weights)
    weights = term_weights(terms) if terms else {}
    # an everyday word the KB never writes ("by accident") is how the question is put, when the words it does write
    # are more and one passage holds them all
    weights = {**weights, **dict.fromkeys(manner_words(question, terms, weights, items), 0.0), **dict.fromkeys(value_words(question, terms, weights), 0.0)}
    unknown = unknown_terms(weights)
    return [score_features(item_features(terms, weights, exact_terms, it, i, unknown)) for i, it in enumerate(items)]


# an amount the question gives in words ("if it hangs for more than five minutes", "after a couple of days"): the user's
# value, which a page writes its own way (`timeout: 5m`), not a topic the KB must write
_SPELLED_AMOUNT = re.compile(r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|"
                             r"ninety|hundred|thousand|a|an|a\s+few|few|several|a\s+couple\s+of|couple\s+of)\s+"
                             r"(?:more\s+|extra\s+)?(?:seconds?|minutes?|hours?|days?|nights?|weeks?|months?|years?|times|bytes?|kilobytes?|"
                             r"megabytes?|gigabytes?|lines?|characters?|requests?|retries|attempts?)\b", re.I)


def value_words(question: str, terms: Sequence[str], weights: dict[str, float]) -> set[str]:
    """The terms of an amount the question spells out ("five minutes") that the KB never writes: the user's value."""
    spelled = {t for m in _SPELLED_AMOUNT.finditer(question) for t in tokenize(m.group(0))}
    return {t for t in terms if t in spelled and weights.get(t, 0.0) >= UNKNOWN_TERM_WEIGHT}


_LOWER_WORD = re.compile(r"(?<![\w.\-/])[A-Za-z][a-z]*(?:'[a-z]+)?(?![\w\-/]|\.\w)")


def manner_words(question: str, terms: Sequence[str], weights: dict[str, float], items: Sequence[Evidence]) -> set[str]:
    """The terms of an English question the KB never writes that are only how it is put: everyday English words in
    lower case ("by accident", "throw away"), fewer than its terms the KB writes, all of which one passage holds ("I
    staged a file by accident. How do I unstage it?" over "I want to unstage a specific staged file"). An unseen
    word stays evidence that the question is about something the KB lacks otherwise: a name (`chronyc`, `LFS`), or
    a question that is mostly unseen words ("bring up all services with docker compose" over cheat sheets without
    Docker)."""
    unseen = [t for t in terms if weights.get(t) == UNKNOWN_TERM_WEIGHT and not has_cjk(t)]
    if not unseen or has_cjk(question):
        return set()
    from kb_agent.index.glosses import is_english_word

    words = [(w, tokenize(w)) for w in _LOWER_WORD.findall(question)]
    manner = set()
    for t in unseen:
        surfaces = [w for w, toks in words if t in toks]
        if surfaces and all(w.islower() and is_english_word(w) for w in surfaces):
            manner.add(t)
    rest = [t for t in terms if 0.0 < weights.get(t, 0.0) < UNKNOWN_TERM_WEIGHT]
    if not manner or len(manner) >= len(rest):
        return set()
    if any(set(rest) <= matching_terms(rest, " ".join((it.text, *it.heading_path))) for it in items):
        return manner
    return set()


# words every Chinese text uses: a KB without any of them has no Chinese, and a Chinese question's words
# there say nothing about what the KB lacks (the answer is in another language, found by meaning)
CHINESE_PROBES = ("的", "是", "在", "和", "了")
# and English ones, words of prose that code seldom writes (`is`, `of`, `to` are keywords and names in code): a KB
# whose commonest of these is in under this share of the chunks its commonest Chinese probe is in writes English
# only in code and names (a comment, `read -s`); one with English pages among the Chinese ones (cheat sheets in
# both languages: ~13 %) has English prose that answers an English question in its own words
ENGLISH_PROBES = ("the", "and")
ENGLISH_PROSE_SHARE = 0.1
# idf_weights marks a term the index has never seen by giving it exactly this weight
UNKNOWN_TERM_WEIGHT = 4.0
# a Chinese dictionary word this long is a term of art (防火墙, 服务器), named as a name is in English;
# shorter ones are everyday words a question may put differently (改成 for 修改为, 关掉 for 关闭): a KB
# that never writes one says nothing about whether it answers
CJK_NAME_MIN_CHARS = 3
# jieba's tags of words that name a thing or a place (n, nr, ns, nz, s): a locution (tag l) holding one names a thing
NOUN_TAG_PREFIXES = ("n", "s")


def is_term_of_art(term: str) -> bool:
    """A Chinese term that names a thing, as a name does in English: a dictionary word of at least
    CJK_NAME_MIN_CHARS characters that jieba's dictionary does not tag as everyday language (想做到 v,
    不能不 d, 一万亿 m are how a question is put, not what it is about); a locution only when a noun is among its
    words (交换文件, 站内搜索; not 从头再来, 翻译成, 连不上)."""
    if not (has_cjk(term) and len(term) >= CJK_NAME_MIN_CHARS and is_dictionary_word(term)) or _how_put(term):
        return False
    tag = dictionary_tag(term)
    if tag == "l":
        return any(p != term and (dictionary_tag(p) or "").startswith(NOUN_TAG_PREFIXES) for p in tokenize(term))
    return tag not in EVERYDAY_TAGS


_HAN_ONLY = re.compile(r"[\u4e00-\u9fff]+")


# "the more … the more" (越积越多 "keeps piling up", 越来越): jieba's dictionary holds 越积越 as a person's name (nr),
# but the construction says how things go, it names nothing
_CORRELATIVE = re.compile(r"越[\u4e00-\u9fff]{1,2}越[\u4e00-\u9fff]?")

# a word that asks (哪些地方 "which places", 哪一科, 几位数 "how many digits", 多少钱, 什么时候): jieba's dictionary holds some
# as nouns, and its HMM glues others together, but they are what the question asks, never a name a page must write
# (cmrc2018: "芸香属原产于哪些地方？" was refused as "nothing found about '哪些地方'"); 几内亚 and 哪吒 are names
_INTERROGATIVE = re.compile(r"^哪(?!吒)|什么|怎么|怎样|多少|多大|多久|多长|为什么|为何|如何|^几(?=[个条次项位台张份种行块只件篇层组代十百千万天年月日秒分周号])")

# which one or how many of a thing (同一个 "the same", 这一个, 每一个, 另一个, 所有的, 其他的): jieba's dictionary holds
# 同一个 as a distinguishing word (b, with 多线程 and 国家级, which do name things), its HMM glues a determiner to its measure
# word or a word to 的; either way the word points at a thing the question names elsewhere, it names none
_DETERMINER = re.compile(r"^(?:这|那|每|某|另|上|下|同|其|任|各)一?[个种条次些位台份件样类张块]$|的$")

# a verb done briefly (试一下 "try it", 看一下): jieba's dictionary tags 试一下 a noun, but it is how a question is put
_BRIEFLY = re.compile(r"[\u4e00-\u9fff]{1,2}一下子?")

def _how_put(term: str) -> bool:
    """A Chinese word that is how a question is put, whatever jieba makes of it: "the more … the more", a verb done
    briefly, a word that asks or one that points at a thing named elsewhere."""
    return bool(_CORRELATIVE.fullmatch(term) or _BRIEFLY.fullmatch(term) or _INTERROGATIVE.search(term) or _DETERMINER.search(term))


# a verb with a potential complement (删不掉 "cannot delete", 装得上, 连不上): jieba's HMM glues it into one word, but it
# is how a question is put, not a coined name
_POTENTIAL_COMPLEMENT = re.compile(r"[\u4e00-\u9fff][不得][\u4e00-\u9fff]{1,2}")


def is_new_word(term: str) -> bool:
    """A Chinese word jieba's HMM put together from characters its dictionary does not pair (扩缩容,
    徐梦桃): a coined term or a name, at least CJK_NAME_MIN_CHARS long, named as a name is in English —
    not a verb with a potential complement (删不掉) nor "the more … the more" (越积越多)."""
    return (len(term) >= CJK_NAME_MIN_CHARS and _HAN_ONLY.fullmatch(term) is not None and not is_dictionary_word(term)
            and _POTENTIAL_COMPLEMENT.fullmatch(term) is None and not _how_put(term))


# jieba's noun tags: a two-character dictionary word tagged so names a thing (灰度, 链路, 助手)
THING_TAGS = frozenset({"n", "nz"})


def is_thing_word(term: str) -> bool:
    """A two-character Chinese dictionary noun (jieba's tag n or nz)."""
    return len(term) == 2 and _HAN_ONLY.fullmatch(term) is not None and dictionary_tag(term) in THING_TAGS


def written_in_kb(term_weights: TermWeights, text: str) -> bool:
    """Does the KB write `text` as it is (any case, in a file's text or path)? True when the weights
    cannot tell (no index: uniform_weights)."""
    written = getattr(term_weights, "written", None)
    return written is None or bool(written(text))


def unknown_terms(weights: dict[str, float]) -> frozenset[str]:
    """Terms idf_weights flagged as absent from the KB."""
    return frozenset(t for t, w in weights.items() if w == UNKNOWN_TERM_WEIGHT)


@dataclass(frozen=True, slots=True)
class GradeDecision:
    """The grader's verdict over one iteration's evidence."""

    action: GraderAction
    mean_score: float
    kept: tuple[int, ...]  # indexes of kept items
    dropped: tuple[int, ...]


def decide(
    scores: Sequence[float], *, drop_below: float, generate_at: float, reretrieve_below: float, question_pool: Iterable[str] = ("?",)
) -> GradeDecision:
    """Keep items ≥ drop_below; the mean of the best DECISION_TOP_N kept picks the action.

    mean ≥ generate_at → generate; mean < reretrieve_below (nothing useful kept) → re_retrieve;
    otherwise refine. An empty question pool scales the mean by EMPTY_POOL_FACTOR.
    """
    kept = tuple(i for i, s in enumerate(scores) if s >= drop_below)
    dropped = tuple(i for i, s in enumerate(scores) if s < drop_below)
    best = sorted((scores[i] for i in kept), reverse=True)[:DECISION_TOP_N]
    mean = sum(best) / len(best) if best else 0.0
    if kept and not any(True for _ in question_pool):
        mean *= EMPTY_POOL_FACTOR
    mean = round(mean, 4)
    if mean >= generate_at:
        action: GraderAction = "generate"
    elif mean < reretrieve_below:
        action = "re_retrieve"
    else:
        action = "refine"
    return GradeDecision(action, mean, kept, dropped)


def missing_keywords(keywords: Sequence[str], items: Sequence[Evidence]) -> list[str]:
    """Keywords (surface form) that no item mentions: what a REFINE step searches for."""
    text = " ".join(e.text.lower() for e in items)
    blob = " ".join(f"{e.text} {' '.join(e.heading_path)}" for e in items)
    wanted = {kw: tokenize(kw) for kw in keywords}
    got = matching_terms({t for toks in wanted.values() for t in toks}, blob)
    out = []
    for kw, toks in wanted.items():
        if kw.lower() in text or (toks and got >= set(toks)):
            continue
        out.append(kw)
    return out


def question_pool(items: Sequence[Evidence]) -> list[str]:
    """The questions the items can answer, order kept, deduplicated (seed 000)."""
    return list(dict.fromkeys(q for e in items for q in e.questions if q.strip()))




def idf_weights(
    document_frequencies: Callable[[Iterable[str]], dict[str, int]],
    n_docs: int,
    literal_files: Callable[[str], int] | None = None,
) -> IdfWeights:
    """Term weights from index statistics: BM25's IDF, so rare words count for more (see IdfWeights).

    Args:
        document_frequencies: chunks holding each term, from the index.
        n_docs: chunks in the index.
        literal_files: files holding a string as written (ripgrep), to tell a CJK artefact from a
            word the KB lacks; None treats every unseen term as absent.
    """
    return IdfWeights(document_frequencies, n_docs, literal_files)


# an English word's Chinese translations searched for and weighed (the commonest ones the KB writes)
TRANSLATIONS_PER_WORD = 2
# an unseen CJK term is split into KB terms at least this long (索莫尼是 → 索莫尼; single characters are noise)
SPLIT_MIN_CHARS = 2


class IdfWeights:
    """BM25 IDF weights of question terms over one index (a TermWeights).

    A term the index has never seen gets UNKNOWN_TERM_WEIGHT (above any real IDF for KBs under
    ~50k chunks): a question about something absent from the KB then scores low everywhere. A CJK
    term the index never saw as a word but whose characters stand together in the KB's files is a
    segmentation artefact of the question (jieba's "写测试前要先装" → "前要", "先装"): it weighs 0,
    neither evidence of absence nor a word to match; so does an unseen CJK term that is no dictionary
    word (jieba's fallback glued characters it could not place) or an everyday two-character word
    (改成, 超时: a question may word it differently), and every CJK term when the KB holds no Chinese at
    all (a Chinese question about English pages). Only an unseen Chinese term of art (防火墙), a
    two-character noun (灰度) or a coined word (扩缩容) that no file writes, or an unseen Latin word, is
    evidence that the topic is absent. In a KB that holds Chinese, an unseen Chinese term whose
    English gloss the KB writes (删除 → "delete", index/glosses.py) weighs what the gloss weighs.
    `split_unseen` recovers the KB's words from such glue before weighing (索莫尼是 → 索莫尼, the name the
    KB writes).
    """

    def __init__(self, document_frequencies: Callable[[Iterable[str]], dict[str, int]], n_docs: int,
                 literal_files: Callable[[str], int] | None = None) -> None:
        self._df = document_frequencies
        self._n = max(n_docs, 1)
        self._literal_files = literal_files
        self._literal: dict[str, bool] = {}  # one rg per unseen CJK term per Engine (the files are the same)
        self._chinese: bool | None = None  # does the KB hold Chinese text at all (asked once)
        self._chinese_prose: bool | None = None  # is its prose Chinese (asked once)

    def _written(self, t: str) -> bool:
        if self._literal_files is None:
            return False
        if t not in self._literal:
            self._literal[t] = self._literal_files(t) > 0
        return self._literal[t]

    def written(self, text: str) -> bool:
        """Does some KB file hold `text` as written (any case, text or path)? True when unknown."""
        return self._literal_files is None or self._written(text)

    def _kb_has_chinese(self) -> bool:
        if self._chinese is None:
            self._chinese = any(self._df(CHINESE_PROBES).values())
        return self._chinese

    def _prose_is_chinese(self) -> bool:
        """Is the KB written in Chinese, its English no more than code and names: its commonest English word
        in under ENGLISH_PROSE_SHARE of the chunks its commonest Chinese word is in?"""
        if self._chinese_prose is None:
            zh = max(self._df(CHINESE_PROBES).values(), default=0)
            en = max(self._df(ENGLISH_PROBES).values(), default=0)
            self._chinese_prose = zh > 0 and en < ENGLISH_PROSE_SHARE * zh
        return self._chinese_prose

    def __call__(self, terms: Sequence[str]) -> dict[str, float]:
        df = self._df(terms)
        out: dict[str, float] = {}
        # an English question's words the KB never writes, read in reverse (a Chinese question's Latin words are
        # names, `ELK`, never English words to translate)
        unseen = [t for t in terms if not df.get(t)] if not any(has_cjk(t) for t in terms) else []
        translated = self.translations(unseen)
        translatable = chinese_words(unseen) if unseen and self._prose_is_chinese() else {}
        for t in terms:
            if df.get(t):
                out[t] = min(bm25_idf(self._n, df[t]), UNKNOWN_TERM_WEIGHT - 0.01)
            elif has_cjk(t) and (gloss_df := self._gloss_df(t)):
                # the KB writes the term only in English (删除 → "delete"): it weighs what its translation weighs, so
                # the English page competes with the Chinese ones on all the question's words — with a Latin name
                # in the question too, or it was judged by its names alone (session 19: "podman secret 最多能存多大的
                # 数据？" was answered with the secret command's index page, 数据 "data" weighing nothing)
                out[t] = min(bm25_idf(self._n, gloss_df), UNKNOWN_TERM_WEIGHT - 0.01)
            elif chinese := translated.get(t):
                # the reverse: an English word a KB in Chinese writes only in Chinese (screen → 屏幕) weighs what
                # its commonest translation weighs, instead of counting as a topic the KB lacks
                out[t] = min(bm25_idf(self._n, max(self._df(chinese).values())), UNKNOWN_TERM_WEIGHT - 0.01)
            elif translatable.get(t):
                # an English word with a translation that a KB written in Chinese never writes in either language
                # (keep → 保持): how an English question is put, no evidence either way, as an everyday Chinese word
                # is in an English KB; a name no dictionary translates (`SELinux`) stays evidence of absence
                out[t] = 0.0
            elif has_cjk(t) and (self._kb_has_chinese() and self._absent_thing(t) or is_term_of_art(t) and not self._written(t)):
                # in an English-only KB only a term of art (防火墙) whose glosses no page writes is absent: a two-character
                # word's glosses are too loose a translation to tell (整理 "arrange" for a page's "defragment")
                out[t] = UNKNOWN_TERM_WEIGHT
            elif has_cjk(t) and (not self._kb_has_chinese() or self._written(t) or not is_term_of_art(t)):
                out[t] = 0.0
            else:
                out[t] = UNKNOWN_TERM_WEIGHT
        # jieba's search cut gives a long word and its pieces (环境变量 → 环境, 变量, 环境变): a piece of a word the KB writes
        # (or writes in English: it got a weight above) is no word it lacks
        longer = [o for o in terms if has_cjk(o) and len(o) > 2 and 0.0 < out[o] < UNKNOWN_TERM_WEIGHT]
        for t in terms:
            if out[t] >= UNKNOWN_TERM_WEIGHT and has_cjk(t) and any(t != o and t in o for o in longer):
                out[t] = 0.0
        return out

    def _absent_thing(self, term: str) -> bool:
        """An unseen Chinese word that names a thing no file writes: a two-character noun not even inside a
        longer word (灰度 in "接口怎么做灰度发布", 助手 in "凭据助手"), or a word jieba's HMM coined of which no
        file writes any two characters together either (扩缩容 in a KB without 扩缩 or 缩容). Verbs and adverbs
        stay how a question is put (改成, 彻底)."""
        if is_thing_word(term):
            return not self._written(term)
        return (self._literal_files is not None and is_new_word(term) and not self._written(term)
                and not any(self._written(term[i : i + 2]) for i in range(len(term) - 1)))

    def translations(self, terms: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The reverse of the glosses, for an English question over a KB written in Chinese: each English word's
        Chinese translations that the KB writes (index/glosses.py chinese_words), the commonest in the KB first,
        at most TRANSLATIONS_PER_WORD (screen → 屏幕, not 屏风). Words with none, names and a KB whose prose is
        English (or both: its English pages answer an English question) give nothing."""
        words = [t for t in terms if t.isascii() and t.isalpha() and len(t) > 2]
        if not words or not self._prose_is_chinese():
            return {}
        found = chinese_words(words)
        df = self._df(sorted({w for ws in found.values() for w in ws}))
        out = {}
        for t, ws in found.items():
            best = sorted((w for w in ws if df.get(w)), key=lambda w: -df[w])[:TRANSLATIONS_PER_WORD]
            if best:
                out[t] = tuple(best)
        return out

    def chinese_query(self, question: str, terms: Sequence[str], names: Sequence[str] = ()) -> str:
        """An English question's search words in Chinese, over a KB written in Chinese: the names it writes
        (`read`, Dubbo) as written and each English word's translations in their place ('' when no word has
        one, or the question has Chinese)."""
        if has_cjk(question):
            return ""
        found = self.translations(terms)
        if not found:
            return ""
        return " ".join(dict.fromkeys([*names, *(w for ws in found.values() for w in ws)]))

    def english_query(self, question: str, terms: Sequence[str]) -> str:
        """A Chinese question's search words in English (index/glosses.py english_query), the glosses this KB
        writes first."""
        from kb_agent.index.glosses import english_query

        return english_query(question, terms, self._df)

    def _gloss_df(self, term: str) -> int:
        """Chunks holding the commonest of the term's English glosses (all of a gloss's words), 0 for none."""
        from kb_agent.index.glosses import glosses, with_past_forms

        phrases = [toks for toks in (tokenize(p, drop_stopwords=True) for p in with_past_forms(glosses(term))) if toks]
        if not phrases:
            return 0
        df = self._df(sorted({t for toks in phrases for t in toks}))
        return max(min(df.get(t, 0) for t in toks) for toks in phrases)

    def split_unseen(self, terms: Sequence[str]) -> list[str]:
        """Each unseen CJK term that is no dictionary word replaced by the KB terms it holds, longest
        first from its start (jieba cut "索莫尼是什么时候" as 索莫尼是 where the KB has 索莫尼); kept as
        it is when it holds none."""
        glued = [t for t in terms if has_cjk(t) and len(t) > SPLIT_MIN_CHARS and not is_dictionary_word(t)]
        if not glued:
            return list(terms)
        subs = {t[i:j] for t in glued for i in range(len(t)) for j in range(i + SPLIT_MIN_CHARS, len(t) + 1)}
        df = self._df(sorted(subs))
        out: list[str] = []
        for t in terms:
            if t not in glued or df.get(t):
                out.append(t)
                continue
            parts: list[str] = []
            i = 0
            while i < len(t):
                j = next((j for j in range(len(t), i + SPLIT_MIN_CHARS - 1, -1) if df.get(t[i:j])), None)
                if j is None:
                    i += 1
                else:
                    parts.append(t[i:j])
                    i = j
            out.extend(parts or [t])
        return list(dict.fromkeys(out))
