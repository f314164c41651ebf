"""Staging a Python callable into a ClosedJaxpr: flatten pytree arguments, make
avals (Python scalars weak), run the converted function on Tracers, flatten the
result. `jit` and every transform stage through `stage_flat`."""
from __future__ import annotations

import inspect
import threading

from . import core, dtypes, tree_util
from .core import ShapedArray
from .errors import (USER_CODE, ArgumentTypeError, ArgumentValueError, caller_location,
                     def_location, function_name)
from .frontend import converter, operators, sourceless
from .primitives.cond import staged_once


def leaf_aval(x, where="argument") -> ShapedArray:
    """The aval of an argument leaf, or a located ArgumentTypeError (JAX: TypeError) at
    the user's call."""
    try:
        return core.get_aval(x)
    except TypeError:
        raise ArgumentTypeError(f"{where} of type {type(x).__name__} ({x!r:.40}) is not an "
                                "array",
                                hint="pass arrays, Python scalars, or pytrees (tuples, lists, "
                                     "dicts) of them; mark other arguments static with "
                                     "static_argnums", loc=caller_location()) from None


def as_callable(fun):
    """What runs on Tracers: a staged-callable runs itself, user code is converted,
    and everything else runs as it is: library code, code converted already, and a
    function without retrievable source (`frontend/sourceless.py`: traced as JAX
    traces it, with a one-time warning). A user function whose file changed since
    its import is a located SourceChangedError here: staging other text than Python
    runs would compute something else."""
    if isinstance(fun, StagedCallable):
        return fun
    target = operators._convertible(fun)
    if target is not None:
        return target
    plain = getattr(fun, "__func__", fun)
    if sourceless.is_traced(fun):
        return sourceless.traced(fun)
    if (inspect.isfunction(plain) and plain.__code__ not in USER_CODE
            and (plain is fun or inspect.ismethod(fun))   # (not an object with __func__:
            and operators._user_function(plain)):          # its own __call__ runs, as JAX)
        return converter.convert(fun)  # raises SourceChangedError with a location
    return fun


core.function_converter = as_callable  # how lax.cond/scan/while_loop stage user functions


def param_names(fun):
    try:
        return list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        return []


# f(fun, None | ClosedJaxpr, state) before and after staging, while a flag of
# `config_guards` (no_tracing, enable_checks, check_tracer_leaks) is on
staging_hook = [None]
# f(fun, ClosedJaxpr, None) after staging: the key-reuse checker (`random/key_reuse.py`)
key_reuse_hook = [None]


def stage_callable(fun, args, kwargs=None, hints=None):
    """Stage `fun(*args, **kwargs)` where the array leaves of args/kwargs become
    Tracers. Returns (ClosedJaxpr, in_tree, out_tree)."""
    kwargs = kwargs or {}
    leaves, in_tree = tree_util.flatten_for_staging((args, kwargs))
    avals = [leaf_aval(x) for x in leaves]
    return stage_flat(fun, in_tree, avals, hints) + (in_tree,)


def stage_flat(fun, in_tree, avals, hints=None):
    """Stage with the argument tree `in_tree` and leaf avals. Returns
    (ClosedJaxpr, out_tree)."""
    target = as_callable(fun)
    out_tree = [None]

    def body(*tracers):
        args, kwargs = tree_util.tree_unflatten(in_tree, tracers)
        out = target(*args, **kwargs)
        outs, out_tree[0] = tree_util.flatten_for_staging(out)
        for o in outs:
            if not core.is_array_value(o) and not isinstance(o, core.WeakConst):
                raise ArgumentTypeError(f"function {function_name(fun)} (defined at "
                                        f"{def_location(fun)}) returned a "
                                        f"{type(o).__name__} ({o!r:.40}), which is not an "
                                        "array",
                                        hint="return arrays, Python scalars, or pytrees of "
                                             "them", loc=caller_location())
        return outs

    hook = staging_hook[0]
    if hook is None:
        cj = core.stage(body, avals, hints)
    else:   # a checking flag is on (config_guards)
        state: dict = {}
        hook(fun, None, state)
        cj = core.stage(body, avals, hints)
        hook(fun, cj, state)
    if key_reuse_hook[0] is not None:
        key_reuse_hook[0](fun, cj, None)
    return cj, out_tree[0]


