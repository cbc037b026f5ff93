"""The MCP tools `kb mcp` offers, as data: name, description and input/output JSON Schemas.

Descriptions are written for the model that reads them: when to use the tool, what comes back, the
limits, an example. Arguments that break an input schema are refused as protocol errors before any
work runs; the output schemas let a client check what comes back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kb_agent.names import AUTO_TOOL, TOOL_NAMES
from kb_agent.retrieval.query import MAX_QUESTION_CHARS

# search/files/related return at most this many results per call: 50 passages of ~2,000 characters
# is already more than a model should take into its context at once
MAX_K = 50
# `read` returns at most this many lines per call; the result says where to continue
MAX_READ_LINES = 400
# `files` without a query lists the KB page by page
MAX_FILES_PAGE = 500
MAX_FILTERS = 20


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]


_TAGS = {
    "type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": MAX_FILTERS,
    "description": "Only files whose front matter has ALL of these tags, e.g. [\"runbook\"].",
}
_PATHS = {
    "type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": MAX_FILTERS,
    "description": (
        "Only files matching ANY of these gitignore-style globs, relative to the KB root: `runbooks/` (everything "
        "under runbooks/, nested too), `docs/**/deploy*.md`, `*rollback*` (a name at any depth); `!pattern` excludes."
    ),
}
_STALE = {
    "type": "boolean",
    "description": "True when files changed on disk since the last `kb index`: results may miss or misplace the newest edits.",
}
_STALE_FILES = {
    "type": "array", "items": {"type": "string"},
    "description": "Up to 20 new, changed or deleted files the index has not caught up with.",
}
_NOTES = {"type": "array", "items": {"type": "string"}, "description": "Why results are degraded, if they are (e.g. vectors unavailable)."}

_HIT = {
    "type": "object",
    "required": ["rank", "path", "start_line", "end_line", "location", "heading", "score", "tool", "snippet"],
    "properties": {
        "rank": {"type": "integer", "minimum": 1},
        "path": {"type": "string", "description": "File path relative to the KB root."},
        "start_line": {"type": "integer", "minimum": 1},
        "end_line": {"type": "integer", "minimum": 1},
        "location": {"type": "string", "description": "`path:Lstart-Lend`, the form to cite."},
        "heading": {"type": "string", "description": "The section's heading path, `Title › Section › Subsection`."},
        "score": {"type": "number"},
        "tool": {"type": "string", "description": "Which retrieval tool found it."},
        "snippet": {"type": "string", "description": "The best-matching lines of the passage."},
        "snippet_lines": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
        "text": {"type": "string", "description": "The whole passage (only with full_text=true)."},
        "relation": {"type": "string", "description": "related: how this passage links to the file asked about."},
    },
}

SEARCH = ToolSpec(
    name="search",
    title="Search the knowledge base",
    description=f"""Search the local markdown knowledge base and get ranked passages, each with its file path and exact line range.

Use it to find where something is written: an identifier, a config key, an error code, a ticket ID, a command, or a topic in your own words. It never calls a language model and is fast; prefer it over `ask` when you want to read the sources yourself, then `read` the lines around a hit.

tool (default hybrid):
- hybrid: words and meaning, fused — the right default.
- grep: exact text (fixed string; regex=true for a regular expression) — identifiers like `cache.ttl_seconds`, `OPS-2051`, error messages, commands.
- vector: meaning only — paraphrases, "how do I …" questions, another language than the documents (e.g. Chinese question, English docs).
- files: which files — matches on path, file name, title, aliases and tags.
- related: the link graph around a file (its links out and its backlinks); query is a path, a title or words.
- auto: let kb pick from the query.

Returns {{query, tool, results: [{{rank, path, start_line, end_line, location, heading, score, tool, snippet}}], stale, stale_files, notes}}. `location` (`path:L12-L30`) is the form to cite. An empty `results` means nothing matched — not an error. Limits: k ≤ {MAX_K}; query ≤ {MAX_QUESTION_CHARS:,} characters; snippets are a few lines (full_text=true gives whole passages, up to ~2,000 characters each).

