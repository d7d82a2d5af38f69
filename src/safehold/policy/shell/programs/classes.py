"""Classes of fully visible commands auto mode never runs unasked.

- credential printers (`gh auth token`, `kubectl config view --raw`) ⇒ ASK;
- privilege and container escalation (`sudoedit`, `setcap`, `chmod u+s`, `docker run
  --privileged`, `--pid=host`) ⇒ DENY or ASK;
- system package installs and removals (`apt install`, `dnf remove`, `npm install -g`) ⇒ ASK;
- sending standard input over the network (`curl --data-binary @-`, `nc host 1 < f`) ⇒ ASK;
- user-wide tool configuration (`npm config set`, `pip config set`) ⇒ ASK;
- copies to or from cloud storage (`aws s3 sync . s3://b`, `rclone copy`) ⇒ ASK;
- publishing (`npm publish`, `twine upload`, `docker push`, `gh gist create`) ⇒ ASK;
- serving files over the network (`python3 -m http.server`, `php -S`) ⇒ ASK;
- starting, stopping or enabling system services (`systemctl stop sshd`) ⇒ ASK;
- `kill -1` (every process the user may signal) in any spelling ⇒ DENY;
- device nodes (`mknod NAME b 8 0`: as root, a raw disk in the workspace) ⇒ ASK.

Patterns are command-rule patterns (token prefixes, options in any order and spelling);
the rest are small tables read by `class_reasons`. Host mounts of `/`, home or a socket
are judged with the other `mount` roles in `assess`.
"""

from __future__ import annotations

import functools
import re

from safehold.policy.config import CommandRule
from safehold.policy.decision import Reason, Verdict
from safehold.policy.shell.programs import PROGRAMS
from safehold.policy.shell.programs.network import NC_NAMES
from safehold.policy.shell.programs.table import option_values
from safehold.policy.shell.rules import CompiledRules, compile_rules
from safehold.policy.shell.words import Word

__all__ = ["CLASSES", "class_reasons", "spellings"]

_PACKAGE_MANAGERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "apt",
        (
            "install",
            "remove",
            "purge",
            "upgrade",
            "full-upgrade",
            "dist-upgrade",
            "autoremove",
            "reinstall",
        ),
    ),
    (
        "apt-get",
        (
            "install",
            "remove",
            "purge",
            "upgrade",
            "dist-upgrade",
            "autoremove",
            "reinstall",
            "build-dep",
        ),
    ),
    ("aptitude", ("install", "remove", "purge", "upgrade", "full-upgrade")),
    ("dpkg", ("-i", "--install", "-r", "--remove", "-P", "--purge", "--unpack")),
    ("rpm", ("-i", "--install", "-U", "--upgrade", "-e", "--erase", "-F")),
    (
        "dnf",
        (
            "install",
            "remove",
            "erase",
            "upgrade",
            "update",
            "reinstall",
            "downgrade",
            "swap",
        ),
    ),
    (
        "yum",
        (
            "install",
            "remove",
            "erase",
            "upgrade",
            "update",
            "reinstall",
            "downgrade",
            "localinstall",
        ),
    ),
    ("microdnf", ("install", "remove", "upgrade", "update")),
    (
        "zypper",
        ("install", "in", "remove", "rm", "update", "up", "dist-upgrade", "dup"),
    ),
    ("pacman", ("-S", "-U", "-R", "--sync", "--upgrade", "--remove")),
    ("apk", ("add", "del", "upgrade")),
    ("snap", ("install", "remove", "refresh")),
    ("flatpak", ("install", "uninstall", "update")),
    ("brew", ("install", "uninstall", "upgrade", "reinstall")),
    ("port", ("install", "uninstall", "upgrade")),
    ("pkg", ("install", "delete", "upgrade")),
    ("emerge", ("",)),
    ("nix-env", ("-i", "--install", "-e", "--uninstall")),
    (
        "npm",
        (
            "install -g",
            "i -g",
            "install --global",
            "i --global",
            "uninstall -g",
            "update -g",
        ),
    ),
    ("pnpm", ("add -g", "add --global", "install -g")),
    ("yarn", ("global add",)),
    ("cargo", ("install",)),
    ("gem", ("install", "uninstall")),
    ("pip", ("install --break-system-packages",)),
    ("pip3", ("install --break-system-packages",)),
)

