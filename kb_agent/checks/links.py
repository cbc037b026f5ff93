"""`kb links`: broken relative links, missing heading anchors and broken [[wikilinks]], with file:line.

Works from the files on disk (discover + parse_document), not from the index, so it needs no
`kb index`, is never stale, and judges exactly the bytes CI checked out.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from kb_agent.corpus.markdown import slugify
from kb_agent.types import Document, FileSkip, Link

if TYPE_CHECKING:
    from kb_agent.index.links import LinkResolver

# explicit HTML anchors (`<a id="x">`, `<a name="x">`, `<span id=x>`) are link targets too
_HTML_ANCHOR = re.compile(r"""<[a-zA-Z][^>]*?\s(?:id|name)\s*=\s*["']?([^"'\s>]+)""")
# GitHub line anchors (#L10, #L10-L20) are valid on any file GitHub renders as source
_LINE_ANCHOR = re.compile(r"^L\d+(?:-L\d+)?$")


@dataclass(frozen=True, slots=True)
class LinkProblem:
    """One broken link: where it is, what it points at, and why it is broken."""

    path: str  # the linking file, relative to the KB root
    line: int
    kind: str  # "md" | "wiki"
    target: str
    anchor: str | None
    reason: str  # "missing_file" | "missing_anchor" | "missing_page"
    message: str

    @property
    def href(self) -> str:
        if self.kind == "wiki":
            return f"[[{self.target}{'#' + self.anchor if self.anchor else ''}]]"
        return f"{self.target}{'#' + self.anchor if self.anchor is not None else ''}"


@dataclass(frozen=True, slots=True)
class LinkReport:
    """What `check_links` found: every file and link looked at and the broken ones, in file order."""

    root: str
    files: tuple[str, ...]
    links_checked: int
    problems: tuple[LinkProblem, ...]
    skipped: tuple[FileSkip, ...]
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


def check_links(root: Path) -> LinkReport:
    """Check every relative link, anchor and wikilink in the KB's markdown files.

    Args:
        root: the KB root folder (ignore rules apply as for indexing).

    Returns:
        A LinkReport; problems are sorted by file and line. External URLs are not checked.
    """
    from kb_agent.corpus.chunking import parse_document
    from kb_agent.corpus.discover import discover
    from kb_agent.corpus.fileio import UnsafeFile, read_regular_bytes
    from kb_agent.index.build import MAX_FILE_BYTES, validate_text
    from kb_agent.index.links import LinkResolver
    from kb_agent.index.manifest import FileRow

    started = time.perf_counter()
    root = root.resolve()
    found = discover(root)
    docs: dict[str, Document] = {}
    anchors: dict[str, set[str]] = {}
    skipped = list(found.skipped)
    for rel, full in found.files:
        try:
            text, why = validate_text(read_regular_bytes(full, MAX_FILE_BYTES))
        except UnsafeFile as e:  # a pipe or device, or too large: never read
            text, why = None, str(e.strerror)
        except OSError as e:
            text, why = None, f"unreadable ({e.strerror or e})"
        if text is None:
            if why != "empty file":
                skipped.append(FileSkip(rel, why or "unreadable"))
            continue
        doc = parse_document(rel, text)
        docs[rel] = doc
        names = {h.slug for h in doc.headings}
        names |= {m.group(1) for m in _HTML_ANCHOR.finditer(text)}
        anchors[rel] = names
    rows = [FileRow(p, "", 0, 0, "ok", None, d.title, d.tags, d.aliases, d.line_count) for p, d in docs.items()]
    resolver = LinkResolver.from_files(rows)
    problems: list[LinkProblem] = []
    checked = 0
    for rel, doc in docs.items():
        for link in doc.links:
            checked += 1
            problem = _check(root, rel, link, resolver, anchors)
            if problem is not None:
                problems.append(problem)
    problems.sort(key=lambda p: (p.path, p.line, p.href))
    return LinkReport(
        root=str(root), files=tuple(docs), links_checked=checked, problems=tuple(problems),
        skipped=tuple(sorted(skipped, key=lambda s: s.path)), duration_s=time.perf_counter() - started,
    )


def _check(root: Path, src: str, link: Link, resolver: LinkResolver, anchors: dict[str, set[str]]) -> LinkProblem | None:
    resolved = resolver.resolve(src, link.target, link.kind)

    def problem(reason: str, message: str) -> LinkProblem:
        return LinkProblem(src, link.line, link.kind, link.target, link.anchor, reason, message)

    if resolved is None:
        if link.kind == "wiki":
            return problem("missing_page", f"broken wikilink [[{link.target}]]: no page with that path, name, title or alias")
        if _exists_on_disk(root, src, link.target):
            return None  # an image, a PDF, a source file, or an ignored note: the link works
        return problem("missing_file", f"broken link {link.target!r}: no such file")
    if not link.anchor:
        return None
    names = anchors.get(resolved)
    if names is None:
        return None  # not a parsed markdown file: its anchors are not ours to judge
    anchor = unquote(link.anchor)
    if anchor in names or anchor.lower() in names or _LINE_ANCHOR.match(anchor):
        return None
    if link.kind == "wiki" and slugify(anchor) in names:
        return None  # Obsidian-style [[page#Heading Text]]
    where = "this file" if resolved == src else resolved
    near = _nearest(anchor.lower(), names)
    tail = f" (did you mean #{near}?)" if near else ""
    return problem("missing_anchor", f"missing anchor #{link.anchor} in {where}{tail}")


def _exists_on_disk(root: Path, src: str, target: str) -> bool:
    t = unquote(target)
    base = root if t.startswith("/") else (root / src).parent
    candidate = (base / t.lstrip("/")).resolve()
    return candidate.exists()


def _nearest(anchor: str, names: set[str]) -> str | None:
    import difflib

    near = difflib.get_close_matches(anchor, sorted(names), n=1, cutoff=0.6)
    return near[0] if near else None
