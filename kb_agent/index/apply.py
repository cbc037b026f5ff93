"""The lexical phase of `kb index`: one changed file's rows (chunks, BM25 terms, headings, links) in
one catalog transaction, its new chunks marked pending for the vector phase."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kb_agent.index.scan import validate_text
from kb_agent.index.tokenize import tokenize
from kb_agent.types import Document, FileSkip

if TYPE_CHECKING:
    from kb_agent.index.manifest import Catalog
    from kb_agent.index.scan import Change


@dataclass(frozen=True, slots=True)
class Applied:
    """What writing one file did: its outcome, the chunk ids whose vectors are now stale, its warnings."""

    outcome: str  # "ok" | "skipped"
    stale_ids: tuple[str, ...]
    skip: FileSkip | None = None
    warnings: tuple[FileSkip, ...] = ()


def chunk_id(path: str, text: str, occurrence: int) -> str:
    """Stable id from content, not position: a line inserted above a chunk keeps its vector."""
    return hashlib.sha256(f"{path}\0{occurrence}\0{text}".encode()).hexdigest()[:32]


def apply_change(cat: Catalog, ch: Change) -> Applied:
    """Replace `ch.path`'s rows in the catalog and commit (bumping the generation).

    Chunks whose id (path, occurrence, text) was already embedded keep their vector; every other
    chunk is left pending. The returned stale ids are vectors the store may now drop.
    """
    from kb_agent.corpus.chunking import parse_document

    old_ids = cat.chunk_ids(ch.path)
    embedded = set(old_ids) - cat.pending_among(old_ids) if old_ids else set()
    text, why = validate_text(ch.data)
    if why is not None or text is None:
        cat.remove_file(ch.path)
        cat.put_skipped(ch.path, why or "unreadable", hash=ch.hash, size=ch.size, mtime_ns=ch.mtime_ns)
        cat.bump_generation()
        cat.conn.commit()
        return Applied("skipped", tuple(old_ids), skip=FileSkip(ch.path, why or "unreadable"))
    doc = parse_document(ch.path, text)
    ids, terms = chunk_ids_and_terms(doc)
    cat.remove_file(ch.path)
    cat.put_file(doc, ids, terms, hash=ch.hash, size=ch.size, mtime_ns=ch.mtime_ns, embedded=embedded & set(ids))
    cat.bump_generation()
    cat.conn.commit()
    stale = tuple(sorted(set(old_ids) - set(ids)))
    return Applied("ok", stale, warnings=tuple(FileSkip(ch.path, w) for w in doc.warnings))


def remove_path(cat: Catalog, path: str) -> list[str]:
    """Drop a file from the catalog and commit; returns its chunk ids (vectors the store may drop)."""
    ids = cat.remove_file(path)
    cat.bump_generation()
    cat.conn.commit()
    return ids


def chunk_ids_and_terms(doc: Document) -> tuple[list[str], list[Counter[str]]]:
    seen: Counter[str] = Counter()
    ids, terms = [], []
    for c in doc.chunks:
        key = c.text
        ids.append(chunk_id(doc.path, key, seen[key]))
        seen[key] += 1
        terms.append(Counter(tokenize(" ".join((*c.heading_path, c.text)))))
    return ids, terms
