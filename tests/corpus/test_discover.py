"""Discovery: markdown suffixes, hidden folders, .gitignore / .kbignore at any level, symlinks."""

from __future__ import annotations

from pathlib import Path

from kb_agent.corpus.discover import discover


def _write(root: Path, rel: str, text: str = "# x\n") -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def test_suffixes_hidden_and_ignore_files(tmp_path: Path) -> None:
    for rel in ("a.md", "b.markdown", "c.mdx", "d.txt", ".hidden/e.md", "node_modules/f.md", "docs/g.md", "docs/build/h.md", "docs/draft.tmp.md", "sub/keep.md", "sub/secret/i.md"):
        _write(tmp_path, rel)
    _write(tmp_path, ".gitignore", "docs/build/\n")
    _write(tmp_path, ".kbignore", "# comment\n*.tmp.md\n")
    _write(tmp_path, "sub/.kbignore", "secret/\n")
    found = [rel for rel, _ in discover(tmp_path).files]
    assert found == ["a.md", "b.markdown", "c.mdx", "docs/g.md", "sub/keep.md"]


def test_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    _write(root, "real.md")
    _write(tmp_path, "outside.md")
    (root / "inside.md").symlink_to(root / "real.md")
    (root / "out.md").symlink_to(tmp_path / "outside.md")
    (root / "dangling.md").symlink_to(root / "missing.md")
    (root / "dirlink").symlink_to(root)  # a folder loop: not followed
    d = discover(root)
    assert [rel for rel, _ in d.files] == ["inside.md", "real.md"]
    reasons = {s.path: s.reason for s in d.skipped}
    assert reasons == {"out.md": "symlink points outside the knowledge base", "dangling.md": "broken or looping symlink"}


def test_sample_kb_ignores_its_drafts(sample_kb: Path) -> None:
    found = {rel for rel, _ in discover(sample_kb).files}
    assert "drafts/unfinished-idea.md" not in found and "scratch.tmp.md" not in found
    assert len(found) >= 40 and sum(1 for f in found if f.startswith("zh/")) >= 12
