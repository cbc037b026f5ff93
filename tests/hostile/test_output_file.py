"""`kb links -o FILE` / `kb check -o FILE` never replace the spec, a file of the knowledge base or a
non-regular file (FIFO, device, directory), and never block; new files and regular files outside
the KB are written (real `kb` processes on real files)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.chat import KB_BIN
from tests.support.sample import kb_free_env

# a FIFO must be refused at once; a hang would hit this
TIMEOUT_S = 60
SPEC = "version: 1\nchecks:\n  - id: gizmo\n    question: How many gizmos are there?\n    cites: notes.md\n    contains: \"3\"\n"


def run_kb(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = kb_free_env(KB_EMBEDDING_PROVIDER="hash", KB_LLM_PROVIDER="none", PYTHONWARNINGS="ignore")
    return subprocess.run([KB_BIN, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=TIMEOUT_S, check=False)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("outkb") / "kb"
    root.mkdir()
    (root / "notes.md").write_text("# Notes\n\nThe gizmo count is 3. See [other](other.md).\n", encoding="utf-8")
    (root / "kb-checks.yaml").write_text(SPEC, encoding="utf-8")
    r = run_kb("index", "--kb", str(root))
    assert r.returncode == 0, r.stderr
    return root


def assert_refused(r: subprocess.CompletedProcess[str], why: str) -> None:
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stdout == ""
    first = r.stderr.splitlines()[0]
    assert first.startswith("error: refusing to write the report") and why in first, r.stderr


def test_check_refuses_to_overwrite_the_spec(kb: Path) -> None:
    before = (kb / "kb-checks.yaml").read_bytes()
    r = run_kb("check", "--kb", str(kb), "--format", "junit", "-o", str(kb / "kb-checks.yaml"))
    assert_refused(r, "spec file")
    assert (kb / "kb-checks.yaml").read_bytes() == before


def test_check_refuses_an_outside_spec_as_output(kb: Path, tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    r = run_kb("check", str(spec), "--kb", str(kb), "-o", str(spec))
    assert_refused(r, "spec file")
    assert spec.read_text(encoding="utf-8") == SPEC


def test_links_refuses_to_overwrite_a_document(kb: Path) -> None:
    before = (kb / "notes.md").read_bytes()
    r = run_kb("links", "--kb", str(kb), "-o", str(kb / "notes.md"))
    assert_refused(r, "inside the knowledge base")
    assert (kb / "notes.md").read_bytes() == before


def test_links_refuses_a_symlink_that_points_into_the_kb(kb: Path, tmp_path: Path) -> None:
    link = tmp_path / "report.txt"
    link.symlink_to(kb / "notes.md")
    before = (kb / "notes.md").read_bytes()
    r = run_kb("links", "--kb", str(kb), "-o", str(link))
    assert_refused(r, "inside the knowledge base")
    assert (kb / "notes.md").read_bytes() == before


def test_links_refuses_a_fifo_without_blocking(kb: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    r = run_kb("links", "--kb", str(kb), "-o", str(fifo))
    assert_refused(r, "not a regular file")


def test_links_refuses_a_character_device(kb: Path) -> None:
    r = run_kb("links", "--kb", str(kb), "-o", "/dev/null")
    assert_refused(r, "not a regular file")


def test_check_refuses_a_directory(kb: Path, tmp_path: Path) -> None:
    r = run_kb("check", "--kb", str(kb), "-o", str(tmp_path))
    assert_refused(r, "not a regular file")


def test_links_writes_a_new_file_and_replaces_a_regular_file_outside_the_kb(kb: Path, tmp_path: Path) -> None:
    new = tmp_path / "links.json"
    r = run_kb("links", "--kb", str(kb), "--format", "json", "-o", str(new))
    assert r.returncode == 1, r.stderr  # other.md is missing: the report has one broken link
    assert '"broken"' in new.read_text(encoding="utf-8")
    assert r.stdout.endswith("1 broken\n")  # the human summary still goes to stdout
    old = tmp_path / "old.xml"
    old.write_text("x" * 100_000, encoding="utf-8")
    r = run_kb("links", "--kb", str(kb), "--format", "junit", "-o", str(old))
    assert r.returncode == 1
    text = old.read_text(encoding="utf-8")
    assert text.startswith("<?xml") and "x" * 100 not in text  # replaced, not appended to


def test_check_writes_a_new_report_file_inside_the_kb(kb: Path, tmp_path: Path) -> None:
    target = kb / "reports-check.xml"
    try:
        r = run_kb("check", "--kb", str(kb), "--format", "junit", "-o", str(target))
        assert r.returncode in (0, 1), r.stdout + r.stderr  # written (pass or fail), not refused (2)
        assert target.read_text(encoding="utf-8").startswith("<?xml")
        again = run_kb("check", "--kb", str(kb), "--format", "junit", "-o", str(target))
        assert_refused(again, "inside the knowledge base")  # once it exists, it is a file of the KB
    finally:
        target.unlink(missing_ok=True)
