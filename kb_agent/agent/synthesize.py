"""synthesize's building blocks: pick the items, rank their answer units, write the offline answer
(one cited bullet per unit, translations folded, every comparison subject covered), prepare the
model's sources (the same units), and word the 'not in the knowledge base' reply."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kb_agent.agent.citations import SourceRef
from kb_agent.agent.analyzer import LATIN_WORD, QUANTITY, example_words, is_operator, named_words
from kb_agent.agent.grade import CJK_NAME_MIN_CHARS, UNKNOWN_TERM_WEIGHT, TermWeights, is_new_word, is_term_of_art, question_terms, uniform_weights, written_in_kb
from kb_agent.agent.language import Lang, language_variants, page_language, question_language, text_language, twin_key, twin_paths
from kb_agent.agent.subjects import as_written, comparison_subjects, covers, mention_target, uncovered
from kb_agent.agent.units import AnswerUnit, UnitCache, is_terminal_output, looks_like_injection, shows_code
from kb_agent.corpus.chunking import weight
from kb_agent.corpus.discover import page_name
from kb_agent.corpus.markdown import has_code_span
from kb_agent.index.tokenize import has_cjk, matching_terms, tokenize
from kb_agent.retrieval.rerank import asks_how
from kb_agent.types import Evidence

# the synthesizer sees at most this many items (DESIGN)
MAX_SOURCES = 10
# An offline answer quotes at most this many units and about this many characters of them: enough for
# a description with its command for each of a few steps or both sides of a comparison, short enough to
# read as an answer rather than a search result. Every answer metric is reported with these fixed. An
# intro read with the list under it counts once (LISTED_MIN); the character cap counts every line.
MAX_UNITS = 6
MAX_ANSWER_CHARS = 1200
# an answer usually lives on one page: a unit from another file must score this share of the best (dev splits:
# 0.8 → 0.7 made 3 answers useful and lost none; 0.6 made 4 and lost 1)
OTHER_FILE_RELATIVE_MIN = 0.7
# one file may fill at most this many units (a comparison or a multi-file answer needs the room)
MAX_UNITS_PER_FILE = 6
# a unit is kept when it scores at least this share of the best unit
UNIT_RELATIVE_MIN = 0.55
# a unit holding code gets this much more for "how do I" questions: the command is the answer
CODE_BONUS = 0.25
# a unit whose prose writes a number gets this much more for a question that asks for one (which port, what version,
# how many, the default …): "Apache Answer 的默认端口是 `9080`" over the units that only talk about the browser
VALUE_BONUS = 0.15
_ASKS_NUMBER = re.compile(r"\b(?:what|which)\s+(?:\w+\s+)?(?:port|version|size|limit|timeout|number|percentage|threshold|interval|ttl)\b|"
                          r"\b(?:minimum|maximum|max|min)\b|\bdefault\s+(?:\w+\s+)?(?:port|version|size|limit|timeout|value|number)\b|"
                          r"哪个(?:端口|版本)|什么(?:端口|版本)|多少|几[秒分天次个条层台位倍]|最(?:低|高|大|小|多|少)|端口|版本号|上限|阈值", re.I)
_DIGIT = re.compile(r"\d")
# a question whose words the KB mostly cannot weigh keeps at least this share of its units' coverage in their score
# (dev: +1 useful, the same at 0 and 0.5)
LEX_MIN_SHARE = 0.2
# a unit whose first LEAD_CHARS characters hold a question term (a table row keyed by it, a definition)
LEAD_CHARS = 40
LEAD_BONUS = 0.1
# the sections an ADR/RFC-style page states its substance in: a comparison quotes these first
SUBSTANCE_HEADINGS = re.compile(r"decision|summary|overview|conclusion|tl;?dr|what it is|决定|决策|结论|概述|摘要|总结", re.I)
# a section that itself compares the subjects adds at most this many units after each subject's own
CONTRAST_MAX = 2
# a unit in the other language than the question's ranks below same-language ones
OTHER_LANGUAGE_FACTOR = 0.7
# a question word a unit holds only through a gloss (an English word in Chinese text: copy ~ 拷贝) counts for
# this share of its weight in the unit's coverage (dev splits: +1 useful at 0.3 and at 0.5, 0.3 changing fewer
# answers; at 1.0 sample_kb's "What format do release tags use?" was answered from the Chinese page first)
GLOSSED_SHARE = 0.3
NOT_IN_KB = "The knowledge base does not answer this question."
# a unit of the page filed under a name the question writes (`find.md` for "find 批量删掉 txt 文件",
# `TargetDown.md`) gets this much more: a reference KB's page for a command or alert is where its answer is
PAGE_BONUS = 0.3
_CAPITALISED = re.compile(r"[A-Z][a-z]+")
# a sentence that sends the reader elsewhere for what the question asks ("we'll cover that in the
# [Ignoring Tests] section later in this chapter", 后面会详细介绍) shares the question's words but not its
# answer: it ranks at this share of its score, below the section it points to when that was found
POINTER_FACTOR = 0.6
# ... when the pointer is what the unit says: a long paragraph that also says "参见：X" carries its own content
POINTER_MAX_CHARS = 300
_POINTER = re.compile(
    r"\b(we['’]ll|we\s+will|will\s+be|you['’]ll|you\s+will)\s+(\w+\s+){0,2}(cover(ed)?|discuss(ed)?|explain(ed)?|talk\s+about|look\s+at|"
    r"get\s+to|explore[d]?|return\s+to|come\s+back\s+to|revisit(ed)?|learn\s+(more\s+)?about|see\s+(more\s+)?about|describe[d]?)\b"
    r".{0,120}?\b(later|next|following|chapter|section|below)\b|"
    r"(后面|后文|下文|下一章|下一节|稍后|以后|后续|下面)(的章节|章节)?(会|将|再)?(详细|具体)?(介绍|讲解|讲到|讲|说明|讨论|解释)|详见|参见|请见|见(下文|后文|本章|第.{1,4}章)",
    re.I,
)

# a changelog records that something changed ("Add external link: Kafka with FastAPI"), not how to do it: its
# lines answer only questions about versions and changes. A name that is also a topic (history, news,
# changes, releases: a shell's `history` command page) is a changelog only in capitals, the convention
# (HISTORY.md, NEWS.md); changelog and release-notes are changelogs in any case.
_CHANGELOG = re.compile(r"(^|/)((?i:change[-_ ]?log|release[-_ ]?notes)|CHANGES|HISTORY|NEWS|RELEASES)(\.[A-Za-z-]+)?\.(?i:md|markdown|mdx)$")
_ASKS_CHANGES = re.compile(r"\b(version|release[sd]?|changelog|changed?|changes|added|deprecated|removed|since|upgrade)\b|版本|发布|更新|变更|弃用|新增", re.I)


@dataclass(frozen=True, slots=True)
class Draft:
    """An answer before verification: body with [n] markers, the sources behind the numbers, and the
    comparison subjects no unit covers (then it is not an answer)."""

    body: str
    sources: tuple[SourceRef, ...]
    confidence: float
    uncovered: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ScoredUnit:
    """A unit with its relevance to the question and the grade of the item it came from."""

    score: float
    body_cov: float
    grade: float
    unit: AnswerUnit
    listed: bool = False  # a list item quoted under the intro it completes: shares the intro's slot


def select_items(items: Sequence[Evidence], scores: Sequence[float]) -> list[tuple[Evidence, float]]:
    """The best MAX_SOURCES items by grade (ties: retrieval order)."""
    ranked = sorted(zip(items, scores), key=lambda p: -p[1])
    return ranked[:MAX_SOURCES]


def rank_units(
    question: str,
    items: Sequence[tuple[Evidence, float]],
    cache: UnitCache,
    *,
    exact_terms: Sequence[str] = (),
    term_weights: TermWeights = uniform_weights,
) -> list[ScoredUnit]:
    """Every unit of the items' line ranges, scored for the question, best first (one entry per unit).

    Score: weighted coverage of the question's terms (unit text plus its heading, and the text
    alone), the item's grade, exact terms named, code for "how do I" questions; units in the other
    language rank lower when the question's language is present.
    """
    terms = question_terms(question, term_weights)
    weights = term_weights(terms) if terms else {}
    # an operator the question names (`??`, `||`) is a term as rare as its rarest word: no tokenizer keeps it
    ops = [t for t in exact_terms if is_operator(t)]
    if ops:
        weights = {**weights, **dict.fromkeys(ops, max(weights.values(), default=1.0))}
        terms = [*terms, *ops]
    how = asks_how(question)
    number = _ASKS_NUMBER.search(question) is not None or _ASKS_AMOUNT.search(question) is not None
    q_lang = question_language(question)
    # the question's words the KB cannot weigh (a Chinese question over English pages: its Chinese words weigh 0)
    # leave it matched by the few it can (`bash`, `Vue`), which every unit of the topic holds: the units' coverage
    # counts for the share of the question those words are, and the grade of the passage (found by meaning) for more
    unread = [t for t in terms if has_cjk(t) and not weights.get(t)]
    lex = max(LEX_MIN_SHARE, 1.0 - len(unread) / len(terms)) if terms else 1.0
    best: dict[tuple[str, int, int], ScoredUnit] = {}
    lead_terms = [t for t in exact_terms if len(t) > 2] or [t for t in terms if len(t) > 3]
    focus = focus_terms(question, term_weights, exact_terms)
    changes_asked = bool(_ASKS_CHANGES.search(question)) or mention_target(question) is not None
    # the names a reference page would be filed under (`find`, `TargetDown`; not a capitalised word, `Generator`)
    page_names = {w.lower() for w in question_names(question, exact_terms) if not has_cjk(w) and not _CAPITALISED.fullmatch(w)}
    item_paths = {item.path for item, _g in items}
    for item, grade in items:
        if _CHANGELOG.search(item.path) and not changes_asked:
            continue
        for unit in cache.units_in(item.path, item.start_line, item.end_line):
            if looks_like_injection(unit.search_text):
                continue
            text = unit.search_text
            if not unit.text and unit.heading_path and not is_terminal_output(unit.code):
                # code with no sentence of its own is labelled by its heading ("## Stage parts of a file" + `git add -p`):
                # the heading is its description (not of a terminal's output, which is what the command printed), together with
                # the section above it: a heading may say only what kind of text follows ("#### 开启方式" under "## 开启Token缓存功能")
                text = f"{' '.join(unit.heading_path[-2:])} {text}"
            # an English question's word counts in a Chinese unit through its glosses (copy ~ 拷贝) at GLOSSED_SHARE
            # of its weight: in a Chinese KB they are the only words an English question shares with the page that
            # answers it, and a unit that writes the words still ranks first (OTHER_LANGUAGE_FACTOR as well)
            body_cov = _coverage(terms, weights, text, translated=True)
            cov = _coverage(terms, weights, text + " " + " ".join(unit.heading_path[-1:]), translated=True)
            # the exact terms and rare names the question writes (`Flask` in "serve a Flask app")
            exact = 0.15 if any(t.lower() in text.lower() for t in exact_terms) or matching_terms(focus, text + " " + " ".join(unit.heading_path)) else 0.0
            short = 0.1 if unit.size < 20 else 0.0
            # a unit that opens with what the question names is about it, not just mentioning it
            lead = LEAD_BONUS if any(t.lower() in text[:LEAD_CHARS].lower() for t in lead_terms) else 0.0
            code = CODE_BONUS if how and unit.has_code and body_cov > 0 else 0.0
            value = VALUE_BONUS if number and body_cov > 0 and _DIGIT.search(unit.text) else 0.0
            score = lex * (cov + body_cov) + 0.3 * grade + exact + code + value + lead - short
            if page_names and page_name(unit.path).lower() in page_names:
                score += PAGE_BONUS
            if not unit.code and len(unit.text) <= POINTER_MAX_CHARS and (_POINTER.search(unit.text) or _links_to(unit, item_paths)):
                score *= POINTER_FACTOR
            key = (unit.path, unit.start_line, unit.end_line)
            if key not in best or best[key].score < score:
                best[key] = ScoredUnit(score, body_cov, grade, unit)
    ranked = list(best.values())
    langs = {_unit_language(s.unit) for s in ranked if s.body_cov > 0}
    if q_lang in langs:
        ranked = [s if _unit_language(s.unit) in (q_lang, "other") else ScoredUnit(s.score * OTHER_LANGUAGE_FACTOR, s.body_cov, s.grade, s.unit) for s in ranked]
    ranked.sort(key=lambda s: (-s.score, s.unit.path, s.unit.start_line))
    return ranked


# a line that opens with a link, after any list marker or emphasis: "- [OPS-2051](…)", "* **[ADR 0005](…)**"
_LEADING_LINK = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*(?:\*\*|__)?\[")
_MD_LINK = re.compile(r"\]\(\s*<?([^)<>\s#]+\.md)(?:#[^)\s]*)?>?(?:\s+\"[^\"]*\")?\s*\)")


def _links_to(unit: AnswerUnit, paths: set[str]) -> bool:
    """Is the unit an index entry for another page among `paths` (a line that opens with the link: "[OPS-2051](incidents/…md)
    — expired certificate", when the incident page itself was found)? Then it points to where the answer is. A
    sentence that says something and cites a page on the way ("The last failover was on … ([OPS-1234](…))") is not."""
    m = _MD_LINK.search(unit.quote)
    if m is None or not _LEADING_LINK.match(unit.quote[: m.end()]):
        return False
    target = posixpath.normpath(posixpath.join(posixpath.dirname(unit.path), m.group(1)))
    return target != unit.path and target in paths


def _unit_language(unit: AnswerUnit) -> Lang:
    _key, lang = twin_key(unit.path)
    return lang if lang is not None else text_language(unit.text or unit.heading_path[-1] if unit.heading_path else unit.text)


def twin_items(items: Sequence[tuple[Evidence, float]], q_lang: Lang, cache: UnitCache) -> list[tuple[Evidence, float]]:
    """For each item from a page in the other language, the same sections of its translation in the
    question's language (sections counted in order; none when the two differ in sections), with the
    item's grade: retrieval often finds one language of a translated page, and the answer is read
    from the question's (fold_translations then drops the other language's units)."""
    out: list[tuple[Evidence, float]] = []
    seen: set[tuple[str, int, int]] = set()
    for item, grade in items:
        lang = page_language(item.path, cache.exists)
        if lang is None or lang == q_lang:
            continue
        twin = next((p for p in language_variants(item.path, q_lang) if cache.exists(p)), None)
        rng = cache.aligned_range(item.path, item.start_line, item.end_line, twin) if twin else None
        if twin is None or rng is None or (twin, *rng) in seen:
            continue
        seen.add((twin, *rng))
        out.append((Evidence(twin, rng[0], rng[1], "", item.score, "twin"), grade))
    return out


def fold_translations(ranked: list[ScoredUnit], q_lang: Lang, cache: UnitCache) -> list[ScoredUnit]:
    """Keep one language of a translated page: a unit from a twin in the other language is swapped
    for the twin's unit with the same code when the question's language has it, dropped when that
    twin already supplies units and it adds no code, and kept otherwise."""
    paths = list(dict.fromkeys(s.unit.path for s in ranked))
    langs = {p: page_language(p, cache.exists) for p in paths}
    present = {p for p in paths if langs[p] == q_lang}
    out: list[ScoredUnit] = []
    seen: set[tuple[str, int, int]] = set()
    for s in ranked:
        u = s.unit
        lang = langs[u.path]
        if lang is None or lang == q_lang:
            out.append(s)
            continue
        twins = twin_paths(u.path, q_lang, paths, cache.exists) or [p for p in language_variants(u.path, q_lang) if cache.exists(p)]
        if not twins:
            out.append(s)
            continue
        swap = next((t for p in twins for t in cache.file_units(p) if u.code and t.code.strip() == u.code.strip()), None)
        if swap is not None:
            key = (swap.path, swap.start_line, swap.end_line)
            if key not in seen:
                seen.add(key)
                out.append(ScoredUnit(s.score, s.body_cov, s.grade, swap))
            continue
        twin_codes = {t.code.strip() for p in twins for t in cache.file_units(p) if t.code}
        if any(p in present for p in twins) and (not u.code or u.code.strip() in twin_codes):
            continue
        if any(_aligned_present(u, p, ranked, cache) for p in twins if p in present):
            continue  # the same section of the translation is among the candidates (its code reworded: `{{路径}}`)
        out.append(s)
    uniq: list[ScoredUnit] = []
    keys: set[tuple[str, int, int]] = set()
    for s in out:
        key = (s.unit.path, s.unit.start_line, s.unit.end_line)
        if key not in keys:
            keys.add(key)
            uniq.append(s)
    return uniq


def _aligned_present(u: AnswerUnit, twin: str, ranked: list[ScoredUnit], cache: UnitCache) -> bool:
    """Does `ranked` hold a unit of `twin` in the section that translates the one `u` is in?"""
    rng = cache.aligned_range(u.path, u.start_line, u.end_line, twin)
    return rng is not None and any(s.unit.path == twin and s.unit.start_line <= rng[1] and rng[0] <= s.unit.end_line for s in ranked)


def extractive_answer(
    question: str,
    items: Sequence[tuple[Evidence, float]],
    cache: UnitCache,
    *,
    sub_questions: Sequence[str] = (),
    exact_terms: Sequence[str] = (),
    term_weights: TermWeights = uniform_weights,
) -> Draft:
    """The offline answer: the most relevant answer units of the best items, one cited bullet each.

    Args:
        question: the question.
        items: (evidence, grade) pairs, best first.
        cache: builds the units of each file from the file on disk.
        sub_questions: comparison subjects; each must be covered by at least one unit.
        exact_terms: identifiers the question names (units containing them rank higher).
        term_weights: weights per question term.

    Returns:
        The draft (at most MAX_UNITS units, about MAX_ANSWER_CHARS characters); an empty body when
        no unit shares a term with the question, `uncovered` naming subjects no unit is about.
    """
    q_lang = question_language(question)
    subjects = list(sub_questions) or comparison_subjects(question)
    items = [*items, *twin_items(items, q_lang, cache)]
    ranked = rank_units(question, items, cache, exact_terms=exact_terms, term_weights=term_weights)
    if subjects:
        # a section about a subject answers for it even where retrieval returned other lines of it
        whole = _subject_files(ranked, subjects, cache)
        if whole:
            ranked = rank_units(question, [*items, *whole], cache, exact_terms=exact_terms, term_weights=term_weights)
    tables = _whole_tables(ranked, items, cache)
    if tables:
        items = [*items, *tables]
        ranked = rank_units(question, items, cache, exact_terms=exact_terms, term_weights=term_weights)
    ranked = fold_translations(ranked, q_lang, cache)
    target = mention_target(question)
    if target:
        chosen = _fold_files(_choose_mentions(ranked, target, _mention_lines(items, cache, target, ranked)), q_lang, cache)
    else:
        focus = [] if subjects else focus_terms(question, term_weights, exact_terms)
        # a Chinese compound the KB writes only in its parts (运行日志: 运行 … 日志) is a phrase of the question, not a name
        # that only units writing it whole are about ("执行器日志文件保存天数" answers "任务运行日志文件只想留 7 天")
        places = [t for t in focus if has_cjk(t) and _where(t, question)]  # and the pieces jieba cut them into (务器 of 服务器)
        focus = [t for t in focus if not (has_cjk(t) and (_written_in_parts(t, term_weights) or any(t in p for p in places)))]
        everything = ranked
        if focus:  # the answer is about the thing the question names: units that name it, when there are any
            # a page filed under a word of the question (curl.md for "Using curl in a script …") is about it too
            words = {w.lower() for w in LATIN_WORD.findall(question)}
            # a name only in a sentence of situation ("I just edited prometheus.yml on a box that's running. How do I get
            # Prometheus to pick up the new config …?") says which page, not which lines: a unit of a page that names it counts
            ask = asking_part(question)
            ask_terms = set(tokenize(ask))
            aside = [t for t in focus if ask != question and t.lower() not in ask.lower() and t not in ask_terms]
            on_page = {p for p in {s.unit.path for s in ranked}
                       if aside and any(matching_terms(aside, _home(u) + " " + u.search_text) for u in cache.file_units(p))}
            ranked = [s for s in ranked if matching_terms(focus, _home(s.unit) + " " + s.unit.search_text) or page_name(s.unit.path).lower() in words
                      or s.unit.path in on_page] or ranked
        q_terms = question_terms(question, term_weights)
        chosen = _complete_intros(_choose(ranked, subjects, q_terms, cache, term_weights(q_terms) if q_terms else {}), cache)
        if not subjects:
            chosen = _show_how(question, chosen, ranked, everything, term_weights)
        steps = _ASKS_STEPS.search(question) is not None
        if steps or _ASKS_MEANS.search(question) or _ASKS_SETTING.search(question):
            _add_means(chosen, cache)
        if steps or _ASKS_SETTING.search(question):
            _add_setting_rows(chosen, cache)
        if _ASKS_DEFAULT.search(question):
            _add_defaults(chosen, cache)
        _fill_gaps(chosen, cache)
        _add_remedy(chosen, cache, _error_messages(question, exact_terms))
    if not chosen:
        return Draft("", (), 0.0)
    shown = [_home(s.unit) + " " + s.unit.search_text for s in chosen]
    if subjects:
        missing = tuple(uncovered(subjects, shown))
    elif not target:
        # the value and what it is the value of may be two quoted units of one section ("调度记录停留在 "运行中" 状态超过10min" under
        # the paragraph that describes the lost result): each unit is read with the others the answer quotes from its section
        by_section = [" ".join(_home(c.unit) + " " + c.unit.search_text for c in chosen if (c.unit.path, c.unit.heading_path) == (s.unit.path, s.unit.heading_path))
                      for s in chosen]
        missing = focus_gap(question, shown, term_weights, exact_terms, pages=[s.unit.path for s in chosen]) or amount_gap(question, by_section, term_weights) or coverage_gap(question, shown, term_weights) or code_gap(question, chosen) \
            or default_gap(question, by_section, exact_terms)
    else:
        missing = ()
    sources: list[SourceRef] = []
    lines: list[str] = []
    for n, s in enumerate(chosen, 1):
        u = s.unit
        sources.append(SourceRef(n, u.path, u.start_line, u.end_line, u.quote))
        rendered = u.render(n)
        if target:
            rendered = f"- **{u.path}**: " + rendered[2:]
        lines.append(rendered)
    top_cov = max(s.body_cov for s in chosen)
    confidence = round(min(1.0, 0.5 * max(g for _e, g in items) + 0.5 * min(1.0, top_cov)), 3)
    return Draft("\n".join(lines), tuple(sources), confidence, missing)


# a question term at least this rare (BM25 IDF; 3.0 ≈ in under 5 % of chunks) that the question writes as a
# name (`Kafka`, `HTTP/3`, `cache.ttl_seconds`) says what the question is about: an answer none of whose
# units (text, headings, path) holds any such term is about something else. Ordinary words do not count,
# however rare ("bad", "cost", 关掉): a question may word them differently from the documents.
FOCUS_MIN_WEIGHT = 3.0


_VERSION_NUMBER = re.compile(r"[vV]?\d+(?:\.(?:\d+|[xX*]))+")


# a Chinese noun followed by a postposition of place ("在 Windows 服务器上 …", "同一台服务器上跑了 …", "在配置文件里 …") says
# where the user is, not what the answer is about; 上传, 中文, 内存 … are words of their own
_PLACE_AFTER = re.compile(r"\s*(?:上|里|中|内)(?![传线限级文心间存容置核网程])")


def _where(term: str, question: str) -> bool:
    """Is the Chinese `term` (a name: CJK_NAME_MIN_CHARS or more; 运行中 is "running") written in the question only as a
    place, followed by 上/里/中/内?"""
    if len(term) < CJK_NAME_MIN_CHARS:
        return False
    spots = [m.end() for m in re.finditer(re.escape(term), question)]
    return bool(spots) and all(_PLACE_AFTER.match(question, i) for i in spots)


def question_names(question: str, exact_terms: Sequence[str] = ()) -> list[str]:
    """What the question names: its names and exact terms as written, and its long Chinese dictionary words."""
    cjk = [t for t in question_terms(question) if is_term_of_art(t) or is_new_word(t)]
    examples = example_words(question)  # the user's own value ("比如 src/main.go") need not be written anywhere
    # "4KB": a page writes "4 KB"; a version ("My AList (v3.30) …", "portal 1.6.x") says which release the user runs, and
    # pages write the releases that changed something (v3.25.0, 1.7.0), not every one a reader may be on
    names = (w for w in (*exact_terms, *named_words(question))
             if not QUANTITY.fullmatch(w) and not _VERSION_NUMBER.fullmatch(w) and w.strip("`'\"") not in examples)
    return list(dict.fromkeys((*names, *cjk)))


def focus_terms(question: str, term_weights: TermWeights, exact_terms: Sequence[str] = ()) -> list[str]:
    """The terms an answer must mention one of: the question's rare named terms, rarest first."""
    terms = question_terms(question, term_weights)
    weights = term_weights(terms) if terms else {}
    named = {t for w in question_names(question, exact_terms) if not _english_compound(w) for t in tokenize(w)}
    rare = [t for t in terms if t in named and weights.get(t, 0.0) >= FOCUS_MIN_WEIGHT and not t.isdigit() and not _word_pair(t, term_weights)]
    return sorted(rare, key=lambda t: -weights[t])


