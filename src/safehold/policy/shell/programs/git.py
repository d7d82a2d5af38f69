"""git: global options, `-c` settings and subcommands that make git run other programs."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from safehold.policy.shell.programs import git_options as go
from safehold.policy.shell.programs.step import (
    Reasons,
    Step,
    StepFn,
    Unwrapped,
    opaque,
    unknown_option,
)
from safehold.policy.shell.programs.table import Opt, Program, Setting
from safehold.policy.shell.programs.vocab import flags, no_operand
from safehold.policy.shell.words import Word

__all__ = [
    "GIT_CODE_KEYS",
    "GIT_PLAIN_KEYS",
    "PRINTS_TRACKED",
    "RESTORES_TRACKED",
    "ROLES",
    "STEPS",
    "Restores",
    "git_key_is_plain",
]

# Subcommands that print (or pack, or write out) the content of tracked files, from the
# work tree, the index or git's object store, with no word naming the file: a committed
# `.env` is in their output. git 2.39.5 man pages: git-show ("shows ... the textual diff"),
# git-log and git-whatchanged (`-p`, and `--cc` for merges by default in some forms),
# git-diff and its plumbing (diff-files, diff-index, diff-tree), git-grep (tracked files
# of the work tree, `--cached` the index, a tree's blobs), git-archive, git-cat-file,
# git-format-patch, git-bundle, git-fast-export, git-stash (`show -p`), git-range-diff,
# git-annotate. A table entry
# here makes the command ask when the repository tracks a denied path (`check_tracked`).
PRINTS_TRACKED = frozenset(
    {
        "show", "log", "whatchanged", "diff", "diff-files", "diff-index", "diff-tree",
        "grep", "archive", "cat-file", "format-patch", "bundle", "fast-export", "stash",
        "range-diff", "annotate",
    }
)  # fmt: skip

GIT_ARG_OPTS = frozenset({"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})
GIT_FLAGS = frozenset(
    {
        "-p",
        "-P",
        "--paginate",
        "--no-pager",
        "--no-replace-objects",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-optional-locks",
        "--no-advice",
    }
)
# git config keys whose value git runs as a program (or that point git at other programs).
GIT_CODE_KEYS = (
    "alias.",
    "pager.",
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.fsmonitor",
    "core.hookspath",
    "core.askpass",
    "core.gitproxy",
    "core.worktree",
    "diff.external",
    "sequence.editor",
    "credential.",
    "gpg.",
    "filter.",
    "diff.",
    "merge.",
    "uploadpack.",
    "receivepack.",
    "protocol.",
    "remote.",
    "url.",
    "include.",
    "includeif.",
    "http.",
    "ssh.",
    "interactive.",
    "difftool.",
    "mergetool.",
    "man.",
    "web.",
    "browser.",
    "sendemail.",
    "instaweb.",
    "gc.",
    "init.templatedir",
    "submodule.",
    "fetch.",
)


# The closed world for settings: the keys git-config(1) (git 2.43, "Variables") documents
# as changing only how git shows, names or merges, none naming a program, a file or a
# host. `git -c KEY=V` and `git config KEY V` with any other key (a prefix here ends in
# `.`) make git run something the analysis cannot see (`trailer.<t>.command`,
# `core.pager`, a filter) or read a file it does not judge (`commit.template`,
# `mailmap.file`): asked in every mode (`git-config-code`).
GIT_PLAIN_KEYS = (
    "color.",
    "column.",
    "advice.",
    "i18n.",
    "user.name",
    "user.email",
    "author.name",
    "author.email",
    "committer.name",
    "committer.email",
    "core.quotepath",
    "core.abbrev",
    "core.autocrlf",
    "core.safecrlf",
    "core.eol",
    "core.filemode",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.whitespace",
    "init.defaultbranch",
    "log.date",
    "log.decorate",
    "log.abbrevcommit",
    "log.follow",
    "diff.noprefix",
    "diff.mnemonicprefix",
    "diff.renames",
    "diff.algorithm",
    "diff.colormoved",
    "diff.relative",
    "diff.context",
    "merge.conflictstyle",
    "merge.ff",
    "pull.rebase",
    "pull.ff",
    "push.default",
    "push.autosetupremote",
    "rebase.autostash",
    "rebase.autosquash",
    "status.showuntrackedfiles",
    "status.short",
    "status.branch",
    "status.relativepaths",
    "blame.date",
    "format.pretty",
    "grep.linenumber",
    "grep.extendedregexp",
    "grep.patterntype",
)


def git_key_is_plain(key: str) -> bool:
    """True when the setting `key` (any case) is one of `GIT_PLAIN_KEYS`: a key listed in
    full, or one under a listed prefix that no code key (`GIT_CODE_KEYS`) covers."""
    key = key.lower()
    if key in GIT_PLAIN_KEYS:
        return True
    prefixed = any(k.endswith(".") and key.startswith(k) for k in GIT_PLAIN_KEYS)
    return prefixed and not key.startswith(GIT_CODE_KEYS)


def _git(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step:
    i = 1
    problems: Reasons = ()
    while i < len(words):
        w = words[i]
        t = w.text
        if not w.static:
            return unknown_option("git", t)
        if t in GIT_FLAGS:
            i += 1
        elif t in _REPOSITORY_FLAGS:
            option, implied = _REPOSITORY_FLAGS[t]
            problems += _other_repository(option, Word(implied, True))
            i += 1
        elif t in GIT_ARG_OPTS or (t.split("=", 1)[0] in GIT_ARG_OPTS and "=" in t):
            glued = t not in GIT_ARG_OPTS
            name = t.split("=", 1)[0] if glued else t
            value = Word(t.split("=", 1)[1], True) if glued else _at(words, i + 1)
            problems += _other_repository(name, value)
            i += 1 if glued else 2
        elif t == "-c" or t.startswith("-c"):
            setting = t[2:] if len(t) > 2 else (words[i + 1].text if i + 1 < len(words) else "")
            static = w.static if len(t) > 2 else (i + 1 < len(words) and words[i + 1].static)
            key = setting.split("=", 1)[0]
            if not static or not git_key_is_plain(key):
                return Step(
                    opaque=opaque(
                        "git-config-code",
                        "git -c",
                        f"`git -c {setting}` can make git run another program",
                    )
                )
            i += 1 if len(t) > 2 else 2
        elif t.startswith("-"):
            if t.startswith(("--exec-path", "--config-env", "--list-cmds")):
                return Step(
                    opaque=opaque(
                        "git-config-code", "git", f"`git {t}` can make git run another program"
                    )
                )
            return unknown_option("git", t)
        else:
            break
    problem = _git_runs_code(words[i:])
    if problem is not None:
        return Step(opaque=problem)
    # Another repository's git (`git -C DIR`): the subcommand is still judged, in DIR.
    extra = (Unwrapped((), (), (), None, problems),) if problems else ()
    return Step(keep_self=True, self_words=(words[0], *words[i:]), extra=extra)


def _at(words: tuple[Word, ...], i: int) -> Word:
    return words[i] if i < len(words) else Word("", False)


# `git -C DIR` and `git --git-dir=DIR` (git(1)): git then reads the configuration and hooks
# of the repository it finds in DIR, or of DIR itself. A repository there other than the
# workspace's own (a nested clone's, a bare repository inside a checkout, one made in the
# same line: git's `safe.bareRepository` attack) may set `core.fsmonitor`, hooks or
# `diff.external`, which git runs. Which repository DIR holds is not told by the words:
# only `-C .` and `--git-dir=.git` are understood; others are not (asked unconfined).
_SAME_REPOSITORY = {"-C": ("", "."), "--git-dir": (".git",)}
# `git --work-tree=DIR` (git(1), "--work-tree=<path>"): the root of the working tree, which
# git enters when it runs outside it. `checkout -f`, `reset --hard`, `stash pop` write every
# tracked file there (`--work-tree=.git checkout -f` writes a tracked `hooks/pre-commit` into
# `.git/hooks`), and the operands are taken from there, neither of which the words tell:
# only the directory git runs in is understood.
_SAME_WORK_TREE = {"--work-tree": ("", ".")}
# Flags that name a repository as `--git-dir` does (git(1)): `--bare` makes the current
# directory the repository, so a `config` file there (written by an earlier command: it is
# no protected `.git/config`) sets `core.pager` or an alias git runs.
_REPOSITORY_FLAGS = {"--bare": ("--git-dir", ".")}


def _other_repository(option: str, value: Word) -> Reasons:
    """Why `git OPTION VALUE` may use another repository's configuration, or None."""
    allowed = _SAME_REPOSITORY.get(option)
    tree = _SAME_WORK_TREE.get(option)
    if allowed is None and tree is None:
        return ()
    same = allowed or tree or ()
    if value.static and (value.text in same or posixpath.normpath(value.text) in same):
        return ()
    if tree is not None:
        return opaque(
            "not-understood",
            f"git {option}",
            f"`git {option} {value.text[:60]}` checks files out to and reads them from that "
            "tree, which the analysis does not follow",
        )
    return opaque(
        "not-understood",
        f"git {option}",
        f"`git {option} {value.text[:60]}` uses the repository found there, which may not be "
        "the workspace's: its configuration and hooks (core.fsmonitor, diff.external) run "
        "programs",
    )


