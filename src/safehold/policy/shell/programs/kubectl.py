"""kubectl: every option of the subcommands agents use, from kubectl's own help.

Taken from `kubectl SUB --help` and `kubectl options` (the global options every subcommand
takes) of kubectl v1.32.4 (pflag under cobra: `parser="pflag"`, no abbreviations). Every
subcommand talks to the cluster the user's kubeconfig names, with the user's credentials:

- read queries are understood and allowed (`get`, `describe`, `logs`, `top pod|node`,
  `explain`, `api-resources`, `api-versions`, `version`, `cluster-info [dump]`, `events`,
  `wait`, `auth can-i|whoami`, `rollout status|history`, `config current-context|
  get-contexts|get-clusters|get-users`). Secrets are not: a command with a word spelled
  `secret`, or a computed operand of a subcommand that prints objects, asks
  (`credential-printer`, in `classes`), as does `config view` on the host (a kubeconfig's
  auth-provider tokens are printed even without `--raw`);
- what changes the cluster (`apply`, `create`, `delete`, `patch`, `edit`, `replace`,
  `scale`, `label`, `annotate`, `rollout restart|undo|pause|resume`) asks (`cluster-change`);
  what runs code there or connects this machine to it (`exec`, `run`, `debug`, `attach`,
  `port-forward`, `proxy`, `cp`) asks (`cluster-code`); `config` writes ask (`user-config`).

Left out, so they ask: the global `--kubeconfig` (a kubeconfig's `exec` credential plugin is
a command kubectl runs: one from the workspace would run its code), `-s`/`--server` (sends
the current credentials to the server it names) and `--as`/`--as-group`/`--as-uid`
(impersonation), `--insecure-skip-tls-verify` (credentials over an unchecked connection);
`get`/`describe`'s `-f`/`-k` (a file can name Secret objects) and `get
--raw` (any API path); `wait -f` (it prints what the file names); `config view
--raw`/`--flatten` (print the credentials). Plugins
(`kubectl NAME` runs `kubectl-NAME`) and subcommands not tabled here (`plugin`, `kustomize`,
`diff`, `drain`, `cordon`, `taint`, `expose`, `set`, `autoscale`, `certificate`, …) are not
understood.
"""

from __future__ import annotations

from collections.abc import Mapping

from safehold.policy.shell.programs.table import HostAsk, Opt, Program, Role
from safehold.policy.shell.programs.vocab import flags, optional, valued, values

__all__ = ["KUBECTL"]

SOURCE = "kubectl v1.32.4 (`kubectl SUB --help`, `kubectl options`)"

_CHANGE = HostAsk(
    "cluster-change",
    "changes objects in the Kubernetes cluster the kubeconfig points at: state outside this "
    "machine, often shared",
)
_CODE = HostAsk(
    "cluster-code",
    "runs code in the Kubernetes cluster or connects this machine to it (a command in a pod, "
    "a new pod, copied files, a forwarded port, the API served with your credentials)",
)
_KUBECONFIG = HostAsk(
    "credential-printer",
    "prints the kubeconfig: `--raw` aside, the tokens of an auth-provider's config and the "
    "environment of an exec plugin are printed as they are",
)
_CONFIG = HostAsk(
    "user-config", "changes the user's kubeconfig: which cluster and credentials kubectl uses"
)

# `-o FORMAT`: `jsonpath-file=F`, `go-template-file=F`, `templatefile=F` and
# `custom-columns-file=F` read F; the other formats name nothing.
_OUTPUT = Opt(
    takes=True,
    keyed=dict.fromkeys(
        ("jsonpath-file", "go-template-file", "templatefile", "custom-columns-file"), "read"
    ),
)
_O = {"-o": _OUTPUT, "--output": _OUTPUT}
# With `-o go-template-file`, `--template` is the file; otherwise the template's text (read
# as a path it names nothing outside the workspace).
_TEMPLATE = {**valued("read", "--template"), **flags("--allow-missing-template-keys")}
_PRINT = {**_O, **_TEMPLATE, **flags("--show-managed-fields")}
_FILES = valued("read", "-f", "--filename", "-k", "--kustomize")
_SELECT = {**values("-l", "--selector"), **flags("-R", "--recursive")}

