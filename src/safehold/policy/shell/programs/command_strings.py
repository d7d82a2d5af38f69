"""Options whose value a program runs as a shell command: `tar --to-command`, `rsync -e`, `ssh`.

These programs are not wrappers (they do their own work too), but a string they hand to a
shell is a script like `bash -c`'s: the caller re-analyses it so that deny rules, paths and
opaque constructs inside it count (`ssh host 'rm -rf ~'`, `tar -I 'sh -c x' -cf a .`).
"""

from __future__ import annotations

import functools

from safehold.policy.shell.programs.archives import LOCAL_ARCHIVE, TAR
from safehold.policy.shell.programs.network import (
    SSH_COMMAND_KEYS,
    SSH_FORWARD_KEYS,
    ssh_option_values,
    ssh_setting_key,
)
from safehold.policy.shell.programs.step import Step, StepFn, Unwrapped, opaque
from safehold.policy.shell.programs.table import Program, read_roles
from safehold.policy.shell.words import Word

__all__ = ["STEPS", "command_strings"]

# program -> options whose value is a command (`--opt VALUE`, `--opt=VALUE`, `-oVALUE`).
_COMMAND_OPTIONS: dict[str, tuple[str, ...]] = {
    "tar": (
        "--to-command",
        "--use-compress-program",
        "-I",
        "--info-script",
        "--new-volume-script",
        "-F",
        "--rsh-command",
    ),
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "scp": ("-S",),
    "sftp": ("-S",),
    "man": ("-P", "--pager"),
    # `npx -c CMD`, `npm exec -c CMD`: run CMD in a shell with the package's bin on PATH.
    "npx": ("-c", "--call"),
    "npm": ("-c", "--call"),
    "pnpm": ("-c",),
    "split": ("--filter",),
    "sort": ("--compress-program",),
    "zip": ("-TT", "--unzip-command"),
}
# ssh options that take a value; any other option is a flag.
_SSH_WITH_ARG = frozenset("BbcDEeFIiJLlmOoPpQRSWw")
_SSH_LIKE = frozenset({"ssh", "scp", "sftp", "rsync"})

Found = tuple[list[Word], str | None]


def command_strings(name: str, words: tuple[Word, ...]) -> Found:
    """The command strings `words` hand to a shell, and an option that makes them unknowable.

    The second element names an option (`ssh -F`) after which what runs cannot be known;
    the caller makes the command opaque for it.
    """
    out: list[Word] = []
    for opt in _COMMAND_OPTIONS.get(name, ()):
        out.extend(_values(words, opt))
    out.extend(_table_commands(name, words, {w.text for w in out}))
    if name == "tar":
        archive = _remote_archive(words)
        if archive is not None:
            return out, f"tar -f {archive}"
        out.extend(_checkpoint_commands(words))
    if name in _SSH_LIKE:
        for value in _ssh_values(name, words, "-o"):
            # `-o Key=VALUE` keys whose value ssh runs as a local command
            # (`network._SSH_KEYS`, read as ssh reads them).
            key, rest = ssh_setting_key(value.text)
            if key in SSH_COMMAND_KEYS or not value.static:
                out.append(Word(rest, value.static))
        if any(w.text == "-F" or (w.text.startswith("-F") and name != "rsync") for w in words) or (
            name != "rsync" and _ssh_values(name, words, "-F")
        ):
            return out, f"{name} -F"  # a config file may set ProxyCommand
    if name == "ssh":
        remote = _ssh_remote_command(words)
        if remote:
            out.append(Word(" ".join(w.text for w in remote), all(w.static for w in remote)))
    return out, None


def _table_commands(name: str, words: tuple[Word, ...], seen: set[str]) -> list[Word]:
    """The values of the options the program's table gives the role `exec` (a command it
    runs), read with that table's parser: every option, under any spelling it resolves
    (`tar --to-com=CMD`, a repeated `--to-command`, `sort --compress-prog=CMD`), besides
    those the list above reads. Not yet in `seen`."""
    if name in _SSH_LIKE - {"rsync"} or name not in _exec_tables():
        # ssh, scp, sftp: their commands are read from `-o` settings above; other tables
        # (and programs without one) give no option, subcommand or mode the role `exec`.
        return []
    from safehold.policy.shell.programs import PROGRAMS  # the registry imports this module

    table = PROGRAMS[name]
    out: list[Word] = []
    for use in read_roles(table, words).uses:
        if use.role == "exec" and use.option and use.word.text not in seen:
            seen.add(use.word.text)
            out.append(use.word)
    return out


@functools.cache
def _exec_tables() -> frozenset[str]:
    """The registry's tables that give some option the role `exec`, in themselves, a
    subcommand or a mode (the registry is fixed at import: worked out once)."""
    from safehold.policy.shell.programs import PROGRAMS

    return frozenset(name for name, table in PROGRAMS.items() if _runs_commands(table))


def _runs_commands(program: Program) -> bool:
    seen: set[int] = set()
    stack: list[Program] = [program]
    while stack:
        table = stack.pop()
        if id(table) in seen:
            continue
        seen.add(id(table))
        if any(opt.role == "exec" for opt in table.options.values()):
            return True
        stack.extend(table.subcommands.values())
        stack.extend(table.modes.values())
    return False


