"""The Python modules, builtins and file functions inline code may use and still be understood.

Data for `policy/shell/python_code.py`. A module is listed only when none of its names can
run a program, open a socket, load native code, run code given as text, open a file whose
name the code computes, or change the interpreter (its import system, its builtins, the
modules of others). Each entry says why, from the module's documentation
(https://docs.python.org/3/library/<module>.html). Err narrow: a module left out costs one
question; a wrong entry is a bypass.

`names` restricts a module to the listed attributes (`os`, `sys`, `io`, `pathlib`): the rest
of such a module reaches processes, the environment or the import system.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "ALLOWED_BUILTINS",
    "ALLOWED_ENV",
    "ALLOWED_OPTIONS",
    "FILE_FUNCTIONS",
    "MODULES",
    "PATH_BUILDERS",
    "PATH_METHODS",
    "SAFE_DUNDERS",
    "Module",
]


@dataclass(frozen=True, slots=True)
class Module:
    """A module inline code may import: why it is safe, and the names it may use (None: all
    public names)."""

    why: str
    names: frozenset[str] | None = None


_PURE = "pure computation on values in memory; no files, processes, network or imports"

MODULES = MappingProxyType(
    {
        "json": Module("JSON text to and from values; `load`/`dump` take an open file object"),
        "json.decoder": Module("the JSON decoder classes of `json`"),
        "json.encoder": Module("the JSON encoder classes of `json`"),
        "json.scanner": Module("the JSON tokenizer of `json`"),
        "re": Module("regular expressions over strings (compiled by the `_sre` engine)"),
        "math": Module(_PURE),
        "cmath": Module(_PURE),
        "itertools": Module("iterator building blocks; call only what the code hands them"),
        "functools": Module(
            "wrappers of callables the code already holds; `singledispatch` is left out (its "
            "`register` evaluates string annotations)",
            frozenset(
                {"reduce", "partial", "partialmethod", "lru_cache", "cache", "wraps",
                 "cmp_to_key", "total_ordering", "cached_property", "update_wrapper"}
            ),
        ),
        "collections": Module("container types (`Counter`, `defaultdict`, `deque`, …)"),
        "collections.abc": Module("abstract container classes for `isinstance` checks"),
        "heapq": Module(_PURE),
        "bisect": Module(_PURE),
        "textwrap": Module("wraps and dedents strings"),
        "difflib": Module("compares sequences of strings in memory"),
        "ast": Module(
            "parses Python source into a tree without running it (`literal_eval` evaluates "
            "literals only); `compile` and `exec` are builtins, not listed"
        ),
        "csv": Module("reads and writes CSV rows over file objects or strings given to it"),
        "tomllib": Module("parses TOML text or an open binary file object"),
        "datetime": Module("dates and times as values"),
        "time": Module("clocks and `sleep`; no process or file access"),
        "decimal": Module(_PURE),
        "fractions": Module(_PURE),
        "statistics": Module(_PURE),
        "random": Module("pseudo-random numbers from an in-memory generator"),
        "base64": Module("encodes and decodes bytes; running decoded text needs `exec`"),
        "binascii": Module("converts between binary and ASCII encodings"),
        "hashlib": Module("hash functions over bytes given to it"),
        "zlib": Module("compresses and decompresses bytes in memory"),
        "struct": Module("packs and unpacks bytes by a format string"),
        "unicodedata": Module("the Unicode character database, read only"),
        "pprint": Module("formats values as text for printing"),
        "array": Module("typed arrays of numbers in memory; `fromfile`/`tofile` take file objects"),
        "urllib.parse": Module("splits, joins and quotes URL strings; opens no connection"),
        "traceback": Module(
            "prints or formats the exception being handled and the current stack; the "
            "functions that take frame lists built by hand (`StackSummary`, which reads any "
            "named file's lines) are left out",
            frozenset(
                {"print_exc", "format_exc", "print_exception", "format_exception",
                 "format_exception_only", "print_tb", "format_tb", "print_stack",
                 "format_stack"}
            ),
        ),
        "warnings": Module(
            "issues and filters warnings of the running code; the option parser that imports "
            "a category by its dotted name is left out",
            frozenset(
                {"warn", "simplefilter", "filterwarnings", "catch_warnings", "resetwarnings"}
            ),
        ),
        "enum": Module(
            "enumeration classes, built from the names the code gives; only the classes and "
            "decorators (the module also holds `builtins` as `enum.bltns`)",
            frozenset({"Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "auto", "unique"}),
        ),
        "keyword": Module("the list of Python keywords"),
        "shlex": Module("splits and quotes shell words as strings; runs nothing"),
        "sys": Module(
            "only reads of the interpreter's arguments, version and standard streams: "
            "`sys.path` may only be extended by the workspace-relative form read apart, "
            "and `sys.modules`, `settrace`, `_getframe` and the rest are left out",
            frozenset(
                {
                    "argv", "stdout", "stderr", "stdin", "version", "version_info",
                    "platform", "executable", "maxsize", "maxunicode", "byteorder",
                    "float_info", "int_info", "implementation", "hexversion", "exit",
                    "getsizeof", "getrecursionlimit", "getdefaultencoding",
                    "getfilesystemencoding", "path",
                }
            ),
        ),
        "os": Module(
            "only the directory and separator constants, `getcwd`, `os.path`, and listing "
            "functions judged as reads of a literal path; `system`, `exec*`, `spawn*`, "
            "`environ`, `open` and the rest are left out",
            frozenset(
                {"getcwd", "sep", "linesep", "name", "curdir", "pardir", "extsep", "path",
                 "listdir", "walk", "scandir"}
            ),
        ),
        "os.path": Module(
            "string operations on paths, and existence and size checks judged as reads of "
            "a literal path; `expanduser` and `expandvars` are left out (they read the "
            "environment to find a path)",
            frozenset(
                {"join", "basename", "dirname", "splitext", "split", "normpath", "isabs",
                 "abspath", "relpath", "commonpath", "commonprefix", "sep", "exists",
                 "isfile", "isdir", "islink", "getsize", "getmtime", "lexists"}
            ),
        ),
        "io": Module(
            "only in-memory streams; `io.open` and `FileIO` are left out",
            frozenset({"StringIO", "BytesIO"}),
        ),
        "pathlib": Module(
            "path objects whose file methods are judged as reads or writes of a literal "
            "path (`PATH_METHODS`); `Path.home` and `expanduser` are left out",
            frozenset({"Path", "PurePath", "PurePosixPath", "PosixPath"}),
        ),
    }
)  # fmt: skip
"""Importable modules by dotted name; a submodule is listed on its own (`os.path`)."""

# Interpreter options (before `-c` or `-`) that change neither the code nor where imports
# come from (https://docs.python.org/3/using/cmdline.html). Left out: `-i` (reads a program
# from stdin after the code), `-X`, `-m`; `-W` is read apart (a dotted category imports
# that module).
ALLOWED_OPTIONS = frozenset("uBEsSIqObPR")

# `PYTHON*` variables that change neither the code nor where imports come from
# (https://docs.python.org/3/using/cmdline.html#environment-variables). Left out:
# `PYTHONPATH`, `PYTHONHOME`, `PYTHONINSPECT`, `PYTHONSTARTUP`, `PYTHONWARNINGS` and the rest.
ALLOWED_ENV = frozenset(
    {"PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONHASHSEED",
     "PYTHONUTF8", "PYTHONNOUSERSITE", "PYTHONSAFEPATH"}
)  # fmt: skip

# Builtins that compute on values or print. Left out: `exec`, `eval`, `compile`,
# `__import__`, `globals`, `locals`, `vars`, `breakpoint`, `help` (starts a pager),
# `input`, `setattr`, `delattr`, `memoryview`; `open`, `getattr` and `hasattr` are read
# apart (a literal path; a literal attribute name).
ALLOWED_BUILTINS = frozenset(
    {
        "print", "memoryview", "len", "range", "enumerate", "zip", "map", "filter", "sorted", "reversed",
        "list", "dict", "set", "frozenset", "tuple", "str", "int", "float", "complex",
        "bool", "bytes", "bytearray", "repr", "ascii", "type", "isinstance", "issubclass",
        "min", "max", "sum", "abs", "round", "any", "all", "divmod", "pow", "hex", "oct",
        "bin", "ord", "chr", "format", "hash", "id", "iter", "next", "slice", "callable",
        "object", "property", "staticmethod", "classmethod", "super", "dir", "aiter",
        "anext", "exit", "quit", "True", "False", "None", "NotImplemented", "Ellipsis",
        # Exceptions and warnings classes: values, raised and caught.
        "BaseException", "Exception", "ArithmeticError", "AssertionError", "AttributeError",
        "EOFError", "FileExistsError", "FileNotFoundError", "ImportError", "IndexError",
        "KeyError", "KeyboardInterrupt", "LookupError", "ModuleNotFoundError", "NameError",
        "NotImplementedError", "OSError", "IOError", "OverflowError", "PermissionError",
        "RecursionError", "RuntimeError", "StopIteration", "StopAsyncIteration",
        "SyntaxError", "SystemExit", "TypeError", "UnicodeDecodeError", "UnicodeEncodeError",
        "UnicodeError", "ValueError", "ZeroDivisionError", "IsADirectoryError",
        "NotADirectoryError", "TimeoutError", "Warning", "UserWarning",
        "DeprecationWarning", "RuntimeWarning", "ExceptionGroup", "BaseExceptionGroup",
    }
)  # fmt: skip

# Dunder names code may read: descriptive strings and the class of a value. The ones that
# reach code objects, globals, builtins or the class tree (`__globals__`, `__dict__`,
# `__subclasses__`, `__bases__`, `__mro__`, `__builtins__`, `__import__`, …) are left out.
SAFE_DUNDERS = frozenset(
    {"__name__", "__version__", "__doc__", "__qualname__", "__module__", "__class__",
     "__init__", "__main__", "__file__"}
)  # fmt: skip

# Functions called with a path: the side of the policy that judges it (the first argument,
# which must be a literal path).
FILE_FUNCTIONS = MappingProxyType(
    {
        "os.listdir": "read", "os.walk": "read", "os.scandir": "read",
        "os.path.exists": "read", "os.path.isfile": "read", "os.path.isdir": "read",
        "os.path.islink": "read", "os.path.getsize": "read", "os.path.getmtime": "read",
        "os.path.lexists": "read",
    }
)  # fmt: skip

# Functions that build a path from their arguments without touching a file.
PATH_BUILDERS = frozenset(
    {"os.path.join", "pathlib.Path", "pathlib.PurePath", "pathlib.PurePosixPath",
     "pathlib.PosixPath"}
)  # fmt: skip

# `pathlib.Path` methods: the side they use the path on. A call of one of these names on
# a receiver that is not a literal path is not understood (`None`: never understood).
PATH_METHODS = MappingProxyType(
    {
        "read_text": "read", "read_bytes": "read", "exists": "read", "is_file": "read",
        "is_dir": "read", "is_symlink": "read", "iterdir": "read", "glob": "read",
        "rglob": "read", "stat": "read", "lstat": "read", "open": "open",
        "write_text": "write", "write_bytes": "write", "touch": "write", "mkdir": "write",
        "unlink": "write", "rmdir": "write", "chmod": "write", "lchmod": "write",
        "rename": None, "symlink_to": None, "hardlink_to": None, "link_to": None,
        "expanduser": None, "home": None, "readlink": None, "samefile": None,
    }
)  # fmt: skip
