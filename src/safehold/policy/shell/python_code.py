"""Inline Python read like a command: understood when it only uses listed, harmless parts.

`read_python(code)` parses the code with `ast` (never runs it) and walks the tree once,
iteratively. The code is **understood** when every name it uses is a listed builtin
(`python_modules.ALLOWED_BUILTINS`), a listed module's allowed attribute
(`python_modules.MODULES`), a name the code binds itself, or comes from a module imported by
a static `import` of a name that is not in the standard library (`PythonReading.imports`,
which the caller accepts only when the workspace holds that module: docs/shell.md, "Inline
Python"). Every file the code opens is named by a literal path (a string, an f-string of
literals, `os.path.join` or `/` of literals, or a name bound once to one) and comes back in
`accesses` with its side, for the path policy to judge.

Anything else is not understood, with the first reason found: `exec`/`eval`/`compile`,
`__import__`, dunder attributes that reach code or the class tree, `getattr` with a computed
name, an attribute named like an unlisted module (`shlex.os`), frame attributes, a module
import outside the list, a relative import, a computed path, a change to a module's
attributes, code over `MAX_CODE_LENGTH` characters or nested deeper than `MAX_DEPTH`.

Pure: no file system, no imports of the code's modules; remembered per code text.
"""

from __future__ import annotations

import ast
import builtins
import functools
import posixpath
import sys
from dataclasses import dataclass

