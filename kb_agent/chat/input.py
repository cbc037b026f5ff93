"""Line input for `kb chat`: prompt_toolkit editing with a persistent history and multi-line input on a
terminal, plain line-by-line reading otherwise; and the one yes/no question chat ever asks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console

PROMPT = "kb> "
CONTINUATION = "... "


def read_inputs(*, interactive: bool, stdin: TextIO, history: Path) -> Iterator[str]:
    """Each submitted input (multi-line inputs joined with newlines) until EOF.

    A line ending in `\\` continues on the next one, on a terminal and in a script alike.
    """
    return prompt_inputs(history) if interactive else stream_inputs(stdin)


def prompt_inputs(history: Path) -> Iterator[str]:
    """Inputs from the terminal; Enter submits, `\\` then Enter or Esc then Enter adds a line; Ctrl-C drops the line."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.key_binding import KeyBindings

    bindings = KeyBindings()

    @bindings.add("enter")
    def _enter(event: Any) -> None:
        buf = event.current_buffer
        if buf.document.is_cursor_at_the_end and buf.text.endswith("\\"):
            buf.delete_before_cursor(1)
            buf.insert_text("\n")
        else:
            buf.validate_and_handle()

    @bindings.add("escape", "enter")
    def _newline(event: Any) -> None:
        event.current_buffer.insert_text("\n")

    prompt: Any = PromptSession(
        history=FileHistory(str(history)), multiline=True, key_bindings=bindings,
        prompt_continuation=lambda width, line_no, wrap: CONTINUATION,
    )
    while True:
        try:
            yield prompt.prompt(PROMPT)
        except KeyboardInterrupt:  # Ctrl-C at the prompt drops the line, like a shell
            continue
        except EOFError:
            return


def stream_inputs(stdin: TextIO) -> Iterator[str]:
    """Inputs from a pipe or file: one per line, `\\` at the end of a line continues it."""
    parts: list[str] = []
    while True:
        line = stdin.readline()
        if not line:
            if parts:
                yield "\n".join(parts)
            return
        line = line.rstrip("\r\n")
        if line.endswith("\\"):
            parts.append(line[:-1])
            continue
        parts.append(line)
        yield "\n".join(parts)
        parts = []


def ask_yes(question: str, console: Console) -> bool:
    """A [Y/n] question on the terminal (Enter means yes; EOF or Ctrl-C means no)."""
    console.print(f"{question} [Y/n] ", end="", highlight=False, markup=False)
    try:
        reply = input()
    except (EOFError, KeyboardInterrupt):
        console.print()
        return False
    return reply.strip().lower() in ("", "y", "yes")
