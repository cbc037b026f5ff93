"""The KbError hierarchy (message + hint) and the process exit codes.

Library code raises these; only the CLI turns them into a message and an exit code.
"""

from __future__ import annotations

import errno
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    NOT_FOUND = 1  # no answer in the KB, or a check failed
    USAGE = 2  # bad input, bad config, server unreachable
    INDEX = 3  # index missing or stale when freshness is required
    INTERRUPTED = 130


class KbError(Exception):
    """Base error: a one-line message, an optional hint, and the exit code it maps to."""

    exit_code: ExitCode = ExitCode.USAGE

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(KbError):
    """The user asked for something that cannot be done as asked."""


class InvalidQuery(UsageError):
    """The question or query text is empty, too long, or unusable."""


class ConfigError(KbError):
    """A setting is invalid or points at something that does not exist."""


class KbRootNotFound(ConfigError):
    """The knowledge-base folder does not exist or is not a directory."""


class RipgrepNotFound(ConfigError):
    """The `rg` binary is not installed or not on PATH."""


class RipgrepFailed(KbError):
    """ripgrep exited with an error or timed out."""


class StoreUnavailable(ConfigError):
    """The vector store (e.g. a Chroma server) cannot be reached."""


class EmbeddingError(KbError):
    """The embedding model failed or is not installed."""


class IndexError_(KbError):
    """Base for index problems (trailing underscore: do not shadow the builtin)."""

    exit_code = ExitCode.INDEX


class IndexNotBuilt(IndexError_):
    """No index exists under the KB root."""


class IndexStale(IndexError_):
    """Files changed since the index was built and freshness was required."""


class IndexIncompatible(IndexError_):
    """The index was built with another embedding model, chunker or schema version."""


class IndexCorrupt(IndexError_):
    """The index files cannot be read."""


class IndexLocked(KbError):
    """Another process is writing the index."""


class PathOutsideRoot(UsageError):
    """A requested path resolves outside the knowledge-base root."""


class LlmError(KbError):
    """A chat model call failed after retries (callers normally fall back)."""


class IndexWriteFailed(KbError):
    """The index could not be written (an OS error); what was committed before stays consistent."""


class DiskFull(IndexWriteFailed):
    """No space left on the device (ENOSPC) or quota exceeded (EDQUOT) while writing the index."""


class IndexReadOnly(IndexWriteFailed):
    """The index folder is on a read-only file system or not writable by this user."""


class VectorsUnavailable(IndexError_):
    """The vector store cannot be opened here (e.g. a read-only KB); lexical tools still answer."""


def index_write_error(err: int | None, detail: str, where: str) -> IndexWriteFailed:
    """The one-line error for an OS failure while writing the index at `where`.

    Args:
        err: the errno, when known.
        detail: the OS's own words (strerror or the library's message).
        where: the file or folder being written.
    """
    if err in (errno.ENOSPC, errno.EDQUOT):
        return DiskFull(f"no space left on the device while writing the index ({where}): {detail}",
                        hint="free some space, then rerun `kb index`; what was indexed so far is kept")
    if err == errno.EROFS:
        return IndexReadOnly(f"cannot write the index: {where} is on a read-only file system",
                             hint="index a writable copy or remount read-write; search, ask and check still use the existing index")
    if err in (errno.EACCES, errno.EPERM):
        return IndexReadOnly(f"cannot write the index: permission denied on {where}",
                             hint="run as a user who can write there, or index a writable copy")
    if err == errno.EIO:
        return IndexWriteFailed(f"I/O error while writing the index ({where}): {detail}",
                                hint="check the disk (e.g. `dmesg`), then rerun `kb index`")
    return IndexWriteFailed(f"cannot write the index ({where}): {detail}", hint="fix the cause, then rerun `kb index`")
