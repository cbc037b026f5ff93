"""The warm side of `kb mcp`: one Retriever and one Engine kept open for every call, a freshness check
per call, and the six tools as plain methods returning JSON-ready documents.

Everything here runs on the server's one worker thread (server.py), so the index, the embedder and the
agent graph are only ever used by one call at a time. Failures are KbErrors, exactly as the CLI sees them.
"""

from __future__ import annotations

import logging
import posixpath
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kb_agent.corpus.discover import MARKDOWN_SUFFIXES
from kb_agent.errors import IndexNotBuilt, IndexStale, KbError, PathOutsideRoot, UsageError
from kb_agent.mcp.freshness import FRESHNESS_INTERVAL_S, MAX_STALE_FILES, Freshness, FreshnessCheck
from kb_agent.mcp.specs import MAX_K, MAX_READ_LINES
from kb_agent.mcp.watcher import BackgroundWatch
from kb_agent.names import AUTO_TOOL
from kb_agent.types import Evidence, SearchFilters

if TYPE_CHECKING:
    from collections.abc import Callable

    from kb_agent.agent.engine import Engine
    from kb_agent.agent.execute import EventSink
    from kb_agent.index.manifest import FileRow
    from kb_agent.index.watch import WatchUpdate
    from kb_agent.retrieval.tools import Retriever
    from kb_agent.settings import Settings

log = logging.getLogger(__name__)

