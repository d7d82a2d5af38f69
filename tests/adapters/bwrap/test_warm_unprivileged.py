"""The warm `safehold run` as an unprivileged user (no pids cgroup: RLIMIT_NPROC and the
watchdog), through a real hook server of that user: the same answers as in-process, and a
process that stays at its limit is stopped, without the engine loaded in the client."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.bwrap.conftest import Unprivileged

_SCRIPT = r'''
import json, os, signal, subprocess, sys, time

base = sys.argv[1]
runtime = os.path.join(base, "rt")
os.mkdir(runtime, 0o700)
os.environ["XDG_RUNTIME_DIR"] = runtime
ws = os.path.join(base, "ws")
os.mkdir(ws)
with open(os.path.join(base, "limit.toml"), "w") as fh:
    fh.write("[sandbox]\nmax_processes = 16\ntimeout = 60\n")

CLIENT = """
import json, sys
from safehold.cli import main
code = main(sys.argv[1:])
heavy = [m for m in sys.modules if m.split('.')[0] in ('pydantic', 'argparse', 'dataclasses')
         or m in ('safehold.policy.config', 'safehold.adapters.bwrap._plan')]
print(json.dumps({'code': code, 'heavy': sorted(heavy)}), file=sys.stderr)
"""


def run(server, *words):
    env = dict(os.environ, SAFEHOLD_HOOK_SERVER="1" if server else "0")
    done = subprocess.run([sys.executable, "-c", CLIENT, "run", *words], cwd=ws, env=env,
                          capture_output=True, text=True, timeout=120)
    *err, last = done.stderr.splitlines() or [""]
    return {"out": done.stdout, "err": err, **json.loads(last)}


os.environ["SAFEHOLD_HOOK_SERVER"] = "1"
from safehold.cli import _hook_client

_hook_client.warm()
folder = os.path.join(runtime, "safehold")
deadline = time.monotonic() + 60
while not (os.path.isdir(folder) and any(n.endswith(".sock") for n in os.listdir(folder))):
    assert time.monotonic() < deadline, "no server"
    time.sleep(0.1)
cases = {
    "exit": ["--", "bash", "-c", "echo hi; id -u; exit 3"],
    "fork-bomb": ["--config", os.path.join(base, "limit.toml"), "--", "bash", "-c",
                  "f() { f | f & }; f; sleep 30"],
}
out = {name: {"alone": run(False, *w), "warm": run(True, *w)} for name, w in cases.items()}
for name in os.listdir(folder):
    if name.endswith(".lock"):
        with open(os.path.join(folder, name)) as fh:
            os.kill(int(fh.read().split()[0]), signal.SIGTERM)
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def found(unprivileged: Unprivileged) -> Any:
    base = Path("/var/tmp") / f"safehold-warm-{uuid.uuid4().hex[:8]}"
    (base / "home").mkdir(parents=True)
    try:
        unprivileged.own(base)
        done = unprivileged.run(_SCRIPT, str(base), home=base / "home", timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.splitlines()[-1])
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_a_warm_run_as_a_user_answers_as_in_process(found: Any, unprivileged: Unprivileged) -> None:
    alone, warm = found["exit"]["alone"], found["exit"]["warm"]
    assert warm["heavy"] == [] and alone["heavy"] != []  # planned by the server, not here
    assert (warm["code"], warm["out"], warm["err"]) == (alone["code"], alone["out"], alone["err"])
    assert warm["code"] == 3 and warm["out"] == f"hi\n{unprivileged.uid}\n"


def test_a_warm_run_at_its_process_limit_is_stopped(found: Any) -> None:
    alone, warm = found["fork-bomb"]["alone"], found["fork-bomb"]["warm"]
    assert warm["heavy"] == []
    assert warm["code"] == alone["code"] == 137  # stopped by the watchdog, not the timeout
    assert any("max_processes" in line for line in warm["err"])
