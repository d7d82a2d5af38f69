"""Optional frameworks in tests: skipped when not installed, required in CI.

CI installs the `pydantic-ai`, `openai-agents` and `mcp` extras and sets
`SAFEHOLD_REQUIRE_FRAMEWORKS=1`, so an adapter suite can never pass by being skipped there.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def need(module: str) -> ModuleType:
    """Import `module`, or skip the test module when it is missing (fail when CI requires it)."""
    if os.environ.get("SAFEHOLD_REQUIRE_FRAMEWORKS"):
        return importlib.import_module(module)
    return pytest.importorskip(module)
