"""Shell-command analysis: what an execute call's command runs and what that may do.

The modules read in the order the data flows:

1. `parse`      — tree-sitter-bash tree → raw simple commands, redirections, assignments;
2. `words`      — each word evaluated statically (quotes, escapes, `$'…'`), or computed;
3. `wrappers`   — look through `sudo`, `env`, `xargs`, `find -exec`, `bash -c` …;
4. `programs/`  — the program table: one module per family says what a program does with
   its words (runs an inner command, a shell string, inline code …);
5. `analysis`   — `analyze()`: the pipeline above as one total function → `ShellAnalysis`;
6. `rules`, `hazards` — command rules and built-in multi-command hazards;
7. `assess`     — `assess_command()`: analysis + rules + hazards + path policy → verdict.

`crosscheck` (a second parser, bashlex) is consulted by `assess` only for commands that
would run without a person.
"""

from __future__ import annotations

from safehold.policy.shell.analysis import (
    MAX_COMMAND_LENGTH,
    Redirect,
    ShellAnalysis,
    SimpleCommand,
    analyze,
)
from safehold.policy.shell.assess import CommandAssessment, assess_command
from safehold.policy.shell.programs.environment import is_dangerous_env
from safehold.policy.shell.words import Word

__all__ = [
    "MAX_COMMAND_LENGTH",
    "CommandAssessment",
    "Redirect",
    "ShellAnalysis",
    "SimpleCommand",
    "Word",
    "analyze",
    "assess_command",
    "is_dangerous_env",
]