_COMPOUND = re.compile(r"[a-z]{2,}(?:-[a-z]{2,})+")


def _english_compound(term: str) -> bool:
    """`one-liner`, `read-only`, `step-by-step`: everyday English words joined by hyphens, in lower case — how a
    question is put, not a name the KB must write as typed (`kube-proxy`, `oh-my-zsh` have a part that is no word)."""
    from kb_agent.index.glosses import is_english_word

    # a function word is part of the phrase ("built-in", "step-by-step", "opt-in"): the dictionary holds content words only
    return _COMPOUND.fullmatch(term) is not None and all(is_english_word(p) or not tokenize(p, drop_stopwords=True) for p in term.split("-"))


_PAIR = re.compile(r"[A-Za-z]{3,}/[A-Za-z]{3,}")


def _word_pair(term: str, term_weights: TermWeights) -> bool:
    """`import/export`, `read/write`: two words the KB writes, joined by a slash — "both", not a name the KB
    must write as typed (`HTTP/3` and `TCP/IP` stay names)."""
    if not _PAIR.fullmatch(term):
        return False
    parts = [t for t in tokenize(term) if t != term]
    return bool(parts) and all(w < UNKNOWN_TERM_WEIGHT for w in term_weights(parts).values())


# a question that asks for an amount ("how many", "how long", 多少, 几秒) is answered by a number (or by "no limit")
_ASKS_AMOUNT = re.compile(r"\bhow\s+(many|much|long|big|large|often|old)\b|多少|几[秒分天次个条层台位倍]|多久|多长|多大|多快|"
                          # "what's the longest name a remote can have?" asks a length (session 22); "the shortest way to …" a how
                          r"\bwhat(?:'s|\s+is|\s+are)\s+the\s+(?:longest|shortest|largest|smallest|biggest|highest|lowest|max(?:imum)?|min(?:imum)?)\b"
                          r"(?!\s+(?:way|ways|method|command|option|route|approach|syntax|form|path\s+to)\b)", re.I)
