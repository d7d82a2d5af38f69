"""Look through wrapper programs to the command they run.

`sudo env FOO=1 nice -n 5 rm -rf /` runs `rm -rf /`; rules must see that. What each program
does with its words is in `programs/` (one module per family); this module only follows the
chain, one step per program, until a program that runs nothing else.
"""

from __future__ import annotations

from collections import OrderedDict

from safehold.policy._memo import remember
from safehold.policy.shell.programs import program_for, step_for
from safehold.policy.shell.programs.interpreters import INTERPRETERS, program_family
from safehold.policy.shell.programs.step import Unwrapped, opaque, program_name
from safehold.policy.shell.programs.table import Program, roles_of
from safehold.policy.shell.words import Word

__all__ = ["unwrap"]

_MAX_LAYERS = 16


def unwrap(words: tuple[Word, ...], *, stdin_fed: bool) -> list[Unwrapped]:
    """Strip wrappers from a command's words; `find -exec` yields one entry per command."""
    layers: list[tuple[Word, ...]] = []
    assignments: list[tuple[str, Word]] = []
    out: list[Unwrapped] = []
    for _ in range(_MAX_LAYERS):
        if not words:
            return [Unwrapped(tuple(layers), (), tuple(assignments)), *out]
        head = words[0]
        if not head.static:
            return [
                *out,
                Unwrapped(
                    tuple(layers),
                    words,
                    tuple(assignments),
                    None,
                    opaque(
                        "dynamic-command-name",
                        "command-name",
                        f"the program `{head.text}` is computed at run time",
                    ),
                ),
            ]
        name = program_family(program_name(head))
        fn = step_for(name)
        step = fn(name, words, stdin_fed) if fn is not None else None
        if step is None:
            code = _inner_code(name, words, (*layers, words), tuple(assignments))
            return [*out, *code, Unwrapped(tuple(layers), words, tuple(assignments))]
        if step.opaque and step.script is None:
            return [
                *out,
                Unwrapped(tuple(layers), words, tuple(assignments), None, step.opaque, step.code),
            ]
        out.extend(
            Unwrapped(
                (*layers, words, *e.layers),
                e.words,
                (*assignments, *e.assignments),
                e.script,
                e.opaque,
            )
            for e in step.extra
        )
        for layer, inner in step.nested:
            out.extend(
                Unwrapped(
                    (*layers, words, layer, *e.layers),
                    e.words,
                    (*assignments, *e.assignments),
                    e.script,
                    e.opaque,
                )
                for e in unwrap(inner, stdin_fed=False)
            )
        assignments.extend(step.assignments)
        if step.script is not None:
            # The script is re-analysed so its deny rules still fire; an opaque reason of the
            # step itself (a static `eval`) stays beside it.
            return [
                *out,
                Unwrapped((*layers, words), (), tuple(assignments), step.script, step.opaque),
            ]
        if step.keep_self:
            # The wrapper is a command in its own right (find, git): emit it as such.
            own = (*layers, words) if step.self_words is not None else tuple(layers)
            out.append(Unwrapped(own, step.self_words or words, tuple(assignments)))
            return out
        layers.append(words)
        words = step.inner
        stdin_fed = stdin_fed and name not in ("xargs",)
    return [
        *out,
        Unwrapped(
            tuple(layers),
            words,
            tuple(assignments),
            None,
            opaque(
                "too-many-wrappers", "wrappers", f"more than {_MAX_LAYERS} nested wrapper programs"
            ),
        ),
    ]


# What a shell or interpreter found among another program's arguments reports: a script
# to analyse, or code that cannot be read. Reading its program from stdin is not reported:
# `apt install python3` names a package, not a program being run.
_INNER_CODES = frozenset({"inline-code", "dynamic-script", "eval"})


def _inner_code(
    name: str,
    words: tuple[Word, ...],
    layers: tuple[tuple[Word, ...], ...],
    assignments: tuple[tuple[str, Word], ...],
) -> list[Unwrapped]:
    """Code a program not known as a wrapper may run: `taskset 1 bash -c S`, `uv run sh -c S`,
    `docker exec c python -c C`, and the program's own `exec` options (`sort
    --compress-program=P`). No list of wrappers is complete, so any program's arguments
    that spell a shell with a script are analysed as that script, with every hazard.
    """
    out: list[Unwrapped] = []
    program = program_for(name)
    if program is not None:
        for static, text in _exec_values(program, words):
            if not static:
                reasons = opaque("dynamic-script", name, f"`{name}` runs a computed command")
                out.append(Unwrapped(layers, (), assignments, None, reasons))
            elif text.strip():
                out.append(Unwrapped(layers, (), assignments, ("sh", text)))
    for i in range(1, len(words)):
        w = words[i]
        if not w.static:
            continue
        inner = program_family(program_name(w))
        if inner not in INTERPRETERS:
            continue
        fn = step_for(inner)
        step = fn(inner, words[i:], False) if fn is not None else None
        if step is None:
            continue
        if step.script is not None:
            out.append(Unwrapped(layers, (), assignments, step.script, step.opaque))
        elif any(code in _INNER_CODES for code, _, _ in step.opaque):
            # The code travels with its reason: denied paths named in it still deny.
            out.append(Unwrapped(layers, (), assignments, None, step.opaque, step.code))
    return out


def _exec_values(program: Program, words: tuple[Word, ...]) -> tuple[tuple[bool, str], ...]:
    """Each word the table gives the role `exec` (a command the program runs): whether it is
    static, and its text. Remembered by value: the reading is pure, and only the texts are
    used (no word is matched by identity)."""
    key = (id(program), words)
    held = _EXEC_VALUES.get(key)
    if held is not None and held[0] is program:
        return held[1]
    values = tuple(
        (u.word.static, u.word.text) for u in roles_of(program, words)[0] if u.role == "exec"
    )
    remember(_EXEC_VALUES, key, (program, values), 1024)
    return values


_EXEC_VALUES: OrderedDict[
    tuple[int, tuple[Word, ...]], tuple[Program, tuple[tuple[bool, str], ...]]
] = OrderedDict()
