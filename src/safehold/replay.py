"""Replay: decide every call of an audit log again under a policy, and say what changed.

An audit record (`Gate` writes one per decision) carries the call, the workspace, the mode,
who ran the command and a digest of the policy that decided it. `replay` rebuilds each call,
decides it with `evaluate` under the new config, and compares the verdict with the one the
policy gave then (`policy_verdict`: before any person's answer). It runs nothing and writes
nothing: `evaluate` only looks at the file system.

Like for like: a session whose mode was switched (`mode` differs from the config's
`config_mode`) is decided in that mode again; otherwise in the new config's own mode, so a
changed `mode` in the file shows. A call an earlier grant decided is decided with that grant.
Records written before these fields existed replay in the new config's mode.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from safehold.errors import ConfigError
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import evaluate
from safehold.policy.grants import GrantEffect
from safehold.policy.modes import Mode

__all__ = ["ReplayReport", "Replayed", "log_files", "read_records", "replay"]

Direction = Literal["looser", "tighter", "same"]
_GRANT_STEPS: Final = {"grant-allow": GrantEffect.ALLOW, "grant-reject": GrantEffect.REJECT}


@dataclass(frozen=True, slots=True)
class Replayed:
    """One call decided again: where its record is, the verdict then and the decision now."""

    where: str
    """`file:line` of the record."""
    call: ToolCall
    before: Verdict
    before_reasons: tuple[tuple[str, str], ...]
    """The recorded reasons, as (code, rule)."""
    after: Decision

    @property
    def direction(self) -> Direction:
        """`looser` when the verdict now is less strict than then, `tighter` when stricter."""
        now, then = self.after.verdict.strictness, self.before.strictness
        return "looser" if now < then else "tighter" if now > then else "same"

    def describe(self) -> str:
        """The call in one line: `` `bash` `sudo ls` `` or a tool with its arguments."""
        command = self.call.arguments.get("command")
        if isinstance(command, str):
            return f"`{self.call.name}` `{command}`"
        args = json.dumps(dict(self.call.arguments), ensure_ascii=False, sort_keys=True)
        return f"`{self.call.name}` ({self.call.kind.value}) {args}"

    def group(self) -> str:
        """What the change is about: the reason that now decides (tighter) or that no longer
        applies (looser), with the verdicts."""
        change = f"{self.before.value} → {self.after.verdict.value}"
        if self.direction == "tighter" and self.after.reasons:
            r = self.after.reasons[0]
            return f"{change}: {r.code} [{r.rule}]"
        now = {(r.code, r.rule) for r in self.after.reasons}
        gone = [f"{c} [{r}]" for c, r in self.before_reasons if (c, r) not in now]
        return f"{change}: " + (", ".join(gone) + " no longer applies" if gone else "other")


@dataclass(frozen=True, slots=True)
class ReplayReport:
    """Every call decided again, and the records that could not be."""

    replayed: tuple[Replayed, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    """(`file:line`, why) for each record that could not be replayed."""
    policies: frozenset[str] = field(default_factory=frozenset)
    """The digests of the policies that decided the records."""

    def changed(self, direction: Direction) -> tuple[Replayed, ...]:
        """The calls whose verdict moved in `direction`."""
        return tuple(r for r in self.replayed if r.direction == direction)

    def render(self) -> str:
        """Changed calls grouped by direction and reason, then a summary line."""
        lines: list[str] = []
        directions: tuple[Direction, ...] = ("looser", "tighter")
        for direction in directions:
            changed = self.changed(direction)
            if not changed:
                continue
            lines.append(f"{direction}: {len(changed)} call{'s' * (len(changed) != 1)}")
            groups: dict[str, list[Replayed]] = {}
            for r in changed:
                groups.setdefault(r.group(), []).append(r)
            for name, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                lines.append(f"  {name} ({len(members)})")
                lines.extend(f"    {r.where}  {r.describe()}" for r in members[:_SHOWN])
                if len(members) > _SHOWN:
                    lines.append(f"    … and {len(members) - _SHOWN} more")
        for where, why in self.skipped[:_SHOWN]:
            lines.append(f"skipped {where}: {why}")
        if len(self.skipped) > _SHOWN:
            lines.append(f"skipped … and {len(self.skipped) - _SHOWN} more")
        same = len(self.changed("same"))
        lines.append(
            f"summary: {len(self.replayed)} calls replayed ({len(self.policies)} "
            f"polic{'y' if len(self.policies) == 1 else 'ies'} recorded), {same} unchanged, "
            f"{len(self.changed('looser'))} looser, {len(self.changed('tighter'))} tighter, "
            f"{len(self.skipped)} skipped"
        )
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The report as one JSON-ready object (`safehold replay --json`).

        `summary` counts the calls; `changes` lists every call whose verdict moved (looser
        first, then tighter, in log order) with the verdicts, the group `render` files it
        under, the reasons then (code, rule) and now (code, rule, message) and the step that
        decides now; `skipped` the records that could not be replayed.
        """
        order = {"looser": 0, "tighter": 1}
        moved = sorted(
            (r for r in self.replayed if r.direction != "same"),
            key=lambda r: order[r.direction],
        )
        return {
            "format": 1,
            "summary": {
                "replayed": len(self.replayed),
                "unchanged": len(self.changed("same")),
                "looser": len(self.changed("looser")),
                "tighter": len(self.changed("tighter")),
                "skipped": len(self.skipped),
                "policies": sorted(self.policies),
            },
            "changes": [
                {
                    "where": r.where,
                    "direction": r.direction,
                    "group": r.group(),
                    "tool": r.call.name,
                    "kind": r.call.kind.value,
                    "arguments": dict(r.call.arguments),
                    "before": r.before.value,
                    "after": r.after.verdict.value,
                    "before_reasons": [{"code": c, "rule": ru} for c, ru in r.before_reasons],
                    "after_reasons": [
                        {"code": x.code, "rule": x.rule, "message": x.message}
                        for x in r.after.reasons
                    ],
                    "step": r.after.step,
                }
                for r in moved
            ],
            "skipped": [{"where": w, "why": why} for w, why in self.skipped],
        }


