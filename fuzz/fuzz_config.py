"""Property fuzz harness: any bytes as a config file give a config or one `ConfigError`.

Run longer with `python fuzz/fuzz_config.py -atheris_runs=200000`; CI runs a short budget.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["safehold"]):
    from safehold.errors import ConfigError
    from safehold.policy.config import SafetyConfig

_DIR = Path(tempfile.mkdtemp(prefix="safehold-fuzz-config-"))


def test_one_input(data: bytes) -> None:
    """Load the bytes as TOML and as JSON; anything but a config or ConfigError is a bug."""
    fdp = atheris.FuzzedDataProvider(data)
    suffix = ".toml" if fdp.ConsumeBool() else ".json"
    path = _DIR / f"input{suffix}"
    path.write_bytes(fdp.ConsumeBytes(fdp.remaining_bytes()))
    try:
        config = SafetyConfig.load(path)
    except ConfigError as exc:
        assert "\n" not in str(exc), "config errors must be one line"
        return
    # A config that loads must survive a round trip and keep the built-in deny floor.
    assert SafetyConfig.model_validate(config.model_dump()) == config
    if not config.replace_default_denied_paths:
        assert ".ssh/" in config.denied_paths


def main() -> None:
    """Entry point: `python fuzz/fuzz_config.py [libFuzzer flags]`."""
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