# Left out too: `--insecure-skip-tls-verify` ("the server's certificate will not be
# checked for validity. This will make your HTTPS connections insecure", `kubectl
# options`): the user's credentials then go to whoever answers, as pip's `--trusted-host`.
_GLOBAL = {
    **flags("--disable-compression"),
    **flags("--match-server-version", "--warnings-as-errors", "-h", "--help"),
    **values("--cluster", "--context", "--log-flush-frequency", "-n", "--namespace"),
    **values("--password", "--profile", "--request-timeout", "--tls-server-name"),
    **values("--token", "--user", "--username", "-v", "--v", "--vmodule"),
    **valued("write", "--cache-dir", "--profile-output"),
    **valued("read", "--certificate-authority", "--client-certificate", "--client-key"),
}


def _kubectl(
    options: Mapping[str, Opt],
    host_ask: HostAsk | None = None,
    *,
    source: str = SOURCE,
    stop_at: int | None = None,
    operands: Role | None = None,
    last: Role | None = None,
    subcommands: Mapping[str, Program] | None = None,
) -> Program:
    """A kubectl subcommand: its options and the global ones (cobra's persistent flags)."""
    return Program(
        options={**_GLOBAL, **options},
        parser="pflag",
        source=source,
        host_ask=host_ask,
        stop_at=stop_at,
        operands=operands,
        last=last,
        subcommands=subcommands or {},
    )


