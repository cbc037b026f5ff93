"""The retrieval tools behind one facade: what `kb search` and the agent call.

Every tool returns a list of `Evidence` (path, 1-based line range, text, score, tool, heading path),
best first. Opening a Retriever is cheap; Chroma and the embedding model load on first vector use.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kb_agent.names import TOOL_NAMES, ToolName
from kb_agent.types import Evidence, SearchFilters

if TYPE_CHECKING:
    from kb_agent.index.store import IndexReader
    from kb_agent.settings import Settings

TOOLS: tuple[ToolName, ...] = TOOL_NAMES
NO_FILTERS = SearchFilters()
# query embeddings kept per Retriever (the agent asks a few variants of one question)
QUERY_VECTOR_CACHE = 8


class Retriever:
    """Read-side access to one knowledge base and its index.

    Args:
        settings: the loaded Settings (KB root, embedding provider, Chroma URL …).
        require_index: raise IndexNotBuilt when there is no index (grep still works without one).
    """

    def __init__(self, settings: Settings, *, require_index: bool = True) -> None:
        from kb_agent.index.store import IndexReader

        self.settings = settings
        self.root: Path = settings.kb_root()
        self.index: IndexReader = IndexReader.open(settings, self.root, require=require_index)
        self.notices: list[str] = []  # why results are degraded (e.g. vectors unavailable); the CLI prints them once
        self._query_vectors: dict[str, list[float]] = {}

    def notice(self, text: str) -> None:
        """Record a degradation once; callers show `notices` on stderr, never in results. A cause already
        noted is not noted again with another fallback ("…; using grep instead of vector search" and
        "…; hybrid search is using grep only" from two steps of one question are one notice)."""
        cause = text.split("; ", 1)[0]
        if not any(n.split("; ", 1)[0] == cause for n in self.notices):
            self.notices.append(text)

    def refresh(self) -> bool:
        """Pick up a newer index written by another process since this Retriever opened (cheap when
        nothing changed: one SQLite read); see `IndexReader.refresh`. Returns True when it moved."""
        moved = self.index.refresh()
        if moved:
            self._query_vectors.clear()  # a rebuilt index may embed with another model
        return moved

    def query_vector(self, query: str) -> list[float]:
        """The query's embedding, computed once per query (hybrid search needs it for the vector list
        and again for the passages' chunk similarities)."""
        vec = self._query_vectors.get(query)
        if vec is None:
            if len(self._query_vectors) >= QUERY_VECTOR_CACHE:
                self._query_vectors.pop(next(iter(self._query_vectors)))
            vec = self._query_vectors[query] = self.index.embedder.embed_query(query)
        return vec

    def grep(self, query: str, *, k: int = 10, filters: SearchFilters = NO_FILTERS, regex: bool = False) -> list[Evidence]:
        """Exact words, identifiers, config keys, ticket IDs, error codes, commands.

        ripgrep over the KB's files with ±10 lines of context; hits merged into passages
        (≤ 2000 chars) and re-scored with BM25 using whole-KB statistics. Fixed strings
        unless `regex`. Returns [] when nothing matches.
        """
        from kb_agent.retrieval.grep import grep_search

        return grep_search(self, query, k=k, filters=filters, regex=regex)

    def vector(self, query: str, *, k: int = 10, filters: SearchFilters = NO_FILTERS) -> list[Evidence]:
        """Meaning rather than wording: paraphrases, "how do I…", cross-language questions.

        Embedding similarity over indexed chunks (Chroma). Needs the index.
        """
        from kb_agent.errors import VectorsUnavailable
        from kb_agent.retrieval.vector import unavailable_notice, vector_search

        try:
            return vector_search(self, query, k=k, filters=filters)
        except VectorsUnavailable as e:
            self.notice(unavailable_notice(e, "using grep instead of vector search"))
            return self.grep(query, k=k, filters=filters)

    def hybrid(self, query: str, *, k: int = 10, filters: SearchFilters = NO_FILTERS) -> list[Evidence]:
        """The default: grep-BM25 and vector lists fused by Reciprocal Rank Fusion (k=60).

        The same lines found by both tools count once; `explain` holds each tool's rank.
        """
        from kb_agent.retrieval.fusion import hybrid_search

        return hybrid_search(self, query, k=k, filters=filters)

    def files(self, query: str, *, k: int = 10, filters: SearchFilters = NO_FILTERS) -> list[Evidence]:
        """Which files: matches on path, file name, title, aliases and front-matter tags.

        Each result is the file's opening lines (title and first paragraph).
        """
        from kb_agent.retrieval.files import find_files

        return find_files(self, query, k=k, filters=filters)

    def related(self, query: str, *, k: int = 10, filters: SearchFilters = NO_FILTERS) -> list[Evidence]:
        """Files linked to or from the files that match `query` (a path, a title or words).

        Follows markdown links, [[wikilinks]] and backlinks one hop; each result is the linked
        section (the anchor's section when the link has one, else the file's opening lines).
        """
        from kb_agent.retrieval.related import related_search

        return related_search(self, query, k=k, filters=filters)

    def literal_files(self, text: str) -> int:
        """How many KB files hold `text` exactly as written (any case); 0 when none does."""
        from kb_agent.retrieval.grep import literal_file_count

        return literal_file_count(self, text)

    def read_file(self, path: str, start: int = 1, end: int | None = None) -> Evidence:
        """Lines start..end (1-based, inclusive) of a KB file as it is on disk now.

        Raises:
            PathOutsideRoot: the path leaves the KB root (.., absolute, symlink out).
            UsageError: no such file or the range is empty.
        """
        from kb_agent.retrieval.related import read_file

        return read_file(self, path, start, end)

    def search(self, tool: ToolName, query: str, *, k: int = 10, filters: SearchFilters = NO_FILTERS) -> list[Evidence]:
        """Dispatch by tool name (the names `kb search --tool` takes)."""
        fn = {"grep": self.grep, "vector": self.vector, "hybrid": self.hybrid, "files": self.files, "related": self.related}[tool]
        return fn(query, k=k, filters=filters)

    def close(self) -> None:
        self.index.close()

    def __enter__(self) -> Retriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
