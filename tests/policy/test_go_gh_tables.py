"""The `go` and `gh` tables against the upstream lists they were taken from.

Neither program is installed here or in CI, so `test_vocabulary_completeness` cannot ask
them; these lists are copied from the sources the tables cite (`golang.GO_SOURCE`,
`github_cli.GH_SOURCE`): Go's `src/cmd/go/alldocs.go` (`go help` for every command) and
gh's cobra definitions in `pkg/cmd/**`. Each test fails when a table drops a command or an
option the upstream list has, adds one it does not have, reads a value as a flag, or
leaves something out without saying why.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from safehold.policy.shell.programs import PROGRAMS
from safehold.policy.shell.programs.github_cli import GH, GH_LEFT_OUT, GH_SOURCE
from safehold.policy.shell.programs.golang import GO, GO_LEFT_OUT, GO_SOURCE
from safehold.policy.shell.programs.table import (
    Program,
    Role,
    read_roles,
    resolve_option,
)
from safehold.policy.shell.words import Word


def _walk(
    program: Program, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], Program]]:
    yield path, program
    for name, sub in program.subcommands.items():
        yield from _walk(sub, (*path, name))


# -- go: `go help` (alldocs.go at 0061fdb) ---------------------------------------------------
GO_COMMANDS = frozenset(
    [
        "bug",
        "build",
        "clean",
        "doc",
        "env",
        "fix",
        "fmt",
        "generate",
        "get",
        "install",
        "list",
        "mod",
        "run",
        "telemetry",
        "test",
        "tool",
        "version",
        "vet",
        "work",
    ]
)
GO_MOD = frozenset(["download", "edit", "graph", "init", "tidy", "vendor", "verify", "why"])
GO_WORK = frozenset(["edit", "init", "sync", "use", "vendor"])
# `go help build`: the build flags; those left out run programs or pass flags to the
# compiler and linker.
GO_BUILD_FLAGS = frozenset(
    [
        "C",
        "a",
        "n",
        "p",
        "race",
        "msan",
        "asan",
        "cover",
        "covermode",
        "coverpkg",
        "v",
        "work",
        "x",
        "asmflags",
        "buildmode",
        "buildvcs",
        "compiler",
        "gccgoflags",
        "gcflags",
        "installsuffix",
        "json",
        "ldflags",
        "linkshared",
        "mod",
        "modcacherw",
        "modfile",
        "overlay",
        "pgo",
        "pkgdir",
        "tags",
        "trimpath",
        "toolexec",
    ]
)
GO_BUILD_LEFT_OUT = frozenset(
    ["asmflags", "gccgoflags", "gcflags", "ldflags", "toolexec", "overlay"]
)
# `go help testflag` and `go help test`.
GO_TEST_FLAGS = frozenset(
    [
        "artifacts",
        "bench",
        "benchtime",
        "count",
        "cover",
        "covermode",
        "coverpkg",
        "cpu",
        "failfast",
        "fullpath",
        "fuzz",
        "fuzztime",
        "fuzzminimizetime",
        "json",
        "list",
        "outputdir",
        "parallel",
        "run",
        "short",
        "shuffle",
        "skip",
        "timeout",
        "v",
        "vet",
        "benchmem",
        "blockprofile",
        "blockprofilerate",
        "coverprofile",
        "cpuprofile",
        "memprofile",
        "memprofilerate",
        "mutexprofile",
        "mutexprofilefraction",
        "trace",
    ]
)
# cmd/vet's analyzers (`go tool vet help`), each a boolean flag of `go vet`.
GO_VET_ANALYZERS = frozenset(
    [
        "appends",
        "asmdecl",
        "assign",
        "atomic",
        "bools",
        "buildtag",
        "cgocall",
        "composite",
        "copylocks",
        "defers",
        "directive",
        "errorsas",
        "framepointer",
        "httpresponse",
        "hostport",
        "ifaceassert",
        "loopclosure",
        "lostcancel",
        "nilfunc",
        "printf",
        "shift",
        "sigchanyzer",
        "slog",
        "stdmethods",
        "stdversion",
        "stringintconv",
        "structtag",
        "testinggoroutine",
        "tests",
        "timeformat",
        "unmarshal",
        "unreachable",
        "unsafeptr",
        "unusedresult",
        "waitgroup",
    ]
)
# Each command's own flags (beyond the build flags where it takes them), and those left out.
GO_FLAGS: dict[tuple[str, ...], tuple[str, str]] = {
    ("build",): ("o", ""),
    ("clean",): ("i r cache testcache modcache fuzzcache", ""),
    ("doc",): ("all c cmd ex short src u http", "http"),
    ("env",): ("json changed u w", ""),
    ("fix",): ("diff fixtool", "fixtool"),
    ("fmt",): ("n x mod", ""),
    ("generate",): ("run skip", ""),
    ("get",): ("t u tool", ""),
    ("list",): ("f json m compiled deps e export find test u versions retracted reuse", ""),
    ("run",): ("exec", "exec"),
    ("test",): ("args c exec json o", "exec"),
    ("version",): ("m v json", ""),
    ("vet",): (
        "c json fix diff vettool printf.funcs unusedresult.funcs unusedresult.stringmethods",
        "vettool",
    ),
    ("mod", "download"): ("x json reuse", ""),
    ("mod", "edit"): (
        "fmt module godebug dropgodebug require droprequire go toolchain exclude dropexclude "
        "replace dropreplace retract dropretract tool droptool ignore dropignore print json "
        "C n x",
        "",
    ),
    ("mod", "graph"): ("go x", ""),
    ("mod", "tidy"): ("e v x diff go compat", ""),
    ("mod", "vendor"): ("e v o", ""),
    ("mod", "why"): ("m vendor", ""),
    ("mod", "init"): ("", ""),
    ("mod", "verify"): ("", ""),
    ("work", "init"): ("", ""),
    ("work", "sync"): ("", ""),
    ("work", "edit"): (
        "fmt godebug dropgodebug use dropuse replace dropreplace go toolchain print json",
        "",
    ),
    ("work", "use"): ("r", ""),
    ("work", "vendor"): ("e v o", ""),
}
_GO_WITH_BUILD_FLAGS = frozenset(
    {("build",), ("clean",), ("fix",), ("generate",), ("get",), ("install",), ("list",)}
    | {("run",), ("test",), ("vet",)}
)


# `go mod …` and `go work …` take `-C` (`base.AddChdirFlag`) and the module flags
# (`base.AddModCommonFlags`: `-modcacherw`, `-modfile`, `-overlay`), as `go mod tidy`'s
# source shows; the table gives them (and `-n`, `-x`) to each, `-overlay` left out as in
# the build flags: a flag a command does not take makes `go` stop before it does anything.
GO_MOD_COMMON = frozenset({"C", "modcacherw", "modfile", "n", "x"})


def _go_table(path: tuple[str, ...]) -> Program:
    program = GO
    for name in path:
        program = program.subcommands[name]
    return program


def test_every_go_and_gh_table_names_its_source_and_parser() -> None:
    assert PROGRAMS["go"] is GO
    assert PROGRAMS["gh"] is GH
    for root, source, parser in ((GO, GO_SOURCE, "exact"), (GH, GH_SOURCE, "pflag")):
        for path, program in _walk(root):
            assert program.source == source, path
            assert program.parser == parser, path


def test_go_commands_are_the_upstream_ones_or_left_out_with_a_reason() -> None:
    tabled = set(GO.subcommands) - {"help"}
    assert tabled | set(GO_LEFT_OUT) == GO_COMMANDS
    assert not tabled & set(GO_LEFT_OUT)
    assert all(GO_LEFT_OUT.values())
    assert set(GO.subcommands["mod"].subcommands) == GO_MOD
    assert set(GO.subcommands["work"].subcommands) == GO_WORK


@pytest.mark.parametrize("path", sorted(GO_FLAGS), ids=" ".join)
def test_go_flags_are_the_upstream_ones_in_both_spellings(path: tuple[str, ...]) -> None:
    program = _go_table(path)
    listed, left_out = (frozenset(s.split()) for s in GO_FLAGS[path])
    if path in _GO_WITH_BUILD_FLAGS:
        listed |= GO_BUILD_FLAGS
        left_out |= GO_BUILD_LEFT_OUT
    if path == ("test",):
        listed |= GO_TEST_FLAGS
    if path == ("vet",):
        listed |= GO_VET_ANALYZERS
    if path[0] in ("mod", "work"):
        own_common = GO_MOD_COMMON & {k.lstrip("-") for k in program.options}
        assert own_common == GO_MOD_COMMON, path
        listed |= GO_MOD_COMMON
    for name in listed:
        for spelled in (f"-{name}", f"--{name}"):
            assert (spelled in program.options) is (name not in left_out), (path, spelled)
    own = {k.lstrip("-").removeprefix("test.") for k in program.options} - {"h", "help"}
    assert own <= listed, (path, sorted(own - listed))


def test_go_booleans_never_take_the_next_word_and_values_do() -> None:
    build = _go_table(("build",))
    assert not resolve_option(build, "-race").takes  # `-race false`: `false` is an operand
    assert resolve_option(build, "-race=false").value == "false"
    assert resolve_option(build, "-o").takes
    assert resolve_option(build, "--o=bin/x").value == "bin/x"
    assert resolve_option(build, "-ldflags").unknown
    assert resolve_option(build, "-ofile").unknown  # the flag package has no clusters


_GO_ROLES: list[tuple[tuple[str, ...], str, Role]] = [
    (("build",), "-o", "write"),
    (("build",), "-C", "cwd"),
    (("build",), "-modfile", "write"),
    (("build",), "-pkgdir", "write"),
    (("build",), "-pgo", "read"),
    (("test",), "-coverprofile", "write"),
    (("test",), "-test.cpuprofile", "write"),
    (("test",), "--outputdir", "write"),
    (("list",), "-reuse", "read"),
    (("mod", "vendor"), "-o", "write"),
    (("mod", "tidy"), "-C", "cwd"),
]


@pytest.mark.parametrize(("path", "option", "role"), _GO_ROLES)
def test_go_options_that_name_files_have_their_roles(
    path: tuple[str, ...], option: str, role: Role
) -> None:
    assert _go_table(path).options[option].role == role


def test_go_commands_that_run_downloaded_code_say_so() -> None:
    runs = {name for name, sub in GO.subcommands.items() if sub.fetches_code}
    assert runs == {"generate", "install", "run", "test"}


def _words(*texts: str) -> tuple[Word, ...]:
    return tuple(Word(t, True) for t in texts)


def test_go_test_args_end_the_reading_and_go_run_stops_at_its_package() -> None:
    reading = read_roles(GO, _words("go", "test", "./...", "-args", "-toolexec=x", "-o", "y"))
    assert not reading.unknown
    assert not [u for u in reading.uses if u.role == "write" and u.word.text == "y"]
    reading = read_roles(GO, _words("go", "run", ".", "-o", "/etc/x"))
    assert not reading.unknown
    assert not [u for u in reading.uses if u.word.text == "/etc/x"]


# -- gh 2.60.0: the options of each tabled command, from pkg/cmd/** ----------------------------
# (`-R/--repo` from `EnableRepoOverride` on the group; `--help` is every command's.)
GH_OPTIONS: dict[str, str] = {
    "pr": "-R/--repo=",
    "pr list": (
        "--app= -a/--assignee= -A/--author= -B/--base= -d/--draft -H/--head= -q/--jq= --json= "
        "-l/--label= -L/--limit= -R/--repo= -S/--search= -s/--state= -t/--template= -w/--web"
    ),
    "pr view": "-c/--comments -q/--jq= --json= -R/--repo= -t/--template= -w/--web",
    "pr diff": "--color= --name-only --patch -R/--repo= -w/--web",
    "pr status": "-c/--conflict-status -q/--jq= --json= -R/--repo= -t/--template=",
    "pr checks": (
        "--fail-fast -i/--interval= -q/--jq= --json= -R/--repo= --required -t/--template= "
        "--watch -w/--web"
    ),
    "pr create": (
        "-a/--assignee= -B/--base= -b/--body= -F/--body-file= -d/--draft --dry-run "
        "-e/--editor -f/--fill --fill-first --fill-verbose -H/--head= -l/--label= "
        "-m/--milestone= --no-maintainer-edit -p/--project= --recover= -R/--repo= "
        "-r/--reviewer= -T/--template= -t/--title= -w/--web"
    ),
    "pr comment": "-b/--body= -F/--body-file= --edit-last -e/--editor -R/--repo= -w/--web",
    "pr merge": (
        "--admin -A/--author-email= --auto -b/--body= -F/--body-file= -d/--delete-branch "
        "--disable-auto --match-head-commit= -m/--merge -r/--rebase -R/--repo= -s/--squash "
        "-t/--subject="
    ),
    "pr edit": (
        "--add-assignee= --add-label= --add-project= --add-reviewer= -B/--base= -b/--body= "
        "-F/--body-file= -m/--milestone= --remove-assignee= --remove-label= "
        "--remove-milestone --remove-project= --remove-reviewer= -R/--repo= -t/--title="
    ),
    "pr review": (
        "-a/--approve -b/--body= -F/--body-file= -c/--comment -R/--repo= -r/--request-changes"
    ),
    "pr checkout": "-b/--branch= --detach -f/--force --recurse-submodules -R/--repo=",
    "pr close": "-c/--comment= -d/--delete-branch -R/--repo=",
    "pr reopen": "-c/--comment= -R/--repo=",
    "pr ready": "-R/--repo= --undo",
    "issue": "-R/--repo=",
    "issue list": (
        "--app= -a/--assignee= -A/--author= -q/--jq= --json= -l/--label= -L/--limit= "
        "--mention= -m/--milestone= -R/--repo= -S/--search= -s/--state= -t/--template= "
        "-w/--web"
    ),
    "issue view": "-c/--comments -q/--jq= --json= -R/--repo= -t/--template= -w/--web",
    "issue status": "-q/--jq= --json= -R/--repo= -t/--template=",
    "issue create": (
        "-a/--assignee= -b/--body= -F/--body-file= -e/--editor -l/--label= -m/--milestone= "
        "-p/--project= --recover= -R/--repo= -T/--template= -t/--title= -w/--web"
    ),
    "issue comment": "-b/--body= -F/--body-file= --edit-last -e/--editor -R/--repo= -w/--web",
    "issue edit": (
        "--add-assignee= --add-label= --add-project= -b/--body= -F/--body-file= "
        "-m/--milestone= --remove-assignee= --remove-label= --remove-milestone "
        "--remove-project= -R/--repo= -t/--title="
    ),
    "issue close": "-c/--comment= -r/--reason= -R/--repo=",
    "issue reopen": "-c/--comment= -R/--repo=",
    "repo": "",
    "repo view": "-b/--branch= -q/--jq= --json= -t/--template= -w/--web",
    "repo list": (
        "--archived --fork -q/--jq= --json= -l/--language= -L/--limit= --no-archived "
        "--private --public --source -t/--template= --topic= --visibility="
    ),
    "repo clone": "-u/--upstream-remote-name=",
    "run": "-R/--repo=",
    "run list": (
        "-a/--all -b/--branch= -c/--commit= --created= -e/--event= -q/--jq= --json= "
        "-L/--limit= -R/--repo= -s/--status= -t/--template= -u/--user= -w/--workflow="
    ),
    "run view": (
        "-a/--attempt= --exit-status -j/--job= -q/--jq= --json= --log --log-failed -R/--repo= "
        "-t/--template= -v/--verbose -w/--web"
    ),
    "run watch": "--exit-status -i/--interval= -R/--repo=",
    "run download": "-D/--dir= -n/--name= -p/--pattern= -R/--repo=",
    "run cancel": "-R/--repo=",
    "workflow": "-R/--repo=",
    "workflow list": "-a/--all -q/--jq= --json= -L/--limit= -R/--repo= -t/--template=",
    "workflow view": "-r/--ref= -R/--repo= -w/--web -y/--yaml",
    "release": "-R/--repo=",
    "release list": (
        "--exclude-drafts --exclude-pre-releases -q/--jq= --json= -L/--limit= -O/--order= "
        "-R/--repo= -t/--template="
    ),
    "release view": "-q/--jq= --json= -R/--repo= -t/--template= -w/--web",
    "release download": (
        "-A/--archive= --clobber -D/--dir= -O/--output= -p/--pattern= -R/--repo= --skip-existing"
    ),
    "search": "",
    "search code": (
        "--extension= --filename= -q/--jq= --json= --language= -L/--limit= --match= --owner= "
        "-R/--repo= --size= -t/--template= -w/--web"
    ),
    "search commits": (
        "--author= --author-date= --author-email= --author-name= --committer= "
        "--committer-date= --committer-email= --committer-name= --hash= -q/--jq= --json= "
        "-L/--limit= --merge --order= --owner= --parent= -R/--repo= --sort= -t/--template= "
        "--tree= --visibility= -w/--web"
    ),
    "search issues": (
        "--app= --archived --assignee= --author= --closed= --commenter= --comments= "
        "--created= --include-prs --interactions= --involves= -q/--jq= --json= --label= "
        "--language= -L/--limit= --locked --match= --mentions= --milestone= --no-assignee "
        "--no-label --no-milestone --no-project --order= --owner= --project= --reactions= "
        "-R/--repo= --sort= --state= --team-mentions= -t/--template= --updated= --visibility= "
        "-w/--web"
    ),
    "search prs": (
        "--app= --archived --assignee= --author= -B/--base= --checks= --closed= --commenter= "
        "--comments= --created= --draft -H/--head= --interactions= --involves= -q/--jq= "
        "--json= --label= --language= -L/--limit= --locked --match= --mentions= --merged "
        "--merged-at= --milestone= --no-assignee --no-label --no-milestone --no-project "
        "--order= --owner= --project= --reactions= -R/--repo= --review= --review-requested= "
        "--reviewed-by= --sort= --state= --team-mentions= -t/--template= --updated= "
        "--visibility= -w/--web"
    ),
    "search repos": (
        "--archived --created= --followers= --forks= --good-first-issues= "
        "--help-wanted-issues= --include-forks= -q/--jq= --json= --language= --license= "
        "-L/--limit= --match= --number-topics= --order= --owner= --size= --sort= --stars= "
        "-t/--template= --topic= --updated= --visibility= -w/--web"
    ),
    "api": (
        "--cache= -F/--field= -H/--header= --hostname= -i/--include --input= -q/--jq= "
        "-X/--method= --paginate -p/--preview= -f/--raw-field= --silent --slurp "
        "-t/--template= --verbose"
    ),
    "auth": "",
    "auth status": "-a/--active -h/--hostname= -t/--show-token",
    "label": "-R/--repo=",
    "label list": (
        "-q/--jq= --json= -L/--limit= --order= -R/--repo= -S/--search= --sort= -t/--template= "
        "-w/--web"
    ),
    "status": "-e/--exclude= -o/--org=",
    "version": "",
}
# Options left out of every gh table, so that they ask (see github_cli's docstring).
GH_OPTIONS_LEFT_OUT = frozenset(
    [
        "-q",
        "--jq",
        "-t",
        "--template",
        "-w",
        "--web",
        "-e",
        "--editor",
        "--admin",
        "--show-token",
        "--hostname",
        "--verbose",
    ]
)
# The exceptions: where these letters are other options, they are tabled.
GH_LETTERS_TABLED: dict[str, frozenset[str]] = {
    "pr create": frozenset({"-t", "--template"}),  # `-t/--title`, `-T/--template FILE`
    "issue create": frozenset({"-t", "--template"}),
    "pr merge": frozenset({"-t"}),  # `-t/--subject`
    "pr edit": frozenset({"-t"}),  # `-t/--title`
    "issue edit": frozenset({"-t"}),
    "run list": frozenset({"-w", "-e"}),  # `-w/--workflow`, `-e/--event`
    "status": frozenset({"-e"}),  # `-e/--exclude`
    "run view": frozenset({"--verbose"}),  # the steps of each job
    "auth status": frozenset({"--hostname"}),  # `-h/--hostname`
}
# gh's subcommand lists for the groups it tables (the `AddCommand` calls of each group).
GH_COMMANDS: dict[tuple[str, ...], frozenset[str]] = {
    (): frozenset(
        [
            "actions",
            "alias",
            "api",
            "attestation",
            "auth",
            "browse",
            "cache",
            "codespace",
            "completion",
            "config",
            "extension",
            "gist",
            "gpg-key",
            "issue",
            "label",
            "org",
            "pr",
            "project",
            "release",
            "repo",
            "ruleset",
            "run",
            "search",
            "secret",
            "ssh-key",
            "status",
            "variable",
            "version",
            "workflow",
        ]
    ),
    ("pr",): frozenset(
        [
            "checkout",
            "checks",
            "close",
            "comment",
            "create",
            "diff",
            "edit",
            "list",
            "lock",
            "merge",
            "ready",
            "reopen",
            "review",
            "status",
            "unlock",
            "update-branch",
            "view",
        ]
    ),
    ("issue",): frozenset(
        [
            "close",
            "comment",
            "create",
            "delete",
            "develop",
            "edit",
            "list",
            "lock",
            "pin",
            "reopen",
            "status",
            "transfer",
            "unlock",
            "unpin",
            "view",
        ]
    ),
    ("repo",): frozenset(
        [
            "archive",
            "clone",
            "create",
            "delete",
            "deploy-key",
            "edit",
            "fork",
            "gitignore",
            "license",
            "list",
            "rename",
            "set-default",
            "sync",
            "unarchive",
            "view",
        ]
    ),
    ("run",): frozenset(["cancel", "delete", "download", "list", "rerun", "view", "watch"]),
    ("workflow",): frozenset(["disable", "enable", "list", "run", "view"]),
    ("release",): frozenset(
        ["create", "delete", "delete-asset", "download", "edit", "list", "upload", "view"]
    ),
    ("search",): frozenset(["code", "commits", "issues", "prs", "repos"]),
    ("auth",): frozenset(["login", "logout", "refresh", "setup-git", "status", "switch", "token"]),
    ("label",): frozenset(["clone", "create", "delete", "edit", "list"]),
}
# cobra `Aliases` of the tabled commands.
GH_ALIASES = {"ls": "list", "new": "create"}


def _gh_table(path: str) -> Program:
    program = GH
    for name in path.split():
        program = program.subcommands[name]
    return program


def _spelled(spec: str) -> dict[str, bool]:
    """`-a/--all= --x` → {"-a": True, "--all": True, "--x": False} (True: takes a value)."""
    out: dict[str, bool] = {}
    for item in spec.split():
        takes = item.endswith("=")
        for name in item.rstrip("=").split("/"):
            out[name] = takes
    return out


@pytest.mark.parametrize("path", sorted(GH_OPTIONS))
def test_gh_options_are_the_upstream_ones_with_their_arity(path: str) -> None:
    program = _gh_table(path)
    upstream = {**_spelled(GH_OPTIONS[path]), "--help": False}
    left_out = GH_OPTIONS_LEFT_OUT - GH_LETTERS_TABLED.get(path, frozenset())
    expected = {k: v for k, v in upstream.items() if k not in left_out}
    assert set(program.options) == set(expected), path
    wrong = [k for k, takes in expected.items() if program.options[k].takes is not takes]
    assert not wrong, (path, wrong)


def test_gh_commands_are_the_upstream_ones_or_left_out_with_a_reason() -> None:
    for group, names in GH_COMMANDS.items():
        program = GH
        for name in group:
            program = program.subcommands[name]
        tabled = {GH_ALIASES.get(n, n) for n in program.subcommands} - {"help"}
        left_out = {path[-1] for path in GH_LEFT_OUT if path[:-1] == group}
        assert tabled | left_out == names, group
        assert not tabled & left_out, group
    assert all(GH_LEFT_OUT.values())
    aliases = {(p[:-1], p[-1]) for p, _ in _walk(GH) if p and p[-1] in GH_ALIASES}
    for group, alias in aliases:
        owner = GH
        for name in group:
            owner = owner.subcommands[name]
        assert owner.subcommands[alias] is owner.subcommands[GH_ALIASES[alias]]


_GH_ROLES: list[tuple[str, str, Role]] = [
    ("pr create", "-F", "upload"),
    ("pr create", "--body-file", "upload"),
    ("issue comment", "-F", "upload"),
    ("api", "-F", "upload"),
    ("api", "--input", "upload"),
    ("pr create", "--recover", "upload"),
    ("issue create", "--recover", "upload"),
    ("run download", "-D", "write"),
    ("release download", "-O", "write"),
    ("pr list", "-R", "network"),
]


@pytest.mark.parametrize(("path", "option", "role"), _GH_ROLES)
def test_gh_options_that_name_files_have_their_roles(path: str, option: str, role: Role) -> None:
    assert _gh_table(path).options[option].role == role


def test_gh_short_body_file_is_reported_as_a_file_not_a_form() -> None:
    """`gh pr create -F notes.md` uploads the file `notes.md` (curl's `-F` is a form)."""
    reading = read_roles(GH, _words("gh", "pr", "create", "-dFnotes.md"))
    assert [(u.role, u.word.text, u.option) for u in reading.uses] == [
        ("upload", "notes.md", "--body-file")
    ]


def test_pflag_reads_an_equals_sign_after_a_short_option_as_no_part_of_the_value() -> None:
    api = _gh_table("api")
    assert resolve_option(api, "-F=k=@f").value == "k=@f"
    assert resolve_option(api, "-Fk=@f").value == "k=@f"
    assert resolve_option(api, "--field=k=@f").value == "k=@f"
    assert resolve_option(api, "--fiel=k=@f").unknown  # no prefixes in pflag
    assert resolve_option(_gh_table("pr list"), "-dL5").value == "5"


def test_gh_repo_clone_leaves_the_words_it_passes_to_git_not_understood() -> None:
    reading = read_roles(GH, _words("gh", "repo", "clone", "o/r", "d", "--", "-c", "x=y"))
    assert reading.unknown == ("-c", "x=y")
    reading = read_roles(GH, _words("gh", "repo", "clone", "o/r", "d"))
    assert not reading.unknown
    assert ("write", "d") in [(u.role, u.word.text) for u in reading.uses]
