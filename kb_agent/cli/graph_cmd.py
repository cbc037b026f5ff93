"""`kb graph`: print the agent's LangGraph as a mermaid diagram (the retrieval subgraph expanded)."""

from __future__ import annotations

import typer

from kb_agent.cli import app
from kb_agent.cli._common import KbOption


@app.command("graph")
def graph_command(kb: KbOption = None) -> None:  # noqa: ARG001 - every command takes --kb; the graph is the same for all
    """Print the mermaid diagram of the `kb ask` agent graph."""
    from kb_agent.agent.graph import mermaid

    typer.echo(mermaid().rstrip("\n"))
