"""docker: every option of the subcommands agents use, from the Docker CLI's own help.

Taken from `docker [SUB] --help` of Docker CLI 28.2.2 (pflag under cobra: `parser="pflag"`,
no abbreviations). The docker daemon runs as root: whatever reaches it reaches the host. So:

- read-only queries of the local daemon are understood and allowed (`ps`, `images`,
  `logs`, `version`, `info`, `stats`, `top`, `port`, `diff`, `history`, `events`, `wait`,
  `image inspect`, `network`/`volume` `ls`/`inspect`, `system df`, `context ls`/`show`/
  `inspect`), as are `save`/`export` (write the file `-o` names, judged) and `cp` (host
  paths judged as reads and writes);
- `pull` and `search` ask (`daemon-network`): the daemon, not the client, connects to the
  registry the image name says, outside the network policy, and `pull` re-points a name;
- what starts or enters a container (`run`, `create`, `start`, `restart`, `exec`, `attach`)
  or builds an image (`build`: the Dockerfile's RUN steps) asks without the sandbox
  (`container-code`): the container's confinement is whatever its options, its image and the
  daemon give it, and `exec` runs in a container created earlier, with options not seen here;
- what changes the daemon's containers, images, volumes and networks (`rm`, `rmi`, `kill`,
  `stop`, `tag`, `load`, `prune`, …) asks (`daemon-change`): state outside the workspace,
  often the user's data (a volume, a database container);
- `inspect` of a container asks (`credential-printer`): it prints the container's
  environment, where passwords and tokens are passed; `login`/`logout` ask (`user-config`:
  they store or remove registry credentials); `push` asks as publishing (a class).

Left out, so they ask: the global `-H`/`--host` (a daemon elsewhere: another machine's root,
or `ssh://…`, which runs the user's ssh) and `--config DIR` (a client config names credential
helpers, `docker-credential-NAME` programs it runs). Plugins (`compose`, `buildx`, any
`docker-NAME` in `cli-plugins`) and the subcommands not tabled here (`swarm`, `service`,
`plugin`, `trust`, `manifest`, `checkpoint`, `builder`, `context` writes, …) are not understood.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from safehold.policy.shell.programs.table import HostAsk, Opt, Program, Role
from safehold.policy.shell.programs.vocab import flags, valued, values

__all__ = ["DOCKER"]

SOURCE = "Docker CLI 28.2.2 (`docker [SUB] --help`)"

_CONTAINER_CODE = HostAsk(
    "container-code",
    "runs code in a container: the docker daemon, root on the host, gives it whatever its "
    "options, its image and its earlier configuration say (host mounts, privileges, devices)",
)
_DAEMON_CHANGE = HostAsk(
    "daemon-change",
    "changes the docker daemon's containers, images, volumes or networks: state outside the "
    "workspace, often the user's data",
)
# The daemon connects, not the client: neither the network policy nor the sandbox sees it
# (a registry on a private address, the cloud metadata service as a "registry").
_PULL = HostAsk(
    "daemon-network",
    "has the docker daemon (root, outside the network policy) download an image from the "
    "registry its name says, and point that name at it: the next `run` of it runs the new one",
)
_SEARCH = HostAsk(
    "daemon-network",
    "has the docker daemon (root, outside the network policy) query the registry its term names",
)
_ENVIRONMENT = HostAsk(
    "credential-printer",
    "prints a container's configuration, with the environment variables its passwords and "
    "tokens are passed in",
)
_CREDENTIALS = HostAsk(
    "user-config",
    "stores or removes registry credentials in the user's docker config, outside the workspace",
)

# Options before the subcommand (`docker [OPTIONS] COMMAND`: not inherited by subcommands).
_GLOBAL = {
    **flags("-D", "--debug", "--tls", "--tlsverify", "-v", "--version", "--help"),
    **values("-c", "--context", "-l", "--log-level"),
    **valued("read", "--tlscacert", "--tlscert", "--tlskey"),
}

_CREATE = {
    **flags("--disable-content-trust", "--init", "-i", "--interactive", "--no-healthcheck"),
    **flags("--oom-kill-disable", "--privileged", "-P", "--publish-all", "-q", "--quiet"),
    **flags("--read-only", "--rm", "-t", "--tty", "--use-api-socket"),
    **values("--add-host", "--annotation", "-a", "--attach", "--blkio-weight"),
    **values("--blkio-weight-device", "--cap-add", "--cap-drop", "--cgroup-parent"),
    **values("--cgroupns", "--cpu-count", "--cpu-percent", "--cpu-period", "--cpu-quota"),
    **values("--cpu-rt-period", "--cpu-rt-runtime", "-c", "--cpu-shares", "--cpus"),
    **values("--cpuset-cpus", "--cpuset-mems", "--device", "--device-cgroup-rule"),
    **values("--device-read-bps", "--device-read-iops", "--device-write-bps"),
    **values("--device-write-iops", "--dns", "--dns-option", "--dns-search"),
    **values("--domainname", "--entrypoint", "-e", "--env", "--expose", "--gpus"),
    **values("--group-add"),
    **values("--health-cmd", "--health-interval", "--health-retries"),
    **values("--health-start-interval", "--health-start-period", "--health-timeout", "-h"),
    **values("--hostname", "--io-maxbandwidth", "--io-maxiops", "--ip", "--ip6", "--ipc"),
    **values("--isolation", "--kernel-memory", "-l", "--label", "--link"),
    **values("--link-local-ip", "--log-driver", "--log-opt", "--mac-address", "-m"),
    **values("--memory", "--memory-reservation", "--memory-swap", "--memory-swappiness"),
    **values("--name", "--network", "--network-alias", "--oom-score-adj", "--pid"),
    **values("--pids-limit", "--platform", "-p", "--publish", "--pull", "--restart"),
    **values("--runtime", "--security-opt", "--shm-size", "--stop-signal"),
    **values("--stop-timeout", "--storage-opt", "--sysctl", "--tmpfs", "--ulimit", "-u"),
    **values("--user", "--userns", "--uts", "--volume-driver", "--volumes-from", "-w"),
    **values("--workdir"),
    # Host paths the container sees (judged as `mount`: `/`, home, sockets deny), files
    # the client reads or writes.
    **valued("mount", "-v", "--volume", "--mount"),
    **valued("read", "--env-file", "--label-file"),
    **valued("write", "--cidfile"),
}
_RUN = {**_CREATE, **flags("-d", "--detach", "--sig-proxy"), **values("--detach-keys")}
_EXEC = {
    **flags("-d", "--detach", "-i", "--interactive", "--privileged", "-t", "--tty"),
    **values("--detach-keys", "-e", "--env", "-u", "--user", "-w", "--workdir"),
    **valued("read", "--env-file"),
}
_START = {
    **flags("-a", "--attach", "-i", "--interactive"),
    **values("--checkpoint", "--detach-keys"),
    **valued("read", "--checkpoint-dir"),
}
_BUILD = {
    **flags("--compress", "--disable-content-trust", "--force-rm", "--no-cache", "--pull"),
    **flags("-q", "--quiet", "--rm", "--squash"),
    **values("--add-host", "--build-arg", "--cache-from", "--cgroup-parent"),
    **values("--cpu-period", "--cpu-quota", "-c", "--cpu-shares", "--cpuset-cpus"),
    **values("--cpuset-mems", "--isolation", "--label", "-m", "--memory", "--memory-swap"),
    **values("--network", "--platform", "--security-opt", "--shm-size", "-t", "--tag"),
    **values("--target", "--ulimit"),
    **valued("read", "-f", "--file"),
    **valued("write", "--iidfile"),
}
_SIGNAL = values("-s", "--signal")
_STOP = {**_SIGNAL, **values("-t", "--timeout")}
_FORMAT = values("-f", "--format")
_FILTER = values("-f", "--filter", "--format")
_PRUNE = {**flags("-f", "--force"), **values("--filter")}
_PS = {
    **flags("-a", "--all", "-l", "--latest", "--no-trunc", "-q", "--quiet", "-s", "--size"),
    **values("-f", "--filter", "--format", "-n", "--last"),
}
_IMAGES = {**flags("-a", "--all", "--digests", "--no-trunc", "-q", "--quiet", "--tree"), **_FILTER}
_LOGS = {
    **flags("--details", "-f", "--follow", "-t", "--timestamps"),
    **values("--since", "-n", "--tail", "--until"),
}
_STATS = {**flags("-a", "--all", "--no-stream", "--no-trunc"), **values("--format")}
_HISTORY = {
    **flags("-H", "--human", "--no-trunc", "-q", "--quiet"),
    **values("--format", "--platform"),
}
_EVENTS = values("-f", "--filter", "--format", "--since", "--until")
_TRANSFER = {
    **flags("-a", "--all-tags", "--disable-content-trust", "-q", "--quiet"),
    **values("--platform"),
}
_CONTAINER_INSPECT = {**flags("-s", "--size"), **_FORMAT}
_UPDATE = {
    **values("--blkio-weight", "--cpu-period", "--cpu-quota", "--cpu-rt-period"),
    **values("--cpu-rt-runtime", "-c", "--cpu-shares", "--cpus", "--cpuset-cpus"),
    **values("--cpuset-mems", "-m", "--memory", "--memory-reservation", "--memory-swap"),
    **values("--pids-limit", "--restart"),
}


def _docker(
    options: Mapping[str, Opt],
    host_ask: HostAsk | None = None,
    *,
    stop_at: int | None = None,
    first: Role | None = None,
    operands: Role | None = None,
    last: Role | None = None,
) -> Program:
    """A docker subcommand: its options, `--help`, and what it asks unconfined."""
    return Program(
        options={**options, **flags("--help")},
        parser="pflag",
        source=SOURCE,
        host_ask=host_ask,
        stop_at=stop_at,
        first=first,
        operands=operands,
        last=last,
    )


# A container's command (`docker run IMAGE CMD…`, `docker exec C CMD…`) is not docker's:
# reading stops after the image or container (`stop_at=1`); it runs inside the container.
_RUN_P = _docker(_RUN, _CONTAINER_CODE, stop_at=1)
_CREATE_P = _docker(_CREATE, _CONTAINER_CODE, stop_at=1)
_EXEC_P = _docker(_EXEC, _CONTAINER_CODE, stop_at=1)
_START_P = _docker(_START, _CONTAINER_CODE)
_RESTART_P = _docker(_STOP, _CONTAINER_CODE)
_ATTACH_P = _docker(
    {**flags("--no-stdin", "--sig-proxy"), **values("--detach-keys")}, _CONTAINER_CODE
)
# The build context (a directory, a URL or `-`) is sent to the daemon: read.
_BUILD_P = _docker(_BUILD, _CONTAINER_CODE, first="read")
_COMMIT_P = _docker(
    {**flags("-p", "--pause"), **values("-a", "--author", "-c", "--change", "-m", "--message")},
    _DAEMON_CHANGE,
)
_RM_P = _docker(flags("-f", "--force", "-l", "--link", "-v", "--volumes"), _DAEMON_CHANGE)
_RMI_P = _docker({**flags("-f", "--force", "--no-prune"), **values("--platform")}, _DAEMON_CHANGE)
_KILL_P = _docker(_SIGNAL, _DAEMON_CHANGE)
_STOP_P = _docker(_STOP, _DAEMON_CHANGE)
_TAG_P = _docker({}, _DAEMON_CHANGE)
_UPDATE_P = _docker(_UPDATE, _DAEMON_CHANGE)
_IMPORT_P = _docker(
    values("-c", "--change", "-m", "--message", "--platform"), _DAEMON_CHANGE, first="read"
)
_LOAD_P = _docker(
    {**flags("-q", "--quiet"), **values("--platform"), **valued("read", "-i", "--input")},
    _DAEMON_CHANGE,
)
_PRUNE_ALL_P = _docker({**_PRUNE, **flags("-a", "--all")}, _DAEMON_CHANGE)  # image prune
_PS_P = _docker(_PS)
_IMAGES_P = _docker(_IMAGES)
_LOGS_P = _docker(_LOGS)
_STATS_P = _docker(_STATS)
_HISTORY_P = _docker(_HISTORY)
_EVENTS_P = _docker(_EVENTS)
_INFO_P = _docker(_FORMAT)
_PULL_P = _docker(_TRANSFER, _PULL)
_PUSH_P = _docker(_TRANSFER)  # publishing: the `publish` class asks
_INSPECT_P = _docker({**_CONTAINER_INSPECT, **values("--type")}, _ENVIRONMENT)
_CONTAINER_INSPECT_P = _docker(_CONTAINER_INSPECT, _ENVIRONMENT)
_IMAGE_INSPECT_P = _docker({**_FORMAT, **values("--platform")})
_SAVE_P = _docker({**values("--platform"), **valued("write", "-o", "--output")})
_EXPORT_P = _docker(valued("write", "-o", "--output"))
# `docker cp SRC DST`: one side is `CONTAINER:PATH`; the host side is read or written.
# `docker cp CONTAINER:SRC DEST` writes the container's tree at DEST, names chosen by the
# container (`.git/hooks/…` under `DEST=.`): written as an archive's members are (`unpacks`).
_CP_P = dataclasses.replace(
    _docker(
        flags("-a", "--archive", "-L", "--follow-link", "-q", "--quiet"),
        operands="read",
        last="write",
    ),
    unpacks=True,
)
_LOGIN_P = _docker(
    {**flags("--password-stdin"), **values("-p", "--password", "-u", "--username")},
    _CREDENTIALS,
)
_LOGOUT_P = _docker({}, _CREDENTIALS)

# `docker container SUB`, and the top-level aliases of each (`docker ps`, `docker rm`).
# An alias shares its command's table; two commands never share one (the completeness test
# reads each table's help once, under its first name).
_CONTAINER = {
    "attach": _ATTACH_P, "commit": _COMMIT_P, "cp": _CP_P, "create": _CREATE_P,
    "diff": _docker({}), "exec": _EXEC_P, "export": _EXPORT_P, "inspect": _CONTAINER_INSPECT_P,
    "kill": _KILL_P, "logs": _LOGS_P, "ls": _PS_P, "list": _PS_P, "ps": _PS_P,
    "pause": _docker({}, _DAEMON_CHANGE), "port": _docker({}),
    "prune": _docker(_PRUNE, _DAEMON_CHANGE), "rename": _docker({}, _DAEMON_CHANGE),
    "restart": _RESTART_P, "rm": _RM_P, "remove": _RM_P, "run": _RUN_P, "start": _START_P,
    "stats": _STATS_P, "stop": _STOP_P, "top": _docker({}),
    "unpause": _docker({}, _DAEMON_CHANGE),
    "update": _UPDATE_P, "wait": _docker({}),
}  # fmt: skip
_IMAGE = {
    "build": _BUILD_P, "history": _HISTORY_P, "import": _IMPORT_P, "inspect": _IMAGE_INSPECT_P,
    "load": _LOAD_P, "ls": _IMAGES_P, "list": _IMAGES_P, "prune": _PRUNE_ALL_P,
    "pull": _PULL_P, "push": _PUSH_P, "rm": _RMI_P, "remove": _RMI_P, "save": _SAVE_P,
    "tag": _TAG_P,
}  # fmt: skip
_NETWORK = {
    "ls": _docker({**flags("--no-trunc", "-q", "--quiet"), **_FILTER}),
    "inspect": _docker({**flags("-v", "--verbose"), **_FORMAT}),
    "rm": _docker(flags("-f", "--force"), _DAEMON_CHANGE),
    "prune": _docker(_PRUNE, _DAEMON_CHANGE),
}
_NETWORK["list"] = _NETWORK["ls"]
_NETWORK["remove"] = _NETWORK["rm"]
_VOLUME = {
    "ls": _docker({**flags("--cluster", "-q", "--quiet"), **_FILTER}),
    "inspect": _docker(_FORMAT),
    "rm": _docker(flags("-f", "--force"), _DAEMON_CHANGE),
    "prune": _docker({**_PRUNE, **flags("-a", "--all")}, _DAEMON_CHANGE),
}
_VOLUME["list"] = _VOLUME["ls"]
_VOLUME["remove"] = _VOLUME["rm"]
_SYSTEM = {
    "df": _docker({**flags("-v", "--verbose"), **values("--format")}),
    "info": _INFO_P,
    "events": _EVENTS_P,
    "prune": _docker({**_PRUNE, **flags("-a", "--all", "--volumes")}, _DAEMON_CHANGE),
}
_CONTEXT = {
    "ls": _docker({**flags("-q", "--quiet"), **values("--format")}),
    "show": _docker({}),
    "inspect": _docker(_FORMAT),
}
_CONTEXT["list"] = _CONTEXT["ls"]


# `docker container SUB` commands docker also takes as `docker SUB`.
_CONTAINER_ALIASES = (
    "attach", "commit", "cp", "create", "diff", "exec", "export", "kill", "logs", "pause",
    "port", "rename", "restart", "rm", "run", "start", "stats", "stop", "top", "unpause",
    "update", "wait", "ps",
)  # fmt: skip


def _group(subcommands: Mapping[str, Program]) -> Program:
    """`docker container`, `docker image`, …: a subcommand is required."""
    return Program(options=flags("--help"), subcommands=subcommands, parser="pflag", source=SOURCE)


DOCKER = Program(
    options=_GLOBAL,
    subcommands={
        **{name: _CONTAINER[name] for name in _CONTAINER_ALIASES},
        "build": _BUILD_P,
        "history": _HISTORY_P,
        "import": _IMPORT_P,
        "load": _LOAD_P,
        "images": _IMAGES_P,
        "pull": _PULL_P,
        "push": _PUSH_P,
        "rmi": _RMI_P,
        "save": _SAVE_P,
        "tag": _TAG_P,
        "events": _EVENTS_P,
        "info": _INFO_P,
        "inspect": _INSPECT_P,
        "version": _docker(_FORMAT),
        "login": _LOGIN_P,
        "logout": _LOGOUT_P,
        "search": _docker(
            {**flags("--no-trunc"), **values("-f", "--filter", "--format", "--limit")}, _SEARCH
        ),
        "container": _group(_CONTAINER),
        "image": _group(_IMAGE),
        "network": _group(_NETWORK),
        "volume": _group(_VOLUME),
        "system": _group(_SYSTEM),
        "context": _group(_CONTEXT),
    },
    parser="pflag",
    source=SOURCE,
)
