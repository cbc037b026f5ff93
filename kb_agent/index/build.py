"""`kb index`: bring `.kb/` up to date with the files on disk — lexical first, vectors streaming in
after it; incremental by content hash (the whole tree, or only given paths), resumable after a
kill, one writer at a time.

A run has two phases, and a third when asked. The lexical phase commits every changed file's catalog
rows (chunks, BM25 statistics, headings, links) one file per transaction, so grep, files and related
answer in full as soon as it ends. The vector phase then embeds the chunks the catalog marks pending,
a batch per commit (`index/vectorize.py`). With a question writer (`kb index --questions`), the
question phase then has a chat model write the questions each chunk answers, a group per commit
(`index/questions.py`). Every commit bumps the catalog's generation, which readers watch to refresh
what they cached (`IndexReader.refresh`).
"""

from __future__ import annotations

import errno
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from kb_agent.corpus.fileio import unwritable_reason
from kb_agent.errors import IndexIncompatible, IndexLocked, index_write_error
from kb_agent.index.apply import chunk_id as chunk_id
from kb_agent.index.fingerprint import current_fingerprint, fingerprint_mismatch
from kb_agent.index.manifest import Catalog, FileRow
from kb_agent.index.recover import clear_for_rebuild
from kb_agent.index.scan import MAX_FILE_BYTES as MAX_FILE_BYTES
from kb_agent.index.scan import file_hash, scan
from kb_agent.index.scan import validate_text as validate_text
from kb_agent.index.vectorize import EMBEDDING_HEAD_SEPARATOR as EMBEDDING_HEAD_SEPARATOR
from kb_agent.index.vectorize import EMBEDDING_TEXT_FORMAT as EMBEDDING_TEXT_FORMAT
from kb_agent.index.vectorize import EMBEDDING_TEXT_PARAMS as EMBEDDING_TEXT_PARAMS
from kb_agent.index.vectorize import embedding_text as embedding_text
from kb_agent.names import index_dir as kb_index_dir
from kb_agent.types import FileSkip, IndexReport, QuestionPoolReport

if TYPE_CHECKING:
    from kb_agent.corpus.discover import Discovery
    from kb_agent.index.questions import QuestionWriter
    from kb_agent.index.vectors import VectorStore
    from kb_agent.settings import Settings


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """Where a run is: "scan" (files_total known), "lexical" (files_done of files_total written),
    "embed" (chunks_done of chunks_total embedded), "questions" (chunks_done of chunks_total given
    model questions, in model_calls calls and model_seconds), "done"."""

    phase: str
    files_done: int
    files_total: int
    chunks_done: int
    path: str = ""
    chunks_total: int = 0
    model_calls: int = 0
    model_seconds: float = 0.0


ProgressFn = Callable[[IndexProgress], None]
PauseFn = Callable[[], bool]


def catalog_path(index_dir: Path) -> Path:
    return index_dir / "catalog.sqlite"


def _ensure_index_dir(index_dir: Path) -> None:
    index_dir.mkdir(parents=True, exist_ok=True)
    ignore = index_dir / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# kb's index: rebuilt by `kb index`, never committed\n*\n", encoding="utf-8")


def build_index(
    settings: Settings,
    *,
    rebuild: bool = False,
    check: bool = False,
    wait_s: float = 0.0,
    on_progress: ProgressFn | None = None,
    should_pause: PauseFn | None = None,
    questions: QuestionWriter | None = None,
) -> IndexReport:
    """Index the KB root named by `settings`.

    Args:
        settings: loaded settings (KB root, embedding provider, Chroma URL).
        rebuild: drop everything and index from scratch.
        check: only compare disk with the index and report what is stale; writes nothing (an index
            built with other parameters raises IndexIncompatible).
        wait_s: how long to wait for another writer's lock before giving up.
        on_progress: called as work advances (library code never prints).
        should_pause: checked between embedding batches; when it returns True the run stops there,
            with the remaining chunks still pending (`IndexReport.chunks_pending`), to be embedded by
            the next run.
        questions: when given, a question phase follows the vectors: the writer's model writes up
            to `settings.questions_per_chunk` questions for each chunk that has none from a model,
            `settings.questions_batch_size` chunks per call (`IndexReport.questions`).

    Returns:
        An IndexReport: indexed, updated, unchanged, removed, skipped-with-reason.

    Raises:
        IndexLocked: another `kb index` holds the lock.
        IndexIncompatible: built with another model/chunker/schema and `rebuild` is False.
    """
    started = time.perf_counter()
    root = settings.kb_root()
    index_dir = kb_index_dir(root)
    if check:
        return _check(settings, root, index_dir, started)
    with _writer_lock(root, index_dir, wait_s):
        notes = clear_for_rebuild(settings, root, index_dir) if rebuild else []
        report = _run(settings, root, index_dir, rebuild=rebuild, paths=None, on_progress=on_progress, should_pause=should_pause, started=started, questions=questions)
        return replace(report, notes=tuple(notes)) if notes else report


