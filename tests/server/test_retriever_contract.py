"""The same retriever contract, run against the embedded store (chromadb.PersistentClient) and a
real Chroma server (chromadb.HttpClient via KB_CHROMA_URL): only the vector store differs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kb_agent.index.build import build_index
from kb_agent.retrieval.tools import Retriever
from kb_agent.settings import Settings
from kb_agent.types import Evidence, SearchFilters
from tests.support.chroma_server import ChromaServer, make_settings
from tests.support.sample import copy_sample

TOOLS = ("grep", "vector", "hybrid", "files", "related")
# English, Chinese, identifiers, a path: each tool must honour the contract on all of them
QUERIES = {
    "grep": ["redis failover", "OPS-1234", "maxmemory", "证书 续期", "rotate database credentials"],
    "vector": ["how do I fail over redis", "database connection pool exhausted", "值班交接", "rollback a bad deploy"],
    "hybrid": ["redis failover", "kafka consumer lag", "证书过期", "OPS-2051 expired certificate"],
    "files": ["runbooks", "redis", "adr postgres", "术语表"],
    "related": ["runbooks/redis-failover.md", "incident response", "adr/0006-redis-sentinel-over-cluster.md"],
}
# tools whose passages are exact chunks or exact line spans of the file
EXACT_TEXT = ("grep", "vector", "hybrid", "files")


@dataclass
class IndexedKb:
    mode: str
    root: Path
    settings: Settings
    retriever: Retriever


@pytest.fixture(scope="module", params=["embedded", "server"])
def indexed_kb(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[IndexedKb]:
    mode = request.param
    url = ""
    if mode == "server":
        server: ChromaServer = request.getfixturevalue("chroma_server")
        url = server.url
    root = copy_sample(tmp_path_factory.mktemp(f"kb_{mode}") / "kb")
    settings = make_settings(root, chroma_url=url)
    report = build_index(settings)
    assert report.chunks_total > 0 and report.chunks_embedded == report.chunks_total
    with Retriever(settings) as r:
        yield IndexedKb(mode, root, settings, r)


def file_lines(root: Path, rel: str) -> list[str]:
    return (root / rel).read_text(encoding="utf-8-sig").split("\n")


def check_contract(kb: IndexedKb, tool: str, results: list[Evidence], k: int) -> None:
    assert len(results) <= k
    for ev in results:
        assert isinstance(ev, Evidence)
        assert ev.tool == tool or tool == "hybrid", (tool, ev.tool)
        path = kb.root / ev.path
        assert path.is_file() and path.resolve().is_relative_to(kb.root.resolve()), ev.path
        lines = file_lines(kb.root, ev.path)
        assert 1 <= ev.start_line <= ev.end_line <= len(lines), (ev.location, len(lines))
        if tool in EXACT_TEXT:
            assert ev.text == "\n".join(lines[ev.start_line - 1 : ev.end_line]), ev.location
        else:  # related: the linked section — still lines of the file, in order
            body = "\n".join(lines[ev.start_line - 1 : ev.end_line])
            assert ev.text.strip() and ev.text.strip() in body, ev.location
    scores = [ev.score for ev in results]
    assert scores == sorted(scores, reverse=True), scores


@pytest.mark.parametrize("tool", TOOLS)
def test_results_are_valid_evidence(indexed_kb: IndexedKb, tool: str) -> None:
    total = 0
    for q in QUERIES[tool]:
        for k in (1, 3, 10):
            res = indexed_kb.retriever.search(tool, q, k=k)  # type: ignore[arg-type]
            check_contract(indexed_kb, tool, res, k)
            total += len(res)
    assert total > 0, f"{tool} found nothing for any of {QUERIES[tool]}"


@pytest.mark.parametrize("tool", TOOLS)
def test_filters_are_respected(indexed_kb: IndexedKb, tool: str) -> None:
    q = QUERIES[tool][0]
    by_path = indexed_kb.retriever.search(tool, q, k=10, filters=SearchFilters(path_globs=("runbooks/*",)))  # type: ignore[arg-type]
    check_contract(indexed_kb, tool, by_path, 10)
    assert all(ev.path.startswith("runbooks/") for ev in by_path), [ev.path for ev in by_path]
    files = indexed_kb.retriever.index.files()
    by_tag = indexed_kb.retriever.search(tool, q, k=10, filters=SearchFilters(tags=("redis",)))  # type: ignore[arg-type]
    check_contract(indexed_kb, tool, by_tag, 10)
    assert all("redis" in {t.lower() for t in files[ev.path].tags} for ev in by_tag), [ev.path for ev in by_tag]
    # every tool's first query has answers under runbooks/ and tagged redis: an empty list is a filter bug
    assert by_path, f"{tool} found nothing under runbooks/ for {q!r}"
    assert by_tag, f"{tool} found nothing tagged redis for {q!r}"


def test_vector_store_matches_catalog(indexed_kb: IndexedKb) -> None:
    index = indexed_kb.retriever.index
    assert index.catalog is not None
    assert index.store.all_ids() == index.catalog.all_chunk_ids()


def test_server_and_embedded_agree(chroma_server: ChromaServer, tmp_path: Path) -> None:
    """Same files, same embedder: the two stores give the same hits in the same order."""
    roots = {m: copy_sample(tmp_path / m) for m in ("embedded", "server")}
    got: dict[str, list[list[tuple[str, int, int]]]] = {}
    for mode, root in roots.items():
        settings = make_settings(root, chroma_url=chroma_server.url if mode == "server" else "")
        build_index(settings)
        with Retriever(settings) as r:
            got[mode] = [[(e.path, e.start_line, e.end_line) for e in r.search(tool, q, k=5)] for tool in ("vector", "hybrid") for q in QUERIES[tool]]  # type: ignore[arg-type]
    assert got["embedded"] == got["server"]
