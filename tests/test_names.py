"""Tool names, query types and the index folder come from kb_agent.names; nothing keeps its own copy."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import get_args

from kb_agent.names import INDEX_DIR, QUERY_TYPES, TOOL_NAMES, QueryType, ToolName

PACKAGE = Path(__file__).resolve().parents[1] / "kb_agent"
# files that still spell ".kb" while the `render` helper splits the REPL (issue 11); the lead empties
# this after merging — the test fails on an entry that no longer needs it
PENDING_INDEX_DIR_LITERALS: frozenset[str] = frozenset()


def test_names_are_typed_once() -> None:
    assert TOOL_NAMES == get_args(ToolName) == ("hybrid", "grep", "vector", "files", "related")
    assert QUERY_TYPES == get_args(QueryType) == ("exact", "conceptual", "relational", "file_discovery")


def test_every_place_that_lists_tools_agrees() -> None:
    from kb_agent.agent import prompts
    from kb_agent.agent.analyzer import ROUTING_TABLE
    from kb_agent.agent.plan import ALL_TOOLS
    from kb_agent.agent.schemas import RouteDecision
    from kb_agent.chat.session import TOOLS as CHAT_TOOLS
    from kb_agent.checks.spec import TOOL_NAMES as CHECK_TOOLS
    from kb_agent.cli.ask_cmd import TOOL_CHOICES as ASK_CHOICES
    from kb_agent.cli.search_cmd import TOOL_CHOICES as SEARCH_CHOICES
    from kb_agent.retrieval.tools import TOOLS, Retriever

    assert set(ALL_TOOLS) == set(TOOL_NAMES)  # the planner's fallback order is a permutation
    assert TOOLS == CHECK_TOOLS == TOOL_NAMES
    assert set(CHAT_TOOLS) == set(ASK_CHOICES) == set(SEARCH_CHOICES) == {"auto", *TOOL_NAMES}
    assert set(ROUTING_TABLE) == set(QUERY_TYPES)
    assert {t for tools in ROUTING_TABLE.values() for t in tools} <= set(TOOL_NAMES)
    for tool in TOOL_NAMES:
        assert callable(getattr(Retriever, tool)), tool
        assert f'"{tool}"' in inspect.getsource(prompts), f"the analyzer prompt does not offer {tool}"
    schema = RouteDecision.model_json_schema()
    assert set(schema["properties"]["suggested_tools"]["items"]["enum"]) == set(TOOL_NAMES)
    assert set(schema["properties"]["query_type"]["enum"]) == set(QUERY_TYPES)


def test_index_dir_is_spelled_once() -> None:
    spelled = set()
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value == INDEX_DIR:
                spelled.add(rel)
    assert spelled - PENDING_INDEX_DIR_LITERALS == {"names.py"}
    assert PENDING_INDEX_DIR_LITERALS <= spelled, "remove the entries that no longer spell .kb"
