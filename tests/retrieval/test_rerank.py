"""Passage ranking after fusion (retrieval/rerank.py): one combined score over the fused hits and the
windows of the top files, on a small KB with real rg and real Chroma (hash embedder)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kb_agent.index.build import build_index
from kb_agent.retrieval import rerank
from kb_agent.retrieval.rerank import rank_passages
from kb_agent.retrieval.tools import Retriever
from kb_agent.types import Evidence
from tests.support.sample import hash_settings

FILLER = "\n".join(f"Note {i}: the team keeps the general layout of the service in this file." for i in range(24))
# a long page: its answer is a description line and the command under it, far from the top
GUIDE = f"""# Operations guide

## Overview

{FILLER}

## Backups

{FILLER}

- Take a snapshot of the whole cluster into the bucket:

```shell
tiup br backup full --storage s3://backups/snap
```

{FILLER}

## Upgrades

Upgrades are rolled out one node at a time.
"""
# a short page that says the question's commonest word many times and nothing else of it
CLUSTER = """# Cluster

The cluster has nodes. Every cluster node is a cluster member; the cluster is the cluster.
"""
# a short section with one question word, beside a window that holds them all
TINY = """# Glossary

## Snapshot

Snapshot: a whole copy, taken at once. A snapshot.
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rerank") / "kb"
    root.mkdir()
    (root / "guide.md").write_text(GUIDE, encoding="utf-8")
    (root / "cluster.md").write_text(CLUSTER, encoding="utf-8")
    (root / "glossary.md").write_text(TINY, encoding="utf-8")
    build_index(hash_settings(root))
    return root


@pytest.fixture()
def r(kb: Path) -> Retriever:
    with Retriever(hash_settings(kb)) as retriever:
        yield retriever  # type: ignore[misc]


def _line(root: Path, path: str, needle: str) -> int:
    return next(i for i, ln in enumerate((root / path).read_text(encoding="utf-8").split("\n"), 1) if needle in ln)


def _whole(root: Path, path: str, score: float) -> Evidence:
    lines = (root / path).read_text(encoding="utf-8").rstrip("\n").split("\n")
    return Evidence(path=path, start_line=1, end_line=len(lines), text="\n".join(lines), score=score, tool="grep")


QUESTION = "take a snapshot of the whole cluster"


def test_the_window_that_answers_outranks_a_file_the_fusion_put_first(kb: Path, r: Retriever) -> None:
    # the fusion put cluster.md first (it repeats "cluster"); guide.md is second as a whole file:
    # guide.md's window with the snapshot line holds more of the question and takes rank 1
    fused = [_whole(kb, "cluster.md", 0.033), _whole(kb, "guide.md", 0.030)]
    hits = rank_passages(r, QUESTION, fused, [], k=5)
    target = _line(kb, "guide.md", "tiup br backup full")
    top = hits[0]
    assert top.path == "guide.md", [h.location for h in hits]
    assert top.start_line <= target <= top.end_line and top.end_line - top.start_line + 1 <= 30
    assert top.focus is not None and top.focus[0] <= target <= top.focus[1] + 2
    assert top.heading_path == ("Operations guide", "Backups")  # the breadcrumb of the lines shown
    assert any(h.path == "cluster.md" for h in hits)  # the other file keeps a place further down


def test_a_short_passage_is_not_preferred_for_being_short(kb: Path, r: Retriever) -> None:
    # glossary.md is 5 lines with one question word; with BM25's length normalisation it would beat the
    # 20-line window that holds the whole question
    fused = [_whole(kb, "glossary.md", 0.033), _whole(kb, "guide.md", 0.033)]
    hits = rank_passages(r, QUESTION, fused, [], k=3)
    assert hits[0].path == "guide.md", [(h.location, h.explain["passage"]) for h in hits]


def test_signals_are_scaled_and_added_with_their_weights(kb: Path, r: Retriever) -> None:
    hits = r.hybrid(QUESTION, k=5)
    assert hits
    for h in hits:
        p = h.explain["passage"]
        assert all(0.0 <= p[s] <= 1.0 for s in ("lexical", "semantic", "fused"))
        expected = rerank.LEXICAL_WEIGHT * p["lexical"] + rerank.SEMANTIC_WEIGHT * p["semantic"] + rerank.FUSED_WEIGHT * p["fused"] + p["code"]
        assert h.score == pytest.approx(expected, abs=1e-3)
        assert h.tool == "hybrid" and "ranks" in h.explain or p["from"] == "window"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert max(h.explain["passage"]["lexical"] for h in hits) == pytest.approx(1.0)


