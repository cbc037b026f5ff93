"""FreshnessCheck on its own: the answer is reused for its interval, recomputed after it or when invalidated,
and names what changed; a KB without an index is `missing`, not stale."""

from __future__ import annotations

from pathlib import Path

from kb_agent.mcp.freshness import MAX_STALE_FILES, Freshness, FreshnessCheck
from tests.support.sample import copy_indexed, copy_sample, hash_settings


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_answer_is_reused_within_the_interval(indexed_hash_kb: Path, tmp_path: Path) -> None:
    kb = copy_indexed(indexed_hash_kb, tmp_path / "kb")
    clock = FakeClock()
    check = FreshnessCheck(hash_settings(kb), interval_s=2.0, clock=clock)
    assert check.get().stale is False
    (kb / "faq.md").write_text("# FAQ\n\nrewritten\n", encoding="utf-8")
    clock.now += 1.0
    assert check.get().stale is False  # cached: no walk yet
    clock.now += 1.5
    fresh = check.get()
    assert fresh.stale and fresh.changed == ("faq.md",) and fresh.files == ["faq.md"]
    (kb / "faq.md").unlink()
    assert check.get().changed == ("faq.md",)  # still cached
    check.invalidate()
    assert check.get().deleted == ("faq.md",)


def test_no_index_is_missing_not_stale(tmp_path: Path) -> None:
    kb = copy_sample(tmp_path / "kb")
    fresh = FreshnessCheck(hash_settings(kb)).get()
    assert fresh.missing and not fresh.stale and fresh.note() is None


def test_the_note_counts_everything_and_names_a_few() -> None:
    many = tuple(f"docs/{i:03}.md" for i in range(MAX_STALE_FILES + 5))
    note = Freshness(new=many, changed=("a.md",)).note()
    assert note is not None
    assert note.startswith(f"the index is stale: {len(many)} new, 1 changed files since the last `kb index`")
    assert "and 6 more" in note and "docs/000.md" in note
    assert Freshness().note() is None