_AMOUNT = re.compile(r"\d|[一二三四五六七八九十百千万两半]|\b(no|without)\s+(limit|maximum|cap)\b|unlimited|没有限制|无限制|不限|无上限|"
                     r"\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|"
                     r"million|billion|dozen|twice|daily|weekly|monthly|yearly|hourly)\b", re.I)


# a question that asks how long or how often: what answers it is a duration or a schedule, not any number (a page on etcd
# defragmentation that says it runs "periodically … since 4.9" does not say how often; "every six weeks", `30s`, 每天 do)
# (a question that names the unit, "how many seconds", 多少天, wants only the number: `_days="365"`, `_timeout="15"`)
_ASKS_DURATION = re.compile(r"\bhow\s+(long|often)\b|多久|多长时间|隔多长|多长一段", re.I)
_DURATION = re.compile(
    r"\d+(?:\.\d+)?\s*(?:ms|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?|months?|y|years?|毫秒|秒|分钟|分|小时|天|日|周|星期|个月|月|年)(?![A-Za-z])|"
    r"[一二三四五六七八九十百两半几]+\s*(?:秒|分钟|小时|天|周|星期|个月|年)|每(?:秒|分钟|小时|天|日|周|星期|月|年)|"
    r"\b(?:daily|hourly|weekly|monthly|yearly|annually|nightly|every\s+(?:second|minute|hour|day|night|week|month|year))\b|"
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|a|an|a few|several|few)"
    r"\s+(?:more\s+)?(?:seconds?|minutes?|hours?|days?|nights?|weeks?|months?|years?|releases?|characters?|chars|bytes)\b|"
    r"\b(?:no|without)\s+(?:limit|timeout|expiry|expiration)\b|\bnever\s+expires?\b|永不过期|不过期|没有限制|无限制|不限|"
    r"(?:^|[\s\"'`])(?:[\d*/,-]+\s+){4}[\d*/,-]+(?=[\s\"'`]|$)|\d+\s*(?:个)?(?:字符|字节)", re.I)


# a number in a text that names its unit of time elsewhere ("a maximum time in seconds … Defaults to 600", "单位是秒。默认为 `600`")
_TIME_UNIT = re.compile(r"\b(?:milliseconds?|seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b|毫秒|秒|分钟|小时|天数|天", re.I)


def _holds_duration(text: str) -> bool:
    """A duration or a schedule (`_DURATION`), or a number in a text that names a unit of time."""
    return _DURATION.search(text) is not None or (_TIME_UNIT.search(text) is not None and _DIGIT.search(text) is not None)


# a question that asks which version (the minimum, the oldest release supported, 最低支持哪个版本) is answered by a version
# number (`1.18`, `v3`, `18.x`, "version 8", "Node.js 18 or later", 3.9 版), not by the page that names the tool (session 21:
# "What's the oldest fish shell release that starship supports?" was answered with the fish setup lines)
# ("release" before the noun it qualifies asks no version: "What format do release tags use?")
_ASKS_VERSION = re.compile(r"\b(?:minimum|oldest|earliest|lowest|required|which|what)\b[^?？]{0,30}?\b(?:version|release)s?\b"
                           r"(?!\s+(?:tags?|notes?|branch(?:es)?|process|candidates?|channels?|builds?|dates?|cycles?|pipelines?|schedules?|"
                           r"artifacts?|assets?|names?|managers?|workflows?|pages?|files?)\b)|"
                           r"最低[^？?，,]{0,12}版本|哪个版本|什么版本|版本号", re.I)
_VERSION = re.compile(r"\d+(?:\.\d+)+|\bv\d+\b|\d+\s*(?:版|\.x\b)|\b(?:version|release|版本)\s*[:：]?\s*\d+|"
                      r"\d+\s*(?:\+|or\s+(?:later|newer|higher|above)|及以上|以上)", re.I)


# a question that asks which port ("which port does it listen on?", 监控指标在哪个端口？) is answered by a port number: one
# written beside the word port (`port 9402`, 端口 `10205`, "9229 端口", a table row's "`SEARCH_GATEWAY_PORT` · Required: no ·
# Default: `8090`") or after a host's colon (`localhost:5173`), not any
# number of the page (session 31: cert-manager's metrics page quoted its PodMonitor YAML, not "on port `9402`")
_ASKS_PORT = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?ports?\b(?!\s+(?:forward\w*|mapping|range)\b)|(?:哪个|哪一个|什么|哪些)端口|端口号?(?:是|为)?(?:多少|几)", re.I)
_PORT = re.compile(r"(?:(?<![a-z])ports?(?![a-z])|端口)\W{0,6}(?:\w+\W{1,6}){0,4}?`?\d{2,5}\b|"
                   r"\b\d{2,5}`?\s*(?:端口|\(?(?:tcp|udp)\b|/(?:tcp|udp)\b)|"
                   r"\b(?:port|listen|bind)\w*\s*[:=]\s*[\"']?\d{2,5}\b|[\w\]]:\d{2,5}\b", re.I)


# a Chinese clause ends at one of these; only one that ends the question (？ or the end) asks: "我在几个项目里授予过信任，…存放在
# 哪个目录？" tells how many projects, it does not ask (session 22), nor does "脚本有几个子命令，怎么给它注册…"
_CLAUSE_END = re.compile(r"[，,。；;！!？?]")


def _asking(pattern: re.Pattern[str], question: str) -> re.Match[str] | None:
    """The first match of `pattern` that asks: in an English question any; in a Chinese one, one in a clause that ends
    with a question mark or ends the question."""
    for m in pattern.finditer(question):
        if not has_cjk(question):
            return m
        end = _CLAUSE_END.search(question, m.end())
        if end is None or end.group(0) in "？?":
            return m
    return None


# where a question's sentences end (an English one before the next capitalised word), and where a Chinese one's clauses do
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'`(])|(?<=[。！？])|(?<=[!?])(?=[\u4e00-\u9fff])")
_CJK_CLAUSE_END = re.compile(r"(?<=[，,；;：:])")
# a Chinese clause that asks: a question word, or a question mark at its end
_CJK_ASKS = re.compile(r"怎么|怎样|如何|什么|啥|哪|吗|呢|多少|多久|多长|多大|几[个条次秒分天种]|能不能|能否|可不可以|可否|是否|有没有|会不会|要不要|为什么|为何|[？?]\s*$")


def asking_part(question: str) -> str:
    """The sentences of a question that ask (in a Chinese one, the clauses): the rest tells the user's situation
    ("My new worker machine runs sshd on port 10022 rather than 22. How do I join it …?", "我用 https 类型的代理把内网
    nginx 暴露出去，…，怎么把访客的真实 IP 传给本地服务？"). English: the sentences that end with a question mark, else
    the last; Chinese: the clauses with a question word or mark, else the last. The whole question when all of it asks."""
    if not has_cjk(question):
        return asking_sentences(question)
    clauses = [c.strip() for t in _SENTENCE_END.split(question) if t.strip() for c in _CJK_CLAUSE_END.split(t.strip()) if c.strip()]
    asking = [c for c in clauses if _CJK_ASKS.search(c)]
    return " ".join(asking or clauses[-1:]) or question


def asking_sentences(question: str) -> str:
    """The sentences of a question that end with a question mark (else the last), in either language: what it asks
    about, without the sentences that tell the user's situation ("My firewall only lets TCP through … Which port has to
    be open for UDP as well?"). A Chinese question's clauses stay together ("curl 写出的 cookie 文件里，一行 cookie 有几个
    字段？" asks about curl's cookie file, not only a cookie)."""
    sentences = [t.strip() for t in _SENTENCE_END.split(question) if t.strip()]
    asking = [t for t in sentences if t.rstrip("\"')»").endswith(("?", "？"))]
    return " ".join(asking or sentences[-1:]) or question


def _asked_about(word: str, ask: str, ask_terms: set[str]) -> bool:
    """Is `word` (a term or a name as the question writes it) in the asking part `ask` (whose terms are `ask_terms`)?"""
    return word.lower() in ask.lower() or bool(set(tokenize(word)) & ask_terms)


def _amount_asked(question: str) -> tuple[str, Callable[[str], bool]] | None:
    """(what the question asks for, whether a text holds a value that answers it) for "how many / how long / which version /
    多少 …", else None."""
    m = _asking(_ASKS_DURATION, question)
    if m is not None:
        return f"a duration ({m.group(0)})", _holds_duration
    m = _asking(_ASKS_VERSION, question)
    if m is not None:
        return f"a version ({m.group(0)})", lambda text: _VERSION.search(text) is not None
    m = _asking(_ASKS_PORT, question)
    if m is not None:
        return f"a port ({m.group(0)})", lambda text: _PORT.search(text) is not None
    m = _asking(_ASKS_AMOUNT, question)
    if m is None:
        m = _ASKS_DEFAULT_SPAN.search(question)
        if m is None or _ASKS_NAME.search(question):
            return None
        # … of what the question names it by (one of its words): the heartbeat's interval, not a health check's
        named = [t for t in tokenize(m.group("named") or "", drop_stopwords=True) if t not in _SPAN_FILLER]
        return f"a value ({m.group(0)})", lambda text: _SPAN_VALUE.search(text) is not None and (not named or bool(matching_terms(named, text)))
    if _asking(_ASKS_LIMIT, asking_part(question)) is not None:
        # "每分钟最多能请求多少次？", "what's the maximum length …": a number of the thing is no limit unless it is said to be one
        return f"a limit ({m.group(0)})", lambda text: _AMOUNT.search(text) is not None and _SAYS_LIMIT.search(text) is not None
    return f"a number ({m.group(0)})", lambda text: _AMOUNT.search(text) is not None


# "What is the default heartbeat interval between frpc and frps?", "Default request read timeout on an entrypoint?": the
# default of a timeout, an interval or a lifetime is a value (a number, or "never"); a page that names the setting but
# gives none does not say it (session 32: frp's heartbeat was answered with its message format and a health check's
# interval). Not when the question asks for the setting's name ("Is there an environment variable that sets a default
# timeout …?", "which option sets the default interval?")
_ASKS_DEFAULT_SPAN = re.compile(r"\bdefault\b(?P<named>[^?.;]{0,40}?)\b(?:timeouts?|intervals?|periods?|delays?|ttls?|lifetimes?|expiry|expiration|retention)\b|"
                                r"\b(?:timeouts?|intervals?|periods?|delays?|ttls?|lifetimes?|expiry|expiration|retention)\b[^?.;]{0,40}?\bby\s+default\b", re.I)
_SPAN_FILLER = frozenset(tokenize("value setting option config configuration"))
_ASKS_NAME = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+)?(?:option|flag|setting|variable|key|parameter|field|property|annotation|argument)s?\b|"
                        r"\bis\s+there\b|\benvironment\s+variable\b", re.I)
# … a number of its own (`10`, `60s`, `876000h`; not the 64 of `<int64>` or a version's digits) or "never"
_SPAN_VALUE = re.compile(r"(?<![A-Za-z_.\-/\d])\d+(?:[.,]\d+)?\s*(?:ms|s|m|h|d|w|y)?(?![A-Za-z_\d])|\bnever\b|\bdisabled?\b|"
                         r"\bno\s+(?:timeout|expiry|expiration|limit)\b|\b(?:one|two|three|five|ten|fifteen|twenty|thirty|sixty)\s+(?:seconds?|minutes?|hours?|days?)\b", re.I)


# a question that asks for the most there may be ("最多能设到多少", "the maximum length", "upper limit") …
_ASKS_LIMIT = re.compile(r"\b(?:maximum|max|upper\s+limit|at\s+most|limit)\b|最多|上限|最大|不超过|最长|最高|至多", re.I)
# … is answered by a number said to be a limit
_SAYS_LIMIT = re.compile(r"\b(?:max\w*|limit\w*|at\s+most|up\s+to|upper|caps?|capped|no\s+more\s+than|(?:less|fewer)\s+than|or\s+(?:less|fewer)|"
                         r"exceed\w*|unlimited|ceiling)\b|<=|≤|最多|上限|最大|不超过|限制|不限|无限|超过|最长|最高|至多|以内|以下", re.I)


# the unit that gives the number is about what the question asks the number of: it holds at least this share of the
# question's weighted words (headings and path included). Dev splits, session 22: the answered amount questions' number
# units held 0.42–1.0 of them (one at 0.27 did not answer it); "默认请求超时时间是几秒？" was answered with CORS's
# `max_age` 600 秒 (0.52, no 超时), "How much free disk space does my Mac need before I install Homebrew?" with a line
# on space and need (0.25), "执行日志默认保留多少天？会不会自动清理…" with 0.37 — numbers of something else
AMOUNT_MIN_COVERAGE = 0.4


