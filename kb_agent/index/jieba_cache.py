"""jieba without its start-up cost: its dictionary split by first character in a cache file, read only
for the characters a text holds.

jieba's `initialize()` unmarshals the whole prefix dictionary (~500,000 entries, ~0.7 s) before the
first cut. Every lookup jieba makes while cutting a run is a substring of that run, so it needs only
the entries that start with one of the run's characters or adjacent character pairs. The cache file
(built once per jieba dictionary, in `$XDG_CACHE_HOME/kb`) holds the entries grouped by their first two
characters (one-character entries by themselves), with a two-level index; `prepare(run)` loads the
groups a run needs before jieba cuts it — a few thousand entries for a few hundred passages of
Chinese. The cuts are jieba's own, entry for entry the same data, so they equal a fully initialized
jieba's (tests/index/test_jieba_cache.py).
"""

from __future__ import annotations

import logging
import marshal
import mmap
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# bump when the file layout changes: an old file is then simply not found
CACHE_FORMAT = 2
MAGIC = b"KBJIEBA2"


class Segmenter:
    """A jieba Tokenizer whose dictionary fills in as texts need it.

    Call `prepare(text)` before cutting `text` with `tokenizer`; without a cache file the tokenizer
    holds jieba's whole dictionary and `prepare` does nothing.
    """

    def __init__(self, tokenizer: Any, shards: _Shards | None = None) -> None:
        self.tokenizer = tokenizer
        self._shards = shards

    def prepare(self, text: str) -> None:
        if self._shards is not None:
            self._shards.load(self.tokenizer.FREQ, text)

    @property
    def entries_loaded(self) -> int:
        return len(self.tokenizer.FREQ)


class _Shards:
    """The index and groups of a cache file, mapped. A group holds the entries whose first two characters
    are a key (one-character entries: the character alone); each is loaded into FREQ at most once."""

    def __init__(self, mm: mmap.mmap, index: dict[str, tuple[int, int]], base: int) -> None:
        self._mm = mm
        self._index = index  # first character -> its second-level index (character or "" -> group)
        self._base = base
        self._second: dict[str, dict[str, tuple[int, int]]] = {}
        self._done: set[str] = set()
        self._lock = threading.Lock()

    def _blob(self, loc: tuple[int, int]) -> Any:
        start = self._base + loc[0]
        return marshal.loads(self._mm[start : start + loc[1]])

    def load(self, freq: dict[str, int], text: str) -> None:
        keys = set(text) | {text[i : i + 2] for i in range(len(text) - 1)}
        wanted = keys - self._done
        if not wanted:
            return
        with self._lock:  # another thread may be cutting with FREQ; an update is one atomic dict merge
            for key in wanted - self._done:
                second = self._second.get(key[0])
                if second is None:
                    loc = self._index.get(key[0])
                    second = self._blob(loc) if loc is not None else {}
                    self._second[key[0]] = second
                group = second.get(key[1:])
                if group is not None:
                    freq.update(self._blob(group))
                self._done.add(key)


def import_jieba() -> Any:
    """`import jieba`, without the ~0.1 s `pkg_resources` import it tries first (it falls back to
    plain file reads, which is all kb needs)."""
    if "jieba" in sys.modules:
        return sys.modules["jieba"]
    blocked = "pkg_resources" not in sys.modules
    if blocked:
        sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # makes `import pkg_resources` fail fast
    try:
        import jieba
    finally:
        if blocked and sys.modules.get("pkg_resources", 0) is None:
            del sys.modules["pkg_resources"]
    jieba.setLogLevel(logging.WARNING)
    return jieba


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/kb`, else `~/.cache/kb`."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if base and os.path.isabs(base):
        return Path(base) / "kb"
    return Path(os.path.expanduser("~")) / ".cache" / "kb"


def dictionary_path(jieba: Any) -> Path:
    """The installed jieba dictionary (word, frequency, part-of-speech tag per line)."""
    return Path(jieba.__file__).with_name(jieba.DEFAULT_DICT_NAME)


def cache_file(jieba: Any) -> Path:
    """The cache file for the installed jieba dictionary (named by jieba's version and the dictionary's size and mtime)."""
    st = dictionary_path(jieba).stat()
    return cache_dir() / f"jieba-{jieba.__version__}-{st.st_size}-{st.st_mtime_ns}.v{CACHE_FORMAT}.bin"


def load_segmenter() -> Segmenter:
    """kb's jieba: from the cache file when there is one, else fully initialized (and the file written
    for the next process). Never raises for a cache problem: the full dictionary always works."""
    jieba = import_jieba()
    tokenizer = jieba.Tokenizer()
    path: Path | None = None
    opened = None
    try:
        path = cache_file(jieba)
        opened = _open(path)
    except (OSError, ValueError, EOFError, TypeError) as e:  # a damaged file is replaced below
        log.debug("jieba cache unusable (%s); loading the whole dictionary", e)
    if opened is not None:
        total, shards = opened
        tokenizer.FREQ, tokenizer.total, tokenizer.initialized = {}, total, True
        return Segmenter(tokenizer, shards)
    tokenizer.initialize()
    if path is not None:
        write_cache(path, tokenizer.FREQ, tokenizer.total)
    return Segmenter(tokenizer)


def _open(path: Path) -> tuple[int, _Shards] | None:
    if not path.is_file():
        return None
    with open(path, "rb") as f:
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    if mm[: len(MAGIC)] != MAGIC:
        raise ValueError("not a kb jieba cache")
    n = int.from_bytes(mm[len(MAGIC) : len(MAGIC) + 8], "little")
    head = len(MAGIC) + 8
    total, index, size = marshal.loads(mm[head : head + n])
    if not isinstance(total, int) or not isinstance(index, dict) or len(mm) != head + n + size:
        raise ValueError("truncated kb jieba cache")
    return total, _Shards(mm, index, head + n)


def write_cache(path: Path, freq: dict[str, int], total: int) -> bool:
    """Write jieba's dictionary grouped by first two characters to `path` (atomically); False when it cannot."""
    groups: dict[str, dict[str, dict[str, int]]] = {}
    for word, count in freq.items():
        groups.setdefault(word[0], {}).setdefault(word[1:2], {})[word] = count
    index: dict[str, tuple[int, int]] = {}
    blobs: list[bytes] = []
    offset = 0

    def put(blob: bytes) -> tuple[int, int]:
        nonlocal offset
        blobs.append(blob)
        offset += len(blob)
        return offset - len(blob), len(blob)

    for first, by_second in groups.items():
        second = {c: put(marshal.dumps(entries)) for c, entries in by_second.items()}
        index[first] = put(marshal.dumps(second))
    head = marshal.dumps((total, index, offset))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".jieba-")
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + len(head).to_bytes(8, "little") + head)
            for blob in blobs:
                f.write(blob)
        os.replace(tmp, path)
    except OSError as e:
        log.debug("cannot write the jieba cache %s: %s", path, e)
        return False
    for old in path.parent.glob("jieba-*.bin"):  # an older format or jieba version: never read again
        if old != path:
            old.unlink(missing_ok=True)
    return True
