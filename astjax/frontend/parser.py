"""Find and parse the source of a function or lambda with gast, with exact file
positions (the whole file is parsed once, so line and column numbers are the
user's own, and several lambdas on one line are told apart by their code's
column positions)."""
from __future__ import annotations

import __future__
import ast
import collections
import functools
import linecache
import sys
import threading
import types

from . import astbridge
from ..errors import SourceChangedError, SourceInfo, SourceNotFoundError, UnsupportedSyntaxError


# The parsed files kept, by total text: their trees are tens of thousands of tracked
# objects (a 600-line function about 15,000), and every collection of the older
# generations walks what is kept. A count of files (256 were kept) held 290,000 objects
# after the benchmark's long functions, four times what JAX holds then, so its one
# large collection cost 40-60 ms where it landed (issue 14: the nesting curve's depth-5
# point). The newest file is kept whatever its size: its other functions still parse it
# once.
_TEXT_BUDGET = 128 * 1024

_CacheInfo = collections.namedtuple("_CacheInfo", "hits misses currsize chars")


def _per_file(fn):
    """`fn(filename, text)` cached per file text, least recently used first out, while
    the texts kept exceed `_TEXT_BUDGET` characters."""
    cache: collections.OrderedDict = collections.OrderedDict()
    stats = {"hits": 0, "misses": 0, "chars": 0}

    lock = threading.Lock()

    @functools.wraps(fn)
    def cached(filename, text):
        key = (filename, text)
        with lock:
            value = cache.get(key)
            if value is not None:
                stats["hits"] += 1
                cache.move_to_end(key)
                return value
            stats["misses"] += 1
        value = fn(filename, text)
        with lock:
            if key not in cache:
                cache[key] = value
                stats["chars"] += len(text)
            while stats["chars"] > _TEXT_BUDGET and len(cache) > 1:
                (_, old), _ = cache.popitem(last=False)
                stats["chars"] -= len(old)
        return value

    def cache_clear():
        with lock:
            cache.clear()
            stats.update(hits=0, misses=0, chars=0)

    cached.cache_clear = cache_clear
    cached.cache_info = lambda: _CacheInfo(stats["hits"], stats["misses"], len(cache),
                                           stats["chars"])
    return cached


@_per_file
def _parse_file(filename: str, text: str):
    return ast.parse(text, filename)


_BLOCKS = ("body", "orelse", "handlers", "finalbody", "cases")


@_per_file
def _definitions(filename: str, text: str):
    """name -> its `def` nodes in a file (outer ones first): built once per file text,
    not walked again per function. A `def` is a statement, so only statements are
    visited (issue 14: expressions are most of a file's nodes)."""
    defs: dict = {}
    todo = list(_parse_file(filename, text).body)
    for n in todo:   # grows while it is read: breadth first
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(n.name, []).append(n)
        for field in _BLOCKS:
            todo.extend(getattr(n, field, None) or ())
    return defs


@_per_file
def _lambdas(filename: str, text: str):
    """line -> the lambdas starting there, in `ast.walk` order: built once per file
    text, on the first lambda asked for."""
    lambdas: dict = {}
    for n in ast.walk(_parse_file(filename, text)):
        if isinstance(n, ast.Lambda):
            lambdas.setdefault(n.lineno, []).append(n)
    return lambdas


@functools.lru_cache(maxsize=64)
def _compiled_codes(filename: str, text: str):
    """Every code object `text` compiles to (as the import system compiles a module), or
    None when it does not compile."""
    try:
        top = compile(text, filename, "exec", dont_inherit=True, optimize=sys.flags.optimize)
    except (SyntaxError, ValueError):
        return None
    out, todo = set(), [top]
    while todo:
        c = todo.pop()
        out.add(c)
        todo.extend(k for k in c.co_consts if isinstance(k, type(top)))
    return frozenset(out)


# the `__future__` features' compiler flags (a code object's `co_flags` carries the ones
# its file turned on, with the same bits)
_FUTURE_FLAGS = functools.reduce(
    lambda a, b: a | b, (getattr(__future__, n).compiler_flag for n in __future__.all_feature_names))


@_per_file
def _module_imports(filename: str, text: str) -> str:
    """The file's module-level imports (in compound statements too, not in functions or
    classes) as one line of statements; `__future__` imports left out (they are
    compile flags)."""
    out, todo = [], list(_parse_file(filename, text).body)
    for n in todo:   # grows while it is read
        if isinstance(n, ast.Import) or (isinstance(n, ast.ImportFrom)
                                         and n.module != "__future__"):
            out.append(ast.unparse(n))
        elif not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in _BLOCKS:
                todo.extend(getattr(n, field, None) or ())
    return "; ".join(out)