_CONFIG_TOOLS = ("npm", "pnpm", "yarn", "pip", "pip3", "gh", "conda", "poetry")
_CONFIG_VERBS = ("set", "delete", "edit", "rm", "unset", "--global set", "--user set")
_SERVICE_VERBS = (
    "start", "stop", "restart", "reload", "try-restart", "reload-or-restart", "kill",
    "enable", "disable", "mask", "unmask", "edit", "set-property", "daemon-reload",
    "isolate", "link", "revert", "preset",
)  # fmt: skip

# (verdict, reason code, why, patterns)
CLASSES: tuple[tuple[Verdict, str, str, tuple[str, ...]], ...] = (
    (
        Verdict.ASK,
        "credential-printer",
        "prints a credential or secret",
        (
            "gh auth token",
            "gh auth status --show-token",
            "gh auth status -t",
            "git credential fill",
            "git credential-store get",
            "git credential-cache get",
            "git credential-manager get",
            "kubectl config view --raw",
            "kubectl config view --flatten",
            "kubectl get secret",
            "kubectl get secrets",
            "kubectl describe secret",
            "kubectl describe secrets",
            "kubectl create token",
            "oc whoami --show-token",
            "oc whoami -t",
            "gpg --export-secret-keys",
            "gpg --export-secret-subkeys",
            "gpg2 --export-secret-keys",
            "gpg2 --export-secret-subkeys",
            "aws configure get",
            "aws configure export-credentials",
            "aws sts get-session-token",
            "aws sts assume-role",
            "aws ecr get-login-password",
            "aws secretsmanager get-secret-value",
            "aws ssm get-parameter --with-decryption",
            "aws ssm get-parameters --with-decryption",
            "gcloud auth print-access-token",
            "gcloud auth print-identity-token",
            "gcloud auth application-default print-access-token",
            "gcloud secrets versions access",
            "az account get-access-token",
            "az keyvault secret show",
            "vault read",
            "vault kv get",
            "vault token create",
            "vault print token",
            "op read",
            "op item get",
            "op document get",
            "pass show",
            "gopass show",
            "security find-generic-password",
            "security find-internet-password",
            "security dump-keychain",
            "secret-tool lookup",
            "keyring get",
            "heroku auth:token",
            "npm token list",
            "docker-credential-desktop get",
            "docker-credential-pass get",
            "docker-credential-secretservice get",
            "docker-credential-osxkeychain get",
            "doctl auth token",
        ),
    ),
    (
        Verdict.ASK,
        "privilege-escalation",
        "runs with other privileges or grants them",
        (
            "sudoedit",
            "sg",
            "newgrp",
            "setcap",
            "capsh",
            "setpriv",
            "nsenter",
            "chroot",
            "systemd-nspawn",
            "machinectl shell",
            "unshare",
            "su",
            "runuser",
        ),
    ),
    (
        Verdict.ASK,
        "system-package",
        "installs, removes or upgrades system packages",
        tuple(f"{pm} {verb}" for pm, verbs in _PACKAGE_MANAGERS for verb in verbs),
    ),
    (
        # The file these write is the user's (`~/.npmrc`, `~/.config/pip/pip.conf`), named
        # by no argument, and it changes what later commands run (`script-shell`, an index
        # URL, a hooks path): a persistent change outside the workspace.
        Verdict.ASK,
        "user-config",
        "changes a tool's user-wide configuration, outside the workspace",
        (
            *(f"{tool} config {verb}" for tool in _CONFIG_TOOLS for verb in _CONFIG_VERBS),
            "npm set",
            "go env -w",  # the user's Go environment file: `GOFLAGS=-toolexec=…` for later
            "go env -u",
        ),
    ),
    (
        # Local files leave the machine: a whole tree at once (`aws s3 sync . s3://b`), keys
        # and `.env` included, to a place the analysis cannot judge. Downloads with the same
        # verbs ask too: the pattern cannot tell the direction, and a person can.
        Verdict.ASK,
        "cloud-copy",
        "copies files between this machine and cloud storage or another host",
        (
            *(f"aws s3 {verb}" for verb in ("cp", "sync", "mv")),
            "aws s3api put-object",
            "aws s3api upload-part",
            *(f"gsutil {verb}" for verb in ("cp", "rsync", "mv")),
            *(f"gsutil -m {verb}" for verb in ("cp", "rsync", "mv")),
            *(f"gcloud storage {verb}" for verb in ("cp", "rsync", "mv")),
            *(f"az storage blob {verb}" for verb in ("upload", "upload-batch", "sync")),
            *(f"az storage file {verb}" for verb in ("upload", "upload-batch")),
            "azcopy copy",
            "azcopy sync",
            *(f"rclone {verb}" for verb in ("copy", "sync", "move", "copyto", "moveto")),
            "rclone bisync",
            "rclone rcat",
            "s3cmd put",
            "s3cmd sync",
            "b2 upload-file",
            "b2 sync",
            "wormhole send",
            "croc send",
            "restic backup",
            "borg create",
        ),
    ),
    (
        Verdict.ASK,
        "publish",
        "publishes local files to a registry or a public place",
        (
            *(f"{tool} publish" for tool in ("npm", "pnpm", "yarn", "cargo", "poetry")),
            *(f"{tool} publish" for tool in ("flit", "hatch", "uv", "dotnet nuget")),
            "twine upload",
            "gem push",
            "docker push",
            "podman push",
            "gh release upload",
            "gh release create",
            "gh gist create",
        ),
    ),
    (
        # The registry account's other changes, made with the user's token as `publish` is
        # (npm-owner(1), npm-access(1), npm-dist-tag(1), npm-deprecate(1),
        # npm-unpublish(1), npm-token(1), npm-team(1), npm-org(1), npm-hook(1) of npm 10;
        # pnpm hands these commands to npm; cargo-owner(1), cargo-yank(1)): who owns or
        # may publish a package, which version installs by default, tokens; the account's
        # profile and its two-factor setting (npm-profile(1)), its stars (npm-star(1)).
        Verdict.ASK,
        "registry-change",
        "changes a package registry's owners, access, tags, versions or tokens with the "
        "user's credentials",
        (
            *(
                f"{tool} {verb}"
                for tool in ("npm", "pnpm")
                for verb in (
                    "owner add",
                    "owner rm",
                    "author add",
                    "author rm",
                    "access grant",
                    "access revoke",
                    "access set",
                    "dist-tag add",
                    "dist-tag rm",
                    "dist-tags add",
                    "dist-tags rm",
                    "deprecate",
                    "unpublish",
                    "token create",
                    "token revoke",
                    "team create",
                    "team destroy",
                    "team add",
                    "team rm",
                    "org set",
                    "org rm",
                    "hook add",
                    "hook update",
                    "hook rm",
                    "profile set",
                    "profile enable-2fa",
                    "profile disable-2fa",
                    "star",
                    "unstar",
                )
            ),
            *(f"yarn {verb}" for verb in ("owner add", "owner remove", "tag add", "tag remove")),
            *(f"yarn npm tag {verb}" for verb in ("add", "remove")),
            "cargo owner --add",
            "cargo owner -a",
            "cargo owner --remove",
            "cargo owner -r",
            "cargo yank",
        ),
    ),
    (
        # `gh api` with a method or fields (which make it a POST) acts with the user's
        # token: add an SSH or deploy key, delete a repository, change its visibility.
        Verdict.ASK,
        "api-change",
        "changes GitHub through its API with the user's token",
        tuple(
            f"gh api {opt}"
            for opt in ("-X", "--method", "-f", "--raw-field", "-F", "--field", "--input")
        ),
    ),
    (
        # Serving a directory hands every file in it (`.env` too) to whoever connects.
        Verdict.ASK,
        "serves-files",
        "serves local files over the network",
        (
            "python -m http.server",
            "python3 -m http.server",
            "python -m SimpleHTTPServer",
            "php -S",
            "busybox httpd",
            "npx http-server",
            "npx serve",
        ),
    ),
    (
        Verdict.ASK,
        "system-service",
        "starts, stops or reconfigures a system service",
        (
            *(f"systemctl {verb}" for verb in _SERVICE_VERBS),
            *("service", "launchctl", "rc-service", "update-rc.d", "chkconfig", "crontab"),
        ),
    ),
)


