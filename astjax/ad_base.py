"""What the autodiff entry points share (`ad_api`: grad, value_and_grad, jvp, vjp,
linearize; `ad_jacobians`: jacfwd, jacrev, hessian; `checkpoint_api`, `custom_api`):
staging the function to differentiate (`_stage`, with `has_aux`'s split of the output:
`ad_aux`), closing over the arguments that are not differentiated, the argnums checks,
and the eager path of a transformed function (`_Transformed`): an eager call compiles
the transformed function with `jit`, cached per signature and shared by every wrapper
of the same function and options.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import inspect
from contextvars import ContextVar

import numpy as np

from . import core, hi_values, tree_util, util
from .api import Jitted
from .eager_outputs import hand_back
from .codegen import compile_cache
from .codegen import explicit as _explicit
from .extend.core import eager_arguments, eager_transform as _eager_transform
from .extend.core import in_eager_transform
from .frontend import trials
from .core import raw
from .errors import (ArgumentTypeError, ArgumentValueError, AstjaxError,
                     ConcretizationError, UndefinedVariableError, check_callable,
                     check_signature)
from .primitives.state import is_ref
from .primitives.vma_reverse import reverse_typed, staging_inputs, typed_backward
from .primitives.while_loop import eager_builder
from .staging import StagedCallable, arg_hints, as_callable, leaf_aval, stage_flat
from .staging import differentiation_level as _differentiating   # (staging.stage_once reads it)
from .transforms import ad
from .transforms.ad import inline
from .transforms.discharge import discharge_closed
from .ad_aux import OBJECTS_HIDDEN, hide_at, split_output
from . import ad_eager_values, ad_frames
from .traceback_util import at_boundary as _at_boundary, boundary as _boundary

__all__ = ["differentiating", "differentiation"]


def _staging():
    return core.current_builder() is not None


def differentiating() -> bool:
    """Is the function being staged now going to be differentiated (staged by
    grad, jvp, vjp, linearize, jacfwd/jacrev)? `custom_jvp`/`custom_vjp` then run
    only their rule, as JAX does."""
    return _differentiating.depth > 0


@contextlib.contextmanager
def differentiation(flag):
    """Inside the block: one more level of differentiation (True), one less (False:
    staging a custom rule, whose primals an outer level may still differentiate, as
    JAX's nested JVP tracers), or unchanged (None)."""
    old = _differentiating.depth
    if flag is not None:
        _differentiating.depth = old + 1 if flag else max(old - 1, 0)
    try:
        yield
    finally:
        _differentiating.depth = old


def _array_leaves(x) -> bool:
    """Are all leaves of pytree `x` values astjax can stage (arrays, scalars)?"""
    for leaf in tree_util.tree_leaves(x):
        try:
            core.get_aval(leaf)
        except TypeError:
            return False
    return True


def _concrete(x) -> bool:
    """Is pytree `x` known while staging (no staged value among its leaves)?"""
    return not any(isinstance(leaf, core.Tracer) for leaf in tree_util.tree_leaves(x))


def _all_refs(x) -> bool:
    return all(is_ref(leaf) for leaf in tree_util.tree_leaves(x))


def _close_over(fun, args, kwargs, nums, known=False):
    """`fun` with the non-differentiated arguments that are not arrays (functions,
    modules, ... as JAX allows) fixed, and with `known`, also those whose values are
    known while staging (JAX closes over them, so a Python int there may serve as a
    shape): (fun', args', kwargs', nums') where fun' takes only the remaining arguments."""
    def fix(a):   # (a Ref too: a custom_vjp bwd keeping it as a residual writes it)
        return not _array_leaves(a) or (known and (_concrete(a) or _all_refs(a)))
    fixed = [i for i, a in enumerate(args) if i not in nums and fix(a)]
    fixed_kw = [k for k, v in kwargs.items() if fix(v)]
    if not fixed and not fixed_kw:
        return fun, args, kwargs, nums
    keep = [i for i in range(len(args)) if i not in fixed]
    fun, args, kwargs = _fix_arguments(fun, args, kwargs, fixed, fixed_kw)
    return fun, args, kwargs, tuple(keep.index(i) for i in nums)


def _fix_arguments(fun, args, kwargs, positions, names):
    """(fun', args', kwargs'): `fun` with the arguments at `positions` and the keyword
    arguments `names` fixed to their values here; fun' takes the others."""
    fixed = {i: args[i] for i in positions}
    fixed_kw = {k: kwargs[k] for k in names if k in kwargs}
    target = as_callable(fun)

    def closed_over(*dyn, **dyn_kw):
        it = iter(dyn)
        full = [fixed[i] if i in fixed else next(it) for i in range(len(args))]
        return target(*full, **dyn_kw, **fixed_kw)
    return (raw(closed_over), tuple(a for i, a in enumerate(args) if i not in fixed),
            {k: v for k, v in kwargs.items() if k not in fixed_kw})


# what staging an eager transformation's function raises when it needs an argument's
# value (a shape, a Python `if`, a `jit` static argument): staged again with them static
_NEEDS_VALUES = (ConcretizationError, UndefinedVariableError, core.UnhashableStagedError)

_CONCRETE = "concrete arguments"  # key in a transform's shared state (see __call__)


class _Transformed(StagedCallable):
    """Base: eager calls compile `self` with `jit` (arguments that are not arrays as
    static arguments)."""
    _share = None  # attributes that with `fun` decide the result: share compiled state

    def _state(self):
        """{static positions or None: Jitted}, shared by every wrapper of the same
        function and options (compile_cache.shared_state): grad(f)(x) per step. Looked
        up on every call, not kept by the wrapper: JAX's eager transforms trace on every
        call, so `g = grad(f)` called after a global `f` reads was rebound (or a captured
        variable reassigned) must stage again, not reuse the first call's program."""
        opts = self._share and (type(self),) + tuple(getattr(self, a) for a in self._share)
        if opts and compile_cache.shares(self.fun, opts):
            return compile_cache.shared_state(self.fun, opts, dict, values=True)
        own = self.__dict__.get("_jit_state")   # (anything else: this wrapper's own)
        if own is None:
            own = self._jit_state = compile_cache.Guarded(dict)
        return own.get(self.fun)

    _jitted = property(lambda self: self._state().get(None))  # its eager calls' Jitted
    _hiding = None   # (an eager call's twin: where its aux is, `_eager_program`)

    def _aux_path(self):
        """Where the aux sits in what this transform returns (None: no has_aux)."""
        return None

    def _eager_program(self):
        """What an eager call compiles: `self`, or with has_aux a twin whose staging
        hides the aux's Python objects from the jit (`ad_aux`), so they come back
        as the objects the function returned, as JAX's eager aux does."""
        path = self._aux_path()
        if path is None:
            return self
        twin = copy.copy(self)   # (sharing `_jit_state`)
        twin._hiding = path
        return twin

    def __init__(self, fun):
        check_callable(fun, type(self).__name__.strip("_").lower())
        self.fun = fun
        try:
            util.wraps_function(self, fun)
        except (AttributeError, TypeError):
            pass
        try:
            self.__signature__ = inspect.signature(fun)
        except (TypeError, ValueError):
            pass

    def _nondiff(self, args) -> tuple:
        """Positions of the positional arguments this transform does not differentiate."""
        return ()

    @_boundary
    def __call__(self, *args, **kwargs):
        if _staging():
            out = self.stage_inline(*args, **kwargs)
            return out if self._hiding is None else hide_at(out, self._hiding)
        if hi_values.has_mutable((args, kwargs)):   # hijax Variables: jit's boundary
            return Jitted(self)(*args, **kwargs)    # (their arrays in, states stored back)
        static = tuple(i for i, a in enumerate(args) if not _array_leaves(a))
        static_kw = tuple(k for k, v in kwargs.items() if not _array_leaves(v))
        try:
            with _eager_transform(), eager_builder():   # (an extension primitive's impl
                cache = self._state()                    # may lower here)
                learned = cache.get(_CONCRETE, ())
                if learned:
                    static = tuple(sorted(set(static) | {i for i in learned if i < len(args)}))
                    static_kw = tuple(sorted(set(static_kw) | set(kwargs)))
                try:
                    with _staging_branches() as seen:
                        out = self._call_compiled(cache, static, static_kw, args, kwargs)
                    return self._decided(cache, seen, out, args, kwargs)
                except _NEEDS_VALUES as first:
                    # Eager JAX differentiates with concrete values: an argument it does not
                    # differentiate may serve as a shape or a Python `int`. Retry with those
                    # arguments static, and remember it for this function and options.
                    fixed = tuple(i for i in self._nondiff(args) if i not in static)
                    fixed_kw = tuple(k for k in kwargs if k not in static_kw)
                    if not fixed and not fixed_kw:
                        return self._call_known(args, kwargs, first)
                    try:
                        out = self._call_compiled(cache, tuple(sorted(static + fixed)),
                                                  tuple(sorted(static_kw + fixed_kw)),
                                                  args, kwargs)
                    except _NEEDS_VALUES:
                        return self._call_known(args, kwargs, first)
                    cache[_CONCRETE] = fixed
                    return out
        except Exception as e:   # (filtered here, if this is the outermost boundary)
            _at_boundary(e)
            raise

    _known_values = False   # JAX runs this transform on concrete primal values

    def _call_known(self, args, kwargs, first):
        """An eager call whose function needs its values while staging (a Python `if`
        on one guarding a `raise`): staged for these values (`_stage_known`), as JAX's
        eager transformation decides the `if` on the primal, compiled and run, and not
        kept (a call with other values may take the other path); else the first error
        (`first`)."""
        if not self._known_values:
            raise first
        fun, _, _ = _fix_arguments(self._eager_program(), args, kwargs, range(len(args)),
                                   tuple(kwargs))
        try:   # (the arguments are constants of the program: `_stage` sees their values)
            return Jitted(fun).run_compiled((), {})
        except (ConcretizationError, UndefinedVariableError):
            raise first from None

    def _decided(self, cache, seen, out, args, kwargs):
        """`out`, or where the program stages a `cond` (a Python `if` on a staged value)
        and a result is not finite, the results of the function staged for these values
        (`_call_known`): JAX's eager transformation runs only the branch the primal
        values take, so a branch not taken adds no `0 * inf` (NaN) to a cotangent --
        `grad` of `y = sqrt(x); return y if x > 0 else 0. * x` at -1 is 0, not NaN.
        Only a non-finite result can differ (a branch not taken adds exact zeros)."""
        if seen[0]:
            cache[_BRANCHES] = True
        if not (self._known_values and cache.get(_BRANCHES)) or _finite(out):
            return out
        try:
            with _branches_decided():
                return self._call_known(args, kwargs, None)
        except Exception:   # (not stageable for its values: the compiled result stands)
            return out

    def _call_compiled(self, cache, static, static_kw, args, kwargs):
        """Run `self` compiled with the arguments at `static` / `static_kw` static. A
        program whose aux held Python objects is not kept (`ad_aux.OBJECTS_HIDDEN`)."""
        key = None if not static and not static_kw else (static, static_kw)
        seen = OBJECTS_HIDDEN[0]
        try:
            return self._run_compiled(cache, key, args, kwargs)
        finally:
            if OBJECTS_HIDDEN[0] != seen:
                cache.pop(key, None)

    def _run_compiled(self, cache, key, args, kwargs):
        if key is None:
            jitted = cache.get(None)
            if jitted is None:
                jitted = cache[None] = Jitted(self._eager_program())
            return jitted.run_compiled(args, kwargs)
        static, static_kw = key
        # arguments that are not arrays (functions, modules, ...) are static
        try:
            hash((tuple(args[i] for i in static), tuple(kwargs[k] for k in static_kw)))
        except TypeError:  # unhashable: close over them, uncached
            fun, dyn, dyn_kw = _fix_arguments(self._eager_program(), args, kwargs, static,
                                              static_kw)
            return Jitted(fun).run_compiled(dyn, dyn_kw)
        jitted = cache.get((static, static_kw))
        if jitted is None:
            jitted = cache[static, static_kw] = Jitted(self._eager_program(),
                                                       static_argnums=static,
                                                       static_argnames=static_kw)
        return jitted.run_compiled(args, kwargs)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)