def _compiles_alone(code, node, filename, text) -> bool:
    """Whether `code` is what the top-level `def` `node` compiles to with its module's
    imports alone -- its lines kept in place, its file's `__future__` features on --
    which is the code the whole file gives it: what else a top-level function's code
    depends on in its file is which global names are imported modules (CPython 3.11
    calls a method of one differently). One definition compiled instead of the whole
    file (issue 14: the first call of a function in a long module compiled all of it).
    False when the codes differ, or for anything else (a nested function or a method:
    closures, `__class__`; a lambda): then the whole file is compiled, as before."""
    if (type(node) is not ast.FunctionDef or node.col_offset or code.co_freevars
            or code.co_qualname != code.co_name):
        return False
    first = min([d.lineno for d in node.decorator_list], default=node.lineno)
    lines = text.split("\n")[first - 1:node.end_lineno]
    imports = _module_imports(filename, text)   # after the def: its lines stay in place
    try:
        top = compile("\n" * (first - 1) + "\n".join(lines) + "\n" + imports + "\n", filename,
                      "exec", flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True,
                      optimize=sys.flags.optimize)
    except (SyntaxError, ValueError):
        return False
    return any(type(c) is types.CodeType and c == code for c in top.co_consts)


# where the import system's own source loader lives (exactly that class: subclasses, such
# as pytest's assertion rewriter, may compile something else)
_STD_LOADER_MODULES = ("importlib._bootstrap_external", "_frozen_importlib_external")


def _check_unchanged(fn, code, node, filename, text):
    """R6: the text about to be staged must be the text Python compiled `fn` from. When
    the module was loaded by the standard source loader (so its compilation can be
    reproduced; pytest's assertion rewriting, for one, changes the code), compile the
    text and look for `fn`'s code object in it; a file edited after the import no
    longer has it, and is a located SourceChangedError at the function's definition."""
    loader = type(getattr(fn, "__globals__", {}).get("__loader__"))
    if (loader.__name__ != "SourceFileLoader" or loader.__module__ not in _STD_LOADER_MODULES
            or filename.startswith("<")):
        return
    if _compiles_alone(code, node, filename, text):
        return
    codes = _compiled_codes(filename, text)
    if codes is not None and code in codes:
        return
    raise SourceChangedError(
        f"the source of {getattr(fn, '__qualname__', code.co_name)!r} in {filename} has changed "
        f"since its module was imported: astjax stages the source, Python runs the code it "
        f"imported, and the two differ", loc=SourceInfo(filename, code.co_firstlineno, 0))


def _file_text(filename):
    lines = linecache.getlines(filename)
    if not lines:
        linecache.checkcache(filename)
        lines = linecache.getlines(filename)
    return "".join(lines)


def find_function_node(fn):
    """The `ast` node (FunctionDef or Lambda) that defines `fn`, and the filename."""
    code = getattr(fn, "__code__", None)
    if code is None:
        raise SourceNotFoundError(f"{fn!r} is not a Python function", loc=SourceInfo())
    filename = code.co_filename
    text = _file_text(filename)
    if not text:
        raise SourceNotFoundError(
            f"cannot find the source of {getattr(fn, '__qualname__', fn)!r} "
            f"(defined in {filename})", loc=SourceInfo())
    is_lambda = code.co_name == "<lambda>"
    try:
        index = (_lambdas if is_lambda else _definitions)(filename, text)
    except SyntaxError:
        raise SourceNotFoundError(f"cannot parse {filename}", loc=SourceInfo()) from None
    first = code.co_firstlineno
    if is_lambda:
        cands = list(index.get(first, ()))
        if len(cands) > 1:
            pos = [(l, c) for l, _, c, e in code.co_positions()
                   if l is not None and c is not None and e is not None and e > c]

            def score(n):
                inside = sum((n.lineno, n.col_offset) <= p <= (n.end_lineno, n.end_col_offset)
                             for p in pos)
                # most of the code's positions inside; then the innermost such lambda
                return (-inside, n.end_lineno - n.lineno, n.end_col_offset - n.col_offset)
            cands.sort(key=score)
    else:
        cands = [n for n in index.get(code.co_name, ())
                 if first in (n.lineno, min([d.lineno for d in n.decorator_list], default=n.lineno))]
    if not cands:
        raise SourceNotFoundError(f"cannot find the definition of {code.co_name!r} in {filename}",
                                  loc=SourceInfo(filename, first, 0))
    node = cands[0]
    _check_unchanged(fn, code, node, filename, text)
    if isinstance(node, ast.AsyncFunctionDef):
        raise UnsupportedSyntaxError("async functions cannot be staged",
                                     loc=SourceInfo(filename, node.lineno, node.col_offset))
    return node, filename


def never_spells(filename, word) -> bool:
    """True when no identifier in the file can be `word` or start with it: its text is
    ASCII (identifiers are NFKC-normalised, so other text could spell it in other
    characters) and does not contain `word`. A cheap answer instead of a walk."""
    text = _file_text(filename)
    return text.isascii() and word not in text


def parse_function(fn):
    """gast node of `fn` (a FunctionDef or Lambda) with original positions."""
    node, filename = find_function_node(fn)
    return astbridge.to_gast(node), filename
