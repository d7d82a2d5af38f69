"""Inline Python read like a command: understood code runs on the host, the rest asks.

The attack corpus is tests/corpus/inline-python.toml; here: the reader's own rules, the
module list's reasons checked against the real modules, benign agent snippets on the host,
and a property that one forbidden node in otherwise allowed code is never understood.
"""

from __future__ import annotations

import ast
import importlib
import types
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import evaluate
from safehold.policy.shell.programs.python_modules import FILE_FUNCTIONS, MODULES
from safehold.policy.shell.python_code import (
    MAX_CODE_LENGTH,
    MAX_DEPTH,
    invocation_problem,
    read_python,
)

AUTO = SafetyConfig().with_mode("auto")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("key")
    monkeypatch.setenv("HOME", str(home))
    ws = home / "proj"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("x = 1\n")
    (ws / "mypkg").mkdir()
    (ws / "mypkg" / "__init__.py").write_text("__version__ = '1'\n")
    (ws / "data.json").write_text("{}")
    return ws


def decide(command: str, ws: Path, runner: str = "host") -> Decision:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    return evaluate(AUTO, call, workspace=str(ws), runner=runner)  # type: ignore[arg-type]


# -- the module list -----------------------------------------------------------------------

# What no listed module may hand out: a way to run programs, load native code, reach the
# network, or run code given as text.
_DANGEROUS_MODULES = frozenset(
    {"os", "sys", "subprocess", "socket", "ctypes", "importlib", "builtins", "pickle",
     "marshal", "shutil", "code", "codeop", "runpy", "pty", "multiprocessing", "signal",
     "urllib", "http", "ftplib", "smtplib", "io", "posix", "_posixsubprocess", "inspect",
     "types", "gc", "threading", "asyncio", "webbrowser", "pathlib", "tempfile", "glob"}
)  # fmt: skip
_DANGEROUS_CALLABLES = (exec, eval, compile, __import__, open, globals, locals, vars, getattr)
# Values from those modules that are plain types (`list[int]` is a `types.GenericAlias`).
_HARMLESS = frozenset({"GenericAlias", "DynamicClassAttribute", "MappingProxyType"})


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_listed_module_says_why_and_hands_out_nothing_dangerous(name: str) -> None:
    entry = MODULES[name]
    assert len(entry.why) > 20, "each entry says why it cannot run code or reach the network"
    if entry.installed:
        # An installed library is listed name by name, never whole (module docstring).
        assert entry.names is not None, name
        module = pytest.importorskip(name)
    else:
        module = importlib.import_module(name)
    names = (
        entry.names
        if entry.names is not None
        else {n for n in dir(module) if not n.startswith("_")}
    )
    for attr in names:
        value = getattr(module, attr)
        assert not any(value is f for f in _DANGEROUS_CALLABLES), f"{name}.{attr}"
        listed = getattr(value, "__name__", "") in MODULES or f"{name}.{attr}" in MODULES
        if isinstance(value, types.ModuleType) and not listed:
            # Another module reached through a listed one (`re.copyreg`, `shlex.os`): the
            # reader refuses the attribute.
            assert not read_python(f"import {name}\n{name}.{attr}").understood, f"{name}.{attr}"
        elif entry.names is None and attr not in _HARMLESS:
            home = getattr(value, "__module__", None) or ""
            own = home == name or home.startswith(name + ".")
            assert own or home.split(".")[0] not in _DANGEROUS_MODULES, f"{name}.{attr}"


@pytest.mark.parametrize(
    "name", sorted(n for n, m in MODULES.items() if m.names is None and not m.installed)
)
def test_a_module_listed_whole_leaves_out_its_command_line(name: str) -> None:
    # `ast.main()`, `base64.main()`: `python -m NAME`, reading the file `sys.argv` names.
    module = importlib.import_module(name)
    for attr in ("main", "test"):
        if callable(getattr(module, attr, None)):
            assert attr in MODULES[name].left_out, f"{name}.{attr}"
            assert not read_python(f"import {name}\n{name}.{attr}()").understood


