"""Check that the built docs hold a generated reference entry for every public name.

Usage: `python .ci/check_api_reference.py SITE_DIR`. The public names are `safehold.__all__`
and the `__all__` of every adapter module or package, read from the source (no import, so an
adapter's framework need not be installed). Exits 1 naming what is missing.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def exported(path: Path) -> list[str]:
    """The names in a module's literal `__all__`."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(getattr(t, "id", None) == "__all__" for t in targets) and node.value:
                return [ast.literal_eval(e) for e in node.value.elts]  # type: ignore[attr-defined]
    return []


def public_names() -> list[str]:
    """`module.name` for every public name of safehold and its adapters."""
    names = [f"safehold.{n}" for n in exported(SRC / "safehold" / "__init__.py")]
    adapters = SRC / "safehold" / "adapters"
    for path in sorted(adapters.iterdir()):
        init = path / "__init__.py" if path.is_dir() else path
        if path.name.startswith("_") or init.suffix != ".py" or not init.exists():
            continue
        module = f"safehold.adapters.{path.stem if path.is_file() else path.name}"
        names += [f"{module}.{n}" for n in exported(init)]
    return names


def main() -> int:
    """Compare the public names with the ids in the site's HTML."""
    site = Path(sys.argv[1])
    html = "".join(p.read_text(encoding="utf-8") for p in site.rglob("*.html"))
    missing = [n for n in public_names() if f'id="{n}"' not in html]
    if missing:
        print("no API reference entry for:", ", ".join(missing), file=sys.stderr)
        print("add the module to docs/reference/*.md (`::: module`)", file=sys.stderr)
        return 1
    print(f"API reference: all {len(public_names())} public names documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
