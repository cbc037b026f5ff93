"""Helpers for chat tests: the environment for a `kb chat` child and a pexpect driver for the REPL."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from tests.support.sample import kb_free_env

KB_BIN = str(Path(sys.executable).with_name("kb"))
SLOW_CHAT = str(Path(__file__).with_name("slow_chat.py"))
# a fresh prompt: prompt_toolkit turns bracketed paste on, then draws "kb>" (the space is a cursor
# move); the redraw of an accepted line has no 2004h, so this never matches the echo of a question
PROMPT = r"\x1b\[\?2004h[^\n]*?kb>"
# a question answered offline on the hash index takes a few seconds on a busy machine
TIMEOUT_S = 40
_ANSI = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]")


def chat_env(**extra: str) -> dict[str, str]:
    env = kb_free_env()
    env.update({"KB_EMBEDDING_PROVIDER": "hash", "KB_LLM_PROVIDER": "none", "TERM": "xterm-256color",
                "PROMPT_TOOLKIT_NO_CPR": "1", "PYTHONWARNINGS": "ignore"})
    env.update(extra)
    return env


def plain(text: str) -> str:
    """Terminal output without escape sequences (colours, cursor moves, hyperlinks)."""
    return _ANSI.sub("", text).replace("\r", "")


class Chat:
    """The real `kb chat` REPL in a pseudo-terminal."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        import pexpect

        self.child = pexpect.spawn(argv[0], argv[1:], env=env, encoding="utf-8", timeout=TIMEOUT_S, dimensions=(50, 160))
        self.log: list[str] = []
        raw = os.environ.get("CHAT_TEST_RAW_LOG")  # set by hand to keep the raw terminal stream for debugging
        if raw:
            self.child.logfile_read = open(raw, "a", encoding="utf-8")  # noqa: SIM115

    def expect(self, pattern: str, timeout: float = TIMEOUT_S) -> str:
        """Wait for `pattern` (a regex) and return everything printed before it, escapes stripped."""
        self.child.expect(pattern, timeout=timeout)
        seen = plain(str(self.child.before) + str(self.child.after))
        self.log.append(seen)
        return seen

    def prompt(self, timeout: float = TIMEOUT_S) -> str:
        return self.expect(PROMPT, timeout)

    def ask(self, line: str, timeout: float = TIMEOUT_S) -> str:
        """Send one line and return the output up to the next prompt."""
        self.child.sendline(line)
        return self.prompt(timeout)

    def quit(self) -> int:
        import pexpect

        self.child.sendcontrol("d")
        self.child.expect(pexpect.EOF, timeout=TIMEOUT_S)
        self.child.close()
        return int(self.child.exitstatus if self.child.exitstatus is not None else -1)

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


