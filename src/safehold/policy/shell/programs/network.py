"""Network programs: where they connect (`network`), what local data they send (`upload`),
and which files they read or write on the way.

`curl -d @file`, `-T file`, `-F x=@file` and `wget --post-file` upload a file; `@-` or `-T -`
uploads standard input. `scp`/`rsync` upload local sources to a `host:path` destination.
Name lookups (`dig`, `host`, `nslookup`) have their names as network destinations, so a
computed name (DNS exfiltration) is seen as such.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from safehold.policy.shell.programs.table import (
    OPTIONS_FILE,
    HostAsk,
    Opt,
    Program,
    RoleUse,
    Setting,
    option_values,
)
from safehold.policy.shell.programs.vocab import NAMES, flags, valued, values
from safehold.policy.shell.words import Word

# Marks of how curl and wget name the files they save (modes, never tables of their own):
# the server names them (`curl -J`, `wget -r`/`--content-disposition`), an option names
# the one file (`wget -O`), curl's URL globbing is off (`-g`).
_SERVER_NAMES = "server-names"
_NAMED = "named-output"
_GLOBOFF = "globoff"
_URL_NAME_COMPUTED = Word("$(named by the server)", False)


def _output_dir(uses: Sequence[RoleUse], options: tuple[str, ...]) -> Word | None:
    """The directory files are saved in (`curl --output-dir D`, `wget -P D`), or None."""
    for use in uses:
        if use.option in options:
            return use.word
    return None


def _urls(uses: Sequence[RoleUse]) -> list[str | None]:
    """The URL operands of a download (None for a computed one)."""
    return [
        u.word.text if u.word.static else None for u in uses if u.role == "network" and not u.option
    ]


def _url_path(url: str) -> str:
    """The path of `url` as curl and wget request it: after the host, before `?` and `#`,
    with `.` and `..` segments resolved (RFC 3986 5.2.4)."""
    rest = url.split("://", 1)[1] if "://" in url else url
    path = rest.partition("/")[2] if "/" in rest else ""
    path = path.split("#", 1)[0]
    resolved = posixpath.normpath("/" + path.split("?", 1)[0])
    if path.split("?", 1)[0].endswith("/") and resolved != "/":
        resolved += "/"
    return resolved


def _saved_as(name: str, folder: Word | None) -> Word:
    if folder is None:
        return Word(name, True)
    if not folder.static:
        return _URL_NAME_COMPUTED
    return Word(posixpath.join(folder.text, name), True, folder.splits, folder.home)


def _curl_names(uses: Sequence[RoleUse], modes: frozenset[str]) -> list[Word]:
    """`curl -O URL`: the file is the last segment of the URL's path, in `--output-dir`
    (curl(1), `-O`); `-J` lets the server name it; a URL glob (`{a,b}`, `[1-9]`) names
    several (not globbed with `-g`). Every URL counts, as `--remote-name-all` would."""
    if _SERVER_NAMES in modes:
        return [_URL_NAME_COMPUTED]
    folder = _output_dir(uses, ("--output-dir",))
    out: list[Word] = []
    for url in _urls(uses):
        if url is None:
            out.append(_URL_NAME_COMPUTED)
            continue
        path = _url_path(url)
        if _GLOBOFF not in modes and any(c in path for c in "{}[]"):
            out.append(_URL_NAME_COMPUTED)
            continue
        name = path.rsplit("/", 1)[-1]
        if name:
            out.append(_saved_as(name, folder))
    return out


def _wget_names(uses: Sequence[RoleUse], modes: frozenset[str]) -> list[Word]:
    """`wget URL`: the file is the last segment of the URL's path with its query
    (`index.html` for none, or the name `--default-page` gives), in `-P DIR` (wget(1),
    "Directory Options"); `-O` names the one file instead; `-r`, `-m`, `-p`, `-x`,
    `--content-disposition` and `--trust-server-names` let the server or the site's tree
    name them."""
    if _NAMED in modes:
        return []
    if _SERVER_NAMES in modes:
        return [_URL_NAME_COMPUTED]
    folder = _output_dir(uses, ("-P", "--directory-prefix"))
    # `--default-page=NAME`: the name of a URL ending in `/`, instead of `index.html`.
    page = _output_dir(uses, ("--default-page",))
    out: list[Word] = []
    for spelled in _urls(uses):
        if spelled is None:
            out.append(_URL_NAME_COMPUTED)
            continue
        url = spelled.split("#", 1)[0]
        rest = url.split("://", 1)[1] if "://" in url else url
        path, _, query = rest.partition("/")[2].partition("?")
        name = posixpath.normpath("/" + path).rsplit("/", 1)[-1] if path else ""
        if path.endswith("/") or not name:
            if page is not None and not page.static:
                out.append(_URL_NAME_COMPUTED)
                continue
            name = page.text if page is not None else "index.html"
        out.append(_saved_as(name + ("?" + query if query else ""), folder))
    return out


__all__ = [
    "INLINE_UPLOADS",
    "MAX_GLOB_URLS",
    "NC_NAMES",
    "PROGRAMS",
    "SSH_COMMAND_KEYS",
    "SSH_FORWARD_KEYS",
    "URL_VARIABLES",
    "destinations",
    "ssh_option_values",
    "ssh_setting_key",
]

_V = Opt(takes=True)
INLINE_UPLOADS = frozenset(
    {"--data-raw", "--form-string", "-A", "--user-agent", "-e", "--referer", "-u", "--user",
     "-U", "--proxy-user", "-Q", "--quote", "--oauth2-bearer", "--password", "--http-user",
     "--http-password", "--proxy-password", "--ftp-user", "--ftp-password"}
)  # fmt: skip
"""Upload options of curl and wget whose value is sent as spelled (a header, a user agent,
credentials, raw data), never read from an `@FILE` (curl(1): `--data-raw` "does not
interpret `@`"; wget(1) `--header`): a static value is what the agent wrote, a computed one
carries local data out."""
_READ = Opt(takes=True, role="read")
_WRITE = Opt(takes=True, role="write")
_UPLOAD = Opt(takes=True, role="upload")
_NET = Opt(takes=True, role="network")


def _write_out(value: str) -> Setting | None:
    """curl `-w FORMAT`: `%output{FILE}` and `%output{>>FILE}` (curl 8.3+, curl(1) "-w,
    --write-out") write the rest of the output to FILE, a file no word names: not
    understood. `@FILE` reads the format from FILE (the `upload` role judges it)."""
    return None if "%output{" in value.lower() else Setting()


_WRITE_OUT = Opt(takes=True, role="upload", setting=_write_out)


# curl's `-K FILE` ("config file"), wget's `--config FILE` (a wgetrc), `-e CMD` (one
# wgetrc command: `output = ~/.bashrc`, `upload-file = …`, `use_askpass = PROG`) and `-i
# FILE` (the URLs to fetch).
_OPTIONS_FILE = Opt(takes=True, role="read", mode=OPTIONS_FILE)
_WGETRC_COMMAND = Opt(takes=True, role="network", mode=OPTIONS_FILE)
_NETRC = Opt(implies=(("read", "~/.netrc"),))

# curl 7.88.1 `curl --help all`, every option. Its parser (tool_getparam.c) takes any
# unique prefix of a long option (`curl --upload-f F`, checked: `curl --vers` prints the
# version) and clusters of letters with a value glued on (`-fsSLo F`): `getopt_long`.
# `--no-X` of a boolean option is accepted too; the ones the help lists are in the table,
# the others ask. Left out, so that they ask: `--engine` (an OpenSSL engine by name or
# path: native code), `--abstract-unix-socket` (a socket no path names) and
# `--ftp-alternative-to-user` (an FTP command string). Values starting with `@` are files
# whose content is sent (`-d`, `-H`, `--json`, `--url-query`; `-F x=@F`, `-T F`).
_CURL = Program(
    options={
        **valued("write", "-o", "--output", "--output-dir", "-D", "--dump-header", "-c"),
        **valued("write", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--libcurl"),
        **valued("write", "--etag-save", "--hsts", "--alt-svc"),
        # A local socket: connecting to one outside the workspace (a daemon's) asks.
        **valued("write", "--unix-socket"),
        "-K": _OPTIONS_FILE, "--config": _OPTIONS_FILE,
        **valued("read", "--cacert", "--capath", "-E", "--cert", "--key", "--netrc-file"),
        **valued("read", "--etag-compare", "--crlfile", "--pubkey", "--random-file"),
        **valued("read", "--egd-file", "--proxy-cacert", "--proxy-capath", "--proxy-cert"),
        **valued("read", "--proxy-crlfile", "--proxy-key", "--pinnedpubkey"),
        **valued("read", "--proxy-pinnedpubkey"),
        # `-b DATA|FILE`: a file when the value has no `=`; `-z TIME|FILE`: a file's time.
        **valued("read", "-b", "--cookie", "-z", "--time-cond"),
        # `@FILE` values: the file's content is sent (or, for `-w`, printed).
        **valued("upload", "-d", "--data", "--data-binary", "--data-ascii", "--data-urlencode"),
        **valued("upload", "--json", "-F", "--form", "-T", "--upload-file", "-H", "--header"),
        **valued("upload", "--proxy-header", "--url-query"),
        "-w": _WRITE_OUT, "--write-out": _WRITE_OUT,
        **valued("network", "--url", "-x", "--proxy", "--connect-to", "--resolve", "--preproxy"),
        **valued("network", "--socks4", "--socks4a", "--socks5", "--socks5-hostname"),
        **valued("network", "--proxy1.0", "--doh-url"),
        # Values sent as given, never read from a file (`INLINE_UPLOADS`): a computed one
        # (`-A "$(cat src/app.py)"`) carries local data to the server.
        **valued("upload", "--data-raw", "--form-string", "-A", "--user-agent", "-e"),
        **valued("upload", "--referer", "-u", "--user", "-U", "--proxy-user", "-Q", "--quote"),
        **valued("upload", "--oauth2-bearer"),
        **values("-X", "--request", "-m", "--max-time", "--connect-timeout"),
        **values("--retry", "-r", "--range", "-Y", "--speed-limit", "-y"),
        **values("--speed-time", "-C", "--continue-at", "--limit-rate", "--max-redirs"),
        **values("--retry-delay", "--retry-max-time", "-h"),
        **values("--help", "--aws-sigv4", "--cert-type", "--ciphers", "--create-file-mode"),
        **values("--curves", "--delegation", "--dns-interface", "--dns-ipv4-addr"),
        **values("--dns-ipv6-addr", "--dns-servers", "--expect100-timeout", "--ftp-account"),
        **values("--ftp-method", "-P", "--ftp-port", "--ftp-ssl-ccc-mode"),
        **values("--happy-eyeballs-timeout-ms", "--hostpubmd5", "--hostpubsha256"),
        **values("--interface", "--keepalive-time", "--key-type", "--krb", "--local-port"),
        **values("--login-options", "--mail-auth", "--mail-from", "--mail-rcpt"),
        **values("--max-filesize", "--noproxy", "--parallel-max", "--pass", "--proto"),
        **values("--proto-default", "--proto-redir", "--proxy-cert-type", "--proxy-ciphers"),
        **values("--proxy-key-type", "--proxy-pass", "--proxy-service-name"),
        **values("--proxy-tls13-ciphers", "--proxy-tlsauthtype", "--proxy-tlspassword"),
        **values("--proxy-tlsuser", "--rate", "--request-target", "--sasl-authzid"),
        **values("--service-name", "--socks5-gssapi-service", "-t", "--telnet-option"),
        **values("--tftp-blksize", "--tls-max", "--tls13-ciphers", "--tlsauthtype"),
        **values("--tlspassword", "--tlsuser"),
        **flags("--anyauth", "-a", "--append", "--basic", "--cert-status", "--compressed"),
        **flags("--compressed-ssh", "--create-dirs", "--crlf", "--digest", "-q", "--disable"),
        **flags("--disable-eprt", "--disable-epsv", "--disallow-username-in-url"),
        **flags("--doh-cert-status", "--doh-insecure", "-f", "--fail", "--fail-early"),
        **flags("--fail-with-body", "--false-start", "--form-escape", "--ftp-create-dirs"),
        **flags("--ftp-pasv", "--ftp-pret", "--ftp-skip-pasv-ip", "--ftp-ssl-ccc"),
        **flags("--ftp-ssl-control", "-G", "--get", "--haproxy-protocol"),
        **dict.fromkeys(("-g", "--globoff"), Opt(mode=_GLOBOFF)),
        **flags("-I", "--head", "--http0.9", "-0", "--http1.0", "--http1.1", "--http2"),
        **flags("--http2-prior-knowledge", "--http3", "--http3-only", "--ignore-content-length"),
        **flags("-i", "--include", "-k", "--insecure", "-4", "--ipv4", "-6", "--ipv6", "-j"),
        **flags("--junk-session-cookies", "-l", "--list-only", "-L", "--location"),
        **flags("--location-trusted", "--mail-rcpt-allowfails", "-M", "--manual", "--metalink"),
        # `-n`, `--netrc`, `--netrc-optional`: the user's `~/.netrc` is read and its
        # login sent to the host (curl(1)), as `--netrc-file ~/.netrc` names it.
        **dict.fromkeys(("-n", "--netrc", "--netrc-optional"), _NETRC),
        **flags("--negotiate", "-:", "--next", "--no-alpn"),
        **flags("-N", "--no-buffer", "--no-clobber", "--no-keepalive", "--no-npn"),
        **flags("--no-progress-meter", "--no-sessionid", "--ntlm", "--ntlm-wb", "-Z"),
        **flags("--parallel", "--parallel-immediate", "--path-as-is", "--post301", "--post302"),
        **flags("--post303", "-#", "--progress-bar", "--proxy-anyauth", "--proxy-basic"),
        **flags("--proxy-digest", "--proxy-insecure", "--proxy-negotiate", "--proxy-ntlm"),
        **flags("--proxy-ssl-allow-beast", "--proxy-ssl-auto-client-cert", "--proxy-tlsv1"),
        **flags("-p", "--proxytunnel", "--raw", "-R", "--remote-time", "--remove-on-error"),
        **flags("--retry-all-errors", "--retry-connrefused", "--sasl-ir", "-S", "--show-error"),
        **flags("-s", "--silent", "--socks5-basic", "--socks5-gssapi", "--socks5-gssapi-nec"),
        **flags("--ssl", "--ssl-allow-beast", "--ssl-auto-client-cert", "--ssl-no-revoke"),
        **flags("--ssl-reqd", "--ssl-revoke-best-effort", "-2", "--sslv2", "-3", "--sslv3"),
        **flags("--styled-output", "--suppress-connect-headers", "--tcp-fastopen"),
        **flags("--tcp-nodelay", "--tftp-no-options", "-1", "--tlsv1", "--tlsv1.0", "--tlsv1.1"),
        **flags("--tlsv1.2", "--tlsv1.3", "--tr-encoding", "--trace-time", "-B", "--use-ascii"),
        **flags("-v", "--verbose", "-V", "--version", "--xattr"),
        # The file is named by the URL (`-O`) or by the server (`-J`): written into `.`
        # (or `--output-dir`, a write of its own).
        **dict.fromkeys(("-O", "--remote-name", "--remote-name-all"), Opt(mode="remote-name")),
        **dict.fromkeys(("-J", "--remote-header-name"), Opt(mode=_SERVER_NAMES)),
    },
    operands="network",
    modes={
        "remote-name": Program(
            operands="network", implicit=(("write", "."),), url_names=_curl_names
        ),
    },
    source="curl 7.88.1 --help all",
)  # fmt: skip
# GNU Wget 1.21.3 `--help`, every option (getopt_long: unique prefixes). `-nv`, `-nc`,
# `-nd`, `-nH`, `-np` are `-n` with a letter. Files land in `.` (or `-P DIR`). `-e CMD`
# and `--config FILE` set any wgetrc command (`output_document = …`): not understood
# unconfined. Every boolean option also has a `--no-X` form; those the help does not list
# ask.
_WGET = Program(
    options={
        **dict.fromkeys(("-O", "--output-document"), Opt(takes=True, role="write", mode=_NAMED)),
        **valued("write", "-o", "--output-file", "-a"),
        **valued("write", "--append-output", "-P", "--directory-prefix", "--save-cookies"),
        **valued("write", "--rejected-log", "--hsts-file", "--warc-file", "--warc-tempdir"),
        # `-i FILE`: the URLs to fetch are in FILE, unseen (a metadata address among them).
        "-i": _OPTIONS_FILE, "--input-file": _OPTIONS_FILE,
        **valued("read", "--load-cookies", "--ca-certificate"),
        **valued("read", "--certificate", "--private-key", "--ca-directory", "--crl-file"),
        **valued("read", "--pinnedpubkey", "--warc-dedup"),
        "--config": _OPTIONS_FILE,
        **valued("upload", "--post-file", "--body-file", "--post-data", "--body-data"),
        "-e": _WGETRC_COMMAND, "--execute": _WGETRC_COMMAND,
        # `-B URL`: the base relative links of `-i FILE -F` are fetched from.
        **valued("network", "-B", "--base"),
        **valued("exec", "--use-askpass"),
        # `-n X` takes the letter as its value (`-n v`); spelled as one word, `-nv`, `-nc`,
        # `-nd`, `-nH` and `-np` are whole options (`--no-verbose`, `--no-clobber`, …) and
        # take no further word: the URL after them is an operand.
        "-n": _V,
        **flags("-nv", "-nc", "-nd", "-nH", "-np"),
        **values("--report-speed"),
        **values("-t", "--tries", "--retry-on-http-error", "--start-pos", "--progress", "-T"),
        **values("--timeout", "--dns-timeout", "--connect-timeout", "--read-timeout", "-w"),
        **values("--wait", "--waitretry", "-Q", "--quota", "--bind-address", "--limit-rate"),
        **values("--restrict-file-names", "--prefer-family"),
        **values("--local-encoding", "--remote-encoding", "--cut-dirs"),
        # `--default-page=NAME` names the file a URL ending in `/` is saved as
        # (`_wget_names`); judged as a write where wget runs as well.
        **valued("write", "--default-page"),
        **values("--compression"),
        **values("--max-redirect", "--secure-protocol", "--certificate-type"),
        **values("--private-key-type", "--ciphers"),
        # Sent to the server as given (`INLINE_UPLOADS`).
        **valued("upload", "--user", "--password", "--http-user", "--http-password"),
        **valued("upload", "--header", "--proxy-user", "--proxy-password", "--referer", "-U"),
        **valued("upload", "--user-agent", "--ftp-user", "--ftp-password"),
        **values("--warc-header", "--warc-max-size", "-l", "--level", "--backups", "-A"),
        **values("--accept", "-R", "--reject", "--accept-regex", "--reject-regex"),
        **values("--regex-type", "-D", "--domains", "--exclude-domains", "--follow-tags"),
        **values("--ignore-tags", "-I", "--include-directories", "-X"),
        **values("--exclude-directories", "--method"),
        **flags("-V", "--version", "-h", "--help", "-b", "--background", "-d", "--debug"),
        **flags("-q", "--quiet", "-v", "--verbose", "--no-verbose", "-F", "--force-html"),
        **flags("--no-config", "--retry-connrefused", "--no-clobber", "--no-netrc", "-c"),
        **flags("--continue", "--show-progress", "-N", "--timestamping"),
        **flags("--no-if-modified-since", "--no-use-server-timestamps", "-S"),
        **flags("--server-response", "--spider", "--random-wait", "--no-proxy"),
        **flags("--no-dns-cache", "--ignore-case", "-4", "--inet4-only", "-6"),
        **flags("--inet6-only", "--ask-password", "--no-iri", "--unlink", "--xattr"),
        **flags("--no-directories", "--no-host-directories"),
        **flags("--no-cache", "-E", "--adjust-extension"),
        **flags("--ignore-length", "--save-headers", "--no-http-keep-alive", "--no-cookies"),
        **flags("--keep-session-cookies", "--content-on-error"),
        **flags("--auth-no-challenge", "--https-only", "--no-check-certificate", "--no-hsts"),
        **flags("--no-remove-listing", "--no-glob", "--no-passive-ftp"),
        **flags("--preserve-permissions", "--retr-symlinks", "--ftps-implicit"),
        **flags("--ftps-resume-ssl", "--ftps-clear-data-connection", "--ftps-fallback-to-ftp"),
        **flags("--warc-cdx", "--no-warc-compression", "--no-warc-digests"),
        **flags("--no-warc-keep-log", "--delete-after", "-k"),
        **flags("--convert-links", "--convert-file-only", "-K", "--backup-converted"),
        **flags("--strict-comments", "--follow-ftp"),
        **flags("-H", "--span-hosts", "-L", "--relative", "--no-parent"),
        # Names the server or the site's tree chooses: a page's links, its headers, a
        # redirect's target, a directory per host or protocol.
        **dict.fromkeys(
            ("-r", "--recursive", "-m", "--mirror", "-p", "--page-requisites",
             "--content-disposition", "--trust-server-names", "-x", "--force-directories",
             "--protocol-directories"),
            Opt(mode=_SERVER_NAMES),
        ),
    },
    operands="network",
    implicit=(("write", "."),),
    url_names=_wget_names,
    source="GNU Wget 1.21.3 --help",
)  # fmt: skip
# ssh(1): `-L`, `-R` and `-D` forward ports (`-R` lets the other machine reach services
# here: a database, the SSH server, a debugger), `-w` forwards a tun device.
# `-A`, `-K`, `-X`, `-Y` hand the other machine this one's agent keys, credentials or
# display; `-g` lets other hosts use forwarded ports.
_FORWARD = Opt(takes=True, mode="forward")
_FORWARDS = Opt(mode="forward")
_SSH_FLAGS = ("-4", "-6", "-a", "-C", "-f", "-G", "-k", "-M", "-N", "-n", "-q", "-s", "-T", "-t",
              "-V", "-v", "-x", "-y")  # fmt: skip

# ssh_config(5) of OpenSSH 9.2p1: every keyword `-o` takes (ssh(1), scp(1), sftp(1)), by
# what its value is. `plain`: no file, host or program; `read`/`write`: files (several,
# blank-separated; `none` names none); `host`: where ssh connects instead of the
# destination; `jump`: hosts it connects through (`[user@]host[:port]`, comma-separated);
# `forward`: hands the other machine this one's agent, display, credentials or
# environment (`-A`, `-X`), unless the value is `no`; `ports`: forwards ports or a tun
# device (as `-L`, `-R`, `-D`, `-w`; `command_strings` also makes these opaque);
# `command`: a shell command (analysed by `command_strings`). Left out, so that they are
# not understood: `PKCS11Provider`, `SecurityKeyProvider` (load a shared library),
# `XAuthLocation` (a program to run), `EnableSSHKeysign` (runs the setuid ssh-keysign),
# `Include` (more settings, unseen), `IdentityAgent` (another agent's socket),
# `CanonicalDomains`, `CanonicalizePermittedCNAMEs` (change the host connected to), and
# `Host`/`Match` (refused on the command line).
_SSH_KEYS: dict[str, str] = {
    **dict.fromkeys(
        ("addkeystoagent", "addressfamily", "batchmode", "bindaddress", "bindinterface",
         "canonicalizefallbacklocal", "canonicalizehostname", "canonicalizemaxdots",
         "casignaturealgorithms", "checkhostip", "ciphers", "clearallforwardings",
         "compression", "connectionattempts", "connecttimeout", "controlmaster",
         "controlpersist", "enableescapecommandline", "escapechar", "exitonforwardfailure",
         "fingerprinthash", "forkafterauthentication", "forwardx11timeout",
         "gssapiauthentication", "hashknownhosts", "hostbasedacceptedalgorithms",
         "hostbasedauthentication", "hostkeyalgorithms", "hostkeyalias", "identitiesonly",
         "ignoreunknown", "ipqos", "kbdinteractiveauthentication", "kbdinteractivedevices",
         "kexalgorithms", "loglevel", "logverbose", "macs", "nohostauthenticationforlocalhost",
         "numberofpasswordprompts", "passwordauthentication", "permitlocalcommand",
         "permitremoteopen", "port", "preferredauthentications", "proxyusefdpass",
         "pubkeyacceptedalgorithms", "pubkeyauthentication", "rekeylimit", "requesttty",
         "requiredrsasize", "serveralivecountmax", "serveraliveinterval", "sessiontype",
         "stdinnull", "streamlocalbindmask", "streamlocalbindunlink", "stricthostkeychecking",
         "syslogfacility", "tcpkeepalive", "updatehostkeys", "user", "verifyhostkeydns",
         "visualhostkey",
         # Old names ssh still reads (readconf.c): `KbdInteractiveAuthentication`,
         # `PubkeyAcceptedAlgorithms`, `HostbasedAcceptedAlgorithms`.
         "challengeresponseauthentication", "pubkeyacceptedkeytypes", "hostbasedkeytypes"),
        "plain",
    ),
    **dict.fromkeys(
        ("identityfile", "certificatefile", "globalknownhostsfile", "revokedhostkeys"), "read"
    ),
    # The control socket is made at ControlPath; UserKnownHostsFile is appended to.
    **dict.fromkeys(("userknownhostsfile", "controlpath"), "write"),
    "hostname": "host",
    "proxyjump": "jump",
    **dict.fromkeys(
        ("forwardagent", "forwardx11", "forwardx11trusted", "gssapidelegatecredentials",
         "sendenv", "setenv"),
        "forward",
    ),
    **dict.fromkeys(
        ("localforward", "remoteforward", "dynamicforward", "tunnel", "tunneldevice",
         "gatewayports"),
        "ports",
    ),
    **dict.fromkeys(
        ("proxycommand", "localcommand", "knownhostscommand", "remotecommand"), "command"
    ),
}  # fmt: skip
SSH_COMMAND_KEYS = frozenset(k for k, kind in _SSH_KEYS.items() if kind == "command")
SSH_FORWARD_KEYS = frozenset(k for k, kind in _SSH_KEYS.items() if kind == "ports")


def ssh_setting_key(text: str) -> tuple[str, str]:
    """`Key=Value`, `Key Value` or `Key = Value` as ssh reads a `-o` line (readconf.c): the
    key in lower case (keywords are case-insensitive) and the value."""
    text = text.strip()
    end = 0
    while end < len(text) and text[end] not in " \t=":
        end += 1
    rest = text[end:].lstrip(" \t")
    if rest.startswith("="):
        rest = rest[1:].lstrip(" \t")
    return text[:end].lower(), rest


def ssh_jumps(text: str) -> list[str]:
    """The hosts of a ProxyJump list (`-J`): `[user@]host[:port]` or `ssh://…`, by commas."""
    return [] if text.lower() == "none" else [hop for hop in text.split(",") if hop]


def _ssh_setting(text: str) -> Setting | None:
    """What `ssh -o TEXT` does (see `_SSH_KEYS`), or None: not understood. A `%` token or a
    `$` variable in a file or host is expanded by ssh: not understood either."""
    key, value = ssh_setting_key(text)
    kind = _SSH_KEYS.get(key)
    if kind is None or not value:
        return None
    if kind in ("plain", "command", "ports"):
        return Setting(mode="forward" if kind == "ports" else None)
    if kind == "forward":
        return Setting() if value.lower() == "no" else Setting(mode="forward")
    if any(c in value for c in "%$\"'"):
        return None
    if kind in ("read", "write"):
        files = value.split()
        if files == ["none"]:
            return Setting()
        return Setting(uses=tuple(("read" if kind == "read" else "write", f) for f in files))
    hosts = ssh_jumps(value) if kind == "jump" else [value]
    return Setting(uses=tuple(("network", h) for h in hosts))


def ssh_option_values(name: str, words: tuple[Word, ...], option: str) -> list[Word]:
    """The values `option` has in an ssh, scp or sftp command, read with its table: `-o V`,
    `-oV`, and the end of a cluster (`-voKey=V`, `-vF FILE`)."""
    table = PROGRAMS.get(name)
    return [] if table is None else [w for _, w in option_values(table, words, (option,))]


_SSH_O = Opt(takes=True, setting=_ssh_setting)
# `-I LIB`: a PKCS#11 library ssh loads (native code): not understood.
_NOT_UNDERSTOOD = Opt(takes=True, setting=lambda _: None)
_SSH_OPTIONS = {
    "-i": _READ, "-F": _READ, "-E": _WRITE, "-S": _V, "-o": _SSH_O, "-p": _V, "-P": _V,
    "-l": _V, "-L": _FORWARD, "-R": _FORWARD, "-D": _FORWARD, "-W": _NET, "-w": _FORWARD,
    "-J": _NET, "-b": _V, "-B": _V, "-c": _V, "-m": _V, "-O": _V, "-Q": _V, "-e": _V,
    "-I": _NOT_UNDERSTOOD,
    "-A": _FORWARDS, "-g": _FORWARDS, "-K": _FORWARDS, "-X": _FORWARDS, "-Y": _FORWARDS,
}  # fmt: skip
# ssh(1) of OpenSSH 9.2p1: every option of its usage line. `-S PATH`: ssh's control socket,
# made there with `-M` (scp's `-S` is a program: `command_strings`).
_SSH_ONLY = {**_SSH_OPTIONS, "-S": _WRITE, **flags(*_SSH_FLAGS)}
PORT_FORWARD = HostAsk(
    "port-forward",
    "forwards network ports, agent keys, credentials or the display between this machine "
    "and another, so what is here may be used from there",
)
_SSH = Program(
    options=_SSH_ONLY,
    first="network",
    options_first=True,
    stop_at=1,
    modes={
        "forward": Program(
            options=_SSH_ONLY, first="network", options_first=True, stop_at=1,
            host_ask=PORT_FORWARD, parser="getopt",
        ),
    },
    # OpenSSH reads its options with getopt(3): no long options (`-oKey=V` is `-o Key=V`).
    parser="getopt",
    source="OpenSSH_9.2p1 ssh usage",
)  # fmt: skip
# scp(1) and sftp(1) of OpenSSH 9.2p1 (their usage lines): ssh's connection options, but
# their own letters: scp's `-B` (batch mode), `-O` (the SCP protocol), `-p` (keep times
# and modes) and sftp's `-a`, `-f`, `-N`, `-p` are flags, not ssh's `-B IFACE`, `-O CMD`,
# `-p PORT` (read as those, they swallowed the next operand: `scp -B HOST:F
# .git/hooks/pre-commit` hid the write). `-D PATH` runs a local SFTP server program
# (scp) or command (sftp); `-S PROGRAM` is the ssh to run (`command_strings`). Left out,
# so that they ask: `-A` (forwards the agent), `-r` (a remote tree copied here: names the
# other side chooses) and scp's `-R` (runs scp on the first remote host).
_SCP_SFTP_COMMON = {
    **{k: _SSH_OPTIONS[k] for k in ("-i", "-F", "-o", "-P", "-l", "-J", "-c", "-S")},
    "-D": Opt(takes=True, role="exec"),
    **values("-X"),
    **flags("-4", "-6", "-C", "-p", "-q", "-v"),
}
_SCP = Program(
    options={**_SCP_SFTP_COMMON, **flags("-3", "-B", "-O", "-s", "-T")},
    operands="read",
    last="write",
    remote_copy=True,
    parser="getopt",
    source="OpenSSH_9.2p1 scp usage",
)
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
# `ping -p PATTERN` fills each packet with PATTERN's bytes (iputils ping(8)): a computed one
# carries local data to the host; for dig it is the port, sent all the same.
_LOOKUP = Program(
    options={"-t": _V, "-c": _V, "-p": Opt(takes=True, role="upload"), "-f": _READ,
             "-k": _READ, "-y": _V, "-q": _V},
    operands="network",
)  # fmt: skip

# Every packaged name of netcat: the program is the same and so are its dangerous options.
NC_NAMES = frozenset(
    {"nc", "netcat", "ncat", "nc.traditional", "nc.openbsd", "netcat-openbsd", "pnc"}
)

PROGRAMS: dict[str, Program] = {
    "curl": _CURL,
    "wget": _WGET,
    "ssh": _SSH,
    "scp": _SCP,
    # `sftp -b FILE`: the commands it runs (`put ~/x`, `!sh`) are in a file, unseen.
    "sftp": Program(
        options={
            **_SCP_SFTP_COMMON,
            "-b": Opt(takes=True, role="read", mode=OPTIONS_FILE),
            **values("-B", "-R", "-s"),
            **flags("-a", "-f", "-N"),
        },
        first="network",
        parser="getopt",
        source="OpenSSH_9.2p1 sftp usage",
    ),
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
_SSH_NAMES = frozenset({"ssh", "scp", "sftp"})


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
    if program in _SSH_NAMES and option == "-J":
        return ssh_jumps(text)  # `-J a,b`: each hop (`-o ProxyJump=`: one use per hop)
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
