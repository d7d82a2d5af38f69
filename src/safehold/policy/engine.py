"""The decision engine: `evaluate` turns one tool call into ALLOW, ASK or DENY, with reasons.

A call is judged by what it does, not by its label: its effective sides are its declared
kind's plus what the arguments show (a command string executes, a path under a write-like
name writes, a URL reaches the network). Precedence (SPEC §3 and §11), in short:

1. The first DENY wins: read-only on a write/execute side, a path that is denied or invalid,
   a write outside the allowed roots, a glob filter that can select a denied file, a denied
   URL host, a command that is denied or no command at all, a reject-always grant.
2. Grants never lift a DENY, a protected-path ASK, read-only's ASK or an execute `env`.
3. Opaque means ASK: a command that is not fully understood is never allowed by analysis;
   arguments too large to search fully ask too.
4. An allow-always grant lifts the remaining ASKs (command analysis, a read outside the
   roots, a write under `readonly_paths`, a private URL host, approval flags).
5. Approval flags ask; network and unknown sides ask unless the mode is auto.
6. Otherwise ALLOW.
7. No error path allows: an unexpected failure is a DENY naming the error.

Reasons are sorted and de-duplicated, so a decision never depends on rule order.
"""

from __future__ import annotations

import os
import posixpath
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Literal

from safehold.errors import PolicyError
from safehold.policy import tree_scan
from safehold.policy._arguments import (
    Arguments,
    lists_names,
    read_arguments,
    type_hidden_names,
)
from safehold.policy._memo import remember
from safehold.policy.calls import Side, ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Reason, Verdict
from safehold.policy.gitignore import ignore_filter
from safehold.policy.grants import GrantEffect, broaden, path_grant_key, tool_grant_key
from safehold.policy.modes import Mode
from safehold.policy.paths import (
    Access,
    CompiledPolicy,
    PathCheck,
    compile_policy,
    one_look,
    selects_any_name,
)
from safehold.policy.shell.assess import CommandAssessment, assess_command
from safehold.policy.urls import check_url

__all__ = ["Runner", "effective_sides", "evaluate", "host_config"]


def _sorted(reasons: Sequence[Reason]) -> tuple[Reason, ...]:
    if len(reasons) < 2:
        return tuple(reasons)  # nothing to sort or de-duplicate
    return tuple(sorted(set(reasons), key=lambda r: (r.code, r.rule, r.message)))


def _deny(code: str, rule: str, message: str, step: str = "deny") -> Decision:
    return Decision(Verdict.DENY, (Reason(code, rule, message),), step=step)


Runner = Literal["host", "sandbox"]
"""Who runs the command: the caller, unconfined (`"host"`), or safehold's sandboxed runner."""


def evaluate(
    config: SafetyConfig,
    call: ToolCall,
    *,
    workspace: str,
    grants: Mapping[str, GrantEffect] | None = None,
    runner: Runner = "host",
) -> Decision:
    """Decide one tool call for a session whose working directory is `workspace`.

    `runner` says who runs the command. `"host"` (the default): the caller runs it itself,
    unconfined, so it is judged as with `sandbox.mode = "none"` whatever the config says.
    `"sandbox"`: safehold's runner (`run_sandboxed`) runs it, confined as `config.sandbox`
    says. A decision for the host is never looser than one for the sandbox; an ALLOW that
    holds only because the sandbox confines the command is `confined` and says so in a
    reason `allowed-in-sandbox`.

    Pure apart from stat calls on the paths involved (each path resolved once per call:
    `paths.one_look`); never raises for any input.
    """
    # A command for the sandboxed runner that may be allowed is judged twice (for the
    # sandbox, then for the host): the checks the two passes share are made once
    # (`paths.looked_checks`). A command a person approves anyway is judged once.
    twice = runner == "sandbox" and (
        not getattr(config, "require_approval_for_execute", True) or bool(grants)
    )
    with one_look(checks=twice):
        return _evaluate_runner(config, call, workspace, grants, runner)


