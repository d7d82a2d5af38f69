"""`gh`, GitHub's CLI: the subcommands that read GitHub, and those that post to it as
`git push` does, with every option of each (cli/cli v2.60.0, commit 44ee177).

Taken from the cobra command definitions in `pkg/cmd/**` (`cmd.Flags().…`,
`cmdutil.AddJSONFlags`, `cmdutil.EnableRepoOverride`, `cmdutil.StringEnumFlag`, …).
cobra reads options with spf13/pflag (`parser="pflag"`): clusters, `-R=o/r`,
`--repo=o/r`, long names in full (no prefixes); a subcommand is matched by its name or
one of its `Aliases` only. `gh` resolves its own commands first: a user alias or an
extension cannot take a built-in name, so any other word (an alias, an extension: code
from anywhere) is not understood.

What gh sends: every command talks to the GitHub host of the repository's remote (or
`-R [HOST/]OWNER/REPO`), with the user's token, as `git fetch`/`git push` to a
configured remote do; the analysis models that the same way, as no destination to judge.
Local data that leaves with it is an `upload`, which asks (`--body-file F`, `gh api -F
key=@F`, `--input F`), as `curl -T F` does; inline text (`--body "…"`) is what the
agent wrote, as `curl -d 'a=1'` is. Files gh writes are writes (`gh pr checkout` and
`gh repo clone` change the work tree, `gh run download -D DIR`).

Left out, so that they ask: `--jq`/`-q` (gh's jq gives `$ENV`/`env`: the agent's
environment, its tokens included) and `--template`/`-t` (a Go template; not checked);
`--web`/`-w` and `--editor`/`-e` (start a browser or an editor); `gh auth token` and
`gh auth status --show-token` (print the token; also the `credential-printer` class);
`gh pr merge --admin` (bypasses branch protection); `gh api --hostname` and
`--verbose`; every subcommand not below (`repo delete`/`edit`/`create`, `secret`,
`ssh-key`, `release create`, `workflow run` and `run rerun` (start CI/CD code with the
repository's secrets: a deploy), `extension`, `codespace`, `config`, …). `gh api` with a
method or fields changes GitHub through the API (`api-change` class): it asks even where
it is understood.
"""

from __future__ import annotations

from safehold.policy.shell.programs.git import Restores
from safehold.policy.shell.programs.table import Opt, Program, Role
from safehold.policy.shell.programs.vocab import flags, valued, values

__all__ = ["GH", "GH_LEFT_OUT", "GH_SOURCE", "PROGRAMS", "RESTORES_TRACKED"]

GH_SOURCE = "gh 2.60.0 (cli/cli pkg/cmd/**, commit 44ee177)"

_HELP = flags("--help")  # a persistent flag of the root command; `-h` is not help in gh
# `cmdutil.EnableRepoOverride`: `[HOST/]OWNER/REPO`; a HOST is judged by the URL policy.
_REPO = valued("network", "-R", "--repo")
_JSON = values("--json")  # `cmdutil.AddJSONFlags` (its `--jq` and `--template` left out)


def _upload(short: str, long: str) -> dict[str, Opt]:
    """A file gh reads and sends (`-` is standard input), reported under its long name."""
    opt = Opt(takes=True, role="upload", long=long)
    return {short: opt, long: opt} if short else {long: opt}


def _gh(
    *groups: dict[str, Opt],
    operands: Role | None = None,
    first: Role | None = None,
    last: Role | None = None,
    implicit: tuple[tuple[Role, str | None], ...] = (),
    subcommands: dict[str, Program] | None = None,
    forwards_rest: bool = False,
    unpacks: bool = False,
    modes: dict[str, Program] | None = None,
) -> Program:
    return Program(
        options={k: v for group in (_HELP, *groups) for k, v in group.items()},
        operands=operands,
        first=first,
        last=last,
        implicit=implicit,
        subcommands=subcommands or {},
        forwards_rest=forwards_rest,
        unpacks=unpacks,
        modes=modes or {},
        parser="pflag",
        source=GH_SOURCE,
    )


