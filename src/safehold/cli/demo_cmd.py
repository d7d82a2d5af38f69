"""`safehold demo`: the reference ACP agent against a scripted editor, in one process.

The agent is the same one `safehold acp` serves; the "editor" is an ACP client over a
socketpair that answers permission requests from a script. Each scene prints what the
editor sends, what the agent streams back, and whether the outcome was the expected one.
Nothing leaves a temporary workspace, and the commands really run in the sandbox.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from safehold import CommandRule, SafetyConfig, SandboxConfig, Verdict

_DEMO_TIMEOUT = 0.5  # seconds the agent waits for a permission answer in this demo


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `demo` subcommand."""
    p = sub.add_parser(
        "demo",
        help="watch the ACP agent meet every decision path (allow, ask, deny, timeout, modes)",
        description=(
            "Run the reference ACP agent against a scripted editor and print what happens "
            "on every decision path. Takes a few seconds; touches only a temporary directory."
        ),
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Play every scene; exit 0 when each decision came out as expected."""
    return asyncio.run(play(_print))


def _print(line: str) -> None:
    print(line, flush=True)


@dataclass
class _Editor:
    """The scripted ACP client: prints what arrives and answers permission requests."""

    out: Callable[[str], None]
    answer: str | None = "allow_once"  # an option kind, or None: never answer
    asked: int = 0
    finished: list[Any] = field(default_factory=list)
    sandbox_failed: bool = False
    _never: asyncio.Event = field(default_factory=asyncio.Event)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        kind = update.session_update
        if kind == "tool_call":
            self.out(f"   agent  → tool call `{update.title}` ({update.status})")
        elif kind == "tool_call_update" and update.status in ("completed", "failed"):
            self.finished.append(update)
            self.out(f"   agent  → {update.status}:")
            for block in update.content or []:
                for line in str(getattr(block.content, "text", "")).splitlines():
                    self.out(f"              {line}")
        elif kind == "current_mode_update":
            self.out(f"   agent  → current_mode_update: mode is now `{update.current_mode_id}`")
        elif kind == "config_option_update":
            shown = ", ".join(f"{o.id}={o.current_value}" for o in update.config_options)
            self.out(f"   agent  → config_option_update: {shown}")

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

        self.asked += 1
        names = " / ".join(o.name for o in options)
        self.out(f"   agent  ? permission for `{tool_call.title}` [{names}]")
        if self.answer is None:
            self.out("   editor … (nobody answers)")
            await self._never.wait()  # released at shutdown; the agent stopped waiting long ago
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        chosen = next(o for o in options if o.kind == self.answer)
        self.out(f"   editor ← {chosen.name}")
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen.option_id)
        )


@dataclass(frozen=True)
class _Scene:
    title: str
    command: str
    answer: str | None  # what the editor answers if asked
    asks: bool  # whether the agent should ask
    allowed: bool  # whether the command should be allowed
    creates: str | None = None  # a file the command makes (checked when it ran)
    keeps: str | None = None  # a file that must survive (checked when denied)


async def play(out: Callable[[str], None], *, sandbox: SandboxConfig | None = None) -> int:
    """Run the whole demo, printing the transcript through `out`; return the exit code.

    `sandbox` replaces the sandbox settings (tests use it to show the fail-closed path).
    """
    import acp
    from acp.schema import ClientCapabilities

    from safehold.adapters.acp.agent import SafeholdAgent

    config = _demo_config(sandbox)
    with tempfile.TemporaryDirectory(prefix="safehold-demo-") as tmp:
        workspace = _seed(tmp)
        out("safehold demo: the reference ACP agent (`safehold acp`) and a scripted editor")
        out(f"workspace {workspace} (a temporary directory)")
        out(
            f"sandbox   {config.sandbox.mode}; the editor's answers time out after "
            f"{_DEMO_TIMEOUT:g} s; rules: `ls *` and `cat *` are allowed"
        )
        editor = _Editor(out)
        agent: Any = SafeholdAgent(config)  # duck-typed: the SDK's protocols differ by version
        a, b = socket.socketpair()
        agent_reader, agent_writer = await asyncio.open_connection(sock=a)
        editor_reader, editor_writer = await asyncio.open_connection(sock=b)
        served = asyncio.create_task(
            acp.run_agent(agent, agent_writer, agent_reader, use_unstable_protocol=True)
        )
        client: Any = editor
        conn = acp.connect_to_agent(
            client, editor_writer, editor_reader, use_unstable_protocol=True
        )
        try:
            await conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
            )
            session = await conn.new_session(cwd=workspace, mcp_servers=[])
            mode = session.modes.current_mode_id if session.modes else "?"
            out(f"session   opened in mode `{mode}`")
            failures = await _scenes(conn, editor, session.session_id, workspace, out)
        finally:
            editor._never.set()
            await conn.close()
            served.cancel()
            await asyncio.gather(served, return_exceptions=True)
            for w in (editor_writer, agent_writer):
                w.close()
    out("")
    if editor.sandbox_failed:
        out(
            "note: the sandbox could not run here, so allowed commands were reported as "
            "failed and never ran unsandboxed (see `safehold run -- true` and docs/sandbox.md)"
        )
    if failures:
        out(f"{failures} scene(s) did not go as expected (see ✗ above)")
        return 1
    out("every decision path went as expected")
    return 0


async def _scenes(
    conn: Any, editor: _Editor, sid: str, workspace: str, out: Callable[[str], None]
) -> int:
    failures = 0

    async def scene(n: int, s: _Scene) -> None:
        nonlocal failures
        out("")
        out(f"{n}. {s.title}")
        ok = await _prompt(conn, editor, sid, workspace, s, out)
        failures += not ok

    await scene(1, _Scene("allowed by a rule", "ls -a", "allow_once", False, True))
    await scene(
        2,
        _Scene("ask → allow once", "touch notes.txt", "allow_once", True, True, "notes.txt"),
    )
    always = _Scene("ask → allow always", "mkdir -p build", "allow_always", True, True, "build")
    await scene(3, always)
    await scene(
        4,
        _Scene(
            "the same command again: not asked (granted always)",
            "mkdir -p build",
            "reject_once",
            False,
            True,
        ),
    )
    await scene(
        5, _Scene("ask → reject", "rm notes.txt", "reject_once", True, False, keeps="notes.txt")
    )
    await scene(6, _Scene("a secret read is denied", "cat .env", "allow_once", False, False))

    out("")
    out("7. read-only mode denies a write")
    out("   editor → session/set_mode read-only")
    await conn.set_session_mode(session_id=sid, mode_id="read-only")
    s = _Scene("", "touch blocked.txt", "allow_once", False, False)
    failures += not await _prompt(conn, editor, sid, workspace, s, out, quiet_title=True)

    out("")
    out("8. a config-option toggle: auto-approve commands")
    out("   editor → session/set_mode review")
    await conn.set_session_mode(session_id=sid, mode_id="review")
    out("   editor → session/set_config_option auto_approve_execute = true")
    resp = await conn.set_config_option(
        session_id=sid, config_id="auto_approve_execute", value="true"
    )
    shown = ", ".join(f"{o.id}={o.current_value}" for o in resp.config_options)
    out(f"   agent  → (reply) options now: {shown}")
    s = _Scene("", "touch auto.txt", "reject_once", False, True, "auto.txt")
    failures += not await _prompt(conn, editor, sid, workspace, s, out, quiet_title=True)

    out("")
    out(f"9. a permission timeout ({_DEMO_TIMEOUT:g} s): nobody answers, so it is denied")
    out("   editor → session/set_config_option auto_approve_execute = false")
    await conn.set_config_option(session_id=sid, config_id="auto_approve_execute", value="false")
    s = _Scene("", "touch late.txt", None, True, False, keeps=None)
    ok = await _prompt(conn, editor, sid, workspace, s, out, quiet_title=True)
    if _exists(workspace, "late.txt"):
        ok = False
        out("   ✗ late.txt exists")
    failures += not ok
    return failures


async def _prompt(
    conn: Any,
    editor: _Editor,
    sid: str,
    workspace: str,
    s: _Scene,
    out: Callable[[str], None],
    *,
    quiet_title: bool = False,
) -> bool:
    from acp.schema import TextContentBlock

    editor.answer = s.answer
    kept_before = s.keeps is not None and _exists(workspace, s.keeps)
    asked_before, finished_before = editor.asked, len(editor.finished)
    out(f"   editor → prompt: {s.command}")
    await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text=s.command)])
    # Older SDKs return from prompt() before the last updates are handled: wait (bounded)
    # for this scene's one command to finish.
    for _ in range(1000):
        if len(editor.finished) > finished_before:
            break
        await asyncio.sleep(0.01)
    update = editor.finished[finished_before] if len(editor.finished) > finished_before else None
    asked = editor.asked > asked_before
    raw = getattr(update, "raw_output", None) or {}
    verdict = raw.get("verdict")
    problems = []
    if asked != s.asks:
        problems.append("asked" if asked else "not asked")
    if (verdict == "allow") != s.allowed:
        problems.append(f"verdict {verdict}")
    if "error" in raw:
        editor.sandbox_failed = True
        out("   ! the sandbox is unavailable here, so nothing ran (safehold fails closed)")
    elif s.allowed and s.creates and not _exists(workspace, s.creates):
        problems.append(f"{s.creates} was not created")
    if s.keeps and kept_before and not _exists(workspace, s.keeps):
        problems.append(f"{s.keeps} is gone")
    if problems:
        out(f"   ✗ unexpected: {', '.join(problems)}")
        return False
    what = "allowed" if s.allowed else "denied"
    how = "after asking" if s.asks else "without asking"
    effect = f"; {s.creates} exists" if s.allowed and s.creates and "error" not in raw else ""
    effect += f"; {s.keeps} is still there" if s.keeps and kept_before else ""
    effect += " (but not run: no sandbox)" if "error" in raw else ""
    out(f"   ✓ {what} {how}{effect}")
    return True


def _demo_config(sandbox: SandboxConfig | None) -> SafetyConfig:
    return SafetyConfig(
        sandbox=sandbox if sandbox is not None else SandboxConfig(),
        command_rules=(
            CommandRule(pattern="ls *", decision=Verdict.ALLOW, reason="listing files is harmless"),
            CommandRule(
                pattern="cat *", decision=Verdict.ALLOW, reason="reading files is harmless"
            ),
        ),
        acp_approval_timeout=_DEMO_TIMEOUT,
    )


def _exists(workspace: str, name: str) -> bool:
    return os.path.lexists(os.path.join(workspace, name))


def _seed(tmp: str) -> str:
    workspace = os.path.realpath(tmp)
    with open(os.path.join(workspace, "README.md"), "w", encoding="utf-8") as f:
        f.write("# a demo project\n")
    with open(os.path.join(workspace, ".env"), "w", encoding="utf-8") as f:
        f.write("API_TOKEN=not-a-real-secret\n")
    return workspace


if __name__ == "__main__":  # pragma: no cover
    sys.exit(asyncio.run(play(_print)))
