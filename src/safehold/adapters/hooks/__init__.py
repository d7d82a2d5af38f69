"""Command hooks of coding-agent CLIs: Claude Code's `PreToolUse`, Gemini CLI's `BeforeTool`.

Each module turns the CLI's JSON payload into a `HookCall` (the `ToolCall`, the workspace,
whether the session is read-only) and a `Decision` into the JSON the CLI reads back. The
`safehold hook` command wires them to stdin and stdout; any failure there exits 2, which
both CLIs treat as "block this tool call".
"""
