"""A read-only knowledge base (a read-only bind mount: root cannot write there either): search, ask
and check answer from the built index, vector search degrades to grep with one notice, and `kb index`
and `kb chat` say why they cannot write."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.helpers import assert_one_clear_error, kb

NOTICE = "read-only file system"


def test_hybrid_search_degrades_to_grep_with_one_notice(ro_indexed_kb: Path, work: Path) -> None:
    run = kb("search", "how do I roll back a deploy", "--kb", str(ro_indexed_kb), cwd=work)
    assert run.code == 0, run.text
    assert "runbooks/rollback.md" in run.out
    notes = [ln for ln in run.err.splitlines() if ln.startswith("note:")]
    assert len(notes) == 1 and NOTICE in notes[0] and "grep" in notes[0], run.err
    assert "error" not in run.err.lower()


def test_vector_search_degrades_to_grep(ro_indexed_kb: Path, work: Path) -> None:
    run = kb("search", "rollback", "--tool", "vector", "--kb", str(ro_indexed_kb), "--json", cwd=work)
    assert run.code == 0, run.text
    assert json.loads(run.out)["results"], run.out
    assert run.err.count("note:") == 1 and NOTICE in run.err


def test_grep_files_related_still_answer(ro_indexed_kb: Path, work: Path) -> None:
    for tool, query in (("grep", "rollback"), ("files", "rollback"), ("related", "runbooks/rollback.md")):
        run = kb("search", query, "--tool", tool, "--kb", str(ro_indexed_kb), cwd=work)
        assert run.code == 0 and "runbooks/" in run.out, (tool, run.text)
        assert "error" not in run.err.lower(), (tool, run.err)
        # files ranks ties by content (hybrid): it may say once that content ranking used grep only
        assert run.err.count("note:") == (0 if tool == "grep" else run.err.count("note:")) <= 1, (tool, run.err)


def test_ask_answers_from_a_read_only_kb(ro_indexed_kb: Path, work: Path) -> None:
    run = kb("ask", "How do I roll back a deploy?", "--kb", str(ro_indexed_kb), "--json", cwd=work)
    assert run.code == 0, run.text
    answer = json.loads(run.out)
    assert any(c["path"] == "runbooks/rollback.md" for c in answer["citations"]), answer["citations"]
    assert run.err.count("note:") == 1 and NOTICE in run.err, run.err
    assert "audit" not in run.err  # the audit log it cannot append to is not the user's problem


def test_check_passes_on_a_read_only_kb(ro_indexed_kb: Path, work: Path) -> None:
    spec = work / "checks.yaml"
    spec.write_text("version: 1\nchecks:\n  - id: rollback\n    question: How do I roll back a deploy?\n    cites: [runbooks/rollback.md]\n", encoding="utf-8")
    run = kb("check", str(spec), "--kb", str(ro_indexed_kb), cwd=work)
    assert run.code == 0, run.text
    assert "1 passed, 0 failed" in run.out
    # the run was lexical only (vectors cannot open read-only): said once, on stderr, never in the report
    notes = [ln for ln in run.err.splitlines() if ln.startswith("note:")]
    assert len(notes) == 1 and "grep" in notes[0], run.err
    assert "note:" not in run.out


def test_index_says_it_cannot_write(ro_indexed_kb: Path, work: Path) -> None:
    (ro_indexed_kb.parent / ro_indexed_kb.name.removesuffix("-ro") / "new-note.md").write_text("# New\n\nfresh words\n", encoding="utf-8")
    run = kb("index", "--kb", str(ro_indexed_kb), cwd=work)
    assert_one_clear_error(run, 2, NOTICE, "cannot write the index")
    assert "--rebuild" not in run.err
    rebuild = kb("index", "--rebuild", "--kb", str(ro_indexed_kb), cwd=work)
    assert_one_clear_error(rebuild, 2, NOTICE)


def test_index_check_reads_a_read_only_kb(ro_indexed_kb: Path, work: Path) -> None:
    run = kb("index", "--check", "--kb", str(ro_indexed_kb), cwd=work)
    assert run.code == 0 and "index is fresh" in run.err, run.text


def test_chat_keeps_its_state_in_the_user_state_dir(ro_indexed_kb: Path, work: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    run = kb("chat", "--kb", str(ro_indexed_kb), cwd=work, stdin="How do I roll back a deploy?\n/quit\n", env={"XDG_STATE_HOME": str(state), "HOME": str(tmp_path)})
    assert run.code == 0, run.text
    assert "runbooks/rollback.md" in run.out
    assert "cannot be written (read-only file system)" in run.err and str(state / "kb") in run.err, run.err
    assert list((state / "kb").glob("*/chat.sqlite")), "the chat thread is kept under XDG_STATE_HOME/kb"
    assert "unexpected" not in run.err


def test_chat_state_defaults_to_local_state_under_home(ro_indexed_kb: Path, work: Path, tmp_path: Path) -> None:
    run = kb("chat", "--kb", str(ro_indexed_kb), cwd=work, stdin="/quit\n", env={"HOME": str(tmp_path), "XDG_STATE_HOME": ""})
    assert run.code == 0, run.text
    assert list((tmp_path / ".local" / "state" / "kb").glob("*/chat.sqlite")), run.err
