"""`kb index --watch` (and `kb mcp --watch`): an initial sync, then incremental updates of only the
paths that changed, debounced, as files are created, edited, deleted or renamed.

File events come from watchfiles (the Rust `notify` crate), imported only here. Events pass a
filter first: only markdown files, the ignore files and folders count; hidden paths (so `.kb/`
itself, `.git/`, editors' `.foo.md.swp`) and editors' temp files (`foo.md~`, vim's `4913`,
`foo.md.tmp`, JetBrains' `___jb_tmp___`) never start an update. An editor's atomic save — write a
temp file, rename it over the original — arrives as one batch and ends as one `updated`.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from kb_agent.corpus.discover import IGNORE_FILES, MARKDOWN_SUFFIXES, SKIPPED_DIRS
from kb_agent.errors import ConfigError, IndexIncompatible, IndexLocked, KbError, KbRootNotFound

if TYPE_CHECKING:
    from kb_agent.index.build import ProgressFn
    from kb_agent.index.questions import QuestionWriter
    from kb_agent.settings import Settings
    from kb_agent.types import IndexReport

log = logging.getLogger(__name__)

# Quiet time that ends a batch of events: long enough that an editor's save (temp file, rename,
# chmod) lands in one batch, short enough that a save is searchable well within 2 s.
DEBOUNCE_S = 0.3
# A batch is cut after this long even while events keep coming (e.g. a `git checkout` of many files).
MAX_BATCH_S = 2.0
# How often the watcher thread checks `stop` when no event comes.
STOP_POLL_MS = 200
# After a failed update (e.g. an embedding server down) the same paths are retried after this long.
RETRY_S = 5.0
# Another writer holds the lock (a manual `kb index`): wait this long per try, then try again.
LOCK_WAIT_S = 1.0


class StopFlag(Protocol):
    def is_set(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class WatchUpdate:
    """One update of a watch session, for the caller's one-line report.

    `report` is None when the update failed (`error` says why; the paths are retried)."""

    kind: str  # "initial" | "update" | "rescan" (an ignore file changed: the whole tree) | "embed" (vectors only) | "error"
    paths: tuple[str, ...] = ()
    report: IndexReport | None = None
    error: KbError | None = None
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        """Whether the index moved (files written or removed, or vectors added)."""
        r = self.report
        return r is not None and bool(r.stale or r.chunks_embedded or (self.kind == "initial"))


# editors' temp and backup files: vim's `4913` probe and `foo~` backups, `.tmp`/`.bak`/`.orig`
# leftovers, JetBrains' safe-write files; hidden files (`.foo.swp`, `.#foo`) are dropped before
TEMP_SUFFIXES = ("~", ".tmp", ".temp", ".bak", ".orig", ".swp", ".swx", "___jb_tmp___", "___jb_old___", ".crdownload", ".part")
TEMP_NAMES = ("4913",)


@dataclass
class _Filter:
    """Which events may matter to the index (the exact rules are applied by `discover_paths`)."""

    root: Path
    _resolved: Path = field(init=False)

    def __post_init__(self) -> None:
        self._resolved = self.root.resolve()

    def rel(self, path: str) -> str | None:
        p = Path(path)
        for base in (self._resolved, self.root):
            try:
                return p.relative_to(base).as_posix()
            except ValueError:
                continue
        return None

    def __call__(self, change: Any, path: str) -> bool:
        rel = self.rel(path)
        if rel is None or rel in ("", "."):
            return False
        parts = rel.split("/")
        name = parts[-1]
        if any(p.startswith(".") or p in SKIPPED_DIRS for p in parts[:-1]):
            return False  # inside `.kb/`, `.git/`, another hidden or skipped folder
        if name in IGNORE_FILES:
            return True
        if name.startswith(".") or name in SKIPPED_DIRS or name in TEMP_NAMES or name.endswith(TEMP_SUFFIXES):
            return False
        if name.lower().endswith(MARKDOWN_SUFFIXES):
            return True
        full = self.root / rel
        if full.is_dir():
            return True  # a folder created, or renamed into place: its files are walked
        # gone, and not markdown: perhaps a deleted or renamed-away folder (the catalog knows what was
        # under it; for anything else the update finds nothing to do and reports nothing)
        return not full.exists()


def watch_index(
    settings: Settings,
    *,
    on_update: Callable[[WatchUpdate], None] | None = None,
    stop: StopFlag | None = None,
    debounce_s: float = DEBOUNCE_S,
    on_progress: ProgressFn | None = None,
    on_ready: Callable[[], None] | None = None,
    questions: QuestionWriter | None = None,
) -> None:
    """Keep the index of `settings`' KB current until `stop` is set (or KeyboardInterrupt).

    An initial sync (`build_index`), then, for each batch of file events once `debounce_s` passed
    without a new one, `update_index` on only the changed paths (a change to .gitignore/.kbignore
    rescans the whole tree). Embedding never delays the lexical update of a new edit: it pauses
    between batches when events arrive and resumes once they are applied. Safe to run in a
    thread (the MCP server does); one writer at a time through the index lock: a manual `kb index`
    meanwhile makes an update wait for it.

    Args:
        settings: the KB and index settings.
        on_update: called after each update with a WatchUpdate (never for batches that changed nothing).
        stop: a `threading.Event` (anything with `is_set()`); watching ends soon after it is set.
        debounce_s: quiet time that ends a batch of events.
        on_progress: passed to the indexer (progress of long updates).
        on_ready: called once the watcher is listening, before the initial sync starts.
        questions: a chat model writing each new or changed chunk's questions after its vectors
            (`kb index --watch --questions`); it pauses for new events like embedding does.

    Raises:
        IndexIncompatible: the index was built with other settings (run `kb index --rebuild`).
        KbRootNotFound, ConfigError: as `build_index`.
    """
    from kb_agent.index.build import build_index, update_index

    root = settings.kb_root()
    flag: StopFlag = stop if stop is not None else threading.Event()
    events: queue.Queue[set[tuple[Any, str]] | BaseException] = queue.Queue()
    filt = _Filter(root)
    listening = threading.Event()
    halt = threading.Event()  # our own end, so the watcher thread stops when this function returns

    class _Either:
        def is_set(self) -> bool:
            return flag.is_set() or halt.is_set()

    def seen(change: Any, path: str) -> bool:
        # any event, even one filtered out, shows the Rust watcher is set up: a reader of the index
        # (`kb mcp` polled every 0.2 s) touches `.kb/` often enough that no timeout-yield comes
        listening.set()
        return filt(change, path)

    def listen() -> None:
        import watchfiles

        try:
            for changes in watchfiles.watch(
                root, watch_filter=seen, debounce=int(MAX_BATCH_S * 1000), step=int(debounce_s * 1000), stop_event=_Either(),
                rust_timeout=STOP_POLL_MS, yield_on_timeout=True, raise_interrupt=False,
            ):
                listening.set()
                if changes:
                    events.put(changes)
        except BaseException as e:  # noqa: BLE001 - handed to the main loop, which raises it there
            events.put(e)
        finally:
            listening.set()

    thread = threading.Thread(target=listen, name="kb-watch", daemon=True)
    thread.start()
    listening.wait(timeout=60.0)  # the first (empty) yield says the Rust watcher is set up (it walks the tree first)
    if on_ready is not None:
        on_ready()

    def emit(update: WatchUpdate) -> None:
        if on_update is not None and (update.changed or update.error is not None):
            on_update(update)

    def busy() -> bool:
        return not events.empty() or flag.is_set()

    try:
        started = time.perf_counter()
        report = build_index(settings, on_progress=on_progress, should_pause=busy, wait_s=LOCK_WAIT_S * 30, questions=questions)
        emit(WatchUpdate("initial", report=report, seconds=time.perf_counter() - started))
        todo: set[str] = set()
        rescan = False
        pending = report.chunks_pending
        while not flag.is_set():
            wait = 0.0 if (pending or todo or rescan) else STOP_POLL_MS / 1000
            try:
                item = events.get(timeout=wait) if wait else events.get_nowait()
            except queue.Empty:
                item = None
            while item is not None:  # everything that arrived: one update
                if isinstance(item, BaseException):
                    if isinstance(item, Exception) and not isinstance(item, KbError):
                        raise KbError(f"cannot watch {root} for changes: {item}",
                                      hint="on a network file system, or past the inotify watch limit, set WATCHFILES_FORCE_POLLING=1 "
                                           "(or raise fs.inotify.max_user_watches)") from item
                    raise item
                for _change, path in item:
                    rel = filt.rel(path)
                    if rel is None:
                        continue
                    if rel.rsplit("/", 1)[-1] in IGNORE_FILES:
                        rescan = True
                    todo.add(rel)
                try:
                    item = events.get_nowait()
                except queue.Empty:
                    item = None
            if flag.is_set():
                break
            if not (todo or rescan or pending):
                continue
            kind = "rescan" if rescan else ("update" if todo else "embed")
            paths = tuple(sorted(todo))
            started = time.perf_counter()
            try:
                if rescan:
                    report = build_index(settings, on_progress=on_progress, should_pause=busy, wait_s=LOCK_WAIT_S, questions=questions)
                else:
                    report = update_index(settings, paths, on_progress=on_progress, should_pause=busy, wait_s=LOCK_WAIT_S, questions=questions)
            except IndexLocked:
                continue  # another writer: keep the paths, try again (the lock wait paced this loop)
            except (IndexIncompatible, KbRootNotFound, ConfigError):
                raise  # nothing a retry would fix
            except KbError as e:
                emit(WatchUpdate("error", paths=paths, error=e, seconds=time.perf_counter() - started))
                if _sleep(flag, RETRY_S):
                    break
                continue
            todo.clear()
            rescan = False
            pending = report.chunks_pending
            emit(WatchUpdate(kind, paths=paths, report=report, seconds=time.perf_counter() - started))
    finally:
        halt.set()
        thread.join(timeout=2 * STOP_POLL_MS / 1000 + 1.0)


def _sleep(flag: StopFlag, seconds: float) -> bool:
    """Sleep up to `seconds`; True when `flag` was set meanwhile."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if flag.is_set():
            return True
        time.sleep(0.05)
    return flag.is_set()
