"""Containers: host paths a container is given (`-v SRC:DST`, `--mount source=`), files the
client reads or writes, and where `kubectl`/`docker` copy to.

Flags that hand the container the host (`--privileged`, `--pid=host`) are classes in
`classes`; here is only what each word is.
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Opt, Program

__all__ = ["OTHER_PLACES", "PROGRAMS"]

_V = Opt(takes=True)
_READ = Opt(takes=True, role="read")
_WRITE = Opt(takes=True, role="write")
_MOUNT = Opt(takes=True, role="mount")

_RUN_OPTIONS = {
    "-v": _MOUNT, "--volume": _MOUNT, "--mount": _MOUNT, "--env-file": _READ,
    "--cidfile": _WRITE, "--label-file": _READ, "-e": _V, "--env": _V, "--name": _V,
    "-p": _V, "--publish": _V, "-w": _V, "--workdir": _V, "-u": _V, "--user": _V,
    "--network": _V, "--net": _V, "--entrypoint": _V, "-h": _V, "--hostname": _V,
    "-l": _V, "--label": _V, "-m": _V, "--memory": _V, "--cpus": _V, "--platform": _V,
    "--restart": _V, "--add-host": _V, "--dns": _V, "--device": _V, "--cap-add": _V,
    "--cap-drop": _V, "--security-opt": _V, "--pid": _V, "--ipc": _V, "--uts": _V,
    "--userns": _V, "--tmpfs": _V, "--shm-size": _V, "--ulimit": _V, "--log-driver": _V,
    "--log-opt": _V, "--gpus": _V, "--pull": _V, "--stop-signal": _V, "--group-add": _V,
    "--volumes-from": _V, "--link": _V, "--expose": _V, "--health-cmd": _V,
    "--runtime": _V, "--cgroupns": _V, "--cgroup-parent": _V, "-a": _V, "--attach": _V,
}  # fmt: skip
_RUN = Program(options=_RUN_OPTIONS, stop_at=1)
_BUILD = Program(
    options={"-f": _READ, "--file": _READ, "-t": _V, "--tag": _V, "--build-arg": _V,
             "--target": _V, "--platform": _V, "-o": _WRITE, "--output": _WRITE,
             "--iidfile": _WRITE, "--secret": _V, "--label": _V, "--network": _V,
             "--cache-from": _V, "--cache-to": _V, "--progress": _V},
    first="read",
)  # fmt: skip
_DOCKER = Program(
    options={"-H": _V, "--host": _V, "--context": _V, "-c": _V, "--config": _READ,
             "-l": _V, "--log-level": _V},
    subcommands={
        "run": _RUN,
        "create": _RUN,
        "build": _BUILD,
        "buildx": Program(subcommands={"build": _BUILD}),
        "container": Program(subcommands={"run": _RUN, "create": _RUN}),
        "image": Program(subcommands={"build": _BUILD}),
        "save": Program(options={"-o": _WRITE, "--output": _WRITE}),
        "load": Program(options={"-i": _READ, "--input": _READ}),
        "export": Program(options={"-o": _WRITE, "--output": _WRITE}),
        "import": Program(first="read"),
        "cp": Program(operands="read", last="write"),
        "compose": Program(options={"-f": _READ, "--file": _READ, "--env-file": _READ}),
    },
)  # fmt: skip
_KUBECTL = Program(
    options={"--kubeconfig": _READ, "-n": _V, "--namespace": _V, "--context": _V,
             "-c": _V, "--container": _V, "-o": _V, "--output": _V, "-l": _V,
             "--selector": _V, "-f": _READ, "--filename": _READ, "-k": _READ,
             "--kustomize": _READ},
    subcommands={"cp": Program(operands="read", last="write")},
)  # fmt: skip

PROGRAMS: dict[str, Program] = {
    "docker": _DOCKER,
    "podman": _DOCKER,
    "nerdctl": _DOCKER,
    "kubectl": _KUBECTL,
    "oc": _KUBECTL,
}

# Programs whose operands name paths inside a container, on another host or in an API
# (`docker exec c cat /etc/x`, `ssh h ls /etc`, `gh api /user`): only the words their
# table marks as host files are reads here. Denied paths are still denied in every word.
OTHER_PLACES: frozenset[str] = frozenset(
    {"docker", "podman", "nerdctl", "kubectl", "oc", "ssh", "gh", "adb", "helm", "lxc"}
)
