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
        if isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        elif isinstance(value, list):
            value = ", ".join(str(v) for v in value) or "—"
        t.add_row(Text(key.replace("_", " ")), Text(safe_text(str(value), one_line=True)))
    return t
