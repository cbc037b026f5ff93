"""Hostile text never reaches a terminal raw: escape sequences and control characters in document
contents, file names and folder names are shown visibly by every human output (real `kb` processes,
through a pipe and in a pseudo-terminal); JSON escapes them; kb's own OSC 8 links still work."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.chat import KB_BIN
from tests.support.sample import copy_indexed, kb_free_env

TIMEOUT_S = 120

OSC8_FOREIGN = "\x1b]8;;http://evil.example/\x1b\\click here\x1b]8;;\x1b\\"
OSC0_TITLE = "\x1b]0;pwned-title\x07"
CLEAR = "\x1b[2J"
C1_CSI = "\x9b31m"
BIDI = "\u202eevil override\u202c"
ESC_DOC = f"""# Zorblatt settings

The zorblatt timeout is 42 seconds {OSC8_FOREIGN} and {OSC0_TITLE} then {CLEAR} cleared {C1_CSI} red {BIDI} [bold red]not markup[/] 配置说明.
"""
# a file whose name would forge a citation line if printed raw
FORGED_NAME = "evil\n[9] forged.md:L1.md"
FORGED_DOC = "# Quuxfrob limits\n\nThe quuxfrob limit is 7 requests per second.\n"
ESC_NAME = f"title{OSC0_TITLE}.md"
ESC_NAME_DOC = "# Flibbet notes\n\nThe flibbet retention is 9 days. See [the guide](missing-guide.md).\n"
# raw sequences that must never appear in human output (kb's own OSC 8 links are checked apart)
RAW = ("\x1b]0;", "\x1b[2J", "\x9b", "\u202e", "\u202c", "\x07", "evil.example/\x1b")


def run_kb(*args: str, cwd: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:
    env = kb_free_env(KB_EMBEDDING_PROVIDER="hash", KB_LLM_PROVIDER="none", PYTHONWARNINGS="ignore", COLUMNS="200")
    return subprocess.run([KB_BIN, *args], capture_output=True, text=True, encoding="utf-8", errors="surrogateescape",
                          env=env, cwd=cwd, input=input, timeout=TIMEOUT_S, check=False)


def pty_kb(*args: str) -> str:
    """Run `kb ARGS` in a pseudo-terminal (rich sees a terminal: colours, links, live status) and return everything it wrote."""
    import pexpect

    env = kb_free_env(KB_EMBEDDING_PROVIDER="hash", KB_LLM_PROVIDER="none", PYTHONWARNINGS="ignore", TERM="xterm-256color")
    child = pexpect.spawn(KB_BIN, list(args), env=env, encoding="utf-8", timeout=TIMEOUT_S, dimensions=(50, 200))
    child.expect(pexpect.EOF)
    child.close()
    return str(child.before)


def assert_no_raw(text: str) -> None:
    for seq in RAW:
        assert seq not in text, f"raw {seq!r} reached the output"


@pytest.fixture(scope="module")
def hostile_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A KB whose documents and file names carry escape sequences, indexed by the real `kb index`."""
    root = tmp_path_factory.mktemp("hostile") / "kb"
    root.mkdir()
    (root / "zorblatt.md").write_text(ESC_DOC, encoding="utf-8")
    (root / FORGED_NAME).write_text(FORGED_DOC, encoding="utf-8")
    (root / ESC_NAME).write_text(ESC_NAME_DOC, encoding="utf-8")
    (root / "plain.md").write_text("# Plain\n\nNothing to see; the gizmo count is 3.\n", encoding="utf-8")
    r = run_kb("index", "--kb", str(root))
    assert r.returncode == 0, r.stderr
    return root


def test_search_shows_escape_sequences_from_a_document_visibly(hostile_kb: Path) -> None:
    r = run_kb("search", "zorblatt timeout", "--kb", str(hostile_kb), "-t", "grep")
    assert r.returncode == 0, r.stderr
    assert_no_raw(r.stdout + r.stderr)
    assert "␛]0;pwned-title␇" in r.stdout and "␛[2J" in r.stdout and "\\x9b31m" in r.stdout and "\\u202e" in r.stdout
    assert "[bold red]not markup[/]" in r.stdout  # rich markup inside a document is text, not styling


def test_search_file_name_with_newline_stays_on_one_line(hostile_kb: Path) -> None:
    r = run_kb("search", "quuxfrob", "--kb", str(hostile_kb), "-t", "grep")
    assert r.returncode == 0, r.stderr
    head = r.stdout.splitlines()[0]
    assert "evil␊[9] forged.md:L1.md:L" in head
    assert not any(line.startswith("[9]") for line in r.stdout.splitlines())


def test_search_on_a_terminal_keeps_kb_links_and_drops_foreign_ones(hostile_kb: Path) -> None:
    out = pty_kb("search", "zorblatt timeout", "--kb", str(hostile_kb), "-t", "grep")
    assert_no_raw(out)
    targets = re.findall(r"\x1b\]8;[^;]*;([^\x1b\x07]*)", out)
    links = [t for t in targets if t]
    assert links, "kb's own file links are missing on a terminal"
    assert all(t.startswith(hostile_kb.resolve().as_uri() + "/") and re.search(r"#L\d+$", t) for t in links), links


def test_ask_footnotes_cannot_be_forged_by_a_file_name(hostile_kb: Path) -> None:
    r = run_kb("ask", "What is the quuxfrob limit?", "--kb", str(hostile_kb))
    assert r.returncode == 0, r.stdout + r.stderr
    body, footer = r.stdout.rsplit("\n---\n", 1)
    lines = footer.strip().split("\n")
    assert all(re.match(r"^\[\d+\] ", ln) for ln in lines), lines
    assert any("evil␊[9] forged.md:L1.md:L" in ln for ln in lines)
    assert not any(ln.startswith("[9]") for ln in r.stdout.splitlines())


