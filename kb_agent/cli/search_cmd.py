"""`kb search`: run one retrieval tool and print ranked passages; never calls a chat model."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from kb_agent.cli import app
from kb_agent.cli._common import JsonOption, KbOption, complete_from, err_console, load_settings, out_console, parse_filters, stdout_is_terminal
from kb_agent.names import AUTO_TOOL, TOOL_NAMES

TOOL_CHOICES = (*TOOL_NAMES, AUTO_TOOL)


@app.command("search")
def search_command(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to look for (words, an identifier, a phrase, or `-` to read stdin).", show_default=False)],
    kb: KbOption = None,
    tool: Annotated[str, typer.Option("--tool", "-t", metavar="TOOL", autocompletion=complete_from(TOOL_CHOICES), help="hybrid | grep | vector | files | related | auto (the agent's router picks).")] = "hybrid",
    k: Annotated[int, typer.Option("-k", "--top", metavar="N", help="How many results.", min=1, max=200)] = 10,
    tag: Annotated[Optional[list[str]], typer.Option("--tag", metavar="TAG", help="Only files with this front-matter tag (repeatable).")] = None,
    path: Annotated[Optional[list[str]], typer.Option("--path", metavar="GLOB", help="Only files matching this glob (repeatable).")] = None,
    regex: Annotated[bool, typer.Option("--regex", help="grep: treat the query as a regular expression.")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Show each tool's rank and the RRF contribution.")] = False,
    json_out: JsonOption = False,
    files_only: Annotated[bool, typer.Option("--files-with-matches", "-l", help="Print only the hits' files, one per line, best first.")] = False,
    vimgrep: Annotated[bool, typer.Option("--vimgrep", help="Print path:line:col:text for every matching line (as `rg --vimgrep`).")] = False,
) -> None:
    """Search the knowledge base and print path:Lx-Ly, heading and snippet for each hit."""
    import sys

    from kb_agent.errors import ExitCode, UsageError
    from kb_agent.retrieval.query import clean_query
    from kb_agent.retrieval.tools import Retriever

    if tool not in TOOL_CHOICES:
        raise UsageError(f"unknown tool {tool!r}", hint=f"choose one of: {', '.join(TOOL_CHOICES)}")
    formats = [name for name, on in (("--json", json_out), ("--files-with-matches", files_only), ("--vimgrep", vimgrep)) if on]
    if len(formats) > 1:
        raise UsageError(f"{' and '.join(formats)} are alternatives", hint="pick one output format")
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
        notices = list(r.notices)
    for note in notices:  # e.g. vectors unavailable on a read-only KB: said once, on stderr
        from kb_agent.render.safe import safe_markup

        err_console().print(f"[yellow]note:[/] {safe_markup(note, one_line=True)}", highlight=False, soft_wrap=True)
    root = settings.kb_root()
    if json_out:
        from kb_agent.render.json import dumps, evidence_dict

        typer.echo(dumps({"query": q, "tool": chosen, "results": [evidence_dict(ev, rank=i, explain=True) for i, ev in enumerate(hits, 1)]}))
    elif files_only or vimgrep:
        from kb_agent.render.answer import write_plain
        from kb_agent.render.search import files_with_matches, vimgrep_lines

        lines = files_with_matches(hits, root=root) if files_only else vimgrep_lines(q, hits, root=root, regex=regex)
        if lines:
            write_plain(out_console(), "\n".join(lines))
    elif hits and not stdout_is_terminal():  # a pipe or a file: plain text, without loading rich
        from kb_agent.render.search import hits_text

        sys.stdout.write(hits_text(q, hits, explain=explain, regex=regex))
        sys.stdout.flush()
    else:
        from kb_agent.render.search import render_hits

        render_hits(q, hits, explain=explain, root=root, out=out_console(), err=err_console(), regex=regex, link_format=settings.link_format)
    if not hits:
        raise typer.Exit(int(ExitCode.NOT_FOUND))


def _auto_tool(q: str) -> str:
    from kb_agent.agent.analyzer import analyze
    from kb_agent.names import PRIMARY_TOOL

    return PRIMARY_TOOL.get(analyze(q).query_type, "hybrid")