def _evaluate_runner(
    config: SafetyConfig,
    call: ToolCall,
    workspace: str,
    grants: Mapping[str, GrantEffect] | None,
    runner: Runner,
) -> Decision:
    try:
        if runner == "host":
            return _evaluate(host_config(config), call, workspace, grants)[0]
        if runner != "sandbox":
            return _deny(
                "runner-invalid",
                "runner",
                f"runner must be `host` or `sandbox`, got {runner!r}; denied to be safe",
            )
        decision, executes, assessment = _evaluate(config, call, workspace, grants)
        if not executes or decision.verdict is not Verdict.ALLOW:
            return decision
        host = host_config(config)
        if host is config:
            return decision  # nothing confines it (sandbox.mode = "none"): the same answer
        # The host's assessment of the command, when the same pass could tell it (else
        # None: the host is judged whole, a second time).
        on_host = assessment.host_view() if assessment is not None else None
        if assessment is not None and on_host is not None and _same(on_host, assessment):
            return decision  # step 3 was the only step that could differ, and it does not
        return _confined(decision, _evaluate(host, call, workspace, grants, on_host)[0])
    except Exception as exc:  # INVARIANT: no error path allows
        return _deny(
            "internal-error",
            "engine",
            f"the decision could not be made ({type(exc).__name__}: {exc}); denied to be safe",
            "error",
        )


def _same(host: CommandAssessment, assessment: CommandAssessment) -> bool:
    """The host's assessment is the sandbox's own (all but the `host` field itself)."""
    return (
        host.verdict is assessment.verdict
        and host.reasons == assessment.reasons
        and host.grant_key == assessment.grant_key
        and host.skip_approval == assessment.skip_approval
    )


def _confined(decision: Decision, host: Decision) -> Decision:
    """The sandbox's ALLOW, marked `confined` when the host decision is stricter.

    The only difference between the two configs is `sandbox.mode`, which only the command
    analysis (step 3) reads, so only execute calls are compared: for an allowed command,
    either the sandboxed pass also told the host's assessment (`CommandAssessment.host`,
    and the host decision is the same steps around it), or the host is judged whole.
    """
    if host.verdict is Verdict.ALLOW:
        return decision
    because = "; ".join(dict.fromkeys(r.message for r in host.reasons)) or "no reason given"
    would = "be denied" if host.verdict is Verdict.DENY else "need approval"
    reason = Reason(
        "allowed-in-sandbox",
        "sandbox",
        "allowed only because safehold's sandbox confines the command; run on the host "
        f"it would {would} ({because})",
    )
    return Decision(
        Verdict.ALLOW, _sorted((*decision.reasons, reason)), decision.grant_key, confined=True
    )


_HOST_CONFIGS: OrderedDict[int, tuple[object, object]] = OrderedDict()


def host_config(config: SafetyConfig) -> SafetyConfig:
    """`config` as it judges a command that runs on the host (`without_sandbox`), remembered."""
    if not isinstance(config, SafetyConfig) or config.sandbox.mode == "none":
        return config
    held = _HOST_CONFIGS.get(id(config))
    if held is not None and held[0] is config:
        return held[1]  # type: ignore[return-value]
    host = config.without_sandbox()
    remember(_HOST_CONFIGS, id(config), (config, host), 64)
    return host


class _Steps:
    """The reasons collected by steps 1-3, sorted into what they can still become."""

    def __init__(self) -> None:
        self.deny: list[Reason] = []
        self.hard_ask: list[Reason] = []  # grants cannot lift these
        self.soft_ask: list[Reason] = []  # an allow-always grant lifts these


