"""A malformed `tools/call` is answered with one message naming the field, and never
forwarded; a call whose arguments reach a denied host or a protected file is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.adapters.mcp.test_mcp_relay import relay


def _request(request_id: int, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ([], "`params`"),
        ({"arguments": {}}, "`params.name`"),
        ({"name": "", "arguments": {}}, "`params.name`"),
        ({"name": 7, "arguments": {}}, "`params.name`"),
        ({"name": "read_file", "arguments": ["x"]}, "`params.arguments`"),
        ({"name": "read_file", "arguments": "path=x"}, "`params.arguments`"),
    ],
)
async def test_a_malformed_call_names_its_field(tmp_path: Path, params: Any, field: str) -> None:
    async with relay(tmp_path) as wire:
        wire.client_says(_request(1, params))
        reply = await wire.to_client.wait_for(lambda m: m.get("id") == 1)
    assert reply["error"]["code"] == -32600
    message = reply["error"]["message"]
    assert field in message and message.count("\n") == 0, message
    assert [m.get("method") for m in wire.to_server.lines] == ["initialize"]


@pytest.mark.parametrize(
    "arguments",
    [
        {"path": "notes.txt", "hostname": "metadata.google.internal"},
        {"path": "notes.txt", "mirror": "http:/169.254.169.254/"},
        {"path": "notes.txt", "files": {"/etc/shadow": "x"}},
    ],
)
async def test_a_call_reaching_a_denied_place_is_refused(
    tmp_path: Path, arguments: dict[str, Any]
) -> None:
    async with relay(tmp_path) as wire:
        wire.client_says(_request(1, {"name": "read_file", "arguments": arguments}))
        reply = await wire.to_client.wait_for(lambda m: m.get("id") == 1)
    assert reply["result"]["isError"] is True, reply
    assert not [m for m in wire.to_server.lines if m.get("method") == "tools/call"]