_GET = {
    **flags("-A", "--all-namespaces", "--ignore-not-found", "--no-headers"),
    **flags("--output-watch-events", "--server-print", "--show-kind", "--show-labels"),
    **flags("-w", "--watch", "--watch-only"),
    **values("--chunk-size", "--field-selector", "-L", "--label-columns"),
    **values("--sort-by", "--subresource"),
    **_SELECT,
    **_PRINT,
}
_DESCRIBE = {
    **flags("-A", "--all-namespaces", "--show-events"),
    **values("--chunk-size"),
    **_SELECT,
}
_LOGS = {
    **flags("--all-containers", "--all-pods", "-f", "--follow", "--ignore-errors"),
    **flags("--insecure-skip-tls-verify-backend", "--prefix", "-p", "--previous"),
    **flags("--timestamps"),
    **values("-c", "--container", "--limit-bytes", "--max-log-requests"),
    **values("--pod-running-timeout", "-l", "--selector", "--since", "--since-time"),
    **values("--tail"),
}
_EVENTS = {
    **flags("-A", "--all-namespaces", "--no-headers", "-w", "--watch"),
    **values("--chunk-size", "--for", "--types"),
    **_PRINT,
}
_WAIT = {
    **flags("--all", "-A", "--all-namespaces", "--local"),
    **values("--field-selector", "--for", "--timeout"),
    **_SELECT,
    **_PRINT,
}
_TOP_POD = _kubectl(
    {
        **flags("-A", "--all-namespaces", "--containers", "--no-headers", "--sum"),
        **flags("--use-protocol-buffers"),
        **values("--field-selector", "-l", "--selector", "--sort-by"),
    }
)
_TOP_NODE = _kubectl(
    {
        **flags("--no-headers", "--show-capacity", "--use-protocol-buffers"),
        **values("-l", "--selector", "--sort-by"),
    }
)
_ROLLOUT_WRITE = _kubectl({}, _CHANGE, source="")  # undo, pause, resume: options not listed
_ROLLOUT = _kubectl(
    {},
    subcommands={
        "status": _kubectl(
            {**flags("-w", "--watch"), **values("--revision", "--timeout"), **_FILES, **_SELECT}
        ),
        "history": _kubectl({**values("--revision"), **_FILES, **_SELECT, **_PRINT}),
        "restart": _kubectl({**values("--field-manager"), **_FILES, **_SELECT, **_PRINT}, _CHANGE),
        "undo": _ROLLOUT_WRITE,
        "pause": _ROLLOUT_WRITE,
        "resume": _ROLLOUT_WRITE,
    },
)
_CONFIG_WRITE = _kubectl({}, _CONFIG, source="")  # options not listed: any asks
_CONFIG_P = _kubectl(
    {},
    subcommands={
        "current-context": _kubectl({}),
        "get-contexts": _kubectl({**flags("--no-headers"), **_O}),
        "get-clusters": _kubectl({}),
        "get-users": _kubectl({}),
        "view": _kubectl({**flags("--merge", "--minify"), **_PRINT}, _KUBECONFIG),
        **dict.fromkeys(
            (
                "use-context",
                "use",
                "set-context",
                "set",
                "unset",
                "set-cluster",
                "set-credentials",
                "delete-context",
                "delete-cluster",
                "delete-user",
                "rename-context",
            ),
            _CONFIG_WRITE,
        ),
    },
)
_LABELS = {
    **flags("--all", "-A", "--all-namespaces", "--list", "--local", "--overwrite"),
    **values("--field-manager", "--field-selector", "--resource-version"),
    **optional("--dry-run"),
}
_CHANGES = {
    "apply": {
        **flags("--all", "--force", "--force-conflicts", "--openapi-patch", "--overwrite"),
        **flags("--prune", "--server-side", "--wait"),
        **values("--field-manager", "--grace-period", "--prune-allowlist", "--subresource"),
        **values("--timeout"),
        **optional("--dry-run", "--validate", "--cascade"),
    },
    "create": {
        **flags("--edit", "--save-config", "--windows-line-endings"),
        **values("--field-manager", "--raw"),
        **optional("--dry-run", "--validate"),
    },
    "delete": {
        **flags("--all", "-A", "--all-namespaces", "--force", "--ignore-not-found", "-i"),
        **flags("--interactive", "--now", "--wait"),
        **values("--field-selector", "--grace-period", "--raw", "--timeout"),
        **optional("--dry-run", "--cascade"),
    },
    "patch": {
        **flags("--local"),
        **values("--field-manager", "-p", "--patch", "--subresource", "--type"),
        **optional("--dry-run"),
        **valued("read", "--patch-file"),
    },
    "edit": {
        **flags("--output-patch", "--save-config", "--windows-line-endings"),
        **values("--field-manager", "--subresource"),
        **optional("--validate"),
    },
    "replace": {
        **flags("--force", "--save-config", "--wait"),
        **values("--field-manager", "--grace-period", "--raw", "--subresource", "--timeout"),
        **optional("--dry-run", "--validate", "--cascade"),
    },
    "scale": {
        **flags("--all"),
        **values("--current-replicas", "--replicas", "--resource-version", "--timeout"),
        **optional("--dry-run"),
    },
    "label": _LABELS,
    "annotate": _LABELS,
}
_RUN = {
    **flags("--attach", "--command", "--expose", "--force", "--leave-stdin-open"),
    **flags("--privileged", "-q", "--quiet", "--rm", "--save-config", "-i", "--stdin"),
    **flags("-t", "--tty", "--wait"),
    **values("--annotations", "--env", "--field-manager", "--grace-period", "--image"),
    **values("--image-pull-policy", "-l", "--labels", "--override-type", "--overrides"),
    **values("--pod-running-timeout", "--port", "--restart", "--timeout"),
    **optional("--dry-run", "--cascade"),
    **_FILES,
    **_PRINT,
    **flags("-R", "--recursive"),
}
_DEBUG = {
    **flags("--arguments-only", "--attach", "--keep-annotations", "--keep-init-containers"),
    **flags("--keep-labels", "--keep-liveness", "--keep-readiness", "--keep-startup", "-q"),
    **flags("--quiet", "--replace", "--same-node", "--share-processes", "-i", "--stdin"),
    **flags("-t", "--tty"),
    **values("-c", "--container", "--copy-to", "--env", "--image"),
    **values("--image-pull-policy", "--profile", "--set-image", "--target"),
    **valued("read", "-f", "--filename", "--custom"),
}
_ATTACH = {
    **flags("-q", "--quiet", "-i", "--stdin", "-t", "--tty"),
    **values("-c", "--container", "--pod-running-timeout"),
}
_PROXY = {
    **flags("--append-server-path", "--disable-filter"),
    **values("--accept-hosts", "--accept-paths", "--address", "--api-prefix"),
    **values("--keepalive", "-p", "--port", "--reject-methods", "--reject-paths", "-P"),
    **values("--www-prefix"),
    # Serves the files of `--www` DIR over HTTP; listens on the socket `--unix-socket` names.
    **valued("read", "-w", "--www"),
    **valued("write", "-u", "--unix-socket"),
}