Examples: {{"query": "cache.ttl_seconds", "tool": "grep"}} · {{"query": "how do I roll back a bad deploy", "paths": ["runbooks/"], "k": 5}} · {{"query": "OPS-20\\\\d\\\\d", "tool": "grep", "regex": true}}""",
    input_schema={
        "type": "object",
        "additionalProperties": False,
        "required": ["query"],
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "What to look for: words, an identifier, a phrase or a question."},
            "tool": {"type": "string", "enum": [*TOOL_NAMES, AUTO_TOOL], "default": "hybrid", "description": "Which retrieval tool (see the tool description)."},
            "k": {"type": "integer", "minimum": 1, "maximum": MAX_K, "default": 10, "description": "How many results."},
            "tags": _TAGS,
            "paths": _PATHS,
            "regex": {"type": "boolean", "default": False, "description": "grep only: treat the query as a regular expression (Rust regex syntax)."},
            "full_text": {"type": "boolean", "default": False, "description": "Include each passage's whole text, not only the snippet."},
        },
    },
    output_schema={
        "type": "object",
        "required": ["query", "tool", "results", "stale"],
        "properties": {
            "query": {"type": "string", "description": "The query as searched (control characters removed, spaces collapsed)."},
            "tool": {"type": "string", "description": "The tool that ran (auto resolved)."},
            "results": {"type": "array", "items": _HIT},
            "stale": _STALE,
            "stale_files": _STALE_FILES,
            "notes": _NOTES,
        },
    },
)

ASK = ToolSpec(
    name="ask",
    title="Ask the knowledge base (cited answer)",
    description=f"""Answer a question from the knowledge base, with a citation (file and lines) for every claim — or say plainly that the knowledge base does not answer it.

Use it for a direct answer to a question; use `search` when you want to read and weigh the sources yourself. Every [n] in the answer is verified against the file as it is on disk now.

Returns the same document as `kb ask --json`: {{answer (markdown with [n] markers), citations: [{{n, path, start_line, end_line, quote}}], answer_source, confidence, query_type, stop_reason, iterations, model, model_calls, timings, trace}}.
- answer_source "kb": answered from the files; cite as `path:Lstart-Lend`.
- answer_source "none": the knowledge base does not hold the answer — report that, do not guess.
- answer_source "llm_fallback": only with allow_general=true and a configured model; not from the KB.
Without a configured chat model (the default) the answer is extractive: up to 6 quoted passages (list items with their commands, paragraphs, table rows), in the question's language.

Limits: question ≤ {MAX_QUESTION_CHARS:,} characters; max_iterations 1–10 search-and-grade rounds (default KB_AGENT_MAX_ITERATIONS, 3). Inline filters in the question work too: `tag:runbook`, `path:runbooks/*`.

Examples: {{"question": "How do I roll back a bad orders-api deploy?"}} · {{"question": "缓存的默认过期时间是多少？"}} · {{"question": "deploy steps", "tags": ["runbook"]}}""",
    input_schema={
        "type": "object",
        "additionalProperties": False,
        "required": ["question"],
        "properties": {
            "question": {"type": "string", "minLength": 1, "description": "The question, in any language the documents are in (or another: meaning carries across)."},
            "tool": {"type": "string", "enum": [AUTO_TOOL, *TOOL_NAMES], "default": AUTO_TOOL, "description": "auto routes by question type; or force one retrieval tool."},
            "tags": _TAGS,
            "paths": _PATHS,
            "max_iterations": {"type": "integer", "minimum": 1, "maximum": 10, "description": "Cap on search → grade rounds."},
            "allow_general": {"type": "boolean", "default": False, "description": "When the KB lacks the answer, let the configured model answer from general knowledge (labelled llm_fallback)."},
            "require_fresh": {"type": "boolean", "default": False, "description": "Fail (instead of answering from an outdated index) when files changed since the last `kb index`."},
        },
    },
    output_schema={
        # the full schema is docs/ask.schema.json; this names what a caller relies on
        "type": "object",
        "required": ["schema_version", "question", "answer", "citations", "answer_source", "confidence", "stop_reason"],
        "properties": {
            "schema_version": {"const": 1},
            "question": {"type": "string"},
            "answer": {"type": "string", "description": "Markdown; each claim ends with [n] referring to citations[n-1]."},
            "citations": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["n", "path", "start_line", "end_line", "quote"],
                    "properties": {
                        "n": {"type": "integer", "minimum": 1}, "path": {"type": "string"},
                        "start_line": {"type": "integer", "minimum": 1}, "end_line": {"type": "integer", "minimum": 1},
                        "quote": {"type": "string", "description": "The cited words, as the file has them."},
                    },
                },
            },
            "answer_source": {"enum": ["kb", "llm_fallback", "none"]},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "query_type": {"enum": ["exact", "conceptual", "relational", "file_discovery"]},
            "stop_reason": {"enum": ["generate", "max_iterations", "exhausted", "no_evidence"]},
        },
    },
)

READ = ToolSpec(
    name="read",
    title="Read lines of a knowledge-base file",
    description=f"""Read a markdown file of the knowledge base as it is on disk now, with line numbers.

