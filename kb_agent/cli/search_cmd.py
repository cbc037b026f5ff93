"""`kb search`: run one retrieval tool and print ranked passages; never calls a chat model."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from kb_agent.cli import app
from kb_agent.cli._common import JsonOption, KbOption, load_settings, out_console, parse_filters

if TYPE_CHECKING:
    from kb_agent.types import Evidence

TOOL_CHOICES = ("hybrid", "grep", "vector", "files", "related", "auto")


@app.command("search")
def search_command(
    query: Annotated[str, typer.Argument(help="What to look for (words, an identifier, a phrase, or `-` to read stdin).", show_default=False)],
    kb: KbOption = None,
    tool: Annotated[str, typer.Option("--tool", "-t", help="hybrid | grep | vector | files | related | auto (the agent's router picks).")] = "hybrid",
    k: Annotated[int, typer.Option("-k", "--top", help="How many results.", min=1, max=200)] = 10,
    tag: Annotated[Optional[list[str]], typer.Option("--tag", help="Only files with this front-matter tag (repeatable).")] = None,
    path: Annotated[Optional[list[str]], typer.Option("--path", help="Only files matching this glob (repeatable).")] = None,
    regex: Annotated[bool, typer.Option("--regex", help="grep: treat the query as a regular expression.")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Show each tool's rank and the RRF contribution.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Search the knowledge base and print path:Lx-Ly, heading and snippet for each hit."""
    import sys

    from kb_agent.errors import ExitCode, UsageError
    from kb_agent.retrieval.query import clean_query
    from kb_agent.retrieval.tools import Retriever

    if tool not in TOOL_CHOICES:
        raise UsageError(f"unknown tool {tool!r}", hint=f"choose one of: {', '.join(TOOL_CHOICES)}")
    if query == "-":
        query = sys.stdin.read()
    q = clean_query(query)
    settings = load_settings(kb)
    filters = parse_filters(tag, path)
    chosen = tool
    with Retriever(settings, require_index=tool not in ("grep",)) as r:
        if tool == "auto":
            chosen = _auto_tool(q)
        if chosen == "grep":
            hits = r.grep(q, k=k, filters=filters, regex=regex)  # type: ignore[arg-type]
        else:
            hits = r.search(chosen, q, k=k, filters=filters)  # type: ignore[arg-type]
    if json_out:
        typer.echo(json.dumps({"query": q, "tool": chosen, "results": [evidence_dict(i, ev, explain=True) for i, ev in enumerate(hits, 1)]}, ensure_ascii=False, indent=2))
    else:
        render_hits(q, hits, explain=explain, root=str(settings.kb_root()))
    if not hits:
        raise typer.Exit(int(ExitCode.NOT_FOUND))


def _auto_tool(q: str) -> str:
    try:
        from kb_agent.agent.analyzer import analyze
    except ImportError:
        return "hybrid"
    route = analyze(q)
    table = {"exact": "grep", "conceptual": "hybrid", "relational": "related", "file_discovery": "files"}
    return table.get(str(getattr(route, "query_type", "conceptual")), "hybrid")


def evidence_dict(rank: int, ev: Evidence, *, explain: bool = False) -> dict[str, object]:
    d: dict[str, object] = {
        "rank": rank, "path": ev.path, "start_line": ev.start_line, "end_line": ev.end_line, "location": ev.location,
        "heading_path": list(ev.heading_path), "score": ev.score, "tool": ev.tool, "text": ev.text,
    }
    if ev.focus:
        d["focus"] = list(ev.focus)
    if explain:
        d["explain"] = ev.explain
    return d


def render_hits(query: str, hits: list[Evidence], *, explain: bool, root: str) -> None:
    from rich.markup import escape
    from rich.text import Text

    from kb_agent.cli._common import err_console
    from kb_agent.index.tokenize import tokenize

    con = out_console()
    if not hits:
        err_console().print(f"no results for {escape(query)!s}", highlight=False)
        return
    words = sorted({w for w in query.split() if len(w) > 2} | {t for t in tokenize(query, drop_stopwords=True) if len(t) > 2}, key=len, reverse=True)
    for i, ev in enumerate(hits, 1):
        head = Text()
        head.append(f"{i:>2}. ", style="dim")
        head.append(ev.location, style=f"bold cyan link file://{root}/{ev.path}")
        head.append(f"  {ev.score:.4g}", style="dim")
        if ev.heading_path:
            head.append("  " + " › ".join(ev.heading_path), style="magenta")
        con.print(head)
        snippet = Text(_snippet(ev.text, words, (ev.focus[0] - ev.start_line) if ev.focus else None))
        for w in words:
            snippet.highlight_words([w], style="bold yellow", case_sensitive=False)
        con.print(snippet, style="", highlight=False)
        if explain and ev.explain:
            con.print(Text("    explain: " + json.dumps(ev.explain, ensure_ascii=False), style="dim"))
    del escape


def _snippet(text: str, words: list[str], focus: int | None = None, max_lines: int = 4) -> str:
    lines = [ln for ln in text.split("\n")]
    low = [ln.lower() for ln in lines]
    hit = next((i for i, ln in enumerate(low) if any(w.lower() in ln for w in words)), 0)
    start = focus if focus is not None and 0 <= focus < len(lines) else max(0, hit - 1)
    chosen = [ln[:200] for ln in lines[start : start + max_lines]]
    return "\n".join("    " + ln for ln in chosen)
