"""The citation verifier: every [n] must map to a given source whose lines exist in the file on disk
now and contain the quoted evidence; invented or broken markers are removed and the rest renumbered."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kb_agent.types import Citation

_MARKER = re.compile(r"\[(\d{1,3})\]")
_MARKER_LIST = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})+)\]")
_FOOTER_LINE = re.compile(r"^\s*\[\d{1,3}\]\s+\S+:L\d+")
# quoted snippets in a cited sentence must appear in the cited lines; shorter ones are too common to check
_QUOTE_IN_TEXT = re.compile(r"`([^`\n]{3,200})`|\"([^\"\n]{4,200})\"|“([^”\n]{4,200})”")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n")


# A source the answer may cite as [n] — where it is and a quote that must be found there — is the
# same value as the Citation it becomes once verified.
SourceRef = Citation


@dataclass(frozen=True, slots=True)
class VerifiedAnswer:
    """The answer after verification: text with footer, the surviving citations, what was removed."""

    text: str
    body: str
    citations: tuple[Citation, ...]
    removed: tuple[str, ...]


def normalize(text: str) -> str:
    """Case- and whitespace-insensitive form used for quote matching."""
    return " ".join(text.split()).lower()


def strip_footer(answer: str) -> str:
    """Drop a model-written `---` sources footer (we write our own from verified sources)."""
    lines = answer.rstrip().split("\n")
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip() == "---":
            tail = [ln for ln in lines[i + 1 :] if ln.strip()]
            if all(_FOOTER_LINE.match(ln) for ln in tail):
                return "\n".join(lines[:i]).rstrip()
            break
    return answer.rstrip()


class _Disk:
    """Reads each cited file once per verification."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._lines: dict[str, list[str] | None] = {}

    def lines(self, rel: str) -> list[str] | None:
        if rel not in self._lines:
            self._lines[rel] = self._read(rel)
        return self._lines[rel]

    def _read(self, rel: str) -> list[str] | None:
        try:
            full = (self.root / rel).resolve()
            full.relative_to(self.root)  # never outside the KB root
            lines = _read_kb_text(full).split("\n")
        except (OSError, ValueError):  # incl. a pipe or device now standing where the file was
            return None
        if lines and lines[-1] == "":
            lines.pop()
        return lines


def _read_kb_text(full: Path) -> str:
    from kb_agent.corpus.fileio import read_regular_text
    from kb_agent.index.build import MAX_FILE_BYTES

    return read_regular_text(full, MAX_FILE_BYTES)


def source_problem(src: SourceRef, disk: _Disk) -> str | None:
    """Why a source cannot be cited (missing file, lines beyond EOF, quote not there), or None."""
    lines = disk.lines(src.path)
    if lines is None:
        return f"{src.path} is not readable in the knowledge base"
    if src.start_line < 1 or src.end_line < src.start_line or src.end_line > len(lines):
        return f"{src.location} is outside the file ({len(lines)} lines)"
    span = normalize("\n".join(lines[src.start_line - 1 : src.end_line]))
    if normalize(src.quote) not in span:
        return f"{src.location} no longer contains the quoted text"
    return None


def verify_answer(answer: str, sources: Sequence[SourceRef], root: Path) -> VerifiedAnswer:
    """Check every marker of `answer` against `sources` and the files under `root`.

    A marker survives when its number is a given source, that source's lines exist in the file now
    and contain its quote, and any `code` or "quoted" snippet in the marker's sentence occurs in
    those lines. Surviving markers are renumbered 1..k in order of first use; a `---` footer of
    `[n] path:Lx-Ly` lines is appended.

    Args:
        answer: the answer text (a footer the model wrote is ignored).
        sources: what [1]..[N] were given as.
        root: the KB root.

    Returns:
        The verified answer; `removed` says why each dropped marker went.
    """
    body = strip_footer(answer)
    body = _MARKER_LIST.sub(lambda m: "".join(f"[{x.strip()}]" for x in m.group(1).split(",")), body)
    by_n = {s.n: s for s in sources}
    disk = _Disk(root)
    problems: dict[int, str | None] = {}
    removed: list[str] = []
    renumber: dict[int, int] = {}
    pieces: list[str] = []
    pos = 0
    for m in _MARKER.finditer(body):
        n = int(m.group(1))
        pieces.append(body[pos : m.start()])
        pos = m.end()
        src = by_n.get(n)
        why: str | None
        if src is None:
            why = f"[{n}] is not one of the {len(sources)} sources given"
        else:
            if n not in problems:
                problems[n] = source_problem(src, disk)
            why = problems[n] or _quote_problem(body, m.start(), src, disk)
        if why is not None:
            removed.append(why)
            pieces[-1] = pieces[-1].rstrip(" \t")  # the marker's own leading space goes with it
            continue
        new = renumber.setdefault(n, len(renumber) + 1)
        pieces.append(f"[{new}]")
    pieces.append(body[pos:])
    clean = _tidy("".join(pieces))
    citations = tuple(
        Citation(n=new, path=by_n[old].path, start_line=by_n[old].start_line, end_line=by_n[old].end_line, quote=by_n[old].quote)
        for old, new in sorted(renumber.items(), key=lambda kv: kv[1])
    )
    text = clean
    if citations:
        text = clean + "\n\n---\n" + "\n".join(f"[{c.n}] {c.location}" for c in citations)
    return VerifiedAnswer(text=text, body=clean, citations=citations, removed=tuple(removed))


def _quote_problem(body: str, marker_at: int, src: SourceRef, disk: _Disk) -> str | None:
    """A snippet quoted in the marker's sentence that the cited lines do not contain."""
    starts = [m.end() for m in _SENTENCE_END.finditer(body, 0, marker_at)]
    sentence = body[(starts[-1] if starts else 0) : marker_at]
    sentence = _MARKER.sub(" ", sentence)
    lines = disk.lines(src.path) or []
    span = normalize("\n".join(lines[src.start_line - 1 : src.end_line]))
    for m in _QUOTE_IN_TEXT.finditer(sentence):
        snippet = next(g for g in m.groups() if g)
        if normalize(snippet) not in span:
            return f"[{src.n}] quotes {snippet[:40]!r}, which {src.location} does not contain"
    return None


def _tidy(text: str) -> str:
    # only line ends are touched: spacing inside a line is the document's (`tar czf out.tgz -C dir .`)
    return "\n".join(ln.rstrip() for ln in text.split("\n")).strip()