# `--checkpoint-` and longer prefixes name `--checkpoint-action` (argp takes unique prefixes;
# `--checkpoint` itself is another option).
_CHECKPOINT_ACTION = "--checkpoint-action"


def _ssh_values(name: str, words: tuple[Word, ...], option: str) -> list[Word]:
    """`option`'s values: read with the ssh, scp or sftp table (`-voKey=V`, `-vF FILE`);
    rsync's `-o` (`--owner`) is no ssh option, its words are taken as they were."""
    if name == "rsync":
        return _values(words, option)
    return ssh_option_values(name, words, option)


def _checkpoint_commands(words: tuple[Word, ...]) -> list[Word]:
    """The commands of tar's `--checkpoint-action=exec=CMD` (or `--checkpoint-act exec=CMD`)."""
    out: list[Word] = []
    for i, w in enumerate(words):
        name, eq, value = w.text.partition("=")
        if len(name) <= len("--checkpoint") or not _CHECKPOINT_ACTION.startswith(name):
            continue
        if not eq:
            if i + 1 >= len(words):
                continue
            w = words[i + 1]
            value = w.text
        if value.startswith("exec="):
            out.append(Word(value[len("exec=") :], w.static))
    return out


def _remote_archive(words: tuple[Word, ...]) -> str | None:
    """`tar -cf HOST:FILE`: GNU tar opens an archive whose name has a `:` with no `/`
    before it on HOST, through a remote shell (rsh, `--rsh-command`), unless
    `--force-local` is given: the archive is sent there (or read from there)."""
    reading = read_roles(TAR, words)
    if LOCAL_ARCHIVE in reading.modes:
        return None
    for use in reading.uses:
        text = use.word.text
        if use.option in ("-f", "--file") and ":" in text and "/" not in text.split(":", 1)[0]:
            return text
    return None


def _values(words: tuple[Word, ...], opt: str) -> list[Word]:
    out: list[Word] = []
    for i, w in enumerate(words[1:], start=1):
        t = w.text
        if t == opt and i + 1 < len(words):
            out.append(words[i + 1])
        elif opt.startswith("--") and t.startswith(opt + "="):
            out.append(Word(t[len(opt) + 1 :], w.static))
        elif not opt.startswith("--") and t.startswith(opt) and len(t) > len(opt):
            out.append(Word(t[len(opt) :], w.static))
        elif (
            not opt.startswith("--")
            and len(t) > 2
            and t.startswith("-")
            and not t.startswith("--")
            and t.endswith(opt[1])
            and i + 1 < len(words)
        ):
            out.append(words[i + 1])  # a cluster ending in the option: `rsync -avze CMD`
    return out


def _ssh_remote_command(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """The words after ssh's destination: the command the remote shell runs."""
    i = 1
    while i < len(words):
        t = words[i].text
        if t == "--":
            i += 1
            break
        if not t.startswith("-") or t == "-":
            break
        letters = t[1:]
        for k, letter in enumerate(letters):
            if letter in _SSH_WITH_ARG:
                i += 1 if k + 1 < len(letters) else 2
                break
        else:
            i += 1
    return words[i + 1 :]


def _ssh_forward(name: str, words: tuple[Word, ...]) -> str | None:
    """The `-o` key by which an ssh-like command forwards ports, if any."""
    if name not in _SSH_LIKE:
        return None
    for value in _ssh_values(name, words, "-o"):
        # Keys that forward ports or devices (ssh_config(5)), as `-L`, `-R`, `-D` and `-w`
        # do (`network.PORT_FORWARD`).
        key = ssh_setting_key(value.text)[0]
        if key in SSH_FORWARD_KEYS:
            return key
    return None


def _command_string_step(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    """`ssh host CMD`, `tar --to-command=CMD`: CMD is re-analysed as an `sh -c` script."""
    return _command_string_step_of(name, words)


@functools.lru_cache(maxsize=1024)
def _command_string_step_of(name: str, words: tuple[Word, ...]) -> Step | None:
    """`_command_string_step`, remembered by value: a pure reading of the words whose Step
    holds only texts (scripts, reasons), no word matched later by identity."""
    key = _ssh_forward(name, words)
    if key is not None:
        return Step(
            opaque=opaque(
                "port-forward",
                f"{name} -o {key}",
                f"`{name} -o {key}=…` forwards network ports between this machine and "
                "another, so services here may be reached from there",
            )
        )
    strings, unknown = command_strings(name, words)
    if unknown is not None:
        return Step(
            opaque=opaque(
                "hidden-command",
                unknown,
                f"`{unknown}` may make `{name}` run a command that is not analysed",
            )
        )
    extra: list[Unwrapped] = []
    for w in strings:
        if not w.static:
            return Step(
                opaque=opaque(
                    "dynamic-script", name, f"`{name}` runs a computed command `{w.text}`"
                )
            )
        if w.text.strip():
            extra.append(Unwrapped((), (), (), ("sh", w.text)))
    return Step(extra=tuple(extra), keep_self=True) if extra else None


STEPS: dict[str, StepFn] = dict.fromkeys(
    ("tar", "rsync", "scp", "sftp", "ssh", "man", "npx", "npm", "pnpm", "split", "sort", "zip"),
    _command_string_step,
)
