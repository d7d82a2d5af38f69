"""Escapes found by running the real sandbox as an unprivileged user (issue 25).

As root nothing is ever unreadable, so these run as `nobody` (setpriv) where the machine
allows it. One unprivileged process runs every probe through `run_sandboxed_sync` with a
throwaway HOME and reports JSON; each test below asserts one escape is closed.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.bwrap.conftest import Unprivileged

_PROBES = r'''
import json, os, socket, sys
from safehold import SafetyConfig, SandboxConfig
from safehold.adapters.bwrap import run_sandboxed_sync

base, tag = sys.argv[1], sys.argv[2]
out = {}


def ws(name):
    path = os.path.join(base, name)
    os.mkdir(path)
    return path


def run(command, cwd, **sandbox):
    config = SafetyConfig(sandbox=SandboxConfig(**sandbox))
    r = run_sandboxed_sync(command, cwd=cwd, config=config, timeout=60)
    return {"code": r.exit_code, "out": r.stdout.decode("utf-8", "replace"),
            "err": r.stderr.decode("utf-8", "replace")[-2000:], "findings": list(r.findings)}


def probe(name, fn):
    try:
        out[name] = fn()
    except Exception as exc:
        out[name] = {"error": f"{type(exc).__name__}: {exc}"}


def unlistable():
    w = ws("unlistable")
    for sub, mode in (("xonly", 0o311), ("wx", 0o300)):
        os.mkdir(os.path.join(w, sub))
        for name in (".env", "id_ed25519"):
            with open(os.path.join(w, sub, name), "w") as fh:
                fh.write(f"SECRET-{sub}-{name}\n")
        os.chmod(os.path.join(w, sub), mode)
    return run("cat xonly/.env xonly/id_ed25519 wx/.env; chmod 755 xonly wx; "
               "cat xonly/.env xonly/id_ed25519 wx/.env wx/id_ed25519; echo END", w)


def closed_after():
    w = ws("closed")
    r = run("mkdir -p d/.git/hooks d/.github/workflows && echo evil > d/.git/hooks/pre-commit"
            " && chmod 0300 d && echo done", w)
    r["entries"] = sorted(os.listdir(w))
    return r


def unresolvable():
    w = ws("unresolvable")
    first = run("mkdir -p .github/workflows && echo on: push > .github/workflows/ci.yml"
                " && ln -s /proc/1/root/x zz && echo OUTPUT", w)
    first["entries"] = sorted(os.listdir(os.path.join(w, ".github")))
    return {"first": first, "again": run("echo again", w)}


def planted():
    w = ws("planted")
    return {"plant": run("ln -s /usr/bin/bash x.pem", w), "later": run("echo later", w)}


SHM = """
import ctypes, errno, mmap, os
def t(name, f):
    try:
        f(); print(name, "ok")
    except OSError as e:
        print(name, "refused", e.errno)
def fill():
    with open("/dev/shm/big", "wb") as fh:
        for _ in range(64):
            fh.write(b"x" * (1 << 20))
t("devshm-64m", fill)
t("memfd", lambda: os.close(os.memfd_create("x")))
libc = ctypes.CDLL(None, use_errno=True)
def shm():
    if libc.shmget(0, 64 << 20, 0o1600) < 0:
        raise OSError(ctypes.get_errno(), "shmget")
t("shmget", shm)
t("shared-anon", lambda: mmap.mmap(-1, 64 << 20).close())
t("private-anon", lambda: mmap.mmap(-1, 16 << 20, flags=mmap.MAP_PRIVATE).close())
"""


def memory():
    w = ws("memory")
    return run(["/usr/bin/python3", "-I", "-c", SHM], w, max_memory_mb=64, tmp_size_mb=16)


SOCK = """
import socket, sys
def t(name, f):
    try:
        f(); print(name, "ok")
    except OSError as e:
        print(name, "refused", e.errno)
def dgram(address):
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        a.sendto(b"FROM-SANDBOX", address)
    except OSError:
        a.connect(address); a.send(b"FROM-SANDBOX")
