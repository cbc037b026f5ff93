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


# KB_LINK_FORMAT: where a terminal hyperlink (OSC 8) on a footnote or a search hit points. `{path}` is
# the file's absolute path, percent-encoded (so no character of a file name can end the link early);
# `{line}` and `{col}` are 1-based. "none" prints no links. Any other value is a custom template.
LINK_PRESETS: Final[dict[str, str]] = {
    "file": "file://{path}#L{line}",
    "vscode": "vscode://file{path}:{line}:{col}",
    "cursor": "cursor://file{path}:{line}:{col}",
    "idea": "idea://open?file={path}&line={line}",
    "jetbrains": "idea://open?file={path}&line={line}",
    "sublime": "subl://open?url=file://{path}&line={line}&column={col}",
    "txmt": "txmt://open?url=file://{path}&line={line}&column={col}",
    "textmate": "txmt://open?url=file://{path}&line={line}&column={col}",
    "none": "",
}
LINK_FIELDS: Final = ("path", "line", "col")


def link_template(link_format: str) -> str:
    """The template for a KB_LINK_FORMAT value: a preset's (by name, any case), else the value itself."""
    return LINK_PRESETS.get(link_format.strip().lower(), link_format)


def link_format_problem(link_format: str) -> str | None:
    """Why a KB_LINK_FORMAT value cannot be used (None when it can): presets always can; a custom
    template needs a URL scheme, `{path}`, and no other fields than {path}, {line}, {col}."""
    import re
    import string

    if link_format.strip().lower() in LINK_PRESETS:
        return None
    if not re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", link_format):
        return f"expected a preset ({', '.join(LINK_PRESETS)}) or a URL template such as vscode://file{{path}}:{{line}}"
    if re.search(r"[\x00-\x20\x7f-\x9f]", link_format):
        return "a link template cannot hold spaces or control characters"
    try:
        fields = [(name, conv, spec) for _, name, spec, conv in string.Formatter().parse(link_format) if name is not None]
    except ValueError as e:
        return f"not a valid template: {e}"
    for name, conv, spec in fields:
        if name not in LINK_FIELDS or conv or spec:
            return f"unknown field {{{name}}} in the link template (use {{path}}, {{line}}, {{col}})"
    if "path" not in {name for name, _, _ in fields}:
        return "a link template needs {path}"
    return None