# Options of git subcommands whose value git runs as a shell command (or a program).
_GIT_COMMAND_OPTIONS = {
    "rebase": ("-x", "--exec"),
    "clone": ("-u", "--upload-pack", "--template", "-c", "--config"),
    "fetch": ("--upload-pack",),
    "pull": ("--upload-pack",),
    "ls-remote": ("--upload-pack",),
    "archive": ("--exec",),
    "push": ("--receive-pack", "--exec"),
    "grep": ("-O", "--open-files-in-pager"),
    "difftool": ("-x", "--extcmd"),
    "send-email": ("--smtp-server", "--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd"),
    "init": ("--template",),
}
# Subcommands that run a command given as an argument.
_GIT_COMMAND_SUBCOMMANDS = frozenset({"filter-branch", "filter-repo"})
_GIT_CONFIG_VERBS = frozenset({"set", "unset"})
_GIT_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l", "get", "list"})


def _git_runs_code(words: tuple[Word, ...]) -> Reasons | None:
    """Why `git SUBCOMMAND ARGS…` runs code the analysis cannot see, or None."""
    if not words:
        return None
    sub = words[0].text
    args = words[1:]
    if sub in _GIT_COMMAND_SUBCOMMANDS or (
        sub in ("submodule", "bisect") and any(w.text in ("foreach", "run") for w in args)
    ):
        return opaque("git-runs-command", f"git {sub}", f"`git {sub}` runs a given command")
    if sub == "config":
        # `git config core.pager 'rm -rf ~'` makes the next, harmless-looking `git log` run it.
        # The key is the first word that is no option nor an option's value (`git config
        # set KEY V`: after `set`). A read is an option (`--get`, `-l`) or the verb `get` /
        # `list` in the verb's place: a value spelled `list` (`git config core.hooksPath
        # list`) is no read.
        words_left, reads, understood = _config_operands(args)
        verb = words_left[0].text if words_left and words_left[0].static else ""
        if understood and (reads or verb in _GIT_CONFIG_READS):
            return None
        if verb in _GIT_CONFIG_VERBS:
            words_left = words_left[1:]
        if (
            not understood
            or any(not w.static for w in args)
            or (words_left and not git_key_is_plain(words_left[0].text))
        ):
            shown = " ".join(w.text for w in args)[:60]
            return opaque(
                "git-config-code",
                "git config",
                f"`git config {shown}` sets a key that is not known to be harmless: some make "
                "later git commands run another program or read a file",
            )
        return None
    for w in args:
        for opt in _GIT_COMMAND_OPTIONS.get(sub, ()):
            t = w.text
            glued = t.startswith(opt) and (
                t[len(opt) : len(opt) + 1] == "=" if opt.startswith("--") else len(t) > len(opt)
            )
            # git's parse-options takes any unique prefix of a long option (`--open=CMD`
            # for `--open-files-in-pager`): any prefix counts here, erring towards asking;
            # and a cluster of short options holding the letter (`rebase -qx CMD`,
            # `grep -iOCMD`), whatever comes before it.
            name = t.partition("=")[0]
            prefix = opt.startswith("--") and len(name) > 3 and opt.startswith(name)
            cluster = len(opt) == 2 and t[:1] == "-" and t[1:2] != "-" and opt[1] in t[1:]
            if t == opt or glued or prefix or cluster:
                return opaque(
                    "git-runs-command",
                    f"git {sub} {opt}",
                    f"`git {sub} {opt}` runs a command that is not analysed",
                )
    return None


