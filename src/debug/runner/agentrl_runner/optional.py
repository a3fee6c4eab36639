"""Packages the runner uses when the workflow's interpreter has them, and does without when it
does not: openai, torch, trinity-rft, transformers, agentscope, datasets, debugpy. The runner
itself needs only the standard library."""

from __future__ import annotations

import importlib
from types import ModuleType


def optional_module(name: str) -> ModuleType | None:
    """The module, or None when it is not installed or fails to import (a half-installed or
    incompatible package counts as absent: the runner then does without it)."""
    try:
        return importlib.import_module(name)
    except Exception:  # any import failure means "absent" here
        return None
