"""Heading-aware chunking with exact 1-based line ranges; never splits a code fence or a table.

A chunk's text is exactly the file's lines start..end joined by "\\n" (a tested property), so a
citation `path:Lx-Ly` always points at the words that were retrieved.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from kb_agent.corpus.blocks import CODE_KINDS, CONTAINERS, Block, children, code_mask, is_code_only, parse_blocks
from kb_agent.corpus.discover import page_name
from kb_agent.corpus.markdown import (
    as_str_tuple,
    headings_from_blocks,
    parse_front_matter,
    parse_links,
)
from kb_agent.types import Chunk, Document, Heading

# Sizes in weighted characters (a CJK character weighs 3, about one English word): ~350 model
# tokens keeps a chunk inside the embedding window and focused on one topic.
MAX_CHUNK_WEIGHT = 1500
# Sections lighter than this are merged with the next one so a bare heading is never a chunk.
MIN_CHUNK_WEIGHT = 250
# A single fence, table or list item larger than this is split after all (a container into its
# children, anything else at line boundaries).
HARD_MAX_WEIGHT = 6000
# Everything that shapes chunks besides the code; the index fingerprint hashes it, so a change asks
# for `kb index --rebuild`. A new tuning constant goes in here (a test checks); bump "rules" when the
# splitting logic changes in a way these numbers do not show (2: markdown-it blocks, list items and
# intro sentences kept with their code).
CHUNKING_PARAMS: dict[str, object] = {
    "rules": 2,
    "MAX_CHUNK_WEIGHT": MAX_CHUNK_WEIGHT,
    "MIN_CHUNK_WEIGHT": MIN_CHUNK_WEIGHT,
    "HARD_MAX_WEIGHT": HARD_MAX_WEIGHT,
}

_CJK_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")


def weight(text: str) -> int:
    cjk = len(_CJK_CHAR.findall(text))
    return len(text) + 2 * cjk


@dataclass(slots=True)
class _Block:
    start: int  # 0-based inclusive
    end: int  # 0-based inclusive
    weight: int
    index: int = -1  # the Block it came from (-1: loose lines outside any block)


def parse_document(path: str, text: str) -> Document:
    """Parse one markdown file into a Document with its chunks.

    Args:
        path: the file's path relative to the KB root (POSIX separators).
        text: the whole file, already decoded.

    Returns:
        The Document; chunks carry exact line ranges and heading breadcrumbs.
    """
    lines = split_lines(text)
    fm = parse_front_matter(lines)
    blocks = parse_blocks(lines, fm.end_line)
    headings = headings_from_blocks(blocks)
    links = parse_links(lines, code_mask(blocks, len(lines)))
    title = str(fm.data.get("title") or "").strip()
    if not title:
        h1 = next((h for h in headings if h.level == 1), None)
        title = h1.text if h1 else page_name(path)
    chunks = tuple(_chunk(path, lines, blocks, headings, fm.end_line, title))
    return Document(
        path=path,
        title=title,
        tags=as_str_tuple(fm.data.get("tags")),
        aliases=as_str_tuple(fm.data.get("aliases")),
        headings=tuple(headings),
        links=tuple(links),
        chunks=chunks,
        line_count=len(lines),
        warnings=(fm.warning,) if fm.warning else (),
    )


def split_lines(text: str) -> list[str]:
    """A file's lines as every part of kb numbers them (a final newline ends the last line)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln.rstrip("\r") for ln in lines]


def _chunk(path: str, lines: list[str], blocks: tuple[Block, ...], headings: list[Heading], body_start: int, title: str) -> list[Chunk]:
    # sections: [start, end) 0-based, each starting at a heading (or at the body start)
    starts = [body_start] + [h.line - 1 for h in headings if h.line - 1 > body_start]
    by_line = {h.line - 1: h for h in headings}
    sections = [(s, e) for s, e in zip(starts, starts[1:] + [len(lines)]) if s < e]

    chunks: list[Chunk] = []
    trail: list[Heading] = []
    pending: tuple[int, int, tuple[str, ...]] | None = None  # a light section waiting to merge

    def crumbs_at(line0: int) -> tuple[str, ...]:
        h = by_line.get(line0)
        if h is not None:
            while trail and trail[-1].level >= h.level:
                trail.pop()
            trail.append(h)
        return tuple(x.text for x in trail)

    for s, e in sections:
        crumbs = crumbs_at(s)
        if pending is not None:
            ps, _, pcrumbs = pending
            # a bare parent heading merged into its first child: the child's breadcrumb is the
            # more specific one (and still contains the parent)
            s, crumbs = ps, (crumbs if len(crumbs) > len(pcrumbs) else pcrumbs)
            pending = None
        w = weight("\n".join(lines[s:e]))
        if w < MIN_CHUNK_WEIGHT and e < len(lines):
            pending = (s, e, crumbs)
            continue
        chunks.extend(_split_section(path, lines, blocks, s, e, crumbs, title))
    if pending is not None:
        chunks.extend(_split_section(path, lines, blocks, pending[0], len(lines), pending[2], title))
    return chunks


