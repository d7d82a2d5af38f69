"""deno and bun: runtimes whose subcommands fetch and run code from the network.

`deno run https://…`, `deno install -g URL`, `bun x PKG` and `bun add PKG` run (or install
to run) code nobody saw: security-model rule 3. These tables list the subcommands that run
only the workspace's own code (a local script, a `deno.json` task, a `package.json`
script, the project's tests), each with the options of its `--help` that name no file
and fetch nothing; every other subcommand or option is not understood on the host.
Package installs are `fetches_code` (asked as `downloaded-code`). `deno eval` and `bun -e`
are inline code (`interpreters._INLINE_CODE`).

Sources: `deno <subcommand> --help` of deno 2.1 and `bun <subcommand> --help` of bun 1.1
(docs.deno.com/runtime/reference/cli, bun.sh/docs/cli); options outside the subset below
ask, which costs a question and never a bypass.
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Program
from safehold.policy.shell.programs.vocab import flags, optional, values
from safehold.policy.shell.words import Word

__all__ = ["BUN", "DENO", "local_module"]


def local_module(word: Word) -> bool:
    """A script named by a local path: no URL (`https://…`, `data:`), no package specifier
    (`npm:x`, `jsr:@s/x`), which the runtime would download and run, and not `-`, standard
    input (deno run --help: "Use '-' as the script to read from stdin"; bun's docs, "bun
    run -": code piped in)."""
    return word.static and ":" not in word.text and word.text != "-"


# deno's permission flags: `--allow-read[=<PATH>...]` and kin (a list is glued with `=`).
_PERMISSIONS = {
    **flags("-A", "--allow-all"),
    **optional(
        *(f"--{kind}-{what}" for kind in ("allow", "deny")
          for what in ("read", "write", "net", "env", "run", "sys", "ffi", "import")),
    ),
}  # fmt: skip
# Left out, so they ask on the host: `--inspect[=HOST:PORT]`, `--inspect-brk` and
# `--inspect-wait` open V8's inspector, whose clients run any code in the process with its
# permissions (`--inspect=0.0.0.0:9229`: anyone on the network; deno run --help, "Activate
# inspector on host:port"), as node's `--inspect` asks; `--v8-flags=FLAGS` hands V8 flags
# that write files (`--logfile=PATH`, `--redirect-code-traces-to=PATH`).
_DENO_COMMON = {
    **_PERMISSIONS,
    **flags("-q", "--quiet", "--no-check", "--cached-only", "--no-remote", "--no-npm",
            "--no-lock", "--unstable", "--no-prompt", "--no-clear-screen", "-h", "--help"),
    **optional("--check", "-r", "--reload", "--watch"),
    **values("--seed", "--log-level"),
}  # fmt: skip
_DENO_RUN = Program(
    options=_DENO_COMMON,
    options_first=True,
    stop_at=1,  # the script's own arguments follow it
    understood_operand=local_module,
)
_DENO_TEST = Program(
    options={
        **_DENO_COMMON,
        **flags("--doc", "--parallel", "--trace-leaks", "--no-run", "--permit-no-files",
                "--hide-stacktraces"),
        **optional("--fail-fast", "--shuffle"),
        **values("--filter", "--reporter"),
    },
    understood_operand=local_module,
)  # fmt: skip
DENO = Program(
    options=flags("-V", "--version", "-h", "--help"),
    subcommands={
        "run": _DENO_RUN,
        "test": _DENO_TEST,
        "bench": Program(options={**_DENO_COMMON, **values("--filter")}, understood_operand=local_module),
        "task": Program(options=flags("-q", "--quiet", "-h", "--help"), options_first=True, stop_at=1),
        "check": Program(options=flags("--all", "--doc", "-q", "--quiet", "-h", "--help"), understood_operand=local_module),
        "lint": Program(options=flags("--json", "--compact", "-q", "--quiet", "-h", "--help"), operands="read"),
        "doc": Program(options=flags("--json", "--lint", "-q", "--quiet", "-h", "--help"), understood_operand=local_module),
        "info": Program(options=flags("--json", "-q", "--quiet", "-h", "--help"), understood_operand=local_module),
        "types": Program(options=flags("-h", "--help")),
    },
    source="deno 2.1 (deno <subcommand> --help), a subset",
)  # fmt: skip

_BUN_RUN = Program(
    options=flags("--watch", "--hot", "--bun", "--silent", "--if-present", "--smol", "-b",
                  "-h", "--help"),
    options_first=True,
    stop_at=1,  # a package.json script or a local file; its own arguments follow it
    understood_operand=local_module,
)  # fmt: skip
_BUN_FETCHES = Program(fetches_code=True)
BUN = Program(
    options=flags("-v", "--version", "-h", "--help", "--revision"),
    subcommands={
        "run": _BUN_RUN,
        "test": Program(
            options={
                **flags("--watch", "--coverage", "-u", "--update-snapshots", "--only", "--todo",
                        "-h", "--help"),
                **optional("--bail"),
                **values("--timeout", "-t", "--test-name-pattern", "--rerun-each"),
            },
            understood_operand=local_module,
        ),
        **dict.fromkeys(
            ("install", "i", "add", "a", "update", "x", "create", "c", "upgrade"), _BUN_FETCHES
        ),
    },
    source="bun 1.1 (bun <subcommand> --help), a subset",
)  # fmt: skip