def update_index(
    settings: Settings,
    paths: Iterable[str],
    *,
    wait_s: float = 0.0,
    on_progress: ProgressFn | None = None,
    should_pause: PauseFn | None = None,
    questions: QuestionWriter | None = None,
) -> IndexReport:
    """Bring only `paths` up to date — no walk of the rest of the tree (what watch mode calls).

    Each path is relative to the KB root (POSIX) and names a file or a folder, as it is now or as it
    was: a path that exists is indexed under the usual rules (hidden folders, .gitignore/.kbignore,
    size, encoding), one that is gone — or no longer part of the KB — is removed with everything
    under it. Chunks left pending by an earlier run are embedded too (and, with `questions`, given
    their questions). Without an index yet, this is a full `build_index`.

    Raises:
        IndexLocked: another writer holds the lock past `wait_s`.
        IndexIncompatible: built with another model/chunker/schema.
    """
    started = time.perf_counter()
    root = settings.kb_root()
    index_dir = kb_index_dir(root)
    rels = sorted({p.strip("/") for p in (_relative(root, p) for p in paths) if p is not None})
    with _writer_lock(root, index_dir, wait_s):
        return _run(settings, root, index_dir, rebuild=False, paths=rels, on_progress=on_progress, should_pause=should_pause, started=started, questions=questions)


def _relative(root: Path, path: str) -> str | None:
    """`path` relative to the root in POSIX form; absolute paths outside the root give None."""
    p = Path(path)
    if p.is_absolute():
        try:
            return p.relative_to(root.resolve()).as_posix() if p.is_relative_to(root.resolve()) else p.relative_to(root).as_posix()
        except ValueError:
            return None
    return p.as_posix()


@contextmanager
def _writer_lock(root: Path, index_dir: Path, wait_s: float) -> Iterator[None]:
    from filelock import FileLock, Timeout

    folder = index_dir if index_dir.is_dir() else root
    why = unwritable_reason(folder)
    if why is not None:
        raise index_write_error(errno.EROFS if why == "read-only file system" else errno.EACCES, why, str(folder))
    try:
        _ensure_index_dir(index_dir)
    except OSError as e:
        raise index_write_error(e.errno, e.strerror or str(e), str(index_dir)) from None
    lock = FileLock(str(index_dir / "index.lock"))
    try:
        lock.acquire(timeout=wait_s)
    except Timeout:
        raise IndexLocked("another `kb index` is writing this index", hint="wait for it to finish, or pass --wait SECONDS") from None
    except OSError as e:
        raise index_write_error(e.errno, e.strerror or str(e), str(index_dir / "index.lock")) from None
    try:
        yield
    finally:
        lock.release()


