"""Built-in deny checks that span more than one simple command, so no token rule can express them.

- pipe-to-shell: a downloader's output runs as a program (`curl x | sh`, `bash <(wget ..)`);
- fork bombs: a function that calls itself twice (`:(){ :|:& };:`);
- writes to block devices through a redirection (`> /dev/sda`);
- reverse shells through bash's `/dev/tcp` and `/dev/udp` redirections.

Single-command hazards (`rm -rf /`, `mkfs`, `dd of=/dev/sda`, `nc -e`) are ordinary deny
rules in `DEFAULT_COMMAND_RULES`, where a user can see them.
"""

from __future__ import annotations

import re

from safehold.policy.decision import Reason
from safehold.policy.shell.analysis import ShellAnalysis, SimpleCommand
from safehold.policy.shell.programs.interpreters import INTERPRETERS, program_family

__all__ = ["hazards"]

_DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "lwp-request"})
_DOWNLOAD_TEXT = re.compile(r"(?<![\w-])(curl|wget|fetch|aria2c|lwp-request)(?![\w-])")
_BLOCK_DEVICE = re.compile(
    r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|dm-|md|loop|sr|mapper/|nbd|rbd|zd|bcache)"
)
_NET_REDIRECT = re.compile(r"^/dev/(tcp|udp)/")


def _is_interpreter(cmd: SimpleCommand) -> bool:
    return program_family(cmd.program) in INTERPRETERS


def _pipe_to_shell(analysis: ShellAnalysis) -> list[Reason]:
    out: list[Reason] = []
    downloads = [pipe for c in analysis.commands if c.program in _DOWNLOADERS for pipe in c.pipes]
    for cmd in analysis.commands:
        if not _is_interpreter(cmd):
            continue
        fed = cmd.stdin_fed and any(
            pid == dpid and stage > dstage for pid, stage in cmd.pipes for dpid, dstage in downloads
        )
        substituted = any(not w.static and _DOWNLOAD_TEXT.search(w.text) for w in cmd.words)
        if fed or substituted:
            out.append(
                Reason(
                    "pipe-to-shell",
                    "builtin:pipe-to-shell",
                    f"downloaded content is run as a program by `{cmd.program}`",
                )
            )
    return out


def hazards(analysis: ShellAnalysis) -> list[Reason]:
    """DENY reasons for the built-in multi-command hazards found in `analysis`."""
    out = _pipe_to_shell(analysis)
    out.extend(
        Reason(
            "fork-bomb",
            "builtin:fork-bomb",
            f"function `{name}` calls itself more than once: a fork bomb",
        )
        for name in analysis.fork_bombs
    )
    for r in analysis.redirects:
        if r.access == "write" and _BLOCK_DEVICE.match(r.target):
            out.append(
                Reason(
                    "block-device-write",
                    "builtin:block-device-write",
                    f"redirection writes to the block device `{r.target}`",
                )
            )
        if _NET_REDIRECT.match(r.target):
            out.append(
                Reason(
                    "reverse-shell",
                    "builtin:dev-tcp",
                    f"redirection to `{r.target}` connects a shell stream to the network",
                )
            )
    return out
