"""Is the index behind the files on disk? The check `kb index --check` makes, at most every few seconds.

A long-running server answers many calls; walking and stat-ing the KB on every one would cost more
than a warm search. The answer is kept for FRESHNESS_INTERVAL_S and recomputed on the next call after
that, or at once when the index moved (a re-index by another process) or a caller asks.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kb_agent.errors import KbError

if TYPE_CHECKING:
    from kb_agent.settings import Settings

log = logging.getLogger(__name__)

# An edit shows up as `stale` within this many seconds; the walk behind it costs a few ms per
# thousand files (one stat each, a hash only for files whose mtime moved), so paying it every couple
# of seconds keeps warm calls warm.
FRESHNESS_INTERVAL_S = 2.0
# how many stale paths a result names; the count is always complete
MAX_STALE_FILES = 20


@dataclass(frozen=True, slots=True)
class Freshness:
    """What changed on disk since the index was built (all empty when fresh)."""

    new: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    checked_at: float = 0.0  # time.time() of the check
    missing: bool = False  # no index at all (the tools that need one say so themselves)

    @property
    def stale(self) -> bool:
        return bool(self.new or self.changed or self.deleted)

    @property
    def files(self) -> list[str]:
        return sorted({*self.new, *self.changed, *self.deleted})

    def note(self) -> str | None:
        """One sentence for a model reader, or None when fresh."""
        if not self.stale:
            return None
        parts = [f"{len(v)} {k}" for k, v in (("new", self.new), ("changed", self.changed), ("deleted", self.deleted)) if v]
        shown = self.files[:MAX_STALE_FILES]
        more = f" and {len(self.files) - len(shown)} more" if len(self.files) > len(shown) else ""
        return (f"the index is stale: {', '.join(parts)} files since the last `kb index` ({', '.join(shown)}{more}); "
                "results may miss or misplace those edits until the KB is re-indexed")


class FreshnessCheck:
    """Cached `build_index(check=True)`; thread-safe.

    Args:
        settings: the server's settings (KB root, embedding provider for the fingerprint check).
        interval_s: how long an answer is reused.
        clock: monotonic seconds (tests pass a fake one).
    """

    def __init__(self, settings: Settings, *, interval_s: float = FRESHNESS_INTERVAL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.interval_s = interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._last: Freshness | None = None
        self._at = 0.0

    def get(self) -> Freshness:
        """The cached answer when it is recent enough, else a new check."""
        with self._lock:
            now = self._clock()
            if self._last is None or now - self._at >= self.interval_s:
                self._last = self._check()
                self._at = now
            return self._last

    def invalidate(self) -> None:
        """Forget the cached answer (the index moved): the next `get` checks again."""
        with self._lock:
            self._last = None

    def _check(self) -> Freshness:
        from kb_agent.index.build import build_index, catalog_path
        from kb_agent.names import index_dir

        try:
            if not catalog_path(index_dir(self.settings.kb_root())).exists():
                return Freshness(checked_at=time.time(), missing=True)
            report = build_index(self.settings, check=True)
        except KbError as e:  # an incompatible or unreadable index: the tools themselves say so
            log.debug("freshness check failed: %s", e.message)
            return Freshness(checked_at=time.time())
        return Freshness(new=report.indexed, changed=report.updated, deleted=report.removed, checked_at=time.time())
