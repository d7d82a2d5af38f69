"""Network programs: where they connect (`network`), what local data they send (`upload`),
and which files they read or write on the way.

`curl -d @file`, `-T file`, `-F x=@file` and `wget --post-file` upload a file; `@-` or `-T -`
uploads standard input. `scp`/`rsync` upload local sources to a `host:path` destination.
Name lookups (`dig`, `host`, `nslookup`) have their names as network destinations, so a
computed name (DNS exfiltration) is seen as such.
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import OPTIONS_FILE, Opt, Program
from safehold.policy.shell.programs.vocab import NAMES

__all__ = ["MAX_GLOB_URLS", "NC_NAMES", "PROGRAMS", "URL_VARIABLES", "destinations"]

_V = Opt(takes=True)
_READ = Opt(takes=True, role="read")
_WRITE = Opt(takes=True, role="write")
_UPLOAD = Opt(takes=True, role="upload")
_NET = Opt(takes=True, role="network")
# curl's `-K FILE` ("config file"), wget's `--config FILE` (a wgetrc) and `-e CMD` (one
# wgetrc command): `output = ~/.bashrc`, `upload-file = …`, `use_askpass = PROG`.
_OPTIONS_FILE = Opt(takes=True, role="read", mode=OPTIONS_FILE)
_WGETRC_COMMAND = Opt(takes=True, role="network", mode=OPTIONS_FILE)

_CURL = Program(
    options={
        "-o": _WRITE, "--output": _WRITE, "--output-dir": _WRITE, "-D": _WRITE,
        "--dump-header": _WRITE, "-c": _WRITE, "--cookie-jar": _WRITE, "--trace": _WRITE,
        "--trace-ascii": _WRITE, "--stderr": _WRITE, "--libcurl": _WRITE,
        "--etag-save": _WRITE, "--hsts": _WRITE, "--alt-svc": _WRITE,
        "-K": _OPTIONS_FILE, "--config": _OPTIONS_FILE, "--cacert": _READ, "--capath": _READ, "-E": _READ,
        "--cert": _READ, "--key": _READ, "--netrc-file": _READ, "--etag-compare": _READ,
        "-b": _V, "--cookie": _V, "-w": _V, "--write-out": _V,
        "-d": _UPLOAD, "--data": _UPLOAD, "--data-binary": _UPLOAD, "--data-ascii": _UPLOAD,
        "--data-urlencode": _UPLOAD, "--json": _UPLOAD, "-F": _UPLOAD, "--form": _UPLOAD,
        "-T": _UPLOAD, "--upload-file": _UPLOAD, "--data-raw": _V, "--form-string": _V,
        "--url": _NET, "-x": _NET, "--proxy": _NET, "--connect-to": _NET, "--resolve": _NET,
        "--preproxy": _NET, "--socks4": _NET, "--socks4a": _NET, "--socks5": _NET,
        "--socks5-hostname": _NET, "--proxy1.0": _NET, "--doh-url": _NET,
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
        "--private-key": _READ, "--config": _OPTIONS_FILE, "--post-file": _UPLOAD,
        "--body-file": _UPLOAD, "--post-data": _UPLOAD, "--body-data": _UPLOAD,
        "-e": _WGETRC_COMMAND, "--execute": _WGETRC_COMMAND, "-U": _V, "--user-agent": _V, "--header": _V, "-t": _V,
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
        "--rsync-path": _V, "--files-from": NAMES, "--include-from": _READ,
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


# Environment variables whose value is a destination every network program (or pip, npm)
# connects to: curl(1) "ENVIRONMENT", wget(1) "Proxies", pip's and npm's config variables.
URL_VARIABLES = frozenset(
    {
        "http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "ALL_PROXY", "HTTP_PROXY",
        "HTTPS_PROXY", "FTP_PROXY", "RSYNC_PROXY", "npm_config_proxy", "npm_config_https_proxy",
        "npm_config_registry", "NPM_CONFIG_REGISTRY", "NPM_CONFIG_PROXY", "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_PROXY", "UV_INDEX_URL",
        "UV_EXTRA_INDEX_URL", "GOPROXY",
    }
)  # fmt: skip

MAX_GLOB_URLS = 64
"""URLs one curl glob may stand for; past it the destination asks (`url-glob-too-large`)."""
# wget `-e` settings that name a destination (wget(1), "Wgetrc Commands").
# pip's `--find-links` takes a URL or a local directory (pip(1)).
_PATH_OR_URL = frozenset({"-f", "--find-links"})
_WGET_URL_SETTINGS = ("http_proxy", "https_proxy", "ftp_proxy", "base")


def destinations(program: str, option: str, text: str, globbing: bool) -> list[str] | None:
    """The hosts or URLs a network word names, for the URL policy; None: too many to check.

    - curl `--resolve HOST:PORT:ADDR[,ADDR…]` and `--connect-to HOST:PORT:HOST2:PORT2`:
      both the name and where it is sent (addresses in `[…]` for IPv6);
    - wget `-e http_proxy=URL` (other `-e` settings name none);
    - curl's URL globs (`{a,b}`, `[1-3]`, `[a-c]`), unless `-g`/`--globoff`: every URL
      they stand for (the text as written too, for an IPv6 `[…]` literal);
    - gh: a URL (`gh api https://…`), the HOST of `-R HOST/OWNER/REPO`; an API path or
      `OWNER/REPO` names none.
    """
    if option in _PATH_OR_URL and "://" not in text:
        return []  # a local directory of packages: checked as a path
    if option in ("--resolve", "--connect-to"):
        return _address_list(text.lstrip("+-"))
    if program == "wget" and option in ("-e", "--execute"):
        name, eq, value = text.partition("=")
        return [value.strip()] if eq and name.strip().lower() in _WGET_URL_SETTINGS else []
    if program == "gh" and "://" not in text:
        # `gh api PATH` names a path of the GitHub API on the repository's host, and `-R
        # [HOST/]OWNER/REPO` a repository: only a URL or a HOST is a destination.
        parts = text.split("/")
        return [f"https://{parts[0]}/"] if option in ("-R", "--repo") and len(parts) > 2 else []
    if program == "curl" and globbing and option in ("", "--url") and any(c in text for c in "{["):
        return _expand_glob(text)
    return [text]


def _address_list(text: str) -> list[str]:
    out: list[str] = []
    field = ""
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(depth - 1, 0)
        if ch in ":," and depth == 0:
            out.append(field)
            field = ""
        else:
            field += ch
    out.append(field)
    hosts = [f.strip("[]") for f in out if f and not f.isdigit() and f != "*"]
    return [f"http://[{h}]/" if ":" in h else f"http://{h}/" for h in hosts]


def _expand_glob(text: str) -> list[str] | None:
    """curl's URL globbing (curl(1) "URL"): sets `{a,b}` and ranges `[1-9]`, `[a-z:2]`."""
    parts: list[list[str]] = []
    # The next `}` and `]` after each position, found in one pass from the end: a search
    # per opening bracket would be quadratic in a run of them.
    after: dict[str, list[int]] = {"}": [-1] * (len(text) + 1), "]": [-1] * (len(text) + 1)}
    for bracket, table in after.items():
        for k in range(len(text) - 1, -1, -1):
            table[k] = k if text[k] == bracket else table[k + 1]
    i = 0
    literal = ""
    while i < len(text):
        ch = text[i]
        close = {"{": "}", "[": "]"}.get(ch)
        end = after[close][i + 1] if close else -1
        if close is None or end < 0:
            literal += ch
            i += 1
            continue
        inner = text[i + 1 : end]
        choices = inner.split(",") if ch == "{" else _range(inner)
        if choices is None:  # not a range: an IPv6 literal, kept as written
            literal += text[i : end + 1]
        else:
            parts.append([literal])
            literal = ""
            parts.append(choices)
        i = end + 1
    parts.append([literal])
    out = [""]
    for choices in parts:
        if len(out) * len(choices) > MAX_GLOB_URLS:
            return None
        out = [a + b for a in out for b in choices]
    if text not in out:
        out.append(text)
    return out


def _range(inner: str) -> list[str] | None:
    spec, _, step_text = inner.partition(":")
    first, dash, last = spec.partition("-")
    if not dash or (step_text and not step_text.isdigit()):
        return None
    step = int(step_text) if step_text else 1
    if step < 1:
        return None
    if first.isdigit() and last.isdigit():
        lo, hi = int(first), int(last)
        if hi < lo or (hi - lo) // step >= MAX_GLOB_URLS:
            return [] if hi < lo else [str(lo)] * (MAX_GLOB_URLS + 1)
        width = len(first) if first.startswith("0") else 0
        return [str(n).zfill(width) for n in range(lo, hi + 1, step)]
    if len(first) == 1 and len(last) == 1 and first.isalpha() and last.isalpha():
        return [chr(c) for c in range(ord(first), ord(last) + 1, step)]
    return None
