"""An answer, its footnotes and its trace for people: markdown and file links on a terminal, plain text otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kb_agent.render.safe import file_link, safe_markup, safe_text

if TYPE_CHECKING:
    from rich.console import Console

    from kb_agent.agent.answer import Answer

# the separator the agent writes before its `[n] path:Lx-Ly` footer (agent/citations.py)
FOOTER_SEPARATOR = "\n\n---\n"
# graph nodes that belong to the retrieval subgraph; the trace indents them under "retrieve"
RETRIEVE_NODES = ("analyze_and_route", "plan", "tool_exec", "grade_evidence")


def answer_body(answer: Answer) -> str:
    """The answer text without the sources footer (the footer is rebuilt from the citations)."""
    if answer.citations:
        cut = answer.text.rfind(FOOTER_SEPARATOR)
        if cut >= 0:
            return answer.text[:cut]
    from kb_agent.agent.citations import strip_footer

    return strip_footer(answer.text)


def answer_plain(answer: Answer) -> str:
    """The answer as plain text: the body, then `---` and one `[n] path:Lx-Ly` line per citation.

    Document and model text is neutralized (`safe_text`); a file name can never add a line.
    """
    if not answer.citations:
        return safe_text(answer.text)
    body = safe_text(answer_body(answer))
    footer = "\n".join(f"[{c.n}] {safe_text(c.location, one_line=True)}" for c in answer.citations)
    return body + FOOTER_SEPARATOR + footer


def render_answer(answer: Answer, *, out: Console, err: Console, root: Path | None, link_format: str = "file") -> None:
    """Print an answer on `out` and its provenance note on `err`.

    On a terminal the body is rendered as markdown (document links shown, not followed) and each
    footnote is an OSC 8 link that opens the cited file at its start line (KB_LINK_FORMAT:
    `file://…#L<line>` by default, or an editor's URL); otherwise plain text.
    """
    if not out.is_terminal:
        write_plain(out, answer_plain(answer))
    else:
        from rich.markdown import Markdown
        from rich.style import Style
        from rich.text import Text

        out.print(Markdown(safe_text(answer_body(answer).rstrip()), hyperlinks=False))
        if answer.citations:
            out.print("[dim]---[/]")
            for c in answer.citations:
                line = Text(f"[{c.n}] ")
                style = Style(link=file_link(root, c.path, c.start_line, link_format=link_format)) if root else Style()
                line.append(safe_text(c.location, one_line=True), style=style)
                out.print(line, highlight=False, soft_wrap=True)
    if answer.answer_source == "llm_fallback":
        err.print(f"[yellow]note:[/] not from the knowledge base ({safe_markup(str(answer.fallback_reason), one_line=True)})", highlight=False)
    elif answer.answer_source == "none":
        err.print(f"[dim]not found: {safe_markup(str(answer.fallback_reason), one_line=True)}[/]", highlight=False)


def write_plain(console: Console, text: str) -> None:
    """`text` and a newline on the console's stream, untouched by rich (pipes and files get the bytes as is)."""
    console.file.write(text + "\n")
    console.file.flush()


def render_trace(answer: Answer, console: Console) -> None:
    """The nested timeline: graph node → plan step → tool call, with durations and notes."""
    con = console
    con.print("[bold]trace[/]")
    in_retrieve = False
    for ev in answer.trace:
        sub = ev.node in RETRIEVE_NODES
        if sub and not in_retrieve:
            con.print("  retrieve")
        in_retrieve = sub
        pad = "    " if sub else "  "
        it = f" [{ev.iteration}]" if sub else ""
        calls = f" · {ev.model_calls} model call{'s' if ev.model_calls != 1 else ''}" if ev.model_calls else ""
        con.print(f"{pad}{safe_markup(ev.node)}{it}  {ev.duration_ms:.1f} ms{calls}  [dim]{safe_markup(ev.detail, one_line=True)}[/]",
                  highlight=False, soft_wrap=True)
        for r in ev.steps:
            con.print(f"{pad}  {safe_markup(r.step_id)} {safe_markup(r.tool)}({safe_markup(repr(r.tool_input))})  {r.status}  {r.duration_ms:.1f} ms"
                      f"  [dim]{safe_markup(r.output_summary, one_line=True)}[/]"
                      + (f"  [red]{safe_markup(r.error or '', one_line=True)}[/]" if r.error else ""), highlight=False, soft_wrap=True)
            for s in r.sub_steps:
                con.print(f"{pad}    {safe_markup(s.tool)} {safe_markup(repr(s.input))}  {s.duration_ms:.1f} ms  {s.hits} hits"
                          + (f"  [red]{safe_markup(s.error, one_line=True)}[/]" if s.error else ""), highlight=False, soft_wrap=True)
        for note in ev.notes:
            con.print(f"{pad}  [yellow]note:[/] {safe_markup(note, one_line=True)}", highlight=False, soft_wrap=True)
    con.print(f"  total  {answer.timings.get('total', 0.0):.1f} ms · {answer.model_calls} model calls · stop: {safe_markup(answer.stop_reason)}",
              highlight=False, soft_wrap=True)