def _named(program: Program, *names: str) -> dict[str, Program]:
    """A subcommand under its name and its cobra `Aliases`."""
    return dict.fromkeys(names, program)


_HERE: tuple[tuple[Role, str | None], ...] = (("write", "."),)
_DIR_GIVEN = "dir-given"
_BODY = {**values("-b", "--body"), **_upload("-F", "--body-file")}
_EDIT_LISTS = values(
    "--add-assignee", "--remove-assignee", "--add-label", "--remove-label", "--add-project",
    "--remove-project", "-m", "--milestone", "-t", "--title",
)  # fmt: skip

# -- gh pr (pkg/cmd/pr/*) ------------------------------------------------------------------
_PR_LIST = _gh(
    _REPO,
    _JSON,
    values("--app", "-a", "--assignee", "-A", "--author", "-B", "--base", "-H", "--head"),
    values("-l", "--label", "-L", "--limit", "-S", "--search", "-s", "--state"),
    flags("-d", "--draft"),
)
_PR_VIEW = _gh(_REPO, _JSON, flags("-c", "--comments"))
_PR_DIFF = _gh(_REPO, values("--color"), flags("--name-only", "--patch"))
_PR_STATUS = _gh(_REPO, _JSON, flags("-c", "--conflict-status"))
_PR_CHECKS = _gh(
    _REPO, _JSON, flags("--fail-fast", "--required", "--watch"), values("-i", "--interval")
)
# `gh pr create`: `-T NAME` picks one of the repository's templates (read as a file all
# the same); `--recover FILE` reads the title and body a failed run saved, and sends them.
_PR_CREATE = _gh(
    _REPO,
    _BODY,
    values("-a", "--assignee", "-B", "--base", "-H", "--head", "-l", "--label"),
    values("-m", "--milestone", "-p", "--project", "-r", "--reviewer", "-t", "--title"),
    flags("-d", "--draft", "--dry-run", "-f", "--fill", "--fill-first", "--fill-verbose"),
    flags("--no-maintainer-edit"),
    valued("read", "-T", "--template"),
    _upload("", "--recover"),
)
_PR_COMMENT = _gh(_REPO, _BODY, flags("--edit-last"))
_PR_MERGE = _gh(
    _REPO,
    _BODY,
    values("-A", "--author-email", "--match-head-commit", "-t", "--subject"),
    flags("--auto", "-d", "--delete-branch", "--disable-auto", "-m", "--merge"),
    flags("-r", "--rebase", "-s", "--squash"),
)
_PR_EDIT = _gh(
    _REPO,
    _BODY,
    _EDIT_LISTS,
    values("--add-reviewer", "--remove-reviewer", "-B", "--base"),
    flags("--remove-milestone"),
)
_PR_REVIEW = _gh(
    _REPO, _BODY, flags("-a", "--approve", "-c", "--comment", "-r", "--request-changes")
)
# `gh pr checkout`: fetches the pull request's branch and checks it out here.
_PR_CHECKOUT = _gh(
    _REPO,
    values("-b", "--branch"),
    flags("--detach", "-f", "--force", "--recurse-submodules"),
    implicit=_HERE,
)
_PR = _gh(
    _REPO,
    subcommands={
        **_named(_PR_LIST, "list", "ls"),
        "view": _PR_VIEW,
        "diff": _PR_DIFF,
        "status": _PR_STATUS,
        "checks": _PR_CHECKS,
        **_named(_PR_CREATE, "create", "new"),
        "comment": _PR_COMMENT,
        "merge": _PR_MERGE,
        "edit": _PR_EDIT,
        "review": _PR_REVIEW,
        "checkout": _PR_CHECKOUT,
        "close": _gh(_REPO, values("-c", "--comment"), flags("-d", "--delete-branch")),
        "reopen": _gh(_REPO, values("-c", "--comment")),
        "ready": _gh(_REPO, flags("--undo")),
    },
)