def test_ask_answer_text_is_neutralized(hostile_kb: Path) -> None:
    r = run_kb("ask", "What is the zorblatt timeout?", "--kb", str(hostile_kb), "--trace")
    assert r.returncode == 0, r.stdout + r.stderr
    assert_no_raw(r.stdout + r.stderr)
    assert "␛[2J" in r.stdout and "42 seconds" in r.stdout


def test_ask_on_a_terminal_links_footnotes_to_file_and_line(hostile_kb: Path) -> None:
    out = pty_kb("ask", "What is the zorblatt timeout?", "--kb", str(hostile_kb))
    assert_no_raw(out)
    targets = [t for t in re.findall(r"\x1b\]8;[^;]*;([^\x1b\x07]*)", out) if t]
    assert targets and all(t.startswith(hostile_kb.resolve().as_uri() + "/zorblatt.md#L") for t in targets), targets


def test_ask_json_escapes_c1_and_bidi_and_keeps_cjk_readable(hostile_kb: Path) -> None:
    r = run_kb("ask", "What is the zorblatt timeout?", "--kb", str(hostile_kb), "--json")
    assert r.returncode == 0, r.stderr
    assert_no_raw(r.stdout)
    assert "\\u009b31m" in r.stdout and "\\u202e" in r.stdout and "\\u001b" in r.stdout
    assert "配置说明" in r.stdout  # CJK stays readable
    doc = json.loads(r.stdout)
    assert C1_CSI in doc["answer"] and "\u202e" in doc["answer"]  # escaped, not altered


def test_ask_events_lines_are_json_without_raw_controls(hostile_kb: Path) -> None:
    r = run_kb("ask", "What is the zorblatt timeout?", "--kb", str(hostile_kb), "--events")
    assert r.returncode == 0, r.stderr
    assert_no_raw(r.stdout)
    events = [json.loads(line) for line in r.stdout.splitlines()]
    message = next(e for e in events if e["type"] == "message")
    assert "\u202e" in message["text"]


def test_search_json_escapes_controls_in_text_and_paths(hostile_kb: Path) -> None:
    r = run_kb("search", "quuxfrob", "--kb", str(hostile_kb), "-t", "grep", "--json")
    assert r.returncode == 0, r.stderr
    assert "\\n[9] forged.md" in r.stdout
    assert json.loads(r.stdout)["results"][0]["path"] == FORGED_NAME


def test_links_report_escapes_a_file_name_with_a_window_title_sequence(hostile_kb: Path) -> None:
    r = run_kb("links", "--kb", str(hostile_kb))
    assert r.returncode == 1, r.stdout + r.stderr
    assert_no_raw(r.stdout + r.stderr)
    bad = [ln for ln in r.stdout.splitlines() if "missing-guide.md" in ln]
    assert len(bad) == 1 and bad[0].startswith("title␛]0;pwned-title␇.md:3: ")


def test_check_report_escapes_spec_and_document_text(hostile_kb: Path, tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text('version: 1\nchecks:\n  - id: esc\n    question: "What is the zorblatt timeout? \\e[2J \\x9b"\n'
                    '    cites: nothing-here.md\n', encoding="utf-8")
    for fmt in ("human", "github"):
        r = run_kb("check", str(spec), "--kb", str(hostile_kb), "--format", fmt)
        assert r.returncode == 1, r.stdout + r.stderr
        assert_no_raw(r.stdout + r.stderr)
        # the one query cleaner removes the question's escape sequences whole; document text stays visible
        assert "zorblatt timeout? [2J" not in r.stdout and "zorblatt timeout?" in r.stdout
        if fmt == "human":
            assert "␛[2J" in r.stdout  # the cited document's clear-screen, shown, not interpreted
    junit = run_kb("check", str(spec), "--kb", str(hostile_kb), "--format", "junit")
    import xml.etree.ElementTree as ET

    ET.fromstring(junit.stdout.split("\n", 1)[1])  # control characters would make it invalid XML


def test_index_report_and_status_escape_names(tmp_path: Path) -> None:
    root = tmp_path / f"kb{CLEAR}"
    root.mkdir()
    (root / f"bin{OSC0_TITLE}.md").write_bytes(b"\x00\x01binary\x00" * 50)
    (root / "ok.md").write_text("# Ok\n\nfine\n", encoding="utf-8")
    r = run_kb("index", "--kb", str(root))
    assert r.returncode == 0, r.stderr
    assert_no_raw(r.stdout + r.stderr)
    assert "skipped bin␛]0;pwned-title␇.md" in r.stderr
    s = run_kb("status", "--kb", str(root))
    assert s.returncode == 0, s.stderr
    assert_no_raw(s.stdout + s.stderr)
    assert "kb␛[2J" in s.stdout


def test_error_message_with_escapes_is_shown_visibly(tmp_path: Path) -> None:
    r = run_kb("search", "x", "--kb", str(tmp_path / f"none{OSC0_TITLE}"), "-t", "vector")
    assert r.returncode != 0
    assert_no_raw(r.stdout + r.stderr)


def test_chat_answer_sources_and_open_are_neutralized(hostile_kb: Path, tmp_path: Path) -> None:
    kb = copy_indexed(hostile_kb, tmp_path / "kb")
    r = run_kb("chat", "--kb", str(kb), input="What is the zorblatt timeout?\n/sources\n/open 1\n/threads\n")
    assert r.returncode == 0, r.stdout + r.stderr
    assert_no_raw(r.stdout + r.stderr)
    assert r.stdout.count("␛[2J") >= 2  # in the answer and in the opened lines
