"""docker and kubectl tables: what each subcommand asks on the host, and the tables that
podman, nerdctl and oc borrow (programs/docker.py, programs/kubectl.py, containers.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.engine import evaluate
from safehold.policy.sandbox_config import SandboxConfig
from safehold.policy.shell.programs import PROGRAMS
from safehold.policy.shell.programs.table import Program, read_roles
from safehold.policy.shell.words import Word


def _asks(command: str) -> tuple[str, ...]:
    words = tuple(Word(t, True) for t in command.split())
    reading = read_roles(PROGRAMS[words[0].text], words)
    assert reading.unknown == (), reading.unknown
    return tuple(ask.code for ask in reading.asks)


@pytest.mark.parametrize(
    ("command", "codes"),
    [
        ("docker ps -aq", ()),
        ("docker container ls --format {{.Names}}", ()),
        ("docker logs -f --tail 20 web", ()),
        ("docker image inspect alpine", ()),
        ("docker pull python:3.12", ("daemon-network",)),
        ("docker -D run --rm -it alpine sh", ("container-code",)),
        ("docker exec -it web ls -la /", ("container-code",)),
        ("docker build -t app .", ("container-code",)),
        ("docker rm -f web", ("daemon-change",)),
        ("docker volume rm data", ("daemon-change",)),
        ("docker inspect web", ("credential-printer",)),
        ("docker login -u me --password-stdin", ("user-config",)),
        ("kubectl get pods -n kube-system -o wide", ()),
        ("kubectl -n prod logs -f deploy/web --tail=50", ()),
        ("kubectl top po -A", ()),
        ("kubectl config get-contexts", ()),
        ("kubectl apply -f k8s/", ("cluster-change",)),
        ("kubectl rollout restart deploy/web", ("cluster-change",)),
        ("kubectl exec -it web -- sh -c ls", ("cluster-code",)),
        ("kubectl config use-context prod", ("user-config",)),
    ],
)
def test_each_subcommand_asks_for_its_own_reason(command: str, codes: tuple[str, ...]) -> None:
    assert _asks(command) == codes


def test_the_command_a_container_runs_is_not_dockers() -> None:
    """`docker run IMAGE CMD…`: the words after the image are the container's, not options."""
    words = tuple(
        Word(t, True) for t in ["docker", "run", "--rm", "alpine", "ls", "--frobnicate", "-o", "/x"]
    )
    assert read_roles(PROGRAMS["docker"], words).unknown == ()


def _walk(program: Program) -> Iterator[Program]:
    yield program
    for sub in program.subcommands.values():
        yield from _walk(sub)


@pytest.mark.parametrize(
    ("name", "model"), [("podman", "docker"), ("nerdctl", "docker"), ("oc", "kubectl")]
)
def test_borrowed_tables_are_not_complete_and_ask_on_the_host(name: str, model: str) -> None:
    """podman, nerdctl and oc keep docker's and kubectl's roles, but claim no `source`
    (their own help was not read), and every command of theirs asks unconfined."""
    borrowed = PROGRAMS[name]
    assert all(not p.source for p in _walk(borrowed))
    assert borrowed.host_ask is not None and borrowed.host_ask.code == "not-understood"
    assert set(borrowed.subcommands) == set(PROGRAMS[model].subcommands)
    words = tuple(Word(t, True) for t in f"{name} run -v /:/h alpine".split())
    roles = [(u.role, u.word.text) for u in read_roles(borrowed, words).uses]
    if model == "docker":
        assert ("mount", "/:/h") in roles


def _paths(program: Program, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], set[str]]]:
    """Every subcommand path of a table, with the `HostAsk` codes met on the way."""
    for name, sub in program.subcommands.items():
        codes = {sub.host_ask.code} if sub.host_ask is not None else set()
        yield (*path, name), codes
        yield from ((p, codes | c) for p, c in _paths(sub, (*path, name)))


def test_every_subcommand_is_allowed_on_the_host_unless_its_table_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bare `docker SUB…`/`kubectl SUB…` on the host, for every path of both tables:
    allowed, or asked for exactly the reasons its tables give (and `publish` for a push,
    a class)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    work = tmp_path / "proj"
    work.mkdir()
    config = SafetyConfig(sandbox=SandboxConfig(mode="none")).with_mode("auto")
    wrong: list[str] = []
    paths = [p for name in ("docker", "kubectl") for p in _paths(PROGRAMS[name], (name,))]
    assert len(paths) > 150
    for path, codes in paths:
        command = " ".join(path)
        call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
        decision = evaluate(config, call, workspace=str(work), runner="host")
        found = {r.code for r in decision.reasons} - {"allowed"}
        want = codes | ({"publish"} if path[-1] == "push" else set())
        verdict = Verdict.ASK if want else Verdict.ALLOW
        if found != want or decision.verdict is not verdict:
            wrong.append(
                f"{command}: {decision.verdict.value} {sorted(found)}, want {sorted(want)}"
            )
    assert not wrong, wrong
