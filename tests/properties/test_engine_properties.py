"""Properties of `evaluate`, named like the theorems they check (Cedar-style)."""

from __future__ import annotations

import itertools
import os
import random

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from safehold.policy.calls import Side, ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import evaluate
from safehold.policy.grants import GrantEffect
from safehold.policy.modes import Flags, Mode
from tests.strategies import (
    configs,
    deny_patterns,
    likely_configs,
    likely_tool_calls,
    make_tree,
    paths,
    runner_for,
    tool_calls,
)

TREE_NAMES = ("link_secret", "link_out", "link_in", "dangling", "file.txt", "outside")
# One call in three comes from the trouble vocabulary (mostly denied); two in three are biased
# toward ALLOW and ASK, so grants, hard and soft asks and the approval flags are all reached
# at CI depth (see `likely_tool_calls`).
calls = st.one_of(tool_calls(paths(TREE_NAMES)), likely_tool_calls(), likely_tool_calls())


def any_configs() -> st.SearchStrategy[SafetyConfig]:
    """Configs from the trouble pool or biased toward ALLOW and ASK, one to two."""
    return st.one_of(configs(), likely_configs(), likely_configs())


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> str:
    return make_tree(str(tmp_path_factory.mktemp("tree")))


def strictness(decision: Decision) -> int:
    return decision.verdict.strictness


@given(call=calls, config=any_configs(), extra=deny_patterns())
def test_adding_a_deny_pattern_never_loosens_a_decision(
    ws: str, call: ToolCall, config: SafetyConfig, extra: tuple[str, ...]
) -> None:
    tighter = config.replace(denied_paths=(*config.denied_paths, *extra))
    before = evaluate(config, call, workspace=ws)
    after = evaluate(tighter, call, workspace=ws)
    assert strictness(after) >= strictness(before), (before, after)


@given(call=calls, config=any_configs(), seed=st.integers(0, 2**16))
def test_order_and_duplicates_are_irrelevant(
    ws: str, call: ToolCall, config: SafetyConfig, seed: int
) -> None:
    rng = random.Random(seed)
    fields = {}
    for name in ("denied_paths", "protected_paths", "allowed_paths"):
        items = list(getattr(config, name))
        items.extend(rng.sample(items, k=min(2, len(items))))
        rng.shuffle(items)
        fields[name] = items
    shuffled = SafetyConfig(
        **fields,
        read_only=config.read_only,
        require_approval_for_writes=config.require_approval_for_writes,
        require_approval_for_execute=config.require_approval_for_execute,
        command_rules=config.command_rules,
        replace_default_denied_paths=True,
        replace_default_protected_paths=True,
        replace_default_command_rules=True,
    )
    assert evaluate(config, call, workspace=ws) == evaluate(shuffled, call, workspace=ws)


@given(call=calls, config=any_configs())
def test_read_only_denies_every_write_and_execute(
    ws: str, call: ToolCall, config: SafetyConfig
) -> None:
    decision = evaluate(config.with_mode(Mode.READ_ONLY), call, workspace=ws)
    if call.side in (Side.WRITE, Side.EXECUTE):
        assert decision.verdict is Verdict.DENY
    if call.side in (Side.NETWORK, Side.UNKNOWN):
        assert decision.verdict is not Verdict.ALLOW


@given(call=calls, config=any_configs(), effect=st.sampled_from(list(GrantEffect)))
def test_deny_trumps_grant(
    ws: str, call: ToolCall, config: SafetyConfig, effect: GrantEffect
) -> None:
    plain = evaluate(config, call, workspace=ws)
    if plain.verdict is Verdict.DENY and plain.grant_key is not None:
        granted = evaluate(config, call, workspace=ws, grants={plain.grant_key: effect})
        assert granted.verdict is Verdict.DENY


@given(call=calls, config=any_configs())
def test_reject_always_is_final_and_allow_always_never_tightens(
    ws: str, call: ToolCall, config: SafetyConfig
) -> None:
    plain = evaluate(config, call, workspace=ws)
    if plain.grant_key is None:
        return
    rejected = evaluate(config, call, workspace=ws, grants={plain.grant_key: GrantEffect.REJECT})
    assert rejected.verdict is Verdict.DENY
    allowed = evaluate(config, call, workspace=ws, grants={plain.grant_key: GrantEffect.ALLOW})
    assert strictness(allowed) <= strictness(plain)


