"""`safehold grants list|revoke|clear` over real grants files in an isolated state dir, and
`GrantFiles` itself: where the files are, how they are written, and failing closed."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from safehold import Grant, GrantEffect
from safehold.cli import main
from safehold.grant_store import GrantFileError, GrantFiles, grant_id
from safehold.policy.grants import command_grant_key
from tests._forked import run_cli

NPM_TEST = command_grant_key([["npm", "test"]])
MAKE = command_grant_key([["make"]])


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    return {**os.environ, "HOME": str(home)}


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


def safehold(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    return run_cli(args, module="safehold", text=True, env=env, cwd=cwd, timeout=60)


def seed(proj: Path) -> tuple[Grant, Grant, Grant]:
    store = GrantFiles()
    now = time.time()
    project = Grant(NPM_TEST, GrantEffect.ALLOW, "project", granted_at=now, what="npm test")
    old = Grant(MAKE, GrantEffect.ALLOW, "user", expires_at=now - 10, what="make")
    reject = Grant('tool:"send_email"', GrantEffect.REJECT, "user", expires_at=now + 3600)
    store.add(str(proj), project)
    store.add(str(proj), old)
    store.add(str(proj), reject)
    return project, old, reject


# -- where and how the files are kept ------------------------------------------------------


def test_files_live_in_the_users_state_dir_private(env: dict[str, str], proj: Path) -> None:
    seed(proj)
    root = Path(env["HOME"]) / ".local" / "state" / "safehold" / "grants"
    names = sorted(p.name for p in root.iterdir())
    assert names[-1] == "user.json" and names[0].startswith("project-")
    assert len(names) == 2  # nothing inside the project
    assert not any(proj.iterdir())
    assert root.stat().st_mode & 0o777 == 0o700
    for p in root.iterdir():
        assert p.stat().st_mode & 0o777 == 0o600
    record = json.loads((root / names[0]).read_text())
    assert record["project"] == str(proj.resolve()) and record["scope"] == "project"


def test_xdg_state_home_moves_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert GrantFiles().path("user") == tmp_path / "xdg" / "safehold" / "grants" / "user.json"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/is/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert GrantFiles().root == tmp_path / "h" / ".local" / "state" / "safehold" / "grants"


def test_a_project_is_its_real_path(env: dict[str, str], proj: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(proj)
    seed(proj)
    assert [g.key for g in GrantFiles().load("project", str(link))] == [NPM_TEST]


@pytest.mark.parametrize(
    "damage",
    [
        b"{not json",
        b"[" * 100_000,
        b'{"format": 2, "scope": "user", "grants": []}',
        b'{"format": 1, "scope": "project", "grants": []}',
        b'{"format": 1, "scope": "user", "grants": [{"key": "k", "effect": "perhaps", "scope": "user"}]}',
        b'{"format": 1, "scope": "user", "grants": [{"key": "k", "effect": "allow", "scope": "project"}]}',
        b'{"format": 1, "scope": "user", "grants": [{"key": "k", "effect": "allow", "scope": "user", "expires_at": "soon"}]}',
        b"\xff\xfe",
    ],
)
def test_a_damaged_file_fails_closed(env: dict[str, str], proj: Path, damage: bytes) -> None:
    store = GrantFiles()
    store.add(str(proj), Grant(MAKE, GrantEffect.ALLOW, "user"))
    store.path("user").write_bytes(damage)
    with pytest.raises(GrantFileError, match=r"user\.json: the grants file is damaged"):
        store.load("user")
    assert store.active(str(proj), time.time()) == {}
    with pytest.raises(GrantFileError):  # never overwritten by a new grant
        store.add(str(proj), Grant(NPM_TEST, GrantEffect.ALLOW, "user"))
    assert store.path("user").read_bytes() == damage


def test_a_file_of_the_wrong_mode_or_a_link_is_not_read(env: dict[str, str], proj: Path) -> None:
    store = GrantFiles()
    store.add(str(proj), Grant(MAKE, GrantEffect.ALLOW, "user"))
    path = store.path("user")
    path.chmod(0o644)  # someone else could have written it
    with pytest.raises(GrantFileError, match="mode is 644"):
        store.load("user")
    assert store.active(str(proj), time.time()) == {}
    path.chmod(0o600)
    target = path.with_name("elsewhere.json")
    path.rename(target)
    path.symlink_to(target)
    with pytest.raises(GrantFileError, match="cannot read"):
        store.load("user")


def test_a_project_file_naming_another_project_is_refused(
    env: dict[str, str], proj: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    store = GrantFiles()
    store.add(str(other), Grant(MAKE, GrantEffect.ALLOW, "project"))
    store.path("project", str(other)).rename(store.path("project", str(proj)))
    with pytest.raises(GrantFileError, match="names another project"):
        store.load("project", str(proj))


# -- the CLI -------------------------------------------------------------------------------


def test_list_shows_ids_scopes_and_expiry(env: dict[str, str], proj: Path) -> None:
    project, old, reject = seed(proj)
    done = safehold(env, "grants", "list", cwd=proj)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"{grant_id(project)}  project  allow   no expiry")
    assert lines[0].endswith("npm test")
    assert lines[1].startswith(f"{grant_id(old)}  user     allow   expired 20")
    assert lines[2].startswith(f"{grant_id(reject)}  user     reject  until 20")
    assert lines[2].endswith("send_email (any arguments)")
    user_only = safehold(env, "grants", "list", "--scope", "user", "--json", cwd=proj)
    rows = json.loads(user_only.stdout)
    assert [(r["id"], r["expired"]) for r in rows] == [(grant_id(old), True), (grant_id(reject), False)]  # fmt: skip
    assert rows[0]["key"] == MAKE


def test_list_without_grants(env: dict[str, str], proj: Path) -> None:
    done = safehold(env, "grants", "list", "--cwd", str(proj))
    assert done.returncode == 0
    assert done.stdout.strip() == f"no grants (project, user) for {proj}"
    assert not (Path(env["HOME"]) / ".local").exists()  # listing creates nothing


def test_a_damaged_file_is_one_error_line_and_the_rest_is_listed(
    env: dict[str, str], proj: Path
) -> None:
    project, _, _ = seed(proj)
    GrantFiles().path("user").write_text("{oops")
    done = safehold(env, "grants", "list", cwd=proj)
    assert done.returncode == 2
    assert done.stdout.splitlines() == [done.stdout.splitlines()[0]]
    assert done.stdout.startswith(grant_id(project))
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: ") and "user.json: the grants file is damaged" in line
    assert line.endswith("no grants from it are used")
    assert "Traceback" not in done.stderr


def test_revoke_by_id(
    env: dict[str, str],
    proj: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project, old, reject = seed(proj)
    monkeypatch.chdir(proj)
    assert main(["grants", "revoke", grant_id(project), grant_id(reject)]) == 0
    out = capsys.readouterr().out
    assert f"revoked {grant_id(project)}  project  allow  npm test" in out
    assert [g.key for g in GrantFiles().load("user")] == [MAKE]
    assert GrantFiles().load("project", str(proj)) == ()
    # An unknown id: exit 1, named; the others still revoked.
    assert main(["grants", "revoke", "nosuchid", grant_id(old)]) == 1
    captured = capsys.readouterr()
    assert "error: no project or user grant has the id `nosuchid`" in captured.err
    assert GrantFiles().load("user") == ()


def test_a_revoke_in_one_scope_leaves_the_other(env: dict[str, str], proj: Path) -> None:
    project, _, _ = seed(proj)
    done = safehold(env, "grants", "revoke", grant_id(project), "--scope", "user", cwd=proj)
    assert done.returncode == 1
    assert len(GrantFiles().load("project", str(proj))) == 1


def test_clear_expired_then_all(env: dict[str, str], proj: Path) -> None:
    _, _, reject = seed(proj)
    done = safehold(env, "grants", "clear", "--expired", cwd=proj)
    assert done.returncode == 0 and done.stdout.strip() == "cleared 1 expired grant (project, user)"
    assert [g.key for g in GrantFiles().load("user")] == [reject.key]
    done = safehold(env, "grants", "clear", "--scope", "project", cwd=proj)
    assert done.stdout.strip() == "cleared 1 grant (project)"
    assert len(GrantFiles().load("user")) == 1
    done = safehold(env, "grants", "clear", cwd=proj)
    assert done.stdout.strip() == "cleared 1 grant (project, user)"


def test_clear_empties_a_damaged_file(env: dict[str, str], proj: Path) -> None:
    seed(proj)
    GrantFiles().path("user").write_text("[[[")
    done = safehold(env, "grants", "clear", "--scope", "user", cwd=proj)
    assert done.returncode == 0, done.stderr
    assert "emptied it" in done.stderr and "Traceback" not in done.stderr
    assert GrantFiles().load("user") == ()


def test_an_unreadable_dir_is_one_error_line(env: dict[str, str], proj: Path) -> None:
    seed(proj)
    GrantFiles().root.chmod(0o777)  # writable by others: refused
    try:
        done = safehold(env, "grants", "list", cwd=proj)
    finally:
        GrantFiles().root.chmod(0o700)
    assert done.returncode == 2
    assert "writable by others" in done.stderr and "Traceback" not in done.stderr


def test_bad_arguments(env: dict[str, str], proj: Path) -> None:
    done = safehold(env, "grants", "list", "--cwd", str(proj / "nope"))
    assert done.returncode == 2 and done.stderr.startswith("error: `--cwd`")
    done = safehold(env, "grants", "list", "--scope", "org")
    assert done.returncode == 2 and "invalid choice" in done.stderr
    done = safehold(env, "grants")
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_a_newline_in_a_command_cannot_forge_a_row(env: dict[str, str], proj: Path) -> None:
    forged = "ls\nabcdef123456  user     allow   no expiry  rm -rf ~"
    GrantFiles().add(str(proj), Grant(MAKE, GrantEffect.ALLOW, "user", what=forged))
    done = safehold(env, "grants", "list", "--scope", "user", cwd=proj)
    assert len(done.stdout.splitlines()) == 1 and "ls\\nabcdef" in done.stdout


def test_a_file_changed_in_place_is_read_again(env: dict[str, str], proj: Path) -> None:
    # The parse is remembered by the file's stamp: an edit in place, even of the same size,
    # is seen at the next read (the gate reads before every decision).
    store = GrantFiles()
    store.add(str(proj), Grant(MAKE, GrantEffect.ALLOW, "user"))
    assert store.active(str(proj), time.time()) == {MAKE: GrantEffect.ALLOW}
    path = store.path("user")
    text = path.read_bytes()
    with path.open("r+b") as f:
        f.write(text.replace(b'"allow"', b'"rejec"'))  # same size, no longer valid
    with pytest.raises(GrantFileError, match="damaged"):
        store.load("user")
    with path.open("r+b") as f:
        f.write(text.replace(b'"allow"', b'"rejct"').replace(b'"rejct"', b'"allow"'))
    assert store.active(str(proj), time.time()) == {MAKE: GrantEffect.ALLOW}
