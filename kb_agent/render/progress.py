"""Progress for long commands when stderr is not a terminal (CI logs, files, pipes): nothing can be
redrawn there, so one plain line every few seconds (KB_PROGRESS_INTERVAL) says where the work is.

On a terminal the commands use rich's live display instead; this module is for everything else.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Self

from kb_agent.render.safe import safe_text

if TYPE_CHECKING:
    from rich.console import Console

log = logging.getLogger(__name__)


def duration(seconds: float) -> str:
    """`42 s`, `3m05s`, `1h02m`: short, for progress lines and ETAs."""
    s = max(round(seconds), 0)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class ProgressLines:
    """Writes `label: <describe()> · <elapsed>` on `console` every `interval` seconds until stopped.

    A timer thread writes, so a line appears on time even while one long step (a big embedding
    batch, a slow model call) runs. `describe` returns the current state in words, or None to skip
    a beat. Use as a context manager; an interval of 0 writes nothing.
    """

    def __init__(self, console: Console, label: str, describe: Callable[[], str | None], *, interval: float) -> None:
        self.console = console
        self.label = label
        self.describe = describe
        self.interval = interval
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.interval <= 0 or self._thread is not None:
            return
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="kb-progress", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def line(self) -> str | None:
        """The line that would be written now (None: nothing to say yet)."""
        state = self.describe()
        if state is None:
            return None
        return f"{self.label}: {state} · {duration(time.monotonic() - self.started)}"

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                text = self.line()
            except Exception:  # a progress line must never break the work it reports on
                log.debug("progress line failed", exc_info=True)
                continue
            if text:
                self.console.print(safe_text(text, one_line=True), markup=False, highlight=False, soft_wrap=True)


class IndexTracker:
    """Follows `build_index(on_progress=…)` and says where the run is: files, chunks, vectors, rate, ETA.

    Fed from the indexing thread, read by the progress line or bar; the reads tolerate a half-updated state.
    """

    def __init__(self) -> None:
        self.phase = "starting"
        self.files_done = 0
        self.files_total = 0
        self.chunks_done = 0
        self.chunks_total = 0
        self.model_calls = 0
        self.model_seconds = 0.0
        self._embed_started: float | None = None
        self._embed_base = 0

    def update(self, p: Any) -> None:
        """Take one IndexProgress (phase, files_done, files_total, chunks_done, and chunks_total when known)."""
        self.phase = str(p.phase)
        self.files_done, self.files_total = int(p.files_done), int(p.files_total)
        self.chunks_done = int(p.chunks_done)
        self.chunks_total = int(getattr(p, "chunks_total", 0) or 0)
        self.model_calls = int(getattr(p, "model_calls", 0) or 0)
        self.model_seconds = float(getattr(p, "model_seconds", 0.0) or 0.0)
        if self.phase == "embed" and self._embed_started is None:
            self._embed_started = time.monotonic()
            self._embed_base = self.chunks_done

    def rate(self) -> float | None:
        """Chunks embedded per second since embedding began (None before there is a measure)."""
        if self._embed_started is None:
            return None
        elapsed = time.monotonic() - self._embed_started
        done = self.chunks_done - self._embed_base
        return done / elapsed if elapsed > 0.5 and done > 0 else None

    def eta(self) -> float | None:
        """Seconds left, from the embedding rate (by chunks when their total is known, else by files)."""
        rate = self.rate()
        if rate is None:
            return None
        if self.chunks_total:
            return max(self.chunks_total - self.chunks_done, 0) / rate
        if self.files_done and self.files_total:
            per_file = self.chunks_done / self.files_done
            return max(self.files_total - self.files_done, 0) * per_file / rate
        return None

    def describe(self) -> str | None:
        """`120/400 files · 1,234/2,900 vectors embedded · 12.3 chunks/s · eta 2m15s`, by phase."""
        if self.phase == "starting":
            return "starting"
        if self.phase == "scan":
            return f"scanning · {self.files_total:,} files found"
        if self.phase == "questions":  # the model writes each chunk's questions; search works in full meanwhile
            line = f"questions · {self.chunks_done:,}/{self.chunks_total:,} chunks"
            if self.model_calls:
                line += f" · {self.model_calls:,} model calls · {self.model_seconds / self.model_calls:.1f} s/call"
            return line
        parts = [f"{self.files_done:,}/{self.files_total:,} files"]
        if self.phase == "lexical":
            done = self.files_done >= self.files_total
            parts[0] += " in the lexical index (searchable)" + (" · vectors next" if done else "")
        elif self.chunks_total:
            parts.append(f"{self.chunks_done:,}/{self.chunks_total:,} vectors embedded")
        else:
            parts.append(f"{self.chunks_done:,} chunks embedded")
        rate = self.rate()
        if rate is not None and self.phase == "embed":
            parts.append(f"{rate:.1f} chunks/s")
            eta = self.eta()
            if eta is not None:
                parts.append(f"eta {duration(eta)}")
        return " · ".join(parts)
