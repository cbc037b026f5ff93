"""Test-only entry point: `kb chat` whose retrieval stalls for questions containing "slowly", so a
test can press Ctrl-C mid-answer deterministically. Usage: python slow_chat.py KB_DIR [THREAD]."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from kb_agent.types import Evidence, SearchFilters

# long enough that Ctrl-C always lands mid-answer
STALL_S = 30.0


class SlowTools:
    """The real retriever, except that a search for a query with "slowly" in it sleeps first."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def search(self, tool: Any, query: str, *, k: int = 10, filters: SearchFilters = SearchFilters()) -> list[Evidence]:
        if "slowly" in query.lower():
            time.sleep(STALL_S)
        result: list[Evidence] = self.inner.search(tool, query, k=k, filters=filters)
        return result

    def read_file(self, path: str, start: int = 1, end: int | None = None) -> Evidence:
        result: Evidence = self.inner.read_file(path, start, end)
        return result


def main() -> None:
    from kb_agent.chat.repl import run_chat
    from kb_agent.cli._common import lingering_worker_threads, load_settings
    from kb_agent.retrieval.tools import Retriever

    settings = load_settings(Path(sys.argv[1]))
    thread = sys.argv[2] if len(sys.argv) > 2 else None
    code, busy = run_chat(settings, thread=thread, tools=SlowTools(Retriever(settings)))
    sys.stdout.flush()
    sys.stderr.flush()
    # the same exit rule as kb_agent/cli/chat_cmd.py
    os._exit(code) if busy or lingering_worker_threads() else sys.exit(code)


if __name__ == "__main__":
    main()
