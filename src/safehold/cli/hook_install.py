"""`safehold hook install | uninstall claude-code | gemini-cli`: put the hook where the CLI reads it.

`install` merges one hook entry into the CLI's settings file, calling the safehold that runs
this command by its absolute path (so the CLI's `PATH` does not matter), with `|| exit 2`
so that a safehold that cannot start still blocks the call. Then it runs that very command,
as the CLI would, on two payloads (a harmless read and a read of `.env`) and shows both
verdicts: an install that does not block the `.env` read fails (exit 1).

Scopes: `--user` (the default) writes `~/.claude/settings.json` or `~/.gemini/settings.json`;
`--project` writes `<cwd>/.claude/settings.json`. Gemini CLI ignores a project's hooks in a
folder it does not trust (and with `--skip-trust`), which would leave safehold silently off,
so `--project` is refused for it.

`uninstall` removes exactly the entries `install` writes (a `safehold hook <cli>` command)
and leaves everything else in the file as it was.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from safehold.errors import SafeholdError, value_kind

__all__ = ["CLIS", "HookInstallError", "Target", "installed_hooks", "register_actions"]


class HookInstallError(SafeholdError):
    """The settings file cannot be changed as asked (exit 2)."""

    exit_code = 2


@dataclass(frozen=True, slots=True)
class Target:
    """One CLI's hook settings: the file per scope and the entry safehold adds."""

    name: str
    title: str
    folder: str
    event: str
    matcher: str
    timeout: int
    named: bool
    """The CLI's hook entries carry a `name` (Gemini CLI)."""
    project_scope: bool

    def settings(self, scope: str, *, home: Path, cwd: Path) -> Path:
        """The settings file of `scope` (`user` or `project`)."""
        base = home if scope == "user" else cwd
        return base / self.folder / "settings.json"

    def entry(self, command: str) -> dict[str, Any]:
        """The matcher group `install` adds."""
        hook: dict[str, Any] = {"type": "command", "command": command, "timeout": self.timeout}
        if self.named:
            hook = {"type": "command", "name": "safehold", **hook}
        return {"matcher": self.matcher, "hooks": [hook]}

    def warm_entry(self, command: str) -> dict[str, Any]:
        """The `SessionStart` group `install` adds: start the hook server as a session opens,
        so that its first tool call is answered warm (no matcher: every kind of start)."""
        hook: dict[str, Any] = {"type": "command", "command": command, "timeout": self.timeout}
        if self.named:
            hook = {"type": "command", "name": "safehold-warm", **hook}
        return {"hooks": [hook]}

    def payload(self, workspace: str, path: str) -> dict[str, Any]:
        """A read of `path` as the CLI sends it to the hook."""
        if self.name == "claude-code":
            return {
                "hook_event_name": self.event,
                "cwd": workspace,
                "permission_mode": "default",
                "tool_name": "Read",
                "tool_input": {"file_path": path},
            }
        return {
            "hook_event_name": self.event,
            "cwd": workspace,
            "tool_name": "read_file",
            "tool_input": {"file_path": path},
        }


CLIS: Final = {
    "claude-code": Target(
        "claude-code", "Claude Code", ".claude", "PreToolUse", "*", 30, False, True
    ),
    # Gemini CLI's timeout is in milliseconds.
    "gemini-cli": Target(
        "gemini-cli", "Gemini CLI", ".gemini", "BeforeTool", ".*", 30000, True, False
    ),
}


