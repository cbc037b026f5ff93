"""Search hits for people and for programs.

People: rank, `path:Lx-Ly` linked to the file and line, heading path, a snippet with the matched
query terms highlighted (on a terminal). Programs: `-l` (one path per line) and `--vimgrep`
(`path:line:col:text`, as ripgrep writes it) for fzf, editors and scripts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from kb_agent.render.safe import file_link, safe_markup, safe_text

if TYPE_CHECKING:
    from rich.console import Console

    from kb_agent.types import Evidence

# a hit's snippet: this many lines from just before the first line with a query word, each cut at this width
SNIPPET_LINES = 4
SNIPPET_LINE_CHARS = 200
# query words shorter than this would highlight half of every snippet (CJK words: 2 characters)
MIN_HIGHLIGHT_CHARS = 3
MIN_CJK_HIGHLIGHT_CHARS = 2
HIGHLIGHT_STYLE = "bold yellow"


def match_pattern(query: str, *, regex: bool = False) -> re.Pattern[str] | None:
    """What counts as a match of `query` inside a hit's lines, case-insensitive as grep searches.

    With `regex` the query itself (when Python can read it); otherwise the literal strings grep
    searches for (quoted phrases, identifiers, words as written, CJK words) and the query's own
    words, longest first so `cache.ttl_seconds` wins over `cache`.

    Returns:
        A compiled pattern, or None when nothing in the query can match literally.
    """
    if regex:
        try:
            return re.compile(query, re.IGNORECASE)
        except re.error:
            return None
    terms = highlight_terms(query)
    if not terms:
        return None
    return re.compile("|".join(re.escape(t) for t in terms), re.IGNORECASE)


def highlight_terms(query: str) -> list[str]:
    """The literal terms of `query` worth marking in a snippet, longest first."""
    from kb_agent.index.tokenize import STOPWORDS, has_cjk
    from kb_agent.retrieval.grep import search_terms

    try:
        found = search_terms(query)
    except Exception:  # noqa: BLE001 - highlighting is cosmetic; the hits are printed regardless
        found = []
    words = {w.strip("\"'`“”,.;:!?()[]{}") for w in query.split()}
    terms = {t for t in (*found, *words)
             if t.lower() not in STOPWORDS
             and len(t) >= (MIN_CJK_HIGHLIGHT_CHARS if has_cjk(t) else MIN_HIGHLIGHT_CHARS)}
    return sorted(terms, key=lambda t: (-len(t), t.lower()))


def render_hits(query: str, hits: list[Evidence], *, explain: bool, root: Path, out: Console, err: Console,
                regex: bool = False, link_format: str = "file") -> None:
    """Print ranked hits on `out`, or a `no results` line on `err`.

    On a terminal each location is a hyperlink (KB_LINK_FORMAT) to the hit's first matching line and
    the matched terms are highlighted; elsewhere the output is plain text without escape sequences.
    """
    if not hits:
        err.print(f"no results for {safe_markup(query, one_line=True)}", highlight=False)
        return
    if not out.is_terminal:
        out.file.write(hits_text(query, hits, explain=explain, regex=regex))
        out.file.flush()
        return
    from rich.style import Style
    from rich.text import Text

    from kb_agent.render.json import dumps

    pattern = match_pattern(query, regex=regex)
    for i, ev in enumerate(hits, 1):
        line, col = _first_match(ev, pattern)
        head = Text()
        head.append(f"{i:>2}. ", style="dim")
        link = file_link(root, ev.path, line, col=col, link_format=link_format) if out.is_terminal else None
        head.append(safe_text(ev.location, one_line=True), style=Style(bold=True, color="cyan", link=link))
        head.append(f"  {ev.score:.4g}", style="dim")
        if ev.heading_path:
            head.append("  " + safe_text(" › ".join(ev.heading_path), one_line=True), style="magenta")
        out.print(head, soft_wrap=True)
        focus = ev.focus[0] - ev.start_line if ev.focus else None
        snippet = Text(safe_text(snippet_text(ev.text, pattern, focus=focus)))
        if pattern is not None and out.is_terminal:
            snippet.highlight_regex(pattern, style=HIGHLIGHT_STYLE)
        out.print(snippet, style="", highlight=False, soft_wrap=True)
        if explain and ev.explain:
            out.print(Text("    explain: " + dumps(ev.explain, indent=None), style="dim"), soft_wrap=True)


def hits_text(query: str, hits: list[Evidence], *, explain: bool = False, regex: bool = False) -> str:
    """Ranked hits as plain text, for a pipe or a file: what `render_hits` shows on a terminal, without
    colours, links or escape sequences, each line whole (no wrapping) and without trailing spaces.
    Needs no rich, so a piped `kb search` does not pay for importing it."""
    from kb_agent.render.json import dumps

    pattern = match_pattern(query, regex=regex)
    out: list[str] = []
    for i, ev in enumerate(hits, 1):
        head = f"{i:>2}. {safe_text(ev.location, one_line=True)}  {ev.score:.4g}"
        if ev.heading_path:
            head += "  " + safe_text(" › ".join(ev.heading_path), one_line=True)
        out.append(head)
        focus = ev.focus[0] - ev.start_line if ev.focus else None
        out.append(safe_text(snippet_text(ev.text, pattern, focus=focus)))
        if explain and ev.explain:
            out.append("    explain: " + safe_text(dumps(ev.explain, indent=None), one_line=True))
    return "\n".join(out) + "\n"


def snippet_text(text: str, pattern: re.Pattern[str] | None, max_lines: int = SNIPPET_LINES, *, focus: int | None = None) -> str:
    """The lines of `text` that match best, indented four spaces: from the hit's focus line (0-based offset
    into `text`, chosen by retrieval/windows.py) when it has one, else from just before the first match."""
    lines = text.split("\n")
    hit = next((i for i, ln in enumerate(lines) if pattern is not None and pattern.search(ln)), 0)
    start = focus if focus is not None and 0 <= focus < len(lines) else max(0, hit - 1)
    chosen = [ln[:SNIPPET_LINE_CHARS].rstrip() for ln in lines[start : start + max_lines]]
    return "\n".join("    " + ln if ln else "" for ln in chosen)  # no trailing spaces, not even on blank lines


def _first_match(ev: Evidence, pattern: re.Pattern[str] | None) -> tuple[int, int]:
    """(line, 1-based byte column) a link opens: the first match inside the hit's focus lines, else the
    line matching the most distinct query terms (the earliest on a tie); the focus or first line, column 1, without a match."""
    rows = list(matching_lines(ev, pattern))
    if ev.focus:
        inside = [r for r in rows if ev.focus[0] <= r[0] <= ev.focus[1]]
        if inside:
            return inside[0][0], inside[0][1]
    if rows and pattern is not None:
        best = max(rows, key=lambda r: (len({m.group().lower() for m in pattern.finditer(r[2])}), -r[0]))
        return best[0], best[1]
    return (ev.focus[0] if ev.focus else ev.start_line), 1


def matching_lines(ev: Evidence, pattern: re.Pattern[str] | None) -> Iterator[tuple[int, int, str]]:
    """(line number, 1-based byte column of the first match, line text) for each line of the hit that matches."""
    if pattern is None:
        return
    for offset, text in enumerate(ev.text.split("\n")[: ev.end_line - ev.start_line + 1]):
        text = text.removesuffix("\r")
        m = pattern.search(text)
        if m is not None and m.end() > m.start():
            yield ev.start_line + offset, len(text[: m.start()].encode("utf-8")) + 1, text


def vimgrep_lines(query: str, hits: list[Evidence], *, root: Path, cwd: Path | None = None, regex: bool = False) -> list[str]:
    """`path:line:col:text` for every matching line of every hit, in rank order, each line once.

    Like `rg --vimgrep`: the column is the 1-based byte column of the first match in the line. A hit
    without a literal match (found by meaning) gives one line, its focus line, at column 1. Paths are
    as `output_path` writes them, so an editor started here opens them.
    """
    pattern = match_pattern(query, regex=regex)
    seen: set[tuple[str, int]] = set()
    out: list[str] = []
    for ev in hits:
        rows = list(matching_lines(ev, pattern))
        if not rows:
            line = ev.focus[0] if ev.focus else ev.start_line
            lines = ev.text.split("\n")
            offset = line - ev.start_line
            rows = [(line, 1, lines[offset].removesuffix("\r") if 0 <= offset < len(lines) else "")]
        shown = output_path(root, ev.path, cwd)
        for line, col, text in rows:
            if (ev.path, line) in seen:
                continue
            seen.add((ev.path, line))
            out.append(f"{shown}:{line}:{col}:{safe_text(text)}")
    return out


def files_with_matches(hits: list[Evidence], *, root: Path, cwd: Path | None = None) -> list[str]:
    """The hits' files, one per line, in rank order (each file once, where its best hit ranked)."""
    return [output_path(root, p, cwd) for p in dict.fromkeys(ev.path for ev in hits)]


def output_path(root: Path, rel: str, cwd: Path | None = None) -> str:
    """A KB path as `-l` and `--vimgrep` print it: relative to the current folder, as ripgrep and
    `git grep` do, so `vim -q`, `xargs` and fzf open it from here; absolute when the KB is elsewhere.
    Control characters are made visible, so a file name can never add a line."""
    here = (cwd or Path.cwd()).resolve()
    base = root.resolve()
    target = base / rel
    if base == here or base.is_relative_to(here) or here.is_relative_to(base):
        shown = os.path.relpath(target, here)
    else:
        shown = str(target)
    return safe_text(shown, one_line=True)
