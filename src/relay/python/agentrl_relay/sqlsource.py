"""Trinity's SQL experience buffer (SQLite) as a source of experience rows: one source per table
with the experience schema, read through the standard library's sqlite3, read-only
(`mode=ro`), in short transactions, incrementally (the connection and the change tracking are
sqldb's).

The cursor is the Node relay's (src/relay/sources/sql-table-reader.ts): fid
`<table>@<tracker>.<generation>`, offset = last row id × 2^21 + the batches of changed rows sent
since. Rows whose reward or consumed state changed between two views of the database (serve
mode's /feedback, the trainer's read) are sent again with `updated: true`; the views are
compared in SQLite itself, against a snapshot of (id, consumed, reward) in an attached
in-memory database. A row id never goes backwards and no row is yielded twice as new, whatever
a damaged database returns.
"""

from __future__ import annotations

import math
import os
import re
import sqlite3
import time
from typing import Any, Callable, Generator, NamedTuple, TypeVar

from .pickles import RowDecodeError, drain, experience_steps, summarize_experience
from .points import ExperiencesBatch
from .protocol import cursor_dict, js_string, wire_number
from .rowwindow import BUCKET_ROWS, EncodedWindow, RowState, RowWindow, changed_buckets, parse_window, window_buckets
from .sqldb import CorruptTable, SqlDatabase, is_busy, quote_ident, table_columns
from .steplog import js_to_number
from .tokens import read_token_parts, token_parts_steps

_Read = TypeVar("_Read")

ROWS_PER_BATCH = 2000
SUMMARY_ROWS_PER_BATCH = 500
MIN_ROWS_PER_BATCH = 25
HEAD_BYTES = 16 * 1024
WHOLE_BYTES = 1024 * 1024
RESUME_ROWS = 1000
ROW_SCALE = 2**21
MAX_PENDING = 200_000


def _js_number(v: Any) -> float:
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        t = v.strip(" \t\n\r\x0b\x0c\xa0\ufeff\u2028\u2029")
        if t in ("Infinity", "+Infinity", "-Infinity"):
            return float("-inf") if t[0] == "-" else float("inf")
        return js_to_number(t.lower())
    return float("nan")


def _from_wire(v: Any) -> float | None:
    if v is None:
        return None
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(v, v) if isinstance(v, str) else float(v)


def int_or_null(v: Any) -> int | None:
    if v is None:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        return v if abs(v) <= 2**53 - 1 else None
    n = _js_number(v)
    return int(n) if not math.isnan(n) and abs(n) <= 2**53 - 1 and n.is_integer() else None


def _text(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, (bytes, bytearray)):
        return ",".join(str(b) for b in v)
    return js_string(v)


_RESUME = re.compile(r"^([0-9a-f]+)\.([0-9]+)(?:/([0-9]+:[0-9]+))?(?:~(.*))?\Z", re.DOTALL)


class ResumePoint(NamedTuple):
    last: int
    tracker: str | None = None
    gen: int | None = None
    db: str | None = None
    window: EncodedWindow | None = None