# an eager transform whose program stages a `cond` (`_Transformed._decided`): a key of
# its shared state, and while it stages, the flag `_stage` sets
_BRANCHES = object()
_BRANCHES_SEEN: ContextVar = ContextVar("astjax_branches_seen", default=None)
# set while `_decided` stages the function again with its `if`s decided on the values
_BRANCHES_DECIDED: ContextVar = ContextVar("astjax_branches_decided", default=False)


@contextlib.contextmanager
def _staging_branches():
    """[whether a concrete transform staged under this call stages a `cond`]."""
    seen = [False]
    token = _BRANCHES_SEEN.set(seen)
    try:
        yield seen
    finally:
        _BRANCHES_SEEN.reset(token)


def _inexact(x) -> bool:
    dt = getattr(x, "dtype", None)
    return dt is not None and np.issubdtype(np.dtype(dt), np.inexact)


def _finite(out) -> bool:
    """Are all inexact leaves of the concrete pytree `out` finite?"""
    return all(np.isfinite(np.asarray(x)).all() for x in tree_util.tree_leaves(out)
               if _inexact(x))


@contextlib.contextmanager
def _branches_decided():
    """Inside the block: a concrete transform (`_stage(concrete=True)`) stages its
    function with its `if`s decided on the values (`_stage_known`), as
    `_Transformed._decided` does for a non-finite result."""
    token = _BRANCHES_DECIDED.set(True)
    try:
        yield
    finally:
        _BRANCHES_DECIDED.reset(token)