# -- the reader ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "accesses"),
    [
        ("import sys; print(sys.version)", ()),
        ("import json\nprint(json.dumps({'a': [1, 2]}, indent=2))", ()),
        ("with open('src/app.py') as f:\n    print(f.read()[:200])", (("src/app.py", "read"),)),
        ("p = 'src/app.py'\ns = open(p).read()\nopen(p, 'w').write(s.replace('1', '2'))",
         (("src/app.py", "read"), ("src/app.py", "write"))),
        ("from pathlib import Path\nprint(Path('src', 'app.py').read_text())",
         (("src/app.py", "read"),)),
        ("import pathlib\nprint((pathlib.Path('src') / 'app.py').exists())",
         (("src/app.py", "read"),)),
        ("import os\nprint(open(os.path.join('src', 'app.py'), 'rb').read())",
         (("src/app.py", "read"),)),
        ("d = 'src'\nprint(open(f'{d}/app.py').read())", (("src/app.py", "read"),)),
        ("import re, ast\nt = ast.parse('x = 1')\nprint(re.sub(r'\\s+', ' ', ast.dump(t)))", ()),
        ("from collections import Counter\nprint(Counter('hello').most_common(2))", ()),
        ("class A:\n    def __init__(self):\n        self.x = 1\nprint(type(A()).__name__)", ()),
        # Installed libraries, name by name; their file functions judged by their path.
        ("import numpy as np\na = np.array([1.0, np.nan])\nprint(np.isnan(a).any(), np.__version__)",
         ()),
        ("import numpy as np\nnp.save('out', np.zeros(3))\nprint(np.load('out.npy').sum())",
         (("out", "write"), ("out.npy", "write"), ("out.npy", "read"))),
        ("from numpy import char as cs\nprint(cs.replace(['a-b'], '-', '_'))", ()),
        ("import pandas as pd\nt = pd.read_csv('data.csv', sep=';')\nt.to_csv('out.csv', index=False)\n"
         "print(t.to_string())", (("data.csv", "read"), ("out.csv", "write"))),
        ("from scipy import optimize\nprint(optimize.brentq(lambda x: x * x - 2, 0, 2))", ()),
        ("import numpy\nprint(dir(numpy))", ()),
        # Standard-library entries of round three.
        ("import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n"
         "        self.assertEqual(1, 1)\n"
         "s = unittest.TestLoader().loadTestsFromTestCase(T)\n"
         "print(unittest.TextTestRunner(verbosity=2).run(s).wasSuccessful())", ()),
        ("import inspect, json\nprint(inspect.signature(json.dumps))\n"
         "print(inspect.getsource(json.dumps)[:80])", ()),
        ("import operator\nprint(sorted([(1, 'b'), (0, 'a')], key=operator.itemgetter(1)))", ()),
        ("import os\nos.environ['DJANGO_SETTINGS_MODULE'] = 'tests.settings'", ()),
        ("import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'tests.settings')", ()),
        ("import sys\nsys.path.insert(0, '..')", (("..", "read"),)),
        # The code's own classes and their private attributes, `super().__init__`, the
        # class of a value printed or compared, a library's private method's source.
        ("class A:\n    def __init__(self):\n        self._n = 1\n    def __repr__(self):\n"
         "        return str(self._n)\nprint(A(), A()._n, type(A()).__name__)", ()),
        ("class E(Exception):\n    def __init__(self, m):\n        super().__init__(m)\n"
         "        self._m = m\n    def __len__(self):\n        return len(self._m)", ()),
        ("x = 1\nprint(type(x), type(x) is int, isinstance(x, type), x.__class__.__name__)", ()),
        ("import argparse, inspect\nprint(inspect.getsource(argparse.HelpFormatter._fill_text))",
         ()),
        ("import unittest\nfor t in unittest.TestSuite():\n    print('a' in t._testMethodName)",
         ()),
        ("import mypkg\nprint(mypkg._cache, mypkg.Model._meta.fields)", ()),
        ("from mypkg import Model\nm = Model.objects.first()\nprint(m._meta.pk)", ()),
        ("from mypkg import Model\nM = type('M', (Model,), {'__module__': '__main__'})\n"
         "print(M._meta)", ()),
        # pandas given functions, or the names of reductions.
        ("import pandas as pd\nt = pd.DataFrame({'a': [1]})\n"
         "print(t.agg(['sum', 'mean']), t.groupby('a').agg(n=('a', 'count')), t.apply(len))", ()),
        # Path methods of a literal path outside the list are reads of it.
        ("from pathlib import Path\nprint(Path('src').resolve(), Path('/srv').group())",
         (("src", "read"), ("/srv", "read"))),
    ],
)  # fmt: skip
def test_code_that_uses_only_listed_parts_is_understood(
    code: str, accesses: tuple[tuple[str, str], ...]
) -> None:
    reading = read_python(code)
    assert reading.understood, reading.why
    assert sorted(reading.accesses) == sorted(accesses)


