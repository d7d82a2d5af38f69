"""Containers and clusters: `docker` and `kubectl` (complete tables in `docker` and
`kubectl`), and the programs that share them.

Host paths a container is given (`-v SRC:DST`, `--mount source=`) are `mount` roles; flags
that hand the container the host (`--privileged`, `--pid=host`) and credential printers
(`kubectl get secret`) are classes in `classes`; here is only what each word is.

`podman` and `nerdctl` are read with docker's table and `oc` with kubectl's: their options
and roles are judged (a host mount denies with either), but the tables were not taken from
their own help, and their options differ (podman's `--rootfs`, oc's `new-app`), so without
the sandbox each of their commands asks (`not-understood`), whatever it is.
"""

from __future__ import annotations

import dataclasses

from safehold.policy.shell.programs.docker import DOCKER
from safehold.policy.shell.programs.kubectl import KUBECTL
from safehold.policy.shell.programs.table import HostAsk, Program

__all__ = ["OTHER_PLACES", "PROGRAMS"]


def _borrowed(program: Program, ask: HostAsk | None) -> Program:
    """`program`'s table for another program: no `source` (it was not taken from that
    program's help), asking `ask` without the sandbox."""
    return dataclasses.replace(
        program,
        source="",
        host_ask=ask or program.host_ask,
        subcommands={k: _borrowed(v, None) for k, v in program.subcommands.items()},
    )


def _like(other: str, name: str) -> HostAsk:
    return HostAsk(
        "not-understood",
        f"is read with {other}'s table, not one taken from {name}'s own help: its options "
        "may differ",
    )


PROGRAMS: dict[str, Program] = {
    "docker": DOCKER,
    "podman": _borrowed(DOCKER, _like("docker", "podman")),
    "nerdctl": _borrowed(DOCKER, _like("docker", "nerdctl")),
    "kubectl": KUBECTL,
    "oc": _borrowed(KUBECTL, _like("kubectl", "oc")),
}

# Programs whose operands name paths inside a container, on another host or in an API
# (`docker exec c cat /etc/x`, `ssh h ls /etc`, `gh api /user`): only the words their
# table marks as host files are reads here. Denied paths are still denied in every word.
OTHER_PLACES: frozenset[str] = frozenset(
    {"docker", "podman", "nerdctl", "kubectl", "oc", "ssh", "gh", "adb", "helm", "lxc"}
)
