"""Package managers: the files and directories they are pointed at.

Whether an install is a *system* install (apt, dnf, …) is a class in `classes`; here is
where project-level installs read requirement files and write their targets.
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Opt, Program, Role, Setting
from safehold.policy.shell.programs.vocab import flags, no_operand, valued, values

__all__ = ["PROGRAMS"]

# Roles on words a subcommand is not given: it writes in the directory it runs in.
_HERE: tuple[tuple[Role, str | None], ...] = (("write", "."),)
_V = Opt(takes=True)
_READ = Opt(takes=True, role="read")
_WRITE = Opt(takes=True, role="write")
_NET = Opt(takes=True, role="network")  # an index or registry URL (pip(1), npm-config(7))

# pip 23.2 (`pip SUB --help`): the general options every subcommand takes. Left out, so
# that they ask: `--python` (runs pip under another interpreter), `--keyring-provider`
# (`subprocess` runs the keyring program), `--trusted-host` (turns off TLS checks for a
# host), `-f`/`--find-links` (a URL or a local directory: no one role fits).
_PIP_GENERAL = {
    **flags("-h", "--help", "--debug", "--isolated", "--require-virtualenv", "-v"),
    **flags("--verbose", "-V", "--version", "-q", "--quiet", "--no-input", "--no-cache-dir"),
    **flags("--disable-pip-version-check", "--no-color", "--no-python-version-warning"),
    **values("--retries", "--timeout", "--exists-action", "--use-feature"),
    **values("--use-deprecated", "--resume-retries"),
    **flags("--no-proxy-env"),  # pip 25+
    **valued("write", "--log", "--cache-dir"),
    **valued("read", "--cert", "--client-cert"),
    **valued("network", "--proxy"),
}
_PIP_INDEX = {
    **valued("network", "-i", "--index-url", "--extra-index-url"),
    **flags("--no-index"),
}
_PIP_SOURCE = "pip 23.2.1 and 26.3 --help"
# Options pip 25-26 added to install and list: release filters and a refresh (values that
# name packages or a date, no file).
_PIP_RELEASES = {
    **values("--all-releases", "--only-final", "--refresh-package", "--uploaded-prior-to"),
}
_PIP_INSTALL = Program(
    options={
        **_PIP_GENERAL,
        **_PIP_INDEX,
        **valued("read", "-r", "--requirement", "-c", "--constraint"),
        **valued("write", "-t", "--target", "--prefix", "--root", "--src", "--report"),
        # A local project directory or a VCS URL: kept as it was (no role) until a role
        # for "a path or a URL" exists.
        **values("-e", "--editable"),
        **values("--platform", "--python-version", "--implementation", "--abi"),
        **values("--upgrade-strategy", "-C", "--config-settings", "--global-option"),
        **values("--no-binary", "--only-binary", "--progress-bar", "--root-user-action"),
        **flags("--no-deps", "--pre", "--dry-run", "--ignore-installed", "--user", "-U"),
        **flags("--upgrade", "--force-reinstall", "-I", "--ignore-requires-python"),
        **flags("--no-build-isolation", "--use-pep517", "--check-build-dependencies"),
        **flags("--break-system-packages", "--compile", "--no-compile"),
        **flags("--no-warn-script-location", "--no-warn-conflicts", "--prefer-binary"),
        **flags("--require-hashes", "--no-clean"),
        **_PIP_RELEASES,
        **flags("--no-require-hashes", "--only-deps"),
        # pip 25+: a constraints file for build dependencies, a dependency group read from
        # a pyproject.toml (`[path:]group`), the inline metadata of a script.
        **valued("read", "--build-constraint", "--group", "--requirements-from-script"),
    },
    parser="argparse",
    source=f"pip install ({_PIP_SOURCE})",
    fetches_code=True,  # builds from source run the package's setup code
)
_PIP_LIST = Program(
    options={
        **_PIP_GENERAL,
        **_PIP_INDEX,
        **flags("-o", "--outdated", "-u", "--uptodate", "-e", "--editable", "-l"),
        **flags("--local", "--user", "--pre", "--not-required", "--exclude-editable"),
        **flags("--include-editable"),
        **values("--format", "--exclude", "--no-binary", "--only-binary"),
        **flags("--prefer-binary"),
        **_PIP_RELEASES,
        **valued("read", "--path"),
    },
    parser="argparse",
    source=f"pip list ({_PIP_SOURCE})",
)
_PIP_SHOW = Program(
    options={**_PIP_GENERAL, **flags("-f", "--files")},
    parser="argparse",
    source=f"pip show ({_PIP_SOURCE}); operands are package names",
)
_PIP_FREEZE = Program(
    options={
        **_PIP_GENERAL,
        **valued("read", "-r", "--requirement", "--path"),
        **flags("-l", "--local", "--user", "--all", "--exclude-editable"),
        **values("--exclude"),
    },
    parser="argparse",
    source=f"pip freeze ({_PIP_SOURCE})",
)
_PIP = Program(
    options={"--log": _WRITE, "--cache-dir": _WRITE, "--python": _V, "--proxy": _NET,
             "-i": _NET, "--index-url": _NET, "--extra-index-url": _NET, "-f": _NET,
             "--find-links": _NET},
    subcommands={
        "install": _PIP_INSTALL,
        "list": _PIP_LIST,
        "show": _PIP_SHOW,
        "freeze": _PIP_FREEZE,
        # Both build source distributions to read their metadata: the package's code runs.
        "download": Program(
            options={"-d": _WRITE, "--dest": _WRITE, "-r": _READ}, fetches_code=True
        ),
        "wheel": Program(
            options={"-w": _WRITE, "--wheel-dir": _WRITE, "-r": _READ}, fetches_code=True
        ),
    },
)  # fmt: skip
_NPM_OPTIONS = {
    "--prefix": _WRITE, "-C": _WRITE, "--cache": _WRITE, "--userconfig": _READ,
    "--globalconfig": _READ, "--registry": _NET, "--proxy": _NET, "--https-proxy": _NET,
}  # fmt: skip


def _subcommands(
    options: dict[str, Opt], runs: frozenset[str], others: frozenset[str]
) -> dict[str, Program]:
    """Each subcommand with the program's options; `runs` download and run package code."""
    out = {name: Program(options=options, fetches_code=True) for name in runs}
    out.update({name: Program(options=options) for name in others})
    return out


