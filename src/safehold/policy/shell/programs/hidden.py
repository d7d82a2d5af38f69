"""Programs that run or redefine commands in ways the analysis does not model: opaque."""

from __future__ import annotations

from safehold.policy.shell.programs.step import Step, StepFn, opaque
from safehold.policy.shell.words import Word

__all__ = ["STEPS"]

_HIDDEN = frozenset(
    {
        "alias", "trap", "enable", "hash", "bind", "fc", "coproc", "mapfile", "readarray",
        "watch", "parallel", "script", "su", "runuser", "unshare", "nsenter", "chroot",
        "flock", "strace", "ltrace", "gdb",
        # Run a command later or in a server that may live outside the sandbox.
        "at", "batch", "systemd-run", "tmux", "screen",
    }
)  # fmt: skip


def _hidden(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    if name == "crontab" and len(words) == 2 and words[1].text == "-l":
        return None  # `crontab -l` only lists
    return Step(
        opaque=opaque(
            "hidden-command",
            name,
            f"`{name}` runs or redefines commands in a way that is not analysed",
        )
    )


STEPS: dict[str, StepFn] = dict.fromkeys(_HIDDEN | {"crontab"}, _hidden)
