"""`kb graph`: print the agent's LangGraph as a mermaid diagram (the retrieval subgraph expanded)."""

from __future__ import annotations

import typer

from kb_agent.cli import app


@app.command("graph")
def graph_command() -> None:
    """Print the mermaid diagram of the `kb ask` agent graph."""
    from kb_agent.agent.graph import mermaid

    typer.echo(mermaid().rstrip("\n"))
