"""Package managers: the files and directories they are pointed at.

Whether an install is a *system* install (apt, dnf, …) is a class in `classes`; here is
where project-level installs read requirement files and write their targets.
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Opt, Program

__all__ = ["PROGRAMS"]

_V = Opt(takes=True)
_READ = Opt(takes=True, role="read")
_WRITE = Opt(takes=True, role="write")
_NET = Opt(takes=True, role="network")  # an index or registry URL (pip(1), npm-config(7))

_PIP_INSTALL = Program(
    options={"-r": _READ, "--requirement": _READ, "-c": _READ, "--constraint": _READ,
             "-t": _WRITE, "--target": _WRITE, "--prefix": _WRITE, "--root": _WRITE,
             "--src": _WRITE, "--log": _WRITE, "-e": _V, "--editable": _V, "-i": _NET,
             "--index-url": _NET, "--extra-index-url": _NET, "-f": _NET, "--find-links": _NET,
             "--proxy": _NET},
)  # fmt: skip
_PIP = Program(
    options={"--log": _WRITE, "--cache-dir": _WRITE, "--python": _V, "--proxy": _NET,
             "-i": _NET, "--index-url": _NET, "--extra-index-url": _NET, "-f": _NET,
             "--find-links": _NET},
    subcommands={
        "install": _PIP_INSTALL,
        "download": Program(options={"-d": _WRITE, "--dest": _WRITE, "-r": _READ}),
        "wheel": Program(options={"-w": _WRITE, "--wheel-dir": _WRITE, "-r": _READ}),
    },
)  # fmt: skip
_NPM = Program(
    options={"--prefix": _WRITE, "-C": _WRITE, "--cache": _WRITE, "--userconfig": _READ,
             "--globalconfig": _READ, "--registry": _NET, "--proxy": _NET,
             "--https-proxy": _NET},
)  # fmt: skip
_CARGO = Program(
    options={"--root": _WRITE, "--target-dir": _WRITE, "--manifest-path": _READ,
             "--config": _V, "-Z": _V, "-p": _V, "--package": _V, "--bin": _V,
             "--features": _V, "-F": _V, "-j": _V, "--jobs": _V, "--target": _V},
)  # fmt: skip

PROGRAMS: dict[str, Program] = {
    "pip": _PIP,
    "pip3": _PIP,
    "npm": _NPM,
    "pnpm": _NPM,
    "cargo": _CARGO,
}
