"""Passage precision: score line windows inside long hits and inside the top files, so each hit points
at the lines that answer, and mark the best few lines of every hit (`focus`) for snippets."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kb_agent.index.tokenize import line_tokens, tokenize, tokenize_lines
from kb_agent.types import Evidence

if TYPE_CHECKING:
    from kb_agent.index.manifest import ChunkRow
    from kb_agent.retrieval.tools import Retriever

# the passage size of the naive baseline the issue measured (rank-bm25 over 20-line windows, stride 10):
# long enough to hold a list item with its command or a paragraph with its example
WINDOW_LINES = 20
WINDOW_STRIDE = 10
# a hit no longer than this is already a passage: it is kept whole (only its focus is marked)
NARROW_ABOVE_LINES = 30
# a window's edges move at most this many lines to land on a blank line, heading or fence edge
SNAP_LINES = 3
# an open code fence at a window's end is followed this far to its closing fence
FENCE_EXTEND_LINES = 12
# the design's item cap
MAX_ITEM_CHARS = 2000
# the snippet's focus: the best run of at most this many lines
FOCUS_LINES = 4
# heading words count for a window like this many body occurrences (a section titled with the
# question's words is about it, but the body must still say it)
HEADING_WEIGHT = 1

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")


@dataclass(frozen=True, slots=True)
class QueryTerms:
    """The query's tokens and their IDF over the whole KB."""

    terms: tuple[str, ...]
    idf: Mapping[str, float]
    df: Mapping[str, int]
    n_docs: int


def query_terms(r: Retriever, query: str) -> QueryTerms:
    """Tokenize the query and look its terms up in the index statistics (uniform IDF without an index)."""
    terms = tuple(dict.fromkeys(tokenize(query, drop_stopwords=True) or tokenize(query)))
    cat = r.index.catalog
    if cat is None or not terms:
        return QueryTerms(terms, {t: 1.0 for t in terms}, {}, 0)
    n, _avg = cat.bm25_stats()
    df = cat.document_frequencies(terms)
    n = max(n, 1)
    from kb_agent.retrieval.lexical import kb_idf

    return QueryTerms(terms, kb_idf(terms, df, n), df, n)


def spans(first: int, last: int) -> list[tuple[int, int]]:
    """WINDOW_LINES windows at WINDOW_STRIDE over first..last (the last one ends at `last`)."""
    if last - first + 1 <= WINDOW_LINES:
        return [(first, last)]
    out = []
    s = first
    while True:
        e = min(s + WINDOW_LINES - 1, last)
        out.append((s, e))
        if e >= last:
            break
        s += WINDOW_STRIDE
    return out


def score_windows(q: QueryTerms, docs: Sequence[Sequence[str]], *, b: float = 0.75) -> list[float]:
    """BM25 of each window's tokens against the query, IDF from the whole KB (`b`: length normalisation)."""
    from kb_agent.retrieval.lexical import bm25_scores

    if not q.terms or not docs:
        return [0.0] * len(docs)
    return bm25_scores(docs, list(q.terms), q.df, q.n_docs, b=b)


def snap(lines: Mapping[int, str], s: int, e: int, bounds: tuple[int, int] | None = None) -> tuple[int, int]:
    """Move a window's edges onto block boundaries: start at a heading or after a blank line, end
    before a blank line or at the close of a fence it opened; never past the known lines
    (`bounds`: their first and last number, when the caller knows them)."""
    lo, hi = bounds if bounds is not None else (min(lines), max(lines))
    for cand in range(s, max(lo, s - SNAP_LINES) - 1, -1):
        if _HEADING.match(lines.get(cand, "")):
            s = cand
            break
        if cand > lo and not lines.get(cand - 1, "").strip():
            s = cand
            break
    fences = sum(1 for i in range(s, e + 1) if _FENCE.match(lines.get(i, "")))
    if fences % 2:
        for cand in range(e + 1, min(hi, e + FENCE_EXTEND_LINES) + 1):
            if _FENCE.match(lines.get(cand, "")):
                e = cand
                break
    else:
        for cand in range(e, min(hi, e + SNAP_LINES) + 1):
            if not lines.get(cand + 1, "x").strip() or _HEADING.match(lines.get(cand + 1, "")):
                e = cand
                break
    while e > s and not lines.get(e, "").strip():
        e -= 1
    while s < e and not lines.get(s, "").strip():
        s += 1
    return s, e


def _text(lines: Mapping[int, str], s: int, e: int) -> str:
    return "\n".join(lines.get(i, "") for i in range(s, e + 1))


def _cap(lines: Mapping[int, str], s: int, e: int) -> tuple[int, int]:
    while e > s and len(_text(lines, s, e)) > MAX_ITEM_CHARS:
        e -= 1
    return s, e


