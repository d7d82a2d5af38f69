"""Network programs: where they connect (`network`), what local data they send (`upload`),
and which files they read or write on the way.

`curl -d @file`, `-T file`, `-F x=@file` and `wget --post-file` upload a file; `@-` or `-T -`
uploads standard input. `scp`/`rsync` upload local sources to a `host:path` destination.
Name lookups (`dig`, `host`, `nslookup`) have their names as network destinations, so a
computed name (DNS exfiltration) is seen as such.
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Opt, Program

__all__ = ["NC_NAMES", "PROGRAMS"]

_V = Opt(takes=True)
_READ = Opt(takes=True, role="read")
_WRITE = Opt(takes=True, role="write")
_UPLOAD = Opt(takes=True, role="upload")
_NET = Opt(takes=True, role="network")

_CURL = Program(
    options={
        "-o": _WRITE, "--output": _WRITE, "--output-dir": _WRITE, "-D": _WRITE,
        "--dump-header": _WRITE, "-c": _WRITE, "--cookie-jar": _WRITE, "--trace": _WRITE,
        "--trace-ascii": _WRITE, "--stderr": _WRITE, "--libcurl": _WRITE,
        "--etag-save": _WRITE, "--hsts": _WRITE, "--alt-svc": _WRITE,
        "-K": _READ, "--config": _READ, "--cacert": _READ, "--capath": _READ, "-E": _READ,
        "--cert": _READ, "--key": _READ, "--netrc-file": _READ, "--etag-compare": _READ,
        "-b": _V, "--cookie": _V, "-w": _V, "--write-out": _V,
        "-d": _UPLOAD, "--data": _UPLOAD, "--data-binary": _UPLOAD, "--data-ascii": _UPLOAD,
        "--data-urlencode": _UPLOAD, "--json": _UPLOAD, "-F": _UPLOAD, "--form": _UPLOAD,
        "-T": _UPLOAD, "--upload-file": _UPLOAD, "--data-raw": _V, "--form-string": _V,
        "--url": _NET, "-x": _NET, "--proxy": _NET, "--connect-to": _V, "--resolve": _V,
        "-H": _V, "--header": _V, "-A": _V, "--user-agent": _V, "-e": _V, "--referer": _V,
        "-X": _V, "--request": _V, "-u": _V, "--user": _V, "-m": _V, "--max-time": _V,
        "--connect-timeout": _V, "--retry": _V, "-r": _V, "--range": _V, "-U": _V,
        "--proxy-user": _V, "-Y": _V, "-y": _V, "-z": _V, "--time-cond": _V, "-C": _V,
        "--continue-at": _V, "--limit-rate": _V, "--max-redirs": _V, "-Q": _V, "--quote": _V,
        "--retry-delay": _V, "--retry-max-time": _V, "--oauth2-bearer": _V,
    },
    operands="network",
)  # fmt: skip
_WGET = Program(
    options={
        "-O": _WRITE, "--output-document": _WRITE, "-o": _WRITE, "--output-file": _WRITE,
        "-a": _WRITE, "--append-output": _WRITE, "-P": _WRITE, "--directory-prefix": _WRITE,
        "--save-cookies": _WRITE, "--save-headers": Opt(), "-i": _READ, "--input-file": _READ,
        "--load-cookies": _READ, "--ca-certificate": _READ, "--certificate": _READ,
        "--private-key": _READ, "--config": _READ, "--post-file": _UPLOAD,
        "--body-file": _UPLOAD, "--post-data": _UPLOAD, "--body-data": _UPLOAD,
        "-e": _V, "--execute": _V, "-U": _V, "--user-agent": _V, "--header": _V, "-t": _V,
        "--tries": _V, "-T": _V, "--timeout": _V, "-w": _V, "--wait": _V, "-l": _V,
        "--level": _V, "-A": _V, "-R": _V, "--accept": _V, "--reject": _V, "-D": _V,
        "--domains": _V, "--user": _V, "--password": _V, "--method": _V, "-Q": _V,
        "--quota": _V, "--limit-rate": _V, "-B": _V, "--base": _V,
    },
    operands="network",
    implicit=(("write", "."),),
)  # fmt: skip
_SSH_OPTIONS = {
    "-i": _READ, "-F": _READ, "-E": _WRITE, "-S": _V, "-o": _V, "-p": _V, "-P": _V,
    "-l": _V, "-L": _V, "-R": _V, "-D": _V, "-W": _V, "-w": _V, "-J": _V, "-b": _V,
    "-B": _V, "-c": _V, "-m": _V, "-O": _V, "-Q": _V, "-e": _V, "-I": _V,
}  # fmt: skip
_SSH = Program(options=_SSH_OPTIONS, first="network", options_first=True, stop_at=1)
_SCP = Program(options=_SSH_OPTIONS, operands="read", last="write", remote_copy=True)
_RSYNC = Program(
    options={
        "-e": Opt(takes=True, role="exec"), "--rsh": Opt(takes=True, role="exec"),
        "--rsync-path": _V, "--files-from": _READ, "--include-from": _READ,
        "--exclude-from": _READ, "--password-file": _READ, "--log-file": _WRITE,
        "--backup-dir": _WRITE, "-T": _WRITE, "--temp-dir": _WRITE, "--partial-dir": _WRITE,
        "--compare-dest": _READ, "--copy-dest": _READ, "--link-dest": _READ,
        "--exclude": _V, "--include": _V, "--filter": _V, "-f": _V, "--chmod": _V,
        "--chown": _V, "--max-size": _V, "--min-size": _V, "--timeout": _V, "--port": _V,
        "--bwlimit": _V, "-B": _V, "--block-size": _V, "--suffix": _V, "--out-format": _V,
        "--delete": Opt(mode="delete"), "--delete-before": Opt(mode="delete"),
        "--delete-during": Opt(mode="delete"), "--delete-after": Opt(mode="delete"),
        "--delete-delay": Opt(mode="delete"), "--delete-excluded": Opt(mode="delete"),
        "--del": Opt(mode="delete"), "--remove-source-files": Opt(mode="move"),
    },
    operands="read",
    last="write",
    remote_copy=True,
    modes={
        "delete": Program(operands="read", last="delete", remote_copy=True),
        "move": Program(operands="delete", last="write", remote_copy=True),
    },
)  # fmt: skip
# `-e PROG`/`-c CMD` are reverse shells: deny rules (`nc -e`), not roles.
_NC = Program(
    options={
        "-e": _V, "-c": _V,
        "--exec": _V, "--sh-exec": _V,
        "--lua-exec": _V, "-p": _V, "-s": _V, "-w": _V,
        "-i": _V, "-q": _V, "-x": _V, "-X": _V, "-T": _V, "-O": _V, "-I": _V, "-W": _V,
        "-o": _WRITE, "--output": _WRITE, "--hex-dump": _WRITE, "--proxy": _NET,
    },
    first="network",
)  # fmt: skip
_LOOKUP = Program(
    options={"-t": _V, "-c": _V, "-p": _V, "-f": _READ, "-k": _READ, "-y": _V, "-q": _V},
    operands="network",
)

# Every packaged name of netcat: the program is the same and so are its dangerous options.
NC_NAMES = frozenset(
    {"nc", "netcat", "ncat", "nc.traditional", "nc.openbsd", "netcat-openbsd", "pnc"}
)

PROGRAMS: dict[str, Program] = {
    "curl": _CURL,
    "wget": _WGET,
    "ssh": _SSH,
    "scp": _SCP,
    "sftp": Program(options=_SSH_OPTIONS, first="network"),
    "rsync": _RSYNC,
    **dict.fromkeys(NC_NAMES, _NC),
    "socat": Program(operands="network"),
    "telnet": Program(first="network"),
    **dict.fromkeys(("dig", "host", "nslookup", "drill", "ping", "ping6"), _LOOKUP),
}
