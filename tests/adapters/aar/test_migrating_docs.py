"""docs/migrating.md runs as written: every python block, in order, then its demo."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from safehold import Verdict

DOC = Path(__file__).parents[3] / "docs" / "migrating.md"


def run_page() -> dict[str, Any]:
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert len(blocks) == 5  # the last is the shim of "Aar's own tests"
    namespace: dict[str, Any] = {"__name__": "migrating_example"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    return namespace


async def test_the_worked_example_runs_and_prints_what_the_page_says(capsys: Any) -> None:
    page = run_page()
    results, answers = await page["demo"]()
    verdicts = {what: d.verdict for what, d in results.items()}
    assert verdicts == {
        "make build": Verdict.ALLOW,
        "terraform destroy": Verdict.DENY,
        "read .env": Verdict.DENY,
    }
    assert answers == [{"command": "make build"}]  # only the ASK reached the callback
    printed = capsys.readouterr().out
    # The page shows the output as `#> ` lines under the code (tests/test_docs.py's form).
    shown = [line[3:] for line in DOC.read_text().splitlines() if line.startswith("#> ")]
    assert shown, "the page shows no output"
    assert printed == "".join(f"{line}\n" for line in shown)
    loaded = page["loaded"]
    assert loaded.unknown == ("denied_path",)
    assert page["bridge"].config_options  # the bridge was built with the page's arguments
