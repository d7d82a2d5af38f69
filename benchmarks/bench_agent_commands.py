"""Real agent commands: how often `evaluate` asks, and how long each decision takes.

Run: `python benchmarks/bench_agent_commands.py [--limit N] [--show CODE] [--timeout S]
[--baseline OLD/src]`. With `--baseline`, the same corpus is also judged (sandbox on) by the
safehold package under another source tree, in a subprocess of the same run, and printed
as the first column.

Reads the corpus of verbatim shell commands from public coding-agent trajectories
(`agent-commands.jsonl.gz`, see benchmarks/README.md): from `$SAFEHOLD_AGENT_COMMANDS`, or
`<repo>/../shared/data/`, or `<repo>/benchmarks/data/`. Without the file it says so and
exits 0, so CI never depends on it.

Each trajectory gets its own real workspace in a temporary directory: the trajectory's
`workspace_hint` (`/testbed`) is replaced by that directory in every command, and the
relative paths its commands name are created as empty files, with a `.git` directory, so
the analysis sees a repository like the agent's. Every command is labelled by rules in this
file (`label`: benign in-repository work is `inspect`, `edit`, `test`, `run`, `scratch`;
the rest is `network`, `install`, `destructive`, `outside-repo`, `computed`, `system`) and
judged by `evaluate` in auto mode with the default config, twice, for safehold's runner
(`runner="sandbox"`): with the sandbox on (`sandbox.mode = "bwrap"`, the default) and off
(`"none"`, which judges as a decision for the host does), side by side.

Prints allow/ask/deny per label, the share of benign in-repository commands allowed, the
p50/p99/max decision time over the whole corpus, and the most common ASK/DENY reason codes
on benign commands. A decision slower than `--timeout` seconds is stopped and counted as
`timeout` (its time counts as the timeout). Asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import gzip
import json
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from safehold import SafetyConfig, SandboxConfig, ToolCall, ToolKind, evaluate

CORPUS = "agent-commands.jsonl.gz"
BENIGN = ("inspect", "edit", "test", "run", "scratch")
LABELS = (*BENIGN, "install", "network", "outside-repo", "destructive", "system", "computed")


def corpus_path() -> Path | None:
    """Where the corpus is: `$SAFEHOLD_AGENT_COMMANDS`, or next to the repository."""
    env = os.environ.get("SAFEHOLD_AGENT_COMMANDS")
    if env:
        return Path(env) if Path(env).is_file() else None
    repo = Path(__file__).resolve().parent.parent
    for candidate in (
        repo.parent / "shared" / "data" / CORPUS,
        repo.parent.parent / "shared" / "data" / CORPUS,
        repo / "benchmarks" / "data" / CORPUS,
    ):
        if candidate.is_file():
            return candidate
    return None


# ---------------------------------------------------------------------------------------
# Labelling rules. They read the command text independently of safehold's own analysis,
# so the benchmark does not grade the engine with the engine.

_HEREDOC = re.compile(r"<<-?[ \t]*(['\"]?)([A-Za-z_][A-Za-z_0-9]*)\1")
_SEPARATORS = {"&&", "||", ";", "|", "&", "(", ")", "|&", ";;", "{", "}", "\n"}
_WRAPPERS = {"timeout", "env", "nice", "nohup", "time", "command", "stdbuf", "xargs"}
_INSPECT = {
    "ls", "cat", "grep", "egrep", "fgrep", "rg", "ag", "find", "head", "tail", "nl", "wc",
    "echo", "printf", "pwd", "which", "type", "diff", "cmp", "sort", "uniq", "cut", "tr",
    "awk", "file", "stat", "tree", "du", "less", "more", "true", "false", "test", "[",
    "realpath", "dirname", "basename", "readlink", "date", "whoami", "id", "uname", "env",
    "printenv", "column", "od", "hexdump", "xxd", "sed", "python-config", "locale", "df",
    "comm", "paste", "jq", "tac", "rev", "fold", "md5sum", "sha256sum", "git", "cd", "export",
    "set", "unset", "sleep", "exit", "source", ".", "ps", "shopt", "ulimit", "wait", "read",
    "hash", "local", "declare", "break", "continue", "return", "if", "then", "else", "fi",
    "for", "do", "done", "while", "case", "esac", "in", "seq", "yes", "tee", "iconv",
}  # fmt: skip
_EDIT = {"cp", "mv", "rm", "mkdir", "touch", "patch", "ln", "chmod", "rmdir", "truncate"}
_RUN = {
    "python", "python3", "python2", "node", "ruby", "perl", "bash", "sh", "make", "php",
    "java", "javac", "gcc", "cc", "go", "cargo", "npm", "npx", "yarn", "tsc", "sphinx-build",
    "pylint", "flake8", "mypy", "black", "isort", "ruff", "django-admin", "coverage", "pre-commit",
}  # fmt: skip
_TEST = {"pytest", "py.test", "tox", "nox", "unittest"}
_NETWORK = {"curl", "wget", "ssh", "scp", "rsync", "nc", "ncat", "telnet", "ftp", "sftp"}
_SYSTEM = {"sudo", "apt", "apt-get", "yum", "dnf", "apk", "brew", "systemctl", "service",
           "kill", "pkill", "killall", "mount", "umount", "chown", "useradd", "crontab",
           "docker", "podman", "reboot", "shutdown", "dd", "mkfs"}  # fmt: skip
_GIT_READS = {"status", "diff", "log", "show", "grep", "blame", "ls-files", "rev-parse", "branch"}
_GIT_NETWORK = {"clone", "fetch", "pull", "push", "ls-remote", "submodule"}
_INSTALL_VERBS = {"install", "download", "uninstall", "add", "remove"}
_OK_ABSOLUTE = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/tmp", "/var/tmp")
_ABSOLUTE = re.compile(r"^/[A-Za-z0-9_.+-]*(?:/[A-Za-z0-9_.+*-]*)*$")
_COMPUTED = re.compile(r"\beval\b|\|\s*(?:ba|z|da)?sh\b(?!\S)|base64 -d[^|]*\|")
_PATH_TOKEN = re.compile(r"^(?:\./)?[A-Za-z0-9_][A-Za-z0-9_.+-]*(?:/[A-Za-z0-9_.+-]+)*/?$")


def strip_heredocs(command: str) -> tuple[str, list[str]]:
    """The command without its heredoc bodies (data or code), and the bodies."""
    lines = command.split("\n")
    out: list[str] = []
    bodies: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        for m in _HEREDOC.finditer(line):
            end = m.group(2)
            body: list[str] = []
            while i < len(lines) and lines[i].strip() != end:
                body.append(lines[i])
                i += 1
            i += 1
            bodies.append("\n".join(body))
    return "\n".join(out), bodies


def _tokens(text: str) -> list[str]:
    lexer = shlex.shlex(text.replace("\n", " ; "), posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: split on blanks, which is good enough to label
        return text.split()


def simple_commands(text: str) -> Iterator[list[str]]:
    """Each simple command's words, split at shell operators, wrappers and `VAR=x` dropped."""
    current: list[str] = []
    for tok in [*_tokens(text), ";"]:
        if tok in _SEPARATORS or set(tok) <= set(";&|()"):
            if current:
                yield current
            current = []
            continue
        current.append(tok)


