"""Every URL form of the network programs is judged: curl globs, `--resolve`/`--connect-to`,
proxies (options, `wget -e`, environment variables), pip and npm index and registry options.
Also the metadata spellings `urls` documents (6to4, IPv4-compatible)."""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.policy.decision import Decision, Verdict
from safehold.policy.shell.programs.network import MAX_GLOB_URLS, destinations
from safehold.policy.urls import check_url
from tests.strategies import runner_for

AUTO = SafetyConfig().with_mode("auto")
CONFIGS = [pytest.param(AUTO, id="sandbox"), pytest.param(AUTO.without_sandbox(), id="host")]
META = "169.254.169.254"


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    workspace = tmp_path / "proj"
    workspace.mkdir()
    return workspace


def _decide(config: SafetyConfig, command: str, ws: Path) -> Decision:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    return evaluate(config, call, workspace=str(ws), runner=runner_for(config))


HIDDEN_METADATA = [
    f"curl 'http://{{{META},example.com}}/latest'",
    "curl 'http://169.254.169.[250-254]/'",
    "curl --url 'http://169.254.{169,170}.254/'",
    f"curl --resolve example.com:80:{META} http://example.com/",
    f"curl --resolve +example.com:443:[::ffff:{META}] https://example.com/",
    f"curl --connect-to example.com:80:{META}:80 http://example.com/",
    f"curl -x http://{META}:80 http://example.com/",
    f"curl --socks5-hostname {META}:1080 http://example.com/",
    f"wget -e use_proxy=on -e http_proxy={META} http://example.com/",
    f"http_proxy=http://{META} curl http://example.com/",
    f"export HTTPS_PROXY=http://{META}; wget https://example.com/",
    f"env ALL_PROXY=http://{META} curl http://example.com/",
    f"pip install --index-url http://{META}/simple requests",
    f"pip install -i http://{META}/simple requests",
    f"pip3 install --extra-index-url=http://{META}/s requests",
    f"pip install -f http://{META}/wheels requests",
    f"PIP_INDEX_URL=http://{META}/simple pip install requests",
    f"npm install --registry http://{META}/ left-pad",
    f"npm install --registry=http://{META}/ left-pad",
]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("command", HIDDEN_METADATA)
def test_metadata_in_any_url_form_is_not_allowed(
    config: SafetyConfig, command: str, ws: Path
) -> None:
    decision = _decide(config, command, ws)
    assert decision.verdict is not Verdict.ALLOW, decision.reasons


@pytest.mark.parametrize(
    "command",
    [
        "curl 'https://example.com/page[1-3].html'",
        "curl 'https://{www,docs}.example.com/'",
        "pip install -i https://pypi.org/simple requests",
        "pip install -f ./wheels requests",
        "npm install --registry=https://registry.npmjs.org/ left-pad",
        "http_proxy=http://proxy.example.com:3128 curl https://example.com/",
        "curl --resolve example.com:443:93.184.216.34 https://example.com/",
    ],
)
def test_ordinary_url_forms_stay_allowed(command: str, ws: Path) -> None:
    assert _decide(AUTO, command, ws).verdict is Verdict.ALLOW


def test_a_glob_past_the_bound_asks(ws: Path) -> None:
    decision = _decide(AUTO, "curl 'https://example.com/[1-100000]'", ws)
    assert decision.verdict is Verdict.ASK
    assert "url-glob-too-large" in {r.code for r in decision.reasons}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://h/[1-3]", ["http://h/1", "http://h/2", "http://h/3"]),
        ("http://h/[01-03]", ["http://h/01", "http://h/02", "http://h/03"]),
        ("http://h/[a-c:2]", ["http://h/a", "http://h/c"]),
        ("http://{a,b}/", ["http://a/", "http://b/"]),
        ("http://[::1]/", ["http://[::1]/"]),
    ],
)
def test_curl_glob_expansion(text: str, expected: list[str]) -> None:
    got = destinations("curl", "", text, True)
    assert got is not None
    assert set(expected) <= set(got)
    assert text in got


def test_curl_glob_bound() -> None:
    assert destinations("curl", "", f"http://h/[1-{MAX_GLOB_URLS}]", True) is not None
    assert destinations("curl", "", f"http://h/[1-{MAX_GLOB_URLS + 1}]", True) is None
    assert destinations("curl", "", "http://h/[1-9]/[1-9]", True) is None


@pytest.mark.parametrize(
    "url",
    [
        "http://[2002:a9fe:a9fe::1]/",  # 6to4 of 169.254.169.254
        "http://[::169.254.169.254]/",  # IPv4-compatible
        "http://[::a9fe:a9fe]/",  # the same, in hex
    ],
)
def test_embedded_metadata_addresses_are_denied(url: str) -> None:
    check = check_url(url, AUTO.network)
    assert check.verdict is Verdict.DENY, check.reasons