# `git config` options that take the next word as their value (git-config(1)).
_GIT_CONFIG_VALUED = frozenset(
    {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value", "--url"}
)


# `git config` options that take no value (git-config(1), git 2.39 to 2.47): the
# location, type and display options, and the actions spelled as options.
_GIT_CONFIG_FLAGS = frozenset(
    {"--global", "--system", "--local", "--worktree", "--bool", "--int", "--bool-or-int",
     "--path", "--expiry-date", "--no-type", "-z", "--null", "--name-only", "--includes",
     "--no-includes", "--show-origin", "--show-scope", "--fixed-value", "--replace-all",
     "--add", "--get-urlmatch", "--remove-section", "--rename-section", "--unset",
     "--unset-all", "--get-color", "--get-colorbool", "-e", "--edit", "--all", "--regexp"}
)  # fmt: skip
# `git config SUBCOMMAND` (git 2.46+): each reads its own options anywhere among its words.
_GIT_CONFIG_SUBCOMMANDS = frozenset(
    {"list", "get", "set", "unset", "rename-section", "remove-section", "edit"}
)


def _config_operands(args: tuple[Word, ...]) -> tuple[list[Word], bool, bool]:
    """`git config ARGS` read as git reads it: the words that are neither options nor their
    values, whether an option asks for a read (`--get`, `-l`), and whether every option
    word is known. Without a subcommand git stops reading options at the first operand
    (`PARSE_OPT_STOP_AT_NON_OPTION`): in `git config core.pager CMD -l` the `-l` is a
    value pattern, and the command sets the key. An option's value is no option (`--comment
    -l`). An unknown option word (`--comm`, a prefix) may take the next word as its value:
    which word is the key is then not known."""
    out: list[Word] = []
    reads = False
    understood = True
    permute = bool(args) and args[0].static and args[0].text in _GIT_CONFIG_SUBCOMMANDS
    k = 0
    while k < len(args):
        w = args[k]
        t = w.text
        if not w.static or (out and not permute) or not t.startswith("-") or t == "-":
            out.append(w)
            k += 1
            continue
        if t == "--":
            out.extend(args[k + 1 :])
            break
        name = t.partition("=")[0] if t.startswith("--") else t
        if name in _GIT_CONFIG_VALUED:
            k += 1 if name != t else 2
            continue
        if t[:2] == "-f" and len(t) > 2:
            k += 1  # `-fFILE`
            continue
        if t in _GIT_CONFIG_READS:
            reads = True
        elif t not in _GIT_CONFIG_FLAGS:
            understood = False
        k += 1
    return out, reads, understood


STEPS: dict[str, StepFn] = {"git": _git}


_V = Opt(takes=True)
_WRITE = Opt(takes=True, role="write")
_READ = Opt(takes=True, role="read")


def _complete(sub: str, options: dict[str, Opt], **roles: Any) -> Program:
    """A subcommand's complete table: every option of `man git-SUB` (git 2.39.5)."""
    return Program(options=options, parser="git", source=f"git 2.39.5 man git-{sub}", **roles)


# Subcommands whose operands are revisions and pathspecs inside the repository (none), or
# files they read (`diff --no-index A B`, `blame F`, `add F`), or work-tree files they
# rewrite (`checkout -- F`, `restore F`, `reset --hard`).
_READING: dict[str, Program] = {
    "diff": _complete("diff", go.DIFF, operands="read", rev_paths=True),
    "log": _complete("log", go.LOG, rev_paths=True),
    "show": _complete("show", go.SHOW, rev_paths=True),
    "status": _complete("status", go.STATUS),
    "blame": _complete("blame", go.BLAME, operands="read"),
    "rev-parse": _complete("rev-parse", go.REV_PARSE),
    # The pattern first, unless `-e`/`-f` gave it; then trees and pathspecs (read).
    "grep": _complete(
        "grep", go.GREP, operands="read", skip=1, unskip=frozenset({"-e", "-f"}), rev_paths=True
    ),
    "ls-files": _complete("ls-files", go.LS_FILES),
    "tag": _complete("tag", go.TAG),
    "branch": _complete("branch", go.BRANCH),
    "add": _complete("add", go.ADD, operands="read"),
    "commit": _complete("commit", go.COMMIT),
    "checkout": _complete("checkout", go.CHECKOUT, operands="write"),
    "restore": _complete("restore", go.RESTORE, operands="write"),
    # A branch operand: the work tree is rewritten from it, as `checkout BRANCH` does (a
    # write of the name, so that a runner after it in the line asks: `runs-written-file`).
    "switch": _complete("switch", go.SWITCH, operands="write"),
    "stash": _complete(
        "stash",
        go.STASH_PUSH,
        subcommands={
            "push": _complete("stash", go.STASH_PUSH, operands="write"),
            "save": _complete("stash", go.STASH_PUSH),
            "list": _complete("log", go.LOG),
            "show": _complete(
                "diff",
                {**go.DIFF_OPTIONS, **flags("-u", "--include-untracked", "--only-untracked")},
            ),
            "apply": _complete("stash", go.STASH_APPLY, implicit=(("write", "."),)),
            "pop": _complete("stash", go.STASH_APPLY, implicit=(("write", "."),)),
            "drop": _complete("stash", flags("-q", "--quiet")),
            "clear": _complete("stash", {}),
        },
    ),
    "reset": _complete(
        "reset",
        {**go.RESET, "--hard": Opt(mode="hard")},
        operands="write",
        modes={"hard": Program(parser="git", operands="write", implicit=(("write", "."),))},
    ),
}
# `-s STRATEGY` (git-merge(1), "MERGE STRATEGIES"): the built-in strategies; any other
# name runs the program `git-merge-STRATEGY` found on PATH: not understood.
_STRATEGIES = frozenset({"ort", "recursive", "resolve", "octopus", "ours", "subtree"})
_STRATEGY = Opt(takes=True, setting=lambda v: Setting() if v in _STRATEGIES else None)
# What git subcommands do with their operands, for `assess`. The work tree itself is the
# current directory (`.`, moved by `git -C`): commands that rewrite or clean it write or
# delete there.
ROLES = Program(
    subcommands={
        "clone": Program(
            options={"-b": _V, "--branch": _V, "--depth": _V, "-o": _V, "--origin": _V,
                     "--reference": _READ, "--separate-git-dir": _WRITE, "-j": _V,
                     "--jobs": _V, "--filter": _V, "--shallow-since": _V},
            first="network",
            last="write",
        ),
        "fetch": _complete("fetch", go.FETCH, first="remote", left_out=go.FETCH_LEFT_OUT),
        # `git pull` merges what it fetched into the work tree (git-pull(1): "Incorporates
        # changes from a remote repository into the current branch"): a write of `.`.
        "pull": _complete(
            "pull",
            {**go.PULL, "-s": _STRATEGY, "--strategy": _STRATEGY},
            first="remote",
            implicit=(("write", "."),),
            left_out=go.FETCH_LEFT_OUT | {"-e", "--edit"},
        ),
        "ls-remote": Program(first="remote"),
        # Understood: the forms that change nothing. `add`, `set-url`, `rename`,
        # `remove`, `prune`, `update`, … change where `git push`/`fetch` go (or fetch):
        # not understood, so they ask on the host; the URL `add`/`set-url` name is still
        # judged in every mode. `show NAME` queries the remote, as `git ls-remote NAME`
        # does (unless `-n`).
        "remote": _complete(
            "remote",
            go.REMOTE,
            subcommands={
                "add": Program(
                    options={"-t": _V, "-m": _V}, last="network", understood_operand=no_operand
                ),
                "set-url": Program(last="network", understood_operand=no_operand),
                "show": _complete(
                    "remote",
                    {"-n": Opt(mode="no-query")},
                    operands="remote",
                    modes={"no-query": Program(parser="git")},
                ),
                "get-url": _complete("remote", flags("--push", "--all")),
            },
        ),
        "push": Program(
            options={"-o": _V, "--push-option": _V, "--repo": Opt(takes=True, role="send")},
            first="send",
        ),
        "rm": _complete(
            "rm",
            {**go.RM, "--cached": Opt(mode="cached")},
            operands="delete",
            modes={"cached": Program(parser="git")},
        ),
        "mv": _complete("mv", go.MV, operands="delete", last="write"),
        "clean": Program(options={"-e": _V, "--exclude": _V}, implicit=(("delete", "."),)),
        # `git init` with no directory makes the repository in `.`.
        "init": Program(
            options={"--separate-git-dir": _WRITE, "-b": _V}, first="write", implicit=(("write", "."),)
        ),
        "archive": Program(options={"-o": _WRITE, "--output": _WRITE, "--prefix": _V,
                                    "--format": _V, "--remote": Opt(takes=True,
                                                                    role="network")}),
        "bundle": Program(subcommands={"create": Program(first="write")}),
        "format-patch": Program(options={"-o": _WRITE, "--output-directory": _WRITE}),
        "apply": _complete("apply", go.APPLY, operands="read", implicit=(("write", None),)),
        "am": Program(operands="read", implicit=(("write", None),)),
        "worktree": Program(subcommands={"add": Program(first="write"),
                                         "remove": Program(first="delete")}),
        # git-submodule(1) `add`: clones into PATH and records URL and PATH in the
        # repository's `.gitmodules` (protected), which it writes.
        "submodule": Program(subcommands={"add": Program(first="network", last="write",
                                                         implicit=(("write", ".gitmodules"),))}),
        "config": Program(
            options={"-f": _WRITE, "--file": _WRITE, "--blob": _V,
                     "--global": Opt(mode="global"), "--system": Opt(mode="system")},
            modes={"global": Program(implicit=(("write", "~/.gitconfig"),)),
                   "system": Program(implicit=(("write", "/etc/gitconfig"),))},
        ),
        **_READING,
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Restores:
    """How a subcommand that writes tracked files from git's store tells which version.

    `first_revision`: the first operand is a revision unless it names an existing file and
    no revision (git-checkout(1): "<branch> ... If <something> is ... only a path, treat it
    like" `checkout -- <paths>`; git-reset(1) alike); the operands after it are pathspecs.
    `revisions`: every operand is a revision and none a path (git-switch(1)).
    `source`: the options whose value names the version (`restore --source`); without one,
    the index or HEAD. `new_branch`: the options whose value names a new branch (`checkout
    -b NAME [START]`): by itself it changes no file. `whole`: options that rewrite every
    tracked file whatever the operands (`switch --orphan`). `other`: another version in any
    case, of the whole tree (`stash pop`, `pull`).
    """

    first_revision: bool = False
    revisions: bool = False
    source: frozenset[str] = frozenset()
    new_branch: frozenset[str] = frozenset()
    whole: frozenset[str] = frozenset()
    other: bool = False


# Subcommands that write the work tree's tracked files, or set the index and HEAD a later
# `checkout -- .` or `stash` restores from, with content from git's store (git 2.39.5 man
# pages git-checkout, git-switch, git-restore, git-reset, git-stash, git-pull). A version
# other than HEAD or the index may hold any content for a protected path the repository
# tracks (`.husky/pre-commit`, `.github/workflows/`), as `checkout REV -- .husky/pre-commit`
# writes it: `check_tracked._check_restored` asks without the sandbox when the paths the
# words reach hold one. Keys are the subcommand (`stash pop` for a stash subcommand).
RESTORES_TRACKED: dict[str, Restores] = {
    "checkout": Restores(first_revision=True, new_branch=frozenset({"-b", "-B", "--orphan"})),
    "switch": Restores(
        revisions=True,
        new_branch=frozenset({"-c", "--create", "-C", "--force-create"}),
        whole=frozenset({"--orphan"}),
    ),
    "restore": Restores(source=frozenset({"-s", "--source"})),
    "reset": Restores(first_revision=True),
    "stash pop": Restores(other=True),
    "stash apply": Restores(other=True),
    "stash branch": Restores(other=True),
    "pull": Restores(other=True),
}