# a hit's snippet: its focus lines (retrieval/windows.py) or its first lines, at most this many, each cut
SNIPPET_LINES = 6
SNIPPET_LINE_CHARS = 300
# a file's snippet in `files`: its title and first paragraph
FILE_SNIPPET_LINES = 4


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """A tool's answer: the structured document, sentences a model should not miss, and optionally the
    text to show instead of the document's JSON (`read` shows the numbered lines)."""

    data: dict[str, Any]
    notes: tuple[str, ...] = ()
    text: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class KbService:
    """One knowledge base, kept warm for many tool calls.

    Args:
        settings: loaded settings (KB root, providers, Chroma URL …).
        freshness_interval_s: how long a freshness answer is reused.
    """

    def __init__(self, settings: Settings, *, freshness_interval_s: float = FRESHNESS_INTERVAL_S) -> None:
        self.settings = settings
        self.root = settings.kb_root()
        self.freshness = FreshnessCheck(settings, interval_s=freshness_interval_s)
        self.started_at = time.time()
        self.calls = 0
        self.watch = BackgroundWatch()
        self._retriever: Retriever | None = None
        self._engine: Engine | None = None

    # ------------------------------------------------------------ lifecycle

    @property
    def retriever(self) -> Retriever:
        if self._retriever is None:
            from kb_agent.retrieval.tools import Retriever

            self._retriever = Retriever(self.settings, require_index=False)
        return self._retriever

    @property
    def engine(self) -> Engine:
        """The Engine over this server's Retriever, its graph built (the agent's imports and graph cost
        ~1 s once). Engine has no public warm-up, hence `_setup()`."""
        if self._engine is None:
            from kb_agent.agent.engine import Engine

            engine = Engine(self.settings, tools=self.retriever)
            engine._setup()
            self._engine = engine
        return self._engine

    def warm(self) -> None:
        """Load what the first call would otherwise wait for: the catalog, the embedding model, Chroma,
        the tokenizer's dictionary, the agent graph. A KB without an index stays cold (grep still works)."""
        from kb_agent.index.tokenize import tokenize

        t0 = time.perf_counter()
        tokenize("warm up 预热")
        r = self.retriever
        if r.index.built:
            try:
                r.index.embedder.embed_query("warm up")
                _ = r.index.store
                _ = self.engine  # the agent's imports (langgraph, langchain) and its graph
            except KbError as e:  # warming is best effort; the call that needs what failed reports it
                log.warning("warm-up incomplete: %s", e.message)
        self.freshness.get()
        log.info("warm in %.0f ms", (time.perf_counter() - t0) * 1000)

    def sync(self) -> Freshness:
        """The per-call freshness check: pick up a re-index by another process, then report staleness."""
        if self.retriever.refresh():
            log.info("the index moved; reopened it")
            self._engine = None  # its term weights come from the old catalog
            self.freshness.invalidate()
        return self.freshness.get()

    def start_watch(self, on_update: Callable[[WatchUpdate], None] | None = None) -> None:
        """Keep the index current in a background thread (`kb index --watch`'s watcher) until close()."""
        self.watch.start(self.settings, on_update)

    def close(self) -> None:
        self.watch.halt()
        if self._engine is not None:
            self._engine.close()
            self._engine = None
        if self._retriever is not None:
            self._retriever.close()
            self._retriever = None

    def call(self, name: str, arguments: dict[str, Any], *, on_event: EventSink | None = None) -> ToolOutput:
        """Run one tool with schema-valid arguments.

        Args:
            name: the tool (a name in specs.TOOLS).
            arguments: its arguments, already valid against the tool's input schema.
            on_event: `ask` reports the agent's progress events here (the engine's dicts).

        Raises:
            KbError: the same errors, messages and hints as the CLI.
        """
        self.calls += 1
        if name == "status":  # reports a missing, broken or incompatible index instead of failing on it
            return self.tool_status()
        fresh = self.sync()
        r = self.retriever
        r.notices.clear()  # degradations are reported per call
        extra = {"on_event": on_event} if name == "ask" else {}
        out: ToolOutput = getattr(self, f"tool_{name}")(fresh, **arguments, **extra)
        notes = [*out.notes, *(n for n in r.notices if n not in out.notes)]
        return ToolOutput(out.data, tuple(notes), out.text, out.meta)

    # ------------------------------------------------------------ tools

    def tool_search(self, fresh: Freshness, *, query: str, tool: str = "hybrid", k: int = 10, tags: list[str] | None = None,
                    paths: list[str] | None = None, regex: bool = False, full_text: bool = False) -> ToolOutput:
        from kb_agent.retrieval.query import clean_query

        q = clean_query(query)
        filters = _filters(tags, paths)
        r = self.retriever
        chosen = _auto_tool(q) if tool == AUTO_TOOL else tool
        if chosen != "grep":
            self._need_index()
        hits = r.grep(q, k=k, filters=filters, regex=regex) if chosen == "grep" else r.search(chosen, q, k=k, filters=filters)  # type: ignore[arg-type]
        return _hits_output(q, chosen, hits, fresh, full_text=full_text, notices=r.notices)

    def tool_related(self, fresh: Freshness, *, query: str, k: int = 10, tags: list[str] | None = None,
                     paths: list[str] | None = None, full_text: bool = False) -> ToolOutput:
        return self.tool_search(fresh, query=query, tool="related", k=k, tags=tags, paths=paths, full_text=full_text)

    def tool_ask(self, fresh: Freshness, *, question: str, tool: str = AUTO_TOOL, tags: list[str] | None = None, paths: list[str] | None = None,
                 max_iterations: int | None = None, allow_general: bool = False, require_fresh: bool = False,
                 on_event: EventSink | None = None) -> ToolOutput:
        from kb_agent.render.json import answer_dict

        if require_fresh:
            self.freshness.invalidate()
            fresh = self.freshness.get()
            if fresh.stale:
                raise IndexStale(
                    f"the index is stale: {len(fresh.new)} new, {len(fresh.changed)} changed, {len(fresh.deleted)} deleted files",
                    hint="run `kb index` first",
                )
        self._need_index()
        answer = self.engine.answer_query(question, tool=tool, filters=_filters(tags, paths), max_iterations=max_iterations,
                                          allow_general=allow_general, on_event=on_event)
        notes = (fresh.note(),) if fresh.stale else ()
        return ToolOutput(answer_dict(answer), tuple(n for n in notes if n), meta=_fresh_meta(fresh))

    def tool_read(self, fresh: Freshness, *, path: str, start_line: int = 1, end_line: int | None = None) -> ToolOutput:
        if end_line is not None and end_line < start_line:
            raise UsageError(f"end_line {end_line} is before start_line {start_line}", hint="give end_line ≥ start_line, or leave it out to read to the end")
        rel = self._readable(path)
        ev = self.retriever.read_file(rel, start_line, None)  # start..end of file, as the disk has it now
        line_count = ev.end_line
        want_end = line_count if end_line is None else min(end_line, line_count)  # past the end: clipped
        end = min(want_end, start_line + MAX_READ_LINES - 1)
        truncated = end < want_end
        lines = ev.text.split("\n")[: end - start_line + 1]
        text = "\n".join(f"{start_line + i}\t{line}" for i, line in enumerate(lines))
        data = {"path": ev.path, "start_line": start_line, "end_line": end, "line_count": line_count, "truncated": truncated,
                "next_start_line": end + 1 if truncated else None, "text": text}
        head = f"{ev.path}:L{start_line}-L{end} ({line_count} lines in the file)"
        if truncated:
            head += f"; {MAX_READ_LINES} lines per call: continue with start_line={end + 1}"
        return ToolOutput(data, text=head + "\n" + text)

    def tool_files(self, fresh: Freshness, *, query: str | None = None, tags: list[str] | None = None, paths: list[str] | None = None,
                   limit: int = 100, offset: int = 0) -> ToolOutput:
        self._need_index()
        r = self.retriever
        filters = _filters(tags, paths)
        rows = r.index.files()
        stale = _fresh_fields(fresh)
        if query is not None and query.strip():
            from kb_agent.retrieval.query import clean_query

            q = clean_query(query)
            hits = r.files(q, k=min(limit, MAX_K), filters=filters)
            found = [{**_file_dict(rows[ev.path]), "score": ev.score, "snippet": _clip_lines(ev.text, FILE_SNIPPET_LINES)} for ev in hits if ev.path in rows]
            return ToolOutput({"query": q, "total": len(found), "offset": 0, "next_offset": None, "files": found, **stale}, _stale_notes(fresh))
        allowed = r.index.paths_matching(filters)
        listed = sorted(p for p, f in rows.items() if f.status == "ok" and (allowed is None or p in allowed))
        page = listed[offset : offset + limit]
        nxt = offset + limit if offset + limit < len(listed) else None
        data = {"query": None, "total": len(listed), "offset": offset, "next_offset": nxt, "files": [_file_dict(rows[p]) for p in page], **stale}
        return ToolOutput(data, _stale_notes(fresh))

    def tool_status(self) -> ToolOutput:
        from kb_agent.status import collect_status

        st = collect_status(self.settings)
        st["server"] = {"watch": self.watch.as_dict(), "started_at": round(self.started_at, 3), "calls": self.calls}
        return ToolOutput(st)

    # ------------------------------------------------------------ resources

    def list_files(self) -> list[FileRow]:
        """The indexed files, in path order (the server's resources)."""
        self.sync()
        r = self.retriever
        return [f for _p, f in sorted(r.index.files().items()) if f.status == "ok"]

    def read_text(self, path: str) -> str:
        """A KB file's whole text (a resource read), under the same rules as the `read` tool.

        Raises:
            KbError: outside the root, hidden, not markdown, not a regular file, missing.
        """
        rel = self._readable(path)
        return self.retriever.read_file(rel, 1, None).text

    # ------------------------------------------------------------ helpers

    def _need_index(self) -> None:
        if not self.retriever.index.built:
            raise IndexNotBuilt(f"no index in {self.root}", hint=f"run `kb index --kb {self.root}` first")

    def _readable(self, path: str) -> str:
        """`path` made relative and checked: inside the root, not hidden, markdown (the files kb indexes).

        Raises:
            PathOutsideRoot: absolute, `..` out of the root, a symlink out of it, hidden.
            UsageError: not a markdown file.
        """
        from kb_agent.retrieval.related import safe_path

        if not path or "\0" in path:
            raise UsageError("empty or invalid path")
        full = safe_path(self.root, path)  # absolute paths, `..` escapes, symlinks leading out
        target = full.relative_to(self.root.resolve()).as_posix()
        for rel in (posixpath.normpath(path), target):
            if any(part.startswith(".") and part not in (".", "..") for part in rel.split("/")):
                raise PathOutsideRoot(f"not a knowledge-base file: {path} is hidden",
                                      hint="hidden files and folders (.kb/, .git/, .env) are not part of the knowledge base")
            if not rel.lower().endswith(MARKDOWN_SUFFIXES):
                raise UsageError(f"not a markdown file: {path}", hint="read serves the knowledge base's .md, .markdown and .mdx files")
        return posixpath.normpath(path)


