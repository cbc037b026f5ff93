"""grep_search: ripgrep hits with ±10 lines of context, merged into passages, re-scored with BM25."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kb_agent.errors import InvalidQuery
from kb_agent.index.tokenize import STOPWORDS, _stem, has_cjk, tokenize, tokenize_lines
from kb_agent.names import INDEX_DIR
from kb_agent.retrieval._rg import run_rg
from kb_agent.retrieval.lexical import bm25_idf, bm25_scores
from kb_agent.types import Evidence, SearchFilters

if TYPE_CHECKING:
    from kb_agent.retrieval.tools import Retriever

CONTEXT_LINES = 10
MAX_PASSAGE_CHARS = 2000
# At most this many search terms go to rg: the rarest ones (by KB document frequency) carry the
# query; common words would only add noise hits that BM25 then has to discard.
MAX_PATTERNS = 8
# Per-file match cap: a word repeated 500 times in one file adds no information after a few dozen.
MAX_COUNT_PER_FILE = 30
# Passages scoring below this fraction of the best one are dropped as noise.
RELATIVE_SCORE_FLOOR = 0.15
# BM25 re-scoring tokenizes every candidate passage (jieba for CJK), and a common word can match
# thousands of lines in a 1k-file KB. A cheap pre-score (KB IDF of the patterns a passage contains)
# keeps the best max(MAX_RESCORE, 3*k) passages for the exact BM25; 0 disables the shortlist.
MAX_RESCORE = 150
MARKDOWN_GLOBS = ("*.md", "*.markdown", "*.mdx")

_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|'([^'\s][^']*[^'\s])'|`([^`]+)`")
_IDENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/:]*[A-Za-z0-9_]")
_IDENT_SHAPE = re.compile(r"[._/:]|-\d|\d|[a-z][A-Z]|^[A-Z]{2,}")


@dataclass(slots=True)
class _Block:
    path: str
    lines: dict[int, str]
    matches: set[int]


def search_terms(query: str) -> list[str]:
    """The literal strings to grep for: quoted phrases, identifiers whole, then word stems and CJK words."""
    terms: list[str] = []
    rest = query
    for m in _QUOTED.finditer(query):
        phrase = next(g for g in m.groups() if g)
        terms.append(phrase.strip())
        rest = rest.replace(m.group(), " ")
    for m in _IDENT.finditer(rest):
        word = m.group()
        if _IDENT_SHAPE.search(word) and len(word) >= 2 and word.lower() not in STOPWORDS:
            terms.append(word)
    # tokens are stems (celery → celeri), which a literal grep would miss: grep the word as written
    surface = {tokenize(w)[0]: w for w in re.findall(r"[A-Za-z][A-Za-z0-9]+", rest) if len(tokenize(w)) == 1}
    for tok in _join_single_cjk(tokenize(rest)):
        if tok in STOPWORDS:
            continue
        tok = surface.get(tok, tok)
        if has_cjk(tok):
            if len(tok) >= 2:
                terms.append(tok)
            continue
        if len(tok) < 3 or any(tok.lower() in t.lower() for t in terms):
            continue
        terms.append(tok)
    seen: set[str] = set()
    out = []
    for t in terms:
        if t.lower() not in seen and t.strip():
            seen.add(t.lower())
            out.append(t)
    return out


def _join_single_cjk(tokens: list[str]) -> list[str]:
    """jieba cuts rare names (雍闿, 蟒鳗) into single characters, too common alone to grep for:
    glue runs of adjacent single non-stopword CJK characters back together."""
    out: list[str] = []
    run = ""
    for tok in tokens:
        if len(tok) == 1 and has_cjk(tok) and tok not in STOPWORDS:
            run += tok
            continue
        if run:
            out.append(run)
            run = ""
        out.append(tok)
    if run:
        out.append(run)
    return out


def _grep_prefix(term: str) -> str:
    """A stem is not always a prefix of its words (policy → polici): grep the common prefix."""
    if not term.isalpha() or not term.isascii():
        return term
    stem = _stem(term.lower())
    common = 0
    for a, b in zip(stem, term.lower()):
        if a != b:
            break
        common += 1
    return term[: max(common, 4)] if common < len(term) else term


def _scope_args(r: Retriever) -> list[str]:
    """The files every grep looks at: the KB's markdown, ignore rules honoured, `.kb/` left out."""
    args = ["--max-filesize", "5M", "--no-require-git", "--ignore-case"]
    if (r.root / ".kbignore").is_file():
        args += ["--ignore-file", ".kbignore"]
    for g in MARKDOWN_GLOBS:
        args += ["--glob", g]
    return [*args, "--glob", f"!{INDEX_DIR}"]


