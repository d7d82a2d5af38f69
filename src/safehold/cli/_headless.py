"""Can a person answer an ask? What a hook process sees of the run that called it.

An ASK that no person can answer hangs a headless CLI (Gemini CLI waits until it is
killed), so a hook answers it deny (`safehold would ask: …`) whenever it sees no way to ask.
The signals, first found wins:

1. the user's word: `--ask-as-deny` (no person), `--interactive` (a person answers), or
   `SAFEHOLD_HEADLESS=1|0` (the same, for every hook of a run);
2. the payload: Claude Code's `permission_mode: "dontAsk"` (Claude Code's docs: tools not
   pre-approved are denied without a prompt);
3. the CLI's own headless switch, read from the command line of the CLI process that runs
   the hook (an ancestor of the hook process): `claude -p|--print`, `gemini -p|--prompt`, and
   for Gemini CLI a standard input or output that is not a terminal (Gemini CLI's docs:
   "unless the input or output is piped or redirected");
4. when no such CLI process is found: no controlling terminal at all (`/dev/tty` cannot be
   opened): CI, cron, a service. An interactive CLI found in step 3 asks the person in its
   own prompt, terminal or not (an IDE extension, a desktop app).

Signals 3 and 4 are properties of the hook *process*, so the hook process finds them
(`mark`) before it hands the payload to the warm server, which has neither the caller's
terminal nor its parents; the finding travels in the environment (`SEEN_VAR`), which `mark`
always overwrites. A hook decided without `mark` (`run_command` called directly) looks for
itself (`detect`), which in the server finds no terminal: fail closed.

Standard library only, and only `os`: this runs on the hook's fast path.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the fast path does not import typing
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["CLI_PROCESSES", "HEADLESS_VAR", "SEEN_VAR", "detect", "mark", "user_choice"]

HEADLESS_VAR = "SAFEHOLD_HEADLESS"
"""`1` (`yes`, `true`, `on`): no person answers; `0` (`no`, `false`, `off`): a person does;
`auto` or unset: look (the default)."""

SEEN_VAR = "SAFEHOLD_HOOK_NO_PERSON"
"""Set by the hook process (`mark`): why no person can answer, or empty. Not a user setting."""

_YES = frozenset({"1", "yes", "true", "on"})
_NO = frozenset({"0", "no", "false", "off"})
_AUTO = frozenset({"", "auto"})

CLI_PROCESSES: dict[str, tuple[frozenset[str], frozenset[str], bool]] = {
    # flavour: (the program's names, its headless options, piped stdin/stdout is headless)
    # Claude Code docs (CLI reference): `-p, --print` "print response without interactive mode".
    "claude-code": (frozenset({"claude"}), frozenset({"-p", "--print"}), False),
    # Gemini CLI docs (headless mode): `-p` / `--prompt`, or input or output piped/redirected.
    "gemini-cli": (frozenset({"gemini"}), frozenset({"-p", "--prompt"}), True),
}
_PACKAGES = {"claude-code": "@anthropic-ai/claude-code", "gemini-cli": "@google/gemini-cli"}
_MAX_ANCESTORS = 8  # the CLI runs its hook through a shell or two: it is a near ancestor


def user_choice(env: Mapping[str, str]) -> bool | None:
    """`SAFEHOLD_HEADLESS`: True (no person), False (a person), None (look); ValueError if bad."""
    value = env.get(HEADLESS_VAR, "").strip().lower()
    if value in _YES:
        return True
    if value in _NO:
        return False
    if value in _AUTO:
        return None
    raise ValueError(
        f"${HEADLESS_VAR} is {value[:40]!r}; expected 1 (no person answers), "
        "0 (a person answers) or auto"
    )


def _has_terminal(tty: str) -> bool:
    try:
        fd = os.open(tty, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:  # ENXIO: no controlling terminal
        return False
    os.close(fd)
    return True


def _parent(proc: str, pid: int) -> int | None:
    try:
        with open(f"{proc}/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()  # the name may hold spaces and parentheses
    try:
        return int(fields[1])
    except (IndexError, ValueError):
        return None


def _argv(proc: str, pid: int) -> list[str]:
    try:
        with open(f"{proc}/{pid}/cmdline", "rb") as fh:
            raw = fh.read()
    except OSError:
        return []
    return [w.decode("utf-8", "surrogateescape") for w in raw.split(b"\0") if w]


def _is_cli(argv: list[str], flavour: str) -> int | None:
    """Where the CLI's own options start in `argv` when it runs that CLI (`node X` too)."""
    names = CLI_PROCESSES[flavour][0]
    for i, word in enumerate(argv[:2]):
        if os.path.basename(word) in names or _PACKAGES[flavour] in word:
            return i + 1
    return None


def _piped(proc: str, pid: int) -> bool:
    """Standard input or output of `pid` is not a terminal (unreadable: not piped)."""
    for fd in (0, 1):
        try:
            target = os.readlink(f"{proc}/{pid}/fd/{fd}")
        except OSError:
            return False
        if not target.startswith(("/dev/pts/", "/dev/tty", "/dev/console")):
            return True
    return False


def _cli_headless(flavour: str, proc: str, pid: int) -> str | None:
    """The CLI process above `pid`: why it runs headless, "" when it runs interactive,
    None when no such process is found."""
    _names, options, piped = CLI_PROCESSES[flavour]
    current: int | None = pid
    for _ in range(_MAX_ANCESTORS):
        current = _parent(proc, current) if current is not None else None
        if current is None or current <= 1:
            return None
        argv = _argv(proc, current)
        start = _is_cli(argv, flavour)
        if start is None:
            continue
        program = os.path.basename(argv[start - 1])
        for word in argv[start:]:
            if word == "--":
                break
            if word in options or word.split("=", 1)[0] in options:
                return f"`{program} {word.split('=', 1)[0]}` runs headless"
        if piped and _piped(proc, current):
            return f"`{program}` runs with its input or output piped (headless)"
        return ""  # the nearest CLI process is interactive: it shows its own prompt
    return None


def detect(
    flavour: str, *, tty: str = "/dev/tty", proc: str = "/proc", pid: int | None = None
) -> str | None:
    """Why no person can answer an ask for this hook process, or None (a person may)."""
    if flavour in CLI_PROCESSES:
        why = _cli_headless(flavour, proc, os.getpid() if pid is None else pid)
        if why is not None:
            # Found: its own switches decide. An interactive CLI asks the person in its own
            # prompt, with a terminal or without one (an IDE extension, a desktop app).
            return why or None
    if not _has_terminal(tty):
        return "no terminal"
    return None


def mark(words: list[str]) -> None:
    """In the hook process: record what it sees (`SEEN_VAR`) for whoever decides."""
    flavour = words[1] if len(words) > 1 else ""
    if flavour in CLI_PROCESSES:
        os.environ[SEEN_VAR] = detect(flavour) or ""
