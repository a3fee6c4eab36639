"""The relay's sources: what discovery finds under its root — a Trinity job dir (`--job-dir`)
or any TensorBoard logdir (`--logdir`) — kept open for every client.

The root is the boundary: only regular files and directories whose real path lies inside it
are considered (symbolic links are not followed, a symlinked `log/` or `buffer/` included), so
nothing outside the configured directory is ever read. Source ids, runs and roles are the Node
relay's (src/relay/sources/discovery.ts), so cursors are valid for either relay.
"""

from __future__ import annotations

import builtins
import os
import stat
from typing import Any, Callable, Dict

from .eventsource import TfEventsSource
from .files import inside
from .serve import ServeMetricsSource, explorer_url_in
from .sqldb import SqlDatabase, is_sqlite_file
from .sqlsource import SqlTableSource
from .textsources import JsonlExperienceSource, StepLogSource

MAX_ENTRIES = 20000
WALK_DEPTH = 12

Spec = Dict[str, str]


def _entries(d: str) -> list[os.DirEntry]:
    try:
        with os.scandir(d) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def _is_dir(e: os.DirEntry) -> bool:
    try:
        return e.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_file(e: os.DirEntry) -> bool:
    try:
        return e.is_file(follow_symlinks=False)
    except OSError:
        return False


