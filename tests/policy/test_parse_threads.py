"""Shell parsing from several threads at once: each thread parses with its own parser.

A tree-sitter parser holds mutable parse state; two sessions may decide at once (the ACP
agent, the hook server). A pytest worker running tests/adapters/acp/test_locations.py crashed
with a segmentation fault twice under load while every thread shared one parser (not
reproduced since); each thread now has its own.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from tree_sitter import Node

from safehold.policy.shell import analyze
from safehold.policy.shell.parse import _parser, forget_trees, parse_tree

COMMANDS = [
    "git status && git diff --stat",
    'for f in *.py; do python3 -m black --check "$f"; done',
    "cat <<'EOF' > notes.txt\nhello $USER\nEOF",
    "find . -name '*.pyc' -print | xargs rm -f",
    "(cd src && make -j4 test) | tee build.log",
    "if [ -f .env ]; then echo found; else echo none; fi",
    "echo " + " ".join(f"word{i}" for i in range(400)),
]


def _shapes() -> list[tuple[tuple[str, ...], ...]]:
    return [tuple(tuple(c.argv) for c in analyze(cmd).commands) for cmd in COMMANDS]


def test_each_thread_has_its_own_parser() -> None:
    seen: list[object] = []

    def grab() -> None:
        seen.append(_parser())
        seen.append(_parser())

    threads = [threading.Thread(target=grab) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen[0] is seen[1] and seen[2] is seen[3] and seen[4] is seen[5]  # one per thread
    assert len({id(p) for p in seen}) == 3  # never one shared between threads
    assert _parser() not in seen


def test_parsing_in_many_threads_at_once_gives_the_one_thread_answers() -> None:
    expected = _shapes()
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: _shapes(), range(64)))
    assert all(r == expected for r in results)


def test_a_remembered_tree_is_never_handed_to_another_thread() -> None:
    # `parse_tree` remembers recent trees per thread (auto mode parses a script twice): a
    # tree is not made to be read by two threads at once, so each thread parses its own.
    # (A root's `id` is where its tree lives; every root stays referenced, so none is reused.)
    src = b"cat src/app.py | grep -v x | sort | uniq -c | head -n 20"
    mine = parse_tree(src)
    again = parse_tree(src)
    assert again.id == mine.id  # remembered within the thread
    theirs: list[Node] = []
    thread = threading.Thread(target=lambda: theirs.append(parse_tree(src)))
    thread.start()
    thread.join()
    assert theirs and theirs[0].id != mine.id
    forget_trees()
    fresh = parse_tree(src)
    assert fresh.id != mine.id
    assert str(fresh) == str(mine)  # the same parse, from scratch


def test_a_large_source_is_parsed_but_not_held() -> None:
    src = b"echo " + b"x" * 70_000
    first = parse_tree(src)
    second = parse_tree(src)
    assert first.id != second.id
