"""Reading files named by a knowledge base or the command line: regular files only, never blocking
on a pipe or device, never reading past a size cap."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

# Reads go in pieces of this size so a file that grows while it is read stops at the cap.
READ_CHUNK = 1024 * 1024
# Opened without blocking (a FIFO has no writer), without becoming our controlling terminal,
# and without leaking into child processes.
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


class UnsafeFile(OSError):
    """Refused before reading: not a regular file, or larger than the cap. `strerror` says why."""

    def __init__(self, reason: str, *, err: int = errno.EINVAL) -> None:
        super().__init__(err, reason)


def file_kind(mode: int) -> str:
    """A reader's name for a file type: "named pipe", "character device" …"""
    for test, name in (
        (stat.S_ISREG, "regular file"), (stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "named pipe"),
        (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"),
        (stat.S_ISLNK, "symbolic link"),
    ):
        if test(mode):
            return name
    return "special file"


def check_regular(st: os.stat_result) -> None:
    """Raise UnsafeFile unless `st` describes a regular file."""
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFile(f"not a regular file ({file_kind(st.st_mode)})")


def read_regular_bytes(path: Path | str, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most `max_bytes`.

    The path is checked with stat() first (a device is never opened), then opened non-blocking and
    checked again on the open descriptor, so a file swapped for a pipe in between is still refused.

    Raises:
        UnsafeFile: not a regular file, or larger than `max_bytes` (also when it grows while read).
        OSError: it does not exist or cannot be opened or read.
    """
    check_regular(os.stat(path))
    fd = os.open(path, _OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        check_regular(st)
        if st.st_size > max_bytes:
            raise UnsafeFile(too_large(st.st_size, max_bytes), err=errno.EFBIG)
        os.set_blocking(fd, True)
        parts: list[bytes] = []
        got = 0
        while True:
            part = os.read(fd, min(READ_CHUNK, max_bytes + 1 - got))
            if not part:
                break
            parts.append(part)
            got += len(part)
            if got > max_bytes:
                raise UnsafeFile(too_large(got, max_bytes), err=errno.EFBIG)
        return b"".join(parts)
    finally:
        os.close(fd)


# A KB file above this is skipped by the index with a reason, and refused by every later reader: a 20 MB markdown file
# is almost always generated output, and chunking and embedding it would dominate the index for little value.
MAX_FILE_BYTES = 5 * 1024 * 1024


def read_kb_text(path: Path | str) -> str:
    """A KB file's text as every reader after the index reads it (units, citations, checks, the `read` tool):
    a regular file under MAX_FILE_BYTES, decoded as read_regular_text does. Raises UnsafeFile or OSError."""
    return read_regular_text(path, MAX_FILE_BYTES)


def read_regular_text(path: Path | str, max_bytes: int) -> str:
    """Like read_regular_bytes, decoded as UTF-8 with undecodable bytes replaced and a leading byte-order
    mark dropped, as the index reads it (an editor on Windows writes one; kept, it would stand before the
    first line's `#` and the title would not be a heading)."""
    return read_regular_bytes(path, max_bytes).decode("utf-8", errors="replace").removeprefix("\ufeff")


def too_large(size: int, cap: int) -> str:
    """The reason given for a file over the cap (caps are whole MB or KB)."""
    unit, div = ("MB", 1048576) if cap >= 1048576 else ("KB", 1024)
    return f"larger than {cap // div} {unit} ({size / div:.1f} {unit})"


def unwritable_reason(folder: Path) -> str | None:
    """Why `folder` cannot be written ("read-only file system", "permission denied"), or None.

    access(2) reports EROFS even for root, and statvfs catches a read-only bind mount.
    """
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "read-only file system"
    except OSError:
        return None
    if not os.access(folder, os.W_OK):
        return "permission denied"
    return None
