"""Secret redaction for audit records: hide credentials, keep everything else verbatim.

Redaction replaces only the secret itself with ``[REDACTED]``; the text around it is kept
character for character, so an audit line still shows the whole command a person approved
(never a shortened or summarised one). It is a best-effort filter for the log, not a
security boundary: a secret in a format nobody recognises is logged as it is.

What is recognised:

- values under sensitive keys (``password``, ``token``, ``api_key``, ``secret``, ...), in
  mappings and in ``KEY=value`` / ``--key value`` / ``"key": "value"`` text;
- ``Authorization:`` headers and ``Bearer`` / ``Basic`` credentials;
- PEM private key blocks (``-----BEGIN ... PRIVATE KEY-----`` to the matching END, or to the
  end of the text when the block is cut off);
- well-known token shapes: OpenAI/Anthropic ``sk-``, GitHub ``ghp_``/``github_pat_``, GitLab
  ``glpat-``, Slack ``xox?-``, AWS ``AKIA``, Google ``AIza``, Hugging Face ``hf_``, npm
  ``npm_``, Stripe ``sk_live_``, JWTs;
- passwords in URLs (``scheme://user:password@host``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["REDACTED", "is_sensitive_key", "redact", "redact_text"]

REDACTED = "[REDACTED]"

# Key names (normalised to lowercase snake case) whose values are credentials. Plural
# "tokens" is deliberately absent: `max_tokens` is a count, not a secret.
_KEY_WORDS = (
    r"password|passwd|passphrase|secret|secrets|token|api_?key|apikey|access_?key|"
    r"secret_?key|private_?key|client_?secret|authorization|auth|credential|credentials|"
    r"cookie|session_?key|bearer"
)
_SENSITIVE_KEY = re.compile(rf"(?:^|_)(?:{_KEY_WORDS})(?:$|_)")

_PEM_BLOCK = re.compile(
    r"(-----BEGIN (?P<label>[A-Z0-9 ]{0,40}PRIVATE KEY)-----)"
    r"(?:.*?(-----END (?P=label)-----)|.*\Z)",
    re.DOTALL,
)
_AUTH_HEADER = re.compile(
    r"(?i)(\b(?:proxy-)?authorization\s*[:=]\s*)(?!\[REDACTED\])"
    r"(?:(bearer|basic|token|digest)\s+)?([^\s'\"\\,;]+)"
)
_BEARER = re.compile(r"(?i)(\bbearer\s+)(?!\[REDACTED\])([A-Za-z0-9._~+/=-]{8,})")
# The scheme starts where a run of scheme characters starts (not at `\b`, which also holds
# after every `.`, `+` or `-` inside the run and made the search quadratic on `a.a.a…`).
_URL_PASSWORD = re.compile(
    r"((?<![a-zA-Z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@'\"]+:)(?!\[REDACTED\])([^\s@/'\"]+)(@)"
)
_TOKEN_SHAPES = re.compile(
    r"\b(?:"
    r"sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}"
    r"|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_-]{35}"
    r"|hf_[A-Za-z0-9]{20,}"
    r"|npm_[A-Za-z0-9]{20,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r")"
)
# `NAME=value`, `name: value`, `"name": "value"`, `--name=value` and `--name value`: the
# name is checked with `is_sensitive_key`; the value stops at whitespace, a quote or a shell
# separator, so the rest of the command survives.
# A whole identifier (possessive: never re-split on failure, which would be quadratic on
# long runs such as `passwordpassword...`) that contains a sensitive word somewhere.
_NAME_WITH_WORD = (
    r"(?=[A-Za-z0-9_.-]*?(?i:" + _KEY_WORDS.replace("_?", "[_-]?") + r"))[A-Za-z0-9_.-]++"
)
_NAME = r"(?<![A-Za-z0-9_.-])(?P<dash>--?)?(?P<name>" + _NAME_WITH_WORD + ")"
_VALUE = r"(?P<q>['\"])?(?!\[REDACTED\])(?P<value>(?(q)[^'\"\n]+|[^\s'\";&|,)}]+))"
_ASSIGNMENT = re.compile(_NAME + r"(?P<sep>['\"]?\s*[:=]\s*)" + _VALUE)
_OPTION_VALUE = re.compile(
    r"(?<!\S)(?P<dash>--?)(?P<name>" + _NAME_WITH_WORD + r")(?P<sep>\s+)(?!-)" + _VALUE
)
# Scheme words that follow `Authorization:`; the credential after them is what is hidden.
_AUTH_SCHEMES = frozenset({"bearer", "basic", "digest", "token"})


def is_sensitive_key(key: str) -> bool:
    """True when a mapping key or option name names a credential (`api_key`, `--password`)."""
    norm = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key.strip().lstrip("-"))
    norm = re.sub(r"[^a-z0-9]+", "_", norm.lower()).strip("_")
    return bool(_SENSITIVE_KEY.search(norm))


def _assignment(match: re.Match[str]) -> str:
    if not is_sensitive_key(match.group("name")) or match.group("value").lower() in _AUTH_SCHEMES:
        return match.group(0)
    start = match.start("value") - match.start()
    return match.group(0)[:start] + REDACTED


def redact_text(text: str) -> str:
    """Return `text` with every recognised secret replaced by ``[REDACTED]``, the rest kept."""
    if not text:
        return text
    text = _PEM_BLOCK.sub(
        lambda m: m.group(1) + REDACTED + (m.group(3) or ""),
        text,
    )
    text = _AUTH_HEADER.sub(
        lambda m: m.group(1) + (m.group(2) + " " if m.group(2) else "") + REDACTED, text
    )
    text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    text = _URL_PASSWORD.sub(lambda m: m.group(1) + REDACTED + m.group(3), text)
    text = _TOKEN_SHAPES.sub(REDACTED, text)
    text = _ASSIGNMENT.sub(_assignment, text)
    # The space form only for option-looking names, so `grep password file` is left alone.
    return _OPTION_VALUE.sub(_assignment, text)


def redact(value: Any, *, _depth: int = 0) -> Any:
    """Return a JSON-ready copy of `value` with secrets redacted (mappings, sequences, text)."""
    if _depth > 64:
        # A structure this deep is not a tool call anyone reads; do not recurse forever.
        return REDACTED
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, bool | int | float) or value is None:
        return value
    if isinstance(value, bytes | bytearray):
        return redact_text(bytes(value).decode("utf-8", "replace"))
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = str(key)
            if (
                is_sensitive_key(name)
                and item is not None
                and not isinstance(item, bool | int | float)
            ):
                out[name] = REDACTED
            else:
                out[name] = redact(item, _depth=_depth + 1)
        return out
    if isinstance(value, list | tuple | set | frozenset):
        return [redact(item, _depth=_depth + 1) for item in value]
    return redact_text(repr(value))
