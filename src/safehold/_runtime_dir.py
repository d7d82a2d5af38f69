"""Where the per-user hook server keeps its socket (read by the client and the sandbox).

The sandbox masks this folder in every run that would show it: a sandboxed command must
never reach the warm server, which decides for the user outside any sandbox. Standard
library only (the hook client imports it on its fast path).
"""

from __future__ import annotations

import os

__all__ = ["hook_folder"]


def hook_folder() -> str:
    """`$XDG_RUNTIME_DIR/safehold` when that is absolute, else `/tmp/safehold-UID`."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime):
        return os.path.join(runtime, "safehold")
    return f"/tmp/safehold-{os.getuid()}"
