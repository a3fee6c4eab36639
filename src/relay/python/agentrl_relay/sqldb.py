"""Trinity's SQL experience buffer as a database: one read-only (`mode=ro`) sqlite3 connection
kept fresh across writers' commits, which rows changed between two views of a table, and a step
budget that interrupts a statement a damaged b-tree would make walk without end. The rows
themselves are read by sqlsource.
"""

from __future__ import annotations

import os
import random
import sqlite3
import time
from typing import Any, Callable
from urllib.parse import quote

EXPERIENCE_COLUMNS = ["id", "task_id", "run_id", "model_version", "reward", "timestamp"]
RELOAD_S = 1.0
DUTY = 20
LOG_IDS = 100_000
# Rows whose consumed / reward are compared between views (the most recent ones).
MAX_TRACKED = 1_000_000
SQLITE_MAGIC = b"SQLite format 3\0"


class Busy(Exception):
    """A writer holds the database: nothing was read; read again later."""


def is_sqlite_file(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def is_busy(e: sqlite3.Error) -> bool:
    return isinstance(e, sqlite3.OperationalError) and ("locked" in str(e) or "busy" in str(e))


def _text_of(b: bytes) -> str:
    return b.decode("utf-8", "replace")


class SqlDatabase:
    """One database file, followed view by view; shared by its table sources."""

    def __init__(self, path: str, log: Callable[[str, str], None]):
        self.path = path
        self.log = log
        self.conn: sqlite3.Connection | None = None
        self.version: int | None = None
        self.generation = 0
        self.tracker = f"{random.getrandbits(32):08x}"
        self.refreshed_at = 0.0
        self.refresh_s = 0.0
        self.tables: dict[str, dict[str, Any]] = {}
        self.stats = {"views": 0, "failed": 0}

    def _open(self) -> sqlite3.Connection:
        if self.conn is None:
            uri = f"file:{quote(os.path.abspath(self.path))}?mode=ro"
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=0, check_same_thread=False)
            conn.execute("ATTACH ':memory:' AS agentrl_seen")
            # A byte that is not UTF-8 in one row's text costs that value (U+FFFD, as the Node
            # relay decodes it), not the whole query: the default factory fails every row read with it.
            conn.text_factory = _text_of
            self.conn = conn
            self.steps = StepBudget(conn)
        return self.conn

    def get(self, behind: bool, fresh: bool = False) -> sqlite3.Connection | None:
        """The connection when there may be something new to read (a new view, or `behind`)."""
        try:
            conn = self._open()
        except sqlite3.Error as e:
            self.log("debug", f"sql: cannot open {self.path}: {e}")
            return None
        now = time.monotonic()
        since = now - self.refreshed_at
        due = fresh or since >= max(RELOAD_S, DUTY * self.refresh_s)
        if not due and not behind:
            return None
        if due:
            t0 = time.monotonic()
            try:
                self._refresh(conn)
            except sqlite3.Error as e:
                if not is_busy(e):
                    self.stats["failed"] += 1
                    self.log("debug", f"sql: {self.path}: cannot compare with the previous view: {e}")
            self.refreshed_at = time.monotonic()
            self.refresh_s = self.refreshed_at - t0
        return conn

    def _refresh(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version == self.version:
            return
        conn.execute("BEGIN")
        try:
            tables = experience_tables(conn)
            self.generation += 1
            self.stats["views"] += 1
            for table in tables:
                self._observe(conn, table)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            self.generation -= 1
            raise
        self.version = version

    def _observe(self, conn: sqlite3.Connection, table: str) -> None:
        """Records the rows of `table` whose consumed / reward changed since the last view."""
        t = self.tables.get(table)
        q = quote_ident(table)
        if t is None:
            snap = f"agentrl_seen.s{len(self.tables)}"
            cols = table_columns(conn, table)
            consumed = "consumed" if "consumed" in cols else "NULL"
            conn.execute(f"CREATE TABLE {snap} (id INTEGER PRIMARY KEY, c, r)")
            t = self.tables[table] = {"snap": snap, "consumed": consumed, "top": 0, "log": [], "ids": 0, "lost": 0}
        snap, consumed = t["snap"], t["consumed"]
        changed = [
            r[0]
            for r in conn.execute(
                f"SELECT m.id FROM main.{q} AS m JOIN {snap} AS s ON s.id = m.id WHERE m.{consumed} IS NOT s.c OR m.reward IS NOT s.r ORDER BY m.id"
            )
        ]
        if changed:
            for i in range(0, len(changed), 500):
                part = changed[i : i + 500]
                conn.execute(f"INSERT OR REPLACE INTO {snap} SELECT id, {consumed}, reward FROM main.{q} WHERE id IN ({','.join('?' * len(part))})", part)
            self._append(t, changed)
        conn.execute(f"INSERT OR REPLACE INTO {snap} SELECT id, {consumed}, reward FROM main.{q} WHERE id > ?", (t["top"],))
        top = conn.execute(f"SELECT max(id) FROM {snap}").fetchone()[0] or 0
        t["top"] = top
        conn.execute(f"DELETE FROM {snap} WHERE id <= ?", (top - MAX_TRACKED,))

    def _append(self, t: dict[str, Any], ids: list[int]) -> None:
        t["log"].append((self.generation, ids))
        t["ids"] += len(ids)
        while t["ids"] > LOG_IDS and len(t["log"]) > 1:
            gen, dropped = t["log"].pop(0)
            t["ids"] -= len(dropped)
            t["lost"] = gen

    def changed_since(self, table: str, gen: int) -> list[int] | None:
        """Row ids of `table` changed after generation `gen`, or None when some were dropped."""
        t = self.tables.get(table)
        if t is None:
            return []
        if gen < t["lost"]:
            return None
        return [i for g, ids in t["log"] if g > gen for i in ids]

    def experience_tables(self) -> list[str]:
        conn = self.get(True)
        if conn is None:
            return []
        try:
            return experience_tables(conn)
        except sqlite3.Error as e:
            if not is_busy(e):
                self.log("debug", f"sql: {self.path}: {e}")
            return []

    def identity(self) -> str:
        """device:inode of the database file (a file replaced under the same name is another database)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return "0:0"
        return f"{st.st_dev}:{st.st_ino}"

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.conn = None


# What one statement may cost, in SQLite VM instructions: a damaged b-tree (a page pointer that
# leads back) can make a query walk without end; past the budget it is interrupted.
STATEMENT_STEPS = 20_000_000
_STEPS_PER_CALL = 100_000


class StepBudget:
    """The row reads of a connection, each held to STATEMENT_STEPS (sqlite3's progress handler):
    past it, SQLite interrupts the statement ("interrupted")."""

    def __init__(self, conn: sqlite3.Connection):
        self.calls = 0
        self.armed = False
        conn.set_progress_handler(self._tick, _STEPS_PER_CALL)

    def _tick(self) -> int:
        if not self.armed:
            return 0
        self.calls += 1
        return 1 if self.calls * _STEPS_PER_CALL > STATEMENT_STEPS else 0

    def __enter__(self) -> None:
        self.calls = 0
        self.armed = True

    def __exit__(self, *exc: object) -> None:
        self.armed = False


class CorruptTable(RuntimeError):
    """A table whose rows came out of id order: its b-tree is damaged."""


def table_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in conn.execute(f"PRAGMA table_info({quote_ident(table)})")]


def experience_tables(conn: sqlite3.Connection) -> list[str]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    return [str(n) for n in names if all(c in table_columns(conn, str(n)) for c in EXPERIENCE_COLUMNS)]