@functools.cache
def _compiled() -> tuple[CompiledRules, dict[tuple[str, str], str]]:
    """All class patterns as one rule set (one lookup per command), and each rule's code."""
    rules: list[CommandRule] = []
    codes: dict[tuple[str, str], str] = {}
    for verdict, code, why, patterns in CLASSES:
        for p in patterns:
            rules.append(CommandRule(pattern=p.strip(), decision=verdict, reason=why))
            codes[(p.strip(), why)] = code
    return compile_rules(tuple(rules)), codes


# Program aliases: every packaged name of a program is matched as the program itself.
_ALIASES = {**dict.fromkeys(NC_NAMES - {"ncat"}, "nc"), "gpg2": "gpg"}
# Programs whose own keywords are case-insensitive (socat's address types).
_CASELESS = frozenset({"socat"})
_GLUED = re.compile(r"-([A-Za-z]+)([^A-Za-z].*)", re.S)


def spellings(words: tuple[Word, ...]) -> tuple[Word, ...] | None:
    """`words` respelled the way rules are written, or None when nothing changes.

    `nc.traditional` is `nc`; `-e/bin/sh` is `-e /bin/sh`; `-0001` is `-1`; socat's
    `Exec:` is `exec:`. Rules are written for one spelling; each layer is also matched
    in this one.
    """
    if not words or not words[0].static:
        return None
    if type(words) is tuple and all(type(w) is Word for w in words):
        return _spellings_memo(words)  # pure: remembered
    return _spellings(words)


