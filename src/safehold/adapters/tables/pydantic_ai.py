"""pydantic-ai's ready-made tools (`pydantic_ai.common_tools`): names and kinds.

Every other tool of a pydantic-ai agent is the application's own: name it in the table
given to `SafeholdToolset` (`PYDANTIC_AI_TOOLS.with_tools({...})`), or it is judged as
kind `other` and logged once.
"""

from __future__ import annotations

from typing import Final

from safehold.adapters.tool_table import ToolSpec, ToolTable
from safehold.policy.calls import ToolKind

__all__ = ["PYDANTIC_AI_TOOLS"]

_SEARCH = ToolSpec(ToolKind.FETCH, url_args=("query",))

PYDANTIC_AI_TOOLS: Final = ToolTable(
    "pydantic-ai",
    {
        "duckduckgo_search": _SEARCH,
        "tavily_search": _SEARCH,
        "exa_search": _SEARCH,
        "exa_find_similar": ToolSpec(ToolKind.FETCH, url_args=("url",)),
        "exa_get_contents": ToolSpec(ToolKind.FETCH, url_args=("urls",)),
        "exa_answer": _SEARCH,
        "x_search": _SEARCH,
        "web_fetch": ToolSpec(ToolKind.FETCH, url_args=("url",)),
        "image_generation": ToolSpec(ToolKind.FETCH, url_args=("prompt",)),
    },
)
