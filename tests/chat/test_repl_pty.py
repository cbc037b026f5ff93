"""The real `kb chat` REPL driven through a pseudo-terminal (pexpect), offline on the hash index:
follow-ups answered from the right file, Ctrl-C mid-answer, threads that survive a restart, bad input
and a corrupt chat database — never a traceback."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.support.chat import KB_BIN, chat_env

CITE = r"\[\d+\] ([\w./-]+\.md):L\d+"


def cited(output: str) -> list[str]:
    """The files of the footnotes printed after an answer."""
    return re.findall(CITE, output)


def test_follow_up_is_answered_from_the_right_file(chat_kb: Path, spawn_chat: Any) -> None:
    chat = spawn_chat(chat_kb, "--thread", "ops")
    banner = chat.prompt()
    assert "thread ops (new)" in banner
    first = chat.ask("How do I fail over Redis?")
    assert cited(first), first
    # alone, "when did that last happen?" has no subject; with the first turn it is about Redis failovers
    second = chat.ask("when did that last happen?")
    assert cited(second)[0] == "runbooks/redis-failover.md", second
    assert "OPS-1234" in second
    trace = chat.ask("/trace")
    assert "standalone" in trace and "Redis" in trace.split("standalone", 1)[1].split("\n", 1)[0]
    sources = chat.ask("/sources")
    assert "[1] runbooks/redis-failover.md:L" in sources
    # the footnote whose lines hold the answer (units are listed in document order, not by rank)
    n = next(int(m.group(1)) for m in re.finditer(r"\[(\d+)\] runbooks/redis-failover\.md:L(\d+)(?:-L(\d+))?", second)
             if int(m.group(2)) <= 53 <= int(m.group(3) or m.group(2)))
    opened = chat.ask(f"/open {n}")
    assert "The last unplanned failover was" in opened and "│" in opened
    assert "Traceback" not in "".join(chat.log)
    assert chat.quit() == 0
    assert (chat_kb / ".kb" / "chat_history").read_text(encoding="utf-8").count("when did that last happen?") == 1


def test_restart_with_thread_remembers(chat_kb: Path, spawn_chat: Any) -> None:
    chat = spawn_chat(chat_kb, "--thread", "deploys")
    chat.prompt()
    assert "runbooks/deploy-orders-api.md" in cited(chat.ask("How do I deploy orders-api?"))
    assert chat.quit() == 0

    again = spawn_chat(chat_kb, "--thread", "deploys")
    assert "resumed, 1 turn" in again.prompt()
    out = again.ask("and how do I roll that back?")
    assert cited(out)[0] == "runbooks/rollback.md", out
    assert "nwctl deploy rollback orders-api" in out
    threads = again.ask("/threads")
    assert re.search(r"\* deploys\s+2 turns", threads), threads
    # /new leaves the old thread alone; /switch comes back to it with its memory
    assert "new thread" in again.ask("/new")
    assert "resumed, 2 turns" in again.ask("/switch deploys")
    assert again.quit() == 0


def test_ctrl_c_cancels_the_answer_and_the_session_lives_on(chat_kb: Path, spawn_chat: Any) -> None:
    chat = spawn_chat(chat_kb, "slowpoke", slow=True)
    chat.prompt()
    chat.child.sendline("How do I deploy orders-api slowly?")
    chat.expect(r"tool_exec")  # the live status shows the agent at work
    time.sleep(0.5)
    t0 = time.monotonic()
    chat.child.sendintr()
    out = chat.prompt()
    assert time.monotonic() - t0 < 5, "Ctrl-C must not wait for the stalled search"
    assert "cancelled" in out and "Traceback" not in out
    # the session lives on: the next question is answered
    assert "runbooks/rollback.md" in cited(chat.ask("How do I roll back a deploy of orders-api?"))
    # the cancelled turn was not remembered
    assert re.search(r"\* slowpoke\s+1 turn\b", chat.ask("/threads"))
    t0 = time.monotonic()
    assert chat.quit() == 0
    assert time.monotonic() - t0 < 10


def test_bad_input_never_breaks_the_session(chat_kb: Path, spawn_chat: Any) -> None:
    chat = spawn_chat(chat_kb)
    chat.prompt()
    assert "error" not in chat.ask("") + chat.ask("   ")  # ignored: just a new prompt
    huge = chat.ask("x" * 4500)
    assert "4,500 characters; the limit is 4,000" in huge
    unknown = chat.ask("/frobnicate")
    assert "unknown command /frobnicate" in unknown and "/sources" in unknown
    assert "choose one of: auto, hybrid, grep, vector, files, related" in chat.ask("/tool nonsense")
    assert "no citation [3]" in chat.ask("/open 3")
    assert "tool: grep" in chat.ask("/tool grep")
    assert "tag filter: runbook" in chat.ask("/tag runbook")
    chat.child.sendline("/exit")
    chat.child.expect("\\$|$", timeout=10)
    chat.child.wait()
    assert "Traceback" not in "".join(chat.log)


def test_corrupt_chat_database_offers_a_fresh_thread(chat_kb: Path, spawn_chat: Any) -> None:
    db = chat_kb / ".kb" / "chat.sqlite"
    db.write_bytes(b"this is not a database\x00" * 100)
    chat = spawn_chat(chat_kb, "--thread", "work")
    chat.expect(r"\[Y/n\]")
    chat.child.sendline("y")
    out = chat.prompt()
    assert "unreadable" in out and "moved the unreadable chat database to" in out
    moved = list(db.parent.glob("chat.sqlite.corrupt-*"))
    assert len(moved) == 1 and moved[0].read_bytes().startswith(b"this is not a database")
    assert cited(chat.ask("How do I fail over Redis?"))
    assert chat.quit() == 0
    assert "Traceback" not in "".join(chat.log)


def test_scripted_stdin_reads_line_by_line(chat_kb: Path) -> None:
    script = "How do I fail over Redis?\n\nwhen did that \\\nlast happen?\n/sources\n/bogus\n"
    r = subprocess.run([KB_BIN, "chat", "--kb", str(chat_kb), "--thread", "script"], input=script, capture_output=True,
                       text=True, env=chat_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    answers = r.stdout.split("\n---\n")
    assert len(answers) == 3, r.stdout  # two answers with footers, then the rest
    assert "[1] runbooks/redis-failover.md:L" in answers[2]  # the follow-up's footer and /sources
    assert "unknown command /bogus" in r.stderr


def test_scripted_corrupt_database_is_moved_aside(chat_kb: Path) -> None:
    db = chat_kb / ".kb" / "chat.sqlite"
    db.write_bytes(b"\x00garbage" * 64)
    r = subprocess.run([KB_BIN, "chat", "--kb", str(chat_kb)], input="/threads\n", capture_output=True, text=True,
                       env=chat_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert "unreadable" in r.stderr and "Traceback" not in r.stderr
    assert list(db.parent.glob("chat.sqlite.corrupt-*"))


def test_no_index_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    r = subprocess.run([KB_BIN, "chat", "--kb", str(tmp_path)], input="hi\n", capture_output=True, text=True, env=chat_env(), timeout=60)
    assert r.returncode == 3, r.stderr
    assert "kb index" in r.stderr and "Traceback" not in r.stderr