@functools.lru_cache(maxsize=2048)
def _spellings_memo(words: tuple[Word, ...]) -> tuple[Word, ...] | None:
    return _spellings(words)


def _spellings(words: tuple[Word, ...]) -> tuple[Word, ...] | None:
    name = words[0].text.rsplit("/", 1)[-1]
    canonical = _ALIASES.get(name, name)
    out = [Word(canonical, True) if canonical != name else words[0]]
    for w in words[1:]:
        t = w.text
        if not w.static:
            out.append(w)
            continue
        if canonical in _CASELESS:
            t = t.lower()
        sign, digits = (t[:1], t[1:]) if t[:1] in "+-" else ("", t)
        if len(digits) > 1 and digits.isdigit() and digits.startswith("0"):
            out.append(Word(sign + (digits.lstrip("0") or "0"), True))
            continue
        glued = _GLUED.fullmatch(t) if not t.startswith("--") else None
        if glued is not None:
            out.append(Word("-" + glued.group(1), True))
            out.append(Word(glued.group(2), True))
            continue
        out.append(Word(t, True) if t != w.text else w)
    respelled = tuple(out)
    return respelled if respelled != words else None


_CONTAINER_PROGRAMS = frozenset({"docker", "podman", "nerdctl"})
_CONTAINER_SUBCOMMANDS = frozenset({"run", "create", "exec"})
# Container options that hand the container the host: option -> (value or "" for any,
# verdict). `--pid=host` shares the host's processes; `--privileged` its devices.
_CONTAINER_FLAGS: dict[str, tuple[tuple[str, Verdict], ...]] = {
    "--privileged": (("", Verdict.DENY),),
    # Docker 28: bind-mounts the daemon's API socket (and the user's registry credentials)
    # into the container: the daemon is root on the host.
    "--use-api-socket": (("", Verdict.DENY),),
    # A device-cgroup rule lets the container open host devices it creates (`c *:* rwm`).
    "--device-cgroup-rule": (("", Verdict.ASK),),
    "--pid": (("host", Verdict.DENY),),
    "--userns": (("host", Verdict.DENY),),
    "--cgroupns": (("host", Verdict.ASK),),
    "--ipc": (("host", Verdict.ASK),),
    "--uts": (("host", Verdict.ASK),),
    "--network": (("host", Verdict.ASK),),
    "--net": (("host", Verdict.ASK),),
    "--cap-add": (("all", Verdict.DENY), ("sys_admin", Verdict.DENY),
                  ("sys_ptrace", Verdict.DENY), ("sys_module", Verdict.DENY),
                  ("dac_read_search", Verdict.DENY), ("", Verdict.ASK)),
    "--security-opt": (("unconfined", Verdict.DENY), ("", Verdict.ASK)),
    "--device": (("", Verdict.ASK),),
}  # fmt: skip
_CONTAINER_SWITCHES = frozenset({"--privileged", "--use-api-socket"})  # flags: no value
_SETID_NUMERIC = re.compile(r"0*[2-7][0-7]{3}")


