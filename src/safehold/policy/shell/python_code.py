"""Inline Python read like a command: understood when it only uses listed, harmless parts.

`read_python(code)` parses the code with `ast` (never runs it) and walks the tree once,
level by level (pass 1: bindings, imports and parents; pass 2: each name, attribute, call
and definition against the list). The code is **understood** when every name it uses is a listed builtin
(`python_modules.ALLOWED_BUILTINS`), a listed module's allowed attribute
(`python_modules.MODULES`), a name the code binds itself, or comes from a module imported by
a static `import` of a name that is not in the standard library (`PythonReading.imports`,
which the caller accepts only when the workspace holds that module: docs/shell.md, "Inline
Python"). Every file the code opens is named by a literal path (a string, an f-string of
literals, `os.path.join` or `/` of literals, or a name bound once to one) and comes back in
`accesses` with its side, for the path policy to judge: `open`, `pathlib` methods, the
listed functions that take a path (`FILE_FUNCTIONS`: `os.listdir`, `numpy.save`,
`pandas.read_csv`, …) and the value methods that write one (`VALUE_METHODS`: `tofile`,
`to_csv`, …), each only when called directly.

A module name may only be looked into (`os.path`, a literal `getattr`, checked as the
attribute it names) or described (`dir(np)`); one name is bound to one module only; dunder
names and attributes are never assigned.

Anything else is not understood, with the first reason found: `exec`/`eval`/`compile`,
`__import__`, dunder attributes that reach code or the class tree, `getattr` with a computed
name, an attribute named like an unlisted module (`shlex.os`), frame attributes, a module
import outside the list, a relative import, a computed path, a change to a module's
attributes, code over `MAX_CODE_LENGTH` characters or nested deeper than `MAX_DEPTH`. A
library's values are kept at arm's length: their private attributes, their classes
(`type(x)`, `x.__class__`, `mro`) and their `__init__` only on what the code or the
workspace owns (`_trusted`), or printed and compared; the result of a call is not called;
`**` keywords, dunder keywords, hook methods outside `DUNDER_METHODS` and method names
given to pandas as text outside `NAMED_FUNCTIONS` are not understood.

Pure: no file system, no imports of the code's modules; remembered per code text.
"""

from __future__ import annotations

import ast
import builtins
import functools
import posixpath
import re
import sys
from dataclasses import dataclass
from string import Formatter

from safehold.policy.shell.programs.python_modules import (
    ALLOWED_BUILTINS,
    ALLOWED_ENV,
    ALLOWED_OPTIONS,
    CALL_SHAPES,
    DUNDER_METHODS,
    ENV_WRITES,
    FILE_FUNCTIONS,
    FUNCTION_NAME_KEYWORDS,
    FUNCTION_NAME_METHODS,
    MODULE_DUNDERS,
    MODULES,
    NAMED_FUNCTIONS,
    PATH_BUILDERS,
    PATH_KEYWORDS,
    PATH_METHODS,
    PURE_PATH_METHODS,
    SAFE_DUNDERS,
    VALUE_ATTRIBUTES,
    VALUE_METHODS,
    FileFunction,
)

__all__ = [
    "MAX_CODE_LENGTH",
    "MAX_DEPTH",
    "PythonReading",
    "cwd_first",
    "invocation_problem",
    "read_python",
]

MAX_CODE_LENGTH = 65_536
"""Longest code read (64 KiB); longer code is not understood."""
MAX_DEPTH = 100
"""Deepest syntax tree read; deeper code is not understood."""

_BUILTIN_NAMES = frozenset(dir(builtins))
_STDLIB = frozenset(sys.stdlib_module_names)
# Modules every attribute of which is listed: reachable as an attribute of another module.
_WHOLE = frozenset(name for name, m in MODULES.items() if m.names is None and "." not in name)
# Frame, code and generator internals reach globals and builtins without a dunder.
_FRAME_PREFIXES = ("gi_", "cr_", "ag_", "tb_", "f_", "co_")
_OPEN_KEYWORDS = frozenset({"mode", "encoding", "errors", "newline", "buffering"})
_PATH_CLASSES = frozenset(b for b in PATH_BUILDERS if b.startswith("pathlib."))
# Builtins that only describe a value given to them: a module passed to one is not handed
# out (`dir` returns its names as text; `getattr` with a computed name stays refused).
_DESCRIBERS = frozenset({"dir", "print", "repr", "str", "type", "id", "callable", "isinstance"})
# Names read only in the shapes `_check_sys_path` and `_check_environ` know.
_SHAPED = frozenset({"sys.path", "os.environ"})
# Dunders a literal `getattr` may name: descriptive strings, not the class or `__init__`
# (checked where they are read, `_check_class_of` and `_check_init`).
_GETATTR_DUNDERS = SAFE_DUNDERS - {"__class__", "__init__"}
# `inspect` functions that return text about an object (its source, its documentation).
_SOURCE_READERS = frozenset(
    {"inspect.getsource", "inspect.getsourcelines", "inspect.getdoc", "inspect.getcomments",
     "inspect.getsourcefile", "inspect.getfile"}
)  # fmt: skip
# `Path` methods that walk a tree: following links there lists what a link leads out to.
_WALKS = frozenset({"walk", "glob", "rglob"})
# A URL scheme at the start of a path (RFC 3986): pandas's readers open such a path with
# urllib (`file:/etc/passwd`, no `//` needed).
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
# Keys of the namespace of `type(name, bases, namespace)` besides `DUNDER_METHODS`.
_CLASS_KEYS = frozenset({"__module__", "__qualname__", "__doc__"})


@dataclass(frozen=True, slots=True)
class PythonReading:
    """What reading a piece of Python found.

    `understood` is False with `why` when the code uses anything outside the listed set.
    `accesses` are `(path, side)` pairs, side `"read"` or `"write"`; `imports` the top-level
    names of modules outside the standard library it imports; `search` the literal
    directories it adds to `sys.path`.
    """

    understood: bool
    why: str = ""
    accesses: tuple[tuple[str, str], ...] = ()
    imports: tuple[str, ...] = ()
    search: tuple[str, ...] = ()


class _NotUnderstood(Exception):
    pass


