"""git subcommands' options, from git 2.39.5's man pages (`man git-diff`, …) and `-h`.

Generated from the man pages' option lines (see docs/shell.md, "Program vocabularies") and
then given roles by hand: `--output FILE` writes, `-O ORDERFILE`, `-F FILE`, `--template`,
`--pathspec-from-file` read. Left out, so that they ask: `commit/tag/add -e`/`--edit` and
`branch --edit-description`, which start the configured editor (a program from config).
The diff options are shared by `diff`, `log` and `show`.
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Opt, Setting
from safehold.policy.shell.programs.vocab import DIGITS, flags, names_from, optional, valued, values

__all__ = [
    "ADD",
    "APPLY",
    "BLAME",
    "BRANCH",
    "CHECKOUT",
    "COMMIT",
    "DIFF",
    "DIFF_OPTIONS",
    "FETCH",
    "FETCH_LEFT_OUT",
    "GREP",
    "LOG",
    "LS_FILES",
    "MV",
    "PULL",
    "REMOTE",
    "RESET",
    "RESTORE",
    "REV_PARSE",
    "RM",
    "SHOW",
    "STASH_APPLY",
    "STASH_PUSH",
    "STATUS",
    "SWITCH",
    "TAG",
]  # fmt: skip

DIFF_OPTIONS: dict[str, Opt] = {
    **flags("-p", "-u", "--patch", "-s", "--no-patch", "--raw"),
    **flags("--patch-with-raw", "--indent-heuristic", "--no-indent-heuristic", "--minimal", "--patience", "--histogram"),
    **flags("--compact-summary", "--numstat", "--shortstat", "--cumulative", "--summary", "--patch-with-stat"),
    **flags("-z", "--name-only", "--name-status", "--no-color", "--no-color-moved", "--no-color-moved-ws"),
    **flags("--no-renames", "--no-rename-empty", "--rename-empty", "--check", "--full-index", "--binary"),
    **flags("--find-copies-harder", "-D", "--irreversible-delete", "--pickaxe-all", "--pickaxe-regex", "-R"),
    **flags("--no-relative", "-a", "--text", "--ignore-cr-at-eol", "--ignore-space-at-eol", "-b"),
    **flags("--ignore-space-change", "-w", "--ignore-all-space", "--ignore-blank-lines", "-W", "--function-context"),
    **flags("--exit-code", "--quiet", "--ext-diff", "--no-ext-diff", "--textconv", "--no-textconv"),
    **flags("--no-prefix", "--ita-invisible-in-index", "-1", "--base", "-2", "--ours"),
    **flags("-3", "--theirs", "-0"),
    **values("-U", "--unified", "--output-indicator-new", "--output-indicator-old", "--output-indicator-context", "--anchored"),
    **values("--color-moved-ws", "--word-diff-regex", "--ws-error-highlight", "-l", "-S", "-G"),
    **values("--find-object", "--skip-to", "--rotate-to", "-I", "--ignore-matching-lines", "--inter-hunk-context"),
    **values("--src-prefix", "--dst-prefix", "--line-prefix"),
    **optional("--diff-algorithm", "--stat", "-X", "--dirstat", "--dirstat-by-file", "--submodule"),
    **optional("--color", "--color-moved", "--word-diff", "--color-words", "--abbrev", "-B"),
    **optional("-M", "--find-renames", "-C", "--find-copies", "--diff-filter", "--relative"),
    **optional("--ignore-submodules"),
    **valued("write", "--output"),
    **valued("read", "-O"),
}  # fmt: skip

DIFF: dict[str, Opt] = {
    **DIFF_OPTIONS,
    **flags("--cached", "--staged", "--merge-base", "--no-index"),
}  # fmt: skip

LOG: dict[str, Opt] = {
    **DIGITS,
    **DIFF_OPTIONS,
    **flags("--follow", "--no-decorate", "--clear-decorations", "--source", "--no-mailmap", "--mailmap"),
    **flags("--no-use-mailmap", "--use-mailmap", "--full-diff", "--log-size", "--all-match", "--invert-grep"),
    **flags("-i", "--regexp-ignore-case", "--basic-regexp", "-E", "--extended-regexp", "-F"),
    **flags("--fixed-strings", "-P", "--perl-regexp", "--remove-empty", "--merges", "--no-merges"),
    **flags("--no-min-parents", "--no-max-parents", "--first-parent", "--exclude-first-parent-only", "--not", "--all"),
    **flags("--reflog", "--alternate-refs", "--single-worktree", "--ignore-missing", "--bisect", "--stdin"),
    **flags("--cherry-mark", "--cherry-pick", "--left-only", "--right-only", "--cherry", "-g"),
    **flags("--walk-reflogs", "--merge", "--boundary", "--simplify-by-decoration", "--show-pulls", "--full-history"),
    **flags("--dense", "--sparse", "--simplify-merges", "--date-order", "--author-date-order", "--topo-order"),
    **flags("--reverse", "--do-walk", "--abbrev-commit", "--no-abbrev-commit", "--oneline", "--no-expand-tabs"),
    **flags("--no-notes", "--no-standard-notes", "--standard-notes", "--show-signature", "--relative-date", "--parents"),
    **flags("--children", "--left-right", "--graph", "--no-diff-merges", "--combined-all-paths", "-t"),
    **flags("-q"),
    **values("--decorate-refs", "--decorate-refs-exclude", "-L", "-n", "--max-count", "--skip"),
    **values("--since", "--after", "--since-as-filter", "--until", "--before", "--author"),
    **values("--committer", "--grep-reflog", "--grep", "--min-parents", "--max-parents", "--glob"),
    **values("--exclude", "--pretty", "--format", "--encoding", "--expand-tabs", "--date"),
    **optional("--decorate", "--branches", "--tags", "--remotes", "--exclude-hidden", "--ancestry-path"),
    **optional("--no-walk", "--notes", "--show-notes", "--show-linear-break", "--diff-merges"),
}  # fmt: skip

SHOW: dict[str, Opt] = {
    **DIGITS,
    **DIFF_OPTIONS,
    **flags("--abbrev-commit", "--no-abbrev-commit", "--oneline", "--no-expand-tabs", "--no-notes", "--no-standard-notes"),
    **flags("--standard-notes", "--show-signature", "--no-diff-merges", "--combined-all-paths", "-t", "-q"),
    **flags("--source", "--use-mailmap", "--mailmap", "--clear-decorations"),
    **values("--pretty", "--format", "--encoding", "--expand-tabs", "--decorate-refs", "--decorate-refs-exclude"),
    **values("-L"),
    **optional("--notes", "--show-notes", "--diff-merges", "--decorate"),
}  # fmt: skip

STATUS: dict[str, Opt] = {
    **flags("-s", "--short", "-b", "--branch", "--show-stash", "--long"),
    **flags("-v", "--verbose", "-z", "--no-column", "--ahead-behind", "--no-ahead-behind"),
    **flags("--renames", "--no-renames", "--null", "-M"),
    **optional("--porcelain", "-u", "--untracked-files", "--ignore-submodules", "--ignored", "--column"),
    **optional("--find-renames"),
}  # fmt: skip

CHECKOUT: dict[str, Opt] = {
    **flags("-q", "--quiet", "--progress", "--no-progress", "-f", "--force"),
    **flags("--ours", "--theirs", "-t", "--no-track", "--guess", "--no-guess"),
    **flags("-l", "-d", "--detach", "--ignore-skip-worktree-bits", "-m", "--merge"),
    **flags("-p", "--patch", "--ignore-other-worktrees", "--overwrite-ignore", "--no-overwrite-ignore", "--no-recurse-submodules"),
    **flags("--overlay", "--no-overlay", "--pathspec-file-nul", "-2", "-3"),
    **values("-b", "-B", "--orphan", "--conflict"),
    **optional("--track", "--recurse-submodules"),
    **names_from("--pathspec-from-file"),
}  # fmt: skip

APPLY: dict[str, Opt] = {
    **flags("--stat", "--numstat", "--summary", "--check", "--index", "--cached"),
    **flags("--intent-to-add", "-3", "--3way", "-R", "--reverse", "--reject"),
    **flags("-z", "--unidiff-zero", "--apply", "--no-add", "--allow-binary-replacement", "--binary"),
    **flags("--ignore-space-change", "--ignore-whitespace", "--inaccurate-eof", "-v", "--verbose", "-q"),
    **flags("--quiet", "--recount", "--unsafe-paths", "--allow-empty", "-N", "--allow-overlap"),
    **values("-p", "-C", "--exclude", "--include", "--whitespace"),
    **valued("write", "--build-fake-ancestor", "--directory"),
}  # fmt: skip

ADD: dict[str, Opt] = {
    **flags("-n", "--dry-run", "-v", "--verbose", "-f", "--force"),
    **flags("--sparse", "-i", "--interactive", "-p", "--patch", "-u"),
    **flags("--update", "-A", "--all", "--no-ignore-removal", "--no-all", "--ignore-removal"),
    **flags("-N", "--intent-to-add", "--refresh", "--ignore-errors", "--ignore-missing", "--no-warn-embedded-repo"),
    **flags("--renormalize", "--pathspec-file-nul"),
    **optional("--chmod"),
    **names_from("--pathspec-from-file"),
}  # fmt: skip

COMMIT: dict[str, Opt] = {
    **flags("-a", "--all", "-p", "--patch", "--reset-author", "--short"),
    **flags("--branch", "--porcelain", "--long", "-z", "--null", "-s"),
    **flags("--signoff", "--no-signoff", "-n", "--no-verify", "--verify", "--allow-empty"),
    **flags("--allow-empty-message", "--no-edit", "--amend", "--no-post-rewrite", "-i", "--include"),
    **flags("-o", "--only", "--pathspec-file-nul", "-v", "--verbose", "-q"),
    **flags("--quiet", "--dry-run", "--status", "--no-status", "--no-gpg-sign", "--interactive"),
    **flags("--ahead-behind"),
    **values("-C", "--reuse-message", "-c", "--reedit-message", "--squash", "--author"),
    **values("--date", "-m", "--message", "--trailer", "--cleanup"),
    **optional("--fixup", "-u", "--untracked-files", "-S", "--gpg-sign"),
    **valued("read", "-F", "--file", "-t", "--template"),
    **names_from("--pathspec-from-file"),
}  # fmt: skip

BLAME: dict[str, Opt] = {
    **flags("-b", "--root", "--show-stats", "-l", "-t", "--first-parent"),
    **flags("-p", "--porcelain", "--line-porcelain", "--incremental", "--no-progress", "--progress"),
    **flags("--color-lines", "--color-by-age", "-h", "-c", "--score-debug", "-f"),
    **flags("--show-name", "-n", "--show-number", "-s", "-e", "--show-email"),
    **flags("-w", "--minimal"),
    **values("-L", "--reverse", "--encoding", "--date", "--ignore-rev", "--abbrev"),
    **optional("-M", "-C"),
    **valued("read", "-S", "--contents", "--ignore-revs-file"),
}  # fmt: skip

REV_PARSE: dict[str, Opt] = {
    **flags("--parseopt", "--sq-quote", "--keep-dashdash", "--stop-at-non-option", "--stuck-long", "--revs-only"),
    **flags("--no-revs", "--flags", "--no-flags", "--verify", "-q", "--quiet"),
    **flags("--sq", "--not", "--symbolic", "--symbolic-full-name", "--all", "--local-env-vars"),
    **flags("--git-dir", "--git-common-dir", "--show-toplevel", "--show-superproject-working-tree", "--shared-index-path", "--absolute-git-dir"),
    **flags("--is-inside-git-dir", "--is-inside-work-tree", "--is-bare-repository", "--is-shallow-repository", "--show-cdup", "--show-prefix"),
    **values("--default", "--prefix", "--exclude", "--disambiguate", "--git-path"),
    **optional("--short", "--abbrev-ref", "--branches", "--tags", "--remotes", "--glob"),
    **optional("--exclude-hidden", "--path-format", "--show-object-format", "--since", "--after", "--until"),
    **optional("--before"),
    **valued("read", "--resolve-git-dir"),
}  # fmt: skip

TAG: dict[str, Opt] = {
    **flags("-a", "--annotate", "-s", "--sign", "--no-sign", "-f"),
    **flags("--force", "-d", "--delete", "-v", "--verify", "-l"),
    **flags("--list", "-i", "--ignore-case", "--no-column", "--create-reflog"),
    **values("-u", "--local-user", "-n", "--sort", "--contains", "--no-contains"),
    **values("--merged", "--no-merged", "--points-at", "-m", "--message", "--cleanup"),
    **values("--format"),
    **optional("--color", "--column"),
    **valued("read", "-F", "--file"),
}  # fmt: skip

BRANCH: dict[str, Opt] = {
    **flags("-d", "--delete", "-D", "--create-reflog", "-f", "--force"),
    **flags("-m", "--move", "-M", "-c", "--copy", "-C"),
    **flags("--no-color", "-i", "--ignore-case", "--no-column", "-r", "--remotes"),
    **flags("-a", "--all", "-l", "--list", "--show-current", "-v"),
    **flags("-vv", "--verbose", "-q", "--quiet", "--no-abbrev", "-t"),
    **flags("--no-track", "--recurse-submodules", "--set-upstream", "--unset-upstream"),
    **values("--merged", "--abbrev", "-u", "--set-upstream-to", "--contains", "--no-contains"),
    **values("--no-merged", "--sort", "--points-at", "--format"),
    **optional("--track", "--color", "--column"),
}  # fmt: skip

LS_FILES: dict[str, Opt] = {
    **flags("-c", "--cached", "-d", "--deleted", "-m", "--modified"),
    **flags("-o", "--others", "-i", "--ignored", "-s", "--stage"),
    **flags("--directory", "--no-empty-directory", "-u", "--unmerged", "-k", "--killed"),
    **flags("-z", "--deduplicate", "--exclude-standard", "--error-unmatch", "-t", "-v"),
    **flags("-f", "--full-name", "--recurse-submodules", "--debug", "--eol", "--sparse"),
    **flags("--empty-directory", "--resolve-undo"),
    **values("-x", "--exclude", "--exclude-per-directory", "--with-tree", "--format"),
    **optional("--abbrev"),
    **valued("read", "-X", "--exclude-from"),
}  # fmt: skip

RESTORE: dict[str, Opt] = {
    **flags("-p", "--patch", "-W", "--worktree", "-S", "--staged"),
    **flags("-q", "--quiet", "--progress", "--no-progress", "--ours", "--theirs"),
    **flags("-m", "--merge", "--ignore-unmerged", "--ignore-skip-worktree-bits", "--no-recurse-submodules", "--overlay"),
    **flags("--no-overlay", "--pathspec-file-nul", "-2", "-3"),
    **values("-s", "--source", "--conflict"),
    **optional("--recurse-submodules"),
    **names_from("--pathspec-from-file"),
}  # fmt: skip

RESET: dict[str, Opt] = {
    **flags("-q", "--quiet", "--refresh", "--no-refresh", "--pathspec-file-nul", "--mixed"),
    **flags("--soft", "--hard", "--merge", "--keep", "-p", "--patch"),
    **flags("-N", "--intent-to-add"),
    **optional("--recurse-submodules"),
    **names_from("--pathspec-from-file"),
}  # fmt: skip

SWITCH: dict[str, Opt] = {
    **flags("-d", "--detach", "--guess", "--no-guess", "-f", "--force"),
    **flags("--discard-changes", "-m", "--merge", "-q", "--quiet", "--progress"),
    **flags("--no-progress", "-t", "--no-track", "--ignore-other-worktrees", "--no-recurse-submodules", "--overwrite-ignore"),
    **values("-c", "--create", "-C", "--force-create", "--conflict", "--orphan"),
    **optional("--track", "--recurse-submodules"),
}  # fmt: skip

RM: dict[str, Opt] = {
    **flags("-f", "--force", "-n", "--dry-run", "-r", "--cached"),
    **flags("--ignore-unmatch", "--sparse", "-q", "--quiet", "--pathspec-file-nul"),
    **names_from("--pathspec-from-file"),
}  # fmt: skip

MV: dict[str, Opt] = {
    **flags("-f", "--force", "-k", "-n", "--dry-run", "-v"),
    **flags("--verbose", "--sparse"),
}  # fmt: skip

# `git stash [push]`: its options (`man git-stash`); `apply`/`pop` and `drop` take few.
STASH_PUSH: dict[str, Opt] = {
    **flags("-a", "--all", "-u", "--include-untracked", "--no-include-untracked"),
    **flags("--only-untracked", "--index", "-k", "--keep-index", "--no-keep-index", "-p"),
    **flags("--patch", "-S", "--staged", "--pathspec-file-nul", "-q", "--quiet"),
    **values("-m", "--message"),
    **names_from("--pathspec-from-file"),
}
STASH_APPLY: dict[str, Opt] = flags("--index", "-q", "--quiet")

# `git grep`: `-O`/`--open-files-in-pager` runs a pager program: left out, so that it asks
# (and `git.py` asks for it in every mode). `-f FILE` reads the patterns from FILE.
GREP: dict[str, Opt] = {
    **DIGITS,
    **flags("--cached", "--no-index", "--untracked", "--no-exclude-standard", "--exclude-standard", "--recurse-submodules"),
    **flags("-a", "--text", "--textconv", "--no-textconv", "-i", "--ignore-case"),
    **flags("-I", "-r", "--recursive", "--no-recursive", "-w", "--word-regexp"),
    **flags("-v", "--invert-match", "-h", "-H", "--full-name", "-E"),
    **flags("--extended-regexp", "-G", "--basic-regexp", "-P", "--perl-regexp", "-F"),
    **flags("--fixed-strings", "-n", "--line-number", "--column", "-l", "--files-with-matches"),
    **flags("--name-only", "-L", "--files-without-match", "-z", "--null", "-o"),
    **flags("--only-matching", "-c", "--count", "--no-color", "--break", "--heading"),
    **flags("-p", "--show-function", "-W", "--function-context", "--and", "--or"),
    **flags("--not", "--all-match", "-q", "--quiet"),
    **values("--max-depth", "-C", "--context", "-A", "--after-context", "-B"),
    **values("--before-context", "-m", "--max-count", "--threads", "-e"),
    **optional("--color"),
    **valued("read", "-f"),
}  # fmt: skip

# `git remote` lists the remotes (`-v`); its read-only subcommands are in git.py.
REMOTE: dict[str, Opt] = flags("-v", "--verbose")

# git-fetch(1). Left out, so that they ask: `--upload-pack` (the program git runs to serve
# the fetch: local for a local repository; also `_GIT_COMMAND_OPTIONS`) and `--set-upstream`
# (records the URL as the branch's upstream, where a later bare `git push` sends).
FETCH: dict[str, Opt] = {
    **flags("--all", "-a", "--append", "--atomic", "--unshallow", "--update-shallow"),
    **flags("--negotiate-only", "--dry-run", "--write-fetch-head", "-f", "--force", "-k"),
    **flags("--keep", "--multiple", "--auto-maintenance", "--auto-gc", "--write-commit-graph"),
    **flags("--prefetch", "-p", "--prune", "-P", "--prune-tags", "-n", "--no-tags", "--refetch"),
    **flags("-t", "--tags", "--no-recurse-submodules", "-u", "--update-head-ok", "-q"),
    **flags("--quiet", "-v", "--verbose", "--progress", "--show-forced-updates"),
    **flags("--no-show-forced-updates", "-4", "--ipv4", "-6", "--ipv6", "--stdin"),
    **flags("--no-auto-gc", "--no-auto-maintenance", "--no-write-commit-graph"),
    **flags("--no-write-fetch-head"),
    **values("--depth", "--deepen", "--shallow-since", "--shallow-exclude", "--negotiation-tip"),
    **values("--refmap", "-j", "--jobs", "--submodule-prefix", "-o", "--server-option"),
    **values("--recurse-submodules-default"),
    **optional("--recurse-submodules"),
}  # fmt: skip
FETCH_LEFT_OUT = frozenset({"--upload-pack", "--set-upstream"})

# git-pull(1): its own options, then git-fetch's it passes on. Left out as for fetch, and
# `-e`/`--edit` (start the configured editor). `--rebase[=VALUE]`: `interactive` (any
# prefix git takes: `i`) starts the sequence editor, so only the other values are understood.
_REBASE_VALUES = frozenset({"false", "true", "merges", "no", "yes", "0", "1", "off", "on"})
_REBASE = Opt(
    takes=True,
    optional=True,
    setting=lambda v: Setting() if v.lower() in _REBASE_VALUES else None,
)
PULL: dict[str, Opt] = {
    **{k: v for k, v in FETCH.items() if k not in ("-n", "--stdin", "-P", "--prune-tags")},
    **flags("--commit", "--no-commit", "--no-edit", "--ff-only", "--ff", "--no-ff"),
    **flags("--no-gpg-sign", "--no-log", "--signoff", "--no-signoff", "--stat", "-n"),
    **flags("--no-stat", "--squash", "--no-squash", "--verify", "--no-verify"),
    **flags("--verify-signatures", "--no-verify-signatures", "--summary", "--no-summary"),
    **flags("--autostash", "--no-autostash", "--allow-unrelated-histories", "--no-rebase"),
    "-r": _REBASE,
    "--rebase": _REBASE,
    **values("--cleanup", "-X", "--strategy-option"),
    **optional("-S", "--gpg-sign", "--log"),
}  # fmt: skip