class _Differentiation(threading.local):
    """How many differentiations the function being staged now is under (set by
    `ad_api.differentiation`, read by `ad_api.differentiating` and `stage_once`)."""
    depth = 0


differentiation_level = _Differentiation()
_STAGED = object()   # the tag of a staging's key in a `stage_once` `shared` table


def array_signature(args, kwargs, refs=False):
    """(leaves, in_tree, avals) of the array leaves of `args` / `kwargs`, or None when
    a leaf is not an array (a function, a mutable reference; with `refs`, a reference
    of the program being staged is a leaf too)."""
    leaves, in_tree = tree_util.flatten_for_staging((tuple(args), dict(kwargs)))
    avals = []
    for x in leaves:
        try:
            a = core.get_aval(x)
        except TypeError:
            return None
        if isinstance(a, core.AbstractRef) and not (refs and isinstance(x, core.Tracer)):
            return None   # a mutable reference: not staged as a value
        avals.append(a)
    return leaves, in_tree, tuple(avals)


def stage_once(owner, key, make, shared=None, eager=None):
    """`make()` -> (ClosedJaxpr, out_tree): the staging of an inner `jit(f)` or
    `checkpoint(f)` on the input types `key` names (with its static arguments), made
    once per program and, where it can be, once per process, as JAX caches traced
    jaxprs:

    - while one builder is open, by `owner` (the state every wrapper of one function
      and its options shares, `compile_cache.shared_state`) and `key`
      (`primitives.cond.staged_once`);
    - across programs in the dict `shared` (that state), when the staging closes over
      no staged value: it holds only constants, so any program may inline it;
      `eager()`: the staging of an eager call with this key, or None.

    The differentiation depth is part of the key: `custom_jvp` functions stage
    differently under it."""
    full = (key, differentiation_level.depth)
    try:
        hash(full)
    except TypeError:   # an unhashable static argument: staged at each call
        return make()
    if shared is not None:
        hit = shared.get((_STAGED, full))
        if hit is None and eager is not None and not differentiation_level.depth:
            hit = eager()
        if hit is not None:
            return hit
    staged = staged_once(owner, full, make)
    if shared is not None and not any(isinstance(c, core.Tracer) for c in staged[0].consts):
        shared[(_STAGED, full)] = staged
    return staged


def kept_staging(shared, key):
    """(ClosedJaxpr, out_tree) a program's inner call left in `shared` for the input
    types `key` outside any differentiation (`stage_once`), or None: an eager call of
    the same function stages it no more, as in JAX."""
    return shared.get((_STAGED, (key, 0)))


def python_scalar(x):
    """A weakly typed constant (`core.WeakConst`: a Python scalar a staged function
    returned, re-staged) as the Python scalar it came from, when the dtype is that
    scalar's default; anything else unchanged."""
    if type(x) is core.WeakConst:
        for kind in (int, float, complex):
            if dtypes.python_scalar_dtype(kind(0)) == x.aval.dtype:
                return kind(x.val)
    return x


def staged_constant(x):
    """A weakly typed constant (`core.WeakConst`, e.g. a literal result of a re-staged
    program) as a staged value of the current builder with its value known -- what
    JAX's tracer of a constant is: it has `.shape`, computes (`v - 1`) and leaves a
    transform as an Array, not a Python scalar; anything else unchanged."""
    b = core.current_builder()
    if type(x) is core.WeakConst and b is not None:
        return core.Tracer(b, core.Literal(x.val[()], x.aval), x.val)
    return x


