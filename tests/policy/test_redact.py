"""Secret redaction for audit records: secrets go, everything else stays character for character."""

from __future__ import annotations

import pytest

from safehold.policy.redact import REDACTED, is_sensitive_key, redact, redact_text

CASES = [
    (
        "export OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz && python run.py",
        "export OPENAI_API_KEY=[REDACTED] && python run.py",
    ),
    (
        "curl -H 'Authorization: Bearer abc.def.ghi12345' https://x.io/v1?token=zzz&page=2",
        "curl -H 'Authorization: Bearer [REDACTED]' https://x.io/v1?token=[REDACTED]&page=2",
    ),
    (
        "curl -H 'authorization: basic dXNlcjpwYXNz' x",
        "curl -H 'authorization: basic [REDACTED]' x",
    ),
    ("mysql --password=hunter2 -u root db", "mysql --password=[REDACTED] -u root db"),
    ("psql --password hunter2 -d db", "psql --password [REDACTED] -d db"),
    (
        "git clone https://user:s3cr3t@github.com/o/r.git",
        "git clone https://user:[REDACTED]@github.com/o/r.git",
    ),
    (
        "gh auth login --with-token ghp_abcdefghijklmnopqrstuvwxyz0123",
        "gh auth login --with-token [REDACTED]",
    ),
    ("echo AKIAABCDEFGHIJKLMNOP", "echo [REDACTED]"),
    ("X-Api-Key: abcdef123 rest", "X-Api-Key: [REDACTED] rest"),
    ('{"password": "hunter 2", "user": "bob"}', '{"password": "[REDACTED]", "user": "bob"}'),
    ("AWS_SECRET_ACCESS_KEY=abc/def+ghi aws s3 ls", "AWS_SECRET_ACCESS_KEY=[REDACTED] aws s3 ls"),
    ("slack xoxb-1234567890-abcdefghij done", "slack [REDACTED] done"),
    (
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N end",
        "jwt [REDACTED] end",
    ),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----\nafter",
        "-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\nafter",
    ),
    (
        "cat <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk cut off",
        "cat <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]",
    ),
]
UNTOUCHED = [
    "rm -rf build/ && ls -la",
    "grep password file.txt",
    "echo token abc",
    "cd $PWD && ls",
    "max_tokens=100 python x.py",
    "tokenizer=bpe author=me python x.py",
    "http://localhost:8080/path?page=2",
    "git commit -m 'rotate the api key handling'",
    "",
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_secret_is_replaced_and_the_rest_kept(text: str, expected: str) -> None:
    assert redact_text(text) == expected


@pytest.mark.parametrize("text", UNTOUCHED)
def test_text_without_secrets_is_unchanged(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.parametrize("text", [t for t, _ in CASES] + UNTOUCHED)
def test_redaction_is_idempotent(text: str) -> None:
    once = redact_text(text)
    assert redact_text(once) == once


def test_long_command_is_never_shortened() -> None:
    command = "echo " + "a " * 50_000 + "API_KEY=sk-abcdefghijklmnopqrstuvwx tail"
    out = redact_text(command)
    assert out == command.replace("sk-abcdefghijklmnopqrstuvwx", REDACTED)


def test_mappings_redact_values_under_sensitive_keys() -> None:
    data = {
        "command": "ls",
        "password": "x",
        "apiKey": "k",
        "nested": {"client_secret": {"deep": 1}, "max_tokens": 5, "token_count": 3},
        "env": {"GITHUB_TOKEN": "g", "HOME": "/root"},
        "list": ["Bearer abcdefghijkl", 4, None, True],
        "raw": b"password=hunter2",
    }
    assert redact(data) == {
        "command": "ls",
        "password": REDACTED,
        "apiKey": REDACTED,
        "nested": {"client_secret": REDACTED, "max_tokens": 5, "token_count": 3},
        "env": {"GITHUB_TOKEN": REDACTED, "HOME": "/root"},
        "list": ["Bearer [REDACTED]", 4, None, True],
        "raw": "password=[REDACTED]",
    }


def test_redact_survives_deep_and_odd_values() -> None:
    deep: dict[str, object] = {}
    cur = deep
    for _ in range(200):
        cur["k"] = {}
        cur = cur["k"]  # type: ignore[assignment]
    assert "[REDACTED]" in str(redact(deep))
    assert redact(("a", {1, 2})) in (["a", [1, 2]], ["a", [2, 1]])


@pytest.mark.parametrize(
    ("key", "sensitive"),
    [
        ("password", True),
        ("DB_PASSWORD", True),
        ("apiKey", True),
        ("api-key", True),
        ("x-api-key", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("authorization", True),
        ("auth", True),
        ("oauth_token", True),
        ("cookie", True),
        ("author", False),
        ("max_tokens", False),
        ("tokenizer", False),
        ("path", False),
        ("command", False),
        ("PWD", False),
        ("keyboard", False),
    ],
)
def test_sensitive_keys(key: str, sensitive: bool) -> None:
    assert is_sensitive_key(key) is sensitive


@pytest.mark.parametrize(
    "text",
    ["password" * 25_000, "-" * 200_000, "a=b " * 50_000, "x://a:" * 30_000, "A" * 200_000],
)
@pytest.mark.timeout(300)
def test_issue_5_long_runs_pass_through_unchanged(text: str) -> None:
    # Long runs of what the patterns look for hold no secret and come back as they were.
    # Growth with size is measured in benchmarks/bench_redact.py; the timeout only turns a
    # pattern gone quadratic (minutes on 200,000 characters) into a failure, not a hang.
    assert redact_text(text) == text
