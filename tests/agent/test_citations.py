"""The citation verifier removes invented, out-of-range and mismatched markers and renumbers the rest."""

from __future__ import annotations

from pathlib import Path

from kb_agent.agent.citations import SourceRef, verify_answer


def refs(*items: tuple[int, str, int, int, str]) -> list[SourceRef]:
    return [SourceRef(*i) for i in items]


def test_valid_markers_are_kept_renumbered_and_footed(kb_root: Path) -> None:
    sources = refs((1, "docs/deploy.md", 3, 3, "To roll back a bad deploy"), (2, "docs/cache.md", 5, 5, "The default for cache.ttl_seconds is 300"))
    out = verify_answer("The TTL defaults to 300 seconds [2]. Roll back with nwctl [1].", sources, kb_root)
    assert out.body == "The TTL defaults to 300 seconds [1]. Roll back with nwctl [2]."
    assert out.text.endswith("---\n[1] docs/cache.md:L5\n[2] docs/deploy.md:L3")
    assert [c.path for c in out.citations] == ["docs/cache.md", "docs/deploy.md"]
    assert out.removed == ()


def test_invented_marker_is_removed(kb_root: Path) -> None:
    sources = refs((1, "docs/cache.md", 5, 5, "The default for cache.ttl_seconds is 300"))
    out = verify_answer("Default is 300 [1]. Also it is blue [7].", sources, kb_root)
    assert out.body == "Default is 300 [1]. Also it is blue."
    assert len(out.citations) == 1
    assert "[7] is not one of the 1 sources" in out.removed[0]


def test_line_range_beyond_eof_is_removed(kb_root: Path) -> None:
    sources = refs((1, "docs/deploy.md", 3, 99, "To roll back"))
    out = verify_answer("Roll back first [1].", sources, kb_root)
    assert out.citations == ()
    assert out.body == "Roll back first."
    assert "outside the file" in out.removed[0]
    assert "---" not in out.text


def test_quote_not_in_lines_is_removed(kb_root: Path) -> None:
    sources = refs((1, "docs/cache.md", 5, 5, "The default for cache.ttl_seconds is 999"))
    out = verify_answer("The default is 999 [1].", sources, kb_root)
    assert out.citations == ()
    assert "no longer contains" in out.removed[0]


def test_quoted_snippet_in_sentence_must_be_in_cited_lines(kb_root: Path) -> None:
    sources = refs((1, "docs/cache.md", 5, 5, "The default for cache.ttl_seconds is 300"))
    out = verify_answer("Run `nwctl cache flush` to reset it [1]. The default is 300 [1].", sources, kb_root)
    assert out.body == "Run `nwctl cache flush` to reset it. The default is 300 [1]."
    assert "does not contain" in out.removed[0]


def test_file_changed_since_indexing_breaks_citation(kb_root: Path) -> None:
    sources = refs((1, "docs/cache.md", 5, 5, "The default for cache.ttl_seconds is 300"))
    (kb_root / "docs" / "cache.md").write_text("# Cache\n\nrewritten\n\nnothing here\n", encoding="utf-8")
    assert verify_answer("Default 300 [1].", sources, kb_root).citations == ()


def test_path_outside_root_and_model_footer_are_ignored(kb_root: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.md").write_text("password is hunter2\n", encoding="utf-8")
    sources = refs((1, "../secret.md", 1, 1, "password is hunter2"), (2, "docs/deploy.md", 3, 3, "To roll back"))
    out = verify_answer("It is hunter2 [1]. Roll back [2][1].\n\n---\n[1] ../secret.md:L1\n[2] docs/deploy.md:L3", sources, kb_root)
    assert [c.path for c in out.citations] == ["docs/deploy.md"]
    assert out.body == "It is hunter2. Roll back [1]."


def test_marker_lists_are_split(kb_root: Path) -> None:
    sources = refs((1, "docs/deploy.md", 3, 3, "To roll back"), (2, "docs/deploy.md", 4, 4, "Rolling back first"))
    assert verify_answer("Roll back first [1, 2].", sources, kb_root).body == "Roll back first [1][2]."