def _evaluate(
    config: object,
    call: object,
    workspace: object,
    grants: Mapping[str, GrantEffect] | None,
    assessed: CommandAssessment | None = None,
) -> tuple[Decision, bool, CommandAssessment | None]:
    """The decision, whether the call executes a command (where the sandbox can matter),
    and step 3's assessment of it. `assessed`: step 3's answer, already known."""
    if not isinstance(call, ToolCall):
        invalid = f"expected a ToolCall, got {type(call).__name__}"
        return _deny("call-invalid", "call", invalid), False, None
    if not isinstance(config, SafetyConfig):
        invalid = f"expected a SafetyConfig, got {type(config).__name__}"
        return _deny("config-invalid", "config", invalid), False, None
    try:
        policy = compile_policy(config, workspace)  # type: ignore[arg-type]
    except PolicyError as exc:
        return _deny("workspace-invalid", "workspace", str(exc)), False, None

    args = read_arguments(call, policy.names_entry)
    sides = effective_sides(call, args)
    executes = Side.EXECUTE in sides
    side = next(iter(sides)) if len(sides) == 1 else max(sides, key=_SIDE_RANK.__getitem__)
    steps = _Steps()
    steps.hard_ask.extend(args.limits)
    steps.soft_ask.extend(args.computed)
    _step1_read_only(config, call, sides, steps)
    canonicals = _step2_paths(policy, args, side, steps, call.kind)
    if call.kind is ToolKind.DELETE and canonicals:
        _step2_deleted_trees(policy, canonicals, steps)
    if args.follows and canonicals:
        _step2_followed_links(policy, canonicals, steps)
    # A filter that selects what the search reads (`include: "*.ts"`) is judged itself
    # (`glob-denied`); without one (or with only exclusions) it reads the whole tree.
    # A filter of wildcards only (`*`) narrows nothing, and it brings in what the search
    # leaves out by default: ripgrep's `--glob` whitelist goes before its hidden and
    # `.gitignore` tests, so `{"glob": "*"}` reads `./.env`.
    every = bool(args.globs) and any(selects_any_name(g.raw) for g in args.globs)
    narrowed = (
        not every
        and bool(args.globs)
        and any(not str(g.raw).strip().startswith("!") for g in args.globs)
    )
    searches = call.kind is ToolKind.SEARCH and not lists_names(call.name)
    if searches and canonicals is not None and not narrowed:
        # `type: "sh"`: ripgrep's type globs are whitelists too (`.env` is an `sh` file).
        typed = frozenset(
            name for key in ("type", "types") for name in type_hidden_names(call.arguments.get(key))
        )
        _step2_searched_trees(
            policy, canonicals or [policy.workspace], steps, args, everything=every, typed=typed
        )
    hosts = _step2_urls(config, args, steps)
    _step2_code(call, args, steps)
    _step2_unknown_arguments(call, steps)
    assessment = None
    if Side.EXECUTE in sides and not config.read_only:
        assessment = _step3_command(config, policy, call, args, steps, assessed)

    if canonicals is not None and hosts:
        canonicals = canonicals + [f"url:{h}" for h in hosts]
    if Side.EXECUTE in sides:
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
        return (
            Decision(Verdict.DENY, _sorted(steps.deny), grant_key, step="deny"),
            executes,
            assessment,
        )

    # Step 4: grants recorded by earlier "always" answers in this session.
    effect = grants.get(grant_key) if grants is not None and grant_key is not None else None
    if effect == GrantEffect.REJECT:
        reason = Reason(
            "grant-reject",
            str(grant_key),
            "rejected by an earlier \u201calways reject\u201d answer (a session, project or user grant)",
        )
        return (
            Decision(Verdict.DENY, (reason,), grant_key, step="grant-reject"),
            executes,
            assessment,
        )
    allow_reasons: list[Reason] = []
    pathless = not args.paths and not args.globs and not args.invalid
    for one in sorted(sides, key=_SIDE_RANK.__getitem__) if len(sides) > 1 else sides:
        allow_reasons = _step5_flags(config, call, one, assessment, steps, pathless)
    if steps.hard_ask:
        return (
            Decision(
                Verdict.ASK, _sorted(steps.hard_ask + steps.soft_ask), grant_key, step="hard-ask"
            ),
            executes,
            assessment,
        )
    if effect == GrantEffect.ALLOW:
        reason = Reason(
            "grant-allow",
            str(grant_key),
            "allowed by an earlier \u201calways allow\u201d answer (a session, project or user grant)",
        )
        return (
            Decision(Verdict.ALLOW, (reason,), grant_key, step="grant-allow"),
            executes,
            assessment,
        )
    if steps.soft_ask:
        return (
            Decision(Verdict.ASK, _sorted(steps.soft_ask), grant_key, step="ask"),
            executes,
            assessment,
        )
    return (
        Decision(Verdict.ALLOW, _sorted(allow_reasons), grant_key, step="allow"),
        executes,
        assessment,
    )


_SIDE_RANK: Final = {Side.READ: 0, Side.NETWORK: 1, Side.UNKNOWN: 1, Side.WRITE: 2, Side.EXECUTE: 3}


