"""Run `safehold hook ...` as the CLIs do: a subprocess, the payload on stdin, the env they set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests._forked import run_cli

PAYLOADS = Path(__file__).parent / "payloads"


@dataclass
class HookRun:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        assert self.stdout.count("\n") == 1, self.stdout
        return json.loads(self.stdout)


@dataclass
class Project:
    root: Path
    home: Path

    def payload(self, flavour: str, name: str) -> str:
        text = (PAYLOADS / flavour / f"{name}.json").read_text()
        return text.replace("@PROJECT@", str(self.root)).replace("@HOME@", str(self.home))

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("SAFEHOLD_CONFIG",)}
        env.update(HOME=str(self.home), XDG_CONFIG_HOME=str(self.home / ".config"))
        env.update(extra)
        return env

    def hook(
        self,
        flavour: str,
        stdin: str | bytes,
        *args: str,
        env: dict[str, str] | None = None,
        fresh: bool = False,
    ) -> HookRun:
        """`python -m safehold.cli hook FLAVOUR ARGS` with `stdin`, in the project.

        A new process forked from a preloaded one (tests/_forked.py); `fresh=True` starts a
        new interpreter instead."""
        data = stdin.encode() if isinstance(stdin, str) else stdin
        argv = ["hook", flavour, *args]
        environ = self.env() if env is None else env
        if fresh:
            run = subprocess.run(
                [sys.executable, "-m", "safehold.cli", *argv],
                input=data,
                capture_output=True,
                cwd=self.root,
                env=environ,
                timeout=120,
            )
        else:
            run = run_cli(argv, input=data, cwd=self.root, env=environ)
        return HookRun(run.returncode, run.stdout.decode(), run.stderr.decode())


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "demo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / ".env").write_text("TOKEN=x\n")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("key\n")
    return Project(root, home)