def test_the_semantic_signal_orders_passages_the_words_cannot_tell_apart(kb: Path, r: Retriever, monkeypatch: pytest.MonkeyPatch) -> None:
    # one passage in two files: equal words, equal fused rank; only the chunk similarity differs, and
    # the copy whose chunk is nearer the query comes first (a tie would put cluster.md first by name)
    a = Evidence("cluster.md", 1, 3, "Snapshot: a copy.", 0.03, "grep")
    b = replace(a, path="glossary.md")
    vector_list = [Evidence("glossary.md", 1, 5, TINY, 0.9, "vector"), Evidence("cluster.md", 1, 3, CLUSTER, 0.1, "vector")]
    monkeypatch.setattr(rerank, "_chunk_similarities", lambda *_a: {("glossary.md", 1, 5): 0.9, ("cluster.md", 1, 3): 0.1})
    # guide.md (a long file) makes this a choice among passages, not a KB of short files
    hits = rank_passages(r, "snapshot copy", [a, b, _whole(kb, "guide.md", 0.03)], vector_list, k=10)
    two = [h for h in hits if h.path in ("glossary.md", "cluster.md")]
    assert [h.path for h in two] == ["glossary.md", "cluster.md"]
    assert two[0].explain["passage"]["semantic"] == 1.0 and two[1].explain["passage"]["semantic"] == 0.0


def test_hits_never_share_lines(r: Retriever) -> None:
    hits = r.hybrid("the team keeps the general layout of the service", k=10)
    assert len(hits) >= 3
    for i, a in enumerate(hits):
        for b in hits[i + 1 :]:
            assert not a.overlaps(b), (a.location, b.location)


def test_the_same_query_gives_the_same_hits(r: Retriever) -> None:
    first = [(h.location, h.score) for h in r.hybrid(QUESTION, k=8)]
    assert first == [(h.location, h.score) for h in r.hybrid(QUESTION, k=8)]


def test_without_vectors_words_and_fused_rank_still_rank(kb: Path, r: Retriever) -> None:
    fused = [_whole(kb, "cluster.md", 0.033), _whole(kb, "guide.md", 0.030)]
    hits = rank_passages(r, QUESTION, fused, [], k=3)
    assert all(h.explain["passage"]["semantic"] == 0.0 for h in hits)
    assert hits[0].path == "guide.md"


def test_search_shows_the_answering_lines_under_their_breadcrumb(kb: Path) -> None:
    from kb_agent.cli import app

    res = CliRunner().invoke(app, ["search", "--kb", str(kb), "-k", "1", QUESTION], env={"KB_EMBEDDING_PROVIDER": "hash", "COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    head, *snippet = res.output.rstrip("\n").split("\n")
    assert head.split()[1].startswith("guide.md:L") and "Operations guide › Backups" in head, res.output
    assert any("tiup br backup full" in ln or "Take a snapshot" in ln for ln in snippet), res.output
    assert not any("# Operations guide" in ln for ln in snippet)  # never just the top of the file


def test_a_kb_of_short_files_keeps_the_fused_order(tmp_path: Path) -> None:
    # one paragraph per file (as the BEIR sets are): no file offers a choice of passages, so the
    # hybrid order is RRF's, exactly
    from kb_agent.retrieval.fusion import FUSE_DEPTH, rrf
    from kb_agent.retrieval.grep import grep_search
    from kb_agent.retrieval.vector import vector_search

    root = tmp_path / "kb"
    root.mkdir()
    for i in range(12):
        (root / f"p{i:02d}.md").write_text(f"# Note {i}\n\nThe snapshot {'copy ' * (i % 4)}of the cluster, take {i}.\n", encoding="utf-8")
    build_index(hash_settings(root))
    with Retriever(hash_settings(root)) as r:
        fused = rrf({"grep": grep_search(r, QUESTION, k=FUSE_DEPTH, focus_crumbs=False),
                     "vector": vector_search(r, QUESTION, k=FUSE_DEPTH, narrow=False)}, FUSE_DEPTH)
        hits = r.hybrid(QUESTION, k=8)
    assert [h.location for h in hits] == [ev.location for ev in fused[:8]]
    assert all("passage" not in h.explain for h in hits)


# two passages with the same words: a sentence about restoring, and the step with its command
HOWTO = "\n".join([
    "# Restore",
    "",
    "## Background",
    "",
    "Restoring from a backup replaces a table.",
    "",
    *(f"Note {i}: the team keeps this page." for i in range(30)),
    "",
    "## Steps",
    "",
    "- Restore the table from a backup:",
    "",
    "```shell",
    "br restore --db shop --name orders",
    "```",
    "",
])


def test_a_how_to_question_prefers_the_passage_with_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "kb"
    root.mkdir()
    (root / "restore.md").write_text(HOWTO, encoding="utf-8")
    build_index(hash_settings(root))
    target = _line(root, "restore.md", "br restore --db")
    fused = [_whole(root, "restore.md", 0.033)]
    with Retriever(hash_settings(root)) as r:
        hits = rank_passages(r, "How do I restore a table from a backup?", fused, [], k=3)
        assert hits[0].start_line <= target <= hits[0].end_line, [(h.location, h.explain["passage"]) for h in hits]
        assert hits[0].explain["passage"]["code"] == rerank.CODE_BONUS
        plain = rank_passages(r, "restore a table from a backup", fused, [], k=3)
        assert not plain[0].start_line <= target <= plain[0].end_line, "without the question form the two tie and the first in the file leads (the premise)"
