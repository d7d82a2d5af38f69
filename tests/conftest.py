"""Shared test setup: hypothesis profiles (`dev`, `ci`, `deep`, `fuzz`) registered once.

Pick one with `HYPOTHESIS_PROFILE=deep python -m pytest`; CI sets `ci`.
"""

from __future__ import annotations

import os
import tempfile

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("deep", max_examples=2000, deadline=None)
settings.register_profile(
    "fuzz", max_examples=20000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

# Config discovery must not pick up the developer's own config: no $SAFEHOLD_CONFIG, and an
# empty user config directory (the tests' subprocesses inherit both).
os.environ.pop("SAFEHOLD_CONFIG", None)
os.environ.pop("SAFEHOLD_MANAGED_CONFIG", None)
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="safehold-tests-xdg-")

# A hook call would start a per-user hook server that outlives the test; only the hook
# server tests turn it on, each with its own runtime directory, and stop it themselves.
os.environ["SAFEHOLD_HOOK_SERVER"] = "0"
