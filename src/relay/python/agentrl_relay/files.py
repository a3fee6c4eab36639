"""Files under the relay's root: confinement (every path must resolve inside the root; symbolic
links are not followed), identity (device:inode, the cursor's fid), and a followed file that
notices when it is rotated (renamed and recreated), replaced, or truncated in place.

A cursor's fid names the file it counts bytes of. After an in-place truncation the same file
starts over: its fid gains a `~N` suffix, so a client never takes the new bytes for ones it has.
"""

from __future__ import annotations

import os
import stat
from typing import Any


def file_id(st: os.stat_result) -> str:
    return f"{st.st_dev}:{st.st_ino}"


def inside(root: str, path: str) -> bool:
    """Whether `path` resolves (symbolic links followed) to a place inside `root` (a realpath)."""
    try:
        real = os.path.realpath(path)
    except OSError:
        return False
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def open_regular(path: str) -> int:
    """Opens a regular file for reading without following a symbolic link at its last component."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path} is not a regular file")
    return fd


def lstat_regular(path: str) -> os.stat_result | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def resume_from(cursor: dict[str, Any] | None, st: os.stat_result) -> tuple[int, str]:
    """(offset, fid) a file cursor resumes at: its own when it names this file and fits, else 0."""
    base = file_id(st)
    if not cursor:
        return 0, base
    fid = cursor.get("fid")
    if not isinstance(fid, str) or not (fid == base or fid.startswith(base + "~")):
        return 0, base
    if cursor["offset"] > st.st_size:
        return 0, _next_generation(fid)
    return int(cursor["offset"]), fid


def _next_generation(fid: str) -> str:
    base, _, gen = fid.partition("~")
    return f"{base}~{int(gen) + 1 if gen.isdigit() else 1}"


# Bytes before the offset remembered to tell a file rewritten in place (copytruncate, then
# written past the offset before the relay looked again: the size alone cannot tell).
TAIL = 32


class FollowedFile:
    """The file at `path`, read by offset. `check()` notices a rotation or replacement (the old
    file's remainder is still read to its end, then the new one from 0) and an in-place truncation
    (read again from 0 under a new fid): the file is shorter than the offset, or the bytes just
    before the offset are no longer those read (readers call `mark()` after they moved on)."""

    def __init__(self, path: str, cursor: dict[str, Any] | None):
        self.path = path
        self.fd: int | None = None
        self.offset = 0
        self.fid = ""
        self._cursor = cursor
        self._old: int | None = None  # a rotated file still being read to its end
        self._tail: bytes | None = None  # the TAIL bytes before `offset` as they were read
        self._tail_at = -1  # the offset `_tail` ends at
        self._cut = False  # found shorter than a read's end: the next check reports the truncation
        self.events: list = []

    def open(self) -> bool:
        """Opens the file at the cursor; False while it does not exist."""
        if self.fd is not None:
            return True
        st = lstat_regular(self.path)
        if st is None:
            return False
        try:
            fd = open_regular(self.path)
        except OSError:
            return False
        fst = os.fstat(fd)
        self.fd = fd
        was = (self.fid, self.offset)
        self.offset, self.fid = resume_from(self._cursor, fst)
        self._cursor = None
        if (self.fid, self.offset) != was:
            self._tail = None  # another file, or another place: nothing read there yet
            self._cut = False
        return True

    def rest(self) -> None:
        """Closes the file, keeping the position: the next open() resumes there if the file is the
        same one (else from its start)."""
        if self.fd is None or self._old is not None:
            return
        self._cursor = {"fid": self.fid, "offset": self.offset}
        os.close(self.fd)
        self.fd = None

    def check(self) -> None:
        """Before a read: follow a rotation, a replacement or a truncation."""
        if self.fd is None:
            return
        fst = os.fstat(self.fd)
        st = lstat_regular(self.path)
        if st is not None and (st.st_dev, st.st_ino) != (fst.st_dev, fst.st_ino) and self._old is None:
            # Rotated (renamed, recreated) or replaced: what the old file still holds comes first.
            try:
                new_fd = open_regular(self.path)
            except OSError:
                return
            self._old = self.fd
            self.fd = new_fd
            self.events.append("rotated")
            return
        if self._old is None and (self._cut or fst.st_size < self.offset or not self._tail_holds()):
            self.offset = 0
            self._tail = None
            self._cut = False
            self.fid = _next_generation(self.fid)
            self.events.append("truncated")

    def mark(self) -> None:
        """Remembers the bytes before the offset (after a read moved it), to tell a rewrite; a
        file cut back around the read is reported by the next check()."""
        if self._old is not None or self.fd is None:
            self._tail = None
            return
        if self.offset == self._tail_at and self._tail is not None:
            return  # nothing consumed (a look at the live edge): the tail stays, the next check looks at it
        n = min(TAIL, self.offset)
        b = os.pread(self.fd, n, self.offset - n)
        # Then the bytes before where the read started: shorter than the read's end, or no longer
        # the bytes read before it, the file was cut back around the read, which may have found
        # the new file's bytes at the old offset, and the tail just taken may be the new file's.
        # A cut after this check is the next check's to find (the tail was taken before it).
        if len(b) < n or not self._tail_holds(self._tail_at):
            self._cut = True
        self._tail = b if len(b) == n else None
        self._tail_at = self.offset

    def _tail_holds(self, at: int | None = None) -> bool:
        """Whether the bytes before `at` (the offset) are still those read (True when none were remembered)."""
        t = self._tail
        if not t or self.fd is None:
            return True
        end = self.offset if at is None else at
        return os.pread(self.fd, len(t), end - len(t)) == t

    @property
    def reading_old(self) -> bool:
        return self._old is not None

    def pread(self, n: int, offset: int) -> bytes:
        fd = self._old if self._old is not None else self.fd
        assert fd is not None
        return os.pread(fd, n, offset)

    def size(self) -> int:
        fd = self._old if self._old is not None else self.fd
        assert fd is not None
        return os.fstat(fd).st_size

    def finish_old(self) -> None:
        """The rotated file is read to its end: go on with the new one from its start."""
        if self._old is None:
            return
        os.close(self._old)
        self._old = None
        assert self.fd is not None
        self.offset = 0
        self._tail = None
        self._cut = False
        self.fid = file_id(os.fstat(self.fd))

    def close(self) -> None:
        for fd in (self.fd, self._old):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.fd = self._old = None