def _atoms(lines: list[str], blocks: tuple[Block, ...], s: int, e: int, parent: int = -1) -> list[_Block]:
    """The pieces a chunk boundary may fall between: the blocks directly under `parent` inside
    lines [s, e) (list items one by one), loose non-blank lines, and code glued to what precedes it."""
    if parent < 0:
        tops = _top_level(blocks)
        lo = bisect.bisect_left(tops, (s + 1, -1))
        hi = bisect.bisect_left(tops, (e + 1, -1))
        idx = [j for _start, j in tops[lo:hi]]
    else:
        idx = [j for j in children(blocks, parent) if s <= blocks[j].start - 1 < e]
    covered = [False] * (e - s)
    atoms: list[_Block] = []
    for j in idx:
        b = blocks[j]
        lo, hi = b.start - 1, min(b.end - 1, e - 1)
        for ln in range(lo, hi + 1):
            covered[ln - s] = True
        atoms.append(_Block(lo, hi, weight("\n".join(lines[lo : hi + 1])), j))
    for ln in range(s, e):
        if not covered[ln - s] and lines[ln].strip():
            atoms.append(_Block(ln, ln, weight(lines[ln])))
    atoms.sort(key=lambda a: a.start)
    glued: list[_Block] = []
    for a in atoms:
        if glued and _attaches(lines, blocks, glued[-1], a) and glued[-1].weight + a.weight <= HARD_MAX_WEIGHT:
            prev = glued[-1]
            glued[-1] = _Block(prev.start, a.end, weight("\n".join(lines[prev.start : a.end + 1])), prev.index)
        else:
            glued.append(a)
    return glued


_TOPS: dict[int, tuple[tuple[Block, ...], list[tuple[int, int]]]] = {}


def _top_level(blocks: tuple[Block, ...]) -> list[tuple[int, int]]:
    """(start line, index) of the top-level blocks, sorted; remembered for the file being chunked."""
    hit = _TOPS.get(id(blocks))
    if hit is None or hit[0] is not blocks:
        _TOPS.clear()
        hit = (blocks, sorted((b.start, j) for j, b in enumerate(blocks) if b.parent == -1))
        _TOPS[id(blocks)] = hit
    return hit[1]


def _attaches(lines: list[str], blocks: tuple[Block, ...], prev: _Block, a: _Block) -> bool:
    """Code belongs with the item or sentence right above it (only blank lines between)."""
    if a.index < 0 or prev.index < 0 or blocks[prev.index].kind == "heading":
        return False
    b = blocks[a.index]
    code = b.kind in CODE_KINDS or (b.kind == "paragraph" and is_code_only("\n".join(lines[a.start : a.end + 1])))
    return code and all(not lines[k].strip() for k in range(prev.end + 1, a.start))


def _split_section(path: str, lines: list[str], blocks: tuple[Block, ...], s: int, e: int, crumbs: tuple[str, ...], title: str) -> list[Chunk]:
    out: list[Chunk] = []
    cur_s: int | None = None
    cur_e = s
    cur_w = 0
    todo = _atoms(lines, blocks, s, e)
    while todo:
        b = todo.pop(0)
        if b.weight > HARD_MAX_WEIGHT and b.index >= 0 and blocks[b.index].kind in CONTAINERS:
            inner = _atoms(lines, blocks, b.start, b.end + 1, parent=b.index)
            if inner and not (len(inner) == 1 and inner[0].start == b.start and inner[0].end == b.end):
                todo[:0] = inner
                continue
        if b.weight > HARD_MAX_WEIGHT:
            if cur_s is not None:
                out.extend(_make(path, lines, cur_s, cur_e, crumbs, title))
                cur_s = None
                cur_w = 0
            out.extend(_split_lines(path, lines, b.start, b.end, crumbs, title))
            continue
        if cur_s is not None and cur_w + b.weight > MAX_CHUNK_WEIGHT:
            out.extend(_make(path, lines, cur_s, cur_e, crumbs, title))
            cur_s = None
            cur_w = 0
        if cur_s is None:
            cur_s = b.start
        cur_e = b.end
        cur_w += b.weight + 1
    if cur_s is not None:
        out.extend(_make(path, lines, cur_s, cur_e, crumbs, title))
    return out


def _split_lines(path: str, lines: list[str], s: int, e: int, crumbs: tuple[str, ...], title: str) -> list[Chunk]:
    out: list[Chunk] = []
    start, w = s, 0
    for i in range(s, e + 1):
        lw = weight(lines[i]) + 1
        if w + lw > MAX_CHUNK_WEIGHT and i > start:
            out.extend(_make(path, lines, start, i - 1, crumbs, title))
            start, w = i, 0
        w += lw
    out.extend(_make(path, lines, start, e, crumbs, title))
    return out


def _make(path: str, lines: list[str], s: int, e: int, crumbs: tuple[str, ...], title: str) -> list[Chunk]:
    while s <= e and not lines[s].strip():
        s += 1
    while e >= s and not lines[e].strip():
        e -= 1
    if s > e:
        return []
    return [Chunk(path=path, start_line=s + 1, end_line=e + 1, text="\n".join(lines[s : e + 1]), heading_path=crumbs, questions=heading_questions(title, crumbs))]


def heading_questions(title: str, crumbs: tuple[str, ...]) -> tuple[str, ...]:
    """The question pool offline: questions a section answers, derived from its headings."""
    if not crumbs:
        return (f"What is {title} about?",)
    h = crumbs[-1].strip().rstrip(":")
    if h.endswith(("?", "？")):
        return (h,)
    if _CJK_CHAR.search(h):
        return (f"{h}是什么？",) if len(crumbs) == 1 else (f"{crumbs[0]}：{h}？",)
    lead = h.split(" ", 1)[0].lower()
    if lead in {"how", "why", "when", "where", "what", "which", "who"}:
        return (h + "?",)
    if lead.endswith("ing") or lead in {"deploy", "rollback", "roll", "restore", "rotate", "configure", "set", "install", "run", "add", "remove", "create", "update", "upgrade", "request"}:
        return (f"How to {h[0].lower() + h[1:]}?",)
    return (f"What does {title} say about {h}?" if h != title else f"What is {title}?",)
