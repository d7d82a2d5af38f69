"""The scan cache on disk (`_store`): reused by a new process, never a looser mask.

A new process is simulated by emptying the in-process caches (`_new_process`: the directory
cache and the mount-plan cache). Reads are
counted by wrapping `Scanner._read`. The last test runs real bwrap with the workspace at
HOME, where the store would be in the command's reach if it were not masked.
"""

from __future__ import annotations

import errno
import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from safehold import SafetyConfig
from safehold.adapters.bwrap import _scan, _store
from safehold.adapters.bwrap._plan import MountPlan, clear_plans, plan_mounts
from safehold.adapters.bwrap._seccomp import native_arch
from safehold.policy.paths import compile_policy
from tests.adapters.bwrap.conftest import Runner, make_config


def _new_process() -> None:
    """Forget what this process cached: the directory scans and the mount plans built on them.

    Both: a plan reused from the plan cache reads nothing, and a test that simulates a new
    process would then pass or fail on timing (whether the directories' racy window passed).
    """
    _scan.clear_cache()
    clear_plans()


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Directories read from disk (not from a cache), with the store saved after any scan."""
    read: list[str] = []
    original = _scan.Scanner._read

    def counting(self: _scan.Scanner, path: str, *args: object) -> _scan.DirRecord:
        read.append(path)
        return original(self, path, *args)  # type: ignore[arg-type]

    if _store.store_key() is None:
        # Some container runtimes refuse keyctl: then there is no store at all (see
        # test_without_a_key_there_is_no_store), and nothing here to check.
        pytest.skip("no kernel keyring here: the scan store is off")
    monkeypatch.setattr(_scan.Scanner, "_read", counting)
    monkeypatch.setattr(_scan, "SAVE_AFTER_ENTRIES", 1)
    _new_process()
    yield read
    _store.wait()
    _new_process()


@pytest.fixture
def tree(ws: Path) -> Path:
    for rel in ("a/b/c/.env", "a/b/c/main.py", "d/e/id_rsa", "d/e/readme.md", "f/g/h.txt"):
        path = ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    time.sleep(0.1)  # past the racy window: a directory read in the tick it changed is reread
    return ws


def _plan(ws: Path) -> MountPlan:
    plan = plan_mounts(make_config(), str(ws))
    _store.wait()
    return plan


def _masks(plan: MountPlan) -> set[str]:
    return set(plan.masked_files) | set(plan.masked_dirs)


def _store_dir() -> Path:
    return Path(_store.store_root(os.environ["HOME"])) / "scan"


def _store_file() -> Path:
    (found,) = _store_dir().glob("*.scan")
    return found


def _store_file_of(plan: MountPlan) -> Path:
    """The store file written for the default policy (`make_config()`)."""
    policy = compile_policy(make_config(), plan.cwd)
    denied = _scan.Matcher.of(policy.denied, policy.casefold)
    protected = _scan.Matcher.of(policy.protected, policy.casefold)
    key = (denied.patterns, protected.patterns, denied.fold("Aé"))
    return _store_dir() / _store.file_name(key)


def test_a_new_process_reuses_the_store_and_masks_the_same(tree: Path, reads: list[str]) -> None:
    first = _plan(tree)
    assert str(tree / "a" / "b" / "c") in reads
    assert {str(tree / "a/b/c/.env"), str(tree / "d/e/id_rsa")} <= _masks(first)
    _new_process()  # a new process: only the store is left
    reads.clear()
    again = _plan(tree)
    assert str(tree) not in reads and str(tree / "a" / "b" / "c") not in reads
    assert _masks(again) == _masks(first)


def test_a_directory_changed_since_the_store_is_read_again(tree: Path, reads: list[str]) -> None:
    _plan(tree)
    (tree / "f" / "g" / ".env").write_text("NEW-SECRET\n")
    time.sleep(0.1)
    _new_process()
    reads.clear()
    plan = _plan(tree)
    assert [r for r in reads if r.startswith(str(tree))] == [str(tree / "f" / "g")]
    assert str(tree / "f/g/.env") in _masks(plan)


def _rewrite(path: Path, edit: bytes, to: bytes, *, fix_checksum: bool) -> None:
    data = path.read_bytes()
    head = len(_store.HEADER)
    payload = data[head + 65 :].replace(edit, to)
    assert payload != data[head + 65 :]
    digest = data[head : head + 64]
    if fix_checksum:  # as only a holder of the keyring's key can
        key = _store.store_key()
        assert key is not None
        digest = _store._mac(key, path.name, payload)
    path.write_bytes(_store.HEADER + digest + b"\n" + payload)


def test_a_corrupted_store_is_ignored_whole(tree: Path, reads: list[str]) -> None:
    first = _plan(tree)
    # Drop the `.env` hit without fixing the checksum (a torn write, a stray edit).
    _rewrite(_store_file(), b"\0.env\0", b"\0\0", fix_checksum=False)
    _new_process()
    reads.clear()
    again = _plan(tree)
    assert str(tree / "a" / "b" / "c") in reads and str(tree) in reads
    assert _masks(again) == _masks(first)


def test_a_forged_store_without_the_key_is_ignored_whole(tree: Path, reads: list[str]) -> None:
    # What a writer without the keyring's key can do: a well-formed file that drops the
    # `.env` hit, under a plain SHA-256 or a MAC with a key of its own.
    first = _plan(tree)
    path = _store_file()
    data = path.read_bytes()
    payload = data[len(_store.HEADER) + 65 :].replace(b"\0.env\0", b"\0\0")
    for digest in (
        hashlib.sha256(payload).hexdigest().encode(),
        _store._mac(b"k" * 32, path.name, payload),
    ):
        path.write_bytes(_store.HEADER + digest + b"\n" + payload)
        _new_process()
        reads.clear()
        again = _plan(tree)
        assert str(tree / "a" / "b" / "c") in reads
        assert _masks(again) == _masks(first)


def test_a_store_file_moved_to_another_policy_is_ignored(tree: Path, reads: list[str]) -> None:
    first = _plan(tree)
    # The same records under a stricter policy's name: authentic, but not for that policy.
    stricter = SafetyConfig(denied_paths=["**/*.md"], sandbox=make_config().sandbox)
    plan_mounts(stricter, str(tree))
    _store.wait()
    files = sorted(_store_dir().glob("*.scan"))
    assert len(files) == 2
    strict_name = next(p.name for p in files if p != _store_file_of(first))
    _store_file_of(first).replace(_store_dir() / strict_name)
    _new_process()
    reads.clear()
    plan = plan_mounts(stricter, str(tree))
    assert str(tree / "d" / "e") in reads
    assert str(tree / "d/e/readme.md") in _masks(plan)


@pytest.mark.parametrize("bad", [b"..", b".", b"a//b", b"NaN"])
def test_a_malformed_record_is_not_used(tree: Path, reads: list[str], bad: bytes) -> None:
    first = _plan(tree)
    # Well-formed file, malformed record: the hit list of a/b/c (and for NaN: a number).
    if bad == b"NaN":
        st = os.stat(tree / "a" / "b" / "c")
        _rewrite(_store_file(), str(st.st_ino).encode(), bad, fix_checksum=True)
    else:
        _rewrite(_store_file(), b"\0.env\0", b"\0" + bad + b"\0", fix_checksum=True)
    _new_process()
    reads.clear()
    again = _plan(tree)
    assert str(tree / "a" / "b" / "c") in reads
    assert _masks(again) == _masks(first)


@pytest.mark.parametrize("how", ["group-writable", "symlink"])
def test_a_store_file_others_could_write_is_ignored(tree: Path, reads: list[str], how: str) -> None:
    _plan(tree)
    path = _store_file()
    if how == "group-writable":
        path.chmod(0o660)
    else:
        target = path.with_suffix(".real")
        path.rename(target)
        path.symlink_to(target)
    _new_process()
    reads.clear()
    _plan(tree)
    assert str(tree) in reads and str(tree / "a" / "b" / "c") in reads


def test_the_store_is_out_of_reach_of_a_command_run_in_home(
    run: Runner, throwaway_home: Path, reads: list[str]
) -> None:
    home = throwaway_home
    (home / "proj").mkdir()
    (home / "proj" / ".env").write_text("HOME-ENV\n")
    time.sleep(0.1)
    run("true", cwd=home)  # creates and fills the store
    _store.wait()
    stored = _store_file()
    before = stored.read_bytes()
    state = home / ".local" / "state"
    result = run(
        "ls -A ~/.local/state/safehold/scan; cat ~/.local/state/safehold/scan/*; "
        "echo forged > ~/.local/state/safehold/scan/x.scan; "
        "mv ~/.local/state/safehold ~/.local/state/moved; mv ~/.local/state ~/.local/moved; "
        "cat ~/proj/.env",
        cwd=home,
    )
    assert result.stdout == b"", result.stdout  # nothing listed, nothing read
    assert result.stderr.count(b"Permission denied") >= 2, result.stderr
    after = stored.read_bytes()
    # The runner itself may save the store again after its own scan (its first save changed a
    # directory under HOME that it scans); the file is then still safehold's: sound (owner,
    # mode, checksum under the keyring key) and nothing of the command's in it.
    assert after == before or _store.load(str(stored.parent), stored.name)
    assert b"forged" not in after
    assert sorted(p.name for p in stored.parent.iterdir()) == [stored.name]
    assert (state / "safehold").is_dir() and not (home / ".local" / "moved").exists()


def test_without_a_key_there_is_no_store(
    tree: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_store, "store_key", lambda: None)
    _plan(tree)
    assert not list(_store_dir().glob("*.scan"))  # nothing written without a key
    _new_process()
    reads.clear()
    _plan(tree)
    assert str(tree) in reads and str(tree / "a" / "b" / "c") in reads


def test_the_store_key_is_out_of_reach_of_commands(run: Runner) -> None:
    _store.store_key()  # created on the host first, where the keyring allows it
    probe = (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.syscall.restype = ctypes.c_long\n"
        f"nr = {_store._KEY_SYSCALLS[native_arch().name][1]}\n"
        "r = libc.syscall(nr, 10, ctypes.c_long(-4), b'user', b'safehold:scan-store', 0)\n"
        "print(r, ctypes.get_errno())\n"
    )
    result = run(["/usr/bin/python3", "-I", "-c", probe])
    assert result.stdout.split() == [b"-1", str(errno.EPERM).encode()], result.stderr
