"""Heading-aware chunking with exact 1-based line ranges; never splits a code fence or a table.

A chunk's text is exactly the file's lines start..end joined by "\\n" (a tested property), so a
citation `path:Lx-Ly` always points at the words that were retrieved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb_agent.corpus.markdown import (
    as_str_tuple,
    fence_mask,
    parse_front_matter,
    parse_headings,
    parse_links,
)
from kb_agent.types import Chunk, Document, Heading

# Sizes in weighted characters (a CJK character weighs 3, about one English word): ~350 model
# tokens keeps a chunk inside the embedding window and focused on one topic.
MAX_CHUNK_WEIGHT = 1500
# Sections lighter than this are merged with the next one so a bare heading is never a chunk.
MIN_CHUNK_WEIGHT = 250
# A single fence or table larger than this is split at line boundaries after all.
HARD_MAX_WEIGHT = 6000
# Everything that shapes chunks besides the code; the index fingerprint hashes it, so a change asks
# for `kb index --rebuild`. A new tuning constant goes in here (a test checks); bump "rules" when the
# splitting logic changes in a way these numbers do not show.
CHUNKING_PARAMS: dict[str, object] = {
    "rules": 1,
    "MAX_CHUNK_WEIGHT": MAX_CHUNK_WEIGHT,
    "MIN_CHUNK_WEIGHT": MIN_CHUNK_WEIGHT,
    "HARD_MAX_WEIGHT": HARD_MAX_WEIGHT,
}

_CJK_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
_TABLE_ROW = re.compile(r"^\s*\|")


def weight(text: str) -> int:
    cjk = len(_CJK_CHAR.findall(text))
    return len(text) + 2 * cjk


@dataclass(slots=True)
class _Block:
    start: int  # 0-based inclusive
    end: int  # 0-based inclusive
    weight: int


def parse_document(path: str, text: str) -> Document:
    """Parse one markdown file into a Document with its chunks.

    Args:
        path: the file's path relative to the KB root (POSIX separators).
        text: the whole file, already decoded.

    Returns:
        The Document; chunks carry exact line ranges and heading breadcrumbs.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [ln.rstrip("\r") for ln in lines]
    fm = parse_front_matter(lines)
    fences = fence_mask(lines)
    headings = parse_headings(lines, fences, start=fm.end_line)
    links = parse_links(lines, fences)
    title = str(fm.data.get("title") or "").strip()
    if not title:
        h1 = next((h for h in headings if h.level == 1), None)
        title = h1.text if h1 else path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    chunks = tuple(_chunk(path, lines, fences, headings, fm.end_line, title))
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


def _chunk(path: str, lines: list[str], fences: list[bool], headings: list[Heading], body_start: int, title: str) -> list[Chunk]:
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
        chunks.extend(_split_section(path, lines, fences, s, e, crumbs, title))
    if pending is not None:
        chunks.extend(_split_section(path, lines, fences, pending[0], len(lines), pending[2], title))
    return chunks


def _blocks(lines: list[str], fences: list[bool], s: int, e: int) -> list[_Block]:
    """Paragraph-level blocks: split at blank lines outside fences and tables."""
    blocks: list[_Block] = []
    i = s
    while i < e:
        j = i
        while j < e:
            if not fences[j] and lines[j].strip() == "" and j > i:
                break
            if fences[j] and j + 1 < e and not fences[j + 1] and (j == i or fences[j - 1]):
                # end of a fence: a block boundary right after it
                j += 1
                break
            j += 1
        end = j - 1
        blocks.append(_Block(i, end, weight("\n".join(lines[i : end + 1]))))
        i = j
    return blocks


def _split_section(path: str, lines: list[str], fences: list[bool], s: int, e: int, crumbs: tuple[str, ...], title: str) -> list[Chunk]:
    out: list[Chunk] = []
    cur_s: int | None = None
    cur_e = s
    cur_w = 0
    for b in _blocks(lines, fences, s, e):
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