def register_actions(
    flavours: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Add `hook install` and `hook uninstall` beside the per-CLI hook actions."""
    for action, what in (
        ("install", "add safehold's hook to a CLI's settings file, then test it"),
        ("uninstall", "remove safehold's hook from a CLI's settings file"),
    ):
        p = flavours.add_parser(action, help=what, description=what[0].upper() + what[1:] + ".")
        p.add_argument("cli", choices=sorted(CLIS), metavar="CLI", help="claude-code or gemini-cli")
        scope = p.add_mutually_exclusive_group()
        scope.add_argument(
            "--user",
            dest="scope",
            action="store_const",
            const="user",
            help="the user's settings file, ~/.claude or ~/.gemini (the default)",
        )
        scope.add_argument(
            "--project",
            dest="scope",
            action="store_const",
            const="project",
            help="the project's .claude/settings.json in the current directory (Claude Code only)",
        )
        p.add_argument(
            "--dry-run", action="store_true", help="show the settings file, change nothing"
        )
        if action == "install":
            p.add_argument("--config", metavar="F", help="pin this config file in the hook command")
            person = p.add_mutually_exclusive_group()
            person.add_argument(
                "--ask-as-deny",
                action="store_true",
                help="the hook always answers deny where safehold would ask (without it, "
                "the hook does so when it sees a headless run)",
            )
            person.add_argument(
                "--interactive",
                action="store_true",
                help="asks stay asks even where the hook sees no terminal (an IDE extension)",
            )
        p.set_defaults(handler=run_install if action == "install" else run_uninstall, scope=None)


# -- the command line of the hook ----------------------------------------------------------


def safehold_command() -> list[str]:
    """The absolute command that runs this safehold: its script, else `python -m safehold`."""
    script = Path(sys.executable).parent / "safehold"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "safehold" and argv0.is_file():
        return [str(argv0.resolve())]
    return [sys.executable, "-m", "safehold"]


def hook_command(
    cli: str, *, config: str | None = None, ask_as_deny: bool = False, interactive: bool = False
) -> str:
    """The shell command the CLI runs: absolute, fail closed (`|| exit 2`)."""
    words = [*safehold_command(), "hook", cli]
    if config is not None:
        words += ["--config", str(Path(config).expanduser().resolve())]
    if ask_as_deny:
        words.append("--ask-as-deny")
    elif interactive:
        words.append("--interactive")
    return f"{shlex.join(words)} || exit 2"


WARM_EVENT: Final = "SessionStart"
"""The event both CLIs send as a session starts (Claude Code and Gemini CLI hook docs)."""


def warm_command() -> str:
    """The `SessionStart` command: never fails the session (`|| true`), prints nothing."""
    return f"{shlex.join([*safehold_command(), 'hook', 'warm'])} || true"


def _is_ours(hook: object, cli: str) -> bool:
    if not isinstance(hook, dict):
        return False
    command = hook.get("command")
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    for i in range(1, len(words) - 1):
        if words[i] == "hook" and words[i + 1] == cli and Path(words[i - 1]).name == "safehold":
            return True
    return False


# -- reading and writing settings ----------------------------------------------------------


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise HookInstallError(f"{path}: cannot read it: {exc}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HookInstallError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}); fix it first, "
            "nothing was changed"
        ) from None
    if not isinstance(data, dict):
        raise HookInstallError(f"{path}: expected a JSON object, found {value_kind(data)}")
    return data


def _groups(settings: dict[str, Any], event: str, path: Path) -> list[Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HookInstallError(f"{path}: `hooks` is not an object; nothing was changed")
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise HookInstallError(f"{path}: `hooks.{event}` is not a list; nothing was changed")
    return groups


def _without(
    settings: dict[str, Any], event: str, ours: Callable[[object], bool], path: Path
) -> dict[str, Any]:
    """`settings` without the hooks of `event` that `ours` picks (empty groups dropped)."""
    groups = _groups(settings, event, path)
    kept = []
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list):
            kept.append(group)
            continue
        rest = [h for h in inner if not ours(h)]
        if rest:
            kept.append({**group, "hooks": rest})
        elif len(rest) == len(inner):  # an empty group the person wrote: keep it
            kept.append(group)
    out = dict(settings)
    hooks = dict(out.get("hooks", {}))
    if kept:
        hooks[event] = kept
    else:
        hooks.pop(event, None)
    if hooks:
        out["hooks"] = hooks
    else:
        out.pop("hooks", None)
    return out


def without_safehold(settings: dict[str, Any], target: Target, path: Path) -> dict[str, Any]:
    """`settings` without the entries `install` writes (empty groups and lists dropped)."""
    out = _without(settings, target.event, lambda h: _is_ours(h, target.name), path)
    return _without(out, WARM_EVENT, lambda h: _is_ours(h, "warm"), path)


def with_safehold(
    settings: dict[str, Any], target: Target, command: str, path: Path
) -> dict[str, Any]:
    """`settings` with exactly one safehold entry, first among the event's hooks, and one
    warm-up entry first among the `SessionStart` hooks."""
    out = without_safehold(settings, target, path)
    hooks = dict(out.get("hooks", {}))
    hooks[target.event] = [target.entry(command), *hooks.get(target.event, [])]
    hooks[WARM_EVENT] = [target.warm_entry(warm_command()), *hooks.get(WARM_EVENT, [])]
    out["hooks"] = hooks
    return out


def _write(path: Path, settings: dict[str, Any]) -> None:
    """Replace the file in one step (a crash leaves the old file or the new one)."""
    import tempfile  # here, not on top: every hook call builds this module's parsers

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
        fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(settings, f, indent=2, ensure_ascii=False)
                f.write("\n")
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise HookInstallError(f"{path}: cannot write it: {exc}") from None


# -- install, uninstall, self-test ---------------------------------------------------------


def _where(args: argparse.Namespace, target: Target) -> tuple[str, Path]:
    scope = args.scope or "user"
    if scope == "project" and not target.project_scope:
        raise HookInstallError(
            f"{target.title} ignores a project's hooks in a folder it does not trust (and with "
            "--skip-trust), which would leave safehold silently off: install it for your user "
            f"(`safehold hook install {target.name}`, the default)"
        )
    home = Path(os.path.expanduser("~"))
    if not home.is_absolute():
        raise HookInstallError("no home directory: set HOME")
    return scope, target.settings(scope, home=home, cwd=Path.cwd())


def run_install(args: argparse.Namespace) -> int:
    """Merge the hook into the settings file, then run the self-test."""
    target = CLIS[args.cli]
    scope, path = _where(args, target)
    command = hook_command(
        target.name,
        config=args.config,
        ask_as_deny=args.ask_as_deny,
        interactive=args.interactive,
    )
    merged = with_safehold(_read(path), target, command, path)
    if args.dry_run:
        print(f"would write {path} ({scope} settings of {target.title}):")
        print(json.dumps(merged, indent=2, ensure_ascii=False))
    else:
        _write(path, merged)
        print(f"installed: {path} ({scope} settings of {target.title})")
    print(f"  command: {command}")
    print(f"  warm-up: {warm_command()} (at {WARM_EVENT}: a session's first call is answered warm)")
    return self_test(target, command)


def run_uninstall(args: argparse.Namespace) -> int:
    """Remove safehold's entries from the settings file."""
    target = CLIS[args.cli]
    scope, path = _where(args, target)
    settings = _read(path)
    if not path.exists():
        print(f"nothing to remove: {path} does not exist")
        return 0
    cleaned = without_safehold(settings, target, path)
    if cleaned == settings:
        print(f"nothing to remove: no safehold hook in {path}")
        return 0
    if args.dry_run:
        print(f"would write {path} ({scope} settings of {target.title}):")
        print(json.dumps(cleaned, indent=2, ensure_ascii=False))
        return 0
    _write(path, cleaned)
    print(f"removed safehold's hook from {path}")
    return 0


def _verdict(target: Target, stdout: str) -> tuple[str, str]:
    try:
        out = json.loads(stdout)
    except json.JSONDecodeError:
        return "error", f"unreadable output: {stdout.strip()[:200]!r}"
    if target.name == "claude-code":
        specific = out.get("hookSpecificOutput", {}) if isinstance(out, dict) else {}
        return str(specific.get("permissionDecision")), str(
            specific.get("permissionDecisionReason", "")
        )
    if not isinstance(out, dict):
        return "error", f"unexpected output: {stdout.strip()[:200]!r}"
    return str(out.get("decision")), str(out.get("reason", ""))


def self_test(target: Target, command: str) -> int:
    """Run `command` as the CLI would on a harmless read and a `.env` read; 0 when both work.

    It passes when the harmless read gets a verdict (whatever the config says) and the
    `.env` read is denied (or asked, which the CLI shows to the person).
    """
    import subprocess
    import tempfile

    print(f"self-test: the command above, run as {target.title} runs it:")
    env = {
        k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")
    }
    env["SAFEHOLD_HOOK_SERVER"] = "0"  # no background server left behind by a test
    failed = False
    with tempfile.TemporaryDirectory(prefix="safehold-selftest-") as tmp:
        workspace = os.path.realpath(tmp)
        cases = (("notes.txt", "harmless read"), (".env", "secret read"))
        for name, what in cases:
            path = os.path.join(workspace, name)
            try:
                done = subprocess.run(
                    ["/bin/sh", "-c", command],
                    input=json.dumps(target.payload(workspace, path)),
                    capture_output=True,
                    text=True,
                    cwd=workspace,
                    env=env,
                    timeout=60,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                print(f"  {what} ({name}): error: {exc}")
                failed = True
                continue
            if done.returncode != 0:
                line = (done.stderr.strip().splitlines() or ["no message"])[0]
                print(f"  {what} ({name}): blocked, exit {done.returncode}: {line}")
                failed = True
                continue
            verdict, reason = _verdict(target, done.stdout)
            print(f"  {what} ({name}): {verdict}" + (f": {reason}" if reason else ""))
            if name == ".env" and verdict not in ("deny", "ask"):
                failed = True
    if failed:
        print("self-test failed: the hook does not work as installed (see above)", file=sys.stderr)
        return 1
    print("self-test passed: the .env read is not allowed")
    return 0


def installed_hooks(cli: str, *, home: Path, cwd: Path) -> list[tuple[str, Path, str]]:
    """Where safehold's hook for `cli` is configured: (scope, settings file, command)."""
    target = CLIS[cli]
    found = []
    for scope in ("user", "project"):
        path = target.settings(scope, home=home, cwd=cwd)
        try:
            settings = _read(path)
            groups = _groups(settings, target.event, path)
        except HookInstallError:
            continue
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            for hook in inner if isinstance(inner, list) else []:
                if _is_ours(hook, cli):
                    found.append((scope, path, str(hook["command"])))
    return found