def _gives_amount(question: str, holds: Callable[[str], bool], term_weights: TermWeights | None) -> Callable[[str], bool]:
    """Does a text hold a value of the asked kind about what is asked (AMOUNT_MIN_COVERAGE of the known words of the
    sentences that ask, `asking_sentences`: the user's situation is no part of it; any value when no weights are given or
    "how many" is part of a how-to: "how do I get it to print how many commits …")."""
    if term_weights is None or _ASKS_STEPS.search(question):
        return holds
    terms = question_terms(asking_sentences(question), term_weights)
    weights = {t: w for t, w in (term_weights(terms) if terms else {}).items() if 0.0 < w < UNKNOWN_TERM_WEIGHT}
    total = sum(weights.values())
    if not total:
        return holds
    return lambda text: holds(text) and sum(weights[t] for t in matching_terms(weights, text)) / total >= AMOUNT_MIN_COVERAGE


def amount_gap(question: str, shown: Sequence[str], term_weights: TermWeights | None = None) -> tuple[str, ...]:
    """("an amount",) when the question asks for one and no shown unit holds one of its kind (a duration for "how
    long / how often", any number otherwise) — with `term_weights`, one about what is asked (`_gives_amount`;
    `shown` then holds each unit's headings and path beside its text) — else ()."""
    asked = _amount_asked(question)
    if asked is None:
        return ()
    gives = _gives_amount(question, asked[1], term_weights)
    if any(gives(text) for text in shown):
        return ()
    return (asked[0],)


# a question that asks for the steps of doing something ("how do I …", "how to …", 怎么/如何/怎样 before what to do — not
# "是怎么产生的", "怎样的结构", "规模如何？", "名字怎么来的", which ask how a thing is or came to be): what answers it is done by a
# command, a setting or code, and a page that only talks about the thing shows none (dev splits: every useful answer to
# such a question quoted code; 4 of the 35 unanswerable questions answered quoted none)
_ASKS_STEPS = re.compile(r"\bhow\s+(do|can|could|would)\s+(i|we|you|one)\b|\bhow\s+to\b|\bwhat\s+(?:do|should|can|must|would)\s+(?:i|we|you)\s+(?:need\s+to\s+)?(?:run|type|execute|enter|add|put|pass|set|write|append)\b|\b(?:what|which)\s+command\b|(?:什么|哪个|哪条)命令|(?<!是)(?:怎么|如何|怎样)(?!的|样|回事|想|看待|评价|说|来的|\s*[？?。]|\s*$)", re.I)


# a step written in words: a sentence (or numbered step) that opens with an instruction ("Check the time service on the
# node …", "1. Restart the pod", 先检查 …), as runbooks write their diagnosis and mitigation
_STEP = re.compile(r"(?:^|[.!?。！？:：]\s*)(?:\d+[.)]\s*)?(?:check|run|set|add|use|open|restart|reboot|verify|ensure|make sure|edit|install|"
                   r"uninstall|remove|delete|create|enable|disable|increase|decrease|reduce|raise|lower|update|upgrade|configure|go to|"
                   r"click|select|follow|wait|try|scale|drain|cordon|inspect|review|look|call|pass|put|write|change|switch|move|copy|"
                   r"stop|start|kill|mount|apply|rollback|roll back|export|import|replace|rename|type|press|contact)\b|"
                   r"(?:^|[。！？：；]\s*|\*\*\s*(?=\d|[（(]))(?:\d+[.)）、]\s*|[（(]\d+[)）]\s*)?(?:请|先|首先|然后|再)?"
                   r"(?:检查|运行|执行|设置|使用|打开|重启|修改|添加|删除|安装|创建|启用|关闭|配置|确认|确保)", re.I | re.M)


# a name a question gives as code: a flag (`--max-readahead`), a snake_case, dotted or camelCase setting (`bind_address`),
# or a method or type written in three or more capitalised parts (`SetMaxIdleConns`; not a brand, `GitHub`, `PostgreSQL`)
_SETTING_NAME = re.compile(r"^(?:-{1,2}[A-Za-z][\w-]*|[A-Za-z][\w-]*(?:[_.][\w-]+)+|[a-z]+[A-Z]\w*|(?:[A-Z][a-z0-9]+){3,})$")
# a default said in words or by what happens without the setting ("If you don't explicit `--cache-location`, Prettier saves …")
_SAYS_DEFAULT = re.compile(r"\bdefault|默认|缺省|\bif (?:you )?(?:don'?t|do not)\b|\bunless\b|\b(?:if|when) (?:omitted|not (?:set|specified|given))\b|"
                           r"(?:不|未|没有)(?:设置|指定|配置)", re.I)


def default_gap(question: str, shown: Sequence[str], exact_terms: Sequence[str] = ()) -> tuple[str, ...]:
    """("the default of X",) when a question asks for the default of a setting it names as code ("挂载参数 --max-readahead
    的默认值是多少", "if I leave out bind_address, which port does it listen on by default?") and no shown section both
    names it and says what is the default: the defaults the answer quotes are other settings' (session 26, JuiceFS's
    Hadoop SDK table for a mount option), or the page never states one. Each shown text is a section's quoted units."""
    if not _ASKS_DEFAULT.search(question):
        return ()
    names = [t for t in exact_terms if _SETTING_NAME.match(t)]
    if not names:
        return ()
    if any(_SAYS_DEFAULT.search(text) and any(n.lower() in text.lower() for n in names) for text in shown):
        return ()
    return (f"the default of {names[0]}",)


def code_gap(question: str, chosen: Sequence[ScoredUnit]) -> tuple[str, ...]:
    """("a command or code",) when the question asks how to do something and no quoted unit shows how: no code (a
    fence, or inline code in its text) and no step written in words, else ()."""
    if not _ASKS_STEPS.search(question) or any(s.unit.code or has_code_span(s.unit.text) or _CALL.search(s.unit.text)
                                               or _STEP.search(s.unit.text) for s in chosen):
        return ()
    return ("a command or code",)


# a call written without backticks (`$[month_last_day(yyyy-MM-dd,-N)]`, `arr.at(-1)`): code all the same
_CALL = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_.]*\([^()\s]*\)")


def focus_gap(question: str, shown: Sequence[str], term_weights: TermWeights, exact_terms: Sequence[str] = (),
              pages: Sequence[str] = ()) -> tuple[str, ...]:
    """(the rarest focus term,) when no shown unit holds any focus term of the question, else ().
    A name that only qualifies the next word of the question, where that word names a shown unit's page
    ("GNU screen" answered from screen.md), is that page's subject: no gap."""
    focus = focus_terms(question, term_weights, exact_terms)
    if not any(has_cjk(text) for text in shown):  # a Chinese question answered from English pages
        focus = [t for t in focus if not has_cjk(t)]
    # a name the KB never writes, not even in parts (`chronyc` in "diagnose X with chronyc"; not
    # `CPUThrottlingHigh`, whose parts it uses), cannot be answered about, whatever else matches
    names = question_names(question, exact_terms)
    # what the question says of the user's situation is no subject the answer must name: a name only in a sentence that
    # does not ask ("My new worker machine runs sshd on port 10022 …", "用 docker 跑 Gitea，…持久化到宿主机，启动命令怎么写？")
    # (an answer that names it is about the question all the same: "My server is aarch64. Which CPU architectures …?")
    ask = asking_part(question)
    situation = ask != question
    ask_terms = set(tokenize(ask)) if situation else set()
    if situation:
        named = focus and any(matching_terms(focus, text) for text in shown)
        focus = focus if named else [t for t in focus if _asked_about(t, ask, ask_terms)]
        names = [w for w in names if _asked_about(w, ask, ask_terms)]
    cross_language = not any(has_cjk(text) for text in shown)
    absent = [w for w in names if not (cross_language and has_cjk(w)) and _never_written(w, term_weights) and not _fence_for(w, shown)]
    absent = absent or foreign_words(question, names, lambda w: _never_written(w, term_weights) and not written_in_kb(term_weights, w)
                                           and (not situation or _asked_about(w, ask, ask_terms)))
    if absent:
        return (absent[0],)
    if not focus or any(matching_terms(focus, text) for text in shown):
        return ()
    # a compound written in its parts (账号密码: 账号 … 密码) is held by a unit that holds every part
    if any(len(matching_terms(parts, text)) == len(parts) for t in focus if has_cjk(t) and (parts := _written_in_parts(t, term_weights)) for text in shown):
        return ()
    surfaces = [next((w for w in names if t in tokenize(w)), t) for t in focus]
    if pages and all(_names_a_page(question, w, pages) for w in surfaces):
        return ()
    # the config file the user edits ("What do I put in application.yml?") is answered by a fence in its language
    surfaces = [w for w in surfaces if not _fence_for(w, shown)]
    return (surfaces[0],) if surfaces else ()


# a config file named by the question, and the fence languages its content is shown in
_CONFIG_FILE = re.compile(r"[\w.~/-]*\.(ya?ml|toml|json|ini|cfg|conf|properties|xml)", re.I)
_FENCE_LANGUAGES = {"yml": "yaml|yml", "yaml": "yaml|yml", "toml": "toml", "json": "json5?|jsonc", "ini": "ini|toml|cfg",
                    "cfg": "cfg|ini", "conf": "conf|nginx|apacheconf|ini", "properties": "properties|ini", "xml": "xml"}
_FENCE_OPENING = {ext: re.compile(rf"(?:^|\s)(?:```|~~~)\s*(?:{langs})\b", re.I) for ext, langs in _FENCE_LANGUAGES.items()}


def _fence_for(name: str, shown: Sequence[str]) -> bool:
    """Is `name` a config file (`application.yml`, `daemon.json`) and does a shown unit quote a fence in its language?"""
    m = _CONFIG_FILE.fullmatch(name)
    if m is None:
        return False
    fence = _FENCE_OPENING[m.group(1).lower()]
    return any(fence.search(text) for text in shown)


_NEXT_WORD = r"(?<![\w.-]){}\s+([A-Za-z][\w-]*)"


def _names_a_page(question: str, name: str, pages: Sequence[str]) -> bool:
    """Does `name` stand right before a word of the question that is the file name of one of `pages`
    (`GNU` in "in GNU screen" with screen.md)?"""
    m = re.search(_NEXT_WORD.format(re.escape(name)), question)
    if m is None:
        return False
    word = m.group(1).lower()
    return any(page_name(p).lower() == word for p in pages)


# the quoted units together must hold at least this share of the question's words (IDF-weighted; words the
# KB never uses left out, they are judged as absent elsewhere): an answer that holds a third of what was
# asked ("[Redis](…), etc." for "how do I cache endpoint responses in Redis") is about something else
ANSWER_MIN_COVERAGE = 1 / 3


def coverage_gap(question: str, shown: Sequence[str], term_weights: TermWeights) -> tuple[str, ...]:
    """(the question's words the answer does not hold,) when the shown units hold less than
    ANSWER_MIN_COVERAGE of the question's weighted words, else (). Not for a Chinese question answered
    from English pages (its words are matched through glosses, too loosely to count). A question that tells its
    situation before it asks is covered when the sentences that ask are (`asking_sentences`, as the grader reads it:
    nodes.asked_scores): "…without the operator. What request do I send to metasrv first …?" is not asked about the
    operator."""
    gap = _coverage_gap(question, shown, term_weights)
    if gap:
        ask = asking_sentences(question)
        if ask != question and len(question_terms(ask, term_weights)) >= ASKING_MIN_TERMS and not _coverage_gap(ask, shown, term_weights):
            return ()
    return gap


# the sentences of a question that ask are read on their own when they hold this many terms ("How?" holds none)
ASKING_MIN_TERMS = 2


def _coverage_gap(question: str, shown: Sequence[str], term_weights: TermWeights) -> tuple[str, ...]:
    if has_cjk(question) and not any(has_cjk(text) for text in shown):
        return ()
    terms = question_terms(question, term_weights)
    weights = {t: w for t, w in (term_weights(terms) if terms else {}).items() if 0.0 < w < UNKNOWN_TERM_WEIGHT}
    total = sum(weights.values())
    if not total:
        return ()
    # unit by unit: a Chinese word an English unit holds through its gloss (密码 ~ "password") counts beside the
    # Chinese units an answer also shows
    got = set().union(*(matching_terms(weights, text) for text in shown))
    if sum(weights[t] for t in got) / total >= ANSWER_MIN_COVERAGE:
        return ()
    words = LATIN_WORD.findall(question)
    # a Latin term is shown as the question wrote it ("responses" for respons); a Chinese term is a word already
    missing = [t if has_cjk(t) else next((w for w in words if t in tokenize(w)), t) for t in weights if t not in got]
    return (" ".join(dict.fromkeys(missing)),)


_PLAIN_WORD = re.compile(r"(?<![\w.\-/])[a-z][a-z0-9]{2,}(?![\w.\-/])")


def foreign_words(question: str, names: Sequence[str] = (), keep: Callable[[str], bool] = lambda w: True) -> list[str]:
    """The lower-case words of an English question that are no English words (`chronyc` and `ufw` in
    "diagnose X with chronyc", "open a port with ufw"): tools and names typed the way their users type
    them. Empty for a Chinese question (its Latin words are names already) and without a dictionary.
    `keep` filters the words before the dictionary is asked (it is opened only for a word kept)."""
    from kb_agent.index.glosses import is_english_word

    if has_cjk(question):
        return []
    return [w for w in dict.fromkeys(_PLAIN_WORD.findall(question))
            if w not in names and tokenize(w, drop_stopwords=True) and keep(w) and is_english_word(w) is False]


