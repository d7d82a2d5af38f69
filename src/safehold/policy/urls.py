"""URL policy: which hosts a fetch tool or a command (`curl`, `wget`, `git clone`) may reach.

The host a URL names is judged as written, never looked up: no DNS at decision time, so a
name that resolves to a private address is only caught by its spelling (documented in
docs/network.md). To keep a spelling from hiding an address, the host is normalised the
way URL parsers and ``inet_aton`` read it: percent-decoded, NFKC-folded (fullwidth digits
and dots), lower-cased, a trailing dot dropped; IPv4 in decimal, octal, hex and short forms
(``2852039166``, ``0251.0376.0251.0376``, ``0xa9fea9fe``, ``169.254.43518``); IPv6 with the
IPv4 address it embeds (IPv4-mapped, NAT64, 6to4, Teredo); names that spell an address
(``169.254.169.254.nip.io``, ``169-254-169-254.sslip.io``). Where parsers disagree on which
part is the host (``http://a.com\\@169.254.169.254/``), every reading is judged and the
strictest wins.

Order: a denied domain or network (cloud metadata and link-local by default) is DENY; an
unparseable URL or an unknown scheme is ASK; an allowed domain is ALLOW; loopback, private
and other special-purpose addresses and local names ask (``private_addresses``); when
``allowed_domains`` is set, any other host asks. The module is pure (no I/O).
"""

from __future__ import annotations

import functools
import ipaddress
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, model_validator

from safehold.policy.decision import Reason, Verdict, strictest

