"""Red-team regressions for the approval flow over a real ACP connection (issues 5-7)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from safehold.adapters.acp.bridge import AcpPolicyBridge
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.decision import Verdict
from safehold.policy.grants import GrantEffect
from safehold.policy.sessions import SessionPolicies
from tests.adapters.acp.bridge_harness import BridgeAgent, RecordingClient, connected, eventually

pytestmark = pytest.mark.acp


def bash(command: str, call_id: str, **extra: Any) -> ToolCall:
    return ToolCall(
        name="bash",
        arguments={"command": command, **extra},
        kind=ToolKind.EXECUTE,
        tool_call_id=call_id,
    )


def codes(decision: Any) -> list[str]:
    return [r.code for r in decision.reasons]


class ScriptedClient(RecordingClient):
    """Answers the n-th permission request with the n-th kind of `script` (the last repeats)."""

    def __init__(self, script: list[str], hold: asyncio.Event | None = None) -> None:
        super().__init__(answer=script[0], hold=hold)
        self.script = list(script)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        n = len(self.permission_requests)
        self.answer = self.script[min(n, len(self.script) - 1)]
        return await super().request_permission(session_id, tool_call, options, **kwargs)


async def _session(conn: Any, tmp_path: Path) -> str:
    return str((await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id)


async def test_issue_5_shared_always_allow_does_not_lift_a_hard_ask_of_another_call(
    tmp_path: Path,
) -> None:
    # Two concurrent calls share the grant key cmd:[["make"]], so they share one dialog.
    # The person is shown plain `make` and answers "Always allow". The second call carries
    # an `env` with LD_PRELOAD, which grants never lift: it must be asked about on its own
    # (and here the person rejects it), not ride on the answer about plain `make`.
    agent = BridgeAgent(AcpPolicyBridge(SessionPolicies()))
    hold = asyncio.Event()
    client = ScriptedClient(["allow_always", "reject_once"], hold=hold)
    env = {"LD_PRELOAD": "/tmp/evil.so"}
    async with connected(agent, client) as conn:
        sid = await _session(conn, tmp_path)
        gate = agent.bridge.gate_tool_call
        plain = asyncio.create_task(gate(agent.conn, sid, bash("make", "c1")))
        await eventually(lambda: len(client.permission_requests) == 1, "first dialog opened")
        sneaky = asyncio.create_task(gate(agent.conn, sid, bash("make", "c2", env=env)))
        await asyncio.sleep(0.05)  # the second call joins the open dialog
        assert len(client.permission_requests) == 1
        hold.set()
        allowed = await plain
        decision = await sneaky
    assert allowed.verdict is Verdict.ALLOW
    assert decision.verdict is Verdict.DENY, codes(decision)
    assert "rejected-once" in codes(decision)
    shown = [req[1].raw_input for req in client.permission_requests]
    assert shown == [{"command": "make"}, {"command": "make", "env": env}]


async def test_an_env_argument_asks_again_after_always_allow_of_the_same_command(
    tmp_path: Path,
) -> None:
    # The person answered "Always allow" for `make`: the session now holds a real allow grant
    # for cmd:[["make"]], and the next plain `make` runs without a dialog. The same command
    # with an `env` argument must open a new dialog (here rejected), not ride on the grant.
    policies = SessionPolicies()
    agent = BridgeAgent(AcpPolicyBridge(policies))
    client = ScriptedClient(["allow_always", "reject_once"])
    env = {"LD_PRELOAD": "evil.so"}
    async with connected(agent, client) as conn:
        sid = await _session(conn, tmp_path)
        gate = agent.bridge.gate_tool_call
        first = await gate(agent.conn, sid, bash("make", "c1"))
        assert first.verdict is Verdict.ALLOW
        assert first.grant_key is not None
        assert dict(policies.grants(sid)) == {first.grant_key: GrantEffect.ALLOW}
        again = await gate(agent.conn, sid, bash("make", "c2"))
        assert again.verdict is Verdict.ALLOW, codes(again)
        assert len(client.permission_requests) == 1, "the grant answers plain `make`"
        sneaky = await gate(agent.conn, sid, bash("make", "c3", env=env))
    assert len(client.permission_requests) == 2, "`make` with `env` must be asked about"
    assert client.permission_requests[1][1].raw_input == {"command": "make", "env": env}
    assert sneaky.verdict is Verdict.DENY, codes(sneaky)
    assert "rejected-once" in codes(sneaky)


@pytest.mark.parametrize("how", ["load", "close-then-reopen"])
async def test_issue_6_an_answer_never_lands_in_a_reloaded_session(
    tmp_path: Path, how: str
) -> None:
    # A dialog opened in session S is still pending when the client reloads S (a new
    # instance of it), or closes it and opens the same id again. The late "Always allow" was given to the old S: it must not record a grant in the
    # new S nor allow the call there.
    policies = SessionPolicies()
    agent = BridgeAgent(AcpPolicyBridge(policies))
    hold = asyncio.Event()
    client = RecordingClient(answer="allow_always", hold=hold)
    async with connected(agent, client) as conn:
        sid = await _session(conn, tmp_path)
        pending = asyncio.create_task(
            agent.bridge.gate_tool_call(agent.conn, sid, bash("make", "c1"))
        )
        await eventually(lambda: len(client.permission_requests) == 1, "dialog opened")
        if how == "load":
            await conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
        else:
            agent.bridge.close_session(sid)
            agent.bridge.new_session(sid, str(tmp_path))
        hold.set()
        decision = await pending
        assert decision.verdict is Verdict.DENY, codes(decision)
        assert "session-reloaded" in codes(decision)
        assert dict(policies.grants(sid)) == {}
        # The reloaded session asks again for the same command.
        client.answer = "reject_once"
        again = await agent.bridge.gate_tool_call(agent.conn, sid, bash("make", "c2"))
    assert again.verdict is Verdict.DENY
    assert "rejected-once" in codes(again)
    assert len(client.permission_requests) == 2


def test_issue_6_a_grant_for_an_earlier_instance_of_the_session_is_refused(tmp_path: Path) -> None:
    from safehold.errors import UnknownSessionError

    policies = SessionPolicies()
    policies.open("s", str(tmp_path))
    first = policies.generation("s")
    policies.load("s", str(tmp_path))
    with pytest.raises(UnknownSessionError):
        policies.grant("s", 'tool:"x"', GrantEffect.ALLOW, generation=first)
    assert dict(policies.grants("s")) == {}
    policies.grant("s", 'tool:"x"', GrantEffect.ALLOW, generation=policies.generation("s"))
    assert dict(policies.grants("s")) == {'tool:"x"': GrantEffect.ALLOW}
    policies.close("s")
    policies.open("s", str(tmp_path))
    assert policies.generation("s") not in {first}
    forked = policies.fork("s", "t")
    assert forked is not None and policies.generation("t") != policies.generation("s")


async def test_issue_7_terminal_args_are_shown_in_the_permission_dialog(tmp_path: Path) -> None:
    # ACP's terminal shape is `command` + `args`; the engine decides (and the grant key
    # records) the whole argv. The person must see the whole argv too, not just `rm`.
    agent = BridgeAgent(AcpPolicyBridge(SessionPolicies()))
    client = RecordingClient(answer="reject_once")
    target = str(tmp_path / "data")
    call = ToolCall(
        name="terminal",
        arguments={"command": "rm", "args": ["-rf", target]},
        kind=ToolKind.EXECUTE,
        tool_call_id="c1",
    )
    async with connected(agent, client) as conn:
        sid = await _session(conn, tmp_path)
        decision = await agent.bridge.gate_tool_call(agent.conn, sid, call)
    assert decision.verdict is Verdict.DENY
    assert decision.grant_key is not None and target in decision.grant_key
    shown = client.permission_requests[0][1]
    assert shown.title == f"rm -rf {target}"
    texts = [c.content.text for c in shown.content if getattr(c, "type", "") == "content"]
    assert f"rm -rf {target}" not in texts  # shown once, in full, as the title


async def test_issue_7_the_dialog_says_an_always_answer_covers_the_whole_tool(
    tmp_path: Path,
) -> None:
    # A tool without a command or a path gets a tool-wide grant key: "Always allow" for one
    # `send_email` to a colleague also allows every later `send_email`, to anyone. The
    # person must be told that scope in the dialog before choosing it.
    agent = BridgeAgent(AcpPolicyBridge(SessionPolicies()))
    client = RecordingClient(answer="allow_always")
    call = ToolCall(
        name="send_email",
        arguments={"to": "colleague@example.com"},
        kind=ToolKind.OTHER,
        tool_call_id="c1",
    )
    later = ToolCall(
        name="send_email",
        arguments={"to": "attacker@example.net"},
        kind=ToolKind.OTHER,
        tool_call_id="c2",
    )
    async with connected(agent, client) as conn:
        sid = await _session(conn, tmp_path)
        first = await agent.bridge.gate_tool_call(agent.conn, sid, call)
        second = await agent.bridge.gate_tool_call(agent.conn, sid, later)
    assert first.grant_key == 'tool:"send_email"'
    assert second.verdict is Verdict.ALLOW  # the grant is tool-wide by design (SPEC 6.2) ...
    shown = client.permission_requests[0][1]
    texts = [c.content.text for c in shown.content if getattr(c, "type", "") == "content"]
    # ... and the person was told so when they chose it.
    assert any("every `send_email` call, whatever its arguments" in t for t in texts), texts


def test_issue_7_always_scope_names_each_kind_of_key() -> None:
    from safehold.adapters.acp.permission import always_scope
    from safehold.policy.grants import command_grant_key, path_grant_key

    assert "exactly this command" in always_scope(command_grant_key([["make"]]))
    path = always_scope(path_grant_key("write_file", ["/w/a.txt"]))
    assert "`write_file`" in path and "`/w/a.txt`" in path and "whatever it writes" in path
    assert "asks again" in always_scope(None)
    assert "`odd`" in always_scope("odd")
    assert "`path:[broken`" in always_scope("path:[broken")


class _ReloadingClient(RecordingClient):
    """Answers the dialog, then at once asks the agent to load the session in another cwd."""

    conn: Any = None
    other: str = ""
    sid: str = ""

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        response = await super().request_permission(session_id, tool_call, options, **kwargs)
        # One loop turn later: the answer is on its way before the load request, so the
        # gate has concluded when the load lands, and the agent is about to run.
        loop = asyncio.get_running_loop()
        self.pending: asyncio.Future[Any] = loop.create_future()

        def send_load() -> None:
            load = self.conn.load_session(cwd=self.other, session_id=self.sid, mcp_servers=[])
            asyncio.ensure_future(load).add_done_callback(
                lambda f: self.pending.set_result(f.result())
            )

        loop.call_soon(send_load)
        return response


@pytest.mark.sandbox
async def test_issue_6_a_command_judged_in_one_workspace_never_runs_in_a_reloaded_one(
    tmp_path: Path,
) -> None:
    # The reference agent: `touch ran-here` is allowed in session S (cwd a); right after the
    # answer the client loads S again with cwd b. The command was judged against a, so it
    # must not run in b (it used to: the cwd was read after the decision).
    from acp.schema import TextContentBlock

    from safehold.adapters.acp.agent import SafeholdAgent

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    agent = SafeholdAgent()
    client = _ReloadingClient(answer="allow_once")
    async with connected(agent, client) as conn:
        sid = str((await conn.new_session(cwd=str(a), mcp_servers=[])).session_id)
        client.conn, client.other, client.sid = conn, str(b), sid
        block = TextContentBlock(type="text", text="touch ran-here")
        await conn.prompt(session_id=sid, prompt=[block])
        await client.pending
        final = [u for u in client.of_kind("tool_call_update") if u.status == "failed"]
    assert not (b / "ran-here").exists()
    assert not (a / "ran-here").exists()
    text = final[-1].content[0].content.text if final else ""
    assert "not run" in text or "session-reloaded" in text, text