def _never_written(name: str, term_weights: TermWeights) -> bool:
    """The KB never writes this name: a Chinese term of art nowhere in its text, a Latin name none
    of whose parts it uses (`Mangum`), or a name written as code (`Float16Array`, `RegExp.escape`,
    `non_exhaustive`, `std::thread::scope`) that no file holds as written, although it may use every
    part (`Float32Array`, `escape`): a different API, not another wording of one the KB explains."""
    if has_cjk(name):
        return term_weights([name]).get(name, 0.0) >= UNKNOWN_TERM_WEIGHT and not _written_in_parts(name, term_weights)
    code = code_form(name)
    if code is not None and not written_in_kb(term_weights, code):
        return True
    if (_package_name(name) or _LONG_OPTION.fullmatch(name)) and not written_in_kb(term_weights, name):
        return True
    # a part of one or two letters and digits (`I/O` is two letters however it is typed) is too short to say anything
    parts = [t for t in tokenize(name) if sum(c.isalnum() for c in t) > 2 and not t.isdigit() and not has_cjk(t)]
    weights = term_weights(parts) if parts else {}
    return bool(parts) and all(weights.get(t, 0.0) >= UNKNOWN_TERM_WEIGHT for t in parts)


def _written_in_parts(term: str, term_weights: TermWeights) -> tuple[str, ...]:
    """The words a Chinese compound is made of, when the KB writes each of them somewhere (账号密码 where pages
    write 账号 and 密码): words of two or more characters that, one after another, make up the whole term; ()
    otherwise. Not 排行榜 over a KB that writes only 排行: what the term adds is not written."""
    parts = [p for p in tokenize(term) if p != term and len(p) >= 2 and p in term]
    if not parts:
        return ()
    weights = term_weights(parts)
    written = [p for p in parts if weights.get(p, UNKNOWN_TERM_WEIGHT) < UNKNOWN_TERM_WEIGHT]
    reach: dict[int, tuple[str, ...]] = {0: ()}  # the term's prefixes that written words make up, and those words
    for i in range(len(term)):
        if i in reach:
            for p in written:
                if term.startswith(p, i):
                    reach.setdefault(i + len(p), (*reach[i], p))
    return reach.get(len(term), ())


# a name of three or more parts joined by hyphens (`oh-my-zsh`, `kube-state-metrics`): how packages and components
# are named
_HYPHENATED = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+){2,}")


# an option typed with its two dashes (`--start-interval`): a page that documents it writes it so
_LONG_OPTION = re.compile(r"--[A-Za-z][\w-]*[A-Za-z0-9]")


def _package_name(name: str) -> bool:
    """A package's or component's name (`oh-my-zsh`): three or more hyphen-joined parts, one of them no everyday
    English word. A KB that never writes it as written is about another package, although it may use every part
    (`oh-my-posh`, `zsh`). A phrase of English words (`find-and-replace`) is how a question is put."""
    from kb_agent.index.glosses import is_english_word

    return _HYPHENATED.fullmatch(name) is not None and any(is_english_word(p) is False for p in name.split("-"))


# code's own shapes: a capital inside a word (`waitAsync`, `Float16Array`, `OnceLock`), a member or path
# separator between letters (`RegExp.escape`, `thread::scope`), an underscore between letters (`non_exhaustive`)
_CODE_SHAPE = re.compile(r"[a-z0-9][A-Z]|[A-Za-z](?:\.|::|_)[A-Za-z]")
_CODE_SEP = re.compile(r"::|\.")
_METHOD = re.compile(r"\.[A-Za-z_]\w*\(\)")


def code_form(name: str) -> str | None:
    """The part of a code-shaped name a KB that explains it must write as is, or None when the name
    is not code-shaped or too loose to require: its last two segments (`thread::scope` of
    `std::thread::scope`: a page may import the rest), without call parentheses or attribute brackets;
    a method named by itself (`.take()`) as a call (`.take(`).
    A path (`backend/main.py`, `HTTP/3`) is no such name, nor is a member of a one- or two-letter
    variable (`v.get`: the question's own example)."""
    core = name.strip().removeprefix("#[").rstrip("]").removesuffix("()")
    if _METHOD.fullmatch(name.strip()):
        return core + "("  # `.take()`: a page that explains it calls it (`iter.take(2)`)
    if "/" in core or not _CODE_SHAPE.search(core):
        return None
    seps: list[str] = _CODE_SEP.findall(core)
    segs = _CODE_SEP.split(core)
    if any(len(seg) <= 2 for seg in segs):
        return None
    if len(segs) > 2:
        return segs[-2] + seps[-1] + segs[-1]
    return core


def _subject_files(ranked: list[ScoredUnit], subjects: Sequence[str], cache: UnitCache) -> list[tuple[Evidence, float]]:
    """Whole-file items for the files whose path or headings name a subject (at most one per subject)."""
    out: list[tuple[Evidence, float]] = []
    seen: set[str] = set()
    for subject in subjects:
        s = next((s for s in ranked if covers(subject, [_home(s.unit)])), None)
        if s is None or s.unit.path in seen:
            continue
        seen.add(s.unit.path)
        units = cache.file_units(s.unit.path)
        if units:
            out.append((Evidence(s.unit.path, 1, units[-1].end_line, "", 0.0, "unit"), s.grade))
    return out


# the best units whose table is read whole: a reference table of options is cut across chunks, and the row that answers
# ("`retryNonIdempotentMethod` … (`POST`, …)") may sit past the lines retrieval returned
TABLE_TOP = 3


def _whole_tables(ranked: list[ScoredUnit], items: Sequence[tuple[Evidence, float]], cache: UnitCache) -> list[tuple[Evidence, float]]:
    """Items spanning the whole table of each of the TABLE_TOP best units that is a table row, when the items do not
    hold all of its rows already."""
    out: list[tuple[Evidence, float]] = []
    for s in ranked[:TABLE_TOP]:
        if s.unit.kind != "row":
            continue
        rows = [u for u in cache.file_units(s.unit.path) if u.kind == "row" and u.heading_path == s.unit.heading_path]
        k = next((i for i, u in enumerate(rows) if u.start_line == s.unit.start_line), None)
        if k is None:
            continue
        a = b = k
        while a > 0 and rows[a - 1].end_line >= rows[a].start_line - 3:
            a -= 1
        while b + 1 < len(rows) and rows[b + 1].start_line <= rows[b].end_line + 3:
            b += 1
        first, last = rows[a].start_line, rows[b].end_line
        held = any(item.path == s.unit.path and item.start_line <= first and item.end_line >= last for item, _g in [*items, *out])
        if not held:
            out.append((Evidence(s.unit.path, first, last, "", 0.0, "unit"), s.grade))
    return out


def _home(unit: AnswerUnit) -> str:
    """What a unit is about besides its words: its file's path and its headings."""
    return unit.path.replace("/", " ").replace("-", " ") + " " + " ".join(unit.heading_path)


_LABEL = re.compile(r"^(?:\*\*|__)[^*_\n]+(?:\*\*|__):\s*")


def _same_words(a: AnswerUnit, b: AnswerUnit) -> bool:
    """The same code and the same text once a leading bold label is set aside ("**Mitigation**: Increase …" in
    one runbook, "Increase …" in the next): quoting both shows a reader the same words twice."""
    return a.code == b.code and _LABEL.sub("", a.text) == _LABEL.sub("", b.text)


def _fits(chosen: list[ScoredUnit], s: ScoredUnit, per_file: int = MAX_UNITS_PER_FILE) -> bool:
    slots = sum(1 for c in chosen if not c.listed)
    if (slots >= MAX_UNITS and not s.listed) or any(c.unit == s.unit or _same_words(c.unit, s.unit) for c in chosen):
        return False
    if not s.listed and sum(1 for c in chosen if c.unit.path == s.unit.path and not c.listed) >= per_file:
        return False
    return not chosen or sum(c.unit.size for c in chosen) + s.unit.size <= MAX_ANSWER_CHARS


# the answer as a whole should hold the question: each unit is chosen for its score plus this much × the
# share of the question's weighted terms it adds to those the units already chosen hold (a page's units all
# naming `tiup cluster upgrade` left out the one line that says "不允许降级" for "能把集群降级吗"; dev splits:
# +1 useful at 0.5 and at 1.0, 0.5 changing fewer answers; rgb_zh and cmrc2018 dev unchanged)
NOVELTY_WEIGHT = 0.5


