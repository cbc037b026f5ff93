"""The index fingerprint is derived from the chunking and embedding parameters: changing any of them
asks for `kb index --rebuild` instead of mixing old and new chunks or vectors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import kb_agent.corpus.chunking as chunking
import kb_agent.index.build as build
from kb_agent.errors import IndexIncompatible
from kb_agent.index.build import build_index
from kb_agent.index.fingerprint import current_fingerprint, fingerprint_mismatch, params_digest
from kb_agent.index.store import IndexReader
from tests.support.sample import hash_settings

HASH = {"KB_EMBEDDING_PROVIDER": "hash"}


def test_every_chunking_constant_is_hashed() -> None:
    """A new tuning constant in the chunker must join CHUNKING_PARAMS, or the fingerprint would miss it."""
    constants = {k: v for k, v in vars(chunking).items() if k.isupper() and isinstance(v, (int, float, str, tuple)) and k != "CHUNKING_PARAMS"}
    assert constants, "no constants found"
    for name, value in constants.items():
        assert chunking.CHUNKING_PARAMS.get(name) == value, f"{name} is not in CHUNKING_PARAMS"


def test_embedding_text_params_are_the_ones_used() -> None:
    from kb_agent.index.embeddings import MAX_EMBED_CHARS, clip
    from kb_agent.types import Chunk, Document

    assert build.EMBEDDING_TEXT_PARAMS["max_chars"] == MAX_EMBED_CHARS == len(clip("x" * (MAX_EMBED_CHARS + 5)))
    doc = chunking.parse_document("a.md", "# Title\n\n## Part\n\nbody text\n")
    chunk: Chunk = doc.chunks[-1]
    assert isinstance(doc, Document)
    assert build.embedding_text(doc, len(doc.chunks) - 1) == build.EMBEDDING_TEXT_FORMAT.format(
        head=build.EMBEDDING_HEAD_SEPARATOR.join(h for h in (doc.title, *chunk.heading_path) if h), text=chunk.text
    )


def test_digest_is_stable_and_order_free() -> None:
    assert params_digest({"a": 1, "b": "x"}) == params_digest({"b": "x", "a": 1})
    assert params_digest({"a": 1}) != params_digest({"a": 2})
    fp = current_fingerprint(hash_settings(Path(".")))
    assert set(fp) == {"schema", "tokenizer", "chunking", "embedding", "embedding_text"}
    assert fp["embedding"] == "hash/384"


@pytest.mark.parametrize(
    ("target", "key", "value", "label"),
    [
        (chunking.CHUNKING_PARAMS, "MAX_CHUNK_WEIGHT", 999, "chunking parameters"),
        (chunking.CHUNKING_PARAMS, "rules", 999, "chunking parameters"),
        (build.EMBEDDING_TEXT_PARAMS, "max_chars", 999, "embedding-text format"),
        (build.EMBEDDING_TEXT_PARAMS, "format", "{text}", "embedding-text format"),
    ],
)
def test_changed_parameters_ask_for_a_rebuild(indexed_hash_kb: Path, monkeypatch: pytest.MonkeyPatch, target: dict[str, object], key: str, value: object, label: str) -> None:
    from kb_agent.cli import app

    settings = hash_settings(indexed_hash_kb)
    IndexReader.open(settings, indexed_hash_kb).close()  # compatible as built
    monkeypatch.setitem(target, key, value)

    with pytest.raises(IndexIncompatible, match=f"built with other {label}") as e:
        IndexReader.open(settings, indexed_hash_kb)
    assert e.value.hint and "kb index --rebuild" in e.value.hint
    with pytest.raises(IndexIncompatible):
        build_index(settings, check=True)

    runner = CliRunner()
    res = runner.invoke(app, ["search", "rollback", "--kb", str(indexed_hash_kb)], env=HASH)
    assert res.exit_code == 3 and label in res.output and "kb index --rebuild" in res.output
    res = runner.invoke(app, ["index", "--check", "--kb", str(indexed_hash_kb)], env=HASH)
    assert res.exit_code == 3 and "kb index --rebuild" in res.output
    res = runner.invoke(app, ["status", "--json", "--kb", str(indexed_hash_kb)], env=HASH)
    assert res.exit_code == 3  # an index that cannot be used: reported, and exit 3 as every command needing it
    st = json.loads(res.stdout)
    assert st["index"].startswith(f"incompatible: the index was built with other {label}") and "kb index --rebuild" in st["index"]


def test_rebuild_after_a_parameter_change(sample_kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = hash_settings(sample_kb)
    before = build_index(settings).chunks_total
    monkeypatch.setattr(chunking, "MAX_CHUNK_WEIGHT", 400)
    monkeypatch.setitem(chunking.CHUNKING_PARAMS, "MAX_CHUNK_WEIGHT", 400)
    with pytest.raises(IndexIncompatible):
        build_index(settings)
    after = build_index(settings, rebuild=True).chunks_total
    assert after > before  # smaller chunks, more of them: the rebuild used the new parameter
    IndexReader.open(settings, sample_kb).close()


def test_an_index_from_the_hand_bumped_era_asks_for_a_rebuild() -> None:
    current = current_fingerprint(hash_settings(Path(".")))
    old = {"schema": current["schema"], "chunker": "1", "tokenizer": current["tokenizer"], "embedding": "hash/384"}
    why = fingerprint_mismatch(old, current)
    assert why is not None and why.startswith("other chunking parameters than this version of kb uses (unrecorded vs ")