__all__ = [
    "DEFAULT_DENIED_DOMAINS",
    "URL_IN_TEXT",
    "DomainPattern",
    "NetworkConfig",
    "UrlCheck",
    "check_url",
    "file_url_path",
    "normalise_host",
    "parse_ipv4",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Cloud instance-metadata services hand out the machine's credentials to anyone who asks;
# link-local is where they live. The literal is judged: a name resolving here is not seen.
DEFAULT_DENIED_DOMAINS: Final[tuple[str, ...]] = (
    "169.254.0.0/16",  # IPv4 link-local: AWS, GCP, Azure, OCI, DigitalOcean metadata
    "fe80::/10",  # IPv6 link-local
    "fd00:ec2::254",  # AWS metadata over IPv6
    "100.100.100.200",  # Alibaba Cloud metadata
    "168.63.129.16",  # Azure WireServer (host agent, VM extension settings)
    "metadata",  # GCE's short name for its metadata server
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",  # EC2's name for its metadata server
    "instance-data.ec2.internal",
)

MAX_URL_CHARS: Final = 8192
_SCHEMES: Final = frozenset(
    {"http", "https", "ftp", "ftps", "ws", "wss", "git", "ssh", "sftp", "scp", "rsync", "s3"}
)
# Names that resolve inside the local network or to this machine (RFC 6761/6762/8375, and
# the `.internal` names clouds and Docker use).
_LOCAL_SUFFIXES: Final = ("localhost", "local", "internal", "home.arpa", "lan", "intranet")
_DOTS: Final = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
URL_IN_TEXT: Final = re.compile(r"(?i)\b(?:https?|ftps?|wss?)://[^\s<>\"'`]+")
"""A web URL inside a longer text (one character class after the scheme: linear)."""
_IPV4_PART = re.compile(r"^(?:0[xX][0-9a-fA-F]*|[0-9]+)$")
_DASHED_V4 = re.compile(r"(?:^|[.-])(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})(?=$|[.-])")
_LABEL = re.compile(r"^[a-z0-9_*-]+$")


_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def _unquote(text: str, errors: str = "strict") -> str:
    """Percent-decode as UTF-8 (no `urllib` in the pure core); bad UTF-8 raises."""
    return _PERCENT.sub(
        lambda m: bytes.fromhex(m.group().replace("%", "")).decode("utf-8", errors), text
    )


# -- config ---------------------------------------------------------------------------------


def _check_domain(value: str) -> str:
    """A domain pattern: `example.com`, `*.example.com`, `*`, an IP address or a CIDR net."""
    text = value.strip()
    if not text:
        raise ValueError("a domain pattern must not be empty")
    if _network(text) is not None:
        return text
    host = normalise_host(text)
    if host is None or (host != "*" and not all(_LABEL.match(p) for p in host.split("."))):
        raise ValueError(f"domain pattern `{value}` is not a host name, address or network")
    if "*" in host and host != "*" and (not host.startswith("*.") or "*" in host[2:]):
        raise ValueError(f"domain pattern `{value}`: `*` may only be the first label (`*.x.com`)")
    return text


DomainPattern = Annotated[str, Field(strict=True), AfterValidator(_check_domain)]
"""`example.com` (that host), `*.example.com` (its subdomains), `*`, `10.0.0.0/8`, `::1`."""


class NetworkConfig(BaseModel):
    """The URL policy: hosts fetch tools and commands may reach (``[network]`` in TOML)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    allowed_domains: tuple[DomainPattern, ...] = ()
    """When non-empty, other hosts ask. Exact names and addresses here also lift the private-address ask."""
    denied_domains: tuple[DomainPattern, ...] = DEFAULT_DENIED_DOMAINS
    """Hosts never reached (extends the built-in cloud-metadata and link-local list)."""
    private_addresses: Literal["ask", "deny", "allow"] = "ask"
    """Loopback, private, shared and reserved addresses and local names (`localhost`, `*.internal`)."""
    replace_default_denied_domains: StrictBool = False
    """Use `denied_domains` as given instead of extending the built-in list."""

    @model_validator(mode="before")
    @classmethod
    def _extend_defaults(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        user = data.get("denied_domains")
        if data.get("replace_default_denied_domains") is not True and isinstance(
            user, list | tuple
        ):
            data["denied_domains"] = tuple(dict.fromkeys((*DEFAULT_DENIED_DOMAINS, *user)))
        return data


# -- host normalisation -----------------------------------------------------------------------


def parse_ipv4(host: str) -> ipaddress.IPv4Address | Literal[False] | None:
    """Read a host the way `inet_aton` and the WHATWG URL parser do.

    Returns the address; None when the host is not numeric (a name); False when it is
    numeric but no valid address (`256.1.1.1`, `1.2.3.4.5`), which callers treat as unknown.
    """
    parts = host.split(".")
    if parts and parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if not parts or not _IPV4_PART.match(parts[-1]):
        return None
    if len(parts) > 4 or not all(_IPV4_PART.match(p) for p in parts):
        return False
    numbers: list[int] = []
    for part in parts:
        if len(part) > 40:
            return False
        if part[:2].lower() == "0x":
            numbers.append(int(part[2:] or "0", 16))
        elif len(part) > 1 and part.startswith("0"):
            if not part.isdigit() or any(c in "89" for c in part):
                return False
            numbers.append(int(part, 8))
        else:
            numbers.append(int(part))
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        return False
    value = last
    for i, n in enumerate(head):
        value += n << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def normalise_host(host: str) -> str | None:
    """Percent-decode, NFKC-fold, lower-case and strip a trailing dot; None if not a host."""
    text = _unquote(host) if "%" in host else host
    text = unicodedata.normalize("NFKC", text).translate(_DOTS).casefold()
    if text.endswith(".") and len(text) > 1:
        text = text[:-1]
    if not text or any(c.isspace() or ord(c) < 0x20 or c in "/\\@?#" for c in text):
        return None
    if not text.isascii():
        try:
            text = text.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    return text


def _addresses(host: str) -> tuple[list[IPAddress], bool]:
    """The addresses a normalised host names or spells, and whether it is unreadable."""
    if host.startswith("[") and host.endswith("]"):
        inner = host[1:-1].split("%", 1)[0]  # a zone id (`%25eth0`) names an interface
        try:
            v6 = ipaddress.IPv6Address(inner)
        except ValueError:
            return [], True
        return [v6, *_embedded(v6)], False
    if ":" in host:  # an unbracketed IPv6 literal, as a command-line tool may take it
        try:
            v6 = ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            return [], True
        return [v6, *_embedded(v6)], False
    v4 = parse_ipv4(host)
    if v4 is False:
        return [], True
    if v4 is not None:
        return [v4], False
    found: list[IPAddress] = []
    labels = host.split(".")
    for i in range(len(labels) - 3):  # `169.254.169.254.nip.io` spells its address
        quad = labels[i : i + 4]
        if all(p.isdigit() and len(p) <= 3 for p in quad):
            maybe = parse_ipv4(".".join(quad))
            if maybe:
                found.append(maybe)
    for m in _DASHED_V4.finditer(host):  # `169-254-169-254.sslip.io`
        maybe = parse_ipv4(".".join(m.groups()))
        if maybe:
            found.append(maybe)
    return found, False


def _embedded(v6: ipaddress.IPv6Address) -> list[IPAddress]:
    """IPv4 addresses an IPv6 address carries (mapped, NAT64, 6to4, Teredo, compatible)."""
    out: list[IPAddress] = []
    if v6.ipv4_mapped is not None:
        out.append(v6.ipv4_mapped)
    if v6.sixtofour is not None:
        out.append(v6.sixtofour)
    if v6.teredo is not None:
        out.extend(v6.teredo)
    packed = int(v6)
    if packed >> 32 in (0, 0x64FF9B << 64):  # ::a.b.c.d and 64:ff9b::a.b.c.d
        out.append(ipaddress.IPv4Address(packed & 0xFFFFFFFF))
    return out


def _network(text: str) -> IPNetwork | None:
    inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        return ipaddress.ip_network(inner, strict=False)
    except ValueError:
        pass
    v4 = parse_ipv4(inner.lower())
    return ipaddress.IPv4Network(v4) if v4 else None


# -- URL splitting ------------------------------------------------------------------------------


def file_url_path(url: str) -> str | None:
    """The local path a `file:` URL names (`file:///etc/x`, ` FILE://localhost/x`), else None."""
    text = url.strip()
    if text[:5].lower() != "file:":
        return None
    rest = text[5:]
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        if authority.lower() not in ("", "localhost"):
            return None  # a remote file share; judged as a host
        rest = slash + path
    return _unquote(rest.split("#", 1)[0].split("?", 1)[0], "surrogateescape") or None


def _hosts(url: str) -> tuple[str | None, list[str]]:
    """The scheme and every host a parser could read from the URL (empty: no authority)."""
    text = url.strip()
    m = _SCHEME.match(text)
    scheme = None
    rest = text
    if m and not _port_only(text):
        scheme = m.group(1).lower()
        rest = text[m.end() :]
        if not rest.startswith(("/", "\\")) and scheme not in _SCHEMES:
            return scheme, []  # `mailto:x@y`, `data:...`: no authority
        rest = rest.lstrip("/\\")  # WHATWG reads `http:h` and `http:///h` as host `h`
    candidates: list[str] = []
    for delims in ("/?#", "/?#\\"):  # curl reads `\\` as data, WHATWG as a slash
        end = min((i for i in (rest.find(d) for d in delims) if i >= 0), default=len(rest))
        authority = rest[:end]
        candidates.append(_strip_port(authority.rpartition("@")[2]))
        if "@" in authority:  # a parser stopping at the first `@` reads the rest as the path
            candidates.append(_strip_port(authority.partition("@")[2].split("@", 1)[0]))
    return scheme, list(dict.fromkeys(candidates))


def _port_only(text: str) -> bool:
    """`localhost:8080/x`: a scheme-less host with a port, not a `localhost` scheme."""
    head, _, tail = text.partition(":")
    digits = re.match(r"\d+", tail)
    return bool(digits) and ("." in head or head.lower() == "localhost")


def _strip_port(hostport: str) -> str:
    if hostport.startswith("["):
        end = hostport.find("]")
        return hostport[: end + 1] if end >= 0 else hostport
    return hostport.rsplit(":", 1)[0] if hostport.count(":") == 1 else hostport


# -- the check ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UrlCheck:
    """The verdict on one URL, the reasons, and the normalised hosts it was judged by."""

    verdict: Verdict
    reasons: tuple[Reason, ...]
    hosts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Rules:
    names: frozenset[str]
    suffixes: tuple[str, ...]
    any_host: bool
    networks: tuple[IPNetwork, ...]

    def match(self, host: str, addresses: Iterable[IPAddress]) -> bool:
        if self.any_host or host in self.names or host.endswith(self.suffixes):
            return True
        return any(a in n for a in addresses for n in self.networks if a.version == n.version)


def _compile(patterns: Iterable[str]) -> tuple[_Rules, _Rules]:
    """All patterns, and only the exact ones (names and networks: no wildcard)."""
    names: set[str] = set()
    suffixes: list[str] = []
    networks: list[IPNetwork] = []
    any_host = False
    for pattern in patterns:
        net = _network(pattern.strip())
        if net is not None:
            networks.append(net)
            continue
        host = normalise_host(pattern.strip()) or ""
        if host == "*":
            any_host = True
        elif host.startswith("*."):
            suffixes.append(host[1:])
        else:
            names.add(host)
    full = _Rules(frozenset(names), tuple(suffixes), any_host, tuple(networks))
    return full, _Rules(frozenset(names), (), False, tuple(networks))


@functools.lru_cache(maxsize=32)
def _compiled(config: NetworkConfig) -> tuple[_Rules, _Rules, _Rules]:
    allowed, exact = _compile(config.allowed_domains)
    denied, _ = _compile(config.denied_domains)
    return denied, allowed, exact


def _special(host: str, addresses: list[IPAddress]) -> str | None:
    """Why the host is this machine or the local network, or None for a public host."""
    for a in addresses:
        if a.is_loopback or a.is_unspecified:
            return f"`{a}` is this machine (loopback)"
        if not a.is_global or a.is_multicast:
            return f"`{a}` is a private or special-purpose address"
    if "." not in host and not addresses:
        return f"`{host}` is a single-label name, which resolves in the local network"
    if host == "localhost" or host.endswith(".localhost"):
        return f"`{host}` is this machine (loopback)"
    if any(host.endswith("." + s) for s in _LOCAL_SUFFIXES):
        return f"`{host}` is a local-network name"
    return None


def check_url(url: str, config: NetworkConfig) -> UrlCheck:
    """Judge one URL (or scheme-less `host/path`, as curl reads it) under the URL policy.

    Pure and linear in the URL's length; never raises. An unreadable URL asks.
    """
    try:
        return _check(url, config)
    except Exception as exc:  # INVARIANT: no error path allows
        return _ask("url-invalid", f"URL {url!r} could not be read ({type(exc).__name__})", ())


def _ask(code: str, message: str, hosts: tuple[str, ...]) -> UrlCheck:
    return UrlCheck(Verdict.ASK, (Reason(code, "network", message),), hosts)


def _check(url: str, config: NetworkConfig) -> UrlCheck:
    if not isinstance(url, str) or len(url) > MAX_URL_CHARS:
        return _ask("url-invalid", f"the URL is not a string of at most {MAX_URL_CHARS} chars", ())
    scheme, raw_hosts = _hosts(url)
    if scheme == "file":
        return _ask("url-local-file", f"URL `{url}` names a local file; it is judged as a path", ())
    if scheme is not None and scheme not in _SCHEMES:
        return _ask("url-scheme", f"URL `{url}` uses the unknown scheme `{scheme}:`", ())
    denied, allowed, exact = _compiled(config)
    verdicts: list[Verdict] = []
    reasons: list[Reason] = []
    hosts: list[str] = []
    for raw in raw_hosts or [""]:
        try:
            host = normalise_host(raw)
        except UnicodeError:
            host = None
        addresses, unreadable = _addresses(host) if host else ([], True)
        if host is None or unreadable:
            verdicts.append(Verdict.ASK)
            reasons.append(
                Reason("url-invalid", "network", f"URL `{url}`: host `{raw}` cannot be read")
            )
            continue
        hosts.append(host)
        verdict, reason = _judge(host, addresses, config, denied, allowed, exact)
        verdicts.append(verdict)
        if reason is not None:
            reasons.append(reason)
    verdict = strictest(*verdicts)
    kept = sorted(
        {r for r in reasons if _code_rank(r.code) == verdict.strictness},
        key=lambda r: (r.code, r.rule, r.message),
    )
    return UrlCheck(verdict, tuple(kept), tuple(dict.fromkeys(hosts)))


def _code_rank(code: str) -> int:
    return 2 if code == "url-denied" else 0 if code == "url-allowed" else 1


def _judge(
    host: str,
    addresses: list[IPAddress],
    config: NetworkConfig,
    denied: _Rules,
    allowed: _Rules,
    exact: _Rules,
) -> tuple[Verdict, Reason | None]:
    if denied.match(host, addresses):
        shown = ", ".join(f"`{a}`" for a in addresses if str(a) != host)
        via = f" (the address {shown})" if shown else ""
        return Verdict.DENY, Reason(
            "url-denied",
            "network.denied_domains",
            f"host `{host}`{via} is a denied domain or network (cloud metadata and "
            f"link-local addresses hand out credentials)",
        )
    special = _special(host, addresses)
    if special is not None and not exact.match(host, addresses):
        if config.private_addresses == "deny":
            return Verdict.DENY, Reason(
                "url-denied", "network.private_addresses", f"{special}; denied by the config"
            )
        if config.private_addresses == "ask":
            return Verdict.ASK, Reason(
                "url-private", "network.private_addresses", f"{special}; reaching it needs approval"
            )
    if config.allowed_domains and not allowed.match(host, addresses):
        return Verdict.ASK, Reason(
            "url-not-allowed",
            "network.allowed_domains",
            f"host `{host}` is not in the allowed domains",
        )
    return Verdict.ALLOW, None
