"""find_files: which files — by path, file name, title, aliases and front-matter tags."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kb_agent.index.manifest import FileRow
from kb_agent.index.tokenize import tokenize
from kb_agent.types import Evidence, SearchFilters

if TYPE_CHECKING:
    from kb_agent.retrieval.tools import Retriever

# Field weights: a title or alias states what a file is about; tags and path words less so.
W_TITLE, W_ALIAS, W_TAG, W_PATH = 3.0, 3.0, 2.0, 2.0
OPENING_LINES = 12


def _field_score(q: set[str], text: str, weight: float) -> float:
    toks = set(tokenize(text))
    return weight * len(q & toks) / (len(q) or 1)


def score_file(query: str, f: FileRow) -> float:
    q = set(tokenize(query, drop_stopwords=True))
    if not q:
        return 0.0
    s = _field_score(q, f.title, W_TITLE)
    s += max((_field_score(q, a, W_ALIAS) for a in f.aliases), default=0.0)
    s += _field_score(q, " ".join(f.tags), W_TAG)
    s += _field_score(q, f.path.replace("/", " ").replace("-", " ").replace("_", " "), W_PATH)
    ql = query.strip().lower()
    if ql and (ql in f.path.lower() or ql == f.title.lower()):
        s += 5.0
    return s


def opening(r: Retriever, path: str) -> Evidence | None:
    """The first chunk of a file, clipped to its opening lines: what the file is."""
    cat = r.index.catalog
    if cat is None:
        return None
    chunks = cat.chunks_for(path)
    if not chunks:
        return None
    c = chunks[0]
    lines = c.text.split("\n")[:OPENING_LINES]
    return Evidence(path=path, start_line=c.start_line, end_line=c.start_line + len(lines) - 1, text="\n".join(lines), score=0.0, tool="files", heading_path=c.heading_path, questions=c.questions)


def find_files(r: Retriever, query: str, *, k: int = 10, filters: SearchFilters = SearchFilters()) -> list[Evidence]:
    """Files whose metadata matches the query, then files whose text holds the query's words.

    Content ranks break ties among metadata matches; a file matched by content alone must have a
    lexical (grep) hit: nearest-neighbour vectors always return something, so vector similarity
    alone would list unrelated files. Returns [] when nothing matches.
    """
    allowed = r.index.paths_matching(filters)
    scored = []
    for path, f in r.index.files().items():
        if f.status != "ok" or (allowed is not None and path not in allowed):
            continue
        s = score_file(query, f)
        if s > 0:
            scored.append((s, path))
    scored.sort(key=lambda t: (-t[0], t[1]))
    # content decides among files whose metadata ties, and fills in when metadata says nothing
    content_rank: dict[str, int] = {}
    lexical: set[str] = set()
    try:
        for i, ev in enumerate(r.hybrid(query, k=20, filters=filters)):
            content_rank.setdefault(ev.path, i)
            if "grep" in ev.explain.get("ranks", {}):
                lexical.add(ev.path)
    except Exception:  # noqa: BLE001 - content is a tie-breaker only; metadata results stand alone
        content_rank = {}
    best = {p: s + (1.0 / (1 + content_rank[p]) if p in content_rank else 0.0) for s, p in scored}
    for p, i in content_rank.items():
        if p in lexical:
            best.setdefault(p, 0.5 / (1 + i))
    out: list[Evidence] = []
    for path, s in sorted(best.items(), key=lambda t: (-t[1], t[0]))[:k]:
        head = opening(r, path)
        if head is None:
            continue
        res = Evidence(path=head.path, start_line=head.start_line, end_line=head.end_line, text=head.text, score=round(s, 4), tool="files", heading_path=head.heading_path, questions=head.questions)
        res.explain["files_rank"] = len(out) + 1
        out.append(res)
    return out