def _argnums_tuple(argnums):
    """`argnums` as a tuple of ints; a located error for anything else (JAX:
    TypeError for a non-integer, ValueError for an empty one; an index out of range is
    checked by the caller against the argument count)."""
    nums = (argnums,) if isinstance(argnums, int) else argnums
    try:
        nums = tuple(nums)
    except TypeError:
        nums = None
    if nums is None or not all(isinstance(i, int) and not isinstance(i, bool) for i in nums):
        raise ArgumentTypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}",
                                hint="e.g. argnums=0 or argnums=(0, 2)")
    if not nums:   # (JAX: a ValueError, from the max of no index)
        raise ArgumentValueError(f"argnums={argnums!r} names no argument to differentiate "
                                 "with respect to", hint="e.g. argnums=0 or argnums=(0, 2)")
    return nums


def _outside_argnums(argnums, args) -> tuple:
    """Positions of `args` not named by `argnums` (() when argnums is malformed: the
    transform reports that itself)."""
    try:
        nums = {i % len(args) for i in _argnums_tuple(argnums)} if args else set()
    except AstjaxError:
        return ()
    return tuple(i for i in range(len(args)) if i not in nums)


def _stage(fun, args, kwargs, differentiated=True, what="differentiation", nums=None,
           reverse=None, aux=None, concrete=False):
    """Stage fun(*args, **kwargs) -> (closed, in_tree, out_tree, leaves) for differentiation
    (`differentiating()` set while it stages; None: unchanged), or a located ArityError.
    `what`: the transformation as a reference from outside sees it (`vmap` for `jacfwd`);
    `nums`: the positions differentiated; `reverse`: a reverse mode (vma.reverse_typed);
    `aux`: with has_aux, the transform's name: `fun` returns (value, aux), out_tree is a
    pair whose aux part keeps the leaves that are not staged as objects (`ad_aux`).
    `concrete`: a transform JAX runs on concrete primals (grad, vjp, jvp, jacobians):
    called with concrete values (not while staging), a function whose staging needs a
    value (`if x < 3:` guarding a `raise`) is staged again with its inputs' values known
    (`_stage_known`)."""
    check_signature(fun, args, kwargs)
    leaves, in_tree = tree_util.flatten_for_staging((tuple(args), dict(kwargs)))
    avals = [leaf_aval(x) for x in leaves]
    hints = arg_hints(fun, args, kwargs)
    flags = [True] * len(leaves) if nums is None else [
        i in nums for i, a in enumerate(args) for _ in tree_util.staging_leaves(a)]
    flags = flags + [False] * (len(leaves) - len(flags))
    target = _differentiated(fun, flags, leaves, aux)
    with differentiation(differentiated), _explicit.staging_nested(leaves), \
            eager_arguments(args, kwargs, nums), staging_inputs(leaves), \
            eager_builder(function=concrete):
        unknown = any(isinstance(x, core.Tracer) and x.known is None for x in leaves)
        try:
            if concrete and _BRANCHES_DECIDED.get() and not unknown:
                closed, out_tree = _stage_known(target, in_tree, avals, hints, leaves,
                                                flags, None)
            else:
                # (a handler of the user's catching the error that makes the function be
                # staged again with its values: that staging stands, as JAX's does)
                with trials.trial() if concrete and (not unknown or in_eager_transform()) \
                        else contextlib.nullcontext():
                    closed, out_tree = stage_flat(target, in_tree, avals, hints)
        except (ConcretizationError, UndefinedVariableError) as e:
            if not concrete or unknown:
                raise
            closed, out_tree = _stage_known(target, in_tree, avals, hints, leaves, flags, e)
    seen = _BRANCHES_SEEN.get()
    if concrete and seen is not None and not seen[0]:
        seen[0] = any(e.primitive.name == "cond" for e in core.all_eqns(closed))
    closed = discharge_closed(closed, what)   # mutable references -> values
    closed = reverse_typed(closed, leaves, reverse[0]) if reverse else closed   # (vma.py)
    return closed, in_tree, out_tree, leaves