def _program(words: list[str]) -> tuple[str, list[str]]:
    i = 0
    while i < len(words) and (
        re.match(r"^[A-Za-z_][A-Za-z_0-9]*=", words[i]) or words[i] in _WRAPPERS
    ):
        i += 1
        while words[i - 1] in ("timeout",) and i < len(words) and words[i][:1].isdigit():
            i += 1
    while i < len(words) and (words[i].startswith("-") and words[i - 1] in _WRAPPERS):
        i += 1
    rest = words[i:]
    return (rest[0].rsplit("/", 1)[-1] if rest else ""), rest[1:]


def _outside(word: str, ws: str) -> bool:
    w = word.split("=", 1)[-1] if word.startswith("-") else word
    w = w.lstrip("<>0123456789&")
    if w.startswith(("~", "$HOME")):
        return True
    if not _ABSOLUTE.match(w) or w.startswith(ws) or w == "/testbed":
        return False
    if any(w == ok or w.startswith(ok + "/") for ok in _OK_ABSOLUTE):
        return False
    return not w.startswith("/testbed/")


def _work(prog: str, args: list[str]) -> str:
    """What one in-repository program call does: test, run, edit or inspect."""
    python = prog.startswith("python")
    if prog in _TEST or (python and "pytest" in args[:2]):
        return "test"
    if "test" in args[:3] and (python or prog in ("make", "npm")):
        return "test"
    if prog in _RUN or python or prog.startswith("./"):
        return "run"
    in_place = prog in ("sed", "perl", "ruby") and any(a.startswith(("-i", "-pi")) for a in args)
    if prog in _EDIT or in_place or (prog == "git" and args[:1] and args[0] not in _GIT_READS):
        return "edit"
    return "inspect" if prog in _INSPECT or not prog else "run"