Use it after `search` or `ask` to see the context around a hit or a citation (e.g. start_line 10 lines before the hit), or to read a whole short file. Paths are relative to the KB root, exactly as `search` returns them.

Returns {{path, start_line, end_line, line_count, truncated, next_start_line, text}}; `text` has one line per file line, formatted `<number><TAB><line>`. Without end_line it reads to the end of the file. At most {MAX_READ_LINES} lines per call: when `truncated` is true, call again with start_line = next_start_line. An end_line past the end of the file is clipped to it.

Refused (as an error result): paths outside the KB root (`..`, absolute paths, symlinks leading out), hidden files and folders (`.kb/`, `.git/`, `.env`), files that are not markdown (.md, .markdown, .mdx), and anything that is not a regular file.

Example: {{"path": "runbooks/rollback.md", "start_line": 20, "end_line": 45}}""",
    input_schema={
        "type": "object",
        "additionalProperties": False,
        "required": ["path"],
        "properties": {
            "path": {"type": "string", "minLength": 1, "description": "File path relative to the KB root, e.g. runbooks/rollback.md."},
            "start_line": {"type": "integer", "minimum": 1, "default": 1, "description": "First line (1-based)."},
            "end_line": {"type": "integer", "minimum": 1, "description": "Last line, inclusive (default: the end of the file)."},
        },
    },
    output_schema={
        "type": "object",
        "required": ["path", "start_line", "end_line", "line_count", "truncated", "text"],
        "properties": {
            "path": {"type": "string"},
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": "integer", "minimum": 1},
            "line_count": {"type": "integer", "minimum": 0, "description": "Lines in the whole file."},
            "truncated": {"type": "boolean", "description": f"More lines were asked for than one call returns ({MAX_READ_LINES})."},
            "next_start_line": {"type": ["integer", "null"], "description": "Where to continue when truncated, else null."},
            "text": {"type": "string", "description": "The lines, each `<number><TAB><line>`."},
        },
    },
)

_FILE = {
    "type": "object",
    "required": ["path", "title", "tags", "aliases", "line_count"],
    "properties": {
        "path": {"type": "string"},
        "title": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "aliases": {"type": "array", "items": {"type": "string"}},
        "line_count": {"type": "integer", "minimum": 0},
        "score": {"type": "number", "description": "With a query: how well the file matched."},
        "snippet": {"type": "string", "description": "With a query: the file's opening lines."},
    },
}

FILES = ToolSpec(
    name="files",
    title="List or find knowledge-base files",
    description=f"""List the knowledge base's indexed files, or find files by name, path, title, alias or tag.

Use it to see what the knowledge base holds ("which runbooks are there?") or to find a document by name ("the ADR about Redis"). Without a query it lists files in path order, page by page; with a query it ranks files whose path, name, title, aliases or tags match.

Returns {{query, total, offset, next_offset, files: [{{path, title, tags, aliases, line_count, score?, snippet?}}], stale, stale_files}}. `total` counts every file that passes the filters (list mode) or the matches returned (query mode); `next_offset` is null on the last page. Limits: limit ≤ {MAX_FILES_PAGE} in list mode and ≤ {MAX_K} with a query. Needs the index (`kb index`).