def best_window(q: QueryTerms, lines: Mapping[int, str], s: int, e: int, crumbs: Sequence[str] = ()) -> tuple[int, int, float]:
    """The best-scoring snapped window inside lines s..e (the whole range when it is short)."""
    cands = spans(s, e)
    head = tokenize(" ".join(crumbs)) * HEADING_WEIGHT
    docs = [tokenize_lines(_text(lines, a, b)) + head for a, b in cands]
    scores = score_windows(q, docs)
    i = max(range(len(cands)), key=lambda j: (scores[j], -j))
    a, b = cands[i]
    if len(cands) > 1:
        a, b = snap(lines, a, b)
    a, b = _cap(lines, a, b)
    return a, b, scores[i]


def focus_lines(q: QueryTerms, text: str, start_line: int) -> tuple[int, int]:
    """The run of ≤ FOCUS_LINES lines whose query terms weigh most (for snippets); the first lines when none match."""
    rows = text.split("\n")
    weights = []
    for ln in rows:
        toks = line_tokens(ln)
        weights.append(sum(q.idf.get(t, 0.0) for t in q.terms if t in toks))
    best, best_i = 0.0, 0
    for i in range(len(rows)):
        w = sum(weights[i : i + FOCUS_LINES]) + 0.5 * weights[i]  # the run starts on a matching line
        if w > best:
            best, best_i = w, i
    end = best_i + FOCUS_LINES - 1
    while end > best_i and (end >= len(rows) or weights[end] == 0.0 and not rows[end].strip()):
        end -= 1
    return start_line + best_i, start_line + min(end, len(rows) - 1)


def with_focus(q: QueryTerms, ev: Evidence) -> Evidence:
    """`ev` with its focus lines set."""
    return replace(ev, focus=focus_lines(q, ev.text, ev.start_line), explain=ev.explain)


def narrow(q: QueryTerms, ev: Evidence, *, focus: bool = True) -> Evidence:
    """A long hit cut to its best window; a short one kept whole. With `focus`, its focus lines are set."""
    if ev.end_line - ev.start_line + 1 <= NARROW_ABOVE_LINES:
        return with_focus(q, ev) if focus else ev
    rows = ev.text.split("\n")
    lines = {ev.start_line + i: t for i, t in enumerate(rows)}
    a, b, sc = best_window(q, lines, ev.start_line, min(ev.end_line, ev.start_line + len(rows) - 1), ev.heading_path)
    if sc <= 0.0:
        a, b = snap(lines, ev.start_line, min(ev.start_line + WINDOW_LINES - 1, max(lines)))
    out = replace(ev, start_line=a, end_line=b, text=_text(lines, a, b), explain=ev.explain)
    out.explain["window"] = {"from": [ev.start_line, ev.end_line], "score": round(sc, 4)}
    return with_focus(q, out) if focus else out


def file_windows(r: Retriever, q: QueryTerms, paths: list[str], *, focus: bool = True) -> list[Evidence]:
    """The windows of the given files that are longer than one window, best BM25 first,
    overlapping windows suppressed (a window is dropped when a better one overlaps it).
    With `focus`, each window's focus lines are set."""
    cat = r.index.catalog
    if cat is None:
        return []
    per_file: list[tuple[str, dict[int, str], Sequence[ChunkRow], tuple[int, int]]] = []
    docs: list[list[str]] = []
    spans_all: list[tuple[int, int, int]] = []
    for path in paths:
        rows = cat.chunks_for(path)
        lines: dict[int, str] = {}
        for row in rows:
            for i, t in enumerate(row.text.split("\n")):
                lines.setdefault(row.start_line + i, t)
        if not lines:
            continue
        bounds = (min(lines), max(lines))
        if bounds[1] - bounds[0] + 1 <= NARROW_ABOVE_LINES:
            continue
        per_file.append((path, lines, rows, bounds))
        # each line is tokenized once (memoized across calls); the windows overlap (stride < size) and share its tokens
        toks = {n: line_tokens(t) for n, t in lines.items()}
        for a, b in spans(*bounds):
            spans_all.append((len(per_file) - 1, a, b))
            docs.append([tok for n in range(a, b + 1) for tok in toks.get(n, ())])
    scores = score_windows(q, docs)
    order = sorted((i for i, sc in enumerate(scores) if sc > 0.0), key=lambda i: -scores[i])
    kept: list[Evidence] = []
    for i in order:
        fi, a, b = spans_all[i]
        path, flines, frows, fbounds = per_file[fi]
        a, b = _cap(flines, *snap(flines, a, b, fbounds))
        if any(k.path == path and k.start_line <= b and a <= k.end_line for k in kept):
            continue
        ev = Evidence(path=path, start_line=a, end_line=b, text=_text(flines, a, b), score=round(scores[i], 4), tool="window", heading_path=_crumbs_at(frows, a))
        kept.append(with_focus(q, ev) if focus else ev)
    return kept


def _crumbs_at(rows: Sequence[ChunkRow], line: int) -> tuple[str, ...]:
    """The heading path of the last chunk starting at or before `line` (chunks are in file order)."""
    i = bisect_right([row.start_line for row in rows], line)
    return tuple(rows[i - 1].heading_path) if i else ()
