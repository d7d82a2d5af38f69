"""Scoped "always allow" options over a real ACP connection: the ids and labels offered, and
what each answer records (session, project or user grant; with an expiry)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from safehold import (
    Decision,
    Gate,
    GrantEffect,
    SafetyConfig,
    SessionPolicies,
    ToolCall,
    ToolKind,
    Verdict,
)
from safehold.adapters.acp import AcpPolicyBridge, make_acp_approval_callback
from safehold.adapters.acp._compat import text_block
from safehold.adapters.acp.permission import SCOPED_OPTION_IDS, PermissionOptions
from safehold.grant_store import GrantFiles

from .conftest import PermissionClient, TestAgent, acp_pair, answer_with

pytestmark = pytest.mark.acp

ALL = PermissionOptions(scopes=("session", "project", "user"))


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class ScopedAgent(TestAgent):
    """Each prompt line is a shell command in `workspace`, gated with a grant store."""

    __test__ = False

    def __init__(self, workspace: Path, options: PermissionOptions, clock: Clock | None = None):
        super().__init__()
        self.policies = SessionPolicies(SafetyConfig())
        self.gate = Gate(self.policies, grant_store=GrantFiles(), clock=clock)
        self.workspace = workspace
        self.options = options
        self.decisions: list[Decision] = []
        self.on_prompt = self.run_prompt

    async def new_session(self, cwd: str, mcp_servers: list[Any], **kwargs: Any) -> Any:
        response = await super().new_session(cwd=cwd, mcp_servers=mcp_servers)
        self.policies.open(response.session_id, str(self.workspace))
        return response

    async def run_prompt(self, session_id: str, prompt: list[Any]) -> None:
        callback = make_acp_approval_callback(
            self.conn, session_id, timeout=5, workspace=str(self.workspace), options=self.options
        )
        for block in prompt:
            call = ToolCall("bash", {"command": block.text}, ToolKind.EXECUTE)
            self.decisions.append(await self.gate.check(session_id, call, callback))


async def run(agent: ScopedAgent, client: PermissionClient, *lines: str) -> list[Verdict]:
    async with acp_pair(agent, client) as pair:
        await pair.client_conn.initialize(protocol_version=1)
        sid = (await pair.client_conn.new_session(cwd="/", mcp_servers=[])).session_id
        await pair.client_conn.prompt(session_id=sid, prompt=[text_block(x) for x in lines])
    return [d.verdict for d in agent.decisions]


@pytest.fixture(autouse=True)
def _own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


def offered(client: PermissionClient) -> list[tuple[str, str, str]]:
    _, _, options = client.requests[0]
    return [(o.option_id, o.name, o.kind) for o in options]


async def test_the_default_offers_the_four_ids_whose_labels_say_session(ws: Path) -> None:
    client = PermissionClient(answer_with("allow-once"))
    await run(ScopedAgent(ws, PermissionOptions()), client, "make")
    assert offered(client) == [
        ("allow-once", "Allow once", "allow_once"),
        ("allow-always", "Always allow in this session", "allow_always"),
        ("reject-once", "Reject", "reject_once"),
        ("reject-always", "Always reject in this session", "reject_always"),
    ]


async def test_a_scoped_id_that_was_not_offered_denies(ws: Path) -> None:
    client = PermissionClient(answer_with("allow-always-project"))
    verdicts = await run(ScopedAgent(ws, PermissionOptions()), client, "make")
    assert verdicts == [Verdict.DENY]
    assert GrantFiles().load("project", str(ws)) == ()


async def test_wider_scopes_are_offered_with_their_own_ids_and_labels(ws: Path) -> None:
    client = PermissionClient(answer_with("allow-once"))
    await run(ScopedAgent(ws, ALL), client, "make")
    assert offered(client) == [
        ("allow-once", "Allow once", "allow_once"),
        ("allow-always", "Always allow in this session", "allow_always"),
        ("allow-always-project", "Always allow in this project", "allow_always"),
        ("allow-always-user", "Always allow everywhere (all projects)", "allow_always"),
        ("reject-once", "Reject", "reject_once"),
        ("reject-always", "Always reject in this session", "reject_always"),
    ]
    _, tool_call, _ = client.requests[0]
    texts = [c.content.text for c in tool_call.content]
    assert (
        "An \u201calways\u201d answer covers exactly this command, in this session, this "
        "project or every project, as your answer says." in texts
    )


async def test_allow_always_project_holds_for_the_next_agent_in_the_project(
    ws: Path, tmp_path: Path
) -> None:
    first = PermissionClient(answer_with(SCOPED_OPTION_IDS["project"]))
    assert await run(ScopedAgent(ws, ALL), first, "make") == [Verdict.ALLOW]
    (grant,) = GrantFiles().load("project", str(ws))
    assert (grant.scope, grant.effect, grant.what) == ("project", GrantEffect.ALLOW, "make")
    # Another agent process, another connection, the same project: nobody is asked.
    again = PermissionClient(answer_with("reject-once"))
    assert await run(ScopedAgent(ws, ALL), again, "make", "make test") == [
        Verdict.ALLOW,
        Verdict.DENY,  # another command: asked, and rejected
    ]
    assert [tc.title for _, tc, _ in again.requests] == ["make test"]
    # Another project: asked.
    other = tmp_path / "other"
    other.mkdir()
    elsewhere = PermissionClient(answer_with("reject-once"))
    assert await run(ScopedAgent(other, ALL), elsewhere, "make") == [Verdict.DENY]


async def test_allow_always_user_holds_in_every_project(ws: Path, tmp_path: Path) -> None:
    await run(ScopedAgent(ws, ALL), PermissionClient(answer_with("allow-always-user")), "make")
    other = tmp_path / "other"
    other.mkdir()
    client = PermissionClient(answer_with("reject-once"))
    assert await run(ScopedAgent(other, ALL), client, "make") == [Verdict.ALLOW]
    assert client.requests == []


async def test_the_old_allow_always_id_still_means_the_session(ws: Path) -> None:
    agent = ScopedAgent(ws, ALL)
    client = PermissionClient(answer_with("allow-always"))
    assert await run(agent, client, "make", "make") == [Verdict.ALLOW, Verdict.ALLOW]
    assert len(client.requests) == 1
    assert not GrantFiles().root.exists()  # nothing outlives the session
    assert list(agent.policies.grants("sess-1").values()) == [GrantEffect.ALLOW]


async def test_an_expiring_grant_says_so_and_asks_again_after(ws: Path) -> None:
    clock = Clock()
    options = PermissionOptions(scopes=("session", "project"), expires_in=3600)
    client = PermissionClient(answer_with("allow-always-project"))
    agent = ScopedAgent(ws, options, clock)
    assert await run(agent, client, "make") == [Verdict.ALLOW]
    labels = [name for _, name, _ in offered(client)]
    assert labels[1:3] == [
        "Always allow in this session for 1 h",
        "Always allow in this project for 1 h",
    ]
    assert labels[-1] == "Always reject in this session"  # a reject never expires
    (grant,) = GrantFiles().load("project", str(ws))
    assert grant.expires_at == clock.now + 3600
    clock.now += 3600
    later = PermissionClient(answer_with("reject-once"))
    assert await run(ScopedAgent(ws, options, clock), later, "make") == [Verdict.DENY]
    assert len(later.requests) == 1  # the grant expired: asked again


def test_a_bridge_will_not_offer_scopes_it_cannot_keep() -> None:
    policies = SessionPolicies()
    with pytest.raises(ValueError, match="no grant_store"):
        AcpPolicyBridge(policies, permission_options=ALL)
    AcpPolicyBridge(policies, gate=Gate(policies, grant_store=GrantFiles()), permission_options=ALL)


@pytest.mark.parametrize(
    "fields",
    [
        {"scopes": ("project",)},  # the session id is always offered
        {"scopes": ("session", "org")},
        {"expires_in": 0},
        {"ids": {"allow_once": "allow-always-project"}, "scopes": ("session", "project")},
    ],
)
def test_bad_permission_options_are_refused(fields: dict[str, Any]) -> None:
    if "ids" in fields:
        from safehold.adapters.acp.permission import OPTION_IDS

        fields["ids"] = {**OPTION_IDS, **fields["ids"]}
    with pytest.raises(ValueError):
        PermissionOptions(**fields)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--grant-scopes", "session,org"], "error: --grant-scopes: unknown scope `org`"),
        (["--always-for", "soon"], "error: --always-for: duration `soon`"),
    ],
)
def test_acp_command_rejects_bad_grant_flags(args: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "safehold", "acp", *args],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[0].startswith(message)
    assert "Traceback" not in done.stderr
