"""One path-glob meaning (gitignore's) for search filters, `cites`/`paths` in checks and ignore files."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_agent.corpus.pathmatch import PathGlobs, glob_match, ignore_spec
from kb_agent.errors import InvalidQuery

PATHS = ("runbooks/rollback.md", "runbooks/db/restore.md", "docs/config.md", "docs/sub/config.md", "README.md", "zh/运维.md")


@pytest.mark.parametrize(
    ("pattern", "matched"),
    [
        ("runbooks/*", {"runbooks/rollback.md", "runbooks/db/restore.md"}),  # a folder it matches takes its contents
        ("runbooks/", {"runbooks/rollback.md", "runbooks/db/restore.md"}),
        ("runbooks", {"runbooks/rollback.md", "runbooks/db/restore.md"}),
        ("runbooks/*.md", {"runbooks/rollback.md"}),  # `*` stays in one folder: only the direct files
        ("runbooks/**/*.md", {"runbooks/rollback.md", "runbooks/db/restore.md"}),
        ("docs/*.md", {"docs/config.md"}),
        ("docs/**/config.md", {"docs/config.md", "docs/sub/config.md"}),
        ("config.md", {"docs/config.md", "docs/sub/config.md"}),  # no `/`: a name at any depth
        ("*rollback*", {"runbooks/rollback.md"}),
        ("/README.md", {"README.md"}),  # leading `/` anchors at the root
        ("./docs/config.md", {"docs/config.md"}),
        ("db/restore.md", set()),  # a `/` inside anchors at the root
        ("**/db/restore.md", {"runbooks/db/restore.md"}),
        ("zh/*.md", {"zh/运维.md"}),
        ("Docs/*.md", set()),  # case-sensitive, as git is by default
    ],
)
def test_gitignore_semantics(pattern: str, matched: set[str]) -> None:
    assert {p for p in PATHS if glob_match(p, pattern)} == matched


def test_several_patterns_and_negation() -> None:
    globs = PathGlobs(["runbooks/", "!runbooks/db/"])
    assert [p for p in PATHS if globs(p)] == ["runbooks/rollback.md"]
    assert not PathGlobs([])("docs/config.md")


def test_an_invalid_glob_is_a_clear_error() -> None:
    with pytest.raises(InvalidQuery, match="not a valid path glob"):
        PathGlobs(["docs\\"])  # a trailing backslash escapes nothing
    with pytest.raises(InvalidQuery, match="not a valid path glob"):
        PathGlobs(["docs/[z-a].md"])  # a reversed range compiles to a bad regex inside pathspec


def test_ignore_files_skip_lines_git_would_reject() -> None:
    spec = ignore_spec(["# comment", "bad\\", "[z-a]", "drafts/", "*.tmp.md"])
    assert spec is not None
    assert spec("drafts/a.md") and spec("x/y.tmp.md") and not spec("docs/a.md")
    assert ignore_spec(["# only a comment", ""]) is None


def test_search_filter_and_check_cites_agree(indexed_hash_kb: Path) -> None:
    """`runbooks/*` meant nested files as a search filter but not as a `cites` glob; now both use the rule above."""
    from kb_agent.index.store import IndexReader
    from kb_agent.types import SearchFilters
    from tests.support.sample import hash_settings

    reader = IndexReader.open(hash_settings(indexed_hash_kb), indexed_hash_kb)
    try:
        indexed = sorted(reader.indexed_paths())
        for pattern in ("runbooks/*", "runbooks/*.md", "*.md", "zh/", "incidents/*ops-2051*", "**/README.md"):
            allowed = reader.paths_matching(SearchFilters(path_globs=(pattern,)))
            assert allowed == {p for p in indexed if glob_match(p, pattern)}, pattern
        with pytest.raises(InvalidQuery):
            reader.paths_matching(SearchFilters(path_globs=("docs\\",)))
    finally:
        reader.close()


def test_cli_search_path_filter_uses_the_rule(indexed_hash_kb: Path, tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from kb_agent.cli import app
    from kb_agent.index.build import build_index
    from tests.support.sample import copy_indexed, hash_settings

    root = copy_indexed(indexed_hash_kb, tmp_path / "kb")
    nested = root / "runbooks" / "db"
    nested.mkdir()
    (nested / "restore.md").write_text("# Restore\n\nRestore the orders database from the nightly snapshot.\n", encoding="utf-8")
    build_index(hash_settings(root))
    env = {"KB_EMBEDDING_PROVIDER": "hash"}

    def hits(pattern: str) -> set[str]:
        res = CliRunner().invoke(app, ["search", "restore snapshot", "--kb", str(root), "--tool", "grep", "--path", pattern, "--json"], env=env)
        assert res.exit_code in (0, 1), res.output
        return {h["path"] for h in json.loads(res.stdout)["results"]}

    assert "runbooks/db/restore.md" in hits("runbooks/*")
    assert "runbooks/db/restore.md" not in hits("runbooks/*.md")
    assert hits("runbooks/db/") == {"runbooks/db/restore.md"}
