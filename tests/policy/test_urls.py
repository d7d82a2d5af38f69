"""The URL policy: metadata and link-local denied, local addresses ask, every spelling read."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.urls import (
    DEFAULT_DENIED_DOMAINS,
    NetworkConfig,
    check_url,
    file_url_path,
    parse_ipv4,
)

DEFAULT = NetworkConfig()


def verdict(url: str, config: NetworkConfig = DEFAULT) -> Verdict:
    return check_url(url, config).verdict


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "http://169.254.170.2/v2/credentials",  # ECS task credentials
        "http://2852039166/",
        "http://0xa9fea9fe/",
        "http://0xA9.0xFE.0xA9.0xFE/",
        "http://0251.0376.0251.0376/",
        "http://169.254.43518/",
        "http://169.16689662/",
        "http://[::ffff:169.254.169.254]/",
        "http://[::ffff:a9fe:a9fe]/",
        "http://[0:0:0:0:0:ffff:a9fe:a9fe]/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://[fe80::1%25eth0]/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://METADATA.Google.Internal./computeMetadata/v1/",
        "http://metadata/computeMetadata/v1/",
        "http://metadata.goog/",
        "http://instance-data/latest/",
        "http://100.100.100.200/latest/meta-data/",
        "http://168.63.129.16/machine",
        "169.254.169.254/latest/meta-data/",  # curl guesses http://
        "169.254.169.254:80",
        " HTTP://169.254.169.254",
        "http:169.254.169.254/",
        "http:///169.254.169.254/",
        "http:\\\\169.254.169.254\\x",
        "http://user:pw@169.254.169.254/",
        "http://evil.example\\@169.254.169.254/",
        "http://a@b@169.254.169.254/",
        "http://%31%36%39.254.169.254/",
        "http://\uff11\uff16\uff19.\uff12\uff15\uff14.\uff11\uff16\uff19.\uff12\uff15\uff14/",
        "http://169\u3002254\u3002169\u3002254/",
        "http://169.254.169.254.nip.io/",
        "http://169-254-169-254.sslip.io/",
        "git@169.254.169.254:org/repo.git",
        "ftp://169.254.169.254/",
    ],
)
def test_metadata_and_link_local_are_denied_in_any_spelling(url: str) -> None:
    check = check_url(url, DEFAULT)
    assert check.verdict is Verdict.DENY, check
    assert any(r.code == "url-denied" for r in check.reasons)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:2375/containers/json",  # the Docker API
        "http://127.1:2375/",
        "http://0x7f000001/",
        "http://2130706433/",
        "http://0177.0.0.1/",
        "http://0/",
        "http://0.0.0.0:8080/",
        "http://[::1]/",
        "http://[::]/",
        "http://[::ffff:127.0.0.1]/",
        "http://localhost:8000/",
        "localhost:8000/x",
        "http://LOCALHOST./",
        "http://app.localhost/",
        "http://10.0.0.5/",
        "http://172.16.3.4/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://[fc00::1]/",
        "http://host.docker.internal:2375/",
        "http://printer.local/",
        "http://router/",
        "http://10.0.0.5.nip.io/",
        "http://224.0.0.1/",
    ],
)
def test_loopback_and_private_ranges_ask(url: str) -> None:
    check = check_url(url, DEFAULT)
    assert check.verdict is Verdict.ASK, check
    assert any(r.code == "url-private" for r in check.reasons)


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/docs",
        "https://pypi.org/simple/requests/",
        "http://1.1.1.1/",
        "https://github.com/org/repo.git",
        "git@github.com:org/repo.git",
        "https://docs.python.org:443/3/library/ipaddress.html?x=1#y",
        "HTTPS://EXAMPLE.COM",
    ],
)
def test_public_hosts_are_allowed(url: str) -> None:
    assert verdict(url) is Verdict.ALLOW


@pytest.mark.parametrize(
    "url",
    ["http://256.1.1.1/", "http://1.2.3.4.5/", "http:///", "http://%ff/", "gopher://x/", "data:,x"],
)
def test_unreadable_hosts_and_unknown_schemes_ask(url: str) -> None:
    assert verdict(url) is Verdict.ASK


def test_file_urls_are_left_to_the_path_policy() -> None:
    assert verdict("file:///etc/passwd") is Verdict.ASK
    assert file_url_path(" FILE:///etc/passwd") == "/etc/passwd"
    assert file_url_path("file://localhost/home/u/.ssh/id_rsa") == "/home/u/.ssh/id_rsa"
    assert file_url_path("file:.env") == ".env"
    assert file_url_path("https://x/") is None


def test_denied_and_allowed_domains_with_wildcards() -> None:
    config = NetworkConfig(
        allowed_domains=("*.example.com", "pypi.org"), denied_domains=("bad.example.com",)
    )
    assert verdict("https://api.example.com/x", config) is Verdict.ALLOW
    assert verdict("https://pypi.org/", config) is Verdict.ALLOW
    assert verdict("https://example.com/", config) is Verdict.ASK  # `*.` is subdomains only
    assert verdict("https://other.org/", config) is Verdict.ASK
    assert verdict("https://evil.com/?x=.example.com", config) is Verdict.ASK
    assert verdict("https://api.example.com.evil.com/", config) is Verdict.ASK
    assert verdict("https://BAD.example.com./", config) is Verdict.DENY  # deny beats allow
    assert verdict("http://169.254.169.254/", config) is Verdict.DENY  # defaults still there


def test_exact_allowed_entries_lift_the_private_ask_but_never_a_deny() -> None:
    config = NetworkConfig(allowed_domains=("localhost", "10.0.0.0/8", "169.254.169.254"))
    assert verdict("http://localhost:3000/", config) is Verdict.ALLOW
    assert verdict("http://10.1.2.3/", config) is Verdict.ALLOW
    assert verdict("http://127.0.0.1/", config) is Verdict.ASK
    assert verdict("http://169.254.169.254/", config) is Verdict.DENY
    wild = NetworkConfig(allowed_domains=("*",))
    assert verdict("http://127.0.0.1/", wild) is Verdict.ASK
    assert verdict("https://example.org/", wild) is Verdict.ALLOW


def test_private_addresses_setting() -> None:
    assert verdict("http://10.0.0.1/", NetworkConfig(private_addresses="deny")) is Verdict.DENY
    assert verdict("http://10.0.0.1/", NetworkConfig(private_addresses="allow")) is Verdict.ALLOW
    assert verdict("http://[fd00:ec2::254]/", NetworkConfig(private_addresses="allow")) is (
        Verdict.DENY
    )


def test_denied_domains_extend_the_defaults_unless_replaced() -> None:
    extended = NetworkConfig(denied_domains=("evil.com",))
    assert set(DEFAULT_DENIED_DOMAINS) < set(extended.denied_domains)
    replaced = NetworkConfig(denied_domains=("evil.com",), replace_default_denied_domains=True)
    assert replaced.denied_domains == ("evil.com",)
    assert verdict("http://169.254.169.254/", replaced) is Verdict.ASK  # still link-local


@pytest.mark.parametrize("bad", ["", "exa mple.com", "*.*.com", "a.*.com", "http://x/", "ex@mple"])
def test_malformed_domain_patterns_are_refused(bad: str) -> None:
    with pytest.raises(ValidationError, match="denied_domains"):
        NetworkConfig(denied_domains=(bad,))


def test_the_network_section_loads_from_toml(tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "safehold.toml"
    f.write_text('[network]\nallowed_domains = ["*.corp.example"]\nprivate_addresses = "deny"\n')
    config = SafetyConfig.load(f)
    assert config.network.allowed_domains == ("*.corp.example",)
    assert config.network.private_addresses == "deny"
    assert "169.254.0.0/16" in config.network.denied_domains


def test_huge_urls_ask_quickly() -> None:
    assert verdict("http://" + "a." * 50_000 + "com/") is Verdict.ASK
    assert verdict("http://" + "1." * 3000 + "1/") is Verdict.ASK


# -- IP spellings (hypothesis) ------------------------------------------------------------------


def _spell_part(n: int, style: int) -> str:
    return (str(n), hex(n), "0" + oct(n)[2:])[style]


@st.composite
def ipv4_spellings(draw: st.DrawFn) -> tuple[ipaddress.IPv4Address, str]:
    """An address and one of the spellings inet_aton accepts for it."""
    value = draw(st.integers(0, 2**32 - 1))
    address = ipaddress.IPv4Address(value)
    b = address.packed
    parts = draw(st.sampled_from([1, 2, 3, 4]))
    if parts == 1:
        numbers = [value]
    elif parts == 2:
        numbers = [b[0], value & 0xFFFFFF]
    elif parts == 3:
        numbers = [b[0], b[1], value & 0xFFFF]
    else:
        numbers = list(b)
    styles = draw(st.lists(st.integers(0, 2), min_size=parts, max_size=parts))
    text = ".".join(_spell_part(n, s) for n, s in zip(numbers, styles, strict=True))
    if draw(st.booleans()):
        text = text.upper().replace("0X", draw(st.sampled_from(["0x", "0X"])))
    if draw(st.booleans()):
        text += "."
    return address, text


@given(ipv4_spellings())
def test_every_inet_aton_spelling_reads_as_its_address(spelled: tuple[object, str]) -> None:
    address, text = spelled
    assert parse_ipv4(text.lower()) == address


@given(ipv4_spellings(), st.sampled_from(["", ":80", ":2375"]), st.booleans())
def test_an_address_is_judged_the_same_in_every_spelling(
    spelled: tuple[ipaddress.IPv4Address, str], port: str, mapped: bool
) -> None:
    address, text = spelled
    host = f"[::ffff:{address}]" if mapped else text
    assert (
        check_url(f"http://{host}{port}/x", DEFAULT).verdict
        is check_url(f"http://{address}/x", DEFAULT).verdict
    )


@given(st.integers(0, 2**16 - 1), ipv4_spellings())
def test_link_local_is_denied_whatever_the_spelling(low: int, _: object) -> None:
    address = ipaddress.IPv4Address((169 << 24) | (254 << 16) | low)
    for text in (str(int(address)), hex(int(address)), f"169.254.{low}", f"0251.0376.{low}"):
        assert verdict(f"http://{text}/") is Verdict.DENY, text
    assert verdict(f"http://[::ffff:{address}]/") is Verdict.DENY


@given(st.text(max_size=200))
def test_check_url_never_raises_and_never_allows_unreadable_input(text: str) -> None:
    check = check_url(text, DEFAULT)
    if check.verdict is Verdict.ALLOW:
        assert check.hosts
