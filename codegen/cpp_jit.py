"""jaxlib's C++ dispatch, used by astjax where it pays: jit calls on NumPy arguments go
through jaxlib's `PjitFunction` (argument signature, host-to-device transfer,
execution and result arrays in C++, as in JAX), and jit results that are trees of
builtin containers are rebuilt by jaxlib's C++ unflatten.

`PjitFunction` reads three process-wide jaxlib settings (x64, disable_jit, a post
hook). astjax registers its own, once, and keeps its x64 one equal to
`jax_enable_x64` -- but only while real JAX is not imported: JAX registers its own
settings when `jax._src.config` is imported, so from then on `available()` is False
and astjax dispatches in Python (api.Jitted), never through a PjitFunction whose
settings are JAX's. astjax's `Array` is not jaxlib's array type (that type is shared
with JAX, which installs its own methods on it: benchmarks/README.md has why and the
measured upper bound): a PjitFunction takes NumPy arguments only and its results are
wrapped (`results`); trees of Arrays are keyed by this registry's C++ flatten instead
(`dispatch_keys.add_tree_plan`). What it runs
on a hit is the executable `fastpath` describes, which is given only when the
argument types jaxlib will compute (shape, dtype canonicalized by the x64 setting)
are the executable's parameter types."""
from __future__ import annotations

import collections
import sys
import weakref

import numpy as np
from jaxlib import xla_client as xc

from astjax import dtypes, tree_util
from astjax.config import config

from . import runtime

_jax = xc._xla
_modules = sys.modules
ArrayImpl = xc.ArrayImpl   # what a PjitFunction returns on a hit (wrapped by `results`)
REAL_JAX_CONFIG = "jax._src.config"   # imported by real JAX, which then owns the settings
_BUILTIN_NODES = (tuple, list, dict, type(None))


def cpp_unflattener(treedef):
    """`leaves -> tree` by jaxlib's C++ unflatten for an astjax `treedef` made only of
    tuples, lists, dicts and None (the same structure and leaf order as
    `tree_util.tree_unflatten`, checked here once); None for any other treedef."""
    def builtin(td):
        return td.node_type is None or (td.node_type in _BUILTIN_NODES
                                        and all(builtin(c) for c in td.children))
    if not builtin(treedef):
        return None
    marks = list(range(treedef.num_leaves))
    leaves, cpp_def = runtime.cpp_pytrees.flatten(tree_util.tree_unflatten(treedef, marks))
    if leaves != marks or cpp_def.unflatten(marks) != tree_util.tree_unflatten(treedef, marks):
        return None
    return cpp_def.unflatten

# ------------------------------------------------------------------ PjitFunction


# the fields jaxlib's PjitFunction reads from a cache miss's "fast path data"
_FastPath = collections.namedtuple("_FastPath", (
    "xla_executable out_pytree_def in_shardings out_shardings out_avals out_committed "
    "kept_var_bitvec in_device_local_layouts const_args"))
_cache = _jax.PjitFunctionCache(capacity=4096)
_settings: dict = {}   # the jaxlib Config objects astjax registered


def available() -> bool:
    """Whether jaxlib's jit settings are (or can be made) astjax's: real JAX is not
    imported in this process."""
    return REAL_JAX_CONFIG not in _modules


def _register_settings():
    # (in the jit key: an entry made under one x64 setting must miss under the other;
    # without it a bool array's cumsum made under x64 returned int64 under x32)
    x64 = _jax.config.Config("astjax_enable_x64", bool(config.read("jax_enable_x64")),
                             include_in_jit_key=True)
    _jax.jax_jit.set_enable_x64_state(x64)
    _jax.jax_jit.set_disable_jit_state(_jax.config.Config("astjax_disable_jit", False))
    _jax.jax_jit.set_post_hook_state(_jax.config.Config("astjax_post_hook", None))
    _settings["x64"] = x64

    def follow(name, value):
        if name == "jax_enable_x64":
            x64.set_global(bool(value))
    config.add_listener(follow)


def make(name: str, cache_miss):
    """A jaxlib PjitFunction for one jitted function (positional NumPy arguments): on
    an argument signature it has not seen it calls `cache_miss(*args)`, which returns
    (results, `fastpath(...)` or None, False). None when not `available()`."""
    if not available():
        return None
    if not _settings:
        _register_settings()
    return _jax.pjit(name, None, cache_miss, [], [], object(), runtime.cpp_pytrees,
                     _no_fallback, _cache)


class WeakMiss:
    """A PjitFunction's cache-miss callable: `target()._cpp_miss`, holding the jitted
    wrapper weakly. The PjitFunction lives in the fast-path table that every wrapper
    of one function shares (compile_cache.shared_state); a bound method there would
    make a cycle through jaxlib that the collector never frees, keeping every function
    jitted on NumPy arrays (and its staged programs) for the life of the process.
    When the target is gone the miss raises; the calling wrapper then takes its
    Python path, which makes it the target."""

    __slots__ = ("target", "__weakref__")

    def __init__(self, owner):
        self.target = weakref.ref(owner)

    def __call__(self, *args, **kwargs):
        owner = self.target()
        if owner is None:
            raise ReferenceError("the jitted wrapper that set up this dispatch is gone")
        return owner._cpp_miss(*args, **kwargs)


class MissError(Exception):
    """Carries an error of astjax's own call path (a cache miss's `cache_miss`)
    through jaxlib's C++ dispatch, to be re-raised as it is by the caller."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


def _no_fallback(x, sharding, layout):
    raise TypeError(f"astjax's C++ dispatch takes NumPy arguments only, got {type(x)}")


def fastpath(executable, const_bufs, args, out):
    """What a PjitFunction needs to run `executable` (a runtime.Executable, its
    parameters `const_bufs` then one per NumPy argument of `args`) itself next time,
    returning `out`'s structure: an Array, or a flat tuple / list of Arrays. None when
    that does not hold, or the types jaxlib would give the arguments are not the
    executable's parameter types."""
    if const_bufs or not available() or not _settings:
        return None
    x64 = bool(config.read("jax_enable_x64"))
    if _settings["x64"].value != x64:
        return None
    params = executable.in_avals
    if len(params) != len(args) or any(
            type(a) is not np.ndarray or a.shape != p.shape or p.weak_type
            or dtypes.canonicalize(a.dtype) != p.dtype for a, p in zip(args, params)):
        return None
    if type(out) is runtime.Array:
        leaves = [out]
    elif type(out) in (tuple, list) and out and all(type(o) is runtime.Array for o in out):
        leaves = list(out)
    else:
        return None
    if [o.aval for o in leaves] != executable.out_avals:
        return None
    sh, n, k = executable._sharding, len(args), len(leaves)
    treedef = runtime.cpp_pytrees.flatten(out)[1]
    return _FastPath(executable.exe, treedef, [sh] * n, [sh] * k, executable.out_avals,
                     [True] * k, [True] * n, [None] * n, [])


def results(out):
    """A PjitFunction's results as astjax values: jaxlib arrays (a hit) wrapped as
    Arrays; a miss returns astjax's own results, passed through."""
    t = type(out)
    if t is ArrayImpl:
        return runtime.Array(out, out.aval)
    if (t is tuple or t is list) and out and type(out[0]) is ArrayImpl:
        return t([runtime.Array(o, o.aval) for o in out])
    return out