@functools.lru_cache(maxsize=256)
def read_python(code: str) -> PythonReading:
    """Read `code`; never raises (a failure is a reading that is not understood)."""
    if len(code) > MAX_CODE_LENGTH:
        return PythonReading(False, f"the code is longer than {MAX_CODE_LENGTH} characters")
    for line in code.split("\n", 2)[:2]:
        if line.lstrip().startswith("#") and "coding" in line:
            # Read from stdin, the source is decoded by its declared encoding (`utf-7`
            # hides code in what looks like a string); from `-c`, it is not.
            return PythonReading(False, "the code declares a source encoding")
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return PythonReading(False, f"the code does not parse as Python ({type(exc).__name__})")
    try:
        return _Reader(tree).read()
    except _NotUnderstood as exc:
        return PythonReading(False, str(exc))
    except RecursionError:
        return PythonReading(False, "the code nests too deeply to read")


def invocation_problem(argv: tuple[str, ...], assignments: tuple[str, ...]) -> str | None:
    """Why the interpreter's options or `PYTHON*` variables change what it runs, or None.

    Options are read up to the code flag, `-` or the first operand: `python -i -c CODE`
    reads a program from stdin after CODE; `-W ignore::pkg.Warning` imports `pkg`.
    """
    for assignment in assignments:
        name = assignment.split("=", 1)[0]
        if name.startswith("PYTHON") and name not in ALLOWED_ENV:
            return f"`{name}` changes what the interpreter runs"
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "-" or not word.startswith("-"):
            return None
        if word.startswith("-W"):
            value = word[2:] or (argv[i + 1] if i + 1 < len(argv) else "")
            if "." in value:
                return f"`-W {value}` may import a module to find a warning category"
            i += 1 if word[2:] else 2
            continue
        letters = word[1:]
        flags = letters[:-1] if letters.endswith("c") else letters
        if not letters or any(ch not in ALLOWED_OPTIONS for ch in flags):
            return f"the interpreter option `{word}` is not in the list"
        if letters.endswith("c"):
            return None
        i += 1
    return None


def cwd_first(argv: tuple[str, ...], assignments: tuple[str, ...]) -> bool:
    """True when Python puts the directory it runs in first on `sys.path` (for `-c`, `-m`,
    stdin): no `-I` or `-P` among its options and no `PYTHONSAFEPATH` set
    (https://docs.python.org/3/using/cmdline.html#cmdoption-P). Options are read up to the
    code flag, `-m`, `-` or the first operand, as `invocation_problem` reads them.
    """
    if any(a.split("=", 1)[0] == "PYTHONSAFEPATH" for a in assignments):
        return False
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "-" or not word.startswith("-") or word.startswith("--"):
            return True
        letters = word[1:]
        for k, letter in enumerate(letters):
            if letter in "IP":
                return False
            if letter in "cmWX":  # the rest of the word, or the next word, is the value
                if letter in "cm":
                    return True
                i += 1 if letters[k + 1 :] else 2
                break
        else:
            i += 1
    return True


# Methods that return text, never a `Path`: `.replace` on their result is `str.replace`.
_TEXT_METHODS = frozenset(
    {"read_text", "read", "decode", "strip", "lstrip", "rstrip", "lower", "upper", "replace",
     "format", "join", "getvalue", "dumps"}
)  # fmt: skip


# `str.format` and `format_map` read attributes and items named in the format string at
# run time (`"{0.__init__.__globals__[os].environ}".format(f)`): a path through objects
# that no attribute node shows. Only fields that name an argument, nothing after it, pass.
_FORMAT_METHODS = frozenset({"format", "format_map"})
_FORMATTER = Formatter()


def _plain_format(text: str, depth: int = 0) -> bool:
    """True when every replacement field of the format string `text` names an argument and
    reads no attribute or item of it, its format spec included (nested fields, one level
    deep as Python allows). One pass of the C scanner per level."""
    if depth > 1:
        return False
    try:
        for _literal, field, spec, _conversion in _FORMATTER.parse(text):
            if field is not None and ("." in field or "[" in field):
                return False
            if spec and "{" in spec and not _plain_format(spec, depth + 1):
                return False
    except ValueError:
        return False
    return True


def _text(node: ast.expr) -> bool:
    """True when `node` is certainly text (a string, an f-string, a text method's result)."""
    if isinstance(node, (ast.Constant, ast.JoinedStr)):
        return True
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _TEXT_METHODS
    )


def _fail(why: str) -> _NotUnderstood:
    return _NotUnderstood(why)


# Fields of a node class that never hold a node worth reading: names and numbers, the
# expression context and the operators (singleton nodes with nothing inside).
_SCALAR_FIELDS = frozenset(
    {"ctx", "id", "attr", "name", "arg", "asname", "module", "level", "kind", "conversion",
     "type_comment", "is_async", "simple", "op", "ops", "rest", "tag"}
)  # fmt: skip
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    """The fields of `cls` that may hold child nodes (remembered per class)."""
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        names = getattr(cls, "_fields", ())
        if cls is ast.Constant:
            names = ()
        fields = _CHILD_FIELDS[cls] = tuple(f for f in names if f not in _SCALAR_FIELDS)
    return fields


_NAMED_BINDINGS = (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)
# What pass 1 does with a node of each class: a name (checked, and a binding when not
# read), a node pass 2 checks, or a binding or import to note. Other classes: nothing.
_NAME, _CHECKED, _DEFINITION, _BINDING = 1, 2, 3, 4
_KINDS: dict[type, int] = {
    ast.Name: _NAME,
    ast.Attribute: _CHECKED,
    ast.Call: _CHECKED,
    ast.FunctionDef: _DEFINITION,
    ast.AsyncFunctionDef: _DEFINITION,
    ast.ClassDef: _DEFINITION,
    ast.Assign: _BINDING,
    ast.arg: _BINDING,
    ast.Import: _BINDING,
    ast.ImportFrom: _BINDING,
    ast.ExceptHandler: _BINDING,
    ast.MatchAs: _BINDING,
    ast.MatchStar: _BINDING,
    ast.MatchMapping: _BINDING,
    ast.Global: _BINDING,
    ast.Nonlocal: _BINDING,
}


