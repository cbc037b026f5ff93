"""Disk full while indexing (a small tmpfs filled up): one clear line naming the cause, no `--rebuild`
hint, nothing unexpected; after space is freed a plain `kb index` completes and the index is consistent."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile.helpers import assert_one_clear_error, kb, small_tmpfs
from tests.support.sample import copy_indexed, copy_sample

TMPFS_SIZE = "40m"


@pytest.fixture
def tight_disk(tmp_path: Path) -> Iterator[Path]:
    with small_tmpfs(tmp_path / "disk", TMPFS_SIZE) as disk:
        yield disk


def _fill(disk: Path, leave_kb: int) -> Path:
    """Fill the tmpfs so that about `leave_kb` KB stay free."""
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    filler = disk / "filler"
    with filler.open("wb") as f:
        f.write(b"\0" * max(0, free - leave_kb * 1024))
    return filler


# ~400 KB free runs out in the catalog's first transactions; ~1.5 MB lets the catalog through and
# runs out inside Chroma's segment files
@pytest.mark.parametrize("leave_kb", [400, 1500])
def test_disk_full_during_index_is_one_clear_error_and_recoverable(tight_disk: Path, work: Path, leave_kb: int) -> None:
    root = copy_sample(tight_disk / "kb")
    filler = _fill(tight_disk, leave_kb)
    run = kb("index", "--kb", str(root), cwd=work)
    assert_one_clear_error(run, 2, "no space left")
    assert "--rebuild" not in run.err
    filler.unlink()
    again = kb("index", "--kb", str(root), "--json", cwd=work)
    assert again.code == 0, again.text
    report = json.loads(again.out)
    assert report["chunks_total"] > 100 and not report["skipped"], report
    fresh = kb("index", "--check", "--kb", str(root), cwd=work)
    assert fresh.code == 0 and "index is fresh" in fresh.err, fresh.text
    found = kb("search", "how do I roll back a deploy", "--kb", str(root), cwd=work)
    assert found.code == 0 and "runbooks/rollback.md" in found.out, found.text


def test_disk_full_mid_update_keeps_the_old_index_usable(tight_disk: Path, work: Path, indexed_hash_kb: Path) -> None:
    root = tight_disk / "kb"
    copy_indexed(indexed_hash_kb, root)
    for i in range(40):
        (root / f"bulk-{i:02d}.md").write_text(f"# Bulk {i}\n\n" + f"word{i} filler text " * 400 + "\n", encoding="utf-8")
    filler = _fill(tight_disk, 300)
    run = kb("index", "--kb", str(root), cwd=work)
    assert_one_clear_error(run, 2, "no space left")
    # what was committed before stays searchable while the disk is still full
    grep = kb("search", "rollback", "--tool", "grep", "--kb", str(root), cwd=work)
    assert grep.code == 0 and "runbooks/rollback.md" in grep.out, grep.text
    filler.unlink()
    again = kb("index", "--kb", str(root), "--json", cwd=work)
    assert again.code == 0, again.text
    assert kb("search", "word7", "--tool", "grep", "--kb", str(root), cwd=work).code == 0