# -- gh issue (pkg/cmd/issue/*) ------------------------------------------------------------
_ISSUE = _gh(
    _REPO,
    subcommands={
        **_named(
            _gh(
                _REPO,
                _JSON,
                values("--app", "-a", "--assignee", "-A", "--author", "-l", "--label"),
                values("-L", "--limit", "--mention", "-m", "--milestone", "-S", "--search"),
                values("-s", "--state"),
            ),
            "list",
            "ls",
        ),
        "view": _gh(_REPO, _JSON, flags("-c", "--comments")),
        "status": _gh(_REPO, _JSON),
        **_named(
            _gh(
                _REPO,
                _BODY,
                values("-a", "--assignee", "-l", "--label", "-m", "--milestone"),
                values("-p", "--project", "-t", "--title"),
                valued("read", "-T", "--template"),
                _upload("", "--recover"),
            ),
            "create",
            "new",
        ),
        "comment": _gh(_REPO, _BODY, flags("--edit-last")),
        "edit": _gh(_REPO, _BODY, _EDIT_LISTS, flags("--remove-milestone")),
        "close": _gh(_REPO, values("-c", "--comment", "-r", "--reason")),
        "reopen": _gh(_REPO, values("-c", "--comment")),
    },
)

# -- gh repo (pkg/cmd/repo/*) --------------------------------------------------------------
# `gh repo clone REPO [DIR] [-- GITFLAGS…]` writes DIR (by default `./REPO`); the words
# after `--` are `git clone`'s, where `-c core.fsmonitor=CMD` runs CMD: not understood.
_REPO_CLONE = _gh(
    values("-u", "--upstream-remote-name"),
    first="network",
    last="write",
    implicit=_HERE,
    forwards_rest=True,
)
_REPO_CMD = _gh(
    subcommands={
        "view": _gh(_JSON, values("-b", "--branch")),
        **_named(
            _gh(
                _JSON,
                flags("--archived", "--fork", "--no-archived", "--private", "--public"),
                flags("--source"),
                values("-l", "--language", "-L", "--limit", "--topic", "--visibility"),
            ),
            "list",
            "ls",
        ),
        "clone": _REPO_CLONE,
    },
)

# -- gh run, gh workflow (pkg/cmd/run/*, pkg/cmd/workflow/*) -------------------------------
_RUN = _gh(
    _REPO,
    subcommands={
        **_named(
            _gh(
                _REPO,
                _JSON,
                flags("-a", "--all"),
                values("-b", "--branch", "-c", "--commit", "--created", "-e", "--event"),
                values("-L", "--limit", "-s", "--status", "-u", "--user", "-w", "--workflow"),
            ),
            "list",
            "ls",
        ),
        "view": _gh(
            _REPO,
            _JSON,
            flags("--exit-status", "--log", "--log-failed", "-v", "--verbose"),
            values("-j", "--job", "-a", "--attempt"),
        ),
        "watch": _gh(_REPO, flags("--exit-status"), values("-i", "--interval")),
        # Artifacts go to `-D DIR`, by default the current directory, each extracted
        # there (one asked for by name) or in a folder named after it (gh run download
        # --help): the zip's members, and an artifact's name, may be anything below it
        # (`.git/hooks/pre-commit`), as `unzip`'s are.
        "download": _gh(
            _REPO,
            dict.fromkeys(("-D", "--dir"), Opt(takes=True, role="write", mode=_DIR_GIVEN)),
            values("-n", "--name", "-p", "--pattern"),
            implicit=_HERE,
            unpacks=True,
            modes={_DIR_GIVEN: Program(unpacks=True)},  # into DIR, not here
        ),
        "cancel": _gh(_REPO),
    },
)
_WORKFLOW = _gh(
    _REPO,
    subcommands={
        **_named(_gh(_REPO, _JSON, flags("-a", "--all"), values("-L", "--limit")), "list", "ls"),
        "view": _gh(_REPO, values("-r", "--ref"), flags("-y", "--yaml")),
    },
)

