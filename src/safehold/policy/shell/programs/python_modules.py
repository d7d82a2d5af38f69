"""The Python modules, builtins and file functions inline code may use and still be understood.

Data for `policy/shell/python_code.py`. A module is listed only when none of its names can
run a program, open a socket, load native code, run code given as text, open a file whose
name the code computes, or change the interpreter (its import system, its builtins, the
modules of others). Each entry says why, from the module's documentation
(https://docs.python.org/3/library/<module>.html). Err narrow: a module left out costs one
question; a wrong entry is a bypass.

`names` restricts a module to the listed attributes (`os`, `sys`, `io`, `pathlib`): the rest
of such a module reaches processes, the environment or the import system.

**Installed libraries** (`installed=True`: numpy, scipy, pandas) are outside the standard
library: importing one runs the installed package's own code. They are listed only when that
code is well known to compute and nothing else at import (load its own native extensions,
define functions; no file outside the package, no process, no socket), and always with
`names`: a library's namespace is large and holds submodules that compile code or load
native libraries (`numpy.ctypeslib`, `numpy.f2py`), so only named, pure functions and
classes are listed, and each function of theirs that reads or writes a file is in
`FILE_FUNCTIONS` with the side its path argument is used on. Methods of the values such a
library hands out that reach files or other code are in `VALUE_METHODS`. A library that is
not installed is not imported at all (the import fails); one shadowed by a workspace module
of that name is the workspace's own code, as `python script.py` is.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "ALLOWED_BUILTINS",
    "ALLOWED_ENV",
    "ALLOWED_OPTIONS",
    "CALL_SHAPES",
    "DUNDER_METHODS",
    "ENV_WRITES",
    "FILE_FUNCTIONS",
    "FUNCTION_NAME_KEYWORDS",
    "FUNCTION_NAME_METHODS",
    "MODULES",
    "MODULE_DUNDERS",
    "NAMED_FUNCTIONS",
    "PATH_BUILDERS",
    "PATH_KEYWORDS",
    "PATH_METHODS",
    "PURE_PATH_METHODS",
    "SAFE_DUNDERS",
    "VALUE_ATTRIBUTES",
    "VALUE_METHODS",
    "CallShape",
    "FileFunction",
    "Module",
]


@dataclass(frozen=True, slots=True)
class Module:
    """A module inline code may import: why it is safe, and the names it may use (None: all
    public names)."""

    why: str
    names: frozenset[str] | None = None
    installed: bool = False
    """Outside the standard library: an installed package whose import runs its code."""
    left_out: frozenset[str] = frozenset()
    """Public names of a module listed whole (`names` None) that are not understood."""


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
            "`register` evaluates string annotations), and so are `update_wrapper` and "
            "`wraps` (they copy and merge attributes named by strings the code gives, "
            "`__globals__` among them)",
            frozenset(
                {"reduce", "partial", "partialmethod", "lru_cache", "cache", "cmp_to_key",
                 "total_ordering", "cached_property"}
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
            "literals only); `compile` and `exec` are builtins, not listed. `main` is left "
            "out: it is `python -m ast`, which parses and prints the file `sys.argv` names",
            left_out=frozenset({"main"}),
        ),
        "csv": Module("reads and writes CSV rows over file objects or strings given to it"),
        "tomllib": Module("parses TOML text or an open binary file object"),
        "datetime": Module("dates and times as values"),
        "time": Module("clocks and `sleep`; no process or file access"),
        "decimal": Module(_PURE),
        "fractions": Module(_PURE),
        "statistics": Module(_PURE),
        "random": Module(
            "pseudo-random numbers from an in-memory generator; `main` (Python 3.13: "
            "`python -m random`, reading `sys.argv`) is left out",
            left_out=frozenset({"main"}),
        ),
        "base64": Module(
            "encodes and decodes bytes; running decoded text needs `exec`. `main` and `test` "
            "are left out: `main` is `python -m base64`, which encodes the file `sys.argv` "
            "names",
            left_out=frozenset({"main", "test"}),
        ),
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
            "named file's lines) are left out, and so are `print_tb` and `format_tb`: a "
            "traceback is read through its attributes (`tb_frame.f_code.co_filename`), which "
            "any object can carry, and the line of that file is printed. `print_stack`, "
            "`format_stack`, `print_exception` and `format_exception` only in the shapes of "
            "`CALL_SHAPES`",
            frozenset(
                {"print_exc", "format_exc", "print_exception", "format_exception",
                 "format_exception_only", "print_stack", "format_stack"}
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
        "shlex": Module(
            "splits, joins and quotes shell words as strings; runs nothing. The `shlex` "
            "class is left out: its `sourcehook` (called for a `source` word once the "
            "attribute is set, or directly) opens the file a string names "
            "(https://docs.python.org/3/library/shlex.html#shlex.shlex.sourcehook)",
            frozenset({"split", "join", "quote"}),
        ),
        "sys": Module(
            "only reads of the interpreter's arguments, version and standard streams: "
            "`sys.path` may only be extended by a literal directory inside the workspace, "
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
            "functions judged as reads of a literal path; `environ` only to set a variable "
            "of `ENV_WRITES`; `system`, `exec*`, `spawn*`, `open` and the rest are left out",
            frozenset(
                {"getcwd", "sep", "linesep", "name", "curdir", "pardir", "extsep", "path",
                 "listdir", "walk", "scandir", "environ"}
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
        "unittest": Module(
            "test cases, suites, loaders and runners over test classes the code holds "
            "(https://docs.python.org/3/library/unittest.html); `main` and the loaders' "
            "by-name methods (`loadTestsFromName`, `discover`: `VALUE_METHODS`) import modules "
            "by name and are left out, as is `mock` (its `patch` imports a dotted target)",
            frozenset(
                {"TestCase", "TestSuite", "TestLoader", "TextTestRunner", "TestResult",
                 "TextTestResult", "defaultTestLoader", "skip", "skipIf", "skipUnless",
                 "expectedFailure", "SkipTest", "FunctionTestCase"}
            ),
        ),
        "inspect": Module(
            "reads signatures, docstrings and the source of objects the code already holds "
            "(https://docs.python.org/3/library/inspect.html): `getsource` reads the file "
            "the object's module was imported from. Left out: frames and stacks "
            "(`currentframe`, `stack`), `getmembers` and `getattr_static` (they hand out "
            "dunder attributes such as `__globals__` by name), `getmodule`, "
            "`getclosurevars` and `get_annotations`; `eval_str=True` (string annotations "
            "evaluated) is refused wherever it appears",
            frozenset(
                {"signature", "Signature", "Parameter", "getsource", "getsourcelines",
                 "getsourcefile", "getfile", "getdoc", "getcomments", "cleandoc",
                 "isclass", "isfunction", "ismethod", "ismodule", "isroutine", "isbuiltin",
                 "iscoroutinefunction", "isgeneratorfunction", "isabstract",
                 "isdatadescriptor", "ismethoddescriptor", "getfullargspec",
                 "getmro", "unwrap", "indentsize", "getmodulename"}
            ),
        ),
        "operator": Module(
            "the operators as functions (https://docs.python.org/3/library/operator.html); "
            "`attrgetter` and `methodcaller` are left out (they reach attributes, dunders "
            "included, by a name given as text)",
            frozenset(
                {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "neg", "pos",
                 "abs", "eq", "ne", "lt", "le", "gt", "ge", "not_", "truth", "and_", "or_",
                 "xor", "invert", "lshift", "rshift", "contains", "countOf", "indexOf",
                 "getitem", "itemgetter", "concat", "index", "is_", "is_not", "matmul",
                 "length_hint", "call"}
            ),
        ),
        "copy": Module(
            "shallow and deep copies of values the code holds "
            "(https://docs.python.org/3/library/copy.html); a copy is rebuilt from the "
            "value's own class",
            frozenset({"copy", "deepcopy", "Error"}),
        ),
        "calendar": Module(
            "calendar arithmetic and text calendars "
            "(https://docs.python.org/3/library/calendar.html); the locale calendars "
            "(they change the process's locale) and `main` are left out",
            frozenset(
                {"isleap", "leapdays", "weekday", "monthrange", "monthcalendar", "month",
                 "calendar", "prmonth", "prcal", "timegm", "Calendar", "TextCalendar",
                 "day_name", "day_abbr", "month_name", "month_abbr", "firstweekday",
                 "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY",
                 "SUNDAY"}
            ),
        ),
        "argparse": Module(
            "only the help formatters and `Namespace`, which format and hold values "
            "(https://docs.python.org/3/library/argparse.html); `ArgumentParser` "
            "(`fromfile_prefix_chars` reads the files its arguments name) and `FileType` "
            "(opens files) are left out",
            frozenset(
                {"HelpFormatter", "RawTextHelpFormatter", "RawDescriptionHelpFormatter",
                 "ArgumentDefaultsHelpFormatter", "MetavarTypeHelpFormatter", "Namespace"}
            ),
        ),
        "types": Module(
            "only `SimpleNamespace`, an attribute bag "
            "(https://docs.python.org/3/library/types.html); the constructors of functions, "
            "code and modules are left out",
            frozenset({"SimpleNamespace"}),
        ),
        # -- installed libraries (module docstring) --------------------------------------
        "numpy": Module(
            "arrays and the math on them (https://numpy.org/doc/stable/reference/); "
            "importing numpy loads its own compiled extensions only. Listed: array "
            "creation, elementwise math, reductions, comparisons, shapes and dtypes. "
            "Left out: `ctypeslib` (loads native libraries), `f2py` and `distutils` "
            "(compile code), `testing`, `lib` (`stride_tricks.as_strided` reaches raw "
            "memory), `memmap`, `DataSource` (opens URLs), `fromregex`; `load`, `save`, "
            "`savez`, `savetxt`, `loadtxt`, `genfromtxt` and `fromfile` are judged by "
            "their path (`FILE_FUNCTIONS`; `load` with no keyword keeps `allow_pickle` off)",
            frozenset(
                {"array", "asarray", "asanyarray", "ascontiguousarray", "zeros", "ones",
                 "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like",
                 "arange", "linspace", "logspace", "geomspace", "eye", "identity", "diag",
                 "meshgrid", "copy", "fromiter", "frombuffer", "ndarray", "dtype",
                 "isnan", "isinf", "isfinite", "isclose", "allclose", "array_equal",
                 "array_equiv", "isscalar", "iscomplexobj", "isrealobj", "maximum",
                 "minimum", "fmax", "fmin", "abs", "absolute", "sign", "sqrt", "cbrt",
                 "square", "exp", "expm1", "exp2", "log", "log10", "log2", "log1p", "sin",
                 "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh",
                 "tanh", "arcsinh", "arccosh", "arctanh", "hypot", "deg2rad", "rad2deg",
                 "degrees", "radians", "floor", "ceil", "trunc", "rint", "round",
                 "around", "clip", "add", "subtract", "multiply", "divide", "true_divide",
                 "floor_divide", "power", "mod", "remainder", "fmod", "negative",
                 "reciprocal", "real", "imag", "conj", "conjugate", "angle", "sum",
                 "prod", "cumsum", "cumprod", "mean", "average", "median", "std", "var",
                 "min", "max", "amin", "amax", "argmin", "argmax", "ptp", "percentile",
                 "quantile", "nansum", "nanmean", "nanmedian", "nanstd", "nanvar",
                 "nanmin", "nanmax", "nanargmin", "nanargmax", "any", "all", "where",
                 "nonzero", "count_nonzero", "argwhere", "flatnonzero", "sort", "argsort",
                 "unique", "searchsorted", "concatenate", "stack", "hstack", "vstack",
                 "dstack", "column_stack", "split", "array_split", "reshape", "ravel",
                 "transpose", "swapaxes", "moveaxis", "squeeze", "expand_dims",
                 "broadcast_to", "broadcast_arrays", "atleast_1d", "atleast_2d",
                 "atleast_3d", "tile", "repeat", "flip", "fliplr", "flipud", "roll",
                 "rot90", "append", "insert", "delete", "take", "diff", "gradient",
                 "interp", "convolve", "correlate", "cov", "corrcoef", "histogram",
                 "bincount", "digitize", "polyfit", "polyval", "roots", "dot", "vdot",
                 "inner", "outer", "matmul", "cross", "kron", "tensordot", "einsum",
                 "trace", "equal", "not_equal", "less", "less_equal", "greater",
                 "greater_equal", "logical_and", "logical_or", "logical_not",
                 "logical_xor", "shape", "ndim", "size", "result_type", "promote_types",
                 "can_cast", "issubdtype", "finfo", "iinfo", "errstate", "seterr",
                 "geterr", "set_printoptions", "get_printoptions", "printoptions",
                 "array2string", "array_repr", "array_str", "format_float_positional",
                 "format_float_scientific", "vectorize", "frompyfunc",
                 "apply_along_axis", "piecewise", "select", "nan_to_num", "nan", "inf",
                 "pi", "e", "euler_gamma", "newaxis", "float16", "float32", "float64",
                 "longdouble", "complex64", "complex128", "int8", "int16", "int32",
                 "int64", "uint8", "uint16", "uint32", "uint64", "intp", "uintp",
                 "bool_", "str_", "bytes_", "object_", "float_", "int_", "complex_",
                 "long", "datetime64", "timedelta64", "generic", "number", "integer",
                 "floating", "complexfloating", "signedinteger", "unsignedinteger",
                 "random", "linalg", "fft", "ma", "char", "load", "save", "savez",
                 "savez_compressed", "savetxt", "loadtxt", "genfromtxt", "fromfile"}
            ),
            installed=True,
        ),
        "numpy.char": Module(
            "vectorised string operations on arrays "
            "(https://numpy.org/doc/stable/reference/routines.char.html)",
            frozenset(
                {"add", "multiply", "mod", "capitalize", "center", "decode", "encode",
                 "join", "ljust", "lower", "lstrip", "partition", "replace", "rjust",
                 "rpartition", "rsplit", "rstrip", "split", "splitlines", "strip",
                 "swapcase", "title", "upper", "zfill", "equal", "not_equal", "count",
                 "endswith", "find", "index", "isalpha", "isdigit", "isspace", "islower",
                 "isupper", "rfind", "startswith", "str_len", "array", "asarray",
                 "chararray"}
            ),
            installed=True,
        ),
        "numpy.random": Module(
            "pseudo-random numbers from an in-memory generator "
            "(https://numpy.org/doc/stable/reference/random/index.html)",
            frozenset(
                {"seed", "rand", "randn", "randint", "random", "random_sample", "choice",
                 "shuffle", "permutation", "normal", "uniform", "standard_normal",
                 "default_rng", "Generator", "RandomState", "PCG64", "SeedSequence"}
            ),
            installed=True,
        ),
        "numpy.linalg": Module(
            "linear algebra on arrays (https://numpy.org/doc/stable/reference/routines.linalg.html)",
            frozenset(
                {"norm", "inv", "pinv", "det", "slogdet", "solve", "lstsq", "eig", "eigh",
                 "eigvals", "eigvalsh", "svd", "qr", "cholesky", "matrix_rank",
                 "matrix_power", "cond", "LinAlgError"}
            ),
            installed=True,
        ),
        "numpy.fft": Module(
            "discrete Fourier transforms of arrays (https://numpy.org/doc/stable/reference/routines.fft.html)",
            frozenset(
                {"fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "fftn", "ifftn",
                 "fftfreq", "rfftfreq", "fftshift", "ifftshift"}
            ),
            installed=True,
        ),
        "numpy.ma": Module(
            "masked arrays (https://numpy.org/doc/stable/reference/maskedarray.html)",
            frozenset(
                {"array", "masked_array", "MaskedArray", "masked", "nomask",
                 "masked_where", "masked_invalid", "masked_equal", "getmask",
                 "getmaskarray", "getdata", "is_masked", "filled", "isMaskedArray"}
            ),
            installed=True,
        ),
        "scipy": Module(
            "scientific computing on arrays (https://docs.scipy.org/doc/scipy/reference/); "
            "importing scipy imports numpy and its own compiled extensions. Only the "
            "listed subpackages; `scipy.io`, `scipy.datasets` (downloads) and "
            "`scipy.LowLevelCallable` (native function pointers) are left out",
            frozenset({"optimize", "misc", "special", "stats", "integrate", "interpolate"}),
            installed=True,
        ),
        "scipy.optimize": Module(
            "minimisers and root finders over functions the code holds "
            "(https://docs.scipy.org/doc/scipy/reference/optimize.html)",
            frozenset(
                {"minimize", "minimize_scalar", "root", "root_scalar", "brentq", "brenth",
                 "bisect", "newton", "fsolve", "curve_fit", "least_squares", "linprog",
                 "fmin", "fminbound", "golden", "OptimizeResult", "approx_fprime"}
            ),
            installed=True,
        ),
        "scipy.misc": Module(
            "numerical differentiation helpers "
            "(https://docs.scipy.org/doc/scipy-1.11.4/reference/misc.html); the sample "
            "images (`face`, `ascent`, `electrocardiogram`: read or download data files) "
            "are left out",
            frozenset({"derivative", "central_diff_weights"}),
            installed=True,
        ),
        "scipy.special": Module(
            "special functions on arrays (https://docs.scipy.org/doc/scipy/reference/special.html)",
            frozenset(
                {"gamma", "gammaln", "beta", "betaln", "erf", "erfc", "erfinv", "comb",
                 "perm", "factorial", "binom", "expit", "logit", "logsumexp", "softmax",
                 "xlogy", "zeta", "digamma", "jv", "yv", "iv", "kv"}
            ),
            installed=True,
        ),
        "scipy.stats": Module(
            "distributions and statistical tests on arrays "
            "(https://docs.scipy.org/doc/scipy/reference/stats.html)",
            frozenset(
                {"norm", "t", "chi2", "uniform", "binom", "poisson", "expon", "gamma",
                 "beta", "describe", "pearsonr", "spearmanr", "linregress", "ttest_ind",
                 "ttest_rel", "ttest_1samp", "mannwhitneyu", "ks_2samp", "kstest",
                 "zscore", "sem", "mode", "rankdata", "entropy"}
            ),
            installed=True,
        ),
        "scipy.integrate": Module(
            "integration of functions the code holds and of sampled arrays "
            "(https://docs.scipy.org/doc/scipy/reference/integrate.html)",
            frozenset(
                {"quad", "dblquad", "tplquad", "fixed_quad", "romberg", "trapezoid",
                 "simpson", "cumulative_trapezoid", "solve_ivp", "odeint"}
            ),
            installed=True,
        ),
        "scipy.interpolate": Module(
            "interpolation of sampled arrays "
            "(https://docs.scipy.org/doc/scipy/reference/interpolate.html)",
            frozenset(
                {"interp1d", "CubicSpline", "UnivariateSpline", "splrep", "splev",
                 "griddata", "PchipInterpolator", "Akima1DInterpolator", "BSpline"}
            ),
            installed=True,
        ),
        "pandas": Module(
            "tables and series in memory (https://pandas.pydata.org/docs/reference/); "
            "importing pandas imports numpy and its own compiled extensions. Listed: the "
            "data structures and value functions; `read_csv`, `read_table` and `read_json` "
            "are judged by their path (`FILE_FUNCTIONS`), the values' `to_*` writers and "
            "`eval`/`query` by `VALUE_METHODS`, plotting by `VALUE_ATTRIBUTES`. Left out: "
            "`read_pickle` (runs pickle), `read_sql`, `read_html`, `read_clipboard`, "
            "`eval`, `io`, `options`",
            frozenset(
                {"DataFrame", "Series", "Index", "MultiIndex", "RangeIndex",
                 "DatetimeIndex", "Categorical", "CategoricalDtype", "Timestamp",
                 "Timedelta", "Period", "Interval", "NaT", "NA", "isna", "isnull",
                 "notna", "notnull", "concat", "merge", "merge_asof", "pivot_table",
                 "crosstab", "cut", "qcut", "get_dummies", "factorize", "unique",
                 "to_datetime", "to_numeric", "to_timedelta", "date_range",
                 "timedelta_range", "period_range", "interval_range", "testing",
                 "read_csv", "read_table", "read_json"}
            ),
            installed=True,
        ),
        "pandas.testing": Module(
            "equality assertions on tables and series "
            "(https://pandas.pydata.org/docs/reference/general_utility_functions.html)",
            frozenset(
                {"assert_frame_equal", "assert_series_equal", "assert_index_equal",
                 "assert_extension_array_equal"}
            ),
            installed=True,
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
# `input`, `setattr`, `delattr`; `open`, `getattr` and `hasattr` are read apart (a literal
# path; a literal attribute name). `memoryview` is a view of a bytes-like value's buffer:
# it reads and writes only memory the code already holds.
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
        "FutureWarning", "PendingDeprecationWarning", "SyntaxWarning", "ImportWarning",
        "ResourceWarning", "BytesWarning", "UnicodeWarning", "GeneratorExit",
    }
)  # fmt: skip

# Dunder names code may read: descriptive strings and the class of a value. The ones that
# reach code objects, globals, builtins or the class tree (`__globals__`, `__dict__`,
# `__subclasses__`, `__bases__`, `__mro__`, `__builtins__`, `__import__`, …) are left out.
SAFE_DUNDERS = frozenset(
    {"__name__", "__version__", "__doc__", "__qualname__", "__module__", "__class__",
     "__init__", "__main__", "__file__"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class FileFunction:
    """A listed function that takes a path: the side each leading argument's path is used
    on, how many further positional arguments (values, not paths) it may take, and the
    keywords it may take (none of which names a file or turns on pickle).

    Every path argument must be a literal path; `suffix` is what the function adds to a
    path without it (`numpy.save('x', a)` writes `x.npy`).
    """

    sides: tuple[str, ...]
    values: int = 0
    keywords: frozenset[str] = frozenset()
    suffix: str = ""


_READ = FileFunction(("read",))
_TEXT_KEYWORDS = frozenset(
    {"delimiter", "comments", "skiprows", "usecols", "dtype", "unpack", "ndmin", "encoding",
     "max_rows", "skip_header", "skip_footer", "names", "filling_values", "converters"}
)  # fmt: skip
_TABLE_KEYWORDS = frozenset(
    {"sep", "delimiter", "header", "names", "index_col", "usecols", "dtype", "nrows",
     "skiprows", "encoding", "parse_dates", "na_values", "comment", "orient", "lines",
     "low_memory", "skipinitialspace"}
)  # fmt: skip

# Functions called with a path (the first arguments, each a literal path) and how the
# path policy judges them. numpy: https://numpy.org/doc/stable/reference/routines.io.html
# (`load` keeps `allow_pickle=False` unless a keyword or a further argument turns it on,
# so neither is allowed; `loadtxt` and `genfromtxt` also open URLs, refused as paths
# with `://`). pandas: https://pandas.pydata.org/docs/reference/io.html.
FILE_FUNCTIONS = MappingProxyType(
    {
        "os.listdir": _READ, "os.walk": _READ, "os.scandir": _READ,
        "os.path.exists": _READ, "os.path.isfile": _READ, "os.path.isdir": _READ,
        "os.path.islink": _READ, "os.path.getsize": _READ, "os.path.getmtime": _READ,
        "os.path.lexists": _READ,
        "numpy.load": _READ,
        "numpy.save": FileFunction(("write",), values=1, suffix=".npy"),
        "numpy.savez": FileFunction(("write",), values=16, suffix=".npz"),
        "numpy.savez_compressed": FileFunction(("write",), values=16, suffix=".npz"),
        "numpy.savetxt": FileFunction(
            ("write",), values=1,
            keywords=frozenset({"fmt", "delimiter", "newline", "header", "footer",
                                "comments", "encoding"}),
        ),
        "numpy.loadtxt": FileFunction(("read",), keywords=_TEXT_KEYWORDS),
        "numpy.genfromtxt": FileFunction(("read",), keywords=_TEXT_KEYWORDS),
        "numpy.fromfile": FileFunction(
            ("read",), keywords=frozenset({"dtype", "count", "sep", "offset"})
        ),
        "pandas.read_csv": FileFunction(("read",), keywords=_TABLE_KEYWORDS),
        "pandas.read_table": FileFunction(("read",), keywords=_TABLE_KEYWORDS),
        "pandas.read_json": FileFunction(("read",), keywords=_TABLE_KEYWORDS),
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class CallShape:
    """How a listed function may be called: at most `positional` arguments and only the
    `keywords` listed; never handed around uncalled."""

    positional: int
    keywords: frozenset[str] = frozenset()


# Listed functions understood only in some shapes. `traceback`'s stack and exception
# printers read the frames or traceback they are given through their attributes
# (`f.f_code.co_filename`, `tb.tb_frame`), which any object can carry, and print that
# file's lines (https://docs.python.org/3/library/traceback.html): only the current stack
# (no `f`) and an exception alone (its own `__traceback__`, no `value`/`tb`) pass.
CALL_SHAPES = MappingProxyType(
    {
        "traceback.print_stack": CallShape(0, frozenset({"limit", "file"})),
        "traceback.format_stack": CallShape(0, frozenset({"limit"})),
        "traceback.print_exception": CallShape(1, frozenset({"limit", "file", "chain"})),
        "traceback.format_exception": CallShape(1, frozenset({"limit", "chain"})),
    }
)

# Methods of values (whatever the receiver, since the reader does not know types) that a
# listed library's values have and that reach a file or other code. None is understood
# when handed around (`f = a.tofile`, `f = t.query`); read without a call it may only be
# described or looked into (`print(qs.query)`, django's SQL of a query set). `"write"`: the first argument, or the
# keyword in `PATH_KEYWORDS`, is a file written (a literal path, judged; with no argument the
# method returns text): numpy's `ndarray.tofile`/`dump`
# (https://numpy.org/doc/stable/reference/arrays.ndarray.html#array-conversion), pandas's
# `to_csv`/`to_json`/`to_string`/`to_html`/`to_pickle`
# (https://pandas.pydata.org/docs/reference/frame.html#serialization-io-conversion).
# `None`: never called: pandas's `eval`/`query` (evaluate expressions given as text,
# https://pandas.pydata.org/docs/reference/api/pandas.eval.html), `to_clipboard`
# (runs a clipboard program), `to_sql`/`to_gbq` (a database or the network) and the writers
# that import another library to write (`to_excel`, `to_parquet`, `to_feather`, `to_orc`,
# `to_hdf`, `to_xml`, `to_markdown`, `to_latex`, `to_stata`); unittest's loaders'
# `loadTestsFromName(s)` and `discover` (import modules by name,
# https://docs.python.org/3/library/unittest.html#unittest.TestLoader); a test result's
# `addError`, `addFailure`, `addSubTest` and `addExpectedFailure` (the `err` tuple's
# traceback is read through its attributes, which any object can carry, and the lines of
# the file it names are printed: https://docs.python.org/3/library/unittest.html#unittest.TestResult.addError).
VALUE_METHODS = MappingProxyType(
    {
        "tofile": "write", "dump": "write", "to_csv": "write", "to_json": "write",
        "to_string": "write", "to_html": "write", "to_pickle": "write",
        "eval": None, "query": None, "to_clipboard": None, "to_sql": None, "to_gbq": None,
        "to_excel": None, "to_parquet": None, "to_feather": None, "to_orc": None,
        "to_hdf": None, "to_xml": None, "to_markdown": None, "to_latex": None,
        "to_stata": None, "loadTestsFromName": None, "loadTestsFromNames": None,
        "discover": None, "addError": None, "addFailure": None, "addSubTest": None,
        "addExpectedFailure": None,
    }
)  # fmt: skip

# Attributes of values never understood in any form: pandas's plotting (`plot`, an accessor
# as in `t.plot.bar()`, `hist`, `boxplot`) imports matplotlib, which writes its caches under
# the home directory (https://pandas.pydata.org/docs/reference/frame.html#plotting).
# numpy's `ndarray.ctypes` (it holds the `ctypes` module) is refused as every attribute
# named like a standard-library module is.
VALUE_ATTRIBUTES = frozenset({"plot", "hist", "boxplot"})

PATH_KEYWORDS = frozenset({"path_or_buf", "path", "buf", "excel_writer", "fid", "file", "fname"})
"""Keywords of `VALUE_METHODS` writers that name the file."""

# Environment variables code may set (`os.environ[K] = 'literal'`,
# `os.environ.setdefault(K, 'literal')`, nothing else of `os.environ`): values for the
# workspace's own code to read. The environment is otherwise neither read (it holds
# secrets) nor changed.
ENV_WRITES = MappingProxyType(
    {
        "DJANGO_SETTINGS_MODULE": "names the settings module django imports "
        "(https://docs.djangoproject.com/en/stable/topics/settings/#designating-the-settings); "
        "django and its settings are the workspace's code",
    }
)

# Module attributes code may read although they start with `_`: descriptive strings.
MODULE_DUNDERS = frozenset({"__version__", "__name__", "__doc__", "__file__"})

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
        "walk": "read", "owner": "read", "is_mount": "read", "is_block_device": "read",
        "is_char_device": "read", "is_fifo": "read", "is_socket": "read",
        "is_junction": "read",
        # Python 3.14: copy or move the file to the path the argument names
        # (https://docs.python.org/3.14/library/pathlib.html#copying-moving-and-deleting).
        "copy": None, "copy_into": None, "move": None, "move_into": None,
    }
)  # fmt: skip

# `pathlib.PurePath` methods and properties: text operations on the path that touch no file
# (https://docs.python.org/3/library/pathlib.html#methods-and-properties; `absolute` only
# prefixes the working directory). Any other method called on a literal `Path` (`resolve`,
# `group`, a method of a later Python) is
# judged as a read of that path: `side` is never "nothing" for a known path.
PURE_PATH_METHODS = frozenset(
    {"absolute", "as_posix", "as_uri", "is_absolute", "is_relative_to", "is_reserved", "joinpath",
     "match", "full_match", "relative_to", "with_name", "with_stem", "with_suffix",
     "with_segments", "parts", "drive", "root", "anchor", "parents", "parent", "name",
     "suffix", "suffixes", "stem"}
)  # fmt: skip

# Methods of values that take a function *or the name of one*: pandas's `apply`, `agg`,
# `aggregate`, `transform` (a string calls the method of that name on the table,
# https://pandas.pydata.org/docs/reference/api/pandas.DataFrame.aggregate.html) and `pipe`,
# and the `aggfunc` and `func` keywords (`pivot_table`, `crosstab`, `groupby(...).agg`). A
# name given as text is understood only when it is one of `NAMED_FUNCTIONS`, reductions and
# transforms that compute on the values (`"to_csv"` would write a file).
FUNCTION_NAME_METHODS = frozenset({"apply", "agg", "aggregate", "transform", "pipe"})
FUNCTION_NAME_KEYWORDS = frozenset({"aggfunc", "func"})
NAMED_FUNCTIONS = frozenset(
    {"sum", "mean", "median", "min", "max", "count", "std", "var", "sem", "size", "first",
     "last", "nunique", "prod", "product", "any", "all", "idxmin", "idxmax", "cumsum",
     "cumprod", "cummax", "cummin", "rank", "pct_change", "diff", "shift", "abs",
     "unique", "describe", "quantile", "skew", "kurt", "kurtosis", "ohlc", "nth", "head",
     "tail", "mode", "value_counts", "round", "fillna", "ffill", "bfill", "sqrt", "exp",
     "log"}
)  # fmt: skip

# Methods a class the code defines may have under a dunder name: the interpreter calls them
# with the instance and the operands the code gives (construction, printing, comparison,
# arithmetic, containers, `with`). Hooks that run when classes are made or attributes
# looked up, or that hand out how to rebuild a value (`__init_subclass__`, `__set_name__`,
# `__class_getitem__`, `__getattr__`, `__getattribute__`, `__setattr__`, `__missing__`,
# `__reduce__`, `__deepcopy__`, `__fspath__`, `__del__`, `__format__`, …) are left out.
DUNDER_METHODS = frozenset(
    {"__init__", "__post_init__", "__repr__", "__str__", "__eq__", "__ne__", "__lt__",
     "__le__", "__gt__", "__ge__", "__hash__", "__bool__", "__len__", "__iter__",
     "__next__", "__contains__", "__getitem__", "__setitem__", "__delitem__", "__call__",
     "__enter__", "__exit__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
     "__rmul__", "__truediv__", "__rtruediv__", "__floordiv__", "__mod__", "__neg__",
     "__pos__", "__abs__", "__int__", "__float__"}
)  # fmt: skip
