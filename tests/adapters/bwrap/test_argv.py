"""Mount order is part of the security argument: later mounts shadow earlier ones."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from safehold.adapters.bwrap._argv import SandboxSpec, build_argv
from safehold.adapters.bwrap._locate import Bwrap
from safehold.errors import SandboxError
from safehold.policy.config import SafetyConfig
from tests.adapters.bwrap.conftest import make_config, plan_with_home

SPEC = SandboxSpec(
    network=False,
    env={"PATH": "/bin"},
    tmp_size_bytes=1 << 20,
    seccomp_fd=3,
    status_fd=4,
    command=["/bin/bash", "-c", "true"],
)


def _index(argv: list[str], *seq: str) -> int:
    for i in range(len(argv) - len(seq) + 1):
        if tuple(argv[i : i + len(seq)]) == seq:
            return i
    raise AssertionError(f"{seq} not in argv")


def _tree(ws: Path) -> None:
    (ws / ".git").mkdir()
    (ws / ".env").write_text("x")
    (ws / "sub").mkdir()
    (ws / "sub" / "id_rsa").write_text("x")


def test_mounts_come_in_the_safe_order(ws: Path) -> None:
    _tree(ws)
    plan = plan_with_home(make_config(), ws, ws.parent)
    argv = build_argv(Bwrap("/usr/bin/bwrap", (0, 11, 0)), plan, SPEC)
    w = str(ws)
    assert ("--ro-bind", "/", "/") not in zip(argv, argv[1:], argv[2:], strict=False)
    root = _index(argv, "--ro-bind", "/usr", "/usr")
    dev = _index(argv, "--dev", "/dev")
    proc = _index(argv, "--proc", "/proc")
    tmp = _index(argv, "--tmpfs", "/tmp")
    home = _index(argv, "--tmpfs", str(ws.parent))
    bind = _index(argv, "--bind", w, w)
    pin = _index(argv, "--bind", f"{w}/sub", f"{w}/sub")
    git = _index(argv, "--ro-bind", f"{w}/.git", f"{w}/.git")
    env = _index(argv, "--ro-bind", "/dev/null", f"{w}/.env")
    key = _index(argv, "--ro-bind", "/dev/null", f"{w}/sub/id_rsa")
    assert root < dev < proc < tmp < home < bind < pin < git < min(env, key)
    assert argv[argv.index("--") + 1 :] == ["/bin/bash", "-c", "true"]
    for flag in (
        "--die-with-parent",
        "--new-session",
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--clearenv",
    ):
        assert argv.index(flag) < root
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    assert "--share-net" not in argv
    # Every writable tmpfs has a size: /dev/shm, /tmp and HOME; /dev itself is read-only.
    sized = [argv[i + 3] for i, a in enumerate(argv) if a == "--size"]
    assert sized == ["/dev/shm", "/tmp", str(ws.parent)]
    shm = _index(argv, "--tmpfs", "/dev/shm")
    assert dev < shm < _index(argv, "--remount-ro", "/dev") < proc


def test_old_bwrap_drops_optional_flags_only(ws: Path) -> None:
    plan = plan_with_home(make_config(), ws, ws.parent)
    argv = build_argv(Bwrap("/b", (0, 4, 0)), plan, SPEC)
    for flag in ("--disable-userns", "--size", "--clearenv", "--perms"):
        assert flag not in argv
    for flag in ("--unshare-user", "--cap-drop", "--json-status-fd", "--seccomp", "--proc"):
        assert flag in argv


def test_denied_directory_gets_a_mode_0000_read_only_tmpfs(ws: Path) -> None:
    (ws / ".aws").mkdir()
    plan = plan_with_home(make_config(), ws, ws.parent)
    argv = build_argv(Bwrap("/b", (0, 11, 0)), plan, SPEC)
    d = str(ws / ".aws")
    i = _index(argv, "--perms", "0000", "--tmpfs", d, "--remount-ro", d)
    assert i > _index(argv, "--bind", str(ws), str(ws))


def test_read_only_profile_binds_the_workspace_read_only(ws: Path, outside: Path) -> None:
    plan = plan_with_home(make_config(profile="read-only"), ws, ws.parent)
    assert plan.writable == ()
    assert plan.readonly_binds == (str(ws),)
    elsewhere = plan_with_home(make_config(profile="read-only"), outside, ws.parent)
    assert elsewhere.readonly_binds == (str(outside),)


def test_home_is_a_tmpfs_with_only_the_read_roots_bound_in(ws: Path, outside: Path) -> None:
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".cache" / "pip").mkdir(parents=True)
    (home / ".cache" / "token.pem").write_text("x")
    (home / ".netrc").write_text("x")
    (home / "other-project").mkdir()
    plan = plan_with_home(SafetyConfig(), ws, home)
    assert plan.home == str(home)
    assert plan.read_roots == (str(home / ".cache"),)  # the other defaults do not exist
    # Home secrets outside the read roots are not masked: they are not mounted at all.
    assert str(home / ".ssh") not in plan.masked_dirs
    assert str(home / ".netrc") not in plan.masked_files
    assert str(home / ".cache" / "token.pem") in plan.masked_files  # inside a read root
    argv = build_argv(Bwrap("/b", (0, 11, 0)), plan, SPEC)
    mounted = {argv[i + 2] for i, a in enumerate(argv) if a in ("--ro-bind", "--bind")}
    assert not any(m == str(home / "other-project") or m == str(home / ".ssh") for m in mounted)
    for unmounted in ("/root", "/srv", "/mnt", "/media", "/var", "/run", "/home"):
        assert unmounted not in mounted


def test_tilde_and_workspace_patterns_expand(ws: Path, outside: Path) -> None:
    home = outside / "home"
    (home / "tools" / "vault").mkdir(parents=True)
    (ws / "private").mkdir()
    cfg = SafetyConfig(
        denied_paths=("~/tools/vault/", "{workspace}/private/"),
        sandbox={"read_roots": ("~/tools",)},
    )
    plan = plan_with_home(cfg, ws, home)
    assert str(home / "tools" / "vault") in plan.masked_dirs
    assert str(ws / "private") in plan.masked_dirs


def test_host_tmp_paths_are_not_masked_they_are_hidden_anyway(ws: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    plan = plan_with_home(SafetyConfig(), ws, home)
    assert str(home / ".ssh") not in plan.masked_dirs  # under the private /tmp: invisible


def test_deep_home_secrets_named_by_multi_component_patterns_are_masked(
    ws: Path, outside: Path
) -> None:
    home = outside / "home"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text("oauth_token: x")
    plan = plan_with_home(SafetyConfig(sandbox={"read_roots": ("~/.config",)}), ws, home)
    assert str(home / ".config" / "gh" / "hosts.yml") in plan.masked_files


def test_too_many_arguments_are_blamed_on_the_command(ws: Path) -> None:
    # 9,000 arguments of a command are the command's, not the masks': the message says so.
    plan = plan_with_home(make_config(), ws, ws.parent)
    big = dataclasses.replace(SPEC, command=["/usr/bin/printf", *["x"] * 9000])
    with pytest.raises(SandboxError, match=r"the command has 9001 arguments") as caught:
        build_argv(Bwrap("/b", (0, 11, 0)), plan, big)
    assert "denied" not in str(caught.value)


def test_too_many_masks_are_blamed_on_the_masks(ws: Path) -> None:
    plan = plan_with_home(make_config(), ws, ws.parent)
    plan = dataclasses.replace(plan, masked_files=tuple(f"{ws}/k{i}.pem" for i in range(3000)))
    with pytest.raises(SandboxError, match=r"too many denied and protected paths"):
        build_argv(Bwrap("/b", (0, 11, 0)), plan, SPEC)
