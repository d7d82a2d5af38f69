"""Each guard of the warm hook server, tested alone (the others held open).

The server decides for the user outside any sandbox, so every layer matters on its own:
the client's refusal of a folder others can enter, the socket's own mode, the peer-uid
check, the peer-namespace check (from a real sandbox) and the hook-only rule.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from safehold import SafetyConfig, SandboxConfig
from safehold.adapters.bwrap import run_sandboxed_sync
from safehold.cli import _hook_client, _hook_server
from safehold.policy.sandbox_config import DEFAULT_READ_ROOTS

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets")

_PAYLOAD = json.dumps(
    {
        "hook_event_name": "PreToolUse",
        "cwd": "/",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
).encode()

_CLIENT = """
import socket, sys
conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
conn.settimeout(30)
try:
    conn.connect(sys.argv[1])
except OSError as e:
    print("connect", e.errno); sys.exit(0)
reply = b""
try:
    conn.sendall(bytes.fromhex(sys.argv[2])); conn.shutdown(socket.SHUT_WR)
    while chunk := conn.recv(65536):
        reply += chunk
except ConnectionError:
    pass  # closed unread: refused
print("reply", reply[:2].decode("latin-1") or "-")
"""


@pytest.mark.parametrize("mode", [0o770, 0o750, 0o707, 0o705, 0o701], ids=oct)
def test_the_client_refuses_a_folder_others_can_enter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    folder = tmp_path / "safehold"
    folder.mkdir(mode=0o700)
    assert _hook_client.socket_path("k") is not None  # the private folder is used
    folder.chmod(mode)
    assert _hook_client.socket_path("k") is None


def test_the_client_refuses_a_folder_of_another_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the folder away")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    folder = tmp_path / "safehold"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    assert _hook_client.socket_path("k") is None


def test_the_server_answers_only_hook_commands() -> None:
    for words in (["run", "--", "touch", "/tmp/x"], ["config", "show"], ["hook", "cursor"]):
        request = _hook_client._request("k", words, b"")
        assert _hook_server._answer(request, "k", {}) == (b"NO", False), words


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A server on a socket in a folder anyone may enter (the folder layer held open)."""
    folder = Path("/var/tmp") / f"safehold-hook-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    folder.chmod(0o755)
    home = folder / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "SAFEHOLD_HOOK_SERVER": "0"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "safehold.cli._hook_server", str(folder / "hk")],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    sock = folder / "hk.sock"
    try:
        deadline = time.monotonic() + 30
        while not sock.exists():
            assert time.monotonic() < deadline and proc.poll() is None, "no server"
            time.sleep(0.05)
        yield sock, _hook_client.server_key()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


def _ask(sock: Path, request: bytes, prefix: list[str] = ()) -> str:  # type: ignore[assignment]
    done = subprocess.run(
        [*prefix, "/usr/bin/python3", "-I", "-c", _CLIENT, str(sock), request.hex()],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_the_socket_is_the_owners_alone(served: tuple[Path, str]) -> None:
    sock, key = served
    assert sock.stat().st_mode & 0o777 == 0o600
    if os.geteuid() == 0:
        # The folder is open here: the socket's own mode is what keeps another user out.
        request = _hook_client._request(key, ["hook", "claude-code"], _PAYLOAD)
        assert _ask(sock, request, _NOBODY) == "connect 13"  # EACCES


def test_the_server_refuses_a_peer_of_another_user(served: tuple[Path, str]) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to connect as another user")
    sock, key = served
    sock.chmod(0o666)  # folder and socket mode held open: only the peer-uid check is left
    request = _hook_client._request(key, ["hook", "claude-code"], _PAYLOAD)
    assert _ask(sock, request) == "reply OK"  # the owner is answered
    assert _ask(sock, request, _NOBODY) == "reply -"  # another user: closed unanswered


def test_the_server_refuses_a_sandboxed_peer(served: tuple[Path, str], tmp_path: Path) -> None:
    # The socket in the sandbox's view and unix sockets allowed: only the namespace check
    # stands between a sandboxed command and a decision made outside the sandbox.
    sock, key = served
    request = _hook_client._request(key, ["hook", "claude-code"], _PAYLOAD)
    config = SafetyConfig(
        sandbox=SandboxConfig(
            allow_unix_sockets=True,
            read_roots=(*DEFAULT_READ_ROOTS, str(sock.parent)),
        )
    )
    ws = tmp_path / "ws"
    ws.mkdir()
    result = run_sandboxed_sync(
        ["/usr/bin/python3", "-I", "-c", _CLIENT, str(sock), request.hex()],
        cwd=str(ws),
        config=config,
        timeout=60,
    )
    assert result.stdout.decode().strip() == "reply -", result.stderr
    assert _ask(sock, request) == "reply OK"  # the same request from the host is answered


def test_the_socket_folder_is_masked_in_every_sandbox_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A runtime directory inside the workspace (or a read root): the folder is masked.
    from safehold.adapters.bwrap._plan import plan_mounts

    ws = tmp_path / "ws"
    (ws / "run" / "safehold").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(ws / "run"))
    plan = plan_mounts(SafetyConfig(), str(ws))
    assert str(ws / "run" / "safehold") in plan.masked_dirs
