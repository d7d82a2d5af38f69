"""`import safehold` stays light: no shell parser, asyncio, ACP SDK or framework until used.

A coding-agent hook is a fresh process per tool call; whatever `import safehold` drags in,
every call pays for. Each check runs in a fresh interpreter and reads `sys.modules`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = ("bashlex", "asyncio", "acp", "claude_agent_sdk", "pydantic_ai", "agents", "mcp", "anyio")


def _loaded(code: str, stdin: str = "") -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    run = subprocess.run(
        [sys.executable, "-c", probe], input=stdin, capture_output=True, text=True, timeout=120
    )
    assert run.returncode in (0, 2), run.stderr
    modules: list[str] = json.loads(run.stderr.strip().splitlines()[-1])
    return {m.split(".")[0] for m in modules}


def test_import_safehold_loads_nothing_heavy() -> None:
    loaded = _loaded("import safehold")
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))
    # Not even the policy core: names are imported on first use.
    assert "pydantic" not in loaded and "tree_sitter" not in loaded


def test_the_core_api_loads_no_parser_twin_asyncio_or_adapter() -> None:
    loaded = _loaded("from safehold import SafetyConfig, ToolCall, evaluate")
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))


def test_a_hook_deciding_bash_loads_no_second_parser(tmp_path: Path) -> None:
    payload = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "cwd": str(tmp_path),
            "permission_mode": "default",
            "tool_name": "Bash",
            "tool_input": {"command": "git status && ls -la 'src dir'"},
        }
    )
    code = "import sys\nfrom safehold.cli import main\nmain(['hook', 'claude-code'])"
    loaded = _loaded(code, payload)
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))
    # `hook install` shares the parser, not its work: no self-test machinery per call.
    assert "subprocess" not in loaded


def test_exported_names_resolve_lazily() -> None:
    import safehold

    for name in safehold.__all__:
        assert getattr(safehold, name) is not None
    assert set(safehold.__all__) <= set(dir(safehold))


def test_the_acp_early_session_path_loads_no_sdk_asyncio_or_logging(
    tmp_path: Path,
) -> None:
    # What `safehold acp` runs before the early reader may answer `session/new` (issue 29):
    # its module, the config (none here: the defaults) and the answer's builder. Each of
    # these modules would cost the answer tens of milliseconds on the development machine.
    code = (
        "import os\n"
        f"os.chdir({str(tmp_path)!r})\n"
        "import safehold.cli.acp_cmd\n"
        "safehold.cli.acp_cmd._grant_scopes('session,project,user', '8h')\n"
        "from safehold.cli.config_cmd import load_config\n"
        "from safehold.adapters._acp_wire import session_setup_json\n"
        "session_setup_json(load_config(None), None)\n"
    )
    home = tmp_path / "home"
    home.mkdir()
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env
    )
    assert run.returncode == 0, run.stderr
    loaded = {m.split(".")[0] for m in json.loads(run.stderr.strip().splitlines()[-1])}
    assert loaded.isdisjoint({"acp", "asyncio", "logging", "bashlex"}), sorted(loaded)
    assert "pydantic" in loaded  # the config was really loaded and validated


def test_the_remembered_session_answer_needs_no_pydantic_or_policy(tmp_path: Path) -> None:
    # With an answer remembered from an earlier start, `safehold acp` offers it before the
    # config loads (safehold.cli._acp_session_cache): that path must stay free of the
    # config's imports, or the cache buys nothing.
    code = (
        "import os\n"
        f"os.chdir({str(tmp_path)!r})\n"
        "import safehold.cli.acp_cmd\n"
        "from safehold.cli import _acp_session_cache\n"
        "_acp_session_cache.lookup(['config=None'], None)\n"
    )
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env
    )
    assert run.returncode == 0, run.stderr
    modules = set(json.loads(run.stderr.strip().splitlines()[-1]))
    loaded = {m.split(".")[0] for m in modules}
    assert loaded.isdisjoint({"acp", "asyncio", "logging", "pydantic", "_hashlib"}), sorted(loaded)
    assert not {m for m in modules if m.startswith("safehold.policy")}, sorted(modules)