def _choose(ranked: list[ScoredUnit], subjects: Sequence[str], terms: Sequence[str] = (), cache: UnitCache | None = None,
            weights: dict[str, float] | None = None) -> list[ScoredUnit]:
    relevant = [s for s in ranked if s.body_cov > 0]
    chosen: list[ScoredUnit] = []
    if subjects:
        contrast = _contrast(ranked, subjects)
        # a section headed by every subject ("`v-if` vs. `v-show`") is the page's own comparison: it comes first,
        # each subject then adds one unit of its own; any other section that names them all adds CONTRAST_MAX
        headed = bool(contrast) and bool(contrast[0].unit.heading_path) and all(covers(sub, contrast[0].unit.heading_path[-1:]) for sub in subjects)
        contrast = contrast[: MAX_UNITS - len(subjects)] if headed else contrast[:CONTRAST_MAX]

        def add_contrast() -> None:
            for s in contrast:
                if _fits(chosen, s, per_file=MAX_UNITS):
                    chosen.append(s)

        if headed:
            add_contrast()
        share = 1 if headed else max(1, (MAX_UNITS - len(contrast)) // len(subjects))
        queues = [_subject_queue(ranked, subjects, subject, terms, weights or {}) for subject in subjects]
        for queue in queues:
            _take(chosen, queue, share, cache)
        if not headed:
            add_contrast()
        while len(chosen) < MAX_UNITS and any(_take(chosen, queue, 1, cache) for queue in queues):
            pass  # slots left: the subjects take turns
        _sibling_sections(chosen, ranked, subjects, cache)
        _parallel_definitions(chosen, ranked)
    if relevant:
        best = relevant[0].score
        pool = [s for s in relevant if s.score >= UNIT_RELATIVE_MIN * best
                and (subjects or s.unit.path == relevant[0].unit.path or s.score >= OTHER_FILE_RELATIVE_MIN * best)]
        w = weights or {}
        total = sum(w.get(t, 1.0) for t in terms) or 1.0

        def held(s: ScoredUnit) -> set[str]:
            return matching_terms(terms, s.unit.search_text + " " + " ".join(s.unit.heading_path[-1:]), translated=False)

        holds = {id(s): held(s) for s in pool}
        covered = set().union(*(held(c) for c in chosen)) if chosen else set()
        while pool and sum(1 for c in chosen if not c.listed) < MAX_UNITS:
            gains = [sum(w.get(t, 1.0) for t in holds[id(s)] - covered) / total for s in pool]
            i = max(range(len(pool)), key=lambda j: (pool[j].score + NOVELTY_WEIGHT * gains[j], -j))
            s = pool.pop(i)
            if _fits(chosen, s):
                chosen.append(s)
                covered |= holds[id(s)]
                _add_next_step(chosen, s, cache)
    return _reading_order(chosen)


# a unit that shows how (code) may take the place of one that only talks about the thing when it scores at least this
# share of the answer's best unit
SHOW_HOW_RELATIVE_MIN = 0.5
# … and one from another page when it is among this many best units of the whole ranking
SHOW_HOW_OTHER_TOP = 3
# a section that says how to fix or do something (a runbook's Mitigation, a FAQ's Solution, 解决方法)
_HOW_HEADING = re.compile(r"\b(mitigation|mitigations|resolution|resolving|solution|solutions|fix|fixes|fixing|remedy|remediation|workaround|"
                          r"how\s+to|how-to|procedure|steps)\b|解决|处理|修复|办法|方法|步骤|操作", re.I)


def _show_how(question: str, chosen: list[ScoredUnit], ranked: list[ScoredUnit],
              everything: Sequence[ScoredUnit], term_weights: TermWeights | None = None) -> list[ScoredUnit]:
    """An answer to "how do I …" that quotes no command, setting or code (code_gap) takes the best unit that shows
    one (a fence or a command line, not a name in backticks) from a page it already quotes, in place of its weakest
    unit: the page that explains forcing a delete writes the command under a sentence that shares fewer of the
    question's words ("请执行下面命令：" + the fence) than the sentences that only talk about it. So does an answer to
    "how many / 多少" that quotes no number (amount_gap): the page's line that writes the number ("The default `COUNT`
    value is 10."). Nothing changes when no such unit scores SHOW_HOW_RELATIVE_MIN of the best (code under a how-to
    heading of a quoted page, a runbook's Mitigation, at any score)."""
    if not chosen:
        return chosen
    shows: Callable[[ScoredUnit], bool]
    sections = {(c.unit.path, c.unit.heading_path) for c in chosen}
    best = max(s.score for s in chosen)

    def how_section(s: ScoredUnit) -> bool:  # code under a heading that says how to fix or do something
        return bool(s.unit.code) and any(_HOW_HEADING.search(h) for h in s.unit.heading_path[1:])

    gap = bool(code_gap(question, chosen))
    if gap:
        shows = lambda s: bool(s.unit.code) and (s.score >= SHOW_HOW_RELATIVE_MIN * best or how_section(s))  # noqa: E731
    elif amount_gap(question, [_home(c.unit) + " " + c.unit.search_text for c in chosen], term_weights):
        gives = _gives_amount(question, _amount_asked(question)[1], term_weights)  # type: ignore[index]
        # the line with the number may be next to the quoted sentence without naming what the question narrowed to ("Transient
        # failures (… HTTP 5xx …) are automatically retried." above the fence with `# Default: 10` / `attempts:`): a unit of a
        # quoted section counts at any score, from the ranking before the focus filter
        shows = lambda s: gives(_home(s.unit) + " " + s.unit.search_text) and (  # noqa: E731
            s.score >= SHOW_HOW_RELATIVE_MIN * best or (s.unit.path, s.unit.heading_path) in sections)
        ranked = list(everything)
    elif _ASKS_STEPS.search(question) and not any(c.unit.code for c in chosen):
        # names in backticks but no command: the fence in the section of a quoted sentence ("… mark the revisions as
        # compacted using `--mark-compacted`." then "A full invocation may look like this:" and the fence) is the how,
        # whether or not it names what the question names (`everything`: the ranking before the focus filter)
        shows = lambda s: (bool(s.unit.code) and (s.unit.path, s.unit.heading_path) in sections  # noqa: E731
                           and s.score >= SHOW_HOW_RELATIVE_MIN * best) or how_section(s)
        ranked = list(everything)
    else:
        return chosen
    pages = {s.unit.path for s in chosen}
    # code under a quoted page's how-to heading (a runbook's Mitigation under its quoted Meaning and Impact) is the how at
    # any score, as long as it shares a word with the question (session 20)
    shown = [s for s in ranked if s.unit.path in pages and s.body_cov > 0 and shows(s) and s not in chosen]
    if not shown and gap:
        # none on a quoted page: code among the very best units of another page ("备份的时候怎么把表的统计信息一起备份？": the
        # FAQ on restoring statistics ranked first and kept the manual's `--ignore-stats=false` fence, second, out of the answer)
        shown = [s for s in ranked[:SHOW_HOW_OTHER_TOP] if s.body_cov > 0 and shows(s) and s not in chosen]
    if not shown:
        return chosen
    # the one in the section of a quoted sentence first (the command under the sentence that explains it), then one under
    # a how-to heading, then the best
    show = next((s for s in shown if (s.unit.path, s.unit.heading_path) in sections), None) or next((s for s in shown if how_section(s)), shown[0])
    # in place of the weakest units, within the slots and the length cap (a list's items go with their intro)
    out = _room_for(chosen, show)
    return chosen if out is None else _reading_order([*out, show])


def _subject_queue(ranked: list[ScoredUnit], subjects: Sequence[str], subject: str, terms: Sequence[str] = (),
                   weights: dict[str, float] | None = None) -> list[ScoredUnit]:
    """A subject's candidates, best first: its own page (path or headings name it, not the others'),
    a section headed by it read from its start (among such headings the one with most of the
    question's other words, then the shortest, is the one most about it; a page title heads
    everything), then any unit whose text names it."""
    others = [o for o in subjects if o != subject]
    own = [s for s in ranked if covers(subject, [_home(s.unit)]) and not any(covers(o, [_home(s.unit)]) for o in others)]
    named = {t for sub in subjects for t in tokenize(sub)}
    aspect = [t for t in terms if t not in named]  # what is compared: the question's words that name no side
    words = {w.lower() for w in re.findall(r"[\w.-]+", subject)}

    def order(s: ScoredUnit) -> tuple[bool, bool, float, bool, int, int, bool, bool, float]:
        trail = s.unit.heading_path
        headed = len(trail) >= 2 and covers(subject, [trail[-1]])
        # on the subject's own page (drive.md, onedrive.md), the section whose heading holds most of what is compared,
        # headed by the subject or not ("#### --drive-chunk-size" for "default upload chunk size … Google Drive compared
        # with OneDrive", before "Use case - Google Workspace account and individual Drive"; session 22)
        on_page = len(trail) >= 2 and page_name(s.unit.path).lower() in words
        asks = _coverage(aspect, weights or {}, trail[-1]) if headed or on_page else 0.0
        return (not SUBSTANCE_HEADINGS.search(" ".join(trail[1:])), not (headed or asks > 0), -asks, not headed, len(trail[-1]) if headed else 0,
                s.unit.start_line if headed else 0, not covers(subject, [s.unit.search_text]), weight(s.unit.search_text) < 40, -s.score)

    own.sort(key=order)
    # then any unit whose text names it: sharing a word with the question, or naming it as written (the `[]` of `v[100]`)
    exact = bool(as_written(subject))
    return [*own, *(s for s in ranked if (exact or s.body_cov > 0) and covers(subject, [s.unit.search_text]))]


def _about(subject: str, heading: str) -> bool:
    """Is a section with this heading about the subject: the heading holds the subject, or the subject names every
    word of a short heading ("`depends`" for "listing another task under depends")?"""
    if covers(subject, [heading]):
        return True
    words = tokenize(heading, drop_stopwords=True)
    return 0 < len(words) <= 3 and len(matching_terms(words, subject, translated=False)) == len(words)


def _make_room(chosen: list[ScoredUnit], s: ScoredUnit, most: int = 3) -> bool:
    """Fit `s` into the answer, in place of (at most `most`) weakest units of the section quoted most when it is full
    (each one of at least two units of its section); False, with the answer as it was, when it does not fit even so."""
    removed: list[ScoredUnit] = []
    while not _fits(chosen, s, per_file=MAX_UNITS):
        counts: dict[tuple[str, tuple[str, ...]], int] = {}
        for x in chosen:
            counts[(x.unit.path, x.unit.heading_path)] = counts.get((x.unit.path, x.unit.heading_path), 0) + 1
        top = max(counts, key=lambda t: counts[t])
        weakest = min((x for x in chosen if (x.unit.path, x.unit.heading_path) == top and x.unit.kind != "definition"), key=lambda x: x.score, default=None)
        if weakest is None or counts[top] < 2 or len(removed) >= most:
            chosen.extend(removed)
            return False
        chosen.remove(weakest)
        removed.append(weakest)
    return True


_SECTION_PROSE = ("definition", "paragraph", "sentence")


def _sibling_sections(chosen: list[ScoredUnit], ranked: list[ScoredUnit], subjects: Sequence[str], cache: UnitCache | None) -> None:
    """A comparison quotes one side from the section about it ("### `wait_for`") but the other not from the section
    beside it: the section about that side among its sibling headings in the same file ("### `depends`": "Tasks that
    must be run before this task …") is quoted too — its first prose unit, retrieved or not."""
    if cache is None:
        return
    headed = {sub: [c for c in chosen if c.unit.heading_path and _about(sub, c.unit.heading_path[-1])] for sub in subjects}
    for sub in subjects:
        for other in (c for o in subjects if o != sub for c in headed[o]):
            trail = other.unit.heading_path
            if any(c.unit.path == other.unit.path and len(c.unit.heading_path) == len(trail) and c.unit.heading_path[:-1] == trail[:-1]
                   and c.unit.heading_path != trail for c in headed[sub]):
                break  # this side is quoted from its own section beside the other's already
            units = cache.file_units(other.unit.path)
            first = next((u for u in units if len(u.heading_path) == len(trail) and u.heading_path[:-1] == trail[:-1]
                          and u.heading_path != trail and _about(sub, u.heading_path[-1]) and u.kind in _SECTION_PROSE), None)
            if first is None:
                continue
            scored = next((r for r in ranked if r.unit == first), None) or ScoredUnit(score=0.0, body_cov=0.0, grade=other.grade, unit=first)
            if _make_room(chosen, scored):
                chosen.append(scored)
                headed[sub] = [scored]
                break


def _parallel_definitions(chosen: list[ScoredUnit], ranked: list[ScoredUnit]) -> None:
    """A comparison quotes the definition under one side's heading ("## 平均分片策略" + "类型：AVG_ALLOCATION"): the other
    sides' sections quoted beside it (sibling headings) get theirs too ("## 奇偶分片策略" + "类型：ODEVITY"), in place of
    the weakest units of the section quoted most when the answer is full (`_make_room`)."""
    defined = {(c.unit.path, c.unit.heading_path) for c in chosen if c.unit.kind == "definition" and c.unit.heading_path}
    for path, trail in list(defined):
        for c in list(chosen):
            other = c.unit.heading_path
            if c.unit.path != path or (path, other) in defined or len(other) != len(trail) or other[:-1] != trail[:-1]:
                continue
            d = next((r for r in ranked if r.unit.kind == "definition" and r.unit.path == path and r.unit.heading_path == other), None)
            defined.add((path, other))
            if d is not None and _make_room(chosen, d):
                chosen.append(d)


def _take(chosen: list[ScoredUnit], queue: list[ScoredUnit], n: int, cache: UnitCache | None = None) -> int:
    """Move up to n units that fit from the front of `queue` into `chosen`; how many moved."""
    moved = 0
    while queue and moved < n:
        s = queue.pop(0)
        if _fits(chosen, s, per_file=MAX_UNITS):
            chosen.append(s)
            _add_next_step(chosen, s, cache)
            moved += 1
    return moved


# a sentence that goes on with the step above it: "To resize the volume run:" + `kubectl edit pvc …`, then
# "And edit `.spec.resources.requests.storage` to the new desired storage size." — the command is half the step
_GOES_ON = re.compile(r"^(?:\*\*|__)?(?:and|then|next|afterwards|after that|finally)\b[\s,]|^(?:然后|接着|随后|之后|再)", re.I)


# a paragraph that draws the conclusion of the one above it: "…如果直接关闭节点，节点上的连接和会话将会丢失…" then "因此 EMQX 提供了
# 节点疏散功能，以帮助您在关闭节点前将…迁移到集群其他节点" — what the thing is for (session 32)
_CONCLUDES = re.compile(r"^(?:因此|所以|为此|于是)|^(?:therefore|thus|hence|this is why|that is why|that's why)\b", re.I)


def _add_next_step(chosen: list[ScoredUnit], s: ScoredUnit, cache: UnitCache | None) -> None:
    """After a chosen unit with code, the sentence right under it in its section that goes on with its
    step ("And …", "Then …", 然后 …) joins the answer as part of that unit, when it fits; after a paragraph, the
    paragraph right under it that draws its conclusion ("Therefore …", 因此 …)."""
    u = s.unit
    if cache is None or not (u.code or u.kind in _SECTION_PROSE):
        return
    goes_on = _GOES_ON if u.code else _CONCLUDES
    nxt = next((t for t in cache.file_units(u.path) if t.start_line > u.end_line), None)
    if (nxt is None or nxt.start_line > u.end_line + 2 or nxt.heading_path != u.heading_path
            or not goes_on.search(nxt.text) or any(c.unit == nxt for c in chosen)):
        return
    step = ScoredUnit(s.score, s.body_cov, s.grade, nxt, listed=True)
    if _fits(chosen, step):
        chosen.append(step)


# the sentences that may follow a quoted one as the means it leads to (see _add_means)
MEANS_SENTENCES = 2


def _add_means(chosen: list[ScoredUnit], cache: UnitCache) -> None:
    """A how-to answer that quotes a sentence of a long paragraph ("A few keybindings have different defaults on
    macOS … (e.g. word-wise cursor movement …)") also quotes the paragraph's next sentences (up to MEANS_SENTENCES) while
    they name the means in code ("… you can override that with the `LAZYGIT_KEYBINDING_PLATFORM` environment variable.
    Set it to `darwin`, …"), as part of the same point, when they fit. So does one that quotes a paragraph or sentence
    closing on what can be done ("…可以开启OrderedProperties特性来使得内存中的配置顺序和页面上看到的一致。") when the section
    goes on with a line that introduces a list ("配置方式按照优先级从高到低分别为：") whose items name the means in code: the
    line and the first MEANS_ITEMS items (`-Dapollo.property.order.enable=true`), in place of the weakest units quoted
    from elsewhere when the answer is full (session 22)."""
    best = max((c.score for c in chosen), default=0.0)
    for s in list(chosen):
        u = s.unit
        if u.kind not in ("sentence", "paragraph", "definition", "item"):
            continue
        units, i = _in_file(cache, u)
        if i < 0:
            continue
        # the list of means only under the answer's best unit (a weaker one's list is another topic's settings); a unit
        # that shows code already (the error it states, in a fence), or a list item ("- Problem: …"), is followed only by
        # the paragraph or item that solves it
        follow = [] if u.code or u.kind == "item" else (_means_sentences(units, i) if u.kind == "sentence" else []) or (_means_list(units, i) if s.score >= best else [])
        # the paragraph that says how, referring back to a quoted unit, takes the place of weaker units from any file
        referred = not follow and bool(follow := _means_referred(units, i))
        _place_run(chosen, s, follow, keep_files=not referred)


# a question about a default ("what default upload chunk size…", "…默认是多少") is answered by the line that writes it; a
# reference page writes it apart from the option's description, in a properties list of the same section ("#### --drive-
# chunk-size" / "Upload chunk size." / … / "Properties:" / "- Default:     8Mi"; session 22, rclone)
_ASKS_DEFAULT = re.compile(r"\bdefault\b|默认|缺省", re.I)
_STATES_DEFAULT = re.compile(r"\bdefaults?\b\s*(?:value\s*)?(?:is|:|to|=)\s*\S|默认值?\s*(?:为|是|：|:)\s*\S|缺省值?\s*(?:为|是|：|:)\s*\S", re.I)
# a section this close in score to the best unit quoted from its file has its default brought in (per file: a
# comparison's other side may score higher on words it shares with the question)
DEFAULT_RELATIVE_MIN = 0.8


def _add_defaults(chosen: list[ScoredUnit], cache: UnitCache) -> None:
    """An answer to a question about a default that quotes a section (as good as its file's best) none of whose quoted
    units states one also quotes the section's unit that does (the first), right after the section's last quoted unit,
    in place of weaker units from elsewhere when the answer is full (`_room_below`)."""
    if not chosen:
        return
    best: dict[str, float] = {}
    for c in chosen:
        best[c.unit.path] = max(best.get(c.unit.path, 0.0), c.score)
    for s in [c for c in chosen if c.score >= DEFAULT_RELATIVE_MIN * best[c.unit.path] and not c.listed]:
        if s not in chosen:
            continue  # it made room for an earlier section's default
        section = (s.unit.path, s.unit.heading_path)
        if not s.unit.heading_path or any(_STATES_DEFAULT.search(c.unit.search_text) for c in chosen if (c.unit.path, c.unit.heading_path) == section):
            continue
        stated = next((u for u in cache.file_units(s.unit.path) if u.heading_path == s.unit.heading_path and _STATES_DEFAULT.search(u.search_text)), None)
        if stated is None:
            continue
        extra = ScoredUnit(s.score, s.body_cov, s.grade, stated, listed=True)
        if not _fits(chosen, extra) and not _room_below(chosen, extra, s):
            continue
        last = max((c for c in chosen if (c.unit.path, c.unit.heading_path) == section), key=lambda c: c.unit.end_line)
        chosen.insert(chosen.index(last) + 1, extra)


def _in_file(cache: UnitCache, unit: AnswerUnit) -> tuple[list[AnswerUnit], int]:
    """The units of `unit`'s file and its place among them (-1 when the file no longer holds it)."""
    units = cache.file_units(unit.path)
    return units, next((k for k, t in enumerate(units) if t == unit), -1)


def _fill_gaps(chosen: list[ScoredUnit], cache: UnitCache) -> None:
    """Two quoted units of one section with a single unit between them that shows code bring it: the lines around an
    example are quoted for it ("Open it with your favorite text editor …" / the `plugins=(…)` example / "Note that the
    plugins are separated by whitespace"; session 26, Oh My Zsh's README), placed after the first, when it fits without
    taking another unit's place (a long console fence's next piece between two quoted lines is no reason to drop them)."""
    for s in list(chosen):
        u = s.unit
        units, i = _in_file(cache, u)
        if i < 0 or i + 2 >= len(units):
            continue
        mid, nxt = units[i + 1], units[i + 2]
        if (mid.code and shows_code(mid.code) and mid.heading_path == nxt.heading_path == u.heading_path
                and any(c.unit == nxt for c in chosen) and not any(c.unit == mid for c in chosen)):
            extra = ScoredUnit(s.score, s.body_cov, s.grade, mid, listed=True)
            if _fits(chosen, extra):  # never in place of another quoted unit: those were chosen for the question's words
                chosen.insert(chosen.index(s) + 1, extra)


# the items of a list that may follow its intro line as the means a quoted sentence leads to (see _add_means)
MEANS_ITEMS = 3


def _close_after(a: AnswerUnit, b: AnswerUnit) -> bool:
    """`b` goes on where `a` ends: the same section, at most a blank line between."""
    return b.heading_path == a.heading_path and a.end_line < b.start_line <= a.end_line + 2


def _means_sentences(units: list[AnswerUnit], i: int) -> list[AnswerUnit]:
    """The sentences right after units[i] in its paragraph (up to MEANS_SENTENCES) while they name code."""
    out, u = [], units[i]
    for nxt in units[i + 1 : i + 1 + MEANS_SENTENCES]:
        if nxt.kind != "sentence" or nxt.start_line > u.end_line + 1 or nxt.heading_path != u.heading_path or not has_code_span(nxt.text):
            break
        out.append(nxt)
        u = nxt
    return out


# a paragraph that solves the problem a quoted one states: "To work around this, …", "A workaround to this is to configure
# Podman to use a different log driver …" (session 31), "要解决这个问题，请使用 `c.ShouldBindBodyWith`。" under "…你不能对同一个
# 请求多次调用 `c.ShouldBind` …" (session 30)
_SOLVES_SOURCE = (r"(?:to\s+)?(?:solve|fix|avoid|work\s+around|get\s+around|address|overcome|prevent)\s+(?:this|that|it|the\s+(?:problem|issue))\b|"
                  r"(?:an?|one|the|another|a\s+possible|the\s+only)\s+(?:workaround|solution|fix|remedy)\s+(?:to|for)\s+(?:this|that|it)\b|"
                  r"(?:要|为了|如需|若要|想要)?(?:解决|避免|规避|绕过|处理)(?:这个|这一?|此|该)(?:问题|情况|限制)")
# … or is labelled as the solution, as FAQ and troubleshooting pages write it under a "Problem:" line ("- Possible Solution:
# Mounting the CA Certificate … via `k3d cluster create --volume …`", "**Solution**: Configure …", 解决方法：; session 32)
_SOLUTION_LABEL = (r"(?:\*\*)?(?:possible\s+|suggested\s+)?(?:solutions?|fix|workaround|resolution)(?:\*\*)?\s*[:：]|"
                   r"(?:\*\*)?(?:解决方法|解决方案|解决办法|处理方法)(?:\*\*)?\s*[:：]")
_SOLVES = re.compile(f"^(?:{_SOLVES_SOURCE}|{_SOLUTION_LABEL})", re.I)
# … or that opens by referring back to the one above ("GoReleaser supports this with the `--snapshot` flag …" under
# "Sometimes we want to generate a full build … but neither validate anything nor upload it")
_REFERS_BACK = re.compile(r"^(?:(?:this|that|it)\b|(?:to\s+do|for)\s+(?:this|that|so)\b|[^.:;!?]{0,40}?\b(?:supports?|does|handles?|achieves?|allows?|"
                          r"enables?|provides?)\s+(?:this|that)\b|in\s+(?:this|that|such\s+a)\s+case\b|"
                          r"为此|对此|这时|此时|这种情况下?|要做到这一?点|" + _SOLVES_SOURCE + ")", re.I)
# the solving paragraph may come this many units after the one that states the problem, the explanation between
# ("This failure can have many different root causes, … As a result, kind's log watcher never sees the line …")
SOLVES_LOOKAHEAD = 4
# a question that asks which method, function or command does it ("该用哪个方法？") is answered with the means, as a how-to is
_ASKS_MEANS = re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?:method|function|command|api|call)s?\b|(?:哪个|哪种|什么)(?:方法|函数|接口|命令|API)", re.I)