KUBECTL = Program(
    options=_GLOBAL,
    subcommands={
        "get": _kubectl(_GET),
        "describe": _kubectl(_DESCRIBE),
        "logs": _kubectl(_LOGS),
        "top": _kubectl(
            {},
            subcommands={
                **dict.fromkeys(("pod", "pods", "po"), _TOP_POD),
                **dict.fromkeys(("node", "nodes", "no"), _TOP_NODE),
            },
        ),
        "explain": _kubectl({**flags("--recursive"), **values("--api-version"), **_O}),
        "api-resources": _kubectl(
            {
                **flags("--cached", "--namespaced", "--no-headers"),
                **values("--api-group", "--categories", "--sort-by", "--verbs"),
                **_O,
            }
        ),
        "api-versions": _kubectl({}),
        "version": _kubectl({**flags("--client"), **_O}),
        "cluster-info": _kubectl(
            {},
            subcommands={
                "dump": _kubectl(
                    {
                        **flags("-A", "--all-namespaces"),
                        **values("--namespaces", "--pod-running-timeout"),
                        **valued("write", "--output-directory"),
                        **_PRINT,
                    }
                )
            },
        ),
        "events": _kubectl(_EVENTS),
        "wait": _kubectl(_WAIT),
        "auth": _kubectl(
            {},
            subcommands={
                "can-i": _kubectl(
                    {
                        **flags("-A", "--all-namespaces", "--list", "--no-headers", "-q"),
                        **flags("--quiet"),
                        **values("--subresource"),
                    }
                ),
                "whoami": _kubectl(_PRINT),
            },
        ),
        "rollout": _ROLLOUT,
        "config": _CONFIG_P,
        **{
            name: _kubectl({**options, **_FILES, **_SELECT, **_PRINT}, _CHANGE)
            for name, options in _CHANGES.items()
        },
        # The command after the pod (`kubectl exec POD -- CMD…`) runs in the pod.
        "exec": _kubectl({**_ATTACH, **valued("read", "-f", "--filename")}, _CODE, stop_at=1),
        "run": _kubectl(_RUN, _CODE, stop_at=1),
        "debug": _kubectl(_DEBUG, _CODE, stop_at=1),
        "attach": _kubectl(_ATTACH, _CODE),
        "port-forward": _kubectl(values("--address", "--pod-running-timeout"), _CODE),
        "proxy": _kubectl(_PROXY, _CODE),
        # `kubectl cp SRC DST`: one side is `POD:PATH`; kubectl runs `tar` in the pod.
        "cp": _kubectl(
            {**flags("--no-preserve"), **values("-c", "--container", "--retries")},
            _CODE,
            operands="read",
            last="write",
        ),
    },
    parser="pflag",
    source=SOURCE,
)