@contextlib.contextmanager
def _known_any_size():
    """Values of any size are computed while staging (not only small ones)."""
    limit, core._KNOWN_LIMIT = core._KNOWN_LIMIT, 1 << 62
    try:
        yield
    finally:
        core._KNOWN_LIMIT = limit


def _host_value(x, aval):
    """`x`'s value (a staged value's known one) as a NumPy array of `aval`'s dtype, or
    None (a key, a reference)."""
    try:
        return np.asarray(x.known if isinstance(x, core.Tracer) else x, aval.dtype)
    except (TypeError, ValueError):
        return None


# while `_stage_known` stages: (its builder, the inputs that are differentiated)
_KNOWN_STAGING: ContextVar = ContextVar("astjax_known_staging", default=None)
# what JAX refuses of a value it differentiates (a JVP tracer) but allows of a concrete
# one: `int()`, an index, `.item()` and `bool()` are allowed on both
_REFUSED = ("`float()`", "`complex()`", "conversion to a NumPy array", "`.tolist()`")


def _refuse_known(tracer, what) -> bool:
    """`core.refuse_known`: whether the value known for `tracer` while `_stage_known`
    stages is not to be used for `what`, as JAX refuses it of a JVP tracer -- a float
    value computed from a differentiated input (conservatively, any float value of a
    builder inside: a loop body, a branch). Then the staging's own error is raised."""
    frame = _KNOWN_STAGING.get()
    if frame is None or what not in _REFUSED or not core.differentiable(tracer.aval):
        return False   # (a comparison's result, an integer: no tangent, concrete to JAX)
    builder, differentiated = frame
    if tracer.builder is not builder:
        return True
    stack, seen = [tracer._var], set()
    while stack:
        v = stack.pop()
        if v in differentiated:
            return True
        eqn = builder.producer.get(v)
        if eqn is not None and id(eqn) not in seen:
            seen.add(id(eqn))
            stack.extend(a for a in eqn.invars if not isinstance(a, core.Literal))
    return False