@pytest.mark.parametrize(
    "code",
    [
        "import os\nos.system('id')",
        "import os.path\nos.system('id')",
        "from os import system\nsystem('id')",
        "import subprocess",
        "__import__('os')",
        "import os\ngetattr(os, 'sys' + 'tem')",
        "getattr(print, '__self__')",
        "().__class__.__bases__",
        "import shlex\nshlex.os",
        "import json\njson.decoder.sys",
        "open(input())",
        "open('x', opener=print)",
        "open('x', 'w', 1)",
        "m = input()\nopen('x', m)",
        "p = 'a'\np = '/etc/passwd'\nopen(p)",
        "from pathlib import Path\nPath.home().joinpath('.ssh').read_text()",
        "from pathlib import Path\nfor p in Path('.').glob('*'):\n    p.write_text('')",
        "from pathlib import Path\nPath('a').rename('b')",
        "from pathlib import Path\nx = Path('a')\nx.replace('b')\nx = 1",
        "import sys\nsys.stdout = None",
        "import json\njson.loads = print",
        "from . import x",
        "import functools\nfunctools.singledispatch",
        "try:\n    pass\nexcept Exception as p:\n    pass\np = 'a'\nopen(p)",
        "# -*- coding: utf-7 -*-\nprint(1)",
        "import numpy",
        # A module reached under another name, by a literal `getattr`, or rebound.
        "import os\ngetattr(os, 'system')('id')",
        "import os\nm = os\nm.system('id')",
        "import os\nprint([os][0])",
        "import json as j\nimport os as j\nj.system('id')",
        "import json\njson = 1",
        "import os\nls = os.listdir\nls('/srv')",
        "from os import listdir as ls\nls = ls\nls('/srv')",
        # A library's parts left out, its file functions turned to other uses.
        "import numpy as np\nnp.ctypeslib",
        "import numpy as np\nnp.zeros(1).ctypes",
        "import numpy as np\nnp.load('a.npy', allow_pickle=True)",
        "import numpy as np\nnp.load('a.npy', None, True)",
        "import numpy as np\nw = np.zeros(1).tofile\nw('x')",
        "import numpy as np\nnp.zeros(1).tofile(input())",
        "import numpy as np\nnp.loadtxt('https://x.example/t.txt')",
        "import pandas as pd\npd.DataFrame().query('a > 1')",
        "import pandas as pd\npd.read_pickle('m.pkl')",
        "import numpy.f2py",
        # Standard-library entries' left-out parts; dunder stores; string annotations.
        "import inspect\ninspect.getmembers(print)",
        "import inspect\ninspect.signature(print, eval_str=True)",
        "import unittest\nunittest.TestLoader().discover('.')",
        "import operator\noperator.attrgetter('__self__')",
        "import os\nprint(os.environ)",
        "import os\nos.environ['PYTHONPATH'] = '/tmp'",
        "import os\nos.environ['DJANGO_SETTINGS_MODULE'] = input()",
        "from os import environ",
        "__file__ = '/srv/notes.txt'",
        "class A:\n    __module__ = 'json'",
        # Private attributes of a library's values; classes of its values called, handed
        # around or re-initialised; smuggled keywords; hooks; functions named as text.
        "import unittest\nunittest.defaultTestLoader._get_module_from_name('os')",
        "import unittest\nld = unittest.TestLoader()\nld._top_level_dir",
        "import argparse\nf = argparse.HelpFormatter._fill_text",
        "import unittest\nprint(type(unittest.defaultTestLoader._top_level_dir).__name__)",
        "import sys\ntype(sys.stdout)(None)",
        "import sys\nc = type(sys.stdout)",
        "import sys\nc = sys.stdout.__class__",
        "import sys\nprint(type(sys.stdout).mro()[0])",
        "import sys\nc = getattr(sys.stdout, '__class__')",
        "import sys\nsys.stdout.__init__(None)",
        "import sys\ninit = sys.stdout.__init__",
        "import sys\nlist(map(type, [sys.stdout]))",
        "import functools\nfunctools.update_wrapper",
        "import functools\nfunctools.wraps",
        "x = dict(__globals__=1)",
        "d = {}\ndict(**d)",
        "class A:\n    def __getattr__(self, n):\n        return n",
        "class A:\n    def __init_subclass__(cls):\n        pass",
        "class A:\n    def __reduce__(self):\n        return (print, ())",
        "M = type('M', (), {'__getattr__': print})",
        "M = type('M', (), dict(a=1))",
        "import unittest\nclass L(unittest.TestLoader):\n    def f(self):\n"
        "        return self._get_module_from_name('os')",
        # A method of the code's own class handed another object as its `self`.
        "import unittest\nclass A:\n    def f(self):\n        return self._get_module_from_name('os')\n"
        "A.f(unittest.defaultTestLoader)",
        "import unittest\nclass A:\n    def f(self):\n        return self._get_module_from_name('os')\n"
        "g = getattr(A, 'f')\ng(unittest.defaultTestLoader)",
        "import unittest\ndef d(f):\n    f(unittest.defaultTestLoader)\n    return f\nclass A:\n"
        "    @d\n    def f(self):\n        return self._get_module_from_name('os')",
        "import sys\nclass A:\n    def f(self):\n        t = type(self)\n        return t('/x', 'a')\n"
        "A.f(sys.stdout.buffer.raw)",
        "import shlex\nshlex.shlex('a').sourcehook('/etc/hostname')",
        "import pandas as pd\npd.DataFrame().apply('to_csv', args=('x',))",
        "import pandas as pd\nf = 'to_pickle'\npd.DataFrame().agg(f, 'x')",
        "import pandas as pd\npd.DataFrame().agg({'a': ['sum', 'to_pickle']})",
        "import pandas as pd\npd.pivot_table(pd.DataFrame(), aggfunc='to_csv')",
        "import pandas as pd\npd.DataFrame().agg(''.join(['to_', 'csv']), 'x')",
        "from pathlib import Path\nfor p in [Path('a'), Path('/srv')]:\n    print(p.walk())",
        # A module a workspace module imported is that module, not the workspace's code.
        "import mypkg\nmypkg.os.system('id')",
        "from mypkg import os",
        "from mypkg import *\nos.system('id')",
        # Round 11: a workspace module's `Path` renamed; a file function or a traceback
        # printer under a builtin's name, or reached by `getattr`.
        "from mypkg import ROOT\n(ROOT / 'notes.txt').replace('.git/hooks/pre-commit')",
        "import mypkg\nr = mypkg.ROOT.replace\nr('CLAUDE.md')",
        "from os import listdir as print\nfor x in map(print, ['/root']):\n    len(x)",
        "from traceback import print_stack as repr\nlist(map(repr, [None]))",
        "import traceback\ng = getattr(traceback, 'print_stack')\ng(1)",
        "from traceback import print_tb",
        "import random\nrandom.main()",
    ],
)
def test_code_outside_the_list_is_not_understood(code: str) -> None:
    reading = read_python(code)
    assert not reading.understood, reading