def label(command: str, ws: str = "/testbed") -> str:
    """The label of one command: the riskiest kind of work any of its parts does."""
    head, bodies = strip_heredocs(command)
    if _COMPUTED.search(head):
        return "computed"
    kinds: set[str] = set()
    for words in simple_commands(head):
        prog, args = _program(words)
        if prog in _SYSTEM:
            kinds.add("system")
        if prog in _NETWORK or (prog == "git" and args[:1] and args[0] in _GIT_NETWORK):
            kinds.add("network")
        if prog.startswith(("pip", "conda", "uv", "poetry", "npm", "yarn")) and any(
            a in _INSTALL_VERBS for a in args[:2]
        ):
            kinds.add("install")
        if "-m" in words and any(a.startswith("pip") for a in args) and "install" in args:
            kinds.add("install")
        if prog == "rm" and any(_outside(a, ws) or a in ("/", "*", "..") for a in args):
            kinds.add("destructive")
        if any(_outside(w, ws) or w == ".." or w.startswith("../") for w in args):
            kinds.add("outside-repo")
        kinds.add(_work(prog, args))
        if any(a.startswith("/tmp") for a in args) or any(
            w.startswith((">/tmp", ">>/tmp")) for w in words
        ):
            kinds.add("scratch")
    if any(">" in w for w in _tokens(head)) or (bodies and "cat" in head):
        kinds.add("edit")
    for kind in ("computed", "destructive", "system", "network", "install", "outside-repo"):
        if kind in kinds:
            return kind
    for kind in ("scratch", "test", "run", "edit"):
        if kind in kinds:
            return kind
    return "inspect"


# ---------------------------------------------------------------------------------------
# Workspaces.


@dataclass
class Entry:
    """One corpus command and where it runs."""

    id: str
    command: str
    source: str
    hint: str | None
    label: str = ""
    ws: str = ""


def load(path: Path, limit: int | None) -> list[Entry]:
    """Read the corpus, in file order."""
    out: list[Entry] = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            out.append(Entry(d["id"], d["command"], d["source"], d.get("workspace_hint")))
            if limit is not None and len(out) >= limit:
                break
    return out


