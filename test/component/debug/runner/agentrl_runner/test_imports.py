"""Workflow / reward specs (agentrl_runner/imports.py) and the tool frames of a workflow."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from agentrl_runner.imports import SpecError, module_functions, resolve


def test_workflow_specs_module_class_file_class_dotted_path_registry_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Workflow specs: module->Class, path.py->Class, dotted path, a registry name found in the workspace."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "flows.py").write_text("class A:\n    pass\n\ndef tool(x):\n    return x\n")
    (tmp_path / "reg.py").write_text(
        "class R:\n    def register_module(self, name):\n        return lambda c: c\nWORKFLOWS = R()\n\n"
        '@WORKFLOWS.register_module("my_flow")\nclass Mine:\n    pass\n'
    )
    monkeypatch.chdir(tmp_path)
    names = [resolve(s, ".").__name__ for s in ["pkg.flows->A", "pkg/flows.py->A", "pkg.flows.A", "my_flow"]]
    assert names == ["A", "A", "A", "Mine"]
    with pytest.raises(SpecError) as missing:
        resolve("pkg.flows.Missing", ".")
    assert str(missing.value) == "pkg.flows has no attribute 'Missing' (from 'pkg.flows.Missing')"
    assert sorted(module_functions(resolve("pkg.flows.A", "."))) == ["tool"]


def test_tool_frames_come_from_the_workspace_modules_a_workflow_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Tool frames: functions of the workspace modules a workflow imports its tools from.

    The sample's shape: workflow.py does `from tools import TOOLS, call_tool`; get_weather lives in
    tools.py. With only the workflow module's own functions, a get_weather frame would open the
    LLM call's line instead of the tool's."""
    (tmp_path / "tools.py").write_text(
        "import json\n\n\ndef get_weather(city):\n    return {}\n\n\n"
        "def call_tool(name, args):\n    return get_weather(**args)\n"
    )
    (tmp_path / "helpers.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "flow.py").write_text(
        "import json\nimport helpers\nfrom tools import call_tool\n\n\n"
        "class Flow:\n    pass\n\n\ndef local_tool():\n    pass\n"
    )
    monkeypatch.chdir(tmp_path)
    fns = module_functions(resolve("flow->Flow", "."))
    assert {k: [os.path.basename(v["path"]), v["line"]] for k, v in sorted(fns.items())} == {
        "add": ["helpers.py", 1],
        "call_tool": ["tools.py", 8],
        "get_weather": ["tools.py", 4],
        "local_tool": ["flow.py", 10],
    }


def test_without_trinity_a_registry_name_names_the_interpreter_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Without trinity, a registry name's message names the interpreter and how to fix it."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SpecError) as e:
        resolve("math_workflow", ".", "workflow")
    msg = str(e.value)
    assert re.search(
        r"workflow 'math_workflow' is a Trinity registry name, but trinity-rft cannot be imported by the Python in use "
        r"\(/\S*python\S*: ModuleNotFoundError",
        msg,
    ), msg
    assert "Pick an interpreter that has trinity-rft" in msg
    assert "point the config at a workflow in the workspace" in msg