core.refuse_known[0] = _refuse_known


def _stage_known(target, in_tree, avals, hints, leaves, flags, first):
    """Stage `target` with each input's value known (the concrete `leaves`), so a Python
    `if`/`while`/`and` on a value computed from them is decided while staging, as JAX's
    eager grad / vjp / jvp decide it on the primal values: the program is for these
    values only (not kept: a transform calls this on every call that needs it). Where
    that does not help either, the first error (`first`) stands."""
    values = [_host_value(x, a) for x, a in zip(leaves, avals)]

    def known(*args, **kwargs):
        tracers = tree_util.flatten_for_staging((args, kwargs))[0]
        for t, v in zip(tracers, values):
            if type(t) is core.Tracer:
                t.known = v
        token = _KNOWN_STAGING.set((core.current_builder(), {
            t._var for t, f in zip(tracers, flags) if f and isinstance(t, core.Tracer)}))
        try:
            return target(*args, **kwargs)
        finally:
            _KNOWN_STAGING.reset(token)
    known.__wrapped__ = target
    known.__name__ = target.__name__
    try:
        with _known_any_size():
            return stage_flat(known, in_tree, avals, hints)
    except (ConcretizationError, UndefinedVariableError):
        raise first from None


def _differentiated(fun, flags, passed, aux):
    """What `_stage` stages for `fun`: it registers its builder as one whose inputs
    `flags` are differentiated, called with `passed` (`ad_frames`: which values are
    JAX's JVP tracers) and,
    with has_aux (`aux`: the transform's name), returns `(value, HiddenAux(aux))`
    (`ad_aux.split_output`)."""
    call = as_callable(fun)

    def differentiated(*args, **kwargs):
        ad_frames.register(core.current_builder(), flags, passed)
        out = call(*args, **kwargs)
        if aux is None:
            ad_eager_values.returned(out)
        return out if aux is None else split_output(out, aux)
    # (messages and the staging hooks name the user's function; its module is not
    # copied: this wrapper is astjax's, never source-converted)
    differentiated.__wrapped__ = fun
    differentiated.__name__ = getattr(fun, "__name__", type(fun).__name__)
    return differentiated


