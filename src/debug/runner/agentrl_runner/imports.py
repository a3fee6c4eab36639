"""Resolves a workflow / reward / judge spec to a Python object:

* ``module.path->Class``    ASTuner / AgentJet style
* ``path/to/file.py->Class``
* ``package.module.Class``  dotted path (Trinity)
* ``registry_name``         a Trinity registry name: looked up in trinity's registries when
  installed, else found by scanning the workspace for ``@X.register_module("registry_name")``
"""

from __future__ import annotations

import ast
import difflib
import importlib
import importlib.util
import os
import sys
from types import ModuleType
from typing import Any, Iterable

from agentrl_runner.protocol import SourceFrame

SKIP_DIRS = {
    ".git",
    "node_modules",
    ".venv",
    "venv",
    "env",
    "__pycache__",
    ".agentrl",
    ".cache",
    "site-packages",
    "dist",
    "build",
}
_REGISTRIES = {
    "workflow": ("trinity.common.workflows", "WORKFLOWS"),
    "reward": ("trinity.common.rewards", "REWARD_FUNCTIONS"),
}


class SpecError(Exception):
    pass


class NoTrinity:
    """Why Trinity's registries could not be asked (trinity not importable, or broken)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _import_file(path: str, cwd: str) -> ModuleType:
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    if not os.path.exists(path):
        raise SpecError(f"file not found: {path}")
    # The file's own imports (its sibling modules) resolve from its folder, as when run as a script.
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SpecError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _attr(module: ModuleType, name: str, spec: str) -> Any:
    obj: Any = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise SpecError(f"{getattr(module, '__name__', module)} has no attribute {part!r} (from {spec!r})")
        obj = getattr(obj, part)
    return obj


def registry(what: str) -> Any | NoTrinity:
    """Trinity's registry of workflows or reward functions, or why it cannot be had."""
    module, name = _REGISTRIES["workflow" if what == "workflow" else "reward"]
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as e:
        return NoTrinity(f"{type(e).__name__}: {e}")
    except Exception as e:  # trinity is there but fails to import: say so, never "not installed"
        return NoTrinity(f"importing trinity failed ({type(e).__name__}: {e})")


def registry_names(reg: Any) -> list[str]:
    names = set(getattr(reg, "modules", None) or {})
    names.update(getattr(reg, "_default_mapping", None) or {})
    return sorted(names)


def did_you_mean(name: str, names: Iterable[str]) -> list[str]:
    names = list(names)
    squash = {n.replace("_", "").lower(): n for n in names}
    hit = squash.get(name.replace("_", "").lower())  # stale spellings: toolcall_workflow -> tool_call_workflow
    if hit:
        return [hit]
    return difflib.get_close_matches(name, names, n=3, cutoff=0.75)


def _registry_lookup(name: str, what: str) -> Any | str | NoTrinity:
    """Trinity's own registries decide when trinity is importable: their object, or their
    verdict as a string. NoTrinity when they cannot be asked."""
    reg = registry(what)
    if isinstance(reg, NoTrinity):
        return reg
    try:
        obj = reg.get(name)
    except Exception as e:  # a registry that fails to load the entry: its own words
        return f"{type(e).__name__}: {e}"
    return obj if obj is not None else "not registered"


def _registered_in(tree: ast.AST, name: str) -> str | None:
    for node in ast.walk(tree):
        if not isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            continue
        for dec in node.decorator_list:
            if (
                isinstance(dec, ast.Call)
                and getattr(dec.func, "attr", None) == "register_module"
                and dec.args
                and isinstance(dec.args[0], ast.Constant)
                and dec.args[0].value == name
            ):
                return node.name
    return None


def scan_registered(name: str, cwd: str) -> tuple[str, str] | None:
    """(file, class name) of a class decorated with .register_module("<name>") in cwd."""
    for root, dirs, files in os.walk(cwd):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(root, f)
            try:
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
            except (OSError, UnicodeDecodeError):
                continue
            if "register_module" not in text or name not in text:
                continue
            try:
                found = _registered_in(ast.parse(text, path), name)
            except SyntaxError:
                continue
            if found:
                return path, found
    return None