# -- gh release (pkg/cmd/release/*) --------------------------------------------------------
_RELEASE = _gh(
    _REPO,
    subcommands={
        **_named(
            _gh(
                _REPO,
                _JSON,
                flags("--exclude-drafts", "--exclude-pre-releases"),
                values("-L", "--limit", "-O", "--order"),
            ),
            "list",
            "ls",
        ),
        "view": _gh(_REPO, _JSON),
        # Assets go to `-D DIR` (default: here) or `-O FILE`.
        "download": _gh(
            _REPO,
            valued("write", "-D", "--dir", "-O", "--output"),
            values("-A", "--archive", "-p", "--pattern"),
            flags("--clobber", "--skip-existing"),
            implicit=_HERE,
        ),
    },
)

# -- gh search (pkg/cmd/search/*): queries of GitHub's search API --------------------------
_SEARCH_COMMON = {**_JSON, **values("-L", "--limit", "--owner")}
_SORTED = values("--order", "--sort")  # all but `search code`
_SEARCH_ISSUES = (
    "--app", "--assignee", "--author", "--closed", "--commenter", "--comments", "--created",
    "--interactions", "--involves", "--label", "--language", "--match", "--mentions",
    "--milestone", "--project", "--reactions", "--state", "--team-mentions", "--updated",
    "--visibility",
)  # fmt: skip
_SEARCH_FLAGS = ("--archived", "--locked", "--no-assignee", "--no-label", "--no-milestone")
_SEARCH = _gh(
    subcommands={
        "code": _gh(
            _SEARCH_COMMON,
            values("--extension", "--filename", "--language", "--match", "-R", "--repo"),
            values("--size"),
        ),
        "commits": _gh(
            _SEARCH_COMMON,
            _SORTED,
            values("--author", "--author-date", "--author-email", "--author-name"),
            values("--committer", "--committer-date", "--committer-email"),
            values("--committer-name", "--hash", "--parent", "--tree"),
            _REPO,
            values("--visibility"),
            flags("--merge"),
        ),
        "issues": _gh(
            _SEARCH_COMMON,
            _SORTED,
            _REPO,
            values(*_SEARCH_ISSUES),
            flags(*_SEARCH_FLAGS, "--no-project", "--include-prs"),
        ),
        "prs": _gh(
            _SEARCH_COMMON,
            _SORTED,
            _REPO,
            values(*_SEARCH_ISSUES, "-B", "--base", "--checks", "-H", "--head", "--merged-at"),
            values("--review", "--review-requested", "--reviewed-by"),
            flags(*_SEARCH_FLAGS, "--no-project", "--draft", "--merged"),
        ),
        "repos": _gh(
            _SEARCH_COMMON,
            _SORTED,
            flags("--archived"),
            values("--created", "--followers", "--forks", "--good-first-issues"),
            values("--help-wanted-issues", "--include-forks", "--language", "--license"),
            values("--match", "--number-topics", "--size", "--stars", "--topic", "--updated"),
            values("--visibility"),
        ),
    },
)

# -- gh api (pkg/cmd/api/api.go) -----------------------------------------------------------
# `-F key=@file` and `--input file` send a file (`@-`, `-`: standard input); `-f` is
# always a string. The endpoint is a path of GitHub's API, or a URL (pkg/cmd/api/http.go),
# which the URL policy judges.
_API = _gh(
    _upload("-F", "--field"),
    _upload("", "--input"),
    values("-f", "--raw-field", "-H", "--header", "-X", "--method", "-p", "--preview"),
    values("--cache"),
    flags("-i", "--include", "--paginate", "--silent", "--slurp"),
    operands="network",
)

GH = _gh(
    flags("--version"),
    subcommands={
        "pr": _PR,
        "issue": _ISSUE,
        "repo": _REPO_CMD,
        "run": _RUN,
        "workflow": _WORKFLOW,
        "release": _RELEASE,
        "search": _SEARCH,
        "api": _API,
        # `gh auth status` without `-t`/`--show-token`: the accounts, not the token.
        "auth": _gh(
            subcommands={"status": _gh(flags("-a", "--active"), values("-h", "--hostname"))}
        ),
        "label": _gh(
            _REPO,
            subcommands=_named(
                _gh(_REPO, _JSON, values("-L", "--limit", "--order", "-S", "--search", "--sort")),
                "list",
                "ls",
            ),
        ),
        "status": _gh(values("-e", "--exclude", "-o", "--org")),
        "version": _gh(),
        "help": _gh(),
    },
)

