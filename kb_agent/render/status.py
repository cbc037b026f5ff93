"""`kb status` for people: one `field  value` line per entry of the status mapping, in words.

Values are written as a person reads them (`yes`/`no`, `—`), never as Python values (`False`,
`None`); lines carry no padding after the value, so piped output has no trailing spaces.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kb_agent.render.safe import safe_text

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

# how the state of the index is coloured on a terminal
INDEX_STYLES = {"fresh": "green", "stale": "yellow", "missing": "red", "incompatible": "red", "unreadable": "red"}


def status_value(value: Any) -> str:
    """A status value in words: `yes`/`no` for booleans, `—` for nothing, lists and mappings on one line."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={status_value(v)}" for k, v in value.items()) or "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(status_value(v) for v in value) or "none"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def status_rows(status: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """(label, key, value) per line: the mapping's fields in order, with `vectors_embedded` and
    `vectors_pending` read as one line, `N / TOTAL embedded`, saying what to run when some are missing."""
    rows: list[tuple[str, str, Any]] = []
    for key, value in status.items():
        if key == "vectors_pending":
            continue
        if key == "question_pool" and isinstance(value, Mapping):
            rows.append(("question pool", key, pool_line(value)))
            continue
        if key == "vectors_embedded" and isinstance(value, int):
            pending = status.get("vectors_pending")
            total = value + (pending if isinstance(pending, int) else 0)
            shown = f"{value:,} / {total:,} embedded"
            if isinstance(pending, int) and pending:
                shown += f" ({pending:,} pending: run `kb index` to finish; grep, files and related already see every file)"
            rows.append(("vectors", key, shown))
            continue
        rows.append((key.replace("_", " "), key, value))
    return rows


def status_lines(status: Mapping[str, Any]) -> list[Text]:
    """One line per field: the field name (underscores as spaces), padded, then the value in words."""
    from rich.text import Text

    rows = status_rows(status)
    width = max((len(label) for label, _, _ in rows), default=0)
    lines = []
    for label, key, value in rows:
        line = Text(label.ljust(width + 2), style="bold")
        shown = safe_text(status_value(value), one_line=True) or "—"
        style = INDEX_STYLES.get(shown.split(":", 1)[0].split(" ", 1)[0], "") if key == "index" else ""
        if key == "vectors_embedded" and "pending" in shown:
            style = "yellow"
        line.append(shown, style=style)
        lines.append(line)
    return lines


def render_status(status: Mapping[str, Any], out: Console) -> None:
    """Print the status lines on `out` (never wrapped: a long path stays on its line)."""
    for line in status_lines(status):
        out.print(line, highlight=False, soft_wrap=True)


def pool_line(pool: Mapping[str, Any]) -> str:
    """`model: 240 / 263 chunks (openai:gemma 240) · 712 questions · 12 kept heading questions · 11 without`."""
    with_model = int(pool.get("chunks_with_model_questions", 0))
    fallback = int(pool.get("chunks_fallback", 0))
    without = int(pool.get("chunks_without_model_questions", 0))
    if not with_model:
        line = "heading-derived (`kb index --questions` with a chat model writes model questions)"
        return line + (f" · {fallback:,} chunks got an invalid reply" if fallback else "")
    total = with_model + fallback + without
    models = ", ".join(f"{m} {n:,}" for m, n in dict(pool.get("models", {})).items())
    parts = [f"model: {with_model:,} / {total:,} chunks ({models})", f"{int(pool.get('questions', 0)):,} questions"]
    if fallback:
        parts.append(f"{fallback:,} kept heading questions (invalid reply)")
    if without:
        parts.append(f"{without:,} without model questions yet (`kb index --questions`)")
    return " · ".join(parts)
