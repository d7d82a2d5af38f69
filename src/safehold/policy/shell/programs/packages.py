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
# The general options left out above: a word naming one, or a prefix of one, is not read
# as another option (`pip install --python X` is pip's `--python`, not `--python-version`).
_PIP_LEFT_OUT = frozenset({"--python", "--keyring-provider", "--trusted-host", "--find-links"})
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
    left_out=_PIP_LEFT_OUT,
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
    left_out=_PIP_LEFT_OUT,
)
_PIP_SHOW = Program(
    options={**_PIP_GENERAL, **flags("-f", "--files")},
    parser="argparse",
    source=f"pip show ({_PIP_SOURCE}); operands are package names",
    left_out=_PIP_LEFT_OUT,
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
    left_out=_PIP_LEFT_OUT,
)
# `pip [GENERAL OPTIONS] SUBCOMMAND`: the general options may come first too. `--python`
# is left out (pip(1): "Run pip with the specified Python interpreter": `pip
# --python=./x.sh list` runs `./x.sh`), as are `-f`/`--find-links` (above).
_PIP = Program(
    options={"--log": _WRITE, "--cache-dir": _WRITE, "--proxy": _NET,
             "-i": _NET, "--index-url": _NET, "--extra-index-url": _NET},
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
    left_out=_PIP_LEFT_OUT,
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
# (`config set`); `bugs`, `issues`, `docs`, `home` and `repo`, which open a URL the
# package's metadata names "using the --browser config param" (npm-docs(1), npm-bugs(1),
# npm-repo(1)): a program the configuration names, with a URL from the registry; `config`,
# `cache` and `pack` are below.
_NPM_OTHERS = frozenset(
    {
        "access", "completion", "deprecate", "diff", "dist-tag",
        "dist-tags", "doctor", "explain", "why", "find-dupes", "get",
        "help", "hlep", "help-search", "ll", "la", "ls", "list", "org", "ogr", "outdated",
        "owner", "author", "ping", "pkg", "prefix", "profile", "publish", "query",
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
        # `npm fund` lists the funding URLs; `npm fund PKG` "tries to open its funding url
        # using the --browser config param" (npm-fund(1)): an operand is not understood.
        "fund": Program(options=_NPM_OPTIONS, understood_operand=no_operand),
    },
)
# pnpm does not read npm's command list. A word that is none of its commands runs the
# package.json script of that name, or else the program of that name ("If there is no
# script with the specified name, then pnpm will execute the command as a shell script",
# pnpm(1), "pnpm <cmd>"): `pnpm find ~ …` is `find`. Its commands (pnpm 10,
# pnpm/src/cmd/index.ts) that fetch and run packages, as npm's do; the read-only ones and
# the scripts; and the registry commands pnpm 10 hands to npm (pnpm/src/main.ts; pnpm 11
# refuses them), read with npm's tables. Everything else (`pnpm lint`, `pnpm store prune`,
# `pnpm env use`, `pnpm patch`, `pnpm setup`, `pnpm self-update`) is not understood.
_PNPM_RUNS = frozenset(
    {
        "install", "i", "add", "update", "up", "upgrade", "remove", "rm", "uninstall", "un",
        "link", "ln", "unlink", "rebuild", "rb", "prune", "dedupe", "install-test", "it",
        "import", "fetch", "exec", "dlx", "create", "audit",
    }
)  # fmt: skip
_PNPM_OTHERS = frozenset(
    {
        "test", "t", "tst", "run", "run-script", "start", "restart", "list", "ls", "ll",
        "la", "outdated", "why", "root", "bin", "licenses", "doctor", "help", "completion",
        "publish", "config", "c", "get",
        # Handed to npm by pnpm 10.
        "access", "deprecate", "dist-tag", "info", "owner", "ping", "prefix", "profile",
        "pkg", "search", "s", "se", "show", "star", "stars", "team", "unpublish", "unstar",
        "v", "version", "view", "whoami",
    }
)  # fmt: skip
_PNPM = Program(
    options=_NPM_OPTIONS,
    subcommands={
        **_subcommands(_NPM_OPTIONS, _PNPM_RUNS, frozenset()),
        **{
            name: _NPM.subcommands.get(name, Program(options=_NPM_OPTIONS)) for name in _PNPM_OTHERS
        },
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


# `--target TRIPLE` "may also be a path to a target spec JSON file" (cargo-build(1)): read.
# Left out, so that they ask: `-Z FLAG` (cargo(1): "Unstable (nightly-only) flags": each
# turns on a feature whose effects the table does not know, `-Zscript` runs a file, `-Zgc`
# makes `cargo clean gc` empty the user's download cache).
_CARGO_OPTIONS = {
    "--root": _WRITE, "--target-dir": _WRITE, "--manifest-path": _READ,
    "--config": Opt(takes=True, setting=_cargo_config),
    "-p": _V, "--package": _V, "--bin": _V, "--features": _V, "-F": _V, "-j": _V,
    "--jobs": _V, "--target": _READ,
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
        "add", "config", "fetch", "generate-lockfile", "help", "info",
        "locate-project", "metadata", "owner", "pkgid", "publish", "read-manifest", "remove",
        "rm", "report", "search", "tree", "update", "verify-project", "version", "yank",
    }
)  # fmt: skip
_CARGO = Program(
    options=_CARGO_OPTIONS,
    subcommands={
        **_subcommands(_CARGO_OPTIONS, _CARGO_RUNS, _CARGO_OTHERS),
        # `cargo init` with no path writes in `.` (`Cargo.toml`).
        **{
            name: Program(options=_CARGO_OPTIONS, first="write", implicit=_HERE)
            for name in ("new", "init")
        },
        # cargo-vendor(1): "Vendor all dependencies … into the specified <path> directory"
        # (`vendor` when none is given): the crates' sources, downloaded.
        "vendor": Program(options=_CARGO_OPTIONS, first="write", implicit=(("write", "vendor"),)),
        # cargo-clean(1): "With no options, cargo clean will delete the entire target
        # directory", which `--target-dir DIR` names: DIR is deleted (`--target-dir .` is
        # the workspace). It takes no operand (`gc` is nightly's: the download cache).
        "clean": Program(
            options={**_CARGO_OPTIONS, "--target-dir": Opt(takes=True, role="delete")},
            understood_operand=no_operand,
        ),
        # cargo-fmt: the words after `--` are rustfmt's (`--print-config default PATH`
        # writes PATH, rustfmt(1)): not understood.
        "fmt": Program(options=_CARGO_OPTIONS, forwards_rest=True),
    },
)

PROGRAMS: dict[str, Program] = {
    "pip": _PIP,
    "pip3": _PIP,
    "npm": _NPM,
    "pnpm": _PNPM,
    "cargo": _CARGO,
}