def _import_dotted(spec: str, cwd: str) -> Any:
    parts = spec.split(".")
    # the longest importable module prefix; the rest are attributes
    for i in range(len(parts) - 1, 0, -1):
        modname = ".".join(parts[:i])
        try:
            module = importlib.import_module(modname)
        except ModuleNotFoundError as e:
            if e.name and modname.startswith(e.name):
                continue
            raise
        return _attr(module, ".".join(parts[i:]), spec)
    raise SpecError(f"cannot import {spec!r}: no module {parts[0]!r} found from {cwd}")


def _not_found(spec: str, what: str, found: str | NoTrinity, cwd: str) -> SpecError:
    if isinstance(found, str):  # Trinity's registry said no
        reg = registry(what)
        hint = did_you_mean(spec, registry_names(reg))
        maybe = "; did you mean {}?".format(" or ".join(repr(h) for h in hint)) if hint else ""
        return SpecError(
            f"{what} {spec!r} is not in Trinity's {getattr(reg, 'name', what)} registry ({found}){maybe}; "
            f"nor is a @...register_module({spec!r}) found under {cwd}"
        )
    return SpecError(
        f"{what} {spec!r} is a Trinity registry name, but trinity-rft cannot be imported by the Python in "
        f"use ({sys.executable}: {found.reason}), and no @...register_module({spec!r}) was found under "
        f'{cwd}. Pick an interpreter that has trinity-rft ("python" in launch.json, or the Python '
        "extension's interpreter), or point the config at a workflow in the workspace (module->Class "
        "or a dotted path)"
    )


def resolve(spec: str | None, cwd: str, what: str = "workflow") -> Any:
    spec = (spec or "").strip()
    if not spec:
        raise SpecError(f"no {what} given")
    # The workflow's own modules import from the workspace, as `trinity run` started there would.
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    if "->" in spec:
        mod, _, name = (p.strip() for p in spec.partition("->"))
        module = _import_file(mod, cwd) if mod.endswith(".py") else importlib.import_module(mod)
        return _attr(module, name, spec)
    if "." in spec:
        return _import_dotted(spec, cwd)
    found = _registry_lookup(spec, what)
    if not isinstance(found, (str, NoTrinity)):
        return found
    hit = scan_registered(spec, cwd)
    if hit is not None:
        path, name = hit
        return getattr(_import_file(path, cwd), name)
    raise _not_found(spec, what, found, cwd)


def module_functions(obj: Any) -> dict[str, SourceFrame]:
    """Functions a workflow's tool calls may name: {name: {path, line, name}}.

    The top-level functions of the module defining ``obj``, then those of the workspace modules
    it imports from (``from tools import call_tool`` brings tools.py's get_weather, add, ...), so
    a tool-call frame opens the tool's own line, not the LLM call's. Modules outside the
    workflow's folder (site-packages, the standard library) are left out."""
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    out: dict[str, SourceFrame] = {}
    path = getattr(module, "__file__", None) if module is not None else None
    if module is None or not path:
        return out
    root = os.path.dirname(os.path.abspath(path))

    def local(m: ModuleType) -> str | None:
        f = getattr(m, "__file__", None)
        if not f:
            return None
        f = os.path.abspath(f)
        inside = os.path.commonpath([root, f]) == root
        return f if inside and "site-packages" not in f and "dist-packages" not in f else None

    def add(m: ModuleType) -> None:
        f = local(m)
        if not f:
            return
        for name, value in vars(m).items():
            code = getattr(value, "__code__", None)
            if code is not None and os.path.abspath(code.co_filename) == f and name not in out:
                out[name] = {"path": f, "line": code.co_firstlineno, "name": name}

    add(module)  # the workflow's own functions win over same-named imported ones
    seen = {module}
    for value in list(vars(module).values()):
        m = value if isinstance(value, ModuleType) else sys.modules.get(getattr(value, "__module__", None) or "")
        if m is not None and m not in seen:
            seen.add(m)
            add(m)
    return out