def _real_dir(path: str, real: str) -> bool:
    """A directory whose real path lies inside the root (`real`: the root's real path). The walk
    below it takes no symbolic link; the place a job dir names (log/, buffer/, ...) may be one."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and inside(real, path)


class Refusals:
    """Paths that resolve outside the root, each reported once:
    `relay: refusing <rel>: it resolves to <target>, outside <root>`."""

    def __init__(self, root: str, real: str, report: Callable[[str], None]):
        self.root = root
        self.real = real
        self.report = report
        self.said: set[str] = set()

    def allows(self, p: str) -> bool:
        """True inside the root (or while p does not exist); False, reported once, outside it."""
        if not os.path.lexists(p) or inside(self.real, p):
            return True
        if p not in self.said:
            self.said.add(p)
            self.report(f"relay: refusing {os.path.relpath(p, self.root)}: it resolves to {os.path.realpath(p)}, outside {self.root}")
        return False


class Walked:
    def __init__(self) -> None:
        self.files: list[str] = []
        self.dirs: list[str] = []


def walk(d: str, real: str, depth: int = WALK_DEPTH, out: Walked | None = None) -> Walked:
    """Regular files and directories under d (no symbolic links, no dot-dirs), bounded."""
    out = out or Walked()
    if not _real_dir(d, real):
        return out
    entries = _entries(d)
    out.dirs.append(d)
    for e in entries:
        if len(out.files) + len(out.dirs) > MAX_ENTRIES:
            break
        p = os.path.join(d, e.name)
        if _is_dir(e) and not e.name.startswith(".") and depth > 0:
            walk(p, real, depth - 1, out)
        elif _is_file(e):
            out.files.append(p)
    return out


def _rel(root: str, p: str) -> str:
    return os.path.relpath(p, root).replace(os.sep, "/")


def is_event_file(name: str) -> bool:
    return "tfevents" in name


def _spec(kind: str, rel: str, run: str, role: str, abs_path: str, sid: str | None = None) -> Spec:
    return {"id": sid or f"{kind}:{rel}", "kind": kind, "run": run, "role": role, "rel": rel, "abs": abs_path}


def discover_logdir(root: str, real: str, run_name: str | None) -> tuple[list[Spec], list[str]]:
    w = walk(root, real)
    specs = []
    for f in sorted(x for x in w.files if is_event_file(os.path.basename(x))):
        r = _rel(root, f)
        run_dir = _rel(root, os.path.dirname(f))
        # Event files at the logdir's top level belong to the run named after the folder, never ".".
        run = (run_name or os.path.basename(root)) if run_dir == "." else run_dir
        specs.append(_spec("tfevents", r, run, "", f))
    return specs, w.dirs


def _job_dirs(root: str, real: str, run_name: str | None) -> list[tuple[str, str]]:
    """A job dir and its stage sub-dirs (`<name>/<stage_name>`), each with its run name."""
    name = run_name or os.path.basename(root)
    out = [(root, name)]
    for e in _entries(root):
        p = os.path.join(root, e.name)
        if _is_dir(e) and e.name not in ("monitor", "log", "buffer") and not e.name.startswith("global_step_") and _real_dir(os.path.join(p, "monitor"), real):
            out.append((p, f"{name}/{e.name}"))
    return out


def discover_job(root: str, real: str, run_name: str | None, refusals: Refusals | None = None) -> tuple[list[Spec], list[str]]:
    refusals = refusals or Refusals(root, real, lambda _: None)
    allows = refusals.allows
    specs: list[Spec] = []
    dirs: list[str] = []
    for d, run in _job_dirs(root, real, run_name):
        dirs.append(d)
        tb = os.path.join(d, "monitor", "tensorboard")
        w = walk(tb, real, 4) if allows(tb) else Walked()
        dirs.extend(w.dirs)
        with_events = set()
        for f in sorted(x for x in w.files if is_event_file(os.path.basename(x))):
            role = _rel(tb, f).split("/")[0]
            if role == os.path.basename(f):
                continue  # an event file directly in tensorboard/: no role
            with_events.add(role)
            specs.append(_spec("tfevents", _rel(root, f), run, role, f))
        # Step lines of a role that writes no event files (other monitors: wandb, mlflow, ...).
        logs = walk(os.path.join(d, "log"), real, 1) if allows(os.path.join(d, "log")) else Walked()
        dirs.extend(logs.dirs)
        for f in sorted(x for x in logs.files if x.endswith(".log")):
            role = os.path.basename(f)[:-4]
            if role not in with_events:
                specs.append(_spec("log", _rel(root, f), run, role, f))
        buf = walk(os.path.join(d, "buffer"), real, 0) if allows(os.path.join(d, "buffer")) else Walked()
        dirs.extend(buf.dirs)
        for f in sorted(x for x in buf.files if x.endswith(".db")):
            specs.append(_spec("sql", _rel(root, f), run, "", f))
        # The queue buffer's backup and the file buffer: Experience.to_dict() per line.
        for f in sorted(x for x in buf.files if x.endswith(".jsonl")):
            specs.append(_spec("jsonl", _rel(root, f), run, os.path.basename(f)[:-6], f))
        for e in _entries(d):
            if e.name.endswith("_server_url.txt") and allows(os.path.join(d, e.name)) and os.path.isfile(os.path.join(d, e.name)):
                f = os.path.join(d, e.name)
                specs.append(_spec("serve", _rel(root, f), run, e.name[: -len("_server_url.txt")], f))
    return specs, dirs


class Catalog:
    """Discovered sources by id, in discovery order; rescans add what appeared."""

    def __init__(self, mode: str, root: str, run: str | None, instance: str, poll_s: float, on_change: Callable[[], None], log: Callable[[str, str], None]):
        self.mode = mode
        self.root = root
        self.real = os.path.realpath(root)
        self.run = run
        self.instance = instance
        self.poll_s = poll_s
        self.on_change = on_change
        self.log = log
        self.sources: dict[str, Any] = {}
        self.databases: dict[str, SqlDatabase] = {}
        self.dirs: list[str] = []
        self.refusals = Refusals(root, self.real, lambda msg: log("warn", msg))

    def list(self) -> builtins.list[Any]:
        return list(self.sources.values())

    def rescan(self) -> builtins.list[Any]:
        """Runs discovery; returns the sources that are new."""
        if self.mode == "job":
            specs, dirs = discover_job(self.root, self.real, self.run, self.refusals)
        else:
            specs, dirs = discover_logdir(self.root, self.real, self.run)
        self.dirs = dirs
        added: list[Any] = []
        for spec in specs:
            if spec["kind"] == "sql":
                added.extend(self._sql_tables(spec))
                continue
            if spec["id"] in self.sources:
                continue
            src = self._make(spec)
            self.sources[spec["id"]] = src
            added.append(src)
        if added:
            self.log("info", f"relay: {len(added)} new source(s): {', '.join(s.info['id'] for s in added)}")
        return added

    def _info(self, spec: Spec) -> dict[str, Any]:
        return {"id": spec["id"], "kind": spec["kind"], "run": spec["run"], "role": spec["role"], "path": spec["rel"]}

    def _make(self, spec: Spec) -> Any:
        info = self._info(spec)
        kind = spec["kind"]
        if kind == "tfevents":
            return TfEventsSource(info, spec["abs"], self.log)
        if kind == "log":
            return StepLogSource(info, spec["abs"], self.log)
        if kind == "jsonl":
            return JsonlExperienceSource(info, spec["abs"], self.log)
        url = explorer_url_in(spec["abs"])
        if url:
            info["endpoint"] = url
        src = ServeMetricsSource(info, spec["abs"], self.instance, max(self.poll_s, 1.0), self.on_change, self.log)
        src.start()
        return src

    def _sql_tables(self, spec: Spec) -> builtins.list[Any]:
        path = spec["abs"]
        if not is_sqlite_file(path):
            return []
        db = self.databases.get(path)
        if db is None:
            db = self.databases[path] = SqlDatabase(path, self.log)
        out = []
        for table in db.experience_tables():
            sid = f"{spec['id']}#{table}"
            if sid in self.sources:
                continue
            info = {"id": sid, "kind": "sql", "run": spec["run"], "role": table, "path": spec["rel"]}
            src = SqlTableSource(info, db, table)
            self.sources[sid] = src
            out.append(src)
        return out

    def close(self) -> None:
        for s in self.sources.values():
            close = getattr(s, "close", None)
            if close:
                close()
        for db in self.databases.values():
            db.close()