# npm 10.9 `lib/utils/cmd-list.js`: every command and alias (npm also takes any unique
# abbreviation and camelCase spellings: those are left out, so they are not understood).
# Install scripts of the packages run: install, ci, update, dedupe, rebuild, link, the
# install-test pair, and `audit fix`; `exec` and `init <initializer>` download a package
# and run it. Left out: `explore` (runs a command in a package) and `edit` (runs $EDITOR).
_NPM_RUNS = frozenset(
    {
        "install", "add", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta",
        "isntal", "isntall", "ci", "clean-install", "ic", "install-clean", "isntall-clean",
        "install-test", "it", "install-ci-test", "cit", "clean-install-test", "sit",
        "update", "up", "upgrade", "udpate", "dedupe", "ddp", "rebuild", "rb", "link", "ln",
        "audit", "exec", "x", "init", "create", "innit",
        # Removing a package reifies the whole tree as `install` does (npm-uninstall(1),
        # npm-prune(1): `foreground-scripts`, `ignore-scripts`): packages the lockfile lists
        # and `node_modules` lacks are downloaded and their install scripts run.
        "uninstall", "unlink", "remove", "rm", "r", "un", "prune",
    }
)  # fmt: skip
# Left out, so that they ask: `login`, `adduser`, `add-user`, `logout` (write or revoke
# the token in the user's `~/.npmrc`), `token` (lists and makes access tokens), `set`
# (`config set`); `config`, `cache` and `pack` are below.
_NPM_OTHERS = frozenset(
    {
        "access", "bugs", "issues", "completion", "deprecate", "diff", "dist-tag",
        "dist-tags", "docs", "home", "doctor", "explain", "why", "find-dupes", "fund", "get",
        "help", "hlep", "help-search", "ll", "la", "ls", "list", "org", "ogr", "outdated",
        "owner", "author", "ping", "pkg", "prefix", "profile", "publish", "query", "repo",
        "restart", "root", "run-script", "run", "rum", "urn", "sbom", "search", "find", "s",
        "se", "shrinkwrap", "star", "stars", "start", "stop", "team", "test", "t", "tst",
        "unpublish", "unstar", "version", "verison", "view", "info", "show", "v", "whoami",
    }
)  # fmt: skip
# `npm config get|list` read the settings; `set`, `delete` and `edit` change the user's
# `~/.npmrc` (`script-shell`, `node-options`: code later scripts run). `npm cache ls|verify`
# look at the cache; `cache add SPEC` fetches (a git SPEC is built: its `prepare` script
# runs) and `cache clean` deletes `~/.npm/_cacache`. `npm pack` packs the workspace's own
# package; `npm pack SPEC` fetches another one and, for a git SPEC, runs its `prepare`
# script: an operand is not understood.
_NPM_READ_ONLY = {name: Program(options=_NPM_OPTIONS) for name in ("get", "list", "ls")}
_NPM_CONFIG = Program(options=_NPM_OPTIONS, subcommands=_NPM_READ_ONLY)
_NPM = Program(
    options=_NPM_OPTIONS,
    subcommands={
        **_subcommands(_NPM_OPTIONS, _NPM_RUNS, _NPM_OTHERS),
        "config": _NPM_CONFIG,
        "c": _NPM_CONFIG,
        "cache": Program(
            options=_NPM_OPTIONS,
            subcommands={name: Program(options=_NPM_OPTIONS) for name in ("ls", "verify")},
        ),
        # `npm pack` writes NAME-VERSION.tgz in `.` unless `--pack-destination` says where.
        "pack": Program(options=_NPM_OPTIONS, understood_operand=no_operand, implicit=_HERE),
    },
)
# `cargo --config KEY=VALUE` (cargo(1), "Configuration"; the keys: The Cargo Book, "Cargo
# Configuration", cargo 1.95): the closed world of keys that name no program, file, host
# or source. Any other key (`build.rustc`, `build.rustc-wrapper`, `target.<t>.runner`,
# `target.<t>.linker`, `registry.global-credential-providers`, `alias.*`, `env.*`,
# `source.*`, `patch.*`, `http.proxy`, `build.target-dir`, …) is not understood.
_CARGO_PLAIN_KEYS = frozenset(
    {
        "net.offline", "net.retry", "build.jobs", "build.incremental", "term.quiet",
        "term.verbose", "term.color", "term.hyperlinks", "term.unicode",
        "term.progress.when", "term.progress.width", "http.timeout", "http.multiplexing",
        "http.low-speed-limit", "http.check-revoke", "cargo-new.vcs",
        "future-incompat-report.frequency", "registries.crates-io.protocol",
        "resolver.incompatible-rust-versions",
    }
)  # fmt: skip
# `profile.<name>.<key>` keys that change only how the code is compiled (The Cargo Book,
# "Profiles"); not `rustflags` (unstable: any rustc flag, `-C linker=`).
_CARGO_PROFILE_KEYS = frozenset(
    {
        "opt-level", "debug", "split-debuginfo", "strip", "debug-assertions",
        "overflow-checks", "lto", "panic", "incremental", "codegen-units", "rpath",
    }
)  # fmt: skip