def _container_flags(words: tuple[Word, ...]) -> list[tuple[Verdict, Reason]]:
    if words[0].text.rsplit("/", 1)[-1] not in _CONTAINER_PROGRAMS:
        return []
    # Anywhere: global options may come first (`docker -D --log-level x container run`).
    if not any(w.text in _CONTAINER_SUBCOMMANDS for w in words[1:]):
        return []
    out: list[tuple[Verdict, Reason]] = []
    for i, w in enumerate(words):
        name, eq, value = w.text.partition("=")
        rules = _CONTAINER_FLAGS.get(name)
        if rules is None:
            continue
        if not eq and name not in _CONTAINER_SWITCHES:
            value = words[i + 1].text if i + 1 < len(words) else ""
        for want, verdict in rules:
            if want in value.lower().replace("-", "_").replace("cap_", ""):
                shown = f"{name}={value}" if value else name
                out.append(
                    (
                        verdict,
                        Reason(
                            "container-escape",
                            f"{words[0].text} {shown}",
                            f"`{shown}` gives the container the host's "
                            f"{value or 'devices and privileges'}",
                        ),
                    )
                )
                break
    return out


_CLUSTER_PROGRAMS = frozenset({"kubectl", "oc"})
# Subcommands that print (or open in an editor) the objects their operands name: a
# computed operand may name Secrets (`-o yaml` of `get`, `wait`, `patch`, `apply`, …).
_CLUSTER_SHOWS = frozenset(
    {"get", "describe", "edit", "wait", "patch", "apply", "create", "replace", "label"}
    | {"annotate", "scale", "set", "events"}
)


def _cluster_secrets(words: tuple[Word, ...]) -> list[tuple[Verdict, Reason]]:
    """`kubectl get secret/db -o yaml`, `wait --for=… secret/db -o yaml`, `get "$KIND"`.

    Any word that spells `secret` in any case (a resource list, `TYPE/NAME`, `secrets.v1.`,
    `create secret --from-file=…`, or a name or label that only looks like one: asking then
    costs a question), and any computed word after a subcommand that prints objects, may
    name Secret objects.
    """
    if words[0].text.rsplit("/", 1)[-1] not in _CLUSTER_PROGRAMS:
        return []
    at = next((i for i, w in enumerate(words) if w.static and w.text in _CLUSTER_SHOWS), 0)
    for i, w in enumerate(words[1:], 1):
        if (w.static and "secret" in w.text.lower()) or (at and i > at and not w.static):
            shown = " ".join(x.text for x in words[: max(at, 1) + 1])
            return [
                (
                    Verdict.ASK,
                    Reason(
                        "credential-printer",
                        f"{shown} secret",
                        f"`{shown} … {w.text[:40]}` may name Secret objects: the passwords, "
                        "tokens and keys they hold",
                    ),
                )
            ]
    return []


def _kills_everything(words: tuple[Word, ...]) -> bool:
    """`kill -9 -1`, `kill -KILL -0001`, `kill -s 9 -- -1`: a pid of -1 signals every process."""
    if words[0].text.rsplit("/", 1)[-1] != "kill":
        return False
    i = 1
    signal_seen = False
    while i < len(words):
        t = words[i].text
        if t == "--":
            i += 1
            break
        if t in ("-s", "-n", "--signal"):
            signal_seen = True
            i += 2
            continue
        if t.startswith("-") and not signal_seen and t not in ("-l", "-L", "--list"):
            signal_seen = True  # the first `-X` is the signal (`kill -1 PID` sends HUP)
            i += 1
            continue
        break
    for w in words[i:]:
        t = w.text.strip()
        sign, digits = (t[0], t[1:]) if t[:1] in "+-" else ("", t)
        if sign == "-" and digits.isdigit() and int(digits) == 1:
            return True
    return False


# Options whose value is a file mode, as chmod's first operand is: coreutils install(1)
# `-m MODE`/`--mode=MODE`, rsync(1) `--chmod=CHMOD` (clauses, each may start with `D` or `F`
# for directories or files only). Read with the program's table (`-Dm4755`, `--mod=…`).
_MODE_OPTIONS: dict[str, frozenset[str]] = {
    "install": frozenset({"-m", "--mode"}),
    "rsync": frozenset({"--chmod"}),
}


def _mode_words(words: tuple[Word, ...]) -> list[str]:
    """The words that are file modes: every word of chmod, the `_MODE_OPTIONS` values."""
    name = words[0].text.rsplit("/", 1)[-1]
    if name == "chmod":
        return [w.text for w in words[1:]]
    options = _MODE_OPTIONS.get(name)
    table = PROGRAMS.get(name)
    if options is None or table is None:
        return []
    return [w.text for _, w in option_values(table, words, options)]