Examples: {{}} · {{"paths": ["adr/"]}} · {{"query": "redis sentinel"}} · {{"tags": ["runbook"], "limit": 50, "offset": 50}}""",
    input_schema={
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "query": {"type": "string", "description": "Words, a file name or a path fragment; omit to list files."},
            "tags": _TAGS,
            "paths": _PATHS,
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_FILES_PAGE, "default": 100, "description": f"Files per call (≤ {MAX_K} with a query)."},
            "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "List mode: skip this many files (from next_offset)."},
        },
    },
    output_schema={
        "type": "object",
        "required": ["total", "offset", "files", "stale"],
        "properties": {
            "query": {"type": ["string", "null"]},
            "total": {"type": "integer", "minimum": 0},
            "offset": {"type": "integer", "minimum": 0},
            "next_offset": {"type": ["integer", "null"]},
            "files": {"type": "array", "items": _FILE},
            "stale": _STALE,
            "stale_files": _STALE_FILES,
        },
    },
)

RELATED = ToolSpec(
    name="related",
    title="Follow the knowledge base's links",
    description=f"""The link graph around a file: the passages where it links to other files, the sections it links to, and the files that link back to it (markdown links and [[wikilinks]], one hop).

Use it to find what a document depends on or what refers to it: "what links to the rollback runbook?", "which ADR supersedes this one?". `query` is best a path as `search` returns it (runbooks/rollback.md); a title or words also work (the best-matching files are used).

Returns {{query, tool: "related", results: [{{rank, path, start_line, end_line, location, heading, score, tool, snippet, relation}}], stale, stale_files, notes}}; `relation` says which file links to which. Empty results: the file has no links either way. Limits: k ≤ {MAX_K}. Needs the index (`kb index`).

Example: {{"query": "runbooks/rollback.md"}}""",
    input_schema={
        "type": "object",
        "additionalProperties": False,
        "required": ["query"],
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "A file path relative to the KB root, a title, or words."},
            "k": {"type": "integer", "minimum": 1, "maximum": MAX_K, "default": 10, "description": "How many passages."},
            "tags": _TAGS,
            "paths": _PATHS,
            "full_text": {"type": "boolean", "default": False, "description": "Include each passage's whole text, not only the snippet."},
        },
    },
    output_schema=SEARCH.output_schema,
)

STATUS = ToolSpec(
    name="status",
    title="Knowledge-base and index status",
    description="""Whether the index is fresh and what it was built with — the same facts as `kb status --json`, plus what this server is doing.

Use it when results look outdated or a tool says the index is missing or stale, or to learn which knowledge base this server answers from. Returns {kb_root, index ("fresh" | "stale" | "missing" | "incompatible: …"), stale_files, files_indexed, files_skipped, chunks, fingerprint, embedding_provider, vector_store, vector_store_answers, rg, llm_provider, server: {watch: {enabled, running, updates, last_update, error}, started_at, calls}}. Fix a stale or missing index by running `kb index`, or start the server with --watch, which re-indexes each file as it is saved.

Example: {}""",
    input_schema={"type": "object", "additionalProperties": False, "properties": {}},
    output_schema={
        "type": "object",
        "required": ["kb_root", "index"],
        "properties": {
            "kb_root": {"type": "string"},
            "index": {"type": "string"},
            "stale_files": {"type": "array", "items": {"type": "string"}},
            "server": {"type": "object"},
        },
    },
)

TOOLS: tuple[ToolSpec, ...] = (SEARCH, ASK, READ, FILES, RELATED, STATUS)
TOOLS_BY_NAME: dict[str, ToolSpec] = {t.name: t for t in TOOLS}

INSTRUCTIONS = """This server answers from one local knowledge base of markdown files (docs, notes, runbooks), with line-level citations.

- `search` finds passages (fast, no model): hybrid by default, `grep` for exact identifiers, `vector` for meaning, `files` / `related` for files and links.
- `read` shows the lines around a hit; `files` lists what the knowledge base holds.
- `ask` gives a cited answer, or says the knowledge base does not answer the question (answer_source "none") — then do not guess.
- Cite sources as `path:Lstart-Lend`, as the results give them.
- Results carry `stale: true` when files changed since the last `kb index`; `status` says more."""