def arg_hints(fun, args, kwargs):
    """A naming hint per flattened leaf: the parameter name it came from."""
    names = param_names(fun)
    hints = []

    def add(name, value):
        leaves, tree = tree_util.tree_flatten(value)
        # leaves of a container argument are named where the function unpacks them
        # (`for W, b in params:`); a plain argument keeps its parameter name
        hints.extend([name] if tree.node_type is None else [None] * len(leaves))
    for i, a in enumerate(args):
        add(names[i] if i < len(names) else f"arg{i}", a)
    for k, v in sorted(kwargs.items()):
        add(k, v)
    return hints


def leaf_labels(fun, args, kwargs):
    """A label per flattened leaf for error messages: its parameter's name, quoted."""
    names = param_names(fun)
    labels = []
    for i, a in enumerate(args):
        n = names[i] if i < len(names) else f"arg{i}"
        labels += [f"'{n}'"] * len(tree_util.tree_leaves(a))
    for k, v in sorted(kwargs.items()):
        labels += [f"'{k}'"] * len(tree_util.tree_leaves(v))
    return labels


def mapped_leaves(what, leaves, dims, labels, loc, hint):
    """Avals, normalized axes and (label, shape, axis, size) of the mapped leaves, for
    vmap and pmap; a located ArgumentValueError (JAX: ValueError) when a mapped axis
    is out of range."""
    avals, norm, sizes = [], [], []
    for label, x, d in zip(labels, leaves, dims):
        a = leaf_aval(x, f"{what} argument")
        if d is not None:
            if not -a.ndim <= d < a.ndim:
                raise ArgumentValueError(f"{what} was asked to map argument {label} along "
                                         f"axis {d}, so its rank should be at least "
                                         f"{d + 1 if d >= 0 else -d}, but it is {a.ndim} "
                                         f"(shape {a.shape})", hint=hint, loc=loc)
            d %= a.ndim
            sizes.append((label, a.shape, d, a.shape[d]))
        avals.append(a)
        norm.append(d)
    return avals, norm, sizes


def donated_leaves(donate_argnums, dyn_args, statics, dyn_kwargs=None, donate_argnames=()):
    """The flat leaf indices of the dynamic arguments `donate_argnums` names (positions
    in the call, static arguments counted; an out-of-range position donates nothing,
    as in JAX) and of the keyword arguments `donate_argnames` names (their leaves follow
    the positional ones, keys sorted); `statics` is the call's (position or name, value)
    pairs."""
    if not (donate_argnums or donate_argnames):
        return ()
    static_pos = {i for i, _ in statics if isinstance(i, int)}
    positions = [i for i in range(len(dyn_args) + len(static_pos)) if i not in static_pos]
    out, k = [], 0
    for pos, a in zip(positions, dyn_args):
        n = len(tree_util.tree_leaves(a))
        if pos in donate_argnums:
            out.extend(range(k, k + n))
        k += n
    for name in sorted(dyn_kwargs or ()):
        n = len(tree_util.tree_leaves(dyn_kwargs[name]))
        if name in donate_argnames:
            out.extend(range(k, k + n))
        k += n
    return tuple(out)


def wrapped_signature(self):
    """`__signature__` of a transform object (`jit(f)`, `vmap(f)`, `pmap(f)`): `f`'s,
    as JAX's jitted functions expose theirs -- without it `inspect` takes the object
    (which has `__get__`) for a builtin method and finds no signature; AttributeError
    when `f` has none."""
    try:
        return inspect.signature(self.fun)
    except (TypeError, ValueError):
        raise AttributeError("__signature__") from None


class StagedCallable:
    """Base of every callable astjax makes (`jit`, `grad`, `vmap`, ...). Called
    while staging it stages inline; called on concrete values it compiles with XLA
    (cached per signature) and runs."""

    def stage_inline(self, *args, **kwargs):
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        raise NotImplementedError
