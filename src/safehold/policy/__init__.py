"""The pure policy core: config, modes, paths, shell analysis, engine, sessions, approval.

Nothing here starts a process, opens a socket or imports an adapter; the only I/O is
`realpath`/`stat` in `paths.py`.
"""