def _setid_mode(words: tuple[Word, ...]) -> bool:
    """`chmod u+s`, `chmod g=rxs`, `chmod 4755`, `install -m 4755`, `rsync --chmod=Fu+s`: a
    set-user/group-id bit."""
    for t in _mode_words(words):
        if _SETID_NUMERIC.fullmatch(t) and int(t, 8) & 0o6000:
            return True
        for clause in t.split(","):
            if words[0].text.rsplit("/", 1)[-1] == "rsync":
                clause = clause.removeprefix("D").removeprefix("F")
                if _SETID_NUMERIC.fullmatch(clause) and int(clause, 8) & 0o6000:
                    return True
            op = next((c for c in clause if c in "+="), "")
            after = clause.partition(op)[2] if op else ""
            if op and "s" in after:
                return True
            # An operator and octal digits (GNU chmod(1): `=4755`, `+2000`, `u=4755`).
            digits = after.lstrip("+-=")
            if op and _SETID_NUMERIC.fullmatch(digits) and int(digits, 8) & 0o6000:
                return True
    return False


def _device_node(words: tuple[Word, ...]) -> bool:
    """`mknod NAME b|c|u MAJOR MINOR` (coreutils): a block or character device node. Made by
    root, it is a file of the workspace that reads or writes a disk or memory directly,
    beneath every path rule. A FIFO (`p`) is not one; a computed type may be one."""
    if words[0].text.rsplit("/", 1)[-1] != "mknod":
        return False
    return any(not w.static or w.text in ("b", "c", "u") for w in words[1:])


def class_reasons(words: tuple[Word, ...], *, stdin_fed: bool) -> list[tuple[Verdict, Reason]]:
    """The classes one command (or wrapper layer) falls in, with their verdicts."""
    if not words or not words[0].static:
        return []
    if type(words) is tuple and all(type(w) is Word for w in words):
        return list(_class_reasons_memo(words, bool(stdin_fed)))  # pure: remembered
    return _class_reasons(words, stdin_fed=stdin_fed)


@functools.lru_cache(maxsize=2048)
def _class_reasons_memo(
    words: tuple[Word, ...], stdin_fed: bool
) -> tuple[tuple[Verdict, Reason], ...]:
    return tuple(_class_reasons(words, stdin_fed=stdin_fed))


def _class_reasons(words: tuple[Word, ...], *, stdin_fed: bool) -> list[tuple[Verdict, Reason]]:
    out: list[tuple[Verdict, Reason]] = []
    layers = [words]
    respelled = spellings(words)
    if respelled is not None:
        layers.append(respelled)
    rules, codes = _compiled()
    for layer in layers:
        for m in rules.strict_matches(layer):
            if not m.certain:
                continue
            code = codes[(m.rule.pattern, m.rule.reason or "")]
            text = " ".join(w.text for w in layer)[:80]
            reason = Reason(code, m.rule.pattern, f"`{text}` {m.rule.reason}")
            out.append((m.rule.decision, reason))
    out.extend(_container_flags(words))
    out.extend(_cluster_secrets(words))
    if _kills_everything(words):
        out.append(
            (
                Verdict.DENY,
                Reason(
                    "kill-all", "kill -1", "a pid of -1 signals every process the user can reach"
                ),
            )
        )
    if _setid_mode(words):
        out.append(
            (
                Verdict.ASK,
                Reason(
                    "privilege-escalation",
                    f"{words[0].text.rsplit('/', 1)[-1]} +s",
                    "sets a set-user-id or set-group-id bit",
                ),
            )
        )
    if _device_node(words):
        out.append(
            (
                Verdict.ASK,
                Reason(
                    "privilege-escalation",
                    "mknod",
                    "creates a device node, which as root reads or writes a disk or memory "
                    "directly",
                ),
            )
        )
    name = words[0].text.rsplit("/", 1)[-1]
    # sftp reads its commands (`put FILE`, `!CMD`) from standard input as from `-b -`.
    if stdin_fed and (name in NC_NAMES or name in ("socat", "ssh", "sftp", "telnet")):
        out.append(
            (
                Verdict.ASK,
                Reason(
                    "upload",
                    name,
                    f"`{name}` sends its standard input (a file or another command's output) "
                    "over the network",
                ),
            )
        )
    return out
