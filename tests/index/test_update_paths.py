"""update_index: only the given paths, as files or folders, as they are now or were; the rest of the tree is not walked."""

from __future__ import annotations

import shutil
from pathlib import Path

from kb_agent.index.build import build_index, update_index
from tests.support.sample import hash_settings, indexed_paths


def test_update_touches_only_the_given_paths(sample_kb: Path) -> None:
    s = hash_settings(sample_kb)
    build_index(s)
    (sample_kb / "faq.md").write_text("# FAQ\n\nrewritten\n", encoding="utf-8")  # changed, but not named below
    (sample_kb / "new.md").write_text("# New\n\nnew file\n", encoding="utf-8")
    rep = update_index(s, ["new.md"])
    assert rep.indexed == ("new.md",) and not rep.updated and rep.unchanged == 0
    assert build_index(s, check=True).updated == ("faq.md",)  # untouched: no walk of the tree


def test_folders_deleted_renamed_ignored_hidden_and_outside(sample_kb: Path) -> None:
    s = hash_settings(sample_kb)
    build_index(s)
    shutil.move(str(sample_kb / "adr"), str(sample_kb / "decisions"))
    rep = update_index(s, ["adr", str(sample_kb / "decisions")])  # absolute paths inside the root work too
    assert {p for p in rep.removed} == {p for p in rep.removed if p.startswith("adr/")} and len(rep.removed) == 8
    assert len(rep.indexed) == 8 and all(p.startswith("decisions/") for p in rep.indexed)
    (sample_kb / "drafts" / "x.md").write_text("# X\n\nignored by .kbignore\n", encoding="utf-8")
    (sample_kb / ".hidden").mkdir()
    (sample_kb / ".hidden" / "y.md").write_text("# Y\n\nhidden\n", encoding="utf-8")
    rep = update_index(s, ["drafts/x.md", ".hidden/y.md", ".kb/catalog.sqlite", "../outside.md", "/etc/passwd", "nope.md"])
    assert not rep.stale and not ({"drafts/x.md", ".hidden/y.md"} & indexed_paths(sample_kb))
    (sample_kb / "runbooks" / "rollback.md").write_bytes(b"\xff\xfe not utf-8")
    rep = update_index(s, ["runbooks/rollback.md"])
    assert [(x.path, x.reason.split(" (")[0]) for x in rep.skipped] == [("runbooks/rollback.md", "not valid UTF-8")]
    assert "runbooks/rollback.md" not in indexed_paths(sample_kb)
    assert not build_index(s).stale  # consistent with a full scan afterwards


def test_a_readers_chunk_rows_follow_every_update(sample_kb: Path) -> None:
    """A reader keeps each file's chunk rows between calls; an update by the writer (here: in this
    process, as `kb mcp --watch` does) is seen at once, and a file the update removed has none."""
    from kb_agent.index.manifest import Catalog

    s = hash_settings(sample_kb)
    build_index(s)
    reader = Catalog.open(sample_kb / ".kb" / "catalog.sqlite", readonly=True)
    try:
        before = reader.chunks_for("faq.md")
        assert before and reader.chunks_for("faq.md") == before  # the second read is the cached one
        (sample_kb / "faq.md").write_text("# FAQ\n\nrewritten: the answer is 42\n", encoding="utf-8")
        update_index(s, ["faq.md"])
        after = reader.chunks_for("faq.md")
        assert after != before and "the answer is 42" in after[0].text
        (sample_kb / "faq.md").unlink()
        update_index(s, ["faq.md"])
        assert reader.chunks_for("faq.md") == []
    finally:
        reader.close()
