"""The decision engine: `evaluate` turns one tool call into ALLOW, ASK or DENY, with reasons.

Precedence (SPEC §3), in short:

1. The first DENY wins: read-only on a write/execute tool, a path that is denied, invalid or
   outside the allowed roots, a command that is denied or no command at all, a
   reject-always grant.
2. Grants never lift a DENY, a protected-path ASK, read-only's ASK or an execute `env`.
3. Opaque means ASK: a command that is not fully understood is never allowed by analysis.
4. An allow-always grant lifts the remaining ASKs (command analysis, approval flags).
5. Approval flags ask; network and unknown tools ask unless the mode is auto.
6. Otherwise ALLOW.
7. No error path allows: an unexpected failure is a DENY naming the error.

Reasons are sorted and de-duplicated, so a decision never depends on rule order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from safehold.errors import PolicyError
from safehold.policy._arguments import find_path_arguments
from safehold.policy.calls import Side, ToolCall
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Reason, Verdict
from safehold.policy.grants import GrantEffect, broaden, path_grant_key, tool_grant_key
from safehold.policy.modes import Mode
from safehold.policy.paths import Access, CompiledPolicy, compile_policy
from safehold.policy.shell.assess import CommandAssessment, assess_command

__all__ = ["evaluate"]


def _sorted(reasons: Sequence[Reason]) -> tuple[Reason, ...]:
    return tuple(sorted(set(reasons), key=lambda r: (r.code, r.rule, r.message)))


def _deny(code: str, rule: str, message: str) -> Decision:
    return Decision(Verdict.DENY, (Reason(code, rule, message),))


def evaluate(
    config: SafetyConfig,
    call: ToolCall,
    *,
    workspace: str,
    grants: Mapping[str, GrantEffect] | None = None,
) -> Decision:
    """Decide one tool call for a session whose working directory is `workspace`.

    Pure apart from stat calls on the paths involved; never raises for any input.
    """
    try:
        return _evaluate(config, call, workspace, grants)
    except Exception as exc:  # INVARIANT: no error path allows
        return _deny(
            "internal-error",
            "engine",
            f"the decision could not be made ({type(exc).__name__}: {exc}); denied to be safe",
        )


class _Steps:
    """The reasons collected by steps 1-3, sorted into what they can still become."""

    def __init__(self) -> None:
        self.deny: list[Reason] = []
        self.hard_ask: list[Reason] = []  # grants cannot lift these
        self.soft_ask: list[Reason] = []  # an allow-always grant lifts these


def _evaluate(
    config: object, call: object, workspace: object, grants: Mapping[str, GrantEffect] | None
) -> Decision:
    if not isinstance(call, ToolCall):
        return _deny("call-invalid", "call", f"expected a ToolCall, got {type(call).__name__}")
    if not isinstance(config, SafetyConfig):
        return _deny(
            "config-invalid", "config", f"expected a SafetyConfig, got {type(config).__name__}"
        )
    try:
        policy = compile_policy(config, workspace)  # type: ignore[arg-type]
    except PolicyError as exc:
        return _deny("workspace-invalid", "workspace", str(exc))

    side = call.side
    steps = _Steps()
    _step1_read_only(config, call, side, steps)
    canonicals = _step2_paths(policy, call, side, steps)
    assessment = None
    if side is Side.EXECUTE and not config.read_only:
        assessment = _step3_command(config, policy, call, steps)

    if side is Side.EXECUTE:
        # Only the parsed command names what was approved; never the whole execute tool.
        grant_key = assessment.grant_key if assessment is not None else None
    elif canonicals is None:
        grant_key = None
    elif canonicals:
        grant_key = path_grant_key(call.name, sorted(set(canonicals)))
    else:
        grant_key = tool_grant_key(call.name)

    grant_key = broaden(grant_key, config.grant_scope, call.name)  # opt-in wider grants

    if steps.deny:
        return Decision(Verdict.DENY, _sorted(steps.deny), grant_key)

    # Step 4: grants recorded by earlier "always" answers in this session.
    effect = grants.get(grant_key) if grants is not None and grant_key is not None else None
    if effect == GrantEffect.REJECT:
        reason = Reason(
            "grant-reject",
            str(grant_key),
            "rejected by an earlier \u201calways reject\u201d answer in this session",
        )
        return Decision(Verdict.DENY, (reason,), grant_key)
    allow_reasons = _step5_flags(config, call, side, assessment, steps)
    if steps.hard_ask:
        return Decision(Verdict.ASK, _sorted(steps.hard_ask + steps.soft_ask), grant_key)
    if effect == GrantEffect.ALLOW:
        reason = Reason(
            "grant-allow",
            str(grant_key),
            "allowed by an earlier \u201calways allow\u201d answer in this session",
        )
        return Decision(Verdict.ALLOW, (reason,), grant_key)
    if steps.soft_ask:
        return Decision(Verdict.ASK, _sorted(steps.soft_ask), grant_key)
    return Decision(Verdict.ALLOW, _sorted(allow_reasons), grant_key)


def _step1_read_only(config: SafetyConfig, call: ToolCall, side: Side, steps: _Steps) -> None:
    if not config.read_only:
        return
    if side in (Side.WRITE, Side.EXECUTE):
        steps.deny.append(
            Reason(
                "read-only",
                "read_only",
                f"read-only mode denies {side.value} tools (`{call.name}` has kind "
                f"`{call.kind.value}`)",
            )
        )
    elif side in (Side.NETWORK, Side.UNKNOWN):
        steps.hard_ask.append(
            Reason(
                "read-only-ask",
                "read_only",
                f"read-only mode asks before {_article(side)} tool (`{call.name}` has kind "
                f"`{call.kind.value}` and may change things)",
            )
        )


def _step2_paths(
    policy: CompiledPolicy, call: ToolCall, side: Side, steps: _Steps
) -> list[str] | None:
    """Check every path argument; return the canonical paths (None if one has none)."""
    found, invalid = find_path_arguments(call)
    steps.deny.extend(invalid)
    # Deny and allowed roots treat reads and writes alike; the access only decides whether
    # protected paths ask. A network or unknown tool may well write (an MCP tool that
    # commits, a fetch that saves), so its paths are protected like a write's.
    access: Access = "read" if side in (Side.READ, Side.EXECUTE) else "write"
    canonicals: list[str] | None = [] if not invalid else None
    for arg in found:
        check = policy.check_path(arg.raw, access)
        prefixed = [
            Reason(r.code, r.rule, f"argument `{arg.where}`: {r.message}") for r in check.reasons
        ]
        if check.verdict is Verdict.DENY:
            steps.deny.extend(prefixed)
        elif check.verdict is Verdict.ASK:
            steps.hard_ask.extend(prefixed)
        if check.canonical is None:
            canonicals = None
        elif canonicals is not None:
            canonicals.append(check.canonical)
    return canonicals


def _command_of(call: ToolCall) -> tuple[object, list[Reason], str | None]:
    """The command an execute call runs: `command`, or ACP terminal's `command` + `args`.

    The third value is the shell reading of `command` + `args`, for the ACP shape: clients
    differ in whether they exec the argv or hand `command` (and the joined `args`) to a shell
    (`{"command": "rm -rf /", "args": []}`), so both readings are assessed.
    """
    args = call.arguments
    command = args.get("command")
    problems: list[Reason] = []
    extra = args.get("args")
    shell_text = None
    if extra is not None:
        ok = (
            isinstance(command, str)
            and isinstance(extra, list | tuple)
            and all(isinstance(a, str) for a in extra)
        )
        if not ok:
            problems.append(
                Reason(
                    "command-invalid",
                    "args",
                    "argument `args` must be a list of strings next to a string `command`",
                )
            )
        else:
            shell_text = " ".join([str(command), *extra])
            command = [command, *extra]
    return command, problems, shell_text


_RANK = {Verdict.ALLOW: 0, Verdict.ASK: 1, Verdict.DENY: 2}


def _stricter(a: CommandAssessment, b: CommandAssessment) -> CommandAssessment:
    """The stricter of two readings of one command; a tie keeps `a` but not a looser skip."""
    if _RANK[b.verdict] > _RANK[a.verdict]:
        return CommandAssessment(b.verdict, b.reasons, None, False)
    if a.skip_approval and not b.skip_approval:
        return CommandAssessment(a.verdict, a.reasons, a.grant_key, False)
    return a


def _step3_command(
    config: SafetyConfig, policy: CompiledPolicy, call: ToolCall, steps: _Steps
) -> CommandAssessment:
    command, problems, shell_text = _command_of(call)
    steps.deny.extend(problems)
    cwd = call.arguments.get("cwd")  # the base of every relative path the command names
    assessment = assess_command(command, config=config, policy=policy, cwd=cwd)
    if shell_text is not None:
        shell = assess_command(shell_text, config=config, policy=policy, cwd=cwd)
        assessment = _stricter(assessment, shell)
    if assessment.verdict is Verdict.DENY:
        steps.deny.extend(assessment.reasons)
    elif assessment.verdict is Verdict.ASK:
        steps.soft_ask.extend(assessment.reasons)
    if call.arguments.get("env"):
        # The grant key names the command, not its environment: `LD_PRELOAD` or `PATH` in an
        # `env` argument can make an approved command run other code, so always ask.
        steps.hard_ask.append(
            Reason(
                "command-env",
                "env",
                "the command is given environment variables (argument `env`), which can "
                "change what it runs",
            )
        )
    return assessment


def _step5_flags(
    config: SafetyConfig,
    call: ToolCall,
    side: Side,
    assessment: CommandAssessment | None,
    steps: _Steps,
) -> list[Reason]:
    """Add the approval-flag ASKs; return the reasons an ALLOW would carry."""
    if side is Side.WRITE:
        if config.require_approval_for_writes:
            steps.soft_ask.append(
                Reason(
                    "write-needs-approval",
                    "require_approval_for_writes",
                    f"`{call.name}` changes files and writes need approval in this mode",
                )
            )
        return [
            Reason(
                "allowed",
                "require_approval_for_writes",
                "writes inside the allowed paths need no approval in this mode",
            )
        ]
    if side is Side.EXECUTE:
        skip = assessment is not None and assessment.skip_approval
        skip = skip and assessment is not None and assessment.verdict is Verdict.ALLOW
        if config.require_approval_for_execute and not skip:
            steps.soft_ask.append(
                Reason(
                    "execute-needs-approval",
                    "require_approval_for_execute",
                    f"`{call.name}` runs a command and commands need approval in this mode",
                )
            )
        rule_reasons = list(assessment.reasons) if assessment is not None else []
        return rule_reasons or [
            Reason(
                "allowed",
                "require_approval_for_execute",
                "commands need no approval in this mode",
            )
        ]
    if side in (Side.NETWORK, Side.UNKNOWN):
        if config.mode is not Mode.AUTO:
            steps.soft_ask.append(
                Reason(
                    "tool-needs-approval",
                    "mode",
                    f"`{call.name}` is {_article(side)} tool (kind `{call.kind.value}`) and such "
                    f"tools need approval unless the mode is `auto`",
                )
            )
        return [Reason("allowed", "mode", f"mode `auto` runs {side.value} tools without asking")]
    return [Reason("allowed", "read", f"`{call.name}` only reads, inside the allowed paths")]


def _article(side: Side) -> str:
    """`a network` / `an unknown`: the side with its article, for messages."""
    return ("an " if side.value[0] in "aeiou" else "a ") + side.value
