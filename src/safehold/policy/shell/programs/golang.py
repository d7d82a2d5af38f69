"""The `go` command: every subcommand and option of Go 1.26's `go help`, with its role.

Taken from golang/go `src/cmd/go/alldocs.go` (the generated text of every `go help`
page, commit 0061fdb) and `src/cmd/go/main.go` (`handleChdirFlag`). Go's `flag` package
reads `-name` and `--name` alike, `-name=value` or `-name value` for a value, and a boolean
only as `-name` or `-name=false` (so a boolean is an optional value here); no clusters,
no prefixes (`parser="exact"`). Flags stop at the first operand, except for `go test`,
which reads its own flags on both sides of the package list.

What runs, and so what asks without the sandbox:

- `go build`, `go vet`, `go list`, `go doc`, `go fmt`, `go fix`, `go mod …`, `go work …`
  compile or read the workspace's code and run none of it. (The `go` command treats
  "building untrusted code runs nothing" as a security property: cgo flags in source are
  checked against an allow list, and escapes were fixed as vulnerabilities.)
- `go test` and `go run` run the program, with the code of every dependency the module
  needs, which the build downloads when the module cache lacks it; `go install` puts a
  program on `PATH`; `go generate` runs the commands its `//go:generate` lines name,
  which are most often `go run pkg@version` of a downloaded tool: `fetches_code`, as for
  `cargo test` and `npm install` (security model, rule 3).
- Toolchain switching (https://go.dev/doc/toolchain): a `go` or
  `toolchain` line in `go.mod`/`go.work` newer than the installed Go makes any `go`
  command download `golang.org/toolchain@…` and run it. That code is an official Go
  release, checked against the checksum database (sum.golang.org); the workspace only
  picks the version. It is not counted as downloaded code. What could change that
  (`GOTOOLCHAIN`, `GOPROXY`, `GOSUMDB`, `GONOSUMDB`, `GOFLAGS`, `GOENV`, …) is an
  environment variable that asks (`environment._DANGEROUS_ENV`), and `go env -w` writes
  the user's Go environment file (an implicit write outside the workspace).

Left out, so that they ask: `go tool` (runs any tool, including those a `go.mod` `tool`
line names: downloaded code), `go bug` (opens a browser), `go telemetry` (changes the
user's settings); the build flags `-toolexec` (runs a program around every tool),
`-exec` (runs the binary through a program), `-vettool`/`-fixtool` (run another
analysis program), `-asmflags`, `-gcflags`, `-gccgoflags` and `-ldflags` (their values
are flags of the compiler and linker: `-ldflags=-extld=CMD` runs CMD,
`-gcflags=-cpuprofile=F` writes F), `-overlay` (its JSON maps the package's files to any
other file, which the compiler then reads and quotes in its errors); `go doc -http`
(starts a server and a browser, downloading `pkgsite`); and the undocumented `-debug-*`
flags (they write files). `-C DIR` moves the analysis, as `make -C`.
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Opt, Program, Role

__all__ = ["GO", "GO_LEFT_OUT", "GO_SOURCE", "PROGRAMS"]

GO_SOURCE = "Go 1.26 go help (golang/go src/cmd/go/alldocs.go at 0061fdb)"

_BOOL = Opt(takes=True, optional=True)  # `-v`, `-v=false`: never the next word


def _spell(names: tuple[str, ...], opt: Opt, prefix: str = "") -> dict[str, Opt]:
    """Each flag `name` as `-name` and `--name` (the flag package reads both)."""
    return {f"{dash}{prefix}{name}": opt for name in names for dash in ("-", "--")}


def _bools(*names: str) -> dict[str, Opt]:
    return _spell(names, _BOOL)


def _values(*names: str, role: Role | None = None) -> dict[str, Opt]:
    return _spell(names, Opt(takes=True, role=role))


_HELP = _bools("h", "help")

# `go help build`: "the build flags are shared by the build, clean, get, install, list,
# run, and test commands" (vet and fix take those that "control package resolution and
# execution"; a flag a command does not take makes `go` stop, so a wider list is safe).
_BUILD: dict[str, Opt] = {
    **_HELP,
    **_values("C", role="cwd"),  # must be the first flag; moves where the rest is read
    **_bools("a", "n", "race", "msan", "asan", "cover", "v", "work", "x", "json"),
    **_bools("linkshared", "modcacherw", "trimpath", "buildvcs"),
    **_values("p", "covermode", "coverpkg", "buildmode", "compiler", "installsuffix"),
    **_values("mod", "tags"),
    # `-modfile F` reads and may rewrite F (and F's `.sum`); `-pkgdir D` installs into D.
    **_values("modfile", "pkgdir", role="write"),
    **_values("pgo", role="read"),
}
# `go help testflag`: flags of the test binary, also spelled `-test.NAME`. Profiles go to
# the file named (relative to `-outputdir`) and leave the test binary `pkg.test` in the
# current directory.
_TESTING: dict[str, Opt] = {
    **_bools("artifacts", "cover", "failfast", "fullpath", "json", "short", "v", "benchmem"),
    **_values("bench", "benchtime", "count", "covermode", "coverpkg", "cpu", "fuzz"),
    **_values("fuzztime", "fuzzminimizetime", "list", "parallel", "run", "shuffle", "skip"),
    **_values("timeout", "blockprofilerate", "memprofilerate", "mutexprofilefraction"),
    **_values("coverprofile", "cpuprofile", "memprofile", "blockprofile", role="write"),
    **_values("mutexprofile", "trace", "outputdir", role="write"),
}
_TESTING = {
    **_TESTING,
    **{"-test." + k.lstrip("-"): v for k, v in _TESTING.items() if not k.startswith("--")},
    **{"--test." + k.lstrip("-"): v for k, v in _TESTING.items() if not k.startswith("--")},
}
_TEST = {
    **_BUILD,
    **_TESTING,
    **_bools("c"),
    **_values("o", role="write"),
    # `-args`: everything after it goes to the test binary unread (the next word is
    # taken as its value so that reading stops there).
    **_spell(("args",), Opt(takes=True, ends=True)),
    # `-vet LIST`: which vet checks run before the tests (`off`).
    **_values("vet"),
}
# `go tool vet help`: the analyzers of cmd/vet (each a boolean flag) and their options.
_ANALYZERS = (
    "appends", "asmdecl", "assign", "atomic", "bools", "buildtag", "cgocall", "composite",
    "copylocks", "defers", "directive", "errorsas", "framepointer", "httpresponse",
    "hostport", "ifaceassert", "loopclosure", "lostcancel", "nilfunc", "printf", "shift",
    "sigchanyzer", "slog", "stdmethods", "stdversion", "stringintconv", "structtag",
    "testinggoroutine", "tests", "timeformat", "unmarshal", "unreachable", "unsafeptr",
    "unusedresult", "waitgroup",
)  # fmt: skip
_VET = {
    **_BUILD,
    **_bools("json", "diff", *_ANALYZERS),
    **_values("c", "printf.funcs", "unusedresult.funcs", "unusedresult.stringmethods"),
    # `-fix` applies the fixes: the packages' files are rewritten.
    **_spell(("fix",), Opt(takes=True, optional=True, mode="fix")),
}
_MOD_COMMON = {
    **_HELP,
    **_values("C", role="cwd"),
    **_bools("modcacherw", "n", "x"),
    **_values("modfile", role="write"),
}
_HERE: tuple[tuple[Role, str | None], ...] = (("write", "."),)  # go.mod, go.sum, go.work
_PRINT = _spell(("print", "json"), Opt(takes=True, optional=True, mode="print"))


def _go(
    options: dict[str, Opt],
    *,
    operands: Role | None = None,
    first: Role | None = None,
    implicit: tuple[tuple[Role, str | None], ...] = (),
    modes: dict[str, Program] | None = None,
    subcommands: dict[str, Program] | None = None,
    options_first: bool = False,
    fetches_code: bool = False,
) -> Program:
    return Program(
        options=options,
        operands=operands,
        first=first,
        implicit=implicit,
        modes=modes or {},
        subcommands=subcommands or {},
        options_first=options_first,
        parser="exact",
        source=GO_SOURCE,
        fetches_code=fetches_code,
    )


_MOD = _go(
    _HELP,
    subcommands={
        "download": _go({**_MOD_COMMON, **_bools("json"), **_values("reuse", role="read")}),
        # `go mod edit [flags] [go.mod]`: rewrites the named file, else the module's.
        "edit": _go(
            {
                **_MOD_COMMON,
                **_bools("fmt"),
                **_PRINT,
                **_values("module", "godebug", "dropgodebug", "require", "droprequire"),
                **_values("go", "toolchain", "exclude", "dropexclude", "replace"),
                **_values("dropreplace", "retract", "dropretract", "tool", "droptool"),
                **_values("ignore", "dropignore"),
            },
            operands="write",
            implicit=_HERE,
            modes={"print": _go({}, operands="read")},
        ),
        "graph": _go({**_MOD_COMMON, **_values("go")}),
        "init": _go(_MOD_COMMON, implicit=_HERE),
        "tidy": _go(
            {
                **_MOD_COMMON,
                **_bools("e", "v"),
                **_spell(("diff",), Opt(takes=True, optional=True, mode="print")),
                **_values("go", "compat"),
            },
            implicit=_HERE,
            modes={"print": _go({})},
        ),
        "vendor": _go(
            {**_MOD_COMMON, **_bools("e", "v"), **_values("o", role="write")}, implicit=_HERE
        ),
        "verify": _go(_MOD_COMMON),
        "why": _go({**_MOD_COMMON, **_bools("m", "vendor")}),
    },
)
_WORK = _go(
    _HELP,
    subcommands={
        "edit": _go(
            {
                **_MOD_COMMON,
                **_bools("fmt"),
                **_PRINT,
                **_values("godebug", "dropgodebug", "use", "dropuse", "replace"),
                **_values("dropreplace", "go", "toolchain"),
            },
            operands="write",
            implicit=_HERE,
            modes={"print": _go({}, operands="read")},
        ),
        "init": _go(_MOD_COMMON, operands="read", implicit=_HERE),
        # `go work sync` rewrites the go.mod of every module go.work names, wherever it is.
        "sync": _go(_MOD_COMMON, implicit=(("write", None),)),
        "use": _go({**_MOD_COMMON, **_bools("r")}, operands="read", implicit=_HERE),
        "vendor": _go(
            {**_MOD_COMMON, **_bools("e", "v"), **_values("o", role="write")}, implicit=_HERE
        ),
    },
)
# `go clean`: removes the build outputs of the packages named (or the current one) from
# their directories: files named after the package or a main file (`DIR`, `DIR.test`,
# `MAINFILE`), objects (`*.o`, `*.so`, `_obj/`), never sources; those are not judged.
# `-testcache` only expires cached test results. `-i` removes the installed program (in
# GOBIN), `-r` the outputs of every dependency, `-cache`/`-modcache`/`-fuzzcache` whole
# caches: places outside the workspace that no word names (computed), so they ask.
_CLEAN_WIDE = Opt(takes=True, optional=True, mode="wide")
_CLEAN = _go(
    {
        **_BUILD,
        **_bools("testcache"),
        **_spell(("i", "r", "cache", "modcache", "fuzzcache"), _CLEAN_WIDE),
    },
    operands="read",
    modes={"wide": _go({}, operands="read", implicit=(("delete", None),))},
)

GO = _go(
    _HELP,
    subcommands={
        # A single main package's program is written to the current directory.
        "build": _go({**_BUILD, **_values("o", role="write")}, operands="read", implicit=_HERE),
        "clean": _CLEAN,
        "doc": _go({**_HELP, **_bools("all", "c", "cmd", "ex", "short", "src", "u")}),
        # `go env -w NAME=VALUE` / `-u NAME` rewrite the user's Go environment file
        # (`os.UserConfigDir()/go/env`), which every later `go` command reads (`GOFLAGS`).
        "env": _go(
            {
                **_HELP,
                **_bools("json", "changed"),
                **_spell(("w", "u"), Opt(takes=True, optional=True, mode="config")),
            },
            modes={"config": _go({}, implicit=(("write", "~/.config/go/env"),))},
        ),
        "fix": _go(
            {**_BUILD, **_spell(("diff",), Opt(takes=True, optional=True, mode="diff"))},
            operands="write",
            modes={"diff": _go({}, operands="read")},
        ),
        # `go fmt` runs `gofmt -l -w` on the packages' files; `-n` only prints the command.
        "fmt": _go(
            {
                **_HELP,
                **_bools("x"),
                **_values("mod"),
                **_spell(("n",), Opt(takes=True, optional=True, mode="dry-run")),
            },
            operands="write",
            modes={"dry-run": _go({}, operands="read")},
        ),
        "generate": _go({**_BUILD, **_values("run", "skip")}, operands="read", fetches_code=True),
        # `go get` rewrites go.mod and go.sum and downloads modules; it builds nothing.
        "get": _go({**_BUILD, **_bools("t", "u", "tool")}, implicit=_HERE),  # `-u=patch`
        "help": _go(_HELP),
        "install": _go(_BUILD, operands="read", implicit=(("write", None),), fetches_code=True),
        "list": _go(
            {
                **_BUILD,
                **_values("f"),
                **_bools("m", "compiled", "deps", "e", "export", "find", "test", "u"),
                **_bools("versions", "retracted"),
                **_values("reuse", role="read"),
            },
            operands="read",
        ),
        "mod": _MOD,
        # `go run [build flags] PACKAGE ARGS…`: the words after the package are its own.
        "run": _go(_BUILD, first="read", options_first=True, fetches_code=True),
        "test": _go(_TEST, operands="read", implicit=_HERE, fetches_code=True),
        "version": _go({**_HELP, **_bools("m", "v", "json")}, operands="read"),
        "vet": _go(_VET, operands="read", modes={"fix": _go({}, operands="write")}),
        "work": _WORK,
    },
)

# Subcommands of `go help` the table leaves out on purpose, with why: they ask.
GO_LEFT_OUT: dict[str, str] = {
    "bug": "opens a browser",
    "telemetry": "changes the user's telemetry settings",
    "tool": "runs a tool, also one a go.mod `tool` line names (downloaded code)",
}

PROGRAMS: dict[str, Program] = {"go": GO}