def literal_file_count(r: Retriever, text: str) -> int:
    """How many of the KB's files hold `text` as written (any case), in their text or their path
    (`CPUThrottlingHigh.md` names the alert its page explains): one `rg -l`, no ranking."""
    if not text.strip():
        return 0
    res = run_rg(["--files-with-matches", "--fixed-strings", *_scope_args(r), "-e", text, "--", "."],
                 cwd=r.root, timeout_s=r.settings.rg_timeout_s, rg_path=r.settings.rg_path)
    found = set() if res.returncode == 1 else {ln.strip().removeprefix("./") for ln in res.stdout.splitlines() if ln.strip()}
    if r.index.catalog is not None:
        found |= {p for p in r.index.indexed_paths() if text.lower() in p.lower()}
    return len(found)


def grep_search(r: Retriever, query: str, *, k: int = 10, filters: SearchFilters = SearchFilters(), regex: bool = False, focus_crumbs: bool = True) -> list[Evidence]:
    """Search the KB's files with ripgrep and return BM25-ranked passages.

    With `focus_crumbs` (`kb search --tool grep`) a passage's heading path is the breadcrumb of its
    focus lines; without it, of its first line (what the agent grades and hybrid search fuses).

    Raises:
        InvalidQuery: nothing searchable in the query.
    """
    if regex:
        patterns = [query]
    else:
        # nothing word-like (e.g. `-e`, `*`): search for the text exactly as typed
        patterns = _pick_patterns(r, search_terms(query)) or ([query.strip()] if query.strip() else [])
    if not patterns:
        raise InvalidQuery("the query has no searchable words", hint="add a keyword, identifier or phrase")
    args = ["-C", str(CONTEXT_LINES), "--max-count", str(MAX_COUNT_PER_FILE), *_scope_args(r)]
    if not regex:
        args.append("--fixed-strings")
    for p in patterns:
        args += ["-e", p]
    args += ["--", "."]
    res = run_rg(args, cwd=r.root, timeout_s=r.settings.rg_timeout_s, rg_path=r.settings.rg_path, plain=True)
    if res.returncode == 1:
        return []
    allowed = r.index.paths_matching(filters)
    indexed = r.index.indexed_paths() if r.index.built else None
    blocks = _blocks(res.lines(), allowed, indexed)
    passages = [p for b in blocks for p in _passages(b)]
    if not passages:
        return []
    if not regex:
        passages = _shortlist(r, patterns, passages, k)
    return _rescore(r, query, passages, k, focus_crumbs=focus_crumbs)


def _shortlist(r: Retriever, patterns: list[str], passages: list[tuple[str, int, int, str]], k: int) -> list[tuple[str, int, int, str]]:
    """The passages most worth BM25 re-scoring, in their original order (see MAX_RESCORE)."""
    limit = max(MAX_RESCORE, 3 * k)
    if MAX_RESCORE <= 0 or len(passages) <= limit:
        return passages
    cat = r.index.catalog
    first = {p: (tokenize(p) or [p.lower()])[0] for p in patterns}
    df = cat.document_frequencies(first.values()) if cat is not None else {}
    n = cat.bm25_stats()[0] if cat is not None else 1
    weights = {p.lower(): bm25_idf(n, df.get(t, 1)) for p, t in first.items()}

    def cheap(text: str) -> float:
        low = text.lower()
        total = 0.0
        for p, w in weights.items():
            c = low.count(p)
            if c:
                total += w * (1.0 + math.log(c))
        return total

    scores = [cheap(t) for *_, t in passages]
    keep = set(sorted(range(len(passages)), key=lambda i: -scores[i])[:limit])
    return [p for i, p in enumerate(passages) if i in keep]


def _pick_patterns(r: Retriever, terms: list[str]) -> list[str]:
    if len(terms) <= MAX_PATTERNS or not r.index.built or r.index.catalog is None:
        return [_grep_prefix(t) for t in terms[:MAX_PATTERNS]]
    df = r.index.catalog.document_frequencies(tok for t in terms for tok in tokenize(t)[:1])

    def rarity(t: str) -> int:
        toks = tokenize(t)
        return df.get(toks[0], 0) if toks else 0

    keep = sorted(terms, key=rarity)[:MAX_PATTERNS]
    return [_grep_prefix(t) for t in terms if t in keep]