class _Reader:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.parent: dict[int, ast.AST] = {}
        self.modules: dict[str, str] = {}  # bound name -> dotted module name
        self.module_binds: dict[str, int] = {}  # times each module name is bound by import
        self.names: dict[str, str] = {}  # name bound by `from m import x` -> `m.x`
        self.stores: dict[str, int] = {}
        self.values: dict[str, ast.expr] = {}
        self.texts: dict[str, int] = {}  # bindings of a name to certain text
        self.accesses: list[tuple[str, str]] = []
        self.imports: list[str] = []
        self.search: list[str] = []
        self.pathlib = False
        # Packages bound by importing a listed submodule (`urllib`): only listed
        # submodules may be reached through them.
        self.packages: set[str] = set()
        self.used: set[str] = set()  # names read somewhere in the code
        self.calls: set[int] = set()  # ids of the expressions called (`f` of `f(x)`)
        # Names bound by `from <workspace module> import x`: the workspace's own code.
        self.foreign: set[str] = set()
        # Classes and functions the code defines, by name (`_trusted`).
        self.classes: dict[str, ast.ClassDef] = {}
        self.functions: set[str] = set()
        self.own_classes: dict[str, bool] = {}
        self.own_params: frozenset[str] | None = None
        self.checked: list[ast.AST] = []  # the nodes pass 2 checks

    def read(self) -> PythonReading:
        check_name, check_attribute, check_call = (
            self._check_name,
            self._check_attribute,
            self._check_call,
        )
        self.checked = self._collect()
        for node in self.checked:
            cls = type(node)  # `_check`, dispatched here: it runs for every name and call
            if cls is ast.Name:
                check_name(node)  # type: ignore[arg-type]
            elif cls is ast.Attribute:
                check_attribute(node)  # type: ignore[arg-type]
            elif cls is ast.Call:
                check_call(node)  # type: ignore[arg-type]
            else:
                self._check(node)
        for name, module in self.modules.items():
            if self.stores.get(name, 0) != self.module_binds.get(name, 0):
                # `import json as o; import os as o`, `json = os`: which module the name
                # holds depends on the order the code runs in.
                raise _fail(f"the code binds `{name}` to a module and to something else")
            # A module the list allows only in part (`os`: getcwd and listings, never
            # system) is understood through its uses; bound and never used, nothing shows
            # what the import is for (`python3 -c 'import os'`), so it is not understood.
            # So is an installed library's (`python3 -c 'import numpy'`), listed in part.
            listed = MODULES.get(module)
            if listed is not None and listed.names is not None and name not in self.used:
                raise _fail(f"the code imports `{module}` and never uses it")
        return PythonReading(
            True,
            accesses=tuple(dict.fromkeys(self.accesses)),
            imports=tuple(dict.fromkeys(self.imports)),
            search=tuple(dict.fromkeys(self.search)),
        )

    def _store(self, name: str, n: int = 1) -> None:
        self.stores[name] = self.stores.get(name, 0) + n

    # -- pass 1: every node, parents, bindings and imports -------------------------------
    def _collect(self) -> list[ast.AST]:
        """The nodes pass 2 checks (names, attributes, calls, definitions), with every
        node's parent, the bindings and the imports noted on the way. Level by level, each
        node's children found through its class's child fields (`_child_fields`)."""
        out: list[ast.AST] = []
        keep = out.append
        parent = self.parent
        stores = self.stores
        calls = self.calls
        fields_of = _CHILD_FIELDS
        kinds = _KINDS
        node_class, load, call_class = ast.AST, ast.Load, ast.Call
        level: list[ast.AST] = [self.tree]
        depth = 0
        while level:
            if depth > MAX_DEPTH:
                raise _fail(f"the code nests deeper than {MAX_DEPTH} levels")
            depth += 1
            below: list[ast.AST] = []
            push = below.append
            for node in level:
                cls = type(node)
                fields = fields_of.get(cls)
                if fields is None:
                    fields = _child_fields(cls)
                for field in fields:
                    value = getattr(node, field, None)
                    if type(value) is list:
                        for child in value:
                            if isinstance(child, node_class):
                                parent[id(child)] = node
                                push(child)
                    elif isinstance(value, node_class):
                        parent[id(value)] = node
                        push(value)
                kind = kinds.get(cls)
                if kind is None:
                    continue
                if kind == _NAME:
                    keep(node)
                    if type(node.ctx) is not load:  # type: ignore[attr-defined]
                        name = node.id  # type: ignore[attr-defined]
                        stores[name] = stores.get(name, 0) + 1
                elif kind == _CHECKED:
                    keep(node)
                    if cls is call_class:
                        calls.add(id(node.func))  # type: ignore[attr-defined]
                elif kind == _DEFINITION:
                    keep(node)
                    self._store(node.name)  # type: ignore[attr-defined]
                    if cls is ast.ClassDef:
                        self.classes[node.name] = node  # type: ignore[attr-defined,assignment]
                    else:
                        self.functions.add(node.name)  # type: ignore[attr-defined]
                else:
                    self._note(node, cls)
            level = below
        return out

    def _note(self, node: ast.AST, cls: type) -> None:
        """Bindings and imports of a statement or binding node."""
        if cls is ast.Assign:
            self._note_assign(node)  # type: ignore[arg-type]
        elif cls is ast.arg:
            self._store(node.arg)  # type: ignore[attr-defined]
        elif cls is ast.Import or cls is ast.ImportFrom:
            self._bind_import(node)  # type: ignore[arg-type]
        elif cls in _NAMED_BINDINGS:
            if node.name is not None:  # type: ignore[attr-defined]
                self._store(node.name)  # type: ignore[attr-defined]
        elif cls is ast.MatchMapping:
            if node.rest is not None:  # type: ignore[attr-defined]
                self._store(node.rest)  # type: ignore[attr-defined]
        else:  # Global, Nonlocal
            for name in node.names:  # type: ignore[attr-defined]
                self._store(name, 2)

    def _note_assign(self, node: ast.Assign) -> None:
        if len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                self.values[target.id] = node.value
                if _text(node.value):
                    self.texts[target.id] = self.texts.get(target.id, 0) + 1

    def _bind(self, name: str, module: str) -> None:
        if self.modules.get(name, module) != module:
            raise _fail(f"the code binds `{name}` to two modules")
        self.modules[name] = module
        self.module_binds[name] = self.module_binds.get(name, 0) + 1
        self._store(name)

    def _bind_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.ImportFrom):
            if node.level or node.module is None:
                raise _fail("the code makes a relative import")
            self._allow_module(node.module)
            listed = MODULES.get(node.module)
            for alias in node.names:
                if listed is None:
                    if alias.name in _STDLIB and alias.name not in _WHOLE:
                        # `from mypkg import os`: the module mypkg imported, not its code.
                        raise _fail(
                            f"the code imports the module `{alias.name}` through `{node.module}`"
                        )
                    self.foreign.add(alias.asname or alias.name)
                    continue  # a workspace module's names: its own code
                if alias.name == "*":
                    # The names a `*` import binds show in no node: `from ast import *`
                    # binds `sys`, the module ast imported.
                    raise _fail(f"the code imports every name of `{node.module}`")
                self._allow_attribute(node.module, alias.name)
                dotted = f"{node.module}.{alias.name}"
                if dotted in _SHAPED:
                    raise _fail(f"the code imports `{dotted}`, read only in known shapes")
                if dotted in MODULES:
                    self._bind(alias.asname or alias.name, dotted)
                else:
                    self.names[alias.asname or alias.name] = dotted
                    self._store(alias.asname or alias.name)
            return
        for alias in node.names:
            self._allow_module(alias.name)
            if alias.asname:
                self._bind(alias.asname, alias.name)
            else:
                top = alias.name.split(".", 1)[0]
                self._bind(top, top)
                if alias.name in MODULES and top not in MODULES:
                    self.packages.add(top)  # `import urllib.parse` binds `urllib`

    def _allow_module(self, dotted: str) -> None:
        top = dotted.split(".", 1)[0]
        if top == "pathlib":
            self.pathlib = True
        if dotted in MODULES:
            return
        if top in _STDLIB or top.startswith("_") or top in MODULES:
            raise _fail(f"the code imports `{dotted}`, which is not in the list of modules")
        self.imports.append(top)

    @staticmethod
    def _allow_attribute(module: str, attr: str) -> None:
        listed = MODULES[module]
        if attr in MODULE_DUNDERS:
            return
        if (
            attr.startswith("_")
            or (listed.names is not None and attr not in listed.names)
            or attr in listed.left_out
            or (attr in _STDLIB and attr not in _WHOLE and f"{module}.{attr}" not in MODULES)
        ):
            raise _fail(f"the code uses `{module}.{attr}`, which is not in the list")

    # -- pass 2: each node against the list --------------------------------------------
    def _check(self, node: ast.AST) -> None:
        cls = type(node)
        if cls is ast.Name:
            self._check_name(node)  # type: ignore[arg-type]
        elif cls is ast.Attribute:
            self._check_attribute(node)  # type: ignore[arg-type]
        elif cls is ast.Call:
            self._check_call(node)  # type: ignore[arg-type]
        elif node.name in _BUILTIN_NAMES and node.name not in ALLOWED_BUILTINS:  # type: ignore[attr-defined]
            raise _fail(f"the code redefines the builtin `{node.name}`")  # type: ignore[attr-defined]
        elif (
            cls is not ast.ClassDef
            and node.name.startswith("__")  # type: ignore[attr-defined]
            and node.name.endswith("__")  # type: ignore[attr-defined]
            and node.name not in DUNDER_METHODS  # type: ignore[attr-defined]
        ):
            # `__getattr__`, `__set_name__`, `__reduce__`, …: called by the interpreter or
            # a library with values the code never names.
            raise _fail(f"the code defines the method `{node.name}`")  # type: ignore[attr-defined]

    def _check_name(self, node: ast.Name) -> None:
        name = node.id
        load = type(node.ctx) is ast.Load
        if load:
            self.used.add(name)
        if name.startswith("__") and (name not in SAFE_DUNDERS or not load):
            raise _fail(f"the code uses `{name}`")
        if name in self.modules:
            if load and not self._reached(node):
                raise _fail(f"the code hands the module `{self.modules[name]}` around")
            return
        if (
            "*" in self.foreign
            and name in _STDLIB
            and name not in _WHOLE
            and name not in self.stores
        ):
            # `from mypkg import *` may bind `os`: a module, not the workspace's code.
            raise _fail(f"the code uses `{name}`, which a `*` import may bind to a module")
        # Before the builtins: `from os import listdir as print` is `os.listdir`.
        dotted = self.names.get(name)
        if (
            dotted is not None
            and (dotted in FILE_FUNCTIONS or dotted in _SHAPED or dotted in CALL_SHAPES)
            and (self.stores.get(name) != 1 or (load and id(node) not in self.calls))
        ):
            raise _fail(f"the code uses `{dotted}` other than by calling it")
        if name in ALLOWED_BUILTINS:
            if (
                name == "type"
                and load
                and id(node) not in self.calls
                and name not in self.stores
                and not self._shown(node)
            ):
                # `map(type, [stream])` hands out classes `_check_class_of` never sees.
                raise _fail("the code uses `type` other than by calling it")
            return
        if name in _BUILTIN_NAMES:
            if name in ("open", "getattr", "hasattr") and id(node) in self.calls:
                return  # read apart in `_check_call`
            raise _fail(f"the code uses the builtin `{name}`")

    def _reached(self, node: ast.expr) -> bool:
        """True when a module expression is only looked into: the value of an attribute,
        an argument of a builtin that describes it (`_DESCRIBERS`), or the object of a
        `getattr`/`hasattr` with a literal name (checked as an attribute)."""
        up = self.parent.get(id(node))
        if isinstance(up, ast.Attribute) or (isinstance(up, ast.Call) and self._described(node)):
            return True  # `os.path`, `dir(np)`, `print(json)`: names and text, not the module
        return (
            isinstance(up, ast.Call)
            and isinstance(up.func, ast.Name)
            and up.func.id in ("getattr", "hasattr")
            and bool(up.args)
            and up.args[0] is node
        )

    def _described(self, node: ast.expr) -> bool:
        """True when a value is only looked into or described: the value of an attribute,
        an argument of a `_DESCRIBERS` builtin, or a part of an f-string."""
        up = self.parent.get(id(node))
        return isinstance(up, (ast.Attribute, ast.FormattedValue)) or (
            isinstance(up, ast.Call)
            and isinstance(up.func, ast.Name)
            and up.func.id in _DESCRIBERS
            and up.func.id not in self.stores
            and node in up.args
        )

    def _module_of(self, node: ast.expr) -> str | None:
        """The dotted module an expression names (`os.path`), or None."""
        if isinstance(node, ast.Name):
            return self.modules.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self._module_of(node.value)
            if base is not None and f"{base}.{node.attr}" in MODULES:
                return f"{base}.{node.attr}"
        return None

    def _qualified(self, node: ast.expr) -> str | None:
        """`module.attr` for an attribute of a listed module (`os.path.join`), or None."""
        if isinstance(node, ast.Name) and self.stores.get(node.id) == 1:
            return self.names.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self._module_of(node.value)
            if base is not None:
                return f"{base}.{node.attr}"
        return None

    def _check_attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if attr.startswith("__") and (attr not in SAFE_DUNDERS or type(node.ctx) is not ast.Load):
            raise _fail(f"the code reads the attribute `{attr}`")
        if attr.startswith(_FRAME_PREFIXES):
            raise _fail(f"the code reads the interpreter attribute `{attr}`")
        if attr == "__class__":
            self._check_class_of(node, node.value)
        elif attr == "__init__":
            self._check_init(node)
        elif attr == "mro":
            self._check_mro(node)
        module = self._module_of(node.value)
        if module is not None:
            if type(node.ctx) is not ast.Load:
                raise _fail(f"the code changes the module `{module}`")
            dotted = f"{module}.{attr}"
            if module in self.packages and dotted not in MODULES:
                raise _fail(f"the code uses `{dotted}`, which is not in the list")
            if module in MODULES:
                self._allow_attribute(module, attr)
            elif attr in _STDLIB and attr not in _WHOLE and dotted not in MODULES:
                # `mypkg.os`: a module the workspace's module imported, not its code.
                raise _fail(f"the code reaches the module `{attr}` through `{module}`")
            if dotted in MODULES and not self._reached(node):
                raise _fail(f"the code hands the module `{dotted}` around")
            if dotted == "sys.path":
                self._check_sys_path(node)
            elif dotted == "os.environ":
                self._check_environ(node)
            elif (dotted in FILE_FUNCTIONS or dotted in CALL_SHAPES) and id(node) not in self.calls:
                raise _fail(f"the code uses `{dotted}` other than by calling it")
            return
        if attr in _STDLIB and attr not in _WHOLE:
            raise _fail(f"the code reaches the module `{attr}` through an attribute")
        if (
            attr[0] == "_"
            and not attr.startswith("__")
            and not self._shown(node)
            and not self._trusted(node.value)
        ):
            # A library's internals (`defaultTestLoader._get_module_from_name` imports any
            # module): only on the code's own classes and the workspace's modules.
            raise _fail(f"the code uses the private attribute `{attr}`")
        if attr in _FORMAT_METHODS and id(node) not in self.calls:
            raise _fail(f"the code uses `{attr}` other than by calling it")
        if attr in VALUE_ATTRIBUTES:
            raise _fail(f"the code uses `{attr}`, which imports a plotting library")
        if (
            attr in VALUE_METHODS
            and id(node) not in self.calls
            and (VALUE_METHODS[attr] is not None or not self._described(node))
        ):
            raise _fail(f"the code uses `{attr}` other than by calling it")
        if (
            (attr in PATH_METHODS or (attr == "replace" and (self.pathlib or bool(self.imports))))
            and id(node) not in self.calls
            and not self._described(node)
            and not (attr == "replace" and self._is_text(node.value))
        ):
            # `w = Path(P).write_text; w(x)`, `map(Path.read_text, [...])`: the path is
            # judged where the method is called on it, and here it is not.
            raise _fail(f"the code uses the path method `{attr}` other than by calling it")

    def _trusted(self, node: ast.expr, own: bool = True, depth: int = 0) -> bool:
        """True when a value certainly comes from the workspace's own modules, or (`own`) is
        one of the code's own classes or functions, an instance of such a class made
        here, or the `self`/`cls` of one of its methods. An attribute or item of the
        code's own objects may hold anything the code put there, so it is not `own`."""
        if depth > 16:
            return False
        if isinstance(node, ast.Name):
            name = node.id
            module = self.modules.get(name)
            if module is not None:
                return module not in MODULES  # a workspace module
            count = self.stores.get(name, 0)
            if name in self.foreign:
                return count == 0
            if count == 0 and name not in _BUILTIN_NAMES:
                return True  # bound nowhere: reading it raises `NameError`
            if own and count == 1:
                if name in self.functions:
                    return True
                definition = self.classes.get(name)
                if definition is not None:
                    return self._own_class(definition, depth)
            if own and name in self._own_params():
                return True
            value = self.values.get(name)
            return count == 1 and value is not None and self._trusted(value, own, depth + 1)
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            return self._trusted(node.value, False, depth + 1)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "type" and "type" not in self.stores:
                if len(node.args) == 1:  # the class of a trusted value
                    return self._trusted(node.args[0], own, depth + 1)
                bases = node.args[1] if len(node.args) == 3 else None
                return (  # a class made here from trusted bases
                    own and isinstance(bases, ast.Tuple) and self._trusted_bases(bases.elts, depth)
                )
            return self._trusted(func, own, depth + 1)
        return False

    def _own_class(self, node: ast.ClassDef, depth: int) -> bool:
        """True when a class of the code derives only from builtins (no private or
        dangerous attributes), its own classes or the workspace's: its instances' private
        attributes are its own. Remembered per name."""
        known = self.own_classes.get(node.name)
        if known is None:
            self.own_classes[node.name] = False  # a class naming itself among its bases
            known = not node.keywords and self._trusted_bases(node.bases, depth)
            self.own_classes[node.name] = known
        return known

    def _trusted_bases(self, bases: list[ast.expr], depth: int) -> bool:
        """True when every base class is a builtin but `type`, or trusted (`_trusted`)."""
        return all(
            (
                isinstance(base, ast.Name)
                and base.id in ALLOWED_BUILTINS
                and base.id != "type"
                and base.id not in self.stores
            )
            or self._trusted(base, True, depth + 1)
            for base in bases
        )

    def _shown(self, node: ast.expr) -> bool:
        """True when a value only becomes text or a truth value: printed or formatted
        (`_DESCRIBERS`, an f-string), compared, or handed to an `inspect` function that
        returns its source or documentation (`_SOURCE_READERS`); either branch of a
        conditional expression in such a place too."""
        up = self.parent.get(id(node))
        while isinstance(up, ast.IfExp) and up.test is not node:
            node, up = up, self.parent.get(id(up))
        if isinstance(up, (ast.FormattedValue, ast.Compare)):
            return True
        if not isinstance(up, ast.Call) or node not in up.args:
            return False
        func = up.func
        if isinstance(func, ast.Name):
            # Not `type`: the class of a library's internal value is no text.
            return func.id in _DESCRIBERS and func.id != "type" and func.id not in self.stores
        return self._qualified(func) in _SOURCE_READERS

    def _own_params(self) -> frozenset[str]:
        """Names bound only as the `self` of methods of the code's own classes, when no
        method can be handed another object: methods without decorators (or `property`),
        each reached only through an instance (`self.m`, `A().m`, `a.m` of `a = A()`,
        `super().m`). `A.m(stream)` or `type(a).m(stream)` would make `stream` the `self`."""
        if self.own_params is None:
            counts: dict[str, int] = {}
            methods: set[str] = set()
            for name, definition in self.classes.items():
                if self.stores.get(name) != 1 or not self._own_class(definition, 0):
                    continue
                for stmt in definition.body:
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and all(
                        isinstance(d, ast.Name) and d.id == "property" for d in stmt.decorator_list
                    ):
                        params = stmt.args.posonlyargs or stmt.args.args
                        if params:
                            first = params[0].arg
                            counts[first] = counts.get(first, 0) + 1
                            methods.add(stmt.name)
            own = frozenset(n for n, c in counts.items() if self.stores.get(n, 0) == c)
            self.own_params = own
            for node in self.checked:
                if isinstance(node, ast.Attribute) and node.attr in methods:
                    receiver: ast.expr | None = node.value
                elif (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr")
                    and len(node.args) > 1
                    and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in methods
                ):
                    receiver = node.args[0]
                else:
                    continue
                if not self._instance(receiver, own):
                    self.own_params = frozenset()
                    break
        return self.own_params

    def _instance(self, node: ast.expr | None, own: frozenset[str]) -> bool:
        """True when `node` is certainly an instance of one of the code's own classes, or
        `super()`: its methods are bound to it."""
        if isinstance(node, ast.Name):
            if node.id in own:
                return True
            value = self.values.get(node.id)
            if self.stores.get(node.id) != 1 or value is None:
                return False
            node = value
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            return False
        func = node.func.id
        if func == "super":
            return "super" not in self.stores
        return func in self.classes and self.stores.get(func) == 1

    def _check_class_of(self, node: ast.expr, value: ast.expr) -> None:
        """`type(x)` and `x.__class__`: the class of a library's value may be called
        (`type(sys.stdout.buffer.raw)(PATH, 'a')` is `io.FileIO`); only described,
        compared or looked into, unless the value is the code's or the workspace's."""
        if self._described(node) or self._shown(node) or self._trusted(value):
            return
        raise _fail("the code uses the class of a value it does not define")

    def _check_init(self, node: ast.Attribute) -> None:
        """`x.__init__(…)` runs a value's initialiser again (a stream's `__init__` opens the
        file it names): only `super().__init__`, a look at it, or the code's own."""
        value = node.value
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "super"
            and "super" not in self.stores
            and (not value.args or self._trusted(value.args[0]))
        ):
            return
        if (id(node) not in self.calls and self._described(node)) or self._trusted(value):
            return
        raise _fail("the code uses `__init__` of a value it does not define")

    def _check_mro(self, node: ast.Attribute) -> None:
        """`cls.mro()` hands out the class itself and its bases: only printed or the code's
        own."""
        call = self.parent.get(id(node))
        if isinstance(call, ast.Call) and call.func is node and self._described(call):
            return
        if not self._trusted(node.value):
            raise _fail("the code uses `mro` of a class it does not define")

    def _check_environ(self, node: ast.Attribute) -> None:
        """`os.environ[K] = 'v'` or `os.environ.setdefault(K, 'v')` for a K in `ENV_WRITES`;
        nothing else (the environment holds secrets, and some of it changes what runs)."""
        up = self.parent.get(id(node))
        key: ast.expr | None = None
        value: ast.expr | None = None
        if isinstance(up, ast.Subscript) and type(up.ctx) is ast.Store:
            assign = self.parent.get(id(up))
            if isinstance(assign, ast.Assign) and assign.targets == [up]:
                key, value = up.slice, assign.value
        elif isinstance(up, ast.Attribute) and up.attr == "setdefault":
            call = self.parent.get(id(up))
            if (
                isinstance(call, ast.Call)
                and call.func is up
                and len(call.args) == 2
                and not call.keywords
            ):
                key, value = call.args
        if not (
            isinstance(key, ast.Constant)
            and key.value in ENV_WRITES
            and isinstance(value, ast.Constant)
            and isinstance(value.value, str)
        ):
            raise _fail("the code uses `os.environ` other than to set a listed variable")

    def _check_sys_path(self, node: ast.Attribute) -> None:
        method = self.parent.get(id(node))
        call = self.parent.get(id(method)) if method is not None else None
        if not (
            isinstance(method, ast.Attribute)
            and method.attr in ("insert", "append")
            and isinstance(call, ast.Call)
            and call.func is method
            and not call.keywords
            and call.args
        ):
            raise _fail("the code uses `sys.path` other than to add a workspace directory")
        path = self._literal(call.args[-1])
        if path is None:
            raise _fail("the code adds a directory it computes to `sys.path`")
        # Where the directory is (it must be inside the workspace) is the caller's to judge.
        self.search.append(path[0])
        self._access(path[0], "read")

    def _access(self, path: str, side: str) -> None:
        if "://" in path or _SCHEME.match(path):
            # `pandas.read_csv('file:/etc/passwd')` opens a `file:` URL through urllib.
            raise _fail(f"the code opens `{path[:60]}`, which names a URL")
        self.accesses.append((path, side))

    def _check_call(self, node: ast.Call) -> None:
        func = node.func
        for kw in node.keywords:
            arg = kw.arg
            if arg is None:
                # `**{'eval_str': True}`, `**{'__globals__': g}`: keywords no node shows.
                if not self._trusted(func):
                    raise _fail("the code passes `**` keywords to a function it does not define")
            elif arg == "eval_str":
                raise _fail("the code asks for string annotations to be evaluated")
            elif arg.startswith("__"):
                raise _fail(f"the code passes the keyword `{arg}`")
            elif arg in FUNCTION_NAME_KEYWORDS:
                self._check_function_names(kw.value, arg)
        if isinstance(func, ast.Name) and func.id not in self.stores:
            if func.id == "open":
                self._open(node.args[:1], node.args[1:], node.keywords)
            elif func.id in ("getattr", "hasattr"):
                self._getattr(node)
            elif func.id == "type":
                if len(node.args) == 1:
                    self._check_class_of(node, node.args[0])
                else:
                    self._check_namespace(node)
            return
        if type(func) is ast.Call and not self._trusted(func):
            # `type(x)(…)`, `f()(…)`: what the inner call returns is not known.
            raise _fail("the code calls the result of a call")
        qualified = self._qualified(func)
        if qualified is not None:
            function = FILE_FUNCTIONS.get(qualified)
            if function is not None:
                self._file_function(qualified, function, node)
            shape = CALL_SHAPES.get(qualified)
            if shape is not None and (
                len(node.args) > shape.positional
                or any(isinstance(a, ast.Starred) for a in node.args)
                or any(kw.arg not in shape.keywords for kw in node.keywords)
            ):
                raise _fail(f"the code calls `{qualified}` with arguments that are not listed")
            return
        if not isinstance(func, ast.Attribute):
            return
        if func.attr in _FORMAT_METHODS:
            self._check_format(func, node)
            return
        if func.attr in FUNCTION_NAME_METHODS:
            for first in node.args[:1]:
                self._check_function_names(first, func.attr)
            if func.attr in ("agg", "aggregate"):
                for kw in node.keywords:  # named aggregation: `x=('column', 'sum')`
                    if isinstance(kw.value, ast.Tuple) and kw.value.elts:
                        self._check_function_names(kw.value.elts[-1], func.attr)
        method = VALUE_METHODS.get(func.attr, "")
        if method is None:
            raise _fail(f"the code calls `{func.attr}`, which reaches other code or files")
        if method:
            self._value_method(func.attr, method, node)
            return
        side = PATH_METHODS.get(func.attr, "")
        # `Path.replace(target)` renames; a workspace module may hand out a `Path` (django's
        # `settings.BASE_DIR`) without `pathlib` imported here: one argument, no keyword.
        renames = self.pathlib or (bool(self.imports) and len(node.args) == 1 and not node.keywords)
        if func.attr == "replace" and renames and not self._is_text(func.value):
            receiver = self._literal(func.value)
            if receiver is None or receiver[1]:
                raise _fail("the code calls `replace`, which may rename a file")
            return
        if side == "":
            if not self.pathlib or func.attr in PURE_PATH_METHODS:
                return
            receiver = self._literal(func.value)
            if receiver is None or not receiver[1]:
                return
            side = "read"  # another method of a literal `Path`: `resolve`, `owner`, …
        receiver = self._literal(func.value)
        if side is None or receiver is None:
            raise _fail(f"the code calls `{func.attr}` on a path it computes")
        if side == "open":
            self._open([func.value], node.args, node.keywords)
            return
        if func.attr in ("chmod", "lchmod"):
            mode = node.args[0] if node.args else None
            if not (
                isinstance(mode, ast.Constant)
                and type(mode.value) is int
                and not mode.value & 0o7000
                and len(node.args) == 1
                and not node.keywords
            ):
                raise _fail(f"the code calls `{func.attr}` with a set-id, sticky or computed mode")
        if func.attr in ("glob", "rglob"):
            pattern = self._literal(node.args[0]) if node.args else None
            if pattern is None or pattern[0].startswith("/") or ".." in pattern[0]:
                raise _fail(f"the code calls `{func.attr}` with a pattern it computes")
        for kw in node.keywords:
            if (
                kw.arg in ("follow_symlinks", "recurse_symlinks")
                and func.attr in _WALKS
                and not (isinstance(kw.value, ast.Constant) and kw.value.value is False)
            ):
                # `Path('.').walk(follow_symlinks=True)` lists a tree a link leads out to.
                raise _fail(f"the code calls `{func.attr}` following symbolic links")
            if kw.arg == "mode" and not (
                isinstance(kw.value, ast.Constant)
                and type(kw.value.value) is int
                and not kw.value.value & 0o7000
            ):
                # `touch(mode=0o4755)` creates a set-id file, as `chmod u+s` makes one.
                raise _fail(f"the code calls `{func.attr}` with a set-id, sticky or computed mode")
        self._access(receiver[0], side)

    def _check_namespace(self, node: ast.Call) -> None:
        """`type(name, bases, namespace)` makes a class: its namespace must be a literal
        dict whose dunder keys are methods `DUNDER_METHODS` lists (or descriptive), as a
        class statement's must."""
        space = node.args[2] if len(node.args) == 3 else None
        if not isinstance(space, ast.Dict) or node.keywords:
            raise _fail("the code calls `type` other than to make a class from a dict")
        for key in space.keys:
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)) or (
                key.value.startswith("__")
                and key.value not in DUNDER_METHODS
                and key.value not in _CLASS_KEYS
            ):
                raise _fail("the code makes a class with a computed or hooked namespace")

    def _check_function_names(self, node: ast.expr, method: str, depth: int = 0) -> None:
        """A function given to `apply`, `agg`, … (`FUNCTION_NAME_METHODS`), or as `aggfunc`:
        pandas calls the method a string names, so a string must be in `NAMED_FUNCTIONS`;
        a function is a lambda, a name or a module's attribute, never computed text."""
        if depth > 8:
            raise _fail(f"the code gives `{method}` functions nested too deeply")
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str) and node.value not in NAMED_FUNCTIONS:
                raise _fail(f"the code gives `{method}` the method name `{node.value}`")
            return
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            for element in node.elts:
                self._check_function_names(element, method, depth + 1)
            return
        if isinstance(node, ast.Dict):
            for value in node.values:
                self._check_function_names(value, method, depth + 1)
            return
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.Name):
            bound = self.values.get(node.id)
            if (
                self.stores.get(node.id, 0) == 0
                or node.id in self.functions
                or node.id in self.names
            ):
                return  # a builtin, an imported name or the code's own function
            if self.stores.get(node.id) == 1 and bound is not None:
                self._check_function_names(bound, method, depth + 1)
                return
        elif isinstance(node, ast.Attribute) and (
            self._module_of(node.value) is not None
            or (
                isinstance(node.value, ast.Name)
                and node.value.id in ALLOWED_BUILTINS
                and node.value.id not in self.stores
            )
        ):
            return  # `np.sum`, `str.upper`
        elif isinstance(node, ast.Call) and self._qualified(node.func) == "functools.partial":
            return
        raise _fail(f"the code gives `{method}` a function it computes")

    def _check_format(self, func: ast.Attribute, node: ast.Call) -> None:
        """`"…".format(…)` (or `str.format("…", …)`): the format string must be text the
        code spells out, with plain fields only (`_plain_format`)."""
        template: ast.expr | None = func.value
        if isinstance(template, ast.Name) and template.id == "str" and "str" not in self.stores:
            template = node.args[0] if node.args else None
        text = self._literal(template) if template is not None else None
        if text is None or text[1]:
            raise _fail(f"the code calls `{func.attr}` on a format string it computes")
        if not _plain_format(text[0]):
            raise _fail(f"the format string of `{func.attr}` reads attributes or items")

    def _getattr(self, node: ast.Call) -> None:
        """`getattr(x, 'name')` is read as `x.name`: a literal, plain name, checked as an
        attribute of a listed module, never a method `VALUE_METHODS` or `PATH_METHODS`
        judges by its call."""
        func = node.func
        assert isinstance(func, ast.Name)
        name = node.args[1] if len(node.args) > 1 else None
        if (
            node.keywords
            or not isinstance(name, ast.Constant)
            or not isinstance(name.value, str)
            or (
                name.value.startswith("_")
                and name.value not in (_GETATTR_DUNDERS if func.id == "getattr" else SAFE_DUNDERS)
            )
            or name.value.startswith(_FRAME_PREFIXES)
            or (name.value in _STDLIB and name.value not in _WHOLE)
            or name.value in VALUE_METHODS
            or name.value in PATH_METHODS
            or name.value in _FORMAT_METHODS
        ):
            raise _fail(f"the code calls `{func.id}` without a literal, plain name")
        module = self._module_of(node.args[0])
        if module is not None and module in MODULES:
            self._allow_attribute(module, name.value)
            dotted = f"{module}.{name.value}"
            if (
                dotted in MODULES
                or dotted in FILE_FUNCTIONS
                or dotted in _SHAPED
                or (dotted in CALL_SHAPES)
            ):
                raise _fail(f"the code calls `{func.id}` for `{dotted}`")

    def _file_function(self, qualified: str, function: FileFunction, node: ast.Call) -> None:
        args = node.args
        count = len(function.sides)
        if (
            len(args) > count + function.values
            or any(isinstance(a, ast.Starred) for a in args)
            or any(kw.arg not in function.keywords for kw in node.keywords)
        ):
            raise _fail(f"the code calls `{qualified}` with arguments that are not listed")
        if not args:
            self._access(".", function.sides[0])
            return
        for arg, side in zip(args[:count], function.sides, strict=False):
            path = self._literal(arg)
            if path is None:
                raise _fail(f"the code calls `{qualified}` on a computed path")
            self._access(path[0], side)
            if function.suffix and not path[0].endswith(function.suffix):
                self._access(path[0] + function.suffix, side)

    def _value_method(self, method: str, side: str, node: ast.Call) -> None:
        target: ast.expr | None = node.args[0] if node.args else None
        for kw in node.keywords:
            if kw.arg is None:
                raise _fail(f"the code calls `{method}` with `**` arguments")
            if kw.arg in PATH_KEYWORDS:
                target = kw.value
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise _fail(f"the code calls `{method}` with `*` arguments")
        if target is None:
            return  # no file: the method returns its text
        path = self._literal(target)
        if path is None:
            raise _fail(f"the code calls `{method}` with a file it computes")
        self._access(path[0], side)

    def _is_text(self, node: ast.expr) -> bool:
        """Certainly text: `_text`, or a name every binding of which is certainly text."""
        if isinstance(node, ast.Name):
            count = self.stores.get(node.id, 0)
            return count > 0 and self.texts.get(node.id) == count
        return _text(node)

    def _open(
        self, path_args: list[ast.expr], mode_args: list[ast.expr], keywords: list[ast.keyword]
    ) -> None:
        if len(mode_args) > 1 or any(isinstance(a, ast.Starred) for a in path_args):
            raise _fail("the code calls `open` with more arguments than a path and a mode")
        path = self._literal(path_args[0]) if path_args else None
        if path is None:
            raise _fail("the code opens a file whose path it computes")
        mode: ast.expr | None = mode_args[0] if mode_args else None
        for kw in keywords:
            if kw.arg not in _OPEN_KEYWORDS:
                raise _fail(f"the code calls `open` with `{kw.arg}`")
            if kw.arg == "mode":
                mode = kw.value
        text = "r"
        if mode is not None:
            if not isinstance(mode, ast.Constant) or not isinstance(mode.value, str):
                raise _fail("the code opens a file with a computed mode")
            text = mode.value
        side = "write" if any(c in text for c in "wax+") else "read"
        self._access(path[0], side)

    def _literal(self, node: ast.expr, depth: int = 0) -> tuple[str, bool] | None:
        """The text of a path built from literals, and whether it is a `Path`; else None."""
        if depth > 16:
            return None
        if isinstance(node, ast.Constant):
            return (node.value, False) if isinstance(node.value, str) else None
        if isinstance(node, ast.Name):
            value = self.values.get(node.id)
            if value is None or self.stores.get(node.id) != 1 or node.id in self.modules:
                return None
            return self._literal(value, depth + 1)
        if isinstance(node, ast.JoinedStr):
            parts = []
            for part in node.values:
                inner = part.value if isinstance(part, ast.FormattedValue) else part
                if isinstance(part, ast.FormattedValue) and (
                    part.conversion != -1 or part.format_spec is not None
                ):
                    return None
                got = self._literal(inner, depth + 1)
                if got is None:
                    return None
                parts.append(got[0])
            return "".join(parts), False
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Div)):
            left = self._literal(node.left, depth + 1)
            right = self._literal(node.right, depth + 1)
            if left is None or right is None:
                return None
            if isinstance(node.op, ast.Add):
                return (left[0] + right[0], False) if not (left[1] or right[1]) else None
            if not (left[1] or right[1]):
                return None  # `'a' / 'b'` is not a path
            return posixpath.join(left[0], right[0]), True
        if isinstance(node, ast.Call) and not node.keywords:
            builder = self._qualified(node.func)
            if builder not in PATH_BUILDERS:
                return None
            args = [self._literal(a, depth + 1) for a in node.args]
            if any(a is None for a in args):
                return None
            texts = [a[0] for a in args if a is not None]
            joined = posixpath.join(*texts) if texts else "."
            return joined, builder in _PATH_CLASSES
        return None