def _means_referred(units: list[AnswerUnit], i: int) -> list[AnswerUnit]:
    """The paragraph (or list item) that solves the problem units[i] states (`_SOLVES`) and names the means in code (a
    fence, or code in its text), up to SOLVES_LOOKAHEAD units on in the same run of text; else the paragraph right after
    units[i] when it opens by referring back to it and names the means in code (a paragraph: an item under a paragraph
    that opens with "This …" is the next of a list, not what the paragraph refers to)."""
    prev, run = units[i], []
    for unit in units[i + 1 : i + 1 + SOLVES_LOOKAHEAD]:
        # (the sentences of one paragraph may share a line)
        if unit.kind not in ("paragraph", "sentence", "item") or unit.heading_path != prev.heading_path or not prev.end_line <= unit.start_line <= prev.end_line + 2:
            break
        if (unit.code or has_code_span(unit.text)) and _SOLVES.search(unit.text.lstrip()):
            return [unit]
        run.append(unit)
        prev = unit
    # a list item ("- Problem: …") is followed only by the one labelled as its solution
    if not run or units[i].kind == "item" or not _close_after(units[i], nxt := run[0]):
        return []
    return [nxt] if nxt.kind != "item" and (nxt.code or has_code_span(nxt.text)) and _REFERS_BACK.search(nxt.text.lstrip()) else []


# a question that asks which setting, option or flag to use
_ASKS_SETTING = re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?:option|setting|flag|key|parameter|property|field|variable)s?\b|"
                           r"哪一?项|哪个(?:选项|参数|配置|设置|字段|属性|变量|开关)|什么(?:选项|参数|配置项|设置|字段|属性|变量|开关)", re.I)
# an option's table under its description is this short (Default | CLI Override | API Override)
SETTING_ROWS_MAX = 3


def _add_setting_rows(chosen: list[ScoredUnit], cache: UnitCache) -> None:
    """A quoted description of an option ("**Tabs**: Indent lines with tabs instead of spaces.") whose section goes on
    with a short table that names it in code (`--use-tabs`, `useTabs: <bool>`) brings the table's rows: a reference
    page writes the option's name there, apart from what it does (session 25, Prettier's options page)."""
    for s in list(chosen):
        u = s.unit
        if u.kind not in ("paragraph", "definition", "sentence") or u.code:
            continue
        units, i = _in_file(cache, u)
        rows: list[AnswerUnit] = []
        prev = u
        for t in units[i + 1 :] if i >= 0 else []:
            if t.kind != "row" or t.heading_path != u.heading_path or t.start_line > prev.end_line + 4:  # a header row and its rule
                break
            rows.append(t)
            prev = t
        if not rows or len(rows) > SETTING_ROWS_MAX or not any(has_code_span(r.text) for r in rows):
            continue
        _place_run(chosen, s, rows, keep_files=False, past_quoted=True)


# English words a Chinese question writes in a row ("卸载时一直报 target is busy"): an error message it quotes as printed
_LATIN_RUN = re.compile(r"[A-Za-z][\w'.:-]*(?:[ \t]+[A-Za-z0-9][\w'.:-]*){2,}")


def _error_messages(question: str, exact_terms: Sequence[str]) -> list[str]:
    """What the question quotes as printed, lower-cased: its quoted phrases (`"ERR wrong number of arguments for 'auth'
    command"`), and in a Chinese question its runs of three or more English words."""
    quoted = [t for t in exact_terms if " " in t.strip()]
    runs = [m.group() for m in _LATIN_RUN.finditer(question)] if has_cjk(question) else []
    return [t.strip().lower() for t in dict.fromkeys([*quoted, *runs]) if len(t.strip()) >= 8]


def _add_remedy(chosen: list[ScoredUnit], cache: UnitCache, messages: Sequence[str]) -> None:
    """A quoted unit whose code shows the message the question quotes ("format: ERR wrong number of arguments for 'auth'
    command" under "When using Redis below 6.0.0, `juicefs format` will fail …") brings what its section says next, the
    cause and the remedy ("… omit the `username` from the Redis URL, e.g. `redis://:password@host:6379/1`"; or a line
    that introduces a list and its first MEANS_ITEMS items: "这种情况下可以：" and the ways out), in place of weaker
    units from any file when the answer is full (session 26, JuiceFS's troubleshooting page)."""
    if not messages:
        return
    for s in list(chosen):
        u = s.unit
        if not u.code or not any(m in u.code.lower() for m in messages):
            continue
        units, i = _in_file(cache, u)
        if i < 0 or i + 1 >= len(units):
            continue
        nxt = units[i + 1]
        follow = _means_list(units, i) or ([nxt] if nxt.kind in ("paragraph", "sentence", "item") and _close_after(u, nxt) else [])
        _place_run(chosen, s, follow, keep_files=False)


def _means_list(units: list[AnswerUnit], i: int) -> list[AnswerUnit]:
    """The intro line after units[i] (ending in a colon) and the first MEANS_ITEMS items under it, when they name code."""
    if i + 1 >= len(units):
        return []
    intro = units[i + 1]
    if intro.kind not in ("paragraph", "sentence") or intro.code or not intro.text.rstrip().endswith((":", "：")) or not _close_after(units[i], intro):
        return []
    items, u = [], intro
    for nxt in units[i + 2 : i + 2 + MEANS_ITEMS]:
        if nxt.kind != "item" or not _close_after(u, nxt):
            break
        items.append(nxt)
        u = nxt
    return [intro, *items] if any(has_code_span(t.text) or t.code for t in items) else []


def _place_run(chosen: list[ScoredUnit], anchor: ScoredUnit, follow: Sequence[AnswerUnit], *, keep_files: bool,
               past_quoted: bool = False) -> None:
    """Quote the units that go on from `anchor`, in order, right after it, until one does not fit or is quoted already
    (with `past_quoted`, a quoted one is passed over: a table's rows)."""
    at = anchor
    for unit in follow:
        if any(c.unit == unit for c in chosen):
            if past_quoted:
                continue
            break
        placed = _place_after(chosen, at, anchor, unit, keep_files=keep_files)
        if placed is None:
            break
        at = placed


def _place_after(chosen: list[ScoredUnit], at: ScoredUnit, anchor: ScoredUnit, unit: AnswerUnit, *, keep_files: bool) -> ScoredUnit | None:
    """Quote `unit`, which completes `anchor`, right after `at` (as part of the anchor's point, scored as it), making room
    as `_room_below` does; None, with the answer as it was, when it does not fit."""
    extra = ScoredUnit(anchor.score, anchor.body_cov, anchor.grade, unit, listed=True)
    if not _fits(chosen, extra) and not _room_below(chosen, extra, anchor, keep_files=keep_files):
        return None
    chosen.insert(chosen.index(at) + 1, extra)
    return extra


