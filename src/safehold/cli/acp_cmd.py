"""`safehold acp [--config F]`: the reference ACP agent over stdio (for Zed and other editors).

stdout is the protocol channel: before serving, the protocol gets its own copy of fd 1 and
fd 1 itself is pointed at stderr, so a stray print (ours or a library's) cannot corrupt
the JSON-RPC stream. Logs go to stderr or to `--log-file`.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import threading
from typing import TYPE_CHECKING, Any

from safehold.cli.acp_initialize import EarlyInitialize, FirstMessage
from safehold.errors import SafeholdError

if TYPE_CHECKING:
    import asyncio

    from safehold.policy.config import SafetyConfig
    from safehold.policy.grants import GrantReach
    from safehold.policy.modes import Mode

# asyncio, logging and selectors are imported where they are used: until the config is
# loaded and the early reader may answer `session/new` (issue 29), this module's imports
# are on the path of that answer, and asyncio alone costs about as much as the config.

_LEVELS = ("debug", "info", "warning", "error")
_STREAM_LIMIT = 16 * 1024 * 1024  # a prompt is one JSON line; allow large pasted blocks


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `acp` subcommand."""
    p = sub.add_parser(
        "acp",
        help="run the reference ACP agent over stdio (each prompt line is a gated shell command)",
        description=(
            "Serve the Agent Client Protocol on stdin/stdout. Each prompt line is a shell "
            "command: safehold decides, asks through the editor when it must, and runs it "
            "in the sandbox. Logs go to stderr (or --log-file), never stdout."
        ),
    )
    p.add_argument(
        "--config",
        metavar="F",
        help="policy file (.toml or .json); default: $SAFEHOLD_CONFIG, <cwd>/.safehold.toml, "
        "~/.config/safehold/config.toml, else the built-in defaults",
    )
    p.add_argument(
        "--floor",
        choices=("review", "read-only"),
        help="the most permissive mode an editor may switch a session to",
    )
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        help="save each session's mode and grants here (0700), so a restarted agent "
        "continues the session; without it, load/resume of an unknown session is refused",
    )
    p.add_argument(
        "--state-max-age",
        metavar="SECONDS",
        type=float,
        default=7 * 24 * 3600.0,
        help="a saved session older than this (since its last change) is not continued; "
        "default: 604800 (one week)",
    )
    p.add_argument(
        "--grant-scopes",
        metavar="LIST",
        default="session,project,user",
        help="where an \u201calways allow\u201d answer may hold, offered as separate options: "
        "a comma list of session, project, user (session is always offered); project and "
        "user grants are kept under $XDG_STATE_HOME/safehold/grants and managed with "
        "`safehold grants`; default: session,project,user",
    )
    p.add_argument(
        "--always-for",
        metavar="DURATION",
        help="make every \u201calways allow\u201d grant expire after DURATION (`90m`, `8h`, "
        "`7d`); the option labels say so; default: no expiry",
    )
    p.add_argument("--log-file", metavar="F", help="append logs to this file instead of stderr")
    p.add_argument("--log-level", choices=_LEVELS, default="warning", help="default: warning")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Serve the agent until the client closes stdin."""
    from safehold.cli.acp_initialize import started

    early = started()
    remembered: tuple[str, dict[str, Any] | None] | None = None
    if early is not None and os.environ.get("SAFEHOLD_ACP_EARLY_SESSION", "1") != "0":
        # A new session's answer from an earlier run with the same inputs goes out while
        # the config loads; it is checked against the loaded config below.
        from safehold.cli import _acp_session_cache

        remembered = _acp_session_cache.lookup(_cache_words(args), args.config)
        if remembered[1] is not None:
            early.offer_sessions(remembered[1])

    from safehold.cli.config_cmd import load_config
    from safehold.policy.modes import Mode

    try:
        config = load_config(args.config)  # ConfigError: one `error:` line, exit 2
        floor = Mode(args.floor) if args.floor else None
        state = None
        if args.state_dir:
            from safehold.errors import ConfigError
            from safehold.session_store import SessionStateDir

            try:
                state = SessionStateDir(args.state_dir, max_age=args.state_max_age)
            except ValueError as exc:
                raise ConfigError(f"--state-max-age: {exc}") from None
        scopes, ttl = _grant_scopes(args.grant_scopes, args.always_for)
    except BaseException:
        if early is not None:
            early.confirm_sessions(None)
        raise
    if early is not None:
        _confirm_early_sessions(early, config, floor, remembered, args)
    from safehold.adapters.acp.agent import SafeholdAgent

    store, permission_options = _grant_options(scopes, ttl)
    agent = SafeholdAgent(
        config,
        floor=floor,
        state=state,
        grant_store=store,
        permission_options=permission_options,
    )
    import asyncio

    from safehold.cli._acp_logging import configure_logging

    configure_logging(args.log_file, args.log_level)

    asyncio.run(_serve(agent, early))
    return 0


def _cache_words(args: argparse.Namespace) -> list[str]:
    """Every option of this start, for the cache key (`handler` is this module's `run`)."""
    return [f"{k}={v!r}" for k, v in sorted(vars(args).items()) if k != "handler"]


def _confirm_early_sessions(
    early: EarlyInitialize,
    config: SafetyConfig,
    floor: Mode | None,
    remembered: tuple[str, dict[str, Any] | None] | None,
    args: argparse.Namespace,
) -> None:
    """Offer the loaded config's `session/new` answer; fail if another one already went out."""
    from safehold.adapters._acp_wire import session_setup_json

    try:
        setup: dict[str, Any] | None = session_setup_json(config, floor)
    except Exception:  # a config looser than the floor: the SDK path answers (and refuses)
        setup = None
    if remembered is None:
        early.offer_sessions(setup)
        return
    key, old = remembered
    sent_ok = early.confirm_sessions(setup)
    if setup != old:
        from safehold.cli import _acp_session_cache

        # Only when no input changed while the config loaded (the key is the same again).
        if setup is not None and _acp_session_cache.key(_cache_words(args), args.config) == key:
            _acp_session_cache.remember(key, setup)
        elif old is not None:
            _acp_session_cache.forget(key)
    if not sent_ok:
        raise SafeholdError(
            "the new session was answered from the remembered answer of an earlier start, "
            "which the config no longer gives (it changed in a way the cache key did not "
            "see); the agent stops rather than serve a session the editor shows differently: "
            "start it again"
        )


def _grant_scopes(
    scopes_text: str, always_for: str | None
) -> tuple[tuple[GrantReach, ...], float | None]:
    """The scopes `--grant-scopes` names and the lifetime `--always-for` gives, checked.

    Without the ACP SDK (`PermissionOptions` imports it): this runs before the early answer.
    """
    from safehold.errors import ConfigError
    from safehold.policy.grants import GRANT_REACHES, parse_duration

    scopes = [w.strip() for w in scopes_text.split(",") if w.strip()]
    unknown = [w for w in scopes if w not in GRANT_REACHES]
    if unknown:
        raise ConfigError(
            f"--grant-scopes: unknown scope `{unknown[0]}`: expected session, project, user"
        )
    try:
        ttl = None if always_for is None else parse_duration(always_for)
    except ValueError as exc:
        raise ConfigError(f"--always-for: {exc}") from None
    return tuple(r for r in GRANT_REACHES if r == "session" or r in scopes), ttl


def _grant_options(scopes: tuple[GrantReach, ...], ttl: float | None) -> tuple[Any, Any]:
    """The grant store and the permission options of checked `_grant_scopes`."""
    from safehold.adapters.acp.permission import PermissionOptions
    from safehold.grant_store import GrantFiles

    store = GrantFiles() if set(scopes) - {"session"} else None
    return store, PermissionOptions(scopes=scopes, expires_in=ttl)


async def _serve(agent: Any, early: EarlyInitialize | None = None) -> None:
    import acp

    if early is not None:
        first = early.finish()
        reader, writer = await _streams_after(early.protocol_fd, first)
        if first.answered:
            # The client already has its answer; the agent still needs its capabilities.
            await _initialize_quietly(agent, first.params)
        if first.session is not None:
            # The client has its session id already: open that session before the SDK
            # reads another byte (its next request names it).
            agent.adopt_session(*first.session)
    else:
        reader, writer = await _protocol_streams()
    try:
        await acp.run_agent(agent, writer, reader, use_unstable_protocol=True)
    finally:
        writer.close()


async def _initialize_quietly(agent: Any, params: dict[str, Any]) -> None:
    from acp.schema import ClientCapabilities
    from pydantic import ValidationError

    try:
        caps = ClientCapabilities.model_validate(params.get("clientCapabilities") or {})
    except ValidationError:
        caps = ClientCapabilities()  # fewest capabilities: toggles shown as selects
    await agent.initialize(
        protocol_version=int(params["protocolVersion"]), client_capabilities=caps
    )


async def _streams_after(
    protocol_fd: int, first: FirstMessage
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Streams over stdin and the protocol fd, replaying what the early reader took."""
    import asyncio

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_STREAM_LIMIT)
    if first.unread:
        reader.feed_data(first.unread)
    in_fd = sys.stdin.fileno()
    if first.eof:
        reader.feed_eof()
    elif _pollable(in_fd):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    else:
        _feed_from_thread(loop, reader, in_fd)
    protocol_out = os.fdopen(protocol_fd, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, protocol_out
    )
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)


async def _protocol_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """stdin/stdout as asyncio streams, with fd 1 moved out of everyone else's reach."""
    import asyncio

    out_fd = sys.stdout.fileno()
    if not stat.S_ISFIFO(os.fstat(out_fd).st_mode) and not _is_stream(out_fd):
        raise SafeholdError(
            "`safehold acp` speaks ACP on stdout, which must be a pipe or socket: "
            "run it from an editor (see docs/acp-integration.md)"
        )
    protocol_out = os.fdopen(os.dup(out_fd), "wb", buffering=0)
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), out_fd)
    sys.stdout = sys.stderr
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_STREAM_LIMIT)
    in_fd = sys.stdin.fileno()
    if _pollable(in_fd):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    else:
        # /dev/null or a regular file: epoll refuses them, so a thread reads instead.
        _feed_from_thread(loop, reader, in_fd)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, protocol_out
    )
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)


def _is_stream(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and _pollable(fd))


def _pollable(fd: int) -> bool:
    import selectors

    with selectors.DefaultSelector() as probe:
        try:
            probe.register(fd, selectors.EVENT_READ)
        except (OSError, ValueError):
            return False
        return True


def _feed_from_thread(
    loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader, fd: int
) -> None:
    def pump() -> None:
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                loop.call_soon_threadsafe(reader.feed_eof)
                return
            loop.call_soon_threadsafe(reader.feed_data, data)

    threading.Thread(target=pump, name="safehold-acp-stdin", daemon=True).start()