def _blocks(lines: Iterable[tuple[str, int, bool, str]], allowed: set[str] | None, indexed: set[str] | None) -> list[_Block]:
    """rg's lines grouped into runs of consecutive lines of one file that hold a match."""
    blocks: list[_Block] = []
    cur: _Block | None = None
    last_line = -10
    skip = ""  # the last path found outside the filters (rg prints a file's lines together)
    for path, n, is_match, text in lines:
        if path == skip:
            continue
        rel = path[2:] if path.startswith("./") else path
        if (allowed is not None and rel not in allowed) or (indexed is not None and rel not in indexed):
            skip = path
            continue
        if cur is None or cur.path != rel or n != last_line + 1:
            cur = _Block(rel, {}, set())
            blocks.append(cur)
        cur.lines[n] = text
        if is_match:
            cur.matches.add(n)
        last_line = n
    # rg prints files in the order its threads finish them: sort, so that ties further on (the shortlist) break the same way every run
    return sorted((b for b in blocks if b.matches), key=lambda b: b.path)


def _passages(b: _Block) -> list[tuple[str, int, int, str]]:
    """Split a contiguous block into passages of ≤ MAX_PASSAGE_CHARS centred on matches."""
    first, last = min(b.lines), max(b.lines)

    def text(s: int, e: int) -> str:
        return "\n".join(b.lines[i] for i in range(s, e + 1))

    if len(text(first, last)) <= MAX_PASSAGE_CHARS:
        return [(b.path, first, last, text(first, last))]
    out: list[tuple[str, int, int, str]] = []
    covered = 0
    width = {i: len(b.lines[i]) + 1 for i in range(first, last + 1)}  # a line and its newline
    for m in sorted(b.matches):
        if m <= covered:
            continue
        s, e = max(first, m - CONTEXT_LINES, covered + 1), min(last, m + CONTEXT_LINES)
        size = sum(width[i] for i in range(s, e + 1)) - 1  # len(text(s, e)), kept as lines are dropped
        while size > MAX_PASSAGE_CHARS and (s < m or e > m):
            if e - m >= m - s and e > m:
                size -= width[e]
                e -= 1
            else:
                size -= width[s]
                s += 1
        t = text(s, e)
        if len(t) > MAX_PASSAGE_CHARS:
            t = t[:MAX_PASSAGE_CHARS]
        out.append((b.path, s, e, t))
        covered = e
    return out


def _rescore(r: Retriever, query: str, passages: list[tuple[str, int, int, str]], k: int, *, focus_crumbs: bool = False) -> list[Evidence]:
    q_terms = tokenize(query, drop_stopwords=True) or tokenize(query)
    docs = [tokenize_lines(t) for _, _, _, t in passages]
    cat = r.index.catalog
    if cat is not None:
        n, _avg = cat.bm25_stats()
        df = cat.document_frequencies(q_terms)
    else:
        n, df = 0, {}
    scores = bm25_scores(docs, q_terms, df, n)
    # a literal hit on the whole query (an identifier or phrase) outranks scattered word hits
    whole = query.strip().lower()
    heads = _headings_by_path(r, {p for p, *_ in passages})
    ranked = []
    for (path, s, e, text), sc in zip(passages, scores):
        if len(whole) >= 3 and whole in text.lower():
            sc *= 1.5
        ranked.append(Evidence(path=path, start_line=s, end_line=e, text=text, score=round(sc, 4), tool="grep", heading_path=_crumbs(heads.get(path, []), s)))
    ranked.sort(key=lambda ev: (-ev.score, ev.path, ev.start_line))
    if ranked and ranked[0].score > 0:
        floor = ranked[0].score * RELATIVE_SCORE_FLOOR
        ranked = [ev for ev in ranked if ev.score >= floor and ev.score > 0]
    for i, ev in enumerate(ranked, 1):
        ev.explain["grep_rank"] = i
    hits = _focused(r, query, ranked[:k])
    if not focus_crumbs:
        return hits
    # the breadcrumb names the section of the lines the snippet shows (the focus)
    return [replace(ev, heading_path=_crumbs(heads.get(ev.path, []), ev.focus[0]), explain=ev.explain) if ev.focus else ev for ev in hits]


def _focused(r: Retriever, query: str, hits: list[Evidence]) -> list[Evidence]:
    """Each passage with its focus lines (the ±10-line context itself is kept)."""
    from kb_agent.retrieval.windows import query_terms, with_focus

    q = query_terms(r, query)
    return [with_focus(q, ev) for ev in hits] if q.terms else hits


def _headings_by_path(r: Retriever, paths: set[str]) -> dict[str, list[tuple[int, int, str]]]:
    cat = r.index.catalog
    if cat is None:
        return {}
    out: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for p in paths:
        out[p] = [(line, level, text) for _p, line, level, text, _slug in cat.headings(p)]
    return out


def _crumbs(heads: list[tuple[int, int, str]], line: int) -> tuple[str, ...]:
    trail: list[tuple[int, str]] = []
    for hl, level, text in heads:
        if hl > line:
            break
        while trail and trail[-1][0] >= level:
            trail.pop()
        trail.append((level, text))
    return tuple(t for _, t in trail)