def resume_point(cursor: dict[str, Any] | None, table: str) -> ResumePoint:
    """Where a cursor resumes (fid `<table>@<tracker>.<gen>[/<db id>][~<window>]`)."""
    if not cursor:
        return ResumePoint(0)
    fid = cursor.get("fid")
    offset = int(cursor["offset"])
    m = _RESUME.match(fid[len(table) + 1 :]) if isinstance(fid, str) and fid.startswith(f"{table}@") else None
    if not m:
        return ResumePoint(0)
    window = parse_window(m.group(4)) if m.group(4) is not None else None
    return ResumePoint(offset // ROW_SCALE, m.group(1), int(m.group(2)), m.group(3), window)


class SqlTableSource:
    kind = "sql"

    def __init__(self, info: dict[str, Any], db: SqlDatabase, table: str):
        self.info = info
        self.db = db
        self.table = table
        self.data_files = [db.path, f"{db.path}-wal"]

    def _on_fresh_view(self, read: Callable[[sqlite3.Connection], _Read]) -> _Read:
        """`read` on a view of the database, again on a fresh one while a writer keeps it busy."""
        last: Exception | None = None
        for attempt in range(5):
            if attempt:
                time.sleep(0.025 * attempt)
            conn = self.db.get(True, fresh=attempt > 0)
            if conn is None:
                continue
            try:
                return read(conn)
            except sqlite3.Error as e:
                if not is_busy(e):
                    raise RuntimeError(str(e)) from None
                last = e
        raise RuntimeError(str(last) if last else f"cannot read {os.path.basename(self.db.path)}: a writer kept it busy")

    def read_detail(self, row_id: int) -> dict[str, Any]:
        return drain(self.detail_steps(row_id))

    def detail_steps(self, row_id: int) -> Generator[None, None, dict[str, Any]]:
        """read_detail in slices: the bytes read at once, their decoding in slices (the relay lets
        other clients run between them)."""
        data, reward = self._on_fresh_view(lambda conn: self._detail_bytes(conn, row_id))
        try:
            d = yield from experience_steps(data)
        except ValueError as e:
            raise RuntimeError(str(e)) from None
        # The column wins, as in Trinity's ExperienceModel.to_experience: serve mode writes the
        # bytes before /feedback sets the reward, which only updates the column.
        if isinstance(reward, (int, float)) and not isinstance(reward, bool):
            d["reward"] = wire_number(float(reward))
        return d

    def read_tokens(self, row_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
        return drain(self.tokens_steps(row_id))

    def tokens_steps(self, row_id: int) -> Generator[None, None, tuple[dict[str, Any], dict[str, Any]]]:
        """(header fields, arrays) of one row's tokens (tokens.py): the ranges read on one view,
        then decoded in slices."""
        parts, reward = self._on_fresh_view(lambda conn: self._token_parts(conn, row_id))
        try:
            header, arrays = yield from token_parts_steps(*parts)
        except RowDecodeError as e:
            raise RuntimeError(f"row {row_id} of {self.table}: {e}") from None
        # The column wins, as for the detail.
        if isinstance(reward, (int, float)) and not isinstance(reward, bool):
            header["reward"] = wire_number(float(reward))
        return header, arrays

    def _token_parts(self, conn: sqlite3.Connection, row_id: int) -> tuple[Any, Any]:
        t = quote_ident(self.table)
        if "experience_bytes" not in table_columns(conn, self.table):
            raise RuntimeError(f"table {self.table} has no experience_bytes column")
        conn.execute("BEGIN")
        try:
            row = conn.execute(f"SELECT length(experience_bytes), reward FROM {t} WHERE id = ?", (row_id,)).fetchone()
            if row is None:
                raise RuntimeError(f"no row {row_id} in {self.table}")
            length, reward = row
            if not isinstance(length, int):
                raise RuntimeError(f"row {row_id} of {self.table} has no experience bytes")  # noqa: TRY004 (bad data, not a bad call)

            def read(start: int, n: int) -> bytes | None:
                if n == 0:
                    return b""
                r = conn.execute(f"SELECT substr(experience_bytes, ?, ?) FROM {t} WHERE id = ?", (start + 1, n, row_id)).fetchone()
                return r[0] if r is not None and isinstance(r[0], bytes) else None

            try:
                return read_token_parts(read, length), reward
            except RowDecodeError as e:
                raise RuntimeError(f"row {row_id} of {self.table}: {e}") from None
        finally:
            conn.execute("COMMIT")

    def _detail_bytes(self, conn: sqlite3.Connection, row_id: int) -> tuple[bytes, Any]:
        t = quote_ident(self.table)
        if "experience_bytes" not in table_columns(conn, self.table):
            raise RuntimeError(f"table {self.table} has no experience_bytes column")
        row = conn.execute(f"SELECT experience_bytes, reward FROM {t} WHERE id = ?", (row_id,)).fetchone()
        if row is None:
            raise RuntimeError(f"no row {row_id} in {self.table}")
        data, reward = row
        if not isinstance(data, bytes):
            raise RuntimeError(f"row {row_id} of {self.table} has no experience bytes")  # noqa: TRY004 (bad data, not a bad call)
        return data, reward

    def open(self, cursor: dict[str, Any] | None) -> SqlTableReader:
        return SqlTableReader(self, cursor)


class SqlTableReader:
    """One client's reader of one table: the rows it has not had, then the changed ones."""

    def __init__(self, src: SqlTableSource, cursor: dict[str, Any] | None):
        self.src = src
        self.db = src.db
        self.table = src.table
        at = resume_point(cursor, src.table)
        self.last = at.last
        self.resume_gen = at.gen if at.tracker == self.db.tracker else None
        self.delivered_gen = self.resume_gen if self.resume_gen is not None else 0
        # The database file the cursor's rows came from, then the one read; the client's recent rows
        # as the cursor described them (a relay that did not send them), then as sent.
        self.db_id: str | None = at.db
        self.resume_window = at.window
        self.window = RowWindow()
        self.window_loaded = False
        self.seen_gen: int | None = None
        self.pending: dict[int, None] = {}
        self.count = 0
        self.cols: dict[str, bool] | None = None
        self.limit: int | None = None
        self.behind = False
        self.disordered = False  # the last row read stopped at rows out of id order
        self.changes_turn = False

    def _max_limit(self) -> int:
        return ROWS_PER_BATCH if self.cols is not None and not self.cols["bytes"] else SUMMARY_ROWS_PER_BATCH

    def next(self, budget: int) -> ExperiencesBatch | None:
        # Behind: a batch was cut short, changed rows wait, or the database has a view not read yet.
        conn = self.db.get(self.behind or bool(self.pending) or self.seen_gen != self.db.generation)
        if conn is None:
            return None
        try:
            conn.execute("BEGIN")
            try:
                b = self._read(conn)
            finally:
                conn.execute("COMMIT")
        except sqlite3.Error as e:
            if not is_busy(e):
                raise RuntimeError(f"{os.path.basename(self.db.path)}: {e}") from None
            # A writer holds the database: nothing was taken; the next wake reads again, in a smaller batch.
            self.limit = max(MIN_ROWS_PER_BATCH, (self.limit or self._max_limit()) // 2)
            self.behind = True
            return None
        if self.limit is not None:
            self.limit = min(self.limit * 2, self._max_limit())
        return b

    def _restart(self) -> None:
        """Another database file than the cursor's rows came from: from its first row."""
        self.last = self.count = 0
        self.resume_gen = self.seen_gen = None
        self.delivered_gen = 0
        self.resume_window = None
        self.pending.clear()
        self.window = RowWindow()
        self.window_loaded = False

    def _read(self, conn: sqlite3.Connection) -> ExperiencesBatch | None:
        file = self.db.identity()
        if self.db_id is not None and self.db_id != file:
            self._restart()
        self.db_id = file
        if self.cols is None:
            cols = table_columns(conn, self.table)
            self.cols = {"msg_id": "msg_id" in cols, "consumed": "consumed" in cols, "bytes": "experience_bytes" in cols}
        self._collect_changes(conn)
        if not self.window_loaded:
            # What the client holds of its recent rows: as they are now, but for the changes queued (sent again).
            self.window_loaded = True
            self.window.hold(self._states(conn, window_buckets(self.last)[0] * BUCKET_ROWS, self.last), self.last)
        limit = self.limit or self._max_limit()
        # New rows and changed rows take turns: under a writer that never pauses, a change
        # (serve mode's reward) must not wait for the writer to stop.
        if self.changes_turn:
            self.changes_turn = False
            changed = self._changed_batch(conn, limit)
            if changed:
                return changed
        rows = self._select(conn, f"id > ? ORDER BY id LIMIT {limit}", [self.last], self.last)
        self.behind = len(rows) == limit or self.disordered
        if rows:
            self.last = rows[-1]["id"]
            self.count = 0
            self.changes_turn = bool(self.pending)
            return self._batch(rows)
        return self._changed_batch(conn, limit)

    def _changed_batch(self, conn: sqlite3.Connection, limit: int) -> ExperiencesBatch | None:
        while self.pending:
            ids = list(self.pending)[:limit]
            rows = self._select(conn, f"id IN ({','.join('?' * len(ids))}) ORDER BY id", ids)
            for r in rows:
                r["updated"] = True
            for i in ids:
                self.pending.pop(i, None)  # only once read: a failed read leaves them queued
            if not self.pending:
                self.delivered_gen = self.seen_gen or 0
            if not rows:
                continue
            self.count = min(self.count + 1, ROW_SCALE - 1)
            return self._batch(rows)
        return None

    def _collect_changes(self, conn: sqlite3.Connection) -> None:
        gen = self.db.generation
        since = self.seen_gen if self.seen_gen is not None else self.resume_gen
        if since is not None and since != gen:
            ids = self.db.changed_since(self.table, since)
            if ids is None:
                self._queue_recent(conn)
            else:
                for i in ids:
                    if i <= self.last:
                        self._queue(i)
        elif since is None and self.last > 0:
            # Resumed from another relay process: which rows changed while the client was away is not
            # known here; its window says what it holds of its recent rows, so those that differ now
            # are sent again (without a window — an older relay's cursor — its most recent rows are).
            w = self.resume_window
            if w is not None:
                states = self._states(conn, w.first * BUCKET_ROWS, self.last)
                changed = set(changed_buckets(w, states))
                for r in states:
                    if r.id // BUCKET_ROWS in changed:
                        self._queue(r.id)
            else:
                self._queue_recent(conn)
        self.seen_gen = gen
        if not self.pending:
            self.delivered_gen = gen

    def _states(self, conn: sqlite3.Connection, lo: int, hi: int) -> list[RowState]:
        """(id, reward, consumed) of the rows with ids in [lo, hi], in id order."""
        if hi < lo:
            return []
        consumed = "consumed" if self.cols and self.cols["consumed"] else "NULL"
        out: list[RowState] = []
        for i, reward, c in conn.execute(f"SELECT id, reward, {consumed} FROM {quote_ident(self.table)} WHERE id >= ? AND id <= ? ORDER BY id", (lo, hi)):
            row = RowState(int(i), None if reward is None else _js_number(reward), None if c is None else _js_number(c))
            if out and row.id <= out[-1].id:
                break  # out of order: a damaged b-tree
            out.append(row)
        return out

    def _queue_recent(self, conn: sqlite3.Connection) -> None:
        q = quote_ident(self.table)
        ids = [r[0] for r in conn.execute(f"SELECT id FROM {q} WHERE id <= ? ORDER BY id DESC LIMIT {RESUME_ROWS}", (self.last,))]
        for i in reversed(ids):
            self._queue(int(i))

    def _queue(self, row_id: int) -> None:
        self.pending.pop(row_id, None)  # re-queued at the end: oldest first when dropping
        self.pending[row_id] = None
        if len(self.pending) > MAX_PENDING:
            self.pending.pop(next(iter(self.pending)))

    def _select(self, conn: sqlite3.Connection, where: str, params: list[Any], after: float = -math.inf) -> list[dict[str, Any]]:
        c = self.cols
        assert c is not None
        blob = (
            f"length(experience_bytes), CASE WHEN length(experience_bytes) <= {WHOLE_BYTES} "
            f"THEN experience_bytes ELSE substr(experience_bytes, 1, {HEAD_BYTES}) END"
        )
        extra = ["msg_id" if c["msg_id"] else "NULL", "consumed" if c["consumed"] else "NULL", blob if c["bytes"] else "NULL, NULL"]
        q = quote_ident(self.table)
        sql = f"SELECT id, task_id, run_id, model_version, reward, timestamp, {', '.join(extra)} FROM {q} WHERE {where}"
        # Strictly increasing ids, or the read stops: a b-tree that leads back to pages already
        # walked (a cycle) gives rows again. With no row before the disorder, the table is damaged.
        out: list[dict[str, Any]] = []
        prev = after
        self.disordered = False
        with self.db.steps:
            for v in conn.execute(sql, params):
                if not v[0] > prev:
                    if not out:
                        raise CorruptTable(f"table {self.table} is damaged: row {v[0]} came after row {prev}: no rows are read past row {self.last}")
                    self.disordered = True  # the next read starts at the disorder, and says so
                    break
                prev = v[0]
                out.append(self._row_of(conn, v))
        return out

    def _row_of(self, conn: sqlite3.Connection, v: tuple[Any, ...]) -> dict[str, Any]:
        c = self.cols
        assert c is not None
        row_id = int(v[0])
        row: dict[str, Any] = {
            "id": row_id,
            "table": self.table,
            "task_id": _text(v[1]),
            "run_id": int_or_null(v[2]),
            "model_version": int_or_null(v[3]),
            "reward": None if v[4] is None else wire_number(_js_number(v[4])),
            "timestamp": _text(v[5]),
        }
        if c["msg_id"]:
            row["msg_id"] = _text(v[6])
        if c["consumed"]:
            row["consumed"] = int_or_null(v[7])
        if isinstance(v[9], bytes):
            q = quote_ident(self.table)

            def read(start: int, n: int) -> bytes | None:
                r = conn.execute(f"SELECT substr(experience_bytes, ?, ?) FROM {q} WHERE id = ?", (start + 1, n, row_id)).fetchone()
                return r[0] if r and isinstance(r[0], bytes) else None

            s = summarize_experience(v[9], int(v[8]), read)
            if "metrics" in s:
                row["metrics"] = s["metrics"]
            for key in ("advantage", "response_tokens", "trained_tokens", "truncated", "empty_response", "task_index", "taskset_id", "response_hash"):
                if key in s:
                    row[key] = s[key]
            if "error" in s:
                row["error"] = s["error"]
        return row

    def _batch(self, rows: list[dict[str, Any]]) -> ExperiencesBatch:
        self.window.hold((RowState(r["id"], _from_wire(r["reward"]), r.get("consumed")) for r in rows), self.last)
        # The generation is in the fid: a batch of another generation is new to the client whatever its offset.
        fid = f"{self.table}@{self.db.tracker}.{self.delivered_gen}/{self.db_id}~{self.window.encode(self.last, self.pending)}"
        return ExperiencesBatch(rows, cursor_dict(self.src.info["id"], self.last * ROW_SCALE + self.count, fid))

    def close(self) -> None:
        self.pending.clear()