def _cargo_config(text: str) -> Setting | None:
    """`cargo --config KEY=VALUE` (a TOML dotted key) or `--config PATH` (a config file,
    read; its settings unseen: not understood)."""
    key, eq, _ = text.partition("=")
    if not eq:
        return Setting(uses=(("read", text),), understood=False)
    parts = [part.strip() for part in key.split(".")]
    if any(c in key for c in "\"'[]{}"):
        return None
    if ".".join(parts) in _CARGO_PLAIN_KEYS or (
        len(parts) == 3 and parts[0] == "profile" and parts[2] in _CARGO_PROFILE_KEYS
    ):
        return Setting()
    return None


_CARGO_OPTIONS = {
    "--root": _WRITE, "--target-dir": _WRITE, "--manifest-path": _READ,
    "--config": Opt(takes=True, setting=_cargo_config),
    "-Z": _V, "-p": _V, "--package": _V, "--bin": _V, "--features": _V, "-F": _V, "-j": _V,
    "--jobs": _V, "--target": _V,
}  # fmt: skip
# cargo 1.95 `cargo --list`. Building runs build scripts and procedural macros of every
# dependency, downloaded as the manifest says: build, check, test, run, bench, doc, clippy,
# fix, rustc, rustdoc, package, install and miri. Any other word is a `cargo-NAME` program
# on PATH or an alias from a `.cargo/config.toml`: not understood.
_CARGO_RUNS = frozenset(
    {
        "build", "b", "check", "c", "test", "t", "run", "r", "bench", "doc", "d", "clippy",
        "fix", "rustc", "rustdoc", "package", "install", "miri",
    }
)  # fmt: skip
# Left out, so that they ask: `login`, `logout` (write or remove the token in
# `~/.cargo/credentials.toml`) and `uninstall` (deletes programs from `~/.cargo/bin`).
# `new PATH`, `init [PATH]` and `vendor [PATH]` write the directory they are given.
_CARGO_OTHERS = frozenset(
    {
        "add", "clean", "config", "fetch", "fmt", "generate-lockfile", "help", "info",
        "locate-project", "metadata", "owner", "pkgid", "publish", "read-manifest", "remove",
        "rm", "report", "search", "tree", "update", "verify-project", "version", "yank",
    }
)  # fmt: skip
_CARGO = Program(
    options=_CARGO_OPTIONS,
    subcommands={
        **_subcommands(_CARGO_OPTIONS, _CARGO_RUNS, _CARGO_OTHERS),
        # `cargo init` and `cargo vendor` with no path write in `.` (`Cargo.toml`, `vendor/`).
        **{
            name: Program(options=_CARGO_OPTIONS, first="write", implicit=_HERE)
            for name in ("new", "init", "vendor")
        },
    },
)

PROGRAMS: dict[str, Program] = {
    "pip": _PIP,
    "pip3": _PIP,
    "npm": _NPM,
    "pnpm": _NPM,
    "cargo": _CARGO,
}