def effective_sides(call: ToolCall, args: Arguments) -> frozenset[Side]:
    """What the call does: its declared side plus what its arguments show.

    A command string (`command`, `cmd`, `script`, `shell`) makes it execute, a path under a
    write-like name makes it write and a URL makes it network, whatever the kind says.
    """
    command = call.arguments.get("command")
    if not (args.commands or args.urls or command is not None or (args.paths and _writes(args))):
        return _ONLY[call.side]  # the common case: the arguments show nothing more
    sides = {call.side}
    if args.commands or isinstance(command, str) or _argv(command):
        sides.add(Side.EXECUTE)
    if any(p.write for p in args.paths):
        sides.add(Side.WRITE)
    if args.urls:
        sides.add(Side.NETWORK)
    if len(sides) > 1:
        sides.discard(Side.READ)  # a declared read is only a label when more is shown
    return frozenset(sides)


_ONLY: Final = {side: frozenset({side}) for side in Side}


def _writes(args: Arguments) -> bool:
    return any(p.write for p in args.paths)


def _argv(value: object) -> bool:
    return isinstance(value, list | tuple) and bool(value) and isinstance(value[0], str)


def _step1_read_only(
    config: SafetyConfig, call: ToolCall, sides: frozenset[Side], steps: _Steps
) -> None:
    if not config.read_only:
        return
    for side in sorted(sides, key=_SIDE_RANK.__getitem__):
        _read_only_side(call, side, steps)


def _read_only_side(call: ToolCall, side: Side, steps: _Steps) -> None:
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
    policy: CompiledPolicy,
    args: Arguments,
    side: Side,
    steps: _Steps,
    kind: ToolKind = ToolKind.OTHER,
) -> list[str] | None:
    """Check every path argument and glob filter; return the canonical paths (None if one has none)."""
    steps.deny.extend(args.invalid)
    # Deny applies to every access. A read outside the roots asks; a write there is denied.
    # A network or unknown tool may well write (an MCP tool that commits, a fetch that
    # saves), so its paths are checked like a write's; a path under a write-like name is
    # a write whatever the tool.
    access: Access = "read" if side is Side.READ else "run" if side is Side.EXECUTE else "write"
    canonicals: list[str] | None = [] if not args.invalid else None
    for arg in args.paths:
        # A path found by value takes the tool's side when the tool writes or deletes
        # (`delete {"name": ".git"}`); elsewhere it may be data the tool only reads.
        by_value_read = arg.by_value and side is not Side.WRITE
        one: Access = "write" if arg.write else "read" if by_value_read else access
        check = policy.check_path(arg.raw, one)
        _collect(check, f"argument `{arg.where}`", steps)
        if one == "read" and arg.by_value and side in _MAY_WRITE and check.verdict is Verdict.ALLOW:
            # A tool that may write (an MCP tool of unknown side, a fetch that saves) may
            # write where a value names (`{"save": ".git/hooks/pre-commit"}`): a protected
            # path asks, as it does under a path name; outside the roots it stays a read.
            _collect(
                _protected_only(policy.check_path(arg.raw, "write")),
                f"argument `{arg.where}`",
                steps,
            )
        if check.canonical is None:
            canonicals = None
        elif canonicals is not None:
            canonicals.append(check.canonical)
    for arg in args.paths:
        # A relative path the tool opens below its base directory (`{"path": "x/y", "cwd":
        # "lib"}`) is judged there too: `lib/x` may be a link out of the roots.
        for joined in _below_bases(arg.raw, args.bases):
            by_value_read = arg.by_value and side is not Side.WRITE
            one = "write" if arg.write else "read" if by_value_read else access
            _collect(policy.check_path(joined, one), f"argument `{arg.where}`", steps)
    # A filter is matched below the directory the tool searches (Claude Code's Glob
    # `path`, Gemini CLI's `dir_path`), and below the workspace.
    dirs = (*args.bases, *(str(p.raw) for p in args.paths if isinstance(p.raw, str)))
    listing = kind is ToolKind.SEARCH  # a search tool lists what its filter matches
    for glob in args.globs:
        for text in (str(glob.raw), *_below_bases(glob.raw, dirs)):
            check = policy.check_glob(text, names=listing)
            _collect(check, f"argument `{glob.where}`", steps)
    for mention in args.mentions:
        # A path inside free text is not necessarily opened, so only a denied one counts.
        steps.deny.extend(
            Reason(r.code, r.rule, f"argument `{mention.where}` names it in its text: {r.message}")
            for r in policy.check_denied(mention.raw)
            if r.code == "path-denied"
        )
    for url in args.url_mentions:
        # Likewise a URL inside free text: only a denied host counts.
        named = check_url(str(url.raw), policy.config.network)
        if named.verdict is Verdict.DENY:
            steps.deny.extend(
                Reason(r.code, r.rule, f"argument `{url.where}` names it in its text: {r.message}")
                for r in named.reasons
            )
    for named_in in args.text_mentions:
        # The free text of a tool of unknown side (an MCP tool's `query`): the tool may act
        # on it (a database reads the file its query names) or it may be only words, so a
        # denied name there asks, every time.
        raw = str(named_in.raw)
        if "://" in raw:
            url_check = check_url(raw, policy.config.network)
            found = url_check.reasons if url_check.verdict is Verdict.DENY else ()
        else:
            found = tuple(r for r in policy.check_denied(raw) if r.code == "path-denied")
        steps.hard_ask.extend(
            Reason(
                "text-names-denied",
                r.rule,
                f"argument `{named_in.where}` of a tool of unknown side names it in its "
                f"text, and the tool may act on it: {r.message}",
            )
            for r in found
        )
    return canonicals


