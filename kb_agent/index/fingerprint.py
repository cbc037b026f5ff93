"""The index fingerprint: what must match between the index on disk and the running code/settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kb_agent.settings import Settings


def current_fingerprint(settings: Settings, dim: int | None = None) -> dict[str, Any]:
    from kb_agent.corpus.chunking import CHUNKER_VERSION
    from kb_agent.index.embeddings import embedder_name
    from kb_agent.index.manifest import SCHEMA_VERSION
    from kb_agent.index.tokenize import TOKENIZER_VERSION

    fp: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "chunker": CHUNKER_VERSION,
        "tokenizer": TOKENIZER_VERSION,
        "embedding": embedder_name(settings),
    }
    if dim is not None:
        fp["dim"] = dim
    return fp


def fingerprint_mismatch(stored: dict[str, Any], current: dict[str, Any]) -> str | None:
    """A human sentence naming the first difference, or None when compatible (dim is not compared
    when the current one is unknown)."""
    labels = {"embedding": "embedding model", "schema": "index schema version", "chunker": "chunker version", "tokenizer": "tokenizer version", "dim": "embedding dimension"}
    for key, label in labels.items():
        if key not in current:
            continue
        if stored.get(key) != current[key]:
            return f"{label} {stored.get(key)!r}, but the current setting is {current[key]!r}"
    return None