def _check(settings: Settings, root: Path, index_dir: Path, started: float) -> IndexReport:
    from kb_agent.corpus.discover import discover

    found = discover(root)
    known: dict[str, FileRow] = {}
    pending = 0
    if catalog_path(index_dir).exists():
        cat = Catalog.open(catalog_path(index_dir), readonly=True)
        try:
            known = cat.files()
            stored = cat.get_meta("fingerprint")
            pending = cat.pending_count()
        finally:
            cat.close()
        why = fingerprint_mismatch(json.loads(stored), current_fingerprint(settings)) if stored else None
        if why:
            raise IndexIncompatible(f"the index was built with {why}", hint="run `kb index --rebuild`")
    new, changed, unchanged = [], [], 0
    for rel, abspath in found.files:
        row = known.get(rel)
        try:
            st = abspath.stat()
        except OSError:
            continue
        if row is None:
            new.append(rel)
        elif (row.size, row.mtime_ns) == (st.st_size, st.st_mtime_ns):
            unchanged += 1
        else:
            from kb_agent.corpus.fileio import read_regular_bytes

            try:
                same = file_hash(read_regular_bytes(abspath, MAX_FILE_BYTES)) == row.hash
            except OSError:
                same = False
            if same:
                unchanged += 1
            else:
                changed.append(rel)
    present = {rel for rel, _ in found.files}
    removed = sorted(p for p in known if p not in present)
    return IndexReport(root=str(root), indexed=tuple(new), updated=tuple(changed), unchanged=unchanged, removed=tuple(removed), skipped=found.skipped,
                       duration_s=time.perf_counter() - started, checked_only=True, chunks_pending=pending)


def _under(path: str, scope: list[str]) -> bool:
    return any(path == s or path.startswith(s + "/") for s in scope)


def _run(
    settings: Settings, root: Path, index_dir: Path, *, rebuild: bool, paths: list[str] | None,
    on_progress: ProgressFn | None, should_pause: PauseFn | None, started: float, questions: QuestionWriter | None = None,
) -> IndexReport:
    from kb_agent.corpus.discover import discover, discover_paths
    from kb_agent.index.apply import apply_change, remove_path

    notify = on_progress or (lambda _p: None)
    cat = Catalog.open(catalog_path(index_dir))
    try:
        stored = cat.get_meta("fingerprint")
        if stored is not None and not rebuild:
            why = fingerprint_mismatch(json.loads(stored), current_fingerprint(settings))
            if why:
                raise IndexIncompatible(f"the index was built with {why}", hint="run `kb index --rebuild`")
        if rebuild:
            old = cat.get_meta("collection")
            cat.reset()
            if old:
                _open_store(settings, index_dir, old).drop()
            stored = None
        if stored is None:
            paths = None  # nothing indexed yet: every file is new, walk them all
        found: Discovery = discover(root) if paths is None else discover_paths(root, paths)
        known = cat.files()
        notify(IndexProgress("scan", 0, len(found.files), 0))
        scanned = scan(cat, found.files, known)
        cat.conn.commit()
        skipped: list[FileSkip] = [*found.skipped, *scanned.skipped]
        warnings = scanned.warnings
        changes = scanned.changes

        present = {rel for rel, _ in found.files} - set(scanned.gone)
        # a file that became too large / unreadable is dropped from the index, not kept stale
        skipped_now = {s.path for s in skipped}
        candidates = known if paths is None else {p: r for p, r in known.items() if _under(p, paths)}
        removed = sorted(p for p in candidates if p not in present or (p in skipped_now and known[p].status == "ok"))
        # an interrupted run may have left vectors no chunk uses (a rebuild also sweeps a server collection it could not drop)
        was_dirty = rebuild or cat.get_meta("dirty") == "1"
        pending = cat.pending_count()
        if not changes and not removed and not was_dirty and stored is not None and not pending:
            # nothing for the lexical or vector phase; the question phase may still have work
            if cat.get_meta("store_settled") != STORE_SETTLED and cat.get_meta("collection"):
                _settle(settings, index_dir, cat)
            quiet = _question_phase(settings, cat, questions, notify, should_pause) if questions is not None else None
            return IndexReport(root=str(root), unchanged=scanned.unchanged, skipped=tuple(skipped), warnings=tuple(warnings), chunks_total=cat.bm25_stats()[0],
                               duration_s=time.perf_counter() - started, questions=quiet)

        from kb_agent.index.embeddings import get_embedder

        embedder = get_embedder(settings)
        fp = current_fingerprint(settings, dim=embedder.dim)
        name = cat.get_meta("collection") or _collection_for(root, fp)
        cat.set_meta("fingerprint", json.dumps(fp, sort_keys=True))
        cat.set_meta("collection", name)
        if changes or removed:
            cat.set_meta("dirty", "1")  # until the stale vectors are deleted, the store holds some no chunk uses
        cat.bump_generation()
        cat.conn.commit()

        # lexical phase: every changed file in its own transaction, no model and no store needed
        stale: list[str] = []
        for rel in removed:
            stale += remove_path(cat, rel)
        indexed: list[str] = []
        updated: list[str] = []
        for n, ch in enumerate(changes, 1):
            applied = apply_change(cat, ch)
            stale += applied.stale_ids
            warnings.extend(applied.warnings)
            if applied.skip is not None:
                skipped.append(applied.skip)
            else:
                (updated if ch.path in known and known[ch.path].status == "ok" else indexed).append(ch.path)
            notify(IndexProgress("lexical", n, len(changes), 0, ch.path))
        if changes or removed:
            from kb_agent.index.links import resolve_all_links

            resolve_all_links(cat)
            cat.bump_generation()
            cat.conn.commit()

        # vector phase: drop what no chunk uses any more, then embed what is pending
        store = _open_store(settings, index_dir, name)
        drop = set(stale) | (store.all_ids() - cat.all_chunk_ids() if was_dirty else set())
        if drop:
            store.delete(sorted(drop))
        if was_dirty or changes or removed:
            cat.set_meta("dirty", "0")
            cat.conn.commit()
        total_files = len(changes)
        from kb_agent.index.vectorize import embed_pending

        def on_batch(done: int, total: int) -> None:
            notify(IndexProgress("embed", total_files, total_files, done, chunks_total=total))

        first = (*indexed, *updated) if paths is not None else ()  # a watch update's own files before any backlog
        embedded, left = embed_pending(cat, store, embedder, batch=settings.embedding_batch_size, on_batch=on_batch, should_pause=should_pause, first=first)
        if cat.get_meta("store_settled") != STORE_SETTLED:
            store.settle()
            cat.set_meta("store_settled", STORE_SETTLED)
            cat.conn.commit()
        if not left:
            cat.set_meta("built_at", str(time.time()))
            cat.conn.commit()
        # question phase: only once the vectors are complete (a paused run leaves both for the next one)
        asked = _question_phase(settings, cat, questions, notify, should_pause) if questions is not None and not left else None
        total = cat.bm25_stats()[0]
        notify(IndexProgress("done", total_files, total_files, embedded, chunks_total=embedded + left))
        return IndexReport(
            root=str(root), indexed=tuple(indexed), updated=tuple(updated), unchanged=scanned.unchanged, removed=tuple(removed),
            skipped=tuple(skipped), warnings=tuple(warnings), chunks_total=total, chunks_embedded=embedded, chunks_pending=left,
            duration_s=time.perf_counter() - started, questions=asked,
        )
    finally:
        cat.close()


