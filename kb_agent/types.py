"""Frozen domain values shared by the corpus, index, retrieval and agent layers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Heading:
    line: int  # 1-based
    level: int
    text: str
    slug: str  # GitHub-style anchor


@dataclass(frozen=True, slots=True)
class Link:
    """A link found in a document; `target` is the raw href or wikilink name."""

    line: int
    target: str
    anchor: str | None
    kind: str  # "md" | "wiki"
    text: str


@dataclass(frozen=True, slots=True)
class Chunk:
    """A contiguous run of lines of one file: text == the file's lines start..end joined by \\n."""

    path: str  # relative to the KB root, POSIX separators
    start_line: int  # 1-based, inclusive
    end_line: int  # inclusive
    text: str
    heading_path: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed markdown file: metadata, headings, links and its chunks."""

    path: str
    title: str
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    headings: tuple[Heading, ...]
    links: tuple[Link, ...]
    chunks: tuple[Chunk, ...]
    line_count: int
    warnings: tuple[str, ...] = ()  # e.g. front matter refused; the file is still indexed as text


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Restrict a search to files with all of `tags` and matching any of `path_globs`."""

    tags: tuple[str, ...] = ()
    path_globs: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return bool(self.tags or self.path_globs)


@dataclass(frozen=True, slots=True)
class Evidence:
    """One retrieved passage: where it is, what it says, how it scored and which tool found it."""

    path: str
    start_line: int
    end_line: int
    text: str
    score: float
    tool: str
    heading_path: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()
    # the best few lines inside start..end for a snippet (retrieval/windows.py); None = not computed
    focus: tuple[int, int] | None = field(default=None, compare=False, hash=False)
    # per-tool ranks / contributions for --explain; not part of identity
    explain: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def location(self) -> str:
        return format_location(self.path, self.start_line, self.end_line)

    def overlaps(self, other: Evidence) -> bool:
        return (
            self.path == other.path
            and self.start_line <= other.end_line
            and other.start_line <= self.end_line
        )


def format_location(path: str, start: int, end: int) -> str:
    """`docs/a.md:L3` for one line, `docs/a.md:L3-L9` for a range."""
    return f"{path}:L{start}" if start == end else f"{path}:L{start}-L{end}"


@dataclass(frozen=True, slots=True)
class FileSkip:
    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class QuestionPoolReport:
    """What the question phase of `kb index --questions` did: a chat model writing, per chunk, the
    questions it answers (kb_agent/index/questions.py)."""

    model: str  # the model that wrote them (kept as metadata, not in the index fingerprint)
    chunks_asked: int = 0  # chunks sent to the model in this run
    chunks_written: int = 0  # of those, chunks that got valid questions
    chunks_fallback: int = 0  # invalid reply even after the repair try: they keep their heading questions
    chunks_reused: int = 0  # same text already had questions (a moved or copied section): no model call
    chunks_waiting: int = 0  # still without model questions (the run stopped, or the model failed)
    questions: int = 0  # questions written in this run
    model_calls: int = 0  # repairs included
    seconds: float = 0.0  # time spent waiting for the model
    error: str | None = None  # why the phase stopped early (e.g. the server is unreachable)

    @property
    def questions_per_chunk(self) -> float:
        return self.questions / self.chunks_written if self.chunks_written else 0.0


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What `build_index` did (or, with check=True, would do)."""

    root: str
    indexed: tuple[str, ...] = ()  # new files
    updated: tuple[str, ...] = ()
    unchanged: int = 0
    removed: tuple[str, ...] = ()
    skipped: tuple[FileSkip, ...] = ()
    chunks_total: int = 0
    chunks_embedded: int = 0
    duration_s: float = 0.0
    checked_only: bool = False
    chunks_pending: int = 0  # chunks still without a vector (the run was paused or stopped before the end)
    warnings: tuple[FileSkip, ...] = ()  # indexed, but with a caveat (e.g. front matter ignored)
    notes: tuple[str, ...] = ()  # what the run did besides indexing (e.g. a broken store moved aside)
    questions: QuestionPoolReport | None = None  # the question phase, when `--questions` ran it

    @property
    def stale(self) -> bool:
        return bool(self.indexed or self.updated or self.removed)


@dataclass(frozen=True, slots=True)
class Citation:
    n: int
    path: str
    start_line: int
    end_line: int
    quote: str

    @property
    def location(self) -> str:
        return format_location(self.path, self.start_line, self.end_line)