from safehold.policy.shell.programs.python_modules import (
    ALLOWED_BUILTINS,
    ALLOWED_ENV,
    ALLOWED_OPTIONS,
    FILE_FUNCTIONS,
    MODULES,
    PATH_BUILDERS,
    PATH_METHODS,
    SAFE_DUNDERS,
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


class _Reader:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.parent: dict[int, ast.AST] = {}
        self.modules: dict[str, str] = {}  # bound name -> dotted module name
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

    def read(self) -> PythonReading:
        nodes = self._collect()
        for node in nodes:
            self._check(node)
        for name, module in self.modules.items():
            # A module the list allows only in part (`os`: getcwd and listings, never
            # system) is understood through its uses; bound and never used, nothing shows
            # what the import is for (`python3 -c 'import os'`), so it is not understood.
            listed = MODULES.get(module)
            if listed is not None and listed.names is not None and name not in self.used:
                raise _fail(f"the code imports `{module}` and never uses it")
        return PythonReading(
            True,
            accesses=tuple(dict.fromkeys(self.accesses)),
            imports=tuple(dict.fromkeys(self.imports)),
            search=tuple(dict.fromkeys(self.search)),
        )

    # -- pass 1: every node, parents, bindings and imports -------------------------------
    def _collect(self) -> list[ast.AST]:
        out: list[ast.AST] = []
        stack: list[tuple[ast.AST, int]] = [(self.tree, 0)]
        while stack:
            node, depth = stack.pop()
            if depth > MAX_DEPTH:
                raise _fail(f"the code nests deeper than {MAX_DEPTH} levels")
            out.append(node)
            for child in ast.iter_child_nodes(node):
                self.parent[id(child)] = node
                stack.append((child, depth + 1))
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                self.stores[node.id] = self.stores.get(node.id, 0) + 1
            elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
                if node.name is not None:
                    self.stores[node.name] = self.stores.get(node.name, 0) + 1
            elif isinstance(node, ast.MatchMapping) and node.rest is not None:
                self.stores[node.rest] = self.stores.get(node.rest, 0) + 1
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.stores[node.name] = self.stores.get(node.name, 0) + 1
            elif isinstance(node, ast.arg):
                self.stores[node.arg] = self.stores.get(node.arg, 0) + 1
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                for name in node.names:
                    self.stores[name] = self.stores.get(name, 0) + 2
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    self.values[target.id] = node.value
                    if _text(node.value):
                        self.texts[target.id] = self.texts.get(target.id, 0) + 1
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self._bind_import(node)
        return out

    def _bind(self, name: str, module: str) -> None:
        self.modules[name] = module
        self.stores[name] = self.stores.get(name, 0) + 1

    def _bind_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.ImportFrom):
            if node.level or node.module is None:
                raise _fail("the code makes a relative import")
            self._allow_module(node.module)
            listed = MODULES.get(node.module)
            for alias in node.names:
                if listed is None:
                    continue  # a workspace module's names: its own code
                if alias.name == "*":
                    if listed.names is not None:
                        raise _fail(f"the code imports every name of `{node.module}`")
                    continue
                self._allow_attribute(node.module, alias.name)
                dotted = f"{node.module}.{alias.name}"
                if dotted == "sys.path":
                    raise _fail("the code imports `sys.path`, which it may change")
                if dotted in MODULES:
                    self._bind(alias.asname or alias.name, dotted)
                else:
                    self.names[alias.asname or alias.name] = dotted
                    self.stores[alias.asname or alias.name] = (
                        self.stores.get(alias.asname or alias.name, 0) + 1
                    )
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
        if (
            attr.startswith("_")
            or (listed.names is not None and attr not in listed.names)
            or (attr in _STDLIB and attr not in _WHOLE and f"{module}.{attr}" not in MODULES)
        ):
            raise _fail(f"the code uses `{module}.{attr}`, which is not in the list")

    # -- pass 2: each node against the list --------------------------------------------
    def _check(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            self._check_name(node)
        elif isinstance(node, ast.Attribute):
            self._check_attribute(node)
        elif isinstance(node, ast.Call):
            self._check_call(node)
        elif (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.name in _BUILTIN_NAMES
            and node.name not in ALLOWED_BUILTINS
        ):
            raise _fail(f"the code redefines the builtin `{node.name}`")

    def _check_name(self, node: ast.Name) -> None:
        name = node.id
        if isinstance(node.ctx, ast.Load):
            self.used.add(name)
        if name.startswith("__") and name not in SAFE_DUNDERS:
            raise _fail(f"the code uses `{name}`")
        if name in self.modules or name in ALLOWED_BUILTINS:
            return
        if name in _BUILTIN_NAMES:
            call = self.parent.get(id(node))
            direct = isinstance(call, ast.Call) and call.func is node
            if name in ("open", "getattr", "hasattr") and direct:
                return  # read apart in `_check_call`
            raise _fail(f"the code uses the builtin `{name}`")

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
        if attr.startswith("__") and attr not in SAFE_DUNDERS:
            raise _fail(f"the code reads the attribute `{attr}`")
        if attr.startswith(_FRAME_PREFIXES):
            raise _fail(f"the code reads the interpreter attribute `{attr}`")
        module = self._module_of(node.value)
        if module is not None:
            if not isinstance(node.ctx, ast.Load):
                raise _fail(f"the code changes the module `{module}`")
            if module in self.packages and f"{module}.{attr}" not in MODULES:
                raise _fail(f"the code uses `{module}.{attr}`, which is not in the list")
            if module in MODULES:
                self._allow_attribute(module, attr)
            if f"{module}.{attr}" == "sys.path":
                self._check_sys_path(node)
            return
        if attr in _STDLIB and attr not in _WHOLE:
            raise _fail(f"the code reaches the module `{attr}` through an attribute")

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
        if path is None or path[0].startswith(("/", "~")) or ".." in path[0].split("/"):
            raise _fail("the code adds a directory outside the workspace to `sys.path`")
        self.search.append(path[0])
        self.accesses.append((path[0], "read"))

    def _check_call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id not in self.stores:
            if func.id == "open":
                self._open(node.args[:1], node.args[1:], node.keywords)
            elif func.id in ("getattr", "hasattr"):
                name = node.args[1] if len(node.args) > 1 else None
                if node.keywords or not (
                    isinstance(name, ast.Constant)
                    and isinstance(name.value, str)
                    and (not name.value.startswith("_") or name.value in SAFE_DUNDERS)
                    and not name.value.startswith(_FRAME_PREFIXES)
                    and not (name.value in _STDLIB and name.value not in _WHOLE)
                ):
                    raise _fail(f"the code calls `{func.id}` without a literal, plain name")
            return
        qualified = self._qualified(func)
        if qualified is not None and qualified in FILE_FUNCTIONS:
            path = self._literal(node.args[0]) if node.args else (".", False)
            if path is None or node.keywords:
                raise _fail(f"the code calls `{qualified}` on a computed path")
            self.accesses.append((path[0], FILE_FUNCTIONS[qualified]))
            return
        if not isinstance(func, ast.Attribute) or qualified is not None:
            return
        side = PATH_METHODS.get(func.attr, "")
        if func.attr == "replace" and self.pathlib and not self._is_text(func.value):
            receiver = self._literal(func.value)
            if receiver is None or receiver[1]:
                raise _fail("the code calls `replace`, which may rename a file")
            return
        if side == "":
            return
        receiver = self._literal(func.value)
        if side is None or receiver is None:
            raise _fail(f"the code calls `{func.attr}` on a path it computes")
        if side == "open":
            self._open([func.value], node.args, node.keywords)
            return
        if func.attr in ("glob", "rglob"):
            pattern = self._literal(node.args[0]) if node.args else None
            if pattern is None or pattern[0].startswith("/") or ".." in pattern[0]:
                raise _fail(f"the code calls `{func.attr}` with a pattern it computes")
        self.accesses.append((receiver[0], side))

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
        self.accesses.append((path[0], side))

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