# Commands of gh 2.60.0 the table leaves out on purpose (each asks), by path, with why.
_NOT_YET = "not tabled: it asks"
GH_LEFT_OUT: dict[tuple[str, ...], str] = {
    ("actions",): "help text only; not tabled",
    ("alias",): "defines commands that run other commands (`!` aliases run a shell)",
    ("attestation",): _NOT_YET,
    ("browse",): "opens a browser",
    ("cache",): "deletes GitHub Actions caches",
    ("codespace",): "creates remote machines, runs ssh and ports",
    ("completion",): _NOT_YET,
    ("config",): "`set` changes the user's gh config (pager, editor, browser)",
    ("extension",): "installs and runs extensions: code from anywhere",
    ("gist",): "uploads files (`gist create` is also a `publish` class)",
    ("gpg-key",): "adds keys to the user's account",
    ("org",): _NOT_YET,
    ("project",): _NOT_YET,
    ("ruleset",): _NOT_YET,
    ("secret",): "sets repository and organisation secrets",
    ("ssh-key",): "adds SSH keys to the user's account",
    ("variable",): "sets repository and organisation variables",
    ("auth", "login"): "stores a token",
    ("auth", "logout"): "removes the user's token",
    ("auth", "refresh"): "changes the token's scopes",
    ("auth", "setup-git"): "writes git's credential helper into ~/.gitconfig",
    ("auth", "switch"): "changes the active account",
    ("auth", "token"): "prints the token (also the `credential-printer` class)",
    ("issue", "delete"): "deletes an issue",
    ("issue", "develop"): "creates a branch and may check it out",
    ("issue", "lock"): _NOT_YET,
    ("issue", "unlock"): _NOT_YET,
    ("issue", "pin"): _NOT_YET,
    ("issue", "unpin"): _NOT_YET,
    ("issue", "transfer"): "moves an issue to another repository",
    ("label", "clone"): _NOT_YET,
    ("label", "create"): _NOT_YET,
    ("label", "delete"): "deletes a label",
    ("label", "edit"): _NOT_YET,
    ("pr", "lock"): _NOT_YET,
    ("pr", "unlock"): _NOT_YET,
    ("pr", "update-branch"): "merges or rebases the pull request's branch on GitHub",
    ("release", "create"): "publishes a release and uploads files (`publish` class)",
    ("release", "upload"): "uploads files (`publish` class)",
    ("release", "edit"): _NOT_YET,
    ("release", "delete"): "deletes a release",
    ("release", "delete-asset"): "deletes a release asset",
    ("repo", "archive"): _NOT_YET,
    ("repo", "create"): "creates a repository and may push the work tree to it (`--push`)",
    ("repo", "delete"): "deletes a repository",
    ("repo", "deploy-key"): "adds keys that can push to the repository",
    ("repo", "edit"): "can make a private repository public (`--visibility`)",
    ("repo", "fork"): "forks, may clone and pass flags to git (`-- GITFLAGS`)",
    ("repo", "gitignore"): _NOT_YET,
    ("repo", "license"): _NOT_YET,
    ("repo", "rename"): "renames the repository",
    ("repo", "set-default"): "writes the repository's git config",
    ("repo", "sync"): "may force-update a branch (`--force`)",
    ("repo", "unarchive"): _NOT_YET,
    ("run", "delete"): "deletes a workflow run",
    ("run", "rerun"): "runs a workflow again: CI/CD code with the repository's secrets",
    ("workflow", "disable"): _NOT_YET,
    ("workflow", "enable"): _NOT_YET,
    ("workflow", "run"): "starts a workflow: CI/CD code with the repository's secrets (a deploy)",
}

PROGRAMS: dict[str, Program] = {"gh": GH}

# `gh pr checkout N` fetches the pull request's branch and checks it out (`git checkout`):
# every tracked file from that version (`check_tracked._check_restored`, as `git switch`).
RESTORES_TRACKED: dict[str, Restores] = {"pr checkout": Restores(other=True)}
