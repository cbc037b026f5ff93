"""Search hits for people: rank, `path:Lx-Ly` linked to the file and line, heading path, a snippet with the query words highlighted."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kb_agent.render.safe import file_link, safe_markup, safe_text

if TYPE_CHECKING:
    from rich.console import Console

    from kb_agent.types import Evidence

# a hit's snippet: this many lines from just before the first line with a query word, each cut at this width
SNIPPET_LINES = 4
SNIPPET_LINE_CHARS = 200
# query words shorter than this would highlight half of every snippet
MIN_HIGHLIGHT_CHARS = 3


def render_hits(query: str, hits: list[Evidence], *, explain: bool, root: Path, out: Console, err: Console) -> None:
    """Print ranked hits on `out`, or a `no results` line on `err`."""
    from rich.style import Style
    from rich.text import Text

    from kb_agent.index.tokenize import tokenize
    from kb_agent.render.json import dumps

    if not hits:
        err.print(f"no results for {safe_markup(query, one_line=True)}", highlight=False)
        return
    words = sorted({w for w in query.split() if len(w) >= MIN_HIGHLIGHT_CHARS}
                   | {t for t in tokenize(query, drop_stopwords=True) if len(t) >= MIN_HIGHLIGHT_CHARS}, key=len, reverse=True)
    for i, ev in enumerate(hits, 1):
        head = Text()
        head.append(f"{i:>2}. ", style="dim")
        line = ev.focus[0] if ev.focus else ev.start_line
        head.append(safe_text(ev.location, one_line=True), style=Style(bold=True, color="cyan", link=file_link(root, ev.path, line)))
        head.append(f"  {ev.score:.4g}", style="dim")
        if ev.heading_path:
            head.append("  " + safe_text(" › ".join(ev.heading_path), one_line=True), style="magenta")
        out.print(head)
        focus = ev.focus[0] - ev.start_line if ev.focus else None
        snippet = Text(safe_text(snippet_text(ev.text, words, focus=focus)))
        for w in words:
            snippet.highlight_words([safe_text(w)], style="bold yellow", case_sensitive=False)
        out.print(snippet, style="", highlight=False)
        if explain and ev.explain:
            out.print(Text("    explain: " + dumps(ev.explain, indent=None), style="dim"))


def snippet_text(text: str, words: list[str], max_lines: int = SNIPPET_LINES, *, focus: int | None = None) -> str:
    """The lines of `text` that match best, indented four spaces: from the hit's focus line (0-based offset
    into `text`, chosen by retrieval/windows.py) when it has one, else from just before the first query word."""
    lines = text.split("\n")
    low = [ln.lower() for ln in lines]
    hit = next((i for i, ln in enumerate(low) if any(w.lower() in ln for w in words)), 0)
    start = focus if focus is not None and 0 <= focus < len(lines) else max(0, hit - 1)
    chosen = [ln[:SNIPPET_LINE_CHARS] for ln in lines[start : start + max_lines]]
    return "\n".join("    " + ln for ln in chosen)
