"""related: the link graph around the files a query names (links out, backlinks), and read_file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kb_agent.errors import PathOutsideRoot, UsageError
from kb_agent.index.links import neighbours
from kb_agent.types import Evidence, SearchFilters

if TYPE_CHECKING:
    from kb_agent.retrieval.tools import Retriever

SEED_FILES = 3
LINK_CONTEXT = 2  # lines around a link line: the sentence that says why it links


def _seeds(r: Retriever, query: str, filters: SearchFilters) -> list[str]:
    q = query.strip().strip("`'\"")
    files = r.index.indexed_paths()
    if q in files:
        return [q]
    for p in sorted(files):
        if q and (p.rsplit(".", 1)[0] == q or p.endswith("/" + q)):
            return [p]
    seeds: list[str] = []
    from kb_agent.retrieval.files import find_files

    for ev in find_files(r, query, k=SEED_FILES, filters=filters):
        if ev.path not in seeds:
            seeds.append(ev.path)
    return seeds[:SEED_FILES]


def _section(r: Retriever, path: str, anchor: str | None) -> Evidence | None:
    from kb_agent.retrieval.files import opening

    cat = r.index.catalog
    if anchor and cat is not None:
        heads = cat.headings(path)
        for i, (_p, line, level, _text, slug) in enumerate(heads):
            if slug == anchor.lower():
                end = next((h[1] - 1 for h in heads[i + 1 :] if h[2] <= level), None)
                ev = read_file(r, path, line, end if end is not None else line + 40)
                return _clip(ev)
    return opening(r, path)


def _clip(ev: Evidence, max_chars: int = 2000) -> Evidence:
    lines = ev.text.split("\n")
    while len("\n".join(lines)) > max_chars and len(lines) > 1:
        lines.pop()
    return Evidence(path=ev.path, start_line=ev.start_line, end_line=ev.start_line + len(lines) - 1, text="\n".join(lines), score=ev.score, tool=ev.tool, heading_path=ev.heading_path)


def related_search(r: Retriever, query: str, *, k: int = 10, filters: SearchFilters = SearchFilters()) -> list[Evidence]:
    """The seed files' link lines, then the sections they link to and the files linking to them."""
    cat = r.index.catalog
    if cat is None:
        return []
    seeds = _seeds(r, query, filters)
    if not seeds:
        return []
    out: list[Evidence] = []
    seen: set[tuple[str, int]] = set()

    allowed = r.index.paths_matching(filters)

    def add(ev: Evidence | None, relation: str) -> None:
        if ev is None or (allowed is not None and ev.path not in allowed):
            return
        if (ev.path, ev.start_line) not in seen and not any(ev.overlaps(o) for o in out):
            seen.add((ev.path, ev.start_line))
            out.append(_tag(ev, round(1.0 / (1 + len(out)), 4), {"relation": relation, "seed": seed}))

    # seed by seed, best seed first; within a seed its own link lines (the sentence saying why it
    # links), then what it links to, then what links to it
    for seed in seeds:
        edges = sorted(neighbours(cat, {seed}), key=lambda e: (e[0] != "links_to", e[2]))
        for direction, other, line, anchor, via in edges:
            if direction == "links_to":
                add(read_file(r, via, max(1, line - LINK_CONTEXT), line + LINK_CONTEXT), f"{via} links to {other}")
        for direction, other, line, anchor, via in edges:
            if direction == "links_to":
                add(_section(r, other, anchor), f"{via} links to {other}")
            else:
                add(read_file(r, other, max(1, line - LINK_CONTEXT), line + LINK_CONTEXT), f"{other} links to {via}")
        if len(out) >= k:
            break
    return out[:k]


def _tag(ev: Evidence, score: float, explain: dict[str, object]) -> Evidence:
    res = Evidence(path=ev.path, start_line=ev.start_line, end_line=ev.end_line, text=ev.text, score=round(score, 4), tool="related", heading_path=ev.heading_path, questions=ev.questions)
    res.explain.update(explain)
    return res


def safe_path(root: Path, path: str) -> Path:
    """The absolute path of a KB file, refusing anything that leaves the root.

    Raises:
        PathOutsideRoot: absolute paths, `..` escapes, symlinks out of the root.
    """
    if not path or "\0" in path:
        raise UsageError("empty or invalid path")
    p = Path(path)
    if p.is_absolute():
        raise PathOutsideRoot(f"absolute paths are not allowed: {path}", hint="use a path relative to the knowledge base root")
    full = (root / p).resolve()
    if not full.is_relative_to(root.resolve()):
        raise PathOutsideRoot(f"path leaves the knowledge base: {path}")
    return full


def read_file(r: Retriever, path: str, start: int = 1, end: int | None = None) -> Evidence:
    """Lines start..end of a KB file as it is on disk now (1-based, inclusive, clamped to the file)."""
    from kb_agent.corpus.fileio import UnsafeFile, read_kb_text

    full = safe_path(r.root, path)
    try:
        lines = read_kb_text(full).split("\n")
    except UnsafeFile as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
    except OSError:
        raise UsageError(f"no such file in the knowledge base: {path}") from None
    if lines and lines[-1] == "":
        lines.pop()
    start = max(1, start)
    end = len(lines) if end is None else min(end, len(lines))
    if start > end:
        raise UsageError(f"{path} has {len(lines)} lines; L{start}-L{end} is empty")
    text = "\n".join(ln.rstrip("\r") for ln in lines[start - 1 : end])
    rel = full.relative_to(r.root.resolve()).as_posix()
    return Evidence(path=rel, start_line=start, end_line=end, text=text, score=0.0, tool="read_file")