def build_workspaces(entries: list[Entry], root: Path) -> None:
    """One real workspace per trajectory, holding the relative paths its commands name."""
    by_source: dict[str, list[Entry]] = defaultdict(list)
    for e in entries:
        by_source[e.source].append(e)
    for n, (_source, group) in enumerate(sorted(by_source.items())):
        ws = root / f"t{n:04d}" / "testbed"
        (ws / ".git" / "hooks").mkdir(parents=True)
        (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (ws / ".git" / "config").write_text("[core]\n")
        names: set[str] = set()
        for e in group:
            e.ws = str(ws)
            hint = e.hint or "/testbed"
            head, _ = strip_heredocs(e.command)
            for tok in _tokens(head):
                if tok.startswith(hint + "/"):
                    tok = tok[len(hint) + 1 :]
                if _PATH_TOKEN.match(tok) and ("/" in tok or "." in tok.strip(".")):
                    names.add(tok.removeprefix("./"))
        _materialise(ws, sorted(names)[:3000])


def _materialise(ws: Path, names: list[str]) -> None:
    dirs = {n.rstrip("/") for n in names if n.endswith("/")}
    for n in names:
        parts = n.rstrip("/").split("/")
        dirs.update("/".join(parts[:k]) for k in range(1, len(parts)))
    for d in sorted(dirs):
        p = ws / d
        with contextlib.suppress(OSError):
            p.mkdir(parents=True, exist_ok=True)
    for n in names:
        p = ws / n.rstrip("/")
        if n.rstrip("/") in dirs or p.exists():
            continue
        with contextlib.suppress(OSError):
            p.write_text("")
    # A directory holding a named `.py` file is a regular package, as in the repositories
    # the trajectories come from (`django/db/models/x.py`: `django/__init__.py`, …), and so
    # is each directory above it: `import django` there is the workspace's own module.
    packages = {
        "/".join(parts[:k])
        for n in names
        if n.endswith(".py")
        for parts in [n.split("/")]
        for k in range(1, len(parts))
    }
    for d in sorted(packages):
        init = ws / d / "__init__.py"
        if (ws / d).is_dir() and not init.exists():
            with contextlib.suppress(OSError):
                init.write_text("")


# ---------------------------------------------------------------------------------------
# Judging.


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so `evaluate`'s own `except Exception` lets it by."""


def _alarm(_signum: int, _frame: FrameType | None) -> None:
    raise _Timeout


@dataclass
class Result:
    """One configuration's verdicts and decision times."""

    verdicts: dict[str, str] = field(default_factory=dict)
    codes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    times_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    slowest: list[tuple[float, str]] = field(default_factory=list)


def judge(entries: list[Entry], config: SafetyConfig, timeout: float) -> Result:
    """`evaluate` every command in its workspace; a decision past `timeout` is stopped."""
    res = Result()
    if entries:
        # Pay the one-time costs (parser set-up, imports, compiled patterns) before timing:
        # a session decides many commands after its first.
        warm = ToolCall(
            "bash", {"command": "cat <<'EOF' > f && python f\nx\nEOF"}, ToolKind.EXECUTE
        )
        evaluate(config, warm, workspace=entries[0].ws, runner="sandbox")
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for e in entries:
            hint = e.hint or "/testbed"
            command = e.command.replace(hint, e.ws)
            call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
            t0 = time.perf_counter()
            c0 = time.thread_time()
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                decision = evaluate(config, call, workspace=e.ws, runner="sandbox")
                signal.setitimer(signal.ITIMER_REAL, 0)
                ms = (time.perf_counter() - t0) * 1000
                res.cpu_ms.append((time.thread_time() - c0) * 1000)
                res.verdicts[e.id] = decision.verdict.value
                res.codes[e.id] = tuple(sorted({r.code for r in decision.reasons}))
            except _Timeout:
                ms = timeout * 1000
                res.cpu_ms.append((time.thread_time() - c0) * 1000)
                res.verdicts[e.id] = "timeout"
                res.codes[e.id] = ("timeout",)
            res.times_ms.append(ms)
            res.slowest.append((ms, e.id))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    res.slowest = sorted(res.slowest, reverse=True)[:5]
    return res


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:5.1f}%" if d else "    -"


