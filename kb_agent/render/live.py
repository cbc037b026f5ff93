"""The live status on stderr while the agent works: the current node and step, then the model's text
as it streams; transient, so it disappears before the verified answer is printed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kb_agent.render.safe import safe_text

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

# streamed model text shown live is cut to its last lines so the live region stays on one screen
LIVE_TAIL_LINES = 12
# a tool input in the status line is cut here; the line must fit next to the node name
STATUS_INPUT_CHARS = 40


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """One event from `Engine.answer_query(on_event=…)`, typed: a node or step starting/finishing, or a token."""

    type: str  # "progress" | "token"
    node: str = ""
    status: str = ""  # "start" | "done"
    step: str | None = None
    tool: str = ""
    input: str = ""
    iteration: int = 0
    text: str = ""  # a token's text

    @classmethod
    def from_dict(cls, event: Mapping[str, Any]) -> ProgressEvent:
        """Read the engine's event dict; unknown keys are ignored, missing ones take defaults."""
        step = event.get("step")
        return cls(
            type=str(event.get("type", "")), node=str(event.get("node", "")), status=str(event.get("status", "")),
            step=None if step is None else str(step), tool=str(event.get("tool", "")), input=str(event.get("input", "")),
            iteration=int(event.get("iteration") or 0), text=str(event.get("text", "")),
        )

    def label(self) -> str:
        """`node [iteration] step tool('input')…` — what is running now, neutralized for the terminal."""
        it = f" [{self.iteration}]" if self.iteration else ""
        step = f" {self.step} {self.tool}({self.input[:STATUS_INPUT_CHARS]!r})" if self.step is not None else ""
        return safe_text(f"{self.node}{it}{step}…", one_line=True)


class LiveStatus:
    """A transient spinner naming the running step; with `stream=True` the model's streamed text is
    shown above it, otherwise a token count.

    Feed it with `on_event`; use as a context manager or call `start` / `stop`.
    """

    def __init__(self, console: Console, *, stream: bool = False) -> None:
        from rich.spinner import Spinner
        from rich.text import Text

        self.console = console
        self.stream = stream
        self._spinner = Spinner("dots", text=Text("thinking…" if stream else "starting…", style="dim"), style="dim")
        self._tokens: list[str] = []
        self._live: Any = None

    def start(self) -> None:
        from rich.live import Live

        self._live = Live(self._renderable(), console=self.console, transient=True, refresh_per_second=10)
        self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def __enter__(self) -> LiveStatus:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def on_event(self, event: Mapping[str, Any]) -> None:
        """Update the status from one engine event (a dict as the engine emits it)."""
        self.update(ProgressEvent.from_dict(event))

    def update(self, ev: ProgressEvent) -> None:
        from rich.text import Text

        if ev.type == "token":
            self._tokens.append(ev.text)
            label = "writing…" if self.stream else f"synthesize: the model is writing… ({len(self._tokens)} tokens)"
            self._spinner.update(text=Text(label, style="dim"))
        elif ev.type == "progress" and ev.status == "start":
            self._spinner.update(text=Text(ev.label(), style="dim"))
        else:
            return
        if self._live is not None:
            self._live.update(self._renderable())

    def _renderable(self) -> RenderableType:
        from rich.console import Group
        from rich.text import Text

        if not (self.stream and self._tokens):
            return self._spinner
        tail = "".join(self._tokens).splitlines()[-LIVE_TAIL_LINES:]
        return Group(Text(safe_text("\n".join(tail))), self._spinner)
