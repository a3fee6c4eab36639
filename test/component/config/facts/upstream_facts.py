"""Facts of upstream Python sources, read with ``ast`` (nothing is imported or run).

Prints one JSON object for the files named on the command line:

* ``classes``: every ``@dataclass`` with its fields in declaration order (inherited fields
  first), each with its annotation, its default as plain data and the line it is on;
* ``enums``: every ``Enum`` subclass with its member values;
* ``registries``: every ``X = Registry("name", default_mapping={...})`` with its names;
* ``constants``: module-level string / number constants (defaults refer to them).

A default is ``{"literal": v}`` for a literal (or a name of a constant), ``{"enum": cls,
"member": m}`` for ``SomeEnum.MEMBER`` (``.value`` too), ``{"factory": cls}`` for a
``default_factory`` naming a class, ``{"literal": v}`` for a factory returning a literal,
``{"required": true}`` without a default, and ``{"expr": text}`` for anything else.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

Json = dict[str, Any]


def _decorator_names(node: ast.ClassDef) -> list[str]:
    names = []
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, ast.Attribute):
            names.append(target.attr)
    return names


def _base_names(node: ast.ClassDef) -> list[str]:
    out = []
    for b in node.bases:
        if isinstance(b, ast.Name):
            out.append(b.id)
        elif isinstance(b, ast.Attribute):
            out.append(b.attr)
    return out


def _literal(node: ast.expr, constants: Json) -> tuple[bool, Any]:
    """(True, value) when ``node`` is a literal or names a known constant."""
    if isinstance(node, ast.Name) and node.id in constants:
        return True, constants[node.id]
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _enum_member(node: ast.expr) -> Json | None:
    """``Enum.MEMBER`` or ``Enum.MEMBER.value``."""
    if isinstance(node, ast.Attribute) and node.attr == "value":
        node = node.value
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id[:1].isupper()
        and node.attr.isupper()
    ):
        return {"enum": node.value.id, "member": node.attr}
    return None


def _default(value: ast.expr | None, constants: Json) -> Json:
    if value is None:
        return {"required": True}
    if isinstance(value, ast.Call) and getattr(value.func, "id", None) == "field":
        for kw in value.keywords:
            if kw.arg == "default":
                return _default(kw.value, constants)
            if kw.arg == "default_factory":
                factory = kw.value
                if isinstance(factory, ast.Name):
                    builtin = {"dict": {}, "list": [], "set": []}
                    if factory.id in builtin:
                        return {"literal": builtin[factory.id]}
                    return {"factory": factory.id}
                if isinstance(factory, ast.Lambda):
                    ok, v = _literal(factory.body, constants)
                    if ok:
                        return {"literal": v}
                    if isinstance(factory.body, ast.Call) and isinstance(factory.body.func, ast.Name):
                        return {"factory": factory.body.func.id, "expr": ast.unparse(factory.body)}
                return {"expr": ast.unparse(factory)}
        return {"required": True}
    member = _enum_member(value)
    if member:
        return member
    ok, v = _literal(value, constants)
    if ok:
        return {"literal": v}
    return {"expr": ast.unparse(value)}


class _Module:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        self.constants: Json = {}
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                ok, v = _literal(node.value, {})
                if ok and isinstance(v, (str, int, float, bool)):
                    self.constants[node.targets[0].id] = v


def _fields(node: ast.ClassDef, constants: Json) -> list[Json]:
    out = []
    for stmt in node.body:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        ann = ast.unparse(stmt.annotation)
        if ann.startswith("ClassVar"):
            continue
        out.append({"name": stmt.target.id, "type": ann, "default": _default(stmt.value, constants), "line": stmt.lineno})
    return out


def _message(node: ast.expr | None) -> str:
    """The text of a raise / assert / log message: f-string parts joined, `{…}` for values."""
    if node is None:
        return ""
    if isinstance(node, ast.Call) and node.args:
        return _message(node.args[0])
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{…}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _message(node.left) + _message(node.right)
    return ast.unparse(node)


def _function(module: _Module, fn: ast.FunctionDef) -> Json:
    """A method with what it checks: each raise, assert and logger.warning, with its message."""
    checks = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Raise) and node.exc is not None:
            checks.append({"kind": "raise", "line": node.lineno, "message": _message(node.exc)})
        elif isinstance(node, ast.Assert):
            checks.append({"kind": "assert", "line": node.lineno, "message": _message(node.msg)})
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "warning":
            checks.append({"kind": "warning", "line": node.lineno, "message": _message(node.args[0] if node.args else None)})
    checks.sort(key=lambda c: c["line"])
    return {"file": str(module.path), "line": fn.lineno, "checks": checks}


def _registries(module: _Module) -> list[Json]:
    out = []
    for node in module.tree.body:
        if isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        elif isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        else:
            continue
        if not isinstance(value, ast.Call) or getattr(value.func, "id", None) != "Registry":
            continue
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            continue
        mapping = next((kw.value for kw in value.keywords if kw.arg == "default_mapping"), None)
        if mapping is None and len(value.args) > 1:
            mapping = value.args[1]
        names = []
        if isinstance(mapping, ast.Dict):
            names = [{"name": k.value, "line": k.lineno} for k in mapping.keys if isinstance(k, ast.Constant)]
        out.append({"var": targets[0].id, "line": node.lineno, "names": names})
    return out


def extract(paths: list[Path]) -> Json:
    modules = [_Module(p) for p in paths]
    constants: Json = {}
    for m in modules:
        constants.update(m.constants)
    raw: dict[str, tuple[_Module, ast.ClassDef]] = {}
    enums: Json = {}
    for m in modules:
        for node in ast.walk(m.tree):
            if not isinstance(node, ast.ClassDef):
                continue
            if "dataclass" in _decorator_names(node):
                raw[node.name] = (m, node)
            elif any(b.endswith("Enum") for b in _base_names(node)):
                values = []
                for stmt in node.body:
                    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                        ok, v = _literal(stmt.value, constants)
                        if ok and stmt.targets[0].id.isupper():
                            values.append({"member": stmt.targets[0].id, "value": v, "line": stmt.lineno})
                meta = next((k.value for k in node.keywords if k.arg == "metaclass"), None)
                enums[node.name] = {
                    "file": str(m.path),
                    "line": node.lineno,
                    "values": values,
                    "metaclass": meta.id if isinstance(meta, ast.Name) else None,
                    "bases": _base_names(node),
                }

    # `name_aliases = {...}` of each metaclass (case-insensitive enums accept these names too)
    aliases: dict[str, Json] = {}
    for m in modules:
        for node in ast.walk(m.tree):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if isinstance(stmt, ast.Assign) and getattr(stmt.targets[0], "id", None) == "name_aliases":
                        ok, v = _literal(stmt.value, constants)
                        if ok and isinstance(v, dict):
                            aliases[node.name] = v

    def metaclass_of(name: str) -> str | None:
        # the metaclass a class names, else the one a base enum has (Enum's own: None)
        e = enums.get(name)
        if e is None:
            return None
        return e["metaclass"] or next((m for b in e["bases"] if (m := metaclass_of(b))), None)

    for e in enums.values():
        meta = e["metaclass"] or next((m for b in e["bases"] if (m := metaclass_of(b))), None)
        e["case_insensitive"] = meta is not None
        e["aliases"] = aliases.get(meta, {}) if meta else {}
    for e in enums.values():
        del e["metaclass"], e["bases"]

    def fields_of(name: str, seen: tuple[str, ...] = ()) -> list[Json]:
        module, node = raw[name]
        inherited: list[Json] = []
        for base in _base_names(node):
            if base in raw and base not in seen:
                inherited.extend(fields_of(base, (*seen, name)))
        own = [{**f, "file": str(module.path)} for f in _fields(node, constants)]
        own_names = {f["name"] for f in own}
        return [f for f in inherited if f["name"] not in own_names] + own

    classes: Json = {}
    for name, (module, node) in raw.items():
        classes[name] = {"file": str(module.path), "line": node.lineno, "bases": _base_names(node), "fields": fields_of(name)}
    registries = {r["var"]: {**r, "file": str(m.path)} for m in modules for r in _registries(m)}
    functions = {f"{c.name}.{fn.name}": _function(m, fn) for m in modules for c in ast.walk(m.tree) if isinstance(c, ast.ClassDef) for fn in c.body if isinstance(fn, ast.FunctionDef)}
    return {"classes": classes, "enums": enums, "registries": registries, "constants": constants, "functions": functions}


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: upstream_facts.py FILE.py...", file=sys.stderr)
        return 2
    json.dump(extract([Path(a) for a in argv]), sys.stdout, indent=None, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