def test_every_file_function_and_module_of_the_list_agree() -> None:
    # A function judged by its path is reachable only when its module lists it by name;
    # an installed library is never listed whole (its namespace holds native code).
    for dotted in FILE_FUNCTIONS:
        module, _, name = dotted.rpartition(".")
        names = MODULES[module].names
        assert names is None or name in names, dotted
        assert read_python(f"import {module}\n{dotted}").understood is False, dotted
    for name, entry in MODULES.items():
        assert not entry.installed or entry.names is not None, name
        assert "https://" in entry.why or not entry.installed, name


def test_code_past_the_bounds_is_not_understood() -> None:
    long = "x = 1\n" * (MAX_CODE_LENGTH // 6 + 1)
    assert len(long) > MAX_CODE_LENGTH
    assert not read_python(long).understood
    deep = "x = " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    assert read_python("x = " + "[" * 20 + "]" * 20).understood
    reading = read_python(deep)
    assert not reading.understood and "deeper" in reading.why, reading


@pytest.mark.parametrize(
    ("argv", "assignments", "ok"),
    [
        (("python3", "-c", "x"), (), True),
        (("python3", "-u", "-B", "-c", "x"), (), True),
        (("python3", "-uc", "x"), (), True),
        (("python3", "-W", "ignore::DeprecationWarning", "-c", "x"), (), True),
        (("python3", "-"), ("PYTHONUNBUFFERED=1",), True),
        (("python3", "-i", "-c", "x"), (), False),
        (("python3", "-ic", "x"), (), False),
        (("python3", "-X", "importtime", "-c", "x"), (), False),
        (("python3", "-W", "ignore::pkg.Warn", "-c", "x"), (), False),
        (("python3", "-c", "x"), ("PYTHONINSPECT=1",), False),
        (("python3", "-c", "x"), ("PYTHONSTARTUP=/tmp/x",), False),
    ],
)
def test_interpreter_options_that_change_what_runs(
    argv: tuple[str, ...], assignments: tuple[str, ...], ok: bool
) -> None:
    assert (invocation_problem(argv, assignments) is None) is ok


# -- decisions on the host -----------------------------------------------------------------

BENIGN = [
    "python -c 'import sys; print(sys.version)'",
    "python3 -c \"import json; print(json.load(open('data.json')))\"",
    "cd src && python3 - <<'PY'\nimport re\nprint(re.sub(r'\\s+$', '', open('app.py').read()))\nPY",
    "python3 -c \"\nimport ast\nwith open('src/app.py') as f:\n    print(ast.dump(ast.parse(f.read())))\n\"",
    "python - <<'PY'\nfrom pathlib import Path\np = Path('src/app.py')\np.write_text(p.read_text().replace('1', '2'))\nPY",
    "python -c \"import mypkg; print(mypkg.__version__)\"",
    "python3 -c \"import sys; sys.path.insert(0, '.'); import mypkg\"",
    "python3 -u -c \"print('done')\" 2>&1 | head -5",
    "python3 -c \"import numpy as np; print(np.isclose(np.array([1.0]), 1.0).all())\"",
    "python3 -c \"import sys; sys.path.insert(0, '.'); import mypkg; print(mypkg.__version__)\"",
    "cd src && python3 -c \"import sys; sys.path.insert(0, '..'); import mypkg\"",
    "python3 - <<'PY'\nimport os\nos.environ['DJANGO_SETTINGS_MODULE'] = 'mypkg.settings'\n"
    "import mypkg\nprint(mypkg.__version__)\nPY",
    # Format strings whose fields name arguments only, and a plain file mode.
    "python3 -c \"print('{:>10}|{:.2f}|{name}'.format('a', 1.5, name='x'))\"",
    "python3 -c \"t = '{} of {}'; print(t.format(1, 2), str.format('{:{w}}', 'a', w=5))\"",
    "python3 -c \"import pathlib; pathlib.Path('run.sh').chmod(0o755)\"",
    # The code's own class with private attributes; a workspace module's private names.
    "python3 - <<'PY'\nclass Box:\n    def __init__(self):\n        self._items = [1]\n"
    "    def __len__(self):\n        return len(self._items)\nprint(len(Box()))\nPY",
    "python3 -c \"import mypkg; print(mypkg._version, type(mypkg.__version__).__name__)\"",
]  # fmt: skip


@pytest.mark.parametrize("command", BENIGN)
def test_typical_agent_snippets_run_on_the_host(command: str, ws: Path) -> None:
    decision = decide(command, ws)
    assert decision.verdict is Verdict.ALLOW, decision.reasons


@pytest.mark.parametrize(
    ("command", "verdict", "code"),
    [
        ("python3 -c \"print(open('/etc/hostname').read())\"", Verdict.ASK, "path-outside-read"),
        ("python3 -c \"open('.git/hooks/pre-commit', 'w').write('id')\"", Verdict.ASK,
         "path-protected"),
        ("python3 -c \"import numpy; numpy.ctypeslib.load_library('x', '.')\"", Verdict.ASK,
         "not-understood"),
        ("python3 -c \"import sys; sys.path.append('../other')\"", Verdict.ASK, "not-understood"),
        ("cd /tmp && python3 -c \"import mypkg\"", Verdict.ASK, "not-understood"),
        ("python3 -c \"import os; print(os.listdir('/srv'))\"", Verdict.ASK, "path-outside-read"),
        ("perl -e 'print 1' && python3 -c 'print(1)'", Verdict.ASK, "inline-code"),
    ],
)  # fmt: skip
def test_what_the_code_does_is_judged_like_a_command(
    command: str, verdict: Verdict, code: str, ws: Path
) -> None:
    decision = decide(command, ws)
    assert decision.verdict is verdict, decision.reasons
    assert code in {r.code for r in decision.reasons}, decision.reasons


def test_a_denied_file_opened_by_the_code_is_denied(ws: Path) -> None:
    # `data.json` is harmless; the home's key, named only through a join, is not.
    home = ws.parent
    code = f"import os; print(open(os.path.join('{home}', '.ssh', 'id_rsa')).read())"
    decision = decide(f'python3 -c "{code}"', ws)
    assert decision.verdict is Verdict.DENY, decision.reasons
    assert any("python open" in r.message for r in decision.reasons), decision.reasons


def test_code_not_understood_runs_in_the_sandbox(ws: Path) -> None:
    command = "python3 -c \"import subprocess; print(subprocess.run(['ls']))\""
    assert decide(command, ws, runner="sandbox").verdict is Verdict.ALLOW
    host = decide(command, ws)
    assert host.verdict is Verdict.ASK
    assert {r.code for r in host.reasons} == {"not-understood"}


# -- the property ----------------------------------------------------------------------------

_NAMES = st.sampled_from(["a", "b", "total", "rows"])
_LEAVES: st.SearchStrategy[ast.expr] = st.one_of(
    st.integers(-5, 5).map(lambda n: ast.Constant(n)),
    st.text("abc xyz", max_size=5).map(lambda s: ast.Constant(s)),
    _NAMES.map(lambda n: ast.Name(n, ast.Load())),
)


def _call(func: str, args: list[ast.expr]) -> ast.expr:
    parts = func.split(".")
    target: ast.expr = ast.Name(parts[0], ast.Load())
    for part in parts[1:]:
        target = ast.Attribute(target, part, ast.Load())
    return ast.Call(target, args, [])


_ALLOWED_EXPR: st.SearchStrategy[ast.expr] = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda p: ast.BinOp(p[0], ast.Add(), p[1])),
        st.lists(inner, max_size=3).map(lambda xs: ast.List(xs, ast.Load())),
        st.tuples(st.sampled_from(["len", "str", "sorted", "json.dumps", "math.floor"]), inner).map(
            lambda p: _call(p[0], [p[1]])
        ),
        inner.map(lambda x: ast.Attribute(x, "upper", ast.Load())),
        st.tuples(inner, inner).map(lambda p: ast.Subscript(p[0], p[1], ast.Load())),
        inner.map(lambda x: ast.Lambda(_no_args(), x)),
    ),
    max_leaves=8,
)