_SHOWN: Final = 20


def log_files(path: str | os.PathLike[str]) -> list[Path]:
    """The log itself, or every `*.jsonl` / `*.log` file under a directory, sorted."""
    p = Path(path)
    if p.is_dir():
        return sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in (".jsonl", ".log"))
    if p.is_file():
        return [p]
    raise ConfigError(f"{p}: no such audit log or directory")


def read_records(files: Iterable[Path]) -> Iterator[tuple[str, Any]]:
    """(`file:line`, the parsed record or the error text) for every non-empty line."""
    for f in files:
        try:
            handle = f.open(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ConfigError(f"{f}: cannot read the audit log: {exc.strerror or exc}") from None
        with handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    yield f"{f}:{number}", json.loads(line)
                except ValueError as exc:
                    yield f"{f}:{number}", f"not a JSON record ({exc})"


def replay(
    records: Iterable[tuple[str, Any]],
    config: SafetyConfig,
    *,
    workspace: str | None = None,
) -> ReplayReport:
    """Decide each record's call again under `config` (in `workspace`, if given)."""
    by_mode: dict[Mode | None, SafetyConfig] = {None: config}
    done: list[Replayed] = []
    skipped: list[tuple[str, str]] = []
    policies: set[str] = set()
    for where, record in records:
        problem = _problem(record, workspace)
        if problem is not None:
            skipped.append((where, problem))
            continue
        call = _call_of(record)
        mode = _mode_of(record)
        if mode not in by_mode:
            by_mode[mode] = config.with_mode(mode)  # type: ignore[arg-type]
        runner = record.get("runner")
        grants = None
        effect = _GRANT_STEPS.get(str(record.get("step")))
        if effect is not None and isinstance(record.get("grant_key"), str):
            grants = {record["grant_key"]: effect}
        after = evaluate(
            by_mode[mode],
            call,
            workspace=workspace or str(record["workspace"]),
            grants=grants,
            runner="sandbox" if runner == "sandbox" else "host",  # unrecorded: the host
        )
        before = Verdict(record.get("policy_verdict") or _verdict_then(record))
        reasons = tuple(
            (str(r.get("code")), str(r.get("rule")))
            for r in record.get("reasons") or ()
            if isinstance(r, Mapping)
        )
        done.append(Replayed(where, call, before, reasons, after))
        if isinstance(record.get("policy"), str):
            policies.add(record["policy"])
    return ReplayReport(tuple(done), tuple(skipped), frozenset(policies))


def _problem(record: Any, workspace: str | None) -> str | None:
    if isinstance(record, str):
        return record
    if not isinstance(record, Mapping):
        return "not a JSON object"
    if not isinstance(record.get("tool"), str) or not isinstance(record.get("arguments"), dict):
        return "no tool call in the record"
    ws = record.get("workspace")
    if workspace is None and not (isinstance(ws, str) and ws.startswith("/")):
        return "no workspace in the record (written before safehold recorded it; use --cwd)"
    verdicts = {v.value for v in Verdict}
    if (record.get("policy_verdict") or record.get("verdict")) not in verdicts:
        return "no verdict in the record"
    return None


def _call_of(record: Mapping[str, Any]) -> ToolCall:
    def names(key: str) -> tuple[str, ...]:
        value = record.get(key)
        return tuple(str(v) for v in value) if isinstance(value, list) else ()

    return ToolCall(
        record["tool"],
        record["arguments"],
        _kind(record.get("kind")),
        locations=names("locations"),
        path_args=names("path_args"),
        glob_args=names("glob_args"),
        url_args=names("url_args"),
    )


def _kind(value: object) -> ToolKind:
    try:
        return ToolKind(str(value))
    except ValueError:
        return ToolKind.OTHER  # what `ToolCall` makes of an unknown kind


def _mode_of(record: Mapping[str, Any]) -> Mode | None:
    """The recorded mode when the session had switched to it; None: the config's own."""
    mode, base = record.get("mode"), record.get("config_mode")
    if mode is None or base is None or mode == base:
        return None
    try:
        return Mode(mode)
    except ValueError:
        return None


def _verdict_then(record: Mapping[str, Any]) -> str:
    # An older record: an asked call was an ASK of the policy, whatever the person answered.
    return Verdict.ASK.value if record.get("asked") else str(record["verdict"])
