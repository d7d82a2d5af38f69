"""Config discovery: --config, $SAFEHOLD_CONFIG, <project>/.safehold.toml, the user file, defaults."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from safehold import ConfigError, SafetyConfig
from safehold.config_discovery import discover_config, find_config
from tests._forked import run_cli


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    project = tmp_path / "project"
    project.mkdir()
    xdg = tmp_path / "xdg"
    (xdg / "safehold").mkdir(parents=True)
    named = tmp_path / "named.toml"
    named.write_text("read_only = true\n")
    return {"project": project, "xdg": xdg, "named": named, "home": tmp_path / "home"}


def test_the_order(tree: dict[str, Path]) -> None:
    env = {"XDG_CONFIG_HOME": str(tree["xdg"]), "HOME": str(tree["home"])}
    project = tree["project"]
    assert find_config(project=project, env=env).origin == "defaults"
    user = tree["xdg"] / "safehold" / "config.toml"
    user.write_text("require_approval_for_writes = false\n")
    assert find_config(project=project, env=env).path == user
    (project / ".safehold.json").write_text("{}")
    assert find_config(project=project, env=env).path == project / ".safehold.json"
    (project / ".safehold.toml").write_text("")
    assert find_config(project=project, env=env).path == project / ".safehold.toml"
    env["SAFEHOLD_CONFIG"] = str(tree["named"])
    assert find_config(project=project, env=env).origin == "SAFEHOLD_CONFIG"
    explicit = find_config(str(user), project=project, env=env)
    assert (explicit.path, explicit.origin) == (user, "--config")
    env["SAFEHOLD_CONFIG"] = ""  # empty counts as unset
    assert find_config(project=project, env=env).origin == "project"


def test_home_fallback_without_xdg(tree: dict[str, Path]) -> None:
    user = tree["home"] / ".config" / "safehold" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("read_only = true\n")
    config, source = discover_config(project=tree["project"], env={"HOME": str(tree["home"])})
    assert source.origin == "user" and config.read_only
    assert "user file" in source.describe()


def test_named_files_must_exist(tree: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match="named by --config does not exist"):
        find_config(str(tree["project"] / "nope.toml"), env={})
    with pytest.raises(ConfigError, match=r"named by \$SAFEHOLD_CONFIG is not a file"):
        find_config(env={"SAFEHOLD_CONFIG": str(tree["project"])})


def test_defaults_and_invalid_files(tree: dict[str, Path]) -> None:
    config, source = discover_config(project=tree["project"], env={"HOME": str(tree["home"])})
    assert config == SafetyConfig() and source.path is None
    assert "built-in defaults" in source.describe()
    (tree["project"] / ".safehold.toml").write_text("read_only = 1\n")
    with pytest.raises(ConfigError, match=r"\.safehold\.toml"):
        discover_config(project=tree["project"], env={})


def test_config_show_says_which_file(tree: dict[str, Path]) -> None:
    (tree["project"] / ".safehold.toml").write_text("read_only = true\n")
    run = run_cli(["config", "show", "--cwd", str(tree["project"])], text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stderr.strip() == f"config: {tree['project'] / '.safehold.toml'} (project file)"
    assert '"read_only": true' in run.stdout


def test_an_unchanged_file_is_loaded_once(
    tree: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from safehold import config_discovery

    named = tree["named"]
    first, _ = discover_config(named)
    assert discover_config(named)[0] is not first  # written just now: its times may lag
    monkeypatch.setattr(config_discovery, "_RACY_NS", -(10**18))  # trust the times
    cached, _ = discover_config(named)
    assert discover_config(named)[0] is cached and cached == first
    named.write_text("read_only = false\n")  # another size: another stat
    changed, _ = discover_config(named)
    assert changed is not cached and not changed.read_only
    assert discover_config()[0] is discover_config()[0] == SafetyConfig()


# -- a project file that loosens the policy needs the person's trust -----------------------


@pytest.fixture
def isolated(tree: dict[str, Path], tmp_path: Path) -> dict[str, str]:
    """An environment whose user config dir and trust store are in the temporary tree."""
    return {
        "XDG_CONFIG_HOME": str(tree["xdg"]),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "HOME": str(tree["home"]),
    }


@pytest.mark.parametrize(
    "text",
    [
        'mode = "auto"\n',
        "require_approval_for_execute = false\n",
        "replace_default_denied_paths = true\ndenied_paths = []\n",
        'allowed_paths = ["/"]\n',
        '[[command_rules]]\npattern = "curl"\ndecision = "allow"\n',
        '[sandbox]\nmode = "none"\n',
        '[audit]\npath = "~/.bashrc"\n',
        '[network]\nprivate_addresses = "allow"\n',
        '[[programs]]\nname = "sqlcheck"\noperands = "read"\n',
    ],
)
def test_an_untrusted_project_file_that_loosens_is_refused(
    tree: dict[str, Path], isolated: dict[str, str], text: str
) -> None:
    (tree["project"] / ".safehold.toml").write_text(text)
    with pytest.raises(ConfigError, match="less strict than the built-in defaults"):
        discover_config(project=tree["project"], env=isolated)


@pytest.mark.parametrize(
    "text",
    [
        "",
        'denied_paths = ["secrets/**"]\n',
        'protected_paths = ["deploy/**"]\n',
        'mode = "read-only"\n',
        '[[command_rules]]\npattern = "terraform apply"\ndecision = "deny"\n',
        '[network]\nallowed_domains = ["pypi.org"]\nprivate_addresses = "deny"\n',
        "acp_approval_timeout = 60\n",
    ],
)
def test_a_project_file_that_only_tightens_needs_no_trust(
    tree: dict[str, Path], isolated: dict[str, str], text: str
) -> None:
    (tree["project"] / ".safehold.toml").write_text(text)
    _, source = discover_config(project=tree["project"], env=isolated)
    assert source.origin == "project"


def test_trust_covers_the_content_it_was_given(
    tree: dict[str, Path], isolated: dict[str, str]
) -> None:
    from safehold.project_trust import trust

    file = tree["project"] / ".safehold.toml"
    file.write_text('mode = "auto"\n')
    trust(file, isolated)
    config, _ = discover_config(project=tree["project"], env=isolated)
    assert config.mode.value == "auto"
    file.write_text('mode = "auto"\n[sandbox]\nmode = "none"\n')  # changed after trust
    with pytest.raises(ConfigError, match="not trusted"):
        discover_config(project=tree["project"], env=isolated)


def test_the_user_config_is_the_base_a_project_file_is_compared_with(
    tree: dict[str, Path], isolated: dict[str, str]
) -> None:
    # Someone who runs auto mode everywhere is not asked to trust a project that says so too.
    (tree["xdg"] / "safehold" / "config.toml").write_text('mode = "auto"\n')
    (tree["project"] / ".safehold.toml").write_text('mode = "auto"\n')
    config, source = discover_config(project=tree["project"], env=isolated)
    assert source.origin == "project" and config.mode.value == "auto"
    (tree["project"] / ".safehold.toml").write_text('mode = "auto"\n[sandbox]\nmode = "none"\n')
    with pytest.raises(ConfigError, match="less strict than your user config"):
        discover_config(project=tree["project"], env=isolated)


@pytest.mark.parametrize("project_text", ["", 'mode = "review"\n', 'denied_paths = ["x/**"]\n'])
def test_a_project_file_without_a_network_section_keeps_the_users_domains(
    tree: dict[str, Path], isolated: dict[str, str], project_text: str
) -> None:
    # Issue 30: the user narrowed the hosts to one; a project file that says nothing about the
    # network would give back every domain. It is less strict, so it needs the person's trust.
    (tree["xdg"] / "safehold" / "config.toml").write_text(
        '[network]\nallowed_domains = ["pypi.org"]\n'
    )
    (tree["project"] / ".safehold.toml").write_text(project_text)
    with pytest.raises(ConfigError, match=r"less strict than your user config \(in `network`\)"):
        discover_config(project=tree["project"], env=isolated)


def test_the_trust_command_records_the_file(tree: dict[str, Path], tmp_path: Path) -> None:
    (tree["project"] / ".safehold.toml").write_text('mode = "auto"\n')
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tree["home"]),
        "XDG_CONFIG_HOME": str(tree["xdg"]),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "SAFEHOLD_HOOK_SERVER": "0",
    }
    show = ["config", "show", "--cwd", str(tree["project"])]
    refused = run_cli(show, module="safehold", text=True, env=env)
    assert refused.returncode != 0 and "config trust" in refused.stderr
    assert "Traceback" not in refused.stderr
    trust_cmd = ["config", "trust", "--cwd", str(tree["project"])]
    done = run_cli(trust_cmd, module="safehold", text=True, env=env)
    assert done.returncode == 0, done.stderr
    shown = run_cli(show, module="safehold", text=True, env=env)
    assert shown.returncode == 0, shown.stderr
    assert (tmp_path / "state" / "safehold" / "trusted-projects.json").is_file()


@pytest.mark.parametrize("kind", ["directory", "fifo", "dangling link"])
@pytest.mark.parametrize("where", ["project", "user"])
def test_a_found_candidate_that_is_not_a_file_is_an_error(
    tree: dict[str, Path], kind: str, where: str
) -> None:
    # Skipping it would let the next (perhaps looser) file, or the defaults, decide.
    env = {"XDG_CONFIG_HOME": str(tree["xdg"]), "HOME": str(tree["home"])}
    (tree["xdg"] / "safehold" / "config.toml").write_text("read_only = true\n")
    if where == "project":
        path = tree["project"] / ".safehold.toml"
    else:
        path = tree["xdg"] / "safehold" / "config.toml"
        path.unlink()
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(tree["project"] / "missing.toml")
    with pytest.raises(ConfigError, match=f"the {where} config file is"):
        find_config(project=tree["project"], env=env)


def test_check_names_the_config_it_used(tree: dict[str, Path]) -> None:
    (tree["project"] / ".safehold.toml").write_text("read_only = true\n")
    run = subprocess.run(
        [sys.executable, "-m", "safehold.cli", "check", "--json", "--read", "a.txt"],
        cwd=tree["project"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    where = tree["project"] / ".safehold.toml"
    assert run.stderr == f"config: {where} (project file)\n"
    assert json.loads(run.stdout)["config"] == {"path": str(where), "origin": "project"}
