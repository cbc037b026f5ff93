"""Server mode under faults: no server, a server killed in the middle of `kb index`, and what
`kb status` says about the store in either state."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kb_agent.cli import app
from kb_agent.index.build import build_index
from kb_agent.index.manifest import Catalog
from kb_agent.index.vectors import VectorStore
from tests.support.chroma_server import AuthProxy, ChromaServer, dead_url, kb_cmd, kb_env, make_settings
from tests.support.sample import copy_sample

runner = CliRunner()


def one_line_error(output: str, url: str) -> None:
    """Exactly one `error:` message, naming the URL, no traceback (Rich may wrap it on narrow terminals)."""
    flat = " ".join(output.split())
    assert "Traceback" not in output, output
    assert flat.count("error:") == 1, output
    assert url in flat, output
    assert "Chroma server" in flat, output


# ------------------------------------------------------------------ server not running


@pytest.mark.parametrize("argv", [["index"], ["search", "--tool", "vector", "redis failover"], ["search", "redis failover"]])
def test_server_not_running_is_a_clear_error_exit_2(tmp_path: Path, argv: list[str]) -> None:
    kb = copy_sample(tmp_path / "kb")
    if argv[0] == "search":  # an index built earlier against a server that is now gone
        build_index(make_settings(kb))
    url = dead_url()
    res = runner.invoke(app, [*argv, "--kb", str(kb)], env={"KB_CHROMA_URL": url, "KB_EMBEDDING_PROVIDER": "hash"})
    if argv[0] == "search" and res.exit_code == 0:
        pytest.fail(f"search answered without its vector store: {res.output}")
    one_line_error(res.output, url)
    assert res.exit_code == 2, (res.exit_code, res.output)


@pytest.mark.parametrize("tool", ["grep", "files", "related"])
def test_local_tools_work_without_the_server(tmp_path: Path, tool: str) -> None:
    kb = copy_sample(tmp_path / "kb")
    build_index(make_settings(kb))
    res = runner.invoke(app, ["search", "--kb", str(kb), "--tool", tool, "--json", "redis failover"], env={"KB_CHROMA_URL": dead_url(), "KB_EMBEDDING_PROVIDER": "hash"})
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout), res.output


def test_bad_url_is_a_config_error(tmp_path: Path) -> None:
    kb = copy_sample(tmp_path / "kb")
    res = runner.invoke(app, ["index", "--kb", str(kb)], env={"KB_CHROMA_URL": "localhost:8000", "KB_EMBEDDING_PROVIDER": "hash"})
    assert "KB_CHROMA_URL must be an http(s) URL" in " ".join(res.output.split())
    assert res.exit_code == 2, (res.exit_code, res.output)


# ------------------------------------------------------------------ kb status


def test_status_names_the_store_and_whether_it_answers(chroma_server: ChromaServer, tmp_path: Path) -> None:
    kb = copy_sample(tmp_path / "kb")
    # before any index: the server is probed
    res = runner.invoke(app, ["status", "--kb", str(kb), "--json"], env={"KB_CHROMA_URL": chroma_server.url, "KB_EMBEDDING_PROVIDER": "hash"})
    assert res.exit_code == 0, res.output
    st = json.loads(res.stdout)
    assert st["vector_store"] == f"chroma server {chroma_server.url}"
    assert st["vector_store_answers"].startswith("yes"), st
    report = build_index(make_settings(kb, chroma_url=chroma_server.url))

    res = runner.invoke(app, ["status", "--kb", str(kb), "--json"], env={"KB_CHROMA_URL": chroma_server.url, "KB_EMBEDDING_PROVIDER": "hash"})
    assert res.exit_code == 0, res.output
    st = json.loads(res.stdout)
    assert st["vector_store_answers"] == f"yes ({report.chunks_total} vectors)", st
    assert st["vector_collection"].startswith("kb_")

    gone = dead_url()
    res = runner.invoke(app, ["status", "--kb", str(kb), "--json"], env={"KB_CHROMA_URL": gone, "KB_EMBEDDING_PROVIDER": "hash"})
    assert res.exit_code == 0, res.output  # status reports; it does not fail
    st = json.loads(res.stdout)
    assert st["vector_store"] == f"chroma server {gone}"
    assert st["vector_store_answers"].startswith("no: ") and gone in st["vector_store_answers"], st

    # the human table says the same
    res = runner.invoke(app, ["status", "--kb", str(kb)], env={"KB_CHROMA_URL": gone, "KB_EMBEDDING_PROVIDER": "hash"})
    flat = " ".join(res.output.split())
    assert f"vector store chroma server {gone}" in flat and "vector store answers no:" in flat, res.output


def test_status_embedded_store(tmp_path: Path) -> None:
    kb = copy_sample(tmp_path / "kb")
    report = build_index(make_settings(kb))
    res = runner.invoke(app, ["status", "--kb", str(kb), "--json"], env={"KB_EMBEDDING_PROVIDER": "hash"})
    assert res.exit_code == 0, res.output
    st = json.loads(res.stdout)
    assert st["vector_store"] == "embedded chroma (.kb/chroma)"
    assert st["vector_store_answers"] == f"yes ({report.chunks_total} vectors)"


def test_status_does_not_create_a_missing_collection(chroma_server: ChromaServer, tmp_path: Path) -> None:
    """A server whose data was replaced: status says the collection is missing and leaves no empty one behind."""
    kb = copy_sample(tmp_path / "kb")
    settings = make_settings(kb, chroma_url=chroma_server.url)
    build_index(settings)
    cat = Catalog.open(kb / ".kb" / "catalog.sqlite", readonly=True)
    name = cat.get_meta("collection")
    cat.close()
    assert name
    VectorStore(settings, kb / ".kb", name).drop()
    res = runner.invoke(app, ["status", "--kb", str(kb), "--json"], env={"KB_CHROMA_URL": chroma_server.url, "KB_EMBEDDING_PROVIDER": "hash"})
    st = json.loads(res.stdout)
    assert st["vector_store_answers"].startswith("no: the vector collection") and "missing" in st["vector_store_answers"], st
    import chromadb

    client = chromadb.HttpClient(host="127.0.0.1", port=chroma_server.port)
    assert name not in {c.name for c in client.list_collections()}


def test_status_flags_vectors_out_of_step_with_the_catalog(chroma_server: ChromaServer, tmp_path: Path) -> None:
    kb = copy_sample(tmp_path / "kb")
    settings = make_settings(kb, chroma_url=chroma_server.url)
    report = build_index(settings)
    cat = Catalog.open(kb / ".kb" / "catalog.sqlite", readonly=True)
    name, ids = str(cat.get_meta("collection")), sorted(cat.all_chunk_ids())
    cat.close()
    store = VectorStore(settings, kb / ".kb", name)
    store.upsert(["orphan-1"], [[1.0] + [0.0] * 383], ["gone.md"])  # a killed run's leftover
    st = json.loads(runner.invoke(app, ["status", "--kb", str(kb), "--json"], env={"KB_CHROMA_URL": chroma_server.url, "KB_EMBEDDING_PROVIDER": "hash"}).stdout)
    assert st["vector_store_answers"] == f"yes ({report.chunks_total + 1} vectors, 1 more than the catalog's {report.chunks_total} chunks: run `kb index`)"
    store.delete(["orphan-1", *ids[:3]])  # vectors lost on the server
    st = json.loads(runner.invoke(app, ["status", "--kb", str(kb), "--json"], env={"KB_CHROMA_URL": chroma_server.url, "KB_EMBEDDING_PROVIDER": "hash"}).stdout)
    assert st["vector_store_answers"].endswith(f"but the catalog has {report.chunks_total} chunks: run `kb index --rebuild`)"), st


# ------------------------------------------------------------------ server killed mid-index

N_FILES = 250


def write_generated_kb(root: Path, n: int) -> None:
    for i in range(n):
        d = root / f"team{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        sections = "\n\n".join(
            f"## Section {s}\n\n" + " ".join(f"Service svc{i}-{s} handles request type R{(i * 31 + s * 7 + w) % 997} in region eu{w % 3}." for w in range(12))
            for s in range(4)
        )
        (d / f"note-{i:04d}.md").write_text(f"# Note {i}\n\nGenerated note {i} for the server-kill test.\n\n{sections}\n", encoding="utf-8")


def catalog_files(kb: Path) -> int:
    path = kb / ".kb" / "catalog.sqlite"
    if not path.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.2)
        try:
            return int(conn.execute("SELECT count(*) FROM files").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def test_server_killed_during_index_then_rerun_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    server = ChromaServer(tmp_path / "chroma", tmp_path / "chroma.log")
    server.start()
    kb = tmp_path / "kb"
    write_generated_kb(kb, N_FILES)
    try:
        proc = subprocess.Popen(kb_cmd("index", "--kb", str(kb)), env=kb_env(server.url), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 90
        while catalog_files(kb) < 20 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, f"`kb index` finished before the kill; make the test KB larger\n{proc.stderr.read() if proc.stderr else ''}"
        server.kill()
        _, err = proc.communicate(timeout=60)
        done_at_kill = catalog_files(kb)
        assert proc.returncode == 2, (proc.returncode, err)
        one_line_error(err, server.url)
        # the lexical phase needs no server, so any number of files may be committed; their vectors were not
        assert 0 < done_at_kill <= N_FILES, done_at_kill
        cat = Catalog.open(kb / ".kb" / "catalog.sqlite", readonly=True)
        try:
            assert cat.pending_count() > 0
        finally:
            cat.close()

        server.start()  # same data directory, same port
        rerun = subprocess.run(kb_cmd("index", "--kb", str(kb), "--json"), env=kb_env(server.url), capture_output=True, text=True, timeout=120)
        assert rerun.returncode == 0, rerun.stderr
        report = json.loads(rerun.stdout)
        assert len(report["indexed"]) + report["unchanged"] == N_FILES, report

        settings = make_settings(kb, chroma_url=server.url)
        cat = Catalog.open(kb / ".kb" / "catalog.sqlite", readonly=True)
        try:
            assert cat.get_meta("dirty") == "0"
            assert len(cat.files()) == N_FILES
            live = cat.all_chunk_ids()
            store = VectorStore(settings, kb / ".kb", str(cat.get_meta("collection")))
            assert store.count() == len(live) == report["chunks_total"]  # nothing duplicated, nothing lost
            assert store.all_ids() == live
        finally:
            cat.close()

        again = subprocess.run(kb_cmd("index", "--kb", str(kb), "--json"), env=kb_env(server.url), capture_output=True, text=True, timeout=60)
        assert again.returncode == 0 and json.loads(again.stdout)["unchanged"] == N_FILES, again.stdout + again.stderr
    finally:
        server.stop()


# ------------------------------------------------------------------ auth headers


def test_auth_headers_reach_the_server(chroma_server: ChromaServer, tmp_path: Path) -> None:
    proxy = AuthProxy(chroma_server.url, "Authorization", "Bearer s3cret")
    try:
        kb = copy_sample(tmp_path / "kb")
        env = {"KB_CHROMA_URL": proxy.url, "KB_EMBEDDING_PROVIDER": "hash"}
        res = runner.invoke(app, ["index", "--kb", str(kb)], env=env)
        assert res.exit_code == 2, res.output
        one_line_error(res.output, proxy.url)
        assert "refused the credentials" in " ".join(res.output.split()) and "KB_CHROMA_HEADERS" in res.output
        assert proxy.seen_rejections > 0

        env["KB_CHROMA_HEADERS"] = json.dumps({"Authorization": "Bearer s3cret"})
        res = runner.invoke(app, ["index", "--kb", str(kb), "--json"], env=env)
        assert res.exit_code == 0, res.output
        res = runner.invoke(app, ["search", "--kb", str(kb), "--tool", "vector", "--json", "redis failover"], env=env)
        assert res.exit_code == 0, res.output
        res = runner.invoke(app, ["status", "--kb", str(kb), "--json"], env=env)
        st = json.loads(res.stdout)
        assert st["vector_store_answers"].startswith("yes ("), st
        assert "s3cret" not in res.stdout  # header names are shown, never their values
        assert "Authorization" in st["vector_store"]
    finally:
        proxy.close()
