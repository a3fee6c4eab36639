"""pytest fixtures of the runner package's tests (agentrl_runner/test_*.py).

Each test runs as a fresh runner would: what it imports from a workspace (``sys.modules``,
``sys.path``), its working directory and its current episode are put back afterwards, so
workspace modules of one test (``wf``, ``pkg``...) never leak into the next.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Iterator

import pytest

from agentrl_runner import stack


@pytest.fixture(autouse=True)
def isolated_runner() -> Iterator[None]:
    modules = dict(sys.modules)
    path = list(sys.path)
    finders = dict(sys.path_importer_cache)
    cwd = os.getcwd()
    try:
        yield
    finally:
        stack.set_episode(None)
        os.chdir(cwd)
        sys.path[:] = path
        for name in set(sys.modules) - set(modules):
            del sys.modules[name]
        # The finder of a relative entry such as "." lists the folder it was made in.
        sys.path_importer_cache.clear()
        sys.path_importer_cache.update(finders)
        importlib.invalidate_caches()
