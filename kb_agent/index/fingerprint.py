"""The index fingerprint: what must match between the index on disk and the running code/settings.

It is derived from the parameters themselves, as tobi/qmd does: the chunking parameters
(corpus.chunking.CHUNKING_PARAMS) and the embedding-text format (index.build.EMBEDDING_TEXT_PARAMS)
are hashed, so changing any of them — not only a hand-bumped version — asks for `kb index --rebuild`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kb_agent.settings import Settings

# enough hex digits that two parameter sets never collide by accident, short enough to read in a message
DIGEST_CHARS = 12
_LABELS = {
    "schema": "index schema version",
    "tokenizer": "tokenizer version",
    "chunking": "chunking parameters",
    "embedding": "embedding model",
    "embedding_text": "embedding-text format",
    "dim": "embedding dimension",
}


def params_digest(params: Mapping[str, Any]) -> str:
    """A short stable hash of a parameter mapping (key order does not matter)."""
    blob = json.dumps(params, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:DIGEST_CHARS]


def current_fingerprint(settings: Settings, dim: int | None = None) -> dict[str, Any]:
    """The fingerprint the running code and settings would write.

    Args:
        settings: names the embedding provider and model.
        dim: the embedding dimension when known (it takes loading the model).

    Raises:
        ConfigError: the embedding provider is not registered.
    """
    from kb_agent.corpus.chunking import CHUNKING_PARAMS
    from kb_agent.index.build import EMBEDDING_TEXT_PARAMS
    from kb_agent.index.embeddings import embedder_name
    from kb_agent.index.manifest import SCHEMA_VERSION
    from kb_agent.index.tokenize import TOKENIZER_VERSION

    fp: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "tokenizer": TOKENIZER_VERSION,
        "chunking": params_digest(CHUNKING_PARAMS),
        "embedding": embedder_name(settings),
        "embedding_text": params_digest(EMBEDDING_TEXT_PARAMS),
    }
    if dim is not None:
        fp["dim"] = dim
    return fp


def fingerprint_mismatch(stored: dict[str, Any], current: dict[str, Any]) -> str | None:
    """A human phrase naming the first difference, or None when compatible (dim is not compared
    when the current one is unknown)."""
    for key, label in _LABELS.items():
        if key not in current:
            continue
        if stored.get(key) != current[key]:
            if key in ("chunking", "embedding_text"):
                return f"other {label} than this version of kb uses ({stored.get(key) or 'unrecorded'} vs {current[key]})"
            return f"{label} {stored.get(key)!r}, but the current setting is {current[key]!r}"
    return None