@given(call=calls, config=any_configs())
def test_modes_are_monotone(ws: str, call: ToolCall, config: SafetyConfig) -> None:
    auto, review, read_only = (
        evaluate(config.with_mode(m), call, workspace=ws)
        for m in (Mode.AUTO, Mode.REVIEW, Mode.READ_ONLY)
    )
    assert strictness(read_only) >= strictness(review) >= strictness(auto)


@given(call=calls, config=any_configs())
def test_every_ask_and_deny_names_its_reasons_and_decisions_are_deterministic(
    ws: str, call: ToolCall, config: SafetyConfig
) -> None:
    first = evaluate(config, call, workspace=ws)
    assert first.reasons, first
    for reason in first.reasons:
        assert reason.code and reason.rule and reason.message
    assert evaluate(config, call, workspace=ws) == first


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=12,
)


@given(
    name=st.text(max_size=10),
    arguments=st.dictionaries(
        st.sampled_from(["path", "paths", "command", "args", "env", "cwd", "x", "edits"]),
        json_values,
    ),
    kind=st.sampled_from([*ToolKind, "bogus"]),
    config=any_configs(),
)
def test_no_input_makes_evaluate_raise(
    ws: str, name: str, arguments: dict[str, object], kind: object, config: SafetyConfig
) -> None:
    call = ToolCall(name, arguments, kind)  # type: ignore[arg-type]
    decision = evaluate(config, call, workspace=ws)
    assert isinstance(decision.verdict, Verdict)
    assert "internal-error" not in [r.code for r in decision.reasons], decision