def _leaf_ranges(args):
    out, k = [], 0
    for a in args:
        n = len(tree_util.tree_leaves(a))
        out.append(range(k, k + n))
        k += n
    return out


def _vjp_closed(closed, diff_mask, ct_mask, linearized=None):
    """(fwd, bwd, out_nz, nres) with bwd: res + cts (outputs in ct_mask & nonzero) ->
    cts of the differentiable inputs in diff_mask; `linearized`: `closed` already
    linearized (`ad.linearize_jaxpr`) by the caller."""
    known, lin, out_nz, nres = linearized or ad.linearize_jaxpr(closed, diff_mask)
    n_t = len(lin.jaxpr.invars) - nres
    nz_outs = [i for i, z in enumerate(out_nz) if z]
    bwd = typed_backward(closed, known, lambda: ad.transpose_jaxpr(lin, [False] * nres + [True] * n_t, [
        not ct_mask[i] for i in nz_outs]), nres, diff_mask, [i for i in nz_outs if ct_mask[i]])
    return known, bwd, out_nz, nres


def _run(closed, args, hosts=False):
    """Run a closed jaxpr: inline while staging, else compile and run (an argument
    passed through is itself: `eager_outputs.hand_back`, with `hosts`)."""
    if _staging():
        return inline(closed, list(args))
    outs = Jitted(raw(lambda *a: inline(closed, list(a))), eager=True)(*args)
    return hand_back(closed, args, outs, hosts)

