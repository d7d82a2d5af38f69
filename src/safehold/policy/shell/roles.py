"""Judge each role a command gives a word against the list that governs that role.

- `read`: denied paths (checked for every path-like word by `assess`);
- `write`, `delete`, `perm`, `mount`: `judge_change` — denied ⇒ DENY, protected ⇒ ASK,
  outside the allowed roots ⇒ ASK (DENY for a recursive delete, and for deleting,
  re-permissioning or mounting the home directory, `/` or one of their ancestors);
- `upload`: local data leaving the machine ⇒ ASK (the file itself is checked as a read);
- `send`: a URL or `host:path` that receives local data ⇒ ASK; a local path is a write;
- `network`: the URL policy (`safehold.policy.urls`); a computed destination ⇒ ASK.

A word whose value is computed at run time is an unknown path, not no path: with
`sandbox.mode = "none"` nothing confines it, so it asks.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING

from safehold.policy.decision import Reason, Verdict
from safehold.policy.shell.programs.network import INLINE_UPLOADS, MAX_GLOB_URLS, destinations
from safehold.policy.shell.programs.table import Role, RoleUse
from safehold.policy.shell.sandboxed import private_scratch
from safehold.policy.urls import check_url

if TYPE_CHECKING:
    from safehold.policy.config import SafetyConfig
    from safehold.policy.paths import CompiledPolicy

__all__ = ["Finding", "judge_change", "judge_use", "upload_source"]

# Mounting these into a container hands it the host (its processes, devices, the daemon).
_HOST_MOUNTS = ("/proc", "/sys", "/dev", "/run", "/var/run", "/boot", "/etc")
_DESTRUCTIVE_MODES = frozenset({"recursive", "delete"})
_VERB = {
    "write": "writes",
    "delete": "deletes",
    "perm": "changes permissions or ownership of",
    "mount": "gives a container",
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One objection: its verdict, the reason, and whether an "always" answer may lift it."""

    verdict: Verdict
    reason: Reason
    grantable: bool = True


def _wholesale(path: str, policy: CompiledPolicy) -> bool:
    """`/`, the home directory, or a directory holding the home or the workspace."""
    if path == "/":
        return True
    home = posixpath.normpath(policy.home)
    workspace = posixpath.normpath(policy.workspace)
    above = path.rstrip("/") + "/"
    return home == path or home.startswith(above) or workspace.startswith(above)


def judge_change(
    path: str,
    role: Role,
    *,
    program: str,
    modes: frozenset[str],
    policy: CompiledPolicy,
    config: SafetyConfig,
    spelled: str = "",
) -> list[Finding]:
    """The one place a write, delete, permission change or mount of `path` is judged.

    `path` is absolute; `spelled` is the word as the command wrote it. A write or delete in
    the sandbox's private `/tmp` (an absolute `/tmp/…` spelling, sandboxed) is not outside
    the roots: nothing there outlives the command.
    """
    scratch = role != "mount" and private_scratch(spelled, config, policy.home)
    verb = _VERB.get(role, "changes")
    if role == "mount" and (
        _wholesale(path, policy)
        or path.endswith(".sock")
        or any(path == m or path.startswith(m + "/") for m in _HOST_MOUNTS)
    ):
        return [
            Finding(
                Verdict.DENY,
                Reason(
                    "container-escape",
                    f"{program} mount",
                    f"`{program}` gives a container the host path `{path}`",
                ),
                False,
            )
        ]
    check = policy.check_path(path, "write")
    out: list[Finding] = []
    outside = False
    for reason in check.reasons:
        if reason.code == "path-outside-allowed":
            outside = True
        elif reason.code == "path-protected":
            message = f"`{program}` {verb} `{path}`: {reason.message}"
            out.append(Finding(Verdict.ASK, Reason(reason.code, reason.rule, message), False))
        else:
            message = f"`{program}` {verb} `{path}`: {reason.message}"
            out.append(Finding(Verdict.DENY, Reason(reason.code, reason.rule, message), False))
    if outside and not scratch:
        wholesale = role in ("delete", "perm", "mount") and _wholesale(path, policy)
        if wholesale or (role == "delete" and modes & _DESTRUCTIVE_MODES):
            what = "the home directory, `/` or a directory above them" if wholesale else "it"
            out.append(
                Finding(
                    Verdict.DENY,
                    Reason(
                        "destroys-outside",
                        f"{program} {role}",
                        f"`{program}` {verb} `{path}` outside the allowed paths; that "
                        f"destroys {what}",
                    ),
                    False,
                )
            )
        else:
            out.append(
                Finding(
                    Verdict.ASK,
                    Reason(
                        "changes-outside",
                        f"{program} {role}",
                        f"`{program}` {verb} `{path}`, outside the allowed paths",
                    ),
                    False,
                )
            )
    return out


