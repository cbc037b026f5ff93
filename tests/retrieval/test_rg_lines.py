"""grep search reads rg's line format (path NUL number : text), not its JSON events: the same lines,
for every query, file name and byte the JSON events carry — and a user's ripgrep config changes nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from kb_agent.retrieval._rg import run_rg
from tests.support.sample import copy_sample

QUERIES = ["cache", "rollback", "the", "redis", "缓存", "OPS-2051", "ttl_seconds", "deploy", "a", ":", "-", "foo"]


def from_events(events: Any) -> list[tuple[str, int, bool, str]]:
    """What the JSON events say, in the shape `RgResult.lines` yields."""
    out = []
    for ev in events:
        if ev["type"] not in ("match", "context"):
            continue
        data = ev["data"]
        path = data["path"].get("text")
        if path is None:
            continue
        text = (data["lines"].get("text") or "").rstrip("\n").rstrip("\r")
        out.append((path, int(data["line_number"]), ev["type"] == "match", text))
    return out


@pytest.fixture
def odd_kb(tmp_path: Path) -> Path:
    root = copy_sample(tmp_path / "kb")
    (root / "odd").mkdir()
    (root / "odd" / "crlf.md").write_bytes(b"# CRLF\r\nfoo: 1\r\n\r\n12:34 foo - bar\r\n")
    (root / "odd" / "latin1.md").write_bytes(b"caf\xe9 foo\nfine foo line\n\xff\xfe\n")
    (root / "odd" / "a:b - c.md").write_text("foo in a file whose name has a colon\n--\nnot a separator\n", encoding="utf-8")
    (root / "odd" / "ünï cödé.md").write_text("foo ünï\n", encoding="utf-8")
    (root / "odd" / "x: WARNING: y.md").write_text("foo in a file named like rg's warning\n", encoding="utf-8")
    (root / "odd" / "new\nline\n--\n7:x.md").write_text("foo after a newline in the name\n", encoding="utf-8")
    (root / "odd" / "nul.md").write_bytes(b"foo before\nfoo \x00 binary\nfoo after\n")
    # a NUL past rg's first buffer, after matches: rg prints a warning line between records
    (root / "odd" / "late-nul.md").write_bytes(b"".join(b"foo line %d\n" % i for i in range(30000)) + b"x\x00y\nfoo end\n")
    (root / "odd" / "long.md").write_text("\n".join(f"{i}: foo {i}-{i}" if i % 7 == 0 else f"line {i}" for i in range(300)), encoding="utf-8")
    if os.name == "posix":
        (root / "odd" / b"bad-\xff-name.md".decode("utf-8", "surrogateescape")).write_text("foo in a file named in latin-1\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("query", QUERIES)
def test_lines_are_the_json_events(odd_kb: Path, query: str) -> None:
    args = ["-C", "10", "--max-count", "30", "--fixed-strings", "-e", query, "--", "."]
    events = from_events(run_rg(args, cwd=odd_kb, timeout_s=30).events())
    lines = list(run_rg(args, cwd=odd_kb, timeout_s=30, plain=True).lines())
    # rg searches files in parallel: the order of files differs from run to run, never the order inside one
    assert sorted(lines, key=lambda x: x[0]) == sorted(events, key=lambda x: x[0])
    assert events or query == "foo"  # every query finds something, so the comparison is not of two empty lists


def test_foo_reaches_every_odd_file(odd_kb: Path) -> None:
    args = ["-C", "2", "--fixed-strings", "-e", "foo", "--", "odd"]
    lines = list(run_rg(args, cwd=odd_kb, timeout_s=30, plain=True).lines())
    by_path = {p for p, *_ in lines}
    assert {"odd/crlf.md", "odd/latin1.md", "odd/a:b - c.md", "odd/ünï cödé.md", "odd/long.md"} <= by_path
    assert not any("bad-" in p for p in by_path)  # a path that is not UTF-8 is left out, as the events leave it out
    assert ("odd/crlf.md", 4, True, "12:34 foo - bar") in lines
    assert ("odd/latin1.md", 1, True, "") in lines and ("odd/latin1.md", 2, True, "fine foo line") in lines
    assert ("odd/a:b - c.md", 2, False, "--") in lines
    assert ("odd/new\nline\n--\n7:x.md", 1, True, "foo after a newline in the name") in lines
    assert ("odd/late-nul.md", 1, True, "foo line 0") in lines
    assert ("odd/x: WARNING: y.md", 1, True, "foo in a file named like rg's warning") in lines


def test_a_users_ripgrep_config_is_not_read(odd_kb: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["-C", "3", "--fixed-strings", "-e", "Cache", "--", "."]
    before = list(run_rg(args, cwd=odd_kb, timeout_s=30, plain=True).lines())
    config = tmp_path / "ripgreprc"
    config.write_text("--ignore-case\n--column\n--max-columns=5\n--heading\n", encoding="utf-8")
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", str(config))
    def by_file(lines: list[tuple[str, int, bool, str]]) -> list[tuple[str, int, bool, str]]:
        return sorted(lines, key=lambda x: x[0])

    assert by_file(list(run_rg(args, cwd=odd_kb, timeout_s=30, plain=True).lines())) == by_file(before)
    assert by_file(from_events(run_rg(args, cwd=odd_kb, timeout_s=30).events())) == by_file(before)


def test_a_warning_about_a_binary_file_does_not_eat_the_next_files_first_line(odd_kb: Path) -> None:
    """rg prints "PATH: WARNING: stopped searching binary file …" (no NUL) when a NUL turns up after
    matches; files in path order put latin1.md right after late-nul.md's warning."""
    args = ["--sort", "path", "-C", "1", "--fixed-strings", "-e", "foo", "--", "odd"]
    plain = run_rg(args, cwd=odd_kb, timeout_s=30, plain=True)
    assert "WARNING: stopped searching binary file" in plain.stdout
    lines = list(plain.lines())
    assert lines == from_events(run_rg(args, cwd=odd_kb, timeout_s=30).events())
    assert ("odd/latin1.md", 1, True, "") in lines
