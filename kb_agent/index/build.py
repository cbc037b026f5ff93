"""`kb index`: bring `.kb/` up to date with the files on disk — incremental by content hash,
resumable after a kill, one writer at a time."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from kb_agent.corpus.fileio import UnsafeFile, read_regular_bytes, unwritable_reason
from kb_agent.errors import IndexIncompatible, IndexLocked, index_write_error
from kb_agent.index.embeddings import MAX_EMBED_CHARS
from kb_agent.index.fingerprint import current_fingerprint, fingerprint_mismatch
from kb_agent.index.manifest import Catalog, FileRow
from kb_agent.index.recover import clear_for_rebuild
from kb_agent.index.tokenize import tokenize
from kb_agent.names import index_dir as kb_index_dir
from kb_agent.types import Document, FileSkip, IndexReport

if TYPE_CHECKING:
    from kb_agent.index.embeddings import Embedder
    from kb_agent.index.vectors import VectorStore
    from kb_agent.settings import Settings

# Files above this are skipped with a reason: a 20 MB markdown file is almost always generated
# output, and chunking and embedding it would dominate the index for little value.
MAX_FILE_BYTES = 5 * 1024 * 1024
# A chunk is embedded as "title > heading > subheading", a newline, then its text: the breadcrumb
# gives a short section its context. The model sees at most MAX_EMBED_CHARS of it.
EMBEDDING_HEAD_SEPARATOR = " > "
EMBEDDING_TEXT_FORMAT = "{head}\n{text}"
# everything that shapes a vector besides the model; the index fingerprint hashes it
EMBEDDING_TEXT_PARAMS: dict[str, object] = {
    "format": EMBEDDING_TEXT_FORMAT,
    "head_separator": EMBEDDING_HEAD_SEPARATOR,
    "max_chars": MAX_EMBED_CHARS,
}


@dataclass(frozen=True, slots=True)
class IndexProgress:
    phase: str  # "scan" | "embed" | "done"
    files_done: int
    files_total: int
    chunks_done: int
    path: str = ""


ProgressFn = Callable[[IndexProgress], None]


@dataclass(frozen=True, slots=True)
class _Change:
    path: str
    abspath: Path
    size: int
    mtime_ns: int
    hash: str
    data: bytes


def catalog_path(index_dir: Path) -> Path:
    return index_dir / "catalog.sqlite"


def _ensure_index_dir(index_dir: Path) -> None:
    index_dir.mkdir(parents=True, exist_ok=True)
    ignore = index_dir / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# kb's index: rebuilt by `kb index`, never committed\n*\n", encoding="utf-8")


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def chunk_id(path: str, text: str, occurrence: int) -> str:
    """Stable id from content, not position: a line inserted above a chunk keeps its vector."""
    return hashlib.sha256(f"{path}\0{occurrence}\0{text}".encode()).hexdigest()[:32]


def validate_text(data: bytes) -> tuple[str | None, str | None]:
    """(decoded text, None) or (None, why it is skipped)."""
    if not data.strip():
        return None, "empty file"
    if b"\0" in data[:8192]:
        return None, "binary file (NUL bytes), not markdown"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        return None, f"not valid UTF-8 (line {line})"
    return text, None


def build_index(
    settings: Settings,
    *,
    rebuild: bool = False,
    check: bool = False,
    wait_s: float = 0.0,
    on_progress: ProgressFn | None = None,
) -> IndexReport:
    """Index the KB root named by `settings`.

    Args:
        settings: loaded settings (KB root, embedding provider, Chroma URL).
        rebuild: drop everything and index from scratch.
        check: only compare disk with the index and report what is stale; writes nothing (an index
            built with other parameters raises IndexIncompatible).
        wait_s: how long to wait for another writer's lock before giving up.
        on_progress: called as work advances (library code never prints).

    Returns:
        An IndexReport: indexed, updated, unchanged, removed, skipped-with-reason.

    Raises:
        IndexLocked: another `kb index` holds the lock.
        IndexIncompatible: built with another model/chunker/schema and `rebuild` is False.
    """
    from kb_agent.corpus.discover import discover

    started = time.perf_counter()
    root = settings.kb_root()
    index_dir = kb_index_dir(root)
    if check:
        return _check(settings, root, index_dir, started)

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
        notes = clear_for_rebuild(settings, root, index_dir) if rebuild else []
        report = _build(settings, root, index_dir, rebuild, on_progress, started, discover)
        return replace(report, notes=tuple(notes)) if notes else report
    finally:
        lock.release()


def _check(settings: Settings, root: Path, index_dir: Path, started: float) -> IndexReport:
    from kb_agent.corpus.discover import discover

    found = discover(root)
    known: dict[str, FileRow] = {}
    if catalog_path(index_dir).exists():
        cat = Catalog.open(catalog_path(index_dir), readonly=True)
        try:
            known = cat.files()
            stored = cat.get_meta("fingerprint")
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
            try:
                same = _hash(read_regular_bytes(abspath, MAX_FILE_BYTES)) == row.hash
            except OSError:
                same = False
            if same:
                unchanged += 1
            else:
                changed.append(rel)
    present = {rel for rel, _ in found.files}
    removed = sorted(p for p in known if p not in present)
    return IndexReport(root=str(root), indexed=tuple(new), updated=tuple(changed), unchanged=unchanged, removed=tuple(removed), skipped=found.skipped, duration_s=time.perf_counter() - started, checked_only=True)


def _build(settings: Settings, root: Path, index_dir: Path, rebuild: bool, on_progress: ProgressFn | None, started: float, discover: Callable[[Path], object]) -> IndexReport:
    from kb_agent.corpus.chunking import parse_document

    notify = on_progress or (lambda _p: None)
    cat = Catalog.open(catalog_path(index_dir))
    try:
        fp = current_fingerprint(settings)
        stored = cat.get_meta("fingerprint")
        if stored is not None and not rebuild:
            why = fingerprint_mismatch(json.loads(stored), fp)
            if why:
                raise IndexIncompatible(f"the index was built with {why}", hint="run `kb index --rebuild`")
        store: VectorStore | None = None
        if rebuild:
            old = cat.get_meta("collection")
            cat.reset()
            if old:
                _open_store(settings, index_dir, old).drop()

        found = discover(root)
        files: tuple[tuple[str, Path], ...] = found.files  # type: ignore[attr-defined]
        skipped: list[FileSkip] = list(found.skipped)  # type: ignore[attr-defined]
        warnings: list[FileSkip] = []
        known = cat.files()
        changes: list[_Change] = []
        unchanged = 0
        notify(IndexProgress("scan", 0, len(files), 0))
        for rel, abspath in files:
            row = known.get(rel)
            try:
                st = abspath.stat()
                if row is not None and (row.size, row.mtime_ns) == (st.st_size, st.st_mtime_ns):
                    unchanged += 1
                    if row.status == "skipped" and row.reason:
                        skipped.append(FileSkip(rel, row.reason))
                    elif row.reason:
                        warnings.append(FileSkip(rel, row.reason))
                    continue
                if st.st_size > MAX_FILE_BYTES:
                    skipped.append(FileSkip(rel, f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB ({st.st_size / 1048576:.1f} MB)"))
                    continue
                data = read_regular_bytes(abspath, MAX_FILE_BYTES)
            except UnsafeFile as e:  # became a pipe or device, or grew past the cap, since discovery
                skipped.append(FileSkip(rel, str(e.strerror)))
                continue
            except OSError as e:
                skipped.append(FileSkip(rel, f"unreadable: {e.strerror or e}"))
                continue
            h = _hash(data)
            if row is not None and row.hash == h:
                cat.touch_file(rel, st.st_size, st.st_mtime_ns)
                unchanged += 1
                if row.status == "skipped" and row.reason:
                    skipped.append(FileSkip(rel, row.reason))
                elif row.reason:
                    warnings.append(FileSkip(rel, row.reason))
                continue
            changes.append(_Change(rel, abspath, st.st_size, st.st_mtime_ns, h, data))
        cat.conn.commit()

        present = {rel for rel, _ in files}
        # a file that became too large / unreadable is dropped from the index, not kept stale
        skipped_now = {s.path for s in skipped}
        removed = sorted(p for p in known if p not in present or (p in skipped_now and known[p].status == "ok"))
        dirty = rebuild or cat.get_meta("dirty") == "1"  # a rebuild also sweeps a server collection it could not drop
        if not changes and not removed and not dirty and stored is not None:
            return IndexReport(root=str(root), unchanged=unchanged, skipped=tuple(skipped), warnings=tuple(warnings), chunks_total=cat.bm25_stats()[0], duration_s=time.perf_counter() - started)

        from kb_agent.index.embeddings import get_embedder

        embedder = get_embedder(settings)
        fp = current_fingerprint(settings, dim=embedder.dim)
        name = cat.get_meta("collection") or _collection_for(root, fp)
        store = _open_store(settings, index_dir, name)
        cat.set_meta("fingerprint", json.dumps(fp, sort_keys=True))
        cat.set_meta("collection", name)
        cat.set_meta("dirty", "1")
        cat.conn.commit()

        if dirty:
            orphans = sorted(store.all_ids() - cat.all_chunk_ids())
            if orphans:
                store.delete(orphans)

        for rel in removed:
            ids = cat.remove_file(rel)
            cat.conn.commit()
            if ids:
                store.delete(ids)

        indexed: list[str] = []
        updated: list[str] = []
        embedded = 0
        for n, ch in enumerate(changes, 1):
            text, why = validate_text(ch.data)
            old_ids = cat.chunk_ids(ch.path)
            if why is not None or text is None:
                cat.remove_file(ch.path)
                cat.put_skipped(ch.path, why or "unreadable", hash=ch.hash, size=ch.size, mtime_ns=ch.mtime_ns)
                cat.conn.commit()
                if old_ids:
                    store.delete(old_ids)
                skipped.append(FileSkip(ch.path, why or "unreadable"))
                notify(IndexProgress("embed", n, len(changes), embedded, ch.path))
                continue
            doc = parse_document(ch.path, text)
            warnings.extend(FileSkip(ch.path, w) for w in doc.warnings)
            ids, terms = _chunk_ids_and_terms(doc)
            embedded += _embed_missing(store, embedder, doc, ids, settings.embedding_batch_size)
            cat.remove_file(ch.path)
            cat.put_file(doc, ids, terms, hash=ch.hash, size=ch.size, mtime_ns=ch.mtime_ns)
            cat.conn.commit()
            stale = sorted(set(old_ids) - set(ids))
            if stale:
                store.delete(stale)
            (updated if ch.path in known and known[ch.path].status == "ok" else indexed).append(ch.path)
            notify(IndexProgress("embed", n, len(changes), embedded, ch.path))

        from kb_agent.index.links import resolve_all_links

        resolve_all_links(cat)
        cat.set_meta("built_at", str(time.time()))
        cat.set_meta("dirty", "0")
        cat.conn.commit()
        total = cat.bm25_stats()[0]
        notify(IndexProgress("done", len(changes), len(changes), embedded))
        return IndexReport(
            root=str(root), indexed=tuple(indexed), updated=tuple(updated), unchanged=unchanged, removed=tuple(removed),
            skipped=tuple(skipped), warnings=tuple(warnings), chunks_total=total, chunks_embedded=embedded, duration_s=time.perf_counter() - started,
        )
    finally:
        cat.close()


def _collection_for(root: Path, fp: dict[str, object]) -> str:
    from kb_agent.index.vectors import collection_name

    return collection_name(root, json.dumps(fp, sort_keys=True))


def _open_store(settings: Settings, index_dir: Path, name: str) -> VectorStore:
    from kb_agent.index.vectors import VectorStore

    return VectorStore(settings, index_dir, name)


def embedding_text(doc: Document, i: int) -> str:
    """What the model sees for chunk i: title and heading breadcrumb give a section its context."""
    c = doc.chunks[i]
    head = EMBEDDING_HEAD_SEPARATOR.join(h for h in (doc.title, *c.heading_path) if h)
    return EMBEDDING_TEXT_FORMAT.format(head=head, text=c.text) if head else c.text


def _chunk_ids_and_terms(doc: Document) -> tuple[list[str], list[Counter[str]]]:
    seen: Counter[str] = Counter()
    ids, terms = [], []
    for c in doc.chunks:
        key = c.text
        ids.append(chunk_id(doc.path, key, seen[key]))
        seen[key] += 1
        terms.append(Counter(tokenize(" ".join((*c.heading_path, c.text)))))
    return ids, terms


def _embed_missing(store: VectorStore, embedder: Embedder, doc: Document, ids: list[str], batch: int) -> int:
    have = store.existing(ids)  # resumed run or unchanged chunk text: reuse the vector
    todo = [i for i, cid in enumerate(ids) if cid not in have]
    for s in range(0, len(todo), batch):
        part = todo[s : s + batch]
        vecs = embedder.embed_passages([embedding_text(doc, i) for i in part])
        store.upsert([ids[i] for i in part], vecs, [doc.path] * len(part))
    return len(todo)


def index_is_present(index_dir: Path) -> bool:
    return catalog_path(index_dir).exists() and os.path.getsize(catalog_path(index_dir)) > 0