def upload_source(use: RoleUse) -> str | None:
    """The local file an upload reads (`@file`, `x=@file`, `x=<file`), `-` for stdin.

    None when the value is inline data (`-d 'a=1'`), which is what the agent wrote.
    """
    text = use.word.text
    if use.option in INLINE_UPLOADS:
        return None  # sent as spelled: no file is read
    files = ("-T", "--upload-file", "--post-file", "--body-file", "--input", "--recover", "")
    if use.option in files:
        return text  # these name a file; `-` / `.` is standard input
    if use.option in ("-F", "--form", "--field"):  # curl's form, gh's typed field
        _, eq, value = text.partition("=")
        text = value if eq else text
        if text.startswith(("@", "<")):
            return text[1:].split(";", 1)[0]
        return None
    if use.option == "--data-urlencode":
        name, at, file = text.partition("@")
        return file if at and "=" not in name else None
    if text.startswith("@"):
        return text[1:]
    return None


def _network(use: RoleUse, program: str, config: SafetyConfig) -> list[Finding]:
    text = use.word.text
    if not use.word.static and not use.word.home:
        return [
            Finding(
                Verdict.ASK,
                Reason(
                    "computed-destination",
                    f"{program} {text[:40]}",
                    f"`{program}` connects to `{text}`, computed at run time: a name can "
                    "carry data out (DNS or URL exfiltration)",
                ),
                False,
            )
        ]
    if not text or text == "-" or text.isdigit() or text.startswith("-"):
        return []
    targets = destinations(program, use.option, text, True)
    if targets is None:
        return [
            Finding(
                Verdict.ASK,
                Reason(
                    "url-glob-too-large",
                    f"{program} {text[:40]}",
                    f"`{program}` expands `{text}` to more than {MAX_GLOB_URLS} URLs, "
                    "more than are checked",
                ),
                False,
            )
        ]
    out: list[Finding] = []
    for target in targets:
        check = check_url(target, config.network)
        if check.verdict is not Verdict.ALLOW:
            out += [
                Finding(check.verdict, r, check.verdict is not Verdict.DENY) for r in check.reasons
            ]
    return out


def judge_use(use: RoleUse, program: str, stdin_fed: bool, config: SafetyConfig) -> list[Finding]:
    """Findings for the roles that do not name a local file to change: uploads, network."""
    role = use.role
    if role == "network":
        return _network(use, program, config)
    if role == "remote":
        # git-fetch(1) "<repository>": a remote's name or a URL. A name is never a host
        # (`origin` is not looked up in DNS): git uses the remote's configured URL.
        text = use.word.text
        if use.word.static and text and not any(ch in text for ch in ":/@"):
            return []
        return _network(use, program, config)
    if role == "send":
        text = use.word.text
        if not use.word.static or ":" in text or "//" in text or "@" in text:
            return [
                Finding(
                    Verdict.ASK,
                    Reason(
                        "upload",
                        f"{program} {text[:40]}",
                        f"`{program}` sends local data to `{text}`",
                    ),
                    False,
                ),
                *(_network(use, program, config) if "//" in text else []),
            ]
        return []
    if role == "upload":
        source = upload_source(use)
        if source is None and use.word.static:
            return []  # inline data the command spells out
        what = "its standard input" if source in ("-", ".") else f"`{source or use.word.text}`"
        return [
            Finding(
                Verdict.ASK,
                Reason(
                    "upload",
                    f"{program} {use.option or 'upload'}",
                    f"`{program}` sends {what} over the network"
                    + (" (fed by another command)" if stdin_fed and source in ("-", ".") else ""),
                ),
                False,
            )
        ]
    return []