t("pair-dgram-path", lambda: dgram(sys.argv[1]))
t("pair-dgram-abstract", lambda: dgram("\\0" + sys.argv[2]))
t("vsock", lambda: socket.socket(40, socket.SOCK_STREAM).close())
t("packet", lambda: socket.socket(17, socket.SOCK_DGRAM).close())
t("netlink-audit", lambda: socket.socket(16, socket.SOCK_RAW, 9).close())
t("netlink-route", lambda: socket.socket(16, socket.SOCK_RAW, 0).close())
"""


def sockets():
    w = ws("sockets")
    path = os.path.join(w, "host.sock")
    host = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    host.bind(path)
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    name = "safehold-test-" + tag
    abstract.bind("\0" + name)
    found = {}
    for network in (False, True):
        found[str(network)] = run(
            ["/usr/bin/python3", "-I", "-c", SOCK, path, name], w, network=network)
    received = []
    for s in (host, abstract):
        s.setblocking(False)
        while True:
            try:
                received.append(s.recv(100).decode())
            except BlockingIOError:
                break
    found["received"] = received
    return found


def unlistable_read_root():
    w = ws("readroot")
    cache = os.path.join(os.environ["HOME"], ".cache")
    os.makedirs(os.path.join(cache, "tool"))
    with open(os.path.join(cache, "tool", "token"), "w") as fh:
        fh.write("CACHE-SECRET\n")
    os.chmod(cache, 0o300)
    try:
        return run("echo ok; cat ~/.cache/tool/token; chmod 755 ~/.cache; ls ~/.cache", w)
    finally:
        os.chmod(cache, 0o755)


for name, fn in (("unlistable", unlistable), ("closed", closed_after),
                 ("unresolvable", unresolvable), ("planted", planted),
                 ("memory", memory), ("sockets", sockets),
                 ("read_root", unlistable_read_root)):
    probe(name, fn)
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def found(unprivileged: Unprivileged, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Every probe's outcome, from one unprivileged process (see `_PROBES`)."""
    import shutil

    base = Path("/var/tmp") / f"safehold-escape-{uuid.uuid4().hex}"
    (base / "home").mkdir(parents=True)
    try:
        unprivileged.own(base)
        done = unprivileged.run(_PROBES, str(base), uuid.uuid4().hex[:8], home=base / "home")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.splitlines()[-1])
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _ran(result: Any) -> Any:
    assert "error" not in result, result
    return result


def _lines(result: Any) -> list[str]:
    return str(_ran(result)["out"]).splitlines()


@pytest.mark.timeout(300)
def test_directories_the_scan_cannot_list_are_masked_not_taken_for_empty(found: Any) -> None:
    result = _ran(found["unlistable"])
    assert "SECRET" not in result["out"], result
    assert result["out"].endswith("END\n")  # the command ran; the secrets stayed hidden


def test_a_read_root_the_user_cannot_list_is_not_shown_and_refuses_nothing(
    found: Any,
) -> None:
    result = _ran(found["read_root"])
    assert result["out"].startswith("ok\n"), result
    assert "CACHE-SECRET" not in result["out"]


def test_a_directory_left_unlistable_is_moved_aside_after_the_run(found: Any) -> None:
    result = _ran(found["closed"])
    assert result["out"] == "done\n"
    assert "d" not in result["entries"] and "d.safehold-blocked" in result["entries"]
    assert any("cannot be listed" in f for f in result["findings"]), result["findings"]


def test_an_unresolvable_link_does_not_crash_the_after_run_check(found: Any) -> None:
    first = _ran(found["unresolvable"]["first"])
    assert (first["code"], first["out"]) == (0, "OUTPUT\n")  # the output is returned
    assert first["entries"] == ["workflows.safehold-blocked"], first  # moved aside
    again = _ran(found["unresolvable"]["again"])
    assert (again["code"], again["out"]) == (0, "again\n")  # later runs still work


def test_a_planted_link_to_a_system_file_does_not_break_later_runs(found: Any) -> None:
    later = _ran(found["planted"]["later"])
    assert (later["code"], later["out"]) == (0, "later\n"), later


def test_shared_memory_is_bounded_or_refused(found: Any) -> None:
    lines = _lines(found["memory"])
    assert lines[0] == "devshm-64m refused 28", lines  # ENOSPC: /dev/shm has a size
    assert lines[1] == "memfd refused 38"  # ENOSYS
    assert lines[2:4] == ["shmget refused 1", "shared-anon refused 1"]  # EPERM
    assert lines[4] == "private-anon ok"  # counted by RLIMIT_DATA, so allowed


@pytest.mark.parametrize("network", ["False", "True"])
def test_socket_families_are_an_allow_list(found: Any, network: str) -> None:
    _ran(found["sockets"])
    lines = _lines(found["sockets"][network])
    assert lines == [
        "pair-dgram-path refused 1",
        "pair-dgram-abstract refused 1",
        "vsock refused 1",
        "packet refused 1",
        "netlink-audit refused 1",
        "netlink-route ok",
    ]
    assert found["sockets"]["received"] == []  # nothing reached the host sockets
