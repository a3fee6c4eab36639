# Resolves a workflow / reward / judge spec to a Python object:
#   "module.path->Class"   ASTuner / AgentJet style
#   "path/to/file.py->Class"
#   "package.module.Class" dotted path (Trinity)
#   "registry_name"        Trinity registry name: looked up in trinity's registries when
#                          installed, else found by scanning the workspace for
#                          @X.register_module("registry_name")
import ast
import importlib
import importlib.util
import os
import sys

SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "env", "__pycache__", ".agentrl", ".cache", "site-packages", "dist", "build"}


class SpecError(Exception):
    pass


def _import_file(path, cwd):
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    if not os.path.exists(path):
        raise SpecError("file not found: %s" % path)
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _attr(module, name, spec):
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise SpecError("%s has no attribute %r (from %r)" % (getattr(module, "__name__", module), part, spec))
        obj = getattr(obj, part)
    return obj


class _NoTrinity(object):
    """Why Trinity's registries could not be asked (trinity not importable, or broken)."""

    def __init__(self, reason):
        self.reason = reason


def _registry(what):
    try:
        if what == "workflow":
            from trinity.common.workflows import WORKFLOWS as REG  # type: ignore
        else:
            from trinity.common.rewards import REWARD_FUNCTIONS as REG  # type: ignore
        return REG
    except ImportError as e:
        return _NoTrinity("%s: %s" % (type(e).__name__, e))
    except Exception as e:  # trinity is there but fails to import: say so, never "not installed"
        return _NoTrinity("importing trinity failed (%s: %s)" % (type(e).__name__, e))


def registry_names(reg):
    names = set(getattr(reg, "modules", None) or {})
    names.update(getattr(reg, "_default_mapping", None) or {})
    return sorted(names)


def did_you_mean(name, names):
    import difflib
    squash = {n.replace("_", "").lower(): n for n in names}
    hit = squash.get(name.replace("_", "").lower())  # stale spellings: toolcall_workflow -> tool_call_workflow
    if hit:
        return [hit]
    return difflib.get_close_matches(name, names, n=3, cutoff=0.75)


def _registry_lookup(name, what):
    """Trinity's own registries decide when trinity is importable: their object, or a
    SpecError with their own verdict plus "did you mean". Returns _NoTrinity otherwise."""
    reg = _registry(what)
    if isinstance(reg, _NoTrinity):
        return reg
    try:
        obj = reg.get(name)
    except Exception as e:
        obj, verdict = None, "%s: %s" % (type(e).__name__, e)
    else:
        verdict = None if obj is not None else "not registered"
    if obj is not None:
        return obj
    return verdict


def scan_registered(name, cwd):
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
            except OSError:
                continue
            if "register_module" not in text or name not in text:
                continue
            try:
                tree = ast.parse(text, path)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if not isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                    continue
                for dec in node.decorator_list:
                    if (isinstance(dec, ast.Call) and getattr(dec.func, "attr", None) == "register_module" and dec.args
                            and isinstance(dec.args[0], ast.Constant) and dec.args[0].value == name):
                        return path, node.name
    return None


def resolve(spec, cwd, what="workflow"):
    spec = (spec or "").strip()
    if not spec:
        raise SpecError("no %s given" % what)
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    if "->" in spec:
        mod, _, name = spec.partition("->")
        mod, name = mod.strip(), name.strip()
        module = _import_file(mod, cwd) if mod.endswith(".py") else importlib.import_module(mod)
        return _attr(module, name, spec)
    if "." in spec:
        parts = spec.split(".")
        # longest importable module prefix, the rest are attributes
        for i in range(len(parts) - 1, 0, -1):
            modname = ".".join(parts[:i])
            try:
                module = importlib.import_module(modname)
            except ModuleNotFoundError as e:
                if e.name and modname.startswith(e.name):
                    continue
                raise
            return _attr(module, ".".join(parts[i:]), spec)
        raise SpecError("cannot import %r: no module %r found from %s" % (spec, parts[0], cwd))
    found = _registry_lookup(spec, what)
    if found is not None and not isinstance(found, (str, _NoTrinity)):
        return found
    hit = scan_registered(spec, cwd)
    if hit is not None:
        path, name = hit
        return getattr(_import_file(path, cwd), name)
    if isinstance(found, str):  # Trinity's registry said no
        reg = _registry(what)
        hint = did_you_mean(spec, registry_names(reg))
        raise SpecError("%s %r is not in Trinity's %s registry (%s)%s; nor is a @...register_module(%r) "
                        "found under %s" % (what, spec, getattr(reg, "name", what), found,
                                            "; did you mean %s?" % " or ".join(repr(h) for h in hint) if hint else "",
                                            spec, cwd))
    raise SpecError("%s %r is a Trinity registry name, but trinity-rft cannot be imported by the Python in use "
                    "(%s: %s), and no @...register_module(%r) was found under %s. Pick an interpreter that has "
                    "trinity-rft (\"python\" in launch.json, or the Python extension's interpreter), or point the "
                    "config at a workflow in the workspace (module->Class or a dotted path)"
                    % (what, spec, sys.executable, found.reason if isinstance(found, _NoTrinity) else "not importable",
                       spec, cwd))


def module_functions(obj):
    """Functions a workflow's tool calls may name: {name: {path, line, name}}.

    The top-level functions of the module defining `obj`, then those of the workspace modules
    it imports from (`from tools import call_tool` brings tools.py's get_weather, add, ...), so
    a tool-call frame opens the tool's own line, not the LLM call's. Modules outside the
    workflow's folder (site-packages, the standard library) are left out."""
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    out = {}
    path = getattr(module, "__file__", None) if module is not None else None
    if not path:
        return out
    root = os.path.dirname(os.path.abspath(path))

    def local(m):
        f = getattr(m, "__file__", None)
        if not f:
            return None
        f = os.path.abspath(f)
        inside = os.path.commonpath([root, f]) == root
        return f if inside and "site-packages" not in f and "dist-packages" not in f else None

    def add(m):
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
        m = value if isinstance(value, type(sys)) else sys.modules.get(getattr(value, "__module__", None) or "")
        if m is not None and m not in seen:
            seen.add(m)
            add(m)
    return out
    path = getattr(module, "__file__", None)
    if not path:
        return out
    for name, value in vars(module).items():
        code = getattr(value, "__code__", None)
        if code is not None and os.path.abspath(code.co_filename) == os.path.abspath(path):
            out[name] = {"path": os.path.abspath(path), "line": code.co_firstlineno, "name": name}
    return out
