"""Passage ranking after fusion: every candidate passage gets one score from its words, its meaning and
its file's fused rank, so the first hit points at the lines that answer (issue 9, passage precision)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kb_agent.index.tokenize import tokenize, tokenize_lines
from kb_agent.types import Evidence

if TYPE_CHECKING:
    from kb_agent.index.manifest import ChunkRow
    from kb_agent.retrieval.tools import Retriever
    from kb_agent.retrieval.windows import QueryTerms

# The three signals are each scaled to 0..1 over the candidates and added with equal weight (no weight
# was fitted: on the dev splits equal weights beat every single signal and RRF of the lists, and the
# few other weightings tried were within a question or two of them):
#   lexical  — BM25 of the passage's lines plus its heading breadcrumb, whole-KB IDF, ÷ the best candidate's;
#   semantic — cosine similarity of the chunk that holds the passage, min-max scaled over the vector list;
#   fused    — the RRF score of the passage's file (its best fused hit) ÷ the best fused score.
LEXICAL_WEIGHT = 1.0
SEMANTIC_WEIGHT = 1.0
FUSED_WEIGHT = 1.0
# the files whose every line window is a candidate (beside the fused hits themselves): the right file
# is in the fused top 5 far more often than the right lines are at rank 1
TOP_FILES = 5
# the fused hits that are candidates: all of two 30-deep lists for `kb search`'s k=10; for a large k,
# twice k (hits further down the fused list do not reach the top k, and each costs a BM25 pass)
MIN_CANDIDATES = 60


# a passage that holds code (a fence, a `$ ` prompt, a line that is one inline code span) and shares a
# word with the query gets this much more when the query asks how to do something: the command is
# what such a question wants (dev splits: span MRR@10 0.738 → 0.757 at 0.1; 0.25 and 0.5 scored less)
CODE_BONUS = 0.1
_CODE_LINE = re.compile(r"^\s*(```|~~~|\$ |`[^`]+`\s*$)", re.M)
_HOW = re.compile(r"\bhow\s+(do|does|can|could|should|to|would)\b|\b(command|run|install|create|start|set ?up|configure)\b|"
                  r"怎么|如何|怎样|命令|运行|安装", re.I)


def asks_how(query: str) -> bool:
    """Does the query ask how to do something (or for a command)?"""
    return _HOW.search(query) is not None


@dataclass(slots=True)
class _Candidate:
    ev: Evidence
    lexical: float = 0.0
    semantic: float = 0.0
    fused: float = 0.0
    base: Evidence | None = None  # the fused hit it overlaps (its ranks go into --explain)
    code: float = 0.0  # CODE_BONUS for a passage with code when the query asks how to do something

    @property
    def score(self) -> float:
        return LEXICAL_WEIGHT * self.lexical + SEMANTIC_WEIGHT * self.semantic + FUSED_WEIGHT * self.fused + self.code


def rank_passages(r: Retriever, query: str, fused: list[Evidence], vector_hits: Sequence[Evidence], k: int, *, pooled: Sequence[Evidence] = ()) -> list[Evidence]:
    """The k best passages among the fused hits (each cut to its best lines) and the line windows of
    the first TOP_FILES files, one passage per stretch of lines, each with its focus lines.

    Args:
        r: the retriever (index statistics, chunk vectors).
        query: the cleaned query.
        fused: the RRF-fused hits, best first (scores are RRF scores).
        vector_hits: the vector list that went into the fusion (whole chunks; their scores are cosine
            similarities); empty when vectors are unavailable.
        k: how many passages to return.
        pooled: the question pool's hits (retrieval/pool.py), each naming the model-written question
            that matched; a passage inside such a chunk is scored with that question beside its
            breadcrumb, so the reader's wording the document does not use still counts as words.
    """
    from kb_agent.retrieval.windows import file_windows, narrow, query_terms, score_windows, with_focus

    if not fused:
        return []
    q = query_terms(r, query)
    if not q.terms:
        return fused[:k]
    fused = fused[: max(MIN_CANDIDATES, 2 * k)]
    paths = list(dict.fromkeys(ev.path for ev in fused))
    top = paths[:TOP_FILES]
    # focus lines are marked only on the passages that are returned
    cands = [_Candidate(narrow(q, ev, focus=False), base=ev) for ev in fused]
    windows = file_windows(r, q, top, focus=False)
    if not windows and all(c.ev is c.base for c in cands):
        # no file offers a choice of passages (every hit is a short file or section, as in a KB of one
        # paragraph per file): the whole-KB fusion's order stands
        return [with_focus(q, ev) for ev in fused[:k]]
    for ev in windows:
        cands.append(_Candidate(ev, base=next((h for h in fused if h.overlaps(ev)), None)))

    # no length normalisation: the candidates are windows and sections of about one size, and a short
    # section must not outrank the window that holds more of the question for being short
    lex = score_windows(q, [tokenize_lines(c.ev.text) + tokenize(" ".join(c.ev.heading_path)) + _pooled_words(c.ev, pooled) for c in cands], b=0.0)
    best_lex = max(lex) or 1.0
    file_fused: dict[str, float] = {}
    for ev in fused:
        file_fused[ev.path] = max(file_fused.get(ev.path, 0.0), ev.score)
    best_fused = max(file_fused.values()) or 1.0
    sims = _chunk_similarities(r, query, vector_hits, top)
    known = [ev.score for ev in vector_hits]
    lo, hi = (min(known), max(known)) if known else (0.0, 0.0)
    sims_by_path: dict[str, list[tuple[int, int, float]]] = {}
    for (path, a, b), cosine in sims.items():
        sims_by_path.setdefault(path, []).append((a, b, cosine))
    how = asks_how(query)
    for c, lx in zip(cands, lex):
        if how and lx > 0 and _CODE_LINE.search(c.ev.text):
            c.code = CODE_BONUS
        c.lexical = lx / best_lex
        c.fused = file_fused.get(c.ev.path, 0.0) / best_fused
        sim = max((s for a, b, s in sims_by_path.get(c.ev.path, ()) if a <= c.ev.end_line and c.ev.start_line <= b), default=None)
        c.semantic = 0.0 if sim is None or hi <= lo else min(1.0, max(0.0, (sim - lo) / (hi - lo)))

    # ties in place order, so equal inputs give equal output every run (kb check is byte-deterministic)
    cands.sort(key=lambda c: (-round(c.score, 9), c.ev.path, c.ev.start_line))
    kept: list[_Candidate] = []
    for c in cands:
        if any(c.ev.overlaps(o.ev) for o in kept):
            continue
        kept.append(c)
        if len(kept) >= k:
            break
    from kb_agent.retrieval.grep import _crumbs, _headings_by_path

    heads = _headings_by_path(r, {c.ev.path for c in kept})
    out = []
    for c in kept:
        c.ev = with_focus(q, c.ev)
        line = c.ev.focus[0] if c.ev.focus else c.ev.start_line
        out.append(_result(c, _crumbs(heads[c.ev.path], line) if heads.get(c.ev.path) else c.ev.heading_path))
    return out


def _pooled_words(ev: Evidence, pooled: Sequence[Evidence]) -> list[str]:
    """The words of the pooled questions whose chunk holds the passage (none without a model pool)."""
    words: list[str] = []
    for hit in pooled:
        question = hit.explain.get("pool_question")
        if question and hit.path == ev.path and hit.start_line <= ev.start_line and ev.end_line <= hit.end_line:
            words.extend(tokenize(str(question)))
    return words


def _result(c: _Candidate, crumbs: tuple[str, ...]) -> Evidence:
    """The passage as a hybrid hit: its combined score, the breadcrumb of its focus line, and in
    `explain` the fused hit's ranks and the three signals."""
    explain = dict(c.base.explain) if c.base is not None else {}
    explain["passage"] = {"lexical": round(c.lexical, 4), "semantic": round(c.semantic, 4), "fused": round(c.fused, 4), "code": c.code, "from": c.ev.tool}
    if c.base is not None and c.base.location != c.ev.location:
        explain["moved_from"] = c.base.location
    return replace(c.ev, score=round(c.score, 4), tool="hybrid", heading_path=crumbs, explain=explain)


def _chunk_similarities(r: Retriever, query: str, vector_hits: Sequence[Evidence], paths: list[str]) -> dict[tuple[str, int, int], float]:
    """Cosine similarity of the query to each chunk of `paths` and to each chunk in the vector list,
    keyed by (path, start line, end line); {} when vectors are unavailable."""
    sims = {(ev.path, ev.start_line, ev.end_line): ev.score for ev in vector_hits}
    cat = r.index.catalog
    if not vector_hits or cat is None or not paths:
        return sims
    rows: dict[str, ChunkRow] = {row.id: row for p in paths for row in cat.chunks_for(p)}
    from kb_agent.errors import KbError

    try:
        got = r.index.store.query(r.query_vector(query), len(rows), set(paths))
    except KbError:  # the vector list was read a moment ago; a store that fails now only loses this signal
        return sims
    for cid, sim in got:
        row = rows.get(cid)
        if row is not None:
            sims[(row.path, row.start_line, row.end_line)] = sim
    return sims
