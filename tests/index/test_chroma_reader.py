"""The direct reader of an embedded store (Chroma's Rust core, no `import chromadb`): the same hits as
chromadb's client, the client used instead whenever the direct reader cannot open a store."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kb_agent.index.chroma_reader import EmbeddedReader, ReaderUnavailable
from kb_agent.index.embeddings import get_embedder
from kb_agent.index.manifest import Catalog
from kb_agent.index.vectors import VectorStore
from tests.support.sample import hash_settings, kb_free_env

QUERIES = ["how do I roll back a deploy", "cache.ttl_seconds", "缓存的默认过期时间", "redis failover", "on-call handoff",
           "OPS-2051", "zzz nothing like this", "database backup restore", "feature flags", "TLS certificate expired"]


def collection(root: Path) -> str:
    cat = Catalog.open(root / ".kb" / "catalog.sqlite", readonly=True)
    try:
        name = cat.get_meta("collection")
    finally:
        cat.close()
    assert name
    return name


def same_hits(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> bool:
    """Equal scores in order, and equal ids at each score — except among the tie cut off at k, where
    HNSW may return any of the tied chunks (the hash embedder ties often; vector_search orders ties)."""
    if [round(s, 6) for _, s in a] != [round(s, 6) for _, s in b]:
        return False
    last = round(a[-1][1], 6) if a else None
    def levels(hits: list[tuple[str, float]]) -> dict[float, set[str]]:
        out: dict[float, set[str]] = {}
        for cid, score in hits:
            if round(score, 6) != last:
                out.setdefault(round(score, 6), set()).add(cid)
        return out
    return levels(a) == levels(b)


def test_hits_equal_chromadbs_client(indexed_hash_kb: Path) -> None:
    settings = hash_settings(indexed_hash_kb)
    name = collection(indexed_hash_kb)
    direct = EmbeddedReader(indexed_hash_kb / ".kb", name)
    client = VectorStore(settings, indexed_hash_kb / ".kb", name, create=False)
    embed = get_embedder(settings)
    assert direct.count() == client.count() > 100
    some = sorted(client.all_ids())[:50] + ["not-a-chunk-id"]
    assert direct.existing(some) == client.existing(some) == set(some[:50])
    filters: list[set[str] | None] = [None, {"faq.md"}, {"runbooks/rollback.md", "reference/config.md", "zh/cache-design.md"}, set(), {"no/such.md"}]
    for q in QUERIES:
        vec = embed.embed_query(q)
        for k in (1, 5, 35, 500):
            for paths in filters:
                assert same_hits(direct.query(vec, k, paths), client.query(vec, k, paths)), (q, k, paths)
        assert direct.query(vec, 500) == sorted(direct.query(vec, 500), key=lambda h: -h[1])


def test_a_search_process_never_imports_chromadb_for_an_embedded_store(indexed_hash_kb: Path) -> None:
    code = ("import sys\nfrom kb_agent.retrieval.tools import Retriever\nfrom tests.support.sample import hash_settings\n"
            f"r = Retriever(hash_settings({str(indexed_hash_kb)!r}))\n"
            "hits = r.search('hybrid', 'how do I roll back a deploy', k=5)\n"
            "print(len(hits), type(r.index.store).__name__, 'chromadb' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=kb_free_env(),
                         cwd=Path(__file__).resolve().parents[2]).stdout.split()
    assert out == ["5", "EmbeddedReader", "False"], out


def test_what_the_direct_reader_cannot_open_goes_to_chromadbs_client(indexed_hash_kb: Path, tmp_path: Path) -> None:
    from kb_agent.index.store import _direct_reader

    with pytest.raises(ReaderUnavailable):
        EmbeddedReader(tmp_path, "kb_nothing")  # no store
    with pytest.raises(ReaderUnavailable):
        EmbeddedReader(indexed_hash_kb / ".kb", "kb_no_such_collection")
    settings = hash_settings(indexed_hash_kb)
    import chromadb  # noqa: F401 - this session has it loaded already (it indexed in-process)

    assert _direct_reader(settings, indexed_hash_kb / ".kb", collection(indexed_hash_kb)) is None  # then the client
    server = hash_settings(indexed_hash_kb, chroma_url="http://127.0.0.1:9")
    assert _direct_reader(server, indexed_hash_kb / ".kb", collection(indexed_hash_kb)) is None  # a server: chromadb's HttpClient


@pytest.mark.slow
def test_hits_equal_chromadbs_client_with_the_real_model(indexed_e5_kb: Path) -> None:
    from kb_agent.settings import Settings

    settings = Settings(root=indexed_e5_kb, _env_file=None)  # type: ignore[call-arg]
    name = collection(indexed_e5_kb)
    direct = EmbeddedReader(indexed_e5_kb / ".kb", name)
    client = VectorStore(settings, indexed_e5_kb / ".kb", name, create=False)
    embed = get_embedder(settings)
    for q in QUERIES:
        vec = embed.embed_query(q)
        for k in (5, 35):
            for paths in (None, {"faq.md", "runbooks/rollback.md", "zh/cache-design.md"}):
                assert direct.query(vec, k, paths) == client.query(vec, k, paths), (q, k, paths)


@pytest.mark.slow
def test_every_process_opens_the_same_graph(indexed_e5_kb: Path) -> None:
    """Chroma re-inserts records the graph on disk does not hold each time a process opens the store, and
    that graph differs between processes; kb's collections keep the unsaved tail in Chroma's exact buffer,
    so readers opened apart (here: three) return the same top 35 for any query, not only the first ranks."""
    import random

    from kb_agent.settings import Settings

    name = collection(indexed_e5_kb)
    client = VectorStore(Settings(root=indexed_e5_kb, _env_file=None), indexed_e5_kb / ".kb", name, create=False)  # type: ignore[call-arg]
    vectors = client._col.get(include=["embeddings"])["embeddings"]
    assert len(vectors) > 150  # more than one sync threshold, so part of the graph comes from disk
    rng = random.Random(7)
    queries = []
    for _ in range(40):  # between two chunks: queries whose neighbours are far down the graph
        a, b = rng.sample(range(len(vectors)), 2)
        queries.append([float(x - y) for x, y in zip(vectors[a], vectors[b], strict=True)])
    readers = [EmbeddedReader(indexed_e5_kb / ".kb", name) for _ in range(3)]
    for q in queries:
        first = readers[0].query(q, 35)
        assert all(r.query(q, 35) == first for r in readers[1:])


def test_a_collection_from_an_older_kb_gets_the_writers_sync_threshold(tmp_path: Path) -> None:
    import chromadb

    from kb_agent.index.vectors import HNSW_CONFIG

    index_dir = tmp_path / ".kb"
    old = chromadb.PersistentClient(path=str(index_dir / "chroma"))
    old.create_collection("kb_older", metadata={"hnsw:space": "cosine"}, embedding_function=None)  # as kb wrote it before
    assert old.get_collection("kb_older").configuration_json["hnsw"]["sync_threshold"] == 1000
    store = VectorStore(hash_settings(tmp_path), index_dir, "kb_older", create=True)
    hnsw = store._col.configuration_json["hnsw"]
    assert (hnsw["space"], hnsw["sync_threshold"]) == ("cosine", HNSW_CONFIG["sync_threshold"])
    fresh = VectorStore(hash_settings(tmp_path), index_dir, "kb_newer", create=True)
    assert fresh._col.configuration_json["hnsw"]["sync_threshold"] == HNSW_CONFIG["sync_threshold"]


def test_clients_opened_at_once_in_one_process_all_work(tmp_path: Path) -> None:
    """`kb mcp --watch` opens Chroma clients from two threads at once (the watcher's update, a search asking for a
    fresh client). Chroma's per-folder system cache is not thread-safe: such clients failed with "KeyError: '<path>'"
    or "Could not connect to tenant default_tenant" (CI, tests/mcp/test_watch.py; here 4–10 of 240 opens). kb opens
    and drops those systems under one lock."""
    import threading

    from kb_agent.index.build import build_index
    from kb_agent.index.vectors import _client

    root = tmp_path / "kb"
    root.mkdir()
    for i in range(20):
        (root / f"n{i}.md").write_text(f"# N {i}\n\nEntry {i}.\n", encoding="utf-8")
    settings = hash_settings(root)
    build_index(settings)  # in this process, as the watcher does: its writer's system is the cached one
    errors: list[str] = []

    def opens(fresh: bool) -> None:
        for _ in range(30):
            try:
                _client(settings, root / ".kb", readonly=True, fresh=fresh).list_collections()
            except BaseException as e:  # noqa: BLE001 - every failure is the finding
                errors.append(f"{type(e).__name__}: {e}")

    threads = [threading.Thread(target=opens, args=(i % 2 == 0,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]


def _unsaved(chroma_dir: Path) -> int:
    """Records the HNSW graph on disk does not hold (Chroma re-inserts them in every process that opens it)."""
    import sqlite3

    conn = sqlite3.connect(chroma_dir / "chroma.sqlite3")
    try:
        (top,) = conn.execute("SELECT max(seq_id) FROM embeddings_queue").fetchone()
        saved = conn.execute("SELECT m.seq_id FROM max_seq_id m JOIN segments s ON s.id = m.segment_id WHERE s.scope = 'VECTOR'").fetchone()
    finally:
        conn.close()
    return int(top or 0) - int(saved[0] if saved else 0)


def test_settling_an_older_collection_writes_its_graph_to_disk(tmp_path: Path) -> None:
    """An older kb's collection (sync threshold 1,000) keeps its last records out of the graph on disk, and
    every process re-inserts them into a graph of its own; one `kb index` settles it once (all records on disk)."""
    import random

    from kb_agent.index.build import STORE_SETTLED, build_index
    from kb_agent.index.vectors import HNSW_CONFIG


    root = tmp_path / "kb"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nSome text about caches.\n", encoding="utf-8")
    build_index(hash_settings(root))
    index_dir = root / ".kb"
    name = collection(root)
    # replace the collection by one as an older kb wrote it: default threshold, 300 records never saved
    old = VectorStore(hash_settings(root), index_dir, name)._client  # kb's own client of this store
    old.delete_collection(name)
    col = old.create_collection(name, metadata={"hnsw:space": "cosine"}, embedding_function=None)
    rng = random.Random(3)
    dim = len(get_embedder(hash_settings(root)).embed_query("x"))
    col.add(ids=[f"id{i}" for i in range(300)], embeddings=[[rng.random() for _ in range(dim)] for _ in range(300)], metadatas=[{"path": "a.md"}] * 300)
    assert _unsaved(index_dir / "chroma") >= 200, "the premise: an older collection leaves its records unsaved"
    cat = Catalog.open(index_dir / "catalog.sqlite")
    cat.conn.execute("DELETE FROM meta WHERE key = 'store_settled'")
    cat.conn.commit()
    cat.close()
    del col, old

    # a later `kb index`, in a process of its own; nothing changed: the quiet path settles the store
    subprocess.run([sys.executable, "-m", "kb_agent", "index", "--kb", str(root)], check=True, capture_output=True, cwd=tmp_path,
                   env=kb_free_env(KB_EMBEDDING_PROVIDER="hash"))
    assert _unsaved(index_dir / "chroma") < HNSW_CONFIG["sync_threshold"]
    cat = Catalog.open(index_dir / "catalog.sqlite", readonly=True)
    try:
        assert cat.get_meta("store_settled") == STORE_SETTLED
    finally:
        cat.close()