def _question_phase(settings: Settings, cat: Catalog, writer: QuestionWriter, notify: ProgressFn, should_pause: PauseFn | None) -> QuestionPoolReport:
    from kb_agent.index.questions import QuestionProgress, write_questions

    def on_group(p: QuestionProgress) -> None:
        notify(IndexProgress("questions", 0, 0, p.chunks_done, chunks_total=p.chunks_total, model_calls=p.model_calls, model_seconds=p.seconds))

    return write_questions(cat, writer, per_chunk=settings.questions_per_chunk, batch=settings.questions_batch_size, on_group=on_group, should_pause=should_pause)


def _collection_for(root: Path, fp: dict[str, object]) -> str:
    from kb_agent.index.vectors import collection_name

    return collection_name(root, json.dumps(fp, sort_keys=True))


# catalog meta "store_settled": the collection's whole graph was written to disk at the writer's sync threshold
# (vectors.VectorStore.settle); an index from before has it unset, or "1" (settled at kb's earlier threshold of 100:
# up to 99 records outside the graph), and is settled by its next `kb index`
STORE_SETTLED = "2"


def _settle(settings: Settings, index_dir: Path, cat: Catalog) -> None:
    """Open the collection as its writer (older collections get the sync threshold) and settle it once."""
    _open_store(settings, index_dir, cat.get_meta("collection") or "").settle()
    cat.set_meta("store_settled", STORE_SETTLED)
    cat.conn.commit()


def _open_store(settings: Settings, index_dir: Path, name: str) -> VectorStore:
    from kb_agent.index.vectors import VectorStore

    return VectorStore(settings, index_dir, name)


def index_is_present(index_dir: Path) -> bool:
    return catalog_path(index_dir).exists() and os.path.getsize(catalog_path(index_dir)) > 0
