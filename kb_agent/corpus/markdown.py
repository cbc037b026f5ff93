"""Markdown structure: YAML front matter, headings (from corpus/blocks.py) with GitHub anchors, links and
wikilinks, fences."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from kb_agent.corpus.blocks import Block
from kb_agent.types import Heading, Link

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# MkDocs / Pandoc attribute list closing a heading: `## Title { #custom-id }`
_ATTR_LIST = re.compile(r"\s*\{\s*#([^\s}]+)[^}]*\}\s*$")
_MD_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_WIKILINK = re.compile(r"\[\[([^\]\|#\n]*)(?:#([^\]\|\n]*))?(?:\|([^\]\n]*))?\]\]")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")  # http:, mailto:, ftp: …


@dataclass(frozen=True, slots=True)
class FrontMatter:
    data: dict[str, Any]
    end_line: int  # last line of the front matter block (0 when there is none)


def parse_front_matter(lines: list[str]) -> FrontMatter:
    """YAML between a first line `---` and the next `---`/`...`; malformed YAML counts as none."""
    if not lines or lines[0].strip() != "---":
        return FrontMatter({}, 0)
    for i in range(1, min(len(lines), 200)):
        if lines[i].strip() in ("---", "..."):
            import yaml

            try:
                data = yaml.safe_load("\n".join(lines[1:i])) or {}
            except yaml.YAMLError:
                return FrontMatter({}, i + 1)
            return FrontMatter(data if isinstance(data, dict) else {}, i + 1)
    return FrontMatter({}, 0)


def fence_mask(lines: list[str]) -> list[bool]:
    """True for every line inside a fenced code block, fence lines included."""
    mask = [False] * len(lines)
    opener: str | None = None
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if opener is None:
            if m:
                opener = m.group(1)
                mask[i] = True
        else:
            mask[i] = True
            if m and m.group(1)[0] == opener[0] and len(m.group(1)) >= len(opener) and not line.strip()[len(m.group(1)):].strip():
                opener = None
    return mask


def slugify(text: str) -> str:
    """GitHub's heading anchor: lower-case, punctuation dropped, spaces to hyphens, CJK kept."""
    text = _INLINE_CODE.sub(lambda m: m.group()[1:-1], text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).strip().lower()
    out = []
    for ch in text:
        if ch.isalnum() or ch in "-_":
            out.append(ch)
        elif ch == " ":
            out.append("-")
        elif unicodedata.category(ch).startswith(("L", "N", "M")):
            out.append(ch)
    return "".join(out)


def heading_text(raw: str) -> tuple[str, str | None]:
    """A heading's text without a trailing `{ #id }` attribute list, and that explicit id."""
    text = " ".join(raw.split())
    m = _ATTR_LIST.search(text)
    if m is None:
        return text, None
    return text[: m.start()].rstrip(), m.group(1)


def headings_from_blocks(blocks: tuple[Block, ...]) -> list[Heading]:
    """Top-level headings (ATX `# x` and setext `x` over `===`/`---`) with unique GitHub anchors."""
    headings: list[Heading] = []
    seen: dict[str, int] = {}
    for b in blocks:
        if b.kind != "heading" or b.parent != -1:
            continue
        text, anchor = heading_text(b.text)
        if not text:
            continue
        base = anchor or slugify(text)
        n = seen.get(base, 0)
        seen[base] = n + 1
        headings.append(Heading(line=b.start, level=b.level, text=text, slug=base if n == 0 else f"{base}-{n}"))
    return headings


def parse_links(lines: list[str], fences: list[bool]) -> list[Link]:
    """Relative markdown links and wikilinks outside code; external URLs are left out."""
    links: list[Link] = []
    for i, line in enumerate(lines):
        if fences[i] or ("](" not in line and "[[" not in line):
            continue
        clean = _INLINE_CODE.sub(lambda m: " " * len(m.group()), line)
        for m in _MD_LINK.finditer(clean):
            href = m.group(2)
            if _EXTERNAL.match(href) or href.startswith("//"):
                continue
            target, _, anchor = href.partition("#")
            links.append(Link(line=i + 1, target=target, anchor=anchor or None, kind="md", text=m.group(1)))
        for m in _WIKILINK.finditer(clean):
            target = m.group(1).strip()
            links.append(Link(line=i + 1, target=target, anchor=(m.group(2) or "").strip() or None, kind="wiki", text=(m.group(3) or target).strip()))
    return links


def as_str_tuple(value: Any) -> tuple[str, ...]:
    """Front-matter list-or-string fields (`tags: a, b` or `tags: [a, b]`) as a tuple of strings."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if isinstance(value, (list, tuple)):
        return tuple(str(v).strip() for v in value if str(v).strip())
    return (str(value),)