def _room_below(chosen: list[ScoredUnit], means: ScoredUnit, anchor: ScoredUnit, *, keep_files: bool = True) -> bool:
    """Fit `means` (a unit that completes `anchor`) in place of the weakest units quoted from other sections that score below `anchor` (at most two;
    with `keep_files`, never a file's last); False, with the answer as it was, when it does not fit even so."""
    before = list(chosen)
    while not _fits(chosen, means):
        # never a file's last unit: each file quoted (a comparison's side) stays quoted
        others = [c for c in chosen if not c.listed and c.score < anchor.score and (c.unit.path, c.unit.heading_path) != (anchor.unit.path, anchor.unit.heading_path)
                  and (not keep_files or sum(1 for d in chosen if d.unit.path == c.unit.path) > 1)]
        if not others or len(before) - len(chosen) >= 2:
            chosen[:] = before
            return False
        chosen.remove(min(others, key=lambda c: c.score))
    return True


def _mention_lines(items: Sequence[tuple[Evidence, float]], cache: UnitCache, target: str, ranked: list[ScoredUnit]) -> list[ScoredUnit]:
    """For files where no unit names X (a link-only line is not a unit), the line that does."""
    low = target.lower()
    named = {s.unit.path for s in ranked if low in s.unit.quote.lower()}
    out = []
    for item, grade in items:
        if item.path in named:
            continue
        cache.file_units(item.path)
        u = cache.line_unit(item.path, item.start_line, item.end_line, target)
        if u is not None:
            named.add(item.path)
            out.append(ScoredUnit(0.3 * grade, 0.0, grade, u))
    return out


def _names(subject: str, text: str, others: Sequence[str] = ()) -> bool:
    """The text writes the subject itself: the phrase (in its case when it has capitals: `PUT`, not
    "Put that"), or one of its capitalised words that the other subjects do not share."""
    if subject == subject.lower():
        return subject in text.lower()
    shared = {w for o in others for w in o.split()}
    return subject in text or any(w in text for w in subject.split() if any(c.isupper() for c in w) and w not in shared)


def _contrast(ranked: list[ScoredUnit], subjects: Sequence[str]) -> list[ScoredUnit]:
    """The units of the best section whose text names every subject (a passage that compares them
    itself, as a "Caveat: for heavy work use B … for small tasks A" section does), in document order."""
    sections: dict[tuple[str, tuple[str, ...]], list[ScoredUnit]] = {}
    for s in ranked:
        if any(_names(subject, s.unit.search_text, [o for o in subjects if o != subject]) for subject in subjects):
            sections.setdefault((s.unit.path, s.unit.heading_path), []).append(s)
    both = [units for units in sections.values()
            if all(any(_names(subject, u.unit.search_text, [o for o in subjects if o != subject]) for u in units) for subject in subjects)]
    if not both:
        return []
    best = max(both, key=lambda units: sum(u.score for u in units))
    return sorted(best, key=lambda s: s.unit.start_line)


def _choose_mentions(ranked: list[ScoredUnit], target: str, extra: list[ScoredUnit]) -> list[ScoredUnit]:
    """One unit per file for "which pages mention X": the best unit that names X, else the file's best."""
    low = target.lower()
    by_file: dict[str, ScoredUnit] = {}
    for s in [*ranked, *extra]:
        names = low in s.unit.quote.lower()
        have = by_file.get(s.unit.path)
        if have is None or (names and low not in have.unit.quote.lower()):
            by_file[s.unit.path] = s
    picks = sorted(by_file.values(), key=lambda s: (low not in s.unit.quote.lower(), -s.score))
    picks = [s for s in picks if low in s.unit.quote.lower() or covers(target, [s.unit.search_text, _home(s.unit)])]
    return picks[:MAX_UNITS]


def _fold_files(chosen: list[ScoredUnit], q_lang: Lang, cache: UnitCache) -> list[ScoredUnit]:
    """A file list names a translated page once, in the question's language when it is listed."""
    langs = {s.unit.path: page_language(s.unit.path, cache.exists) for s in chosen}
    keys = {twin_key(s.unit.path)[0] for s in chosen if langs[s.unit.path] == q_lang}
    kept = [s for s in chosen if langs[s.unit.path] in (None, q_lang) or twin_key(s.unit.path)[0] not in keys]
    return sorted(kept, key=lambda s: langs[s.unit.path] not in (None, q_lang))


# an answer that quotes "…use the -b option:" shows the list items it introduces (at most this many)
INTRO_ITEMS_MAX = 4
# an intro scoring at least this share of the answer's best unit is read with its list as one unit: its items
# share its slot (MAX_UNITS counts the intro once; the character cap still counts every item). A weaker
# intro's items join only while slots are free.
LISTED_MIN = 0.9
# so is any intro whose list is short (its first INTRO_ITEMS_MAX items together at most this many characters): "对于
# QoS 类为 `Guaranteed` 的 Pod：" says nothing without the four short conditions under it
SHORT_LIST_CHARS = 240
_INTRO_END = re.compile(r"[:：]\s*(\*\*|__)?\s*(\[\d+\])?\s*$")


def _complete_intros(chosen: list[ScoredUnit], cache: UnitCache) -> list[ScoredUnit]:
    """A chosen sentence that ends in a colon and carries no code introduces what follows it: the list
    items right under it join the answer (in order, within the length cap). A strong intro (LISTED_MIN)
    and its items are one unit ("Keep these rules in mind:" + the rules); a weaker one's items take free slots."""
    out = list(chosen)
    top = max((c.score for c in chosen), default=0.0)
    for s in chosen:
        u = s.unit
        if u.code or not (_INTRO_END.search(u.text) or u.kind != "item" and _OPENS_LIST.search(u.text) and _open_line(u.text)):
            continue
        units = cache.file_units(u.path)
        under = _items_under(units, u.end_line)
        if not _INTRO_END.search(u.text) and not under:
            continue
        listed = s.score >= LISTED_MIN * top or (bool(under) and sum(t.size for t in under[:INTRO_ITEMS_MAX]) <= SHORT_LIST_CHARS)
        top_indent: int | None = None
        items = 0
        for t in under:
            # INTRO_ITEMS_MAX counts the list's own items: a nested item belongs to the one above it
            # ("Grafana: <url>" with its "默认用户名" / "默认密码" under it)
            indent = cache.indent(t.path, t.start_line)
            top_indent = indent if top_indent is None else top_indent
            if indent <= top_indent:
                items += 1
                if items > INTRO_ITEMS_MAX:
                    break
            extra = ScoredUnit(s.score, s.body_cov, s.grade, t, listed=listed)
            if any(c.unit == t for c in out):  # already quoted for its own words: the list goes on after it
                continue
            if not _fits(out, extra):
                break
            out.append(extra)
        else:  # the whole list fitted: its short closing line comes with it
            close = _closing_line(units, u, under)
            if close is not None and not any(c.unit == close for c in out) and _fits(out, closing := ScoredUnit(s.score, s.body_cov, s.grade, close, listed=True)):
                out.append(closing)
    return _reading_order(out) if out != chosen else chosen


def _room_for(out: list[ScoredUnit], extra: ScoredUnit) -> list[ScoredUnit] | None:
    """`out` with its weakest quoted blocks dropped until `extra` fits the answer's slots (MAX_UNITS) and length cap, or None
    when it cannot. A block is a unit with the list items or fence that ride on it (listed units right after it on its
    page): they go together. (Session 32: `_show_how` added its unit past the length cap, 1,388 characters in its test.)"""
    blocks: list[list[ScoredUnit]] = []
    for c in _reading_order(out):
        if c.listed and blocks and blocks[-1][0].unit.path == c.unit.path:
            blocks[-1].append(c)
        else:
            blocks.append([c])
    while not _fits([c for b in blocks for c in b], extra, per_file=MAX_UNITS):
        if len(blocks) < 2:  # the answer keeps at least one of its own
            return None
        blocks.remove(min(blocks, key=lambda b: b[0].score))
    return [c for b in blocks for c in b]


# a line this short that ends without a stop opens what follows it ("1 byte file will encrypt to" + a list of its parts),
# and one under a list closes it ("49 bytes total") (session 22, rclone's crypt page)
OPEN_LINE_MAX_CHARS = 80
CLOSING_LINE_MAX_CHARS = 40
# a sentence cut off before what it leads to ("… will encrypt to", "… consists of", "… such as")
_OPENS_LIST = re.compile(r"\b(?:to|into|of|as|with|by|for|from|are|is|include|includes|including|contains|like|following)\s*$", re.I)
_STOP_END = re.compile(r"[.。!！?？;；)）\]】*_`'\"”>|]\s*$")


def _closing_line(units: Sequence[AnswerUnit], intro: AnswerUnit, under: Sequence[AnswerUnit]) -> AnswerUnit | None:
    """The short line that closes a list right under it, in the intro's section ("49 bytes total" under "1 byte file will
    encrypt to" and its parts), or None."""
    if not under:
        return None
    last = under[-1]
    close = next((t for t in units if t.start_line > last.end_line), None)
    if (close is None or close.kind != "paragraph" or close.code or close.heading_path != intro.heading_path
            or close.start_line > last.end_line + 2 or not _open_line(close.text, CLOSING_LINE_MAX_CHARS)):
        return None
    return close


def _open_line(text: str, most: int = OPEN_LINE_MAX_CHARS) -> bool:
    """A short line of words that ends without a stop (nor a colon: an intro's own mark)."""
    t = _LABEL.sub("", text).strip()
    return 0 < len(t) <= most and not _STOP_END.search(t) and not _INTRO_END.search(t) and any(c.isalpha() for c in t)


def _items_under(units: Sequence[AnswerUnit], intro_end: int) -> list[AnswerUnit]:
    """The list items right under an intro ending at line `intro_end`: the run of items that starts within two
    lines of it, each within two lines of the one before."""
    items: list[AnswerUnit] = []
    prev_end = intro_end
    for t in units:
        if t.start_line <= intro_end:
            continue
        if t.kind != "item" or t.start_line > prev_end + 2:
            break
        items.append(t)
        prev_end = t.end_line
    return items


def _reading_order(chosen: list[ScoredUnit]) -> list[ScoredUnit]:
    """Files in the order of their best unit, units in document order within a file."""
    first: dict[str, int] = {}
    for rank, s in enumerate(chosen):
        first.setdefault(s.unit.path, rank)
    return sorted(chosen, key=lambda s: (first[s.unit.path], s.unit.start_line))


def _coverage(terms: Sequence[str], weights: dict[str, float], text: str, *, translated: bool = False) -> float:
    """The weighted share of `terms` that `text` holds as written; with `translated`, an English term it holds
    only through a gloss of one of its Chinese words (matching_terms) adds GLOSSED_SHARE of its weight."""
    if not terms:
        return 0.0
    have = matching_terms(terms, text, translated=False) | {t for t in terms if is_operator(t) and t in text}
    total = sum(weights.get(t, 1.0) for t in terms) or 1.0
    glossed = matching_terms([t for t in terms if t not in have], text) if translated else set()
    return (sum(weights.get(t, 1.0) for t in terms if t in have) + GLOSSED_SHARE * sum(weights.get(t, 1.0) for t in glossed)) / total


def model_units(
    question: str,
    items: Sequence[tuple[Evidence, float]],
    cache: UnitCache,
    *,
    exact_terms: Sequence[str] = (),
    term_weights: TermWeights = uniform_weights,
) -> list[tuple[Evidence, float]]:
    """What a model is shown: the same ranked units as the offline answer (translations folded), at
    most MAX_SOURCES, each a whole unit as one item; the items themselves when no unit could be built."""
    q_lang = question_language(question)
    with_twins = [*items, *twin_items(items, q_lang, cache)]
    ranked = fold_translations(rank_units(question, with_twins, cache, exact_terms=exact_terms, term_weights=term_weights), q_lang, cache)
    ranked = [s for s in ranked if s.body_cov > 0] + [s for s in ranked if s.body_cov <= 0]
    if not ranked:
        return list(items)
    picked = _reading_order(ranked[:MAX_SOURCES])
    return [(Evidence(s.unit.path, s.unit.start_line, s.unit.end_line, s.unit.quote, s.score, "unit", s.unit.heading_path, _pool_of(s.unit, items)), s.grade)
            for s in picked]


def _pool_of(unit: AnswerUnit, items: Sequence[tuple[Evidence, float]]) -> tuple[str, ...]:
    """The question pool of the items a unit was cut from (seed 000: it goes to the writer with them)."""
    return tuple(dict.fromkeys(q for e, _g in items if e.path == unit.path and e.start_line <= unit.end_line and unit.start_line <= e.end_line for q in e.questions))


def model_sources(items: Sequence[tuple[Evidence, float]]) -> list[SourceRef]:
    """Sources [1]..[N] as the model is shown them; the quote is the item's whole text (a unit's lines)."""
    return [SourceRef(n, item.path, item.start_line, item.end_line, item.text.strip()) for n, (item, _g) in enumerate(items, 1)]


def not_found_text(closest: Sequence[Evidence]) -> str:
    """The plain 'not in the knowledge base' reply, naming the closest passages without citing them."""
    text = NOT_IN_KB
    if closest:
        text += "\n\nClosest passages searched (not an answer): " + ", ".join(e.location for e in closest[:3])
    return text
