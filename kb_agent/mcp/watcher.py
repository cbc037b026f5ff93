"""`kb mcp --watch`: the index branch's `watch_index` in a background thread of the server, and what it
did (for the `status` tool). Updates are written by this process while calls read; each call's
reader refresh sees them."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kb_agent.errors import KbError
from kb_agent.mcp.freshness import MAX_STALE_FILES

if TYPE_CHECKING:
    from kb_agent.index.watch import WatchUpdate
    from kb_agent.settings import Settings

log = logging.getLogger(__name__)

# how long close() waits for the watcher to finish the update it is in
STOP_WAIT_S = 10.0


class BackgroundWatch:
    """A watcher thread and its record (written by the watcher thread, read by calls)."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.running = False
        self.updates = 0
        self.last: dict[str, Any] | None = None
        self.error: str | None = None

    def start(self, settings: Settings, on_update: Callable[[WatchUpdate], None] | None = None) -> None:
        """Watch the KB of `settings` until halt().

        A watcher that cannot go on (e.g. the index was built with other settings) stops with its
        error in `error`; the server goes on serving.

        Args:
            settings: the server's settings.
            on_update: also called with each update (the CLI prints one line).
        """

        def updated(u: WatchUpdate) -> None:
            self.record(u)
            if on_update is not None:
                on_update(u)

        def run() -> None:
            from kb_agent.index.watch import watch_index

            try:
                watch_index(settings, on_update=updated, stop=self.stop)
            except KbError as e:
                self.error = e.message + (f" ({e.hint})" if e.hint else "")
                log.error("watch stopped: %s", self.error)
            except Exception as e:  # a watcher bug must not take the server down with it
                self.error = f"{type(e).__name__}: {e}"
                log.exception("watch crashed")
            finally:
                self.running = False

        self.running = True
        self.thread = threading.Thread(target=run, name="kb-mcp-watch", daemon=True)
        self.thread.start()

    def record(self, u: WatchUpdate) -> None:
        self.updates += 1
        self.last = {"kind": u.kind, "paths": list(u.paths[:MAX_STALE_FILES]), "seconds": round(u.seconds, 3), "at": round(time.time(), 3),
                     "error": u.error.message if u.error is not None else None}

    def halt(self) -> None:
        """Ask the watcher to stop and wait for the update it is in (idempotent)."""
        self.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=STOP_WAIT_S)

    def as_dict(self) -> dict[str, Any]:
        """{"enabled": False} when not asked for; else running, updates so far, the last one and a fatal error."""
        if self.thread is None:
            return {"enabled": False}
        return {"enabled": True, "running": self.running, "updates": self.updates, "last_update": self.last, "error": self.error}