# One forbidden node each: each alone in allowed code makes it not understood.
_FORBIDDEN: list[ast.expr] = [
    ast.parse(text, mode="eval").body
    for text in (
        "exec('1')", "eval('1')", "compile('1', 'x', 'exec')", "__import__('os')",
        "globals()", "vars()", "breakpoint()", "os.system('id')", "os.environ",
        "getattr(a, b)", "a.__globals__", "a.__dict__", "a.__subclasses__()",
        "a.__builtins__", "a.gi_frame", "sys.modules", "open(b)", "open(a + b)",
        "sys.path.insert(0, b)", "json.os", "a.subprocess", "os.path.expanduser('~')",
        "setattr(a, 'x', 1)", "input()", "help()",
        # Round three: a literal getattr checked as the attribute, a module handed
        # around, the environment read, value methods aliased or called on a computed file.
        "getattr(os, 'system')", "[os]", "os.environ.get('HOME')", "a.tofile(b)",
        "a.query('x')", "a.plot", "(a.tofile)", "os.listdir",
    )
]  # fmt: skip


def _no_args() -> ast.arguments:
    return ast.arguments([], [], None, [], [], None, [])


def _statements(exprs: list[ast.expr]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for i, e in enumerate(exprs):
        if i % 3 == 0:
            out.append(ast.Assign([ast.Name("a", ast.Store())], e))
        elif i % 3 == 1:
            out.append(ast.Expr(_call("print", [e])))
        else:
            out.append(ast.If(e, [ast.Expr(e)], []))
    return out


def _module(body: list[ast.stmt]) -> str:
    # Every import is used: a partly listed module imported and never used (`import os`
    # alone) is not understood, whatever follows.
    imports = ast.parse(
        "import json, math, os, sys\nprint(os.sep, sys.argv, json.dumps, math.pi)"
    ).body
    return ast.unparse(ast.fix_missing_locations(ast.Module([*imports, *body], [])))


@given(
    st.lists(_ALLOWED_EXPR, min_size=1, max_size=6),
    st.sampled_from(_FORBIDDEN),
    st.integers(0, 5),
    st.sampled_from(["statement", "argument", "function", "decorator", "lambda"]),
)
def test_one_forbidden_node_in_allowed_code_is_never_understood(
    exprs: list[ast.expr], forbidden: ast.expr, at: int, place: str
) -> None:
    allowed = _module(_statements(exprs))
    assert read_python(allowed).understood, allowed  # the subset itself is understood
    if place == "statement":
        node: ast.stmt = ast.Expr(forbidden)
    elif place == "argument":
        node = ast.Expr(_call("print", [exprs[0], forbidden]))
    elif place == "function":
        node = ast.FunctionDef("f", _no_args(), [ast.Return(forbidden)], [], None)
    elif place == "decorator":
        node = ast.FunctionDef("g", _no_args(), [ast.Pass()], [forbidden], None)
    else:
        node = ast.Expr(ast.Lambda(_no_args(), forbidden))
    body = _statements(exprs)
    body.insert(at % (len(body) + 1), node)
    code = _module(body)
    assert not read_python(code).understood, code


@pytest.mark.parametrize(
    ("code", "understood"),
    [
        ("import os", False),
        ("import os.path", False),
        ("import os, sys; print(sys.argv)", False),
        ("import os; print(os.getcwd())", True),
        ("import json", True),  # listed whole: nothing in it runs code
    ],
)
def test_a_partly_listed_module_is_understood_through_its_uses(code: str, understood: bool) -> None:
    # `os` is listed only for getcwd, listings and os.path; imported and never used,
    # nothing shows what the import is for (`python3 -c 'import os'` asks on the host).
    assert read_python(code).understood is understood