def _filters(tags: list[str] | None, paths: list[str] | None) -> SearchFilters:
    from kb_agent.corpus.pathmatch import PathGlobs

    globs = tuple(paths or ())
    PathGlobs(globs)  # a bad glob is an error now, not an empty result later
    return SearchFilters(tags=tuple(tags or ()), path_globs=globs)


def _auto_tool(q: str) -> str:
    from kb_agent.agent.analyzer import analyze
    from kb_agent.names import PRIMARY_TOOL

    return PRIMARY_TOOL.get(analyze(q).query_type, "hybrid")


def _hits_output(q: str, tool: str, hits: list[Evidence], fresh: Freshness, *, full_text: bool, notices: list[str]) -> ToolOutput:
    results = [_hit_dict(ev, rank=i, full_text=full_text) for i, ev in enumerate(hits, 1)]
    data = {"query": q, "tool": tool, "results": results, **_fresh_fields(fresh), "notes": list(notices)}
    return ToolOutput(data, _stale_notes(fresh), meta=_fresh_meta(fresh))


def _hit_dict(ev: Evidence, *, rank: int, full_text: bool) -> dict[str, Any]:
    from kb_agent.render.json import evidence_dict

    d = evidence_dict(ev, rank=rank)
    a, b = ev.focus if ev.focus else (ev.start_line, min(ev.end_line, ev.start_line + SNIPPET_LINES - 1))
    b = min(b, a + SNIPPET_LINES - 1)
    lines = ev.text.split("\n")[a - ev.start_line : b - ev.start_line + 1]
    out: dict[str, Any] = {
        "rank": rank, "path": d["path"], "start_line": d["start_line"], "end_line": d["end_line"], "location": d["location"],
        "heading": " › ".join(d["heading_path"]), "score": d["score"], "tool": d["tool"],
        "snippet": "\n".join(ln[:SNIPPET_LINE_CHARS] for ln in lines), "snippet_lines": [a, a + max(0, len(lines) - 1)],
    }
    if full_text:
        out["text"] = d["text"]
    if "relation" in ev.explain:
        out["relation"] = str(ev.explain["relation"])
    return out


def _file_dict(f: FileRow) -> dict[str, Any]:
    return {"path": f.path, "title": f.title, "tags": list(f.tags), "aliases": list(f.aliases), "line_count": f.line_count}


def _clip_lines(text: str, n: int) -> str:
    return "\n".join(ln[:SNIPPET_LINE_CHARS] for ln in text.split("\n")[:n])


def _fresh_fields(fresh: Freshness) -> dict[str, Any]:
    return {"stale": fresh.stale, "stale_files": fresh.files[:MAX_STALE_FILES]}


def _fresh_meta(fresh: Freshness) -> dict[str, Any]:
    return {"stale": fresh.stale, "stale_files": fresh.files[:MAX_STALE_FILES], "checked_at": round(fresh.checked_at, 3)}


def _stale_notes(fresh: Freshness) -> tuple[str, ...]:
    note = fresh.note()
    return (note,) if note else ()