def reference_verdict(
    config: SafetyConfig, call: ToolCall, ws: str, grants: dict[str, GrantEffect]
) -> Verdict:
    """SPEC §3 read literally: written for obviousness, not speed (path and command checks,
    argument discovery and grant keys are reused; the precedence is what is re-derived)."""
    from safehold.policy._arguments import lists_names, read_arguments
    from safehold.policy.engine import _command_of, effective_sides
    from safehold.policy.gitignore import ignore_filter
    from safehold.policy.paths import compile_policy
    from safehold.policy.shell.assess import assess_command
    from safehold.policy.urls import check_url

    policy = compile_policy(config, ws)
    args = read_arguments(call, policy.names_entry)
    sides = effective_sides(call, args)
    if config.read_only and sides & {Side.WRITE, Side.EXECUTE}:
        return Verdict.DENY
    if args.invalid:
        return Verdict.DENY
    rank = {Side.READ: 0, Side.NETWORK: 1, Side.UNKNOWN: 1, Side.WRITE: 2, Side.EXECUTE: 3}
    side = max(sides, key=rank.__getitem__)
    access = "read" if side is Side.READ else "run" if side is Side.EXECUTE else "write"
    checks = [
        policy.check_path(a.raw, "write" if a.write else "read" if a.by_value else access)  # type: ignore[arg-type]
        for a in args.paths
    ] + [policy.check_glob(str(g.raw)) for g in args.globs]
    urls = [check_url(str(u.raw), config.network) for u in args.urls]
    if any(c.verdict is Verdict.DENY for c in [*checks, *urls]):
        return Verdict.DENY
    unliftable_ask = bool(args.limits) or any(
        c.verdict is Verdict.ASK and not c.approvable for c in checks
    )
    liftable_ask = any(c.verdict is Verdict.ASK for c in [*checks, *urls])
    path_checks = checks[: len(args.paths)]
    if call.kind is ToolKind.DELETE and all(c.canonical is not None for c in path_checks):
        # A delete tool given a directory deletes everything below it: each entry is a write.
        for root in {str(c.canonical) for c in path_checks}:
            if not os.path.isdir(root) or os.path.islink(root):
                continue
            for folder, dirs, files in os.walk(root):
                for name in [*dirs, *files]:
                    entry = os.path.join(folder, name)
                    if policy.check_path(entry, "write").verdict is not Verdict.ALLOW:
                        unliftable_ask = True
    narrowed = any(not str(g.raw).strip().startswith("!") for g in args.globs)
    if call.kind is ToolKind.SEARCH and not lists_names(call.name) and not narrowed:
        # A search given a directory, or none (the workspace), reads every file below it
        # but hidden and gitignored ones: a denied file there asks, whatever a grant says.
        roots = [str(c.canonical) for c in path_checks if c.canonical is not None]
        if not args.paths or roots:
            for root in set(roots or [policy.workspace]):
                if not os.path.isdir(root) or os.path.islink(root):
                    continue
                if policy.check_path(root, "read").verdict is not Verdict.ALLOW:
                    continue
                ignored = ignore_filter(root)
                for folder, dirs, files in os.walk(root):
                    dirs[:] = [d for d in dirs if not d.startswith(".")]
                    for name in [*dirs, *files]:
                        entry = os.path.join(folder, name)
                        if name.startswith(".") or ignored(entry, name in dirs):
                            continue
                        if any(r.code == "path-denied" for r in policy.check_denied(entry)):
                            unliftable_ask = True
    skip_approval = False
    if Side.EXECUTE in sides:
        readings = []
        if "command" in call.arguments or not args.commands:
            command, problems, shell_text = _command_of(call)
            if problems:
                return Verdict.DENY
            readings.append(assess_command(command, config=config, policy=policy))
            if shell_text is not None:  # ACP `command` + `args`: the shell's reading counts
                readings.append(assess_command(shell_text, config=config, policy=policy))
        readings += [assess_command(v, config=config, policy=policy) for _, v in args.commands]
        if any(a.verdict is Verdict.DENY for a in readings):
            return Verdict.DENY
        liftable_ask = liftable_ask or any(a.verdict is Verdict.ASK for a in readings)
        skip_approval = all(a.verdict is Verdict.ALLOW and a.skip_approval for a in readings)
        unliftable_ask = unliftable_ask or bool(call.arguments.get("env"))
    key = evaluate(config, call, workspace=ws, runner=runner_for(config)).grant_key
    effect = grants.get(key) if key is not None else None
    if effect == GrantEffect.REJECT:
        return Verdict.DENY
    if config.read_only and sides & {Side.NETWORK, Side.UNKNOWN}:
        return Verdict.ASK
    if unliftable_ask:
        return Verdict.ASK
    if effect == GrantEffect.ALLOW:
        return Verdict.ALLOW
    if liftable_ask:
        return Verdict.ASK
    if Side.WRITE in sides and config.require_approval_for_writes:
        return Verdict.ASK
    if Side.WRITE in sides and not args.paths and not args.globs:
        return Verdict.ASK  # a write that names no path: where it writes is unknown
    if Side.EXECUTE in sides and config.require_approval_for_execute and not skip_approval:
        return Verdict.ASK
    if sides & {Side.NETWORK, Side.UNKNOWN} and config.mode is not Mode.AUTO:
        return Verdict.ASK
    return Verdict.ALLOW


# Read-only denies or asks whatever the other two flags say: one read-only combination.
ALL_FLAGS = [Flags(False, *bits) for bits in itertools.product((False, True), repeat=2)]
ALL_FLAGS.append(Flags(True, True, True))


@given(call=calls, config=any_configs())
@example(  # found by this property: a search with no path reads the workspace's tree
    call=ToolCall("read_file", {}, ToolKind.SEARCH),
    config=SafetyConfig().replace(denied_paths=(*SafetyConfig().denied_paths, "*.md")),
)
def test_engine_agrees_with_the_reference_reading_of_the_spec(
    ws: str, call: ToolCall, config: SafetyConfig
) -> None:
    # The mode flags and the grant are small finite dimensions: every combination is checked
    # for each drawn call, so each precedence rule (read-only, hard vs liftable asks, grants,
    # approval flags) is met by every call shape hypothesis draws, even at CI depth.
    for flags in ALL_FLAGS:
        flagged = config.with_flags(flags)
        # The reference reads commands with the config's sandbox: decide for that runner.
        runner = runner_for(flagged)
        key = evaluate(flagged, call, workspace=ws, runner=runner).grant_key
        for effect in (None, GrantEffect.ALLOW, GrantEffect.REJECT):
            grants = {key: effect} if key is not None and effect is not None else {}
            expected = reference_verdict(flagged, call, ws, grants)
            actual = evaluate(flagged, call, workspace=ws, grants=grants, runner=runner)
            assert actual.verdict is expected, (flags, effect, actual)
