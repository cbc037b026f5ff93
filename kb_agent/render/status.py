"""`kb status` for people: one row per field of the status mapping."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kb_agent.render.safe import safe_text

if TYPE_CHECKING:
    from rich.table import Table


def status_table(status: Mapping[str, Any]) -> Table:
    """A two-column table (field, value); nested mappings and lists flattened to one line."""
    from rich.table import Table
    from rich.text import Text

    t = Table(show_header=False, box=None, pad_edge=False)
    t.add_column(style="bold")
    t.add_column()
    for key, value in status.items():
        if key == "question_pool" and isinstance(value, dict):
            value = pool_line(value)
        elif isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        elif isinstance(value, list):
            value = ", ".join(str(v) for v in value) or "—"
        t.add_row(Text(key.replace("_", " ")), Text(safe_text(str(value), one_line=True)))
    return t


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
