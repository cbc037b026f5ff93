"""Names kb is built from, each typed in one place: retrieval tools, query types, the index folder.

Provider names are not here: the LLM and embedder registries own them (a plug-in adds its own).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal, get_args

ToolName = Literal["hybrid", "grep", "vector", "files", "related"]
TOOL_NAMES: Final[tuple[ToolName, ...]] = get_args(ToolName)
# what a search/ask/chat caller may name: a tool, or "auto" for the agent's router
AUTO_TOOL: Final = "auto"

QueryType = Literal["exact", "conceptual", "relational", "file_discovery"]
QUERY_TYPES: Final[tuple[QueryType, ...]] = get_args(QueryType)
# DESIGN.md's routing table: the first tool for each query type (`kb search --tool auto`)
PRIMARY_TOOL: Final[dict[QueryType, ToolName]] = {
    "exact": "grep", "conceptual": "hybrid", "relational": "related", "file_discovery": "files",
}

# the index folder inside a knowledge base: catalog, vectors, chat threads, audit log
INDEX_DIR: Final = ".kb"


def index_dir(root: Path) -> Path:
    """Where the index of the knowledge base at `root` lives."""
    return root / INDEX_DIR