def _step2_unknown_arguments(call: ToolCall, steps: _Steps) -> None:
    """An argument the tool's table entry does not list (`ToolCall.known_args`): what the
    tool does with it is unknown (a mode, a second target), so the call asks, in every mode
    (an "always" answer lifts it)."""
    known = call.known_args
    if known is None:
        return
    unknown = [str(k) for k in call.arguments if k not in known]
    if unknown:
        shown = ", ".join(f"`{k[:80]}`" for k in sorted(unknown)[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        steps.soft_ask.append(
            Reason(
                "argument-unknown",
                "arguments",
                f"`{call.name}` is given {shown}{more}, which safehold's table of its "
                "arguments does not list, so what the tool does with it is unknown",
            )
        )


def _step2_code(call: ToolCall, args: Arguments, steps: _Steps) -> None:
    """Code a tool of unknown side (or a command tool) runs, under a code name (`code`,
    `expression`, `function`): no analysis reads it, so it asks, as inline code on the
    host does (an "always" answer for the tool lifts it)."""
    for code in args.code:
        steps.soft_ask.append(
            Reason(
                "code-unread",
                "arguments",
                f"argument `{code.where}` of `{call.name}` is code the tool runs, and "
                "safehold cannot read what it does",
            )
        )


def _below_bases(raw: object, bases: Sequence[str]) -> list[str]:
    """`raw` joined below each base directory, when it is a relative path or filter."""
    if not bases or not isinstance(raw, str):
        return []
    text = raw.strip()
    negated = text.startswith("!")
    text = text.removeprefix("!")
    if not text or text.startswith(("/", "~", "$")) or ":" in text.partition("/")[0]:
        return []  # absolute, home, a variable or a scheme (`file:`, a URL)
    out = []
    for base in dict.fromkeys(bases):
        if base.strip() and base.strip() != raw:
            out.append("!" * negated + posixpath.join(base.strip(), text))
    return out


def _step2_deleted_trees(policy: CompiledPolicy, canonicals: list[str], steps: _Steps) -> None:
    """A delete tool given a directory removes everything below it: each entry is judged as
    a write (docs/paths.md), as for `rm -r` without the sandbox. A protected or denied entry,
    or a tree too large to look through, asks every time (no grant lifts it). The tool runs
    in the agent's own process, so no sandbox keeps `.git` whatever the runner."""
    budget = tree_scan.MAX_TREE_ENTRIES

    flag = tree_scan.write_objection(policy)

    for root in dict.fromkeys(canonicals):
        if budget <= 0 or not os.path.isdir(root) or os.path.islink(root):
            if budget <= 0 and os.path.isdir(root):
                steps.hard_ask.append(_unchecked_tree(root))
            continue
        scan = tree_scan.denied_below(
            policy, root, follow_links=False, skip_hidden=False, limit=budget, flag=flag
        )
        budget -= scan.seen
        for path, rule in scan.denied:
            steps.hard_ask.append(
                Reason(
                    "tree-holds-denied",
                    rule,
                    f"deleting `{root}` removes everything below it, including "
                    f"`{os.path.relpath(path, root)}` (denied by `{rule}`)",
                )
            )
        for path, why in scan.flagged:
            steps.hard_ask.append(
                Reason(
                    "tree-holds-protected",
                    "delete",
                    f"deleting `{root}` removes everything below it, including "
                    f"`{os.path.relpath(path, root)}`: {why}",
                )
            )
        if not scan.complete:
            steps.hard_ask.append(_unchecked_tree(root))


def _step2_searched_trees(
    policy: CompiledPolicy,
    canonicals: list[str],
    steps: _Steps,
    args: Arguments,
    *,
    everything: bool = False,
    typed: frozenset[str] = frozenset(),
) -> None:
    """A search tool given a directory (or none: the workspace) reads every file below it,
    as `rg KEY DIR` does: a denied file there that the search does not leave out (hidden,
    or ignored by `.gitignore`, unless a switch says it reads those too: `hidden: true`,
    `no_ignore: true`) asks, as for `rg` without the sandbox (the tool runs in the agent's
    own process, so no sandbox hides it), and so does a tree too large to look through.
    `everything`: a filter of wildcards only whitelists hidden and ignored names too.
    `typed`: hidden file names the search's file types let in (`type: "sh"`: `.env`)."""
    budget = tree_scan.MAX_TREE_ENTRIES
    for root in dict.fromkeys(canonicals):
        if not os.path.isdir(root) or policy.check_path(root, "read").verdict is not Verdict.ALLOW:
            continue  # a file, or a place the path check already judged
        scan = tree_scan.denied_below(
            policy,
            root,
            follow_links=args.follows,
            skip_hidden=not (args.hidden or everything or typed),
            skip=_searched_skip(root, args, everything, typed),
            limit=max(budget, 0),
        )
        budget -= scan.seen
        for path, rule in scan.denied:
            steps.hard_ask.append(
                Reason(
                    "tree-holds-denied",
                    rule,
                    f"the search reads every file below `{root}`, including "
                    f"`{os.path.relpath(path, root)}` (denied by `{rule}`)",
                )
            )
        if not scan.complete:
            steps.hard_ask.append(
                Reason(
                    "tree-unchecked",
                    "search",
                    f"the search reads every file below `{root}`: more entries than the "
                    f"{tree_scan.MAX_TREE_ENTRIES} one decision may look through",
                )
            )


def _searched_skip(
    root: str, args: Arguments, everything: bool, typed: frozenset[str]
) -> Callable[[str, bool], bool] | None:
    """What a search below `root` leaves out: what `.gitignore` ignores (unless a switch or
    a wildcard filter brings it in) and, when only its file types bring hidden names in,
    every other hidden name."""
    ignored = None if args.ignored or everything else ignore_filter(root)
    if not typed or args.hidden or everything:
        return ignored

    def skip(path: str, is_dir: bool) -> bool:
        name = posixpath.basename(path)
        if name.startswith(".") and (is_dir or name not in typed):
            return True
        return ignored is not None and ignored(path, is_dir)

    return skip


def _step2_followed_links(policy: CompiledPolicy, canonicals: list[str], steps: _Steps) -> None:
    """A tool told to follow links (`follow: true`) below a directory it walks reads or
    lists what each link there points to: a link out of the roots or to a denied place asks,
    as for `find -L`, and so does a tree too large to look through."""
    budget = tree_scan.MAX_TREE_ENTRIES
    flag = tree_scan.link_objection(policy)
    for root in dict.fromkeys(canonicals):
        if not os.path.isdir(root):
            continue
        scan = tree_scan.denied_below(
            policy,
            root,
            follow_links=True,
            skip_hidden=False,
            limit=max(budget, 0),
            flag=flag,
            names_only=True,
        )
        budget -= scan.seen
        for path, why in (*scan.denied, *scan.flagged):
            steps.hard_ask.append(
                Reason(
                    "path-outside-read",
                    "follow",
                    f"the tool follows links below `{root}`, and "
                    f"`{os.path.relpath(path, root)}` leads out: {why}",
                )
            )
        if not scan.complete:
            steps.hard_ask.append(
                Reason(
                    "tree-unchecked",
                    "follow",
                    f"the tool follows links below `{root}`: more entries than the "
                    f"{tree_scan.MAX_TREE_ENTRIES} one decision may look through",
                )
            )


def _unchecked_tree(root: str) -> Reason:
    return Reason(
        "tree-unchecked",
        "delete",
        f"deleting `{root}` removes everything below it: more entries than the "
        f"{tree_scan.MAX_TREE_ENTRIES} one decision may look through",
    )


_MAY_WRITE: Final = frozenset({Side.UNKNOWN, Side.NETWORK})


def _protected_only(check: PathCheck) -> PathCheck:
    """The protected-path ASK of a write check, without its other reasons."""
    reasons = tuple(r for r in check.reasons if r.code == "path-protected")
    if not reasons:
        return PathCheck(Verdict.ALLOW, (), check.canonical)
    return PathCheck(Verdict.ASK, reasons, check.canonical)


def _collect(check: PathCheck, where: str, steps: _Steps) -> None:
    prefixed = [Reason(r.code, r.rule, f"{where}: {r.message}") for r in check.reasons]
    if check.verdict is Verdict.DENY:
        steps.deny.extend(prefixed)
    elif check.verdict is Verdict.ASK:
        # A read outside the roots asks, and an "always" answer for this path lifts it.
        (steps.soft_ask if check.approvable else steps.hard_ask).extend(prefixed)


def _step2_urls(config: SafetyConfig, args: Arguments, steps: _Steps) -> list[str]:
    """Judge every URL by the URL policy; return the hosts (a grant is filed under them)."""
    hosts: list[str] = []
    if not args.urls:
        return hosts
    for url in args.urls:
        check = check_url(str(url.raw), config.network)
        hosts.extend(check.hosts)
        prefixed = [
            Reason(r.code, r.rule, f"argument `{url.where}`: {r.message}") for r in check.reasons
        ]
        if check.verdict is Verdict.DENY:
            steps.deny.extend(prefixed)
        elif check.verdict is Verdict.ASK:
            steps.soft_ask.extend(prefixed)
    return sorted(set(hosts))


def _command_of(call: ToolCall) -> tuple[object, list[Reason], str | None]:
    """The command an execute call runs: `command`, or ACP terminal's `command` + `args`.

    The third value is the shell reading of `command` + `args`, for the ACP shape: clients
    differ in whether they exec the argv or hand `command` (and the joined `args`) to a shell
    (`{"command": "rm -rf /", "args": []}`), so both readings are assessed.
    """
    args = call.arguments
    command = args.get("command")
    problems: list[Reason] = []
    if "command" not in args:
        problems.append(
            Reason(
                "command-invalid",
                "command",
                "argument `command` is missing: a tool that runs a command must say which",
            )
        )
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
    """The stricter of two readings of one command; a tie keeps `a` but not a looser skip.

    Two readings that both ask (or deny) give both their reasons, and `a`'s grant key only
    when `b` can be granted too: an ask no grant lifts in one reading (`eval "$X"` read by
    a shell) is not lifted by a grant for the other (the argv `["eval \"$X\""]`)."""
    if _RANK[b.verdict] > _RANK[a.verdict]:
        return CommandAssessment(b.verdict, b.reasons, None, False)
    if b.verdict is a.verdict and a.verdict is not Verdict.ALLOW:
        reasons = tuple(dict.fromkeys((*a.reasons, *b.reasons)))
        key = a.grant_key if b.grant_key is not None else None
        return CommandAssessment(a.verdict, reasons, key, False)
    if a.skip_approval and not b.skip_approval:
        return CommandAssessment(a.verdict, a.reasons, a.grant_key, False)
    return a


# Argument names a command tool gives the directory it runs in (the tool tables' `cwd_arg`
# copies a known tool's to `cwd`; an unknown tool's is read here).
_DIR_KEYS = ("cwd", "workdir", "working_directory", "working_dir", "directory", "dir")


def _step3_command(
    config: SafetyConfig,
    policy: CompiledPolicy,
    call: ToolCall,
    args: Arguments,
    steps: _Steps,
    assessed: CommandAssessment | None = None,
) -> CommandAssessment:
    if "command" in call.arguments or not args.commands:
        steps.deny.extend(_command_of(call)[1])
    assessment = _assessment(config, policy, call, args) if assessed is None else assessed
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


def _assessment(
    config: SafetyConfig, policy: CompiledPolicy, call: ToolCall, args: Arguments
) -> CommandAssessment:
    """Every command the call carries, assessed; the stricter reading wins.

    Its `host` is the same for a host run, when each reading could tell it (else None).
    """
    readings: list[CommandAssessment] = []
    # The base of every relative path the command names: `cwd`, or a tool's own spelling
    # of it (`workdir`, `directory`, …). Several different ones: each is judged.
    # (Compared, not hashed: a value may be any JSON, a list included.)
    cwds: list[object] = []
    for key in _DIR_KEYS:
        if key in call.arguments and call.arguments[key] not in cwds:
            cwds.append(call.arguments[key])
    cwd = cwds[0] if cwds else None
    if "command" in call.arguments or not args.commands:
        command, _problems, shell_text = _command_of(call)
        readings.append(assess_command(command, config=config, policy=policy, cwd=cwd))
        readings += [
            assess_command(command, config=config, policy=policy, cwd=other) for other in cwds[1:]
        ]
        if shell_text is not None:
            readings.append(assess_command(shell_text, config=config, policy=policy, cwd=cwd))
    for where, value in args.commands:  # `cmd`, `script`, a nested `command`: any kind
        one = assess_command(value, config=config, policy=policy, cwd=cwd)
        readings.append(_prefixed(one, where))
    if len(readings) == 1:
        return readings[0]  # `_combined` of one reading is that reading (`host`, `later` kept)
    assessment = _combined(readings, call)

    def host() -> CommandAssessment | None:
        # Told on demand (`CommandAssessment.host_view`): only an ALLOW asks for it.
        hosts = [r.host_view() for r in readings]
        if all(h is not None for h in hosts):
            return _combined([h for h in hosts if h is not None], call)
        return None

    return CommandAssessment(
        assessment.verdict, assessment.reasons, assessment.grant_key,
        assessment.skip_approval, None, host,
    )  # fmt: skip


def _prefixed(one: CommandAssessment, where: str) -> CommandAssessment:
    """A command found under argument `where`: its reasons say so; no grant key of its own."""
    prefixed = [Reason(r.code, r.rule, f"argument `{where}`: {r.message}") for r in one.reasons]

    def host() -> CommandAssessment | None:
        told = one.host_view()
        return None if told is None else _prefixed(told, where)

    return CommandAssessment(one.verdict, tuple(prefixed), None, one.skip_approval, None, host)


def _combined(readings: Sequence[CommandAssessment], call: ToolCall) -> CommandAssessment:
    first = readings[0]
    assessment = CommandAssessment(
        first.verdict, first.reasons, first.grant_key, first.skip_approval
    )
    for other in readings[1:]:
        assessment = _stricter(assessment, other)
    if len(readings) > 1 and not (len(readings) == 2 and "args" in call.arguments):
        # Several commands in one call: no single grant key names them all.
        assessment = CommandAssessment(assessment.verdict, assessment.reasons, None, False)
    return assessment


def _step5_flags(
    config: SafetyConfig,
    call: ToolCall,
    side: Side,
    assessment: CommandAssessment | None,
    steps: _Steps,
    pathless: bool = False,
) -> list[Reason]:
    """Add the approval-flag ASKs; return the reasons an ALLOW would carry. `pathless`: the
    call names no path (nor glob, nor ACP location) at all."""
    if side is Side.WRITE:
        if config.require_approval_for_writes:
            steps.soft_ask.append(
                Reason(
                    "write-needs-approval",
                    "require_approval_for_writes",
                    f"`{call.name}` changes files and writes need approval in this mode",
                )
            )
        elif pathless:
            # Where it writes is not in the call: nothing inside the allowed paths to allow.
            steps.soft_ask.append(
                Reason(
                    "write-target-unknown",
                    "require_approval_for_writes",
                    f"`{call.name}` changes files (kind `{call.kind.value}`) but names no "
                    "path to check, so where it writes is unknown",
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