def report(entries: list[Entry], results: dict[str, Result], show: str | None) -> None:
    """Print the tables."""
    names = list(results)
    by_label: dict[str, list[Entry]] = defaultdict(list)
    for e in entries:
        by_label[e.label].append(e)
    print(f"{len(entries)} commands, {len({e.source for e in entries})} trajectories\n")
    header = f"{'label':<13} {'n':>6}"
    for name in names:
        header += f" | {name + ' allow':>17} {'ask':>6} {'deny':>6}"
    print(header)
    groups = [(lab, by_label.get(lab, [])) for lab in LABELS]
    groups.append(("BENIGN", [e for e in entries if e.label in BENIGN]))
    for lab, group in groups:
        row = f"{lab:<13} {len(group):>6}"
        for name in names:
            c = Counter(results[name].verdicts[e.id] for e in group)
            row += f" | {_pct(c['allow'], len(group)):>17} {_pct(c['ask'], len(group)):>6}"
            row += f" {_pct(c['deny'], len(group)):>6}"
            if c["timeout"]:
                row += f" (+{c['timeout']} timeout)"
        print(row)
    print()
    for name in names:
        warm = " (analyses cached by the first pass)" if name == "none" else ""
        print(f"decision time, {name}{warm}:")
        for kind, times in (("wall", results[name].times_ms), ("cpu", results[name].cpu_ms)):
            t = sorted(times)
            p99 = t[min(len(t) - 1, int(len(t) * 0.99))]
            print(
                f"  {kind:<4} p50 {statistics.median(t):.2f} ms, p99 {p99:.2f} ms, "
                f"max {t[-1]:.1f} ms"
            )
        print(
            "  slowest (wall): " + ", ".join(f"{i} {ms:.0f} ms" for ms, i in results[name].slowest)
        )
    for name in names:
        codes: Counter[str] = Counter()
        for e in entries:
            if e.label in BENIGN and results[name].verdicts[e.id] != "allow":
                codes.update(results[name].codes[e.id])
        print(f"\nreason codes on benign commands not allowed, {name}:")
        for code, n in codes.most_common(15):
            print(f"  {n:>5}  {code}")
    if show:
        first = names[0]
        print(f"\ncommands with reason code `{show}` ({first}):")
        hits = [e for e in entries if show in results[first].codes[e.id]]
        for e in hits[:20]:
            print(f"  [{e.id} {e.label}] {e.command[:300]!r}")


def _baseline(args: argparse.Namespace) -> Result:
    """Run this script as a worker against another safehold source tree; read its results."""
    argv = [sys.executable, __file__, "--worker", "--timeout", str(args.timeout)]
    if args.limit is not None:
        argv += ["--limit", str(args.limit)]
    env = {**os.environ, "PYTHONPATH": str(Path(args.baseline).resolve())}
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
    data = json.loads(out.strip().splitlines()[-1])
    data["slowest"] = [tuple(x) for x in data["slowest"]]
    return Result(**data)


def main() -> None:
    """Parse arguments, build the workspaces, judge, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="first N commands only")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per decision")
    parser.add_argument("--show", default=None, help="print commands with this reason code")
    parser.add_argument("--label", default=None, help="print the commands with this label")
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="SRC",
        help="also judge with the safehold package under SRC (an older checkout's src/), "
        "sandbox on, in a subprocess: a side-by-side baseline from the same run",
    )
    parser.add_argument(
        "--no-freeze",
        action="store_true",
        help="do not gc.freeze() the benchmark's own objects before timing (see below)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    path = corpus_path()
    if path is None:
        print(f"{CORPUS} not found (set SAFEHOLD_AGENT_COMMANDS); nothing to measure")
        return
    entries = load(path, args.limit)
    for e in entries:
        e.label = label(e.command, e.hint or "/testbed")
    if args.label:
        for e in entries:
            if e.label == args.label:
                print(f"[{e.id}] {e.command[:200]!r}")
        return
    auto = SafetyConfig().with_mode("auto")
    configs = {
        "bwrap": auto,
        "none": auto.replace(sandbox=SandboxConfig(mode="none")),
    }
    if args.worker:  # the baseline subprocess: judge with the sandbox on, print JSON
        configs = {"bwrap": configs["bwrap"]}
    with tempfile.TemporaryDirectory(prefix="safehold-agent-commands-") as tmp:
        root = Path(tmp)
        home = root / "home"
        home.mkdir()
        os.environ["HOME"] = str(home)  # `~` is a throwaway home, not the user's
        build_workspaces(entries, root)
        if not args.no_freeze:
            # The corpus, its workspaces' bookkeeping and every module imported so far are
            # the benchmark's, not the decisions': frozen, a gen-2 collection walks only what
            # the decisions allocate, as in a long-running agent that froze its start-up
            # heap. A collection's pause grows with every object the process holds (about
            # 0.75 µs each here), so without this the maximum measures the benchmark's heap.
            gc.collect()
            gc.freeze()
        print(f"gc.freeze() before timing: {'no' if args.no_freeze else 'yes'}")
        results = {name: judge(entries, cfg, args.timeout) for name, cfg in configs.items()}
    if args.worker:
        print(json.dumps(dataclasses.asdict(results["bwrap"])))
        return
    if args.baseline:
        results = {"baseline": _baseline(args), **results}
    report(entries, results, args.show)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
