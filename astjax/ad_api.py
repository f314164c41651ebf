"""The public autodiff API: `grad`, `value_and_grad`, `jvp`, `vjp`, `linearize`,
`jacfwd`, `jacrev`, `hessian`, `stop_gradient` (`custom_jvp` / `custom_vjp` are in
`astjax.custom_api`, `checkpoint` / `remat` in `astjax.checkpoint_api`).

Every transformed function is a `StagedCallable`. Called while staging (inside `jit`
or another transform) it stages the user function on the current values' avals,
transforms the jaxpr (`transforms.ad`), cleans it up (simplify, CSE, DCE) and
inlines the result into the enclosing builder. Called on concrete values it runs
through `api.Jitted(self)`, so eager `grad(f)(x)` runs compiled (cached per
signature).
"""
from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import core, dtypes, tree_util, util
from .primitives import ops as lax  # (not .lax: lax.reduce uses this module)
from .ad_dtypes import (
    check_rev_input as _check_rev_input,
    check_rev_output as _check_rev_output,
    check_cotangent as _check_cotangent,
    check_fwd_input as _check_fwd_input,
    check_inputs as _check_inputs)
from .api import Jitted
from .codegen import compile_cache
from .codegen import explicit as _explicit
from .extend.core import eager_arguments, eager_transform as _eager_transform
from .core import raw
from .errors import (ArgumentError, ArgumentTypeError, ArgumentValueError, AstjaxError,
                     ConcretizationError,
                     DifferentiationTypeError,
                     check_callable, check_signature)
from .primitives.scan import scan_raw
from .primitives.custom_derivatives import stop_gradient
from .primitives.state import is_ref
from .primitives.vma_reverse import check_cotangents, reverse_typed, staging_inputs, typed_backward
from .primitives.while_loop import eager_builder
from .staging import (StagedCallable, arg_hints, as_callable, leaf_aval, python_scalar,
                      stage_flat)
from .staging import differentiation_level as _differentiating   # (staging.stage_once reads it)
from .transforms import ad
from .transforms.ad import Zero, cleanup, differentiable, float0, inline
from .transforms.discharge import discharge_closed
from .ad_refs import VjpFunction
from .traceback_util import user_traceback

__all__ = ["grad", "value_and_grad", "jvp", "vjp", "linearize", "jacfwd", "jacrev",
           "hessian", "stop_gradient", "float0",
           "differentiating", "differentiation"]


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


_CONCRETE = "concrete arguments"  # key in a transform's shared state (see __call__)


class _Transformed(StagedCallable):
    """Base: eager calls compile `self` with `jit` (arguments that are not arrays as
    static arguments)."""
    _share = None  # attributes that with `fun` decide the result: share compiled state

    def _state(self):
        """{static positions or None: Jitted}, shared by every wrapper of the same
        function and options (compile_cache.shared_state): grad(f)(x) per step."""
        if "_jit_state" not in self.__dict__:
            opts = self._share and (type(self),) + tuple(getattr(self, a) for a in self._share)
            self._jit_state = compile_cache.shared_state(self.fun, opts, dict) if opts else {}
        return self._jit_state

    _jitted = property(lambda self: self._state().get(None))  # its eager calls' Jitted

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

    def __call__(self, *args, **kwargs):
        if _staging():
            return self.stage_inline(*args, **kwargs)
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
                    return self._call_compiled(cache, static, static_kw, args, kwargs)
                except ConcretizationError as first:
                    # Eager JAX differentiates with concrete values: an argument it does not
                    # differentiate may serve as a shape or a Python `int`. Retry with those
                    # arguments static, and remember it for this function and options.
                    fixed = tuple(i for i in self._nondiff(args) if i not in static)
                    fixed_kw = tuple(k for k in kwargs if k not in static_kw)
                    if not fixed and not fixed_kw:
                        raise
                    try:
                        out = self._call_compiled(cache, tuple(sorted(static + fixed)),
                                                  tuple(sorted(static_kw + fixed_kw)),
                                                  args, kwargs)
                    except ConcretizationError:
                        raise first from None
                    cache[_CONCRETE] = fixed
                    return out
        except AstjaxError as e:
            raise e.with_traceback(user_traceback(e)) from None

    def _call_compiled(self, cache, static, static_kw, args, kwargs):
        """Run `self` compiled with the arguments at `static` / `static_kw` static."""
        if not static and not static_kw:
            jitted = cache.get(None)
            if jitted is None:
                jitted = cache[None] = Jitted(self)
            return jitted.run_compiled(args, kwargs)
        # arguments that are not arrays (functions, modules, ...) are static
        try:
            hash((tuple(args[i] for i in static), tuple(kwargs[k] for k in static_kw)))
        except TypeError:  # unhashable: close over them, uncached
            fun, dyn, dyn_kw = _fix_arguments(self, args, kwargs, static, static_kw)
            return Jitted(fun).run_compiled(dyn, dyn_kw)
        jitted = cache.get((static, static_kw))
        if jitted is None:
            jitted = cache[static, static_kw] = Jitted(self, static_argnums=static,
                                                       static_argnames=static_kw)
        return jitted.run_compiled(args, kwargs)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)


def _argnums_tuple(argnums):
    """`argnums` as a tuple of ints; a located error for anything else (JAX:
    TypeError for a non-integer, ValueError for a negative index out of range is
    checked by the caller against the argument count)."""
    nums = (argnums,) if isinstance(argnums, int) else argnums
    try:
        nums = tuple(nums)
    except TypeError:
        nums = None
    if nums is None or not all(isinstance(i, int) and not isinstance(i, bool) for i in nums):
        raise ArgumentTypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}",
                                hint="e.g. argnums=0 or argnums=(0, 2)")
    return nums


def _outside_argnums(argnums, args) -> tuple:
    """Positions of `args` not named by `argnums` (() when argnums is malformed: the
    transform reports that itself)."""
    try:
        nums = {i % len(args) for i in _argnums_tuple(argnums)} if args else set()
    except AstjaxError:
        return ()
    return tuple(i for i in range(len(args)) if i not in nums)


def _describe_tree(tree):
    """A short description of an output pytree for grad's errors."""
    if tree.node_type is None:
        return "an array"
    return f"a {getattr(tree.node_type, '__name__', tree.node_type)} of {tree.num_leaves} leaves"


def _stage(fun, args, kwargs, differentiated=True, what="differentiation", nums=None, reverse=None):
    """Stage fun(*args, **kwargs) -> (closed, in_tree, out_tree, leaves) for differentiation
    (`differentiating()` set while it stages; None: unchanged), or a located ArityError.
    `what`: the transformation as a reference from outside sees it (`vmap` for `jacfwd`);
    `nums`: the positions differentiated; `reverse`: a reverse mode (vma.reverse_typed)."""
    check_signature(fun, args, kwargs)
    leaves, in_tree = tree_util.flatten_for_staging((tuple(args), dict(kwargs)))
    avals = [leaf_aval(x) for x in leaves]
    hints = arg_hints(fun, args, kwargs)
    with differentiation(differentiated), _explicit.staging_nested(leaves), \
            eager_arguments(args, kwargs, nums), staging_inputs(leaves), eager_builder():
        closed, out_tree = stage_flat(fun, in_tree, avals, hints)
    closed = discharge_closed(closed, what)   # mutable references -> values
    closed = reverse_typed(closed, leaves, reverse[0]) if reverse else closed   # (vma.py)
    return closed, in_tree, out_tree, leaves


def _leaf_ranges(args):
    out, k = [], 0
    for a in args:
        n = len(tree_util.tree_leaves(a))
        out.append(range(k, k + n))
        k += n
    return out


def _ones_like_aval(aval):
    v = lax.convert_element_type(np.ones((), aval.dtype), aval.dtype, weak_type=aval.weak_type)
    return lax.broadcast(v, aval.shape) if aval.shape else v


def _zeros(shape, dtype):
    return ad.zeros_like_aval(core.ShapedArray(shape, dtype))


def _zeros_out(aval):
    """A zero cotangent/tangent result for an input: float0 for non-float inputs."""
    return ad.zeros_like_aval(aval) if differentiable(aval) else np.zeros(aval.shape, float0)


def _vjp_closed(closed, diff_mask, ct_mask):
    """(fwd, bwd, out_nz, nres) with bwd: res + cts (outputs in ct_mask & nonzero) ->
    cts of the differentiable inputs in diff_mask."""
    known, lin, out_nz, nres = ad.linearize_jaxpr(closed, diff_mask)
    n_t = len(lin.jaxpr.invars) - nres
    nz_outs = [i for i, z in enumerate(out_nz) if z]
    bwd = typed_backward(closed, known, lambda: ad.transpose_jaxpr(lin, [False] * nres + [True] * n_t, [
        not ct_mask[i] for i in nz_outs]), nres, diff_mask, [i for i in nz_outs if ct_mask[i]])
    return known, bwd, out_nz, nres


def _run(closed, args):
    """Run a closed jaxpr: inline while staging, else compile and run."""
    if _staging():
        return inline(closed, list(args))
    return Jitted(raw(lambda *a: inline(closed, list(a))))(*args)

# ------------------------------------------------------------------- grad family


class _Grad(_Transformed):
    _share = ("argnums", "has_aux", "with_value", "allow_int", "holomorphic")

    def __init__(self, fun, argnums=0, has_aux=False, with_value=False, allow_int=False,
                 holomorphic=False):
        super().__init__(fun)
        self.argnums = argnums
        self.has_aux = has_aux
        self.with_value = with_value
        self.allow_int = allow_int
        self.holomorphic = holomorphic

    def _nondiff(self, args):
        return _outside_argnums(self.argnums, args)

    def stage_inline(self, *args, **kwargs):
        nums = _argnums_tuple(self.argnums)
        if any(i >= len(args) for i in nums):
            raise ArgumentTypeError(f"differentiating with respect to argnums={self.argnums} "
                                    f"requires at least {max(nums) + 1} positional arguments, "
                                    f"got {len(args)}",
                                    hint="pass the differentiated arguments positionally, or "
                                         "change argnums")
        if any(i < -len(args) for i in nums):
            raise ArgumentValueError(f"argnums={self.argnums} is out of range for "
                                     f"{len(args)} positional arguments",
                                     hint=f"use an index in [-{len(args)}, {len(args) - 1}]")
        nums = tuple(i % len(args) for i in nums)
        check_signature(self.fun, args, kwargs)
        fun, args, kwargs, nums = _close_over(self.fun, args, kwargs, nums, known=True)
        _check_inputs(args, nums, functools.partial(_check_rev_input, "grad",
                                                    self.holomorphic, self.allow_int))
        closed, in_tree, out_tree, leaves = _stage(fun, args, kwargs, nums=nums,
                                                   reverse=("grad", self.has_aux))
        ranges = _leaf_ranges(args)
        diff_mask = [False] * len(leaves)
        for i in nums:
            for k in ranges[i]:
                diff_mask[k] = True
        n_out = len(closed.jaxpr.outvars)
        if self.has_aux:
            kids = out_tree.children if out_tree.node_type in (tuple, list) else None
            if kids is None or len(kids) != 2:
                raise DifferentiationTypeError(
                    "expected function with aux output to return a two-element tuple, but "
                    f"got {_describe_tree(out_tree)}",
                    hint="with has_aux=True, return (value, aux): value the scalar to "
                         "differentiate, aux anything else")
            main_tree, aux_tree = kids
        else:
            main_tree, aux_tree = out_tree, None
        if main_tree.node_type is not None:
            raise DifferentiationTypeError(
                f"Gradient only defined for scalar-output functions. Output was "
                f"{_describe_tree(main_tree)}.",
                hint="return one scalar (e.g. jnp.sum(...)); for several outputs use "
                     "has_aux=True or jacrev")
        out_aval = closed.jaxpr.outvars[0].aval
        if out_aval.shape != ():
            raise DifferentiationTypeError(
                f"Gradient only defined for scalar-output functions. Output had shape: "
                f"{out_aval.shape}.",
                hint="reduce the output to a scalar (e.g. jnp.sum), or use jacrev/jacfwd "
                     "for the full Jacobian, or vjp with a cotangent")
        _check_rev_output("grad", self.holomorphic, out_aval)
        ct_mask = [True] + [False] * (n_out - 1)
        fwd, bwd, out_nz, nres = _vjp_closed(closed, diff_mask, ct_mask)
        nz_in = [m and differentiable(v.aval) for m, v in zip(diff_mask, closed.jaxpr.invars)]
        in_avals = [v.aval for v in closed.jaxpr.invars]

        def g(*xs):
            outs = inline(fwd, list(xs), phase="forward")
            prim, res = outs[:n_out], outs[n_out:]
            ct = _ones_like_aval(out_aval)
            cts = inline(bwd, list(res) + [ct], phase="backward")
            it = iter(cts)
            grads = [next(it) if nz else _zeros_out(a) if m else None
                     for nz, m, a in zip(nz_in, diff_mask, in_avals)]
            return prim + [x for x in grads if x is not None and not isinstance(x, np.ndarray)]

        gj = cleanup(core.stage(g, in_avals, [v.hint for v in closed.jaxpr.invars]))
        outs = [python_scalar(o) for o in inline(gj, leaves)]   # (no WeakConst leaks)
        prim, grads_flat = outs[:n_out], outs[n_out:]
        git = iter(_explicit.like_primals(grads_flat, _explicit.layouts_of(
            [x for x, nz in zip(leaves, nz_in) if nz])))
        grads = []
        for nz, m, a in zip(nz_in, diff_mask, in_avals):
            if not m:
                continue
            grads.append(next(git) if nz else np.zeros(a.shape, float0))
        gi = iter(grads)
        per_arg = [tree_util.tree_unflatten(tree_util.tree_structure(args[i]),
                                            [next(gi) for _ in ranges[i]]) for i in nums]
        g_out = per_arg[0] if isinstance(self.argnums, int) else tuple(per_arg)
        if not self.with_value and not self.has_aux:
            return g_out
        if self.has_aux:
            aux = tree_util.tree_unflatten(aux_tree, prim[1:])
            if self.with_value:
                return (prim[0], aux), g_out
            return g_out, aux
        return prim[0], g_out


def grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False,
         reduce_axes: Sequence[Any] = ()) -> Callable[..., Any]:
    """The gradient of scalar-valued `fun` with respect to positional args `argnums`.

    astjax differentiates `fun`'s source (Python control flow is fine);
    `astjax.source(astjax.grad(f), x)` shows the derivative code.

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.grad(jnp.sin)(0.0)
        Array(1., dtype=float32, weak_type=True)
    """
    return _Grad(fun, argnums, has_aux, False, allow_int, holomorphic)


def value_and_grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0,
                   has_aux: bool = False, holomorphic: bool = False, allow_int: bool = False,
                   reduce_axes: Sequence[Any] = ()) -> Callable[..., tuple[Any, Any]]:
    """Like `grad`, but the result returns `(fun(*args), gradient)`.

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.value_and_grad(jnp.sin)(0.0)
        (Array(0., dtype=float32, weak_type=True), Array(1., dtype=float32, weak_type=True))
    """
    return _Grad(fun, argnums, has_aux, True, allow_int, holomorphic)

# ------------------------------------------------------------------------ jvp / vjp


def _check_tangent(p_aval, t, where):
    t_aval = leaf_aval(t) if not (isinstance(t, np.ndarray) and t.dtype == float0) else \
        core.ShapedArray(np.shape(t), np.float32)
    if isinstance(t, np.ndarray) and t.dtype == float0:
        if differentiable(p_aval):
            raise ArgumentTypeError(f"{where}: float0 tangent for a {p_aval.str_short()} primal",
                                    hint="give float primals a float tangent of their shape")
        return
    if not differentiable(p_aval):
        raise ArgumentTypeError(
            "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in "
            "case of int/bool primal dtype the tangent dtype must be float0. Got primal dtype "
            f"{p_aval.dtype} and so expected tangent dtype [('float0', 'V')], but got tangent "
            f"dtype {t_aval.dtype} instead.",
            hint="pass np.zeros(shape, astjax.float0) as the tangent of an int/bool primal")
    if t_aval.shape != p_aval.shape:
        raise ArgumentValueError(f"jvp called with different primal and tangent shapes; got "
                                 f"primal shape {p_aval.shape} and tangent shape "
                                 f"{t_aval.shape}",
                                 hint="each tangent has the shape and dtype of its primal")


def jvp(fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: bool = False) -> tuple[Any, ...]:
    """(fun(*primals), the directional derivative along tangents)."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise ArgumentTypeError("primal and tangent arguments to jax.jvp must be tuples or "
                                f"lists; found {type(primals).__name__} and "
                                f"{type(tangents).__name__}",
                                hint="wrap them: jvp(f, (x,), (t,))")
    closed, in_tree, out_tree, leaves = _stage(fun, primals, {})
    t_leaves, t_tree = tree_util.flatten_for_staging((tuple(tangents), {}))
    if t_tree != in_tree:
        raise ArgumentTypeError("primal and tangent arguments to jax.jvp must have the same "
                                f"tree structure; primals have {in_tree} and tangents have "
                                f"{t_tree}", hint="give one tangent per primal, of the same "
                                                  "pytree structure")
    in_avals = [v.aval for v in closed.jaxpr.invars]
    for a, t in zip(in_avals, t_leaves):
        _check_tangent(a, t, "jvp")
    nz = [differentiable(a) for a in in_avals]
    jv, out_nz = ad.jvp_jaxpr(closed, nz, instantiate=True)
    jv = cleanup(jv)
    outs = _run(jv, leaves + [t for t, z in zip(t_leaves, nz) if z])
    n = len(closed.jaxpr.outvars)
    prim, touts = outs[:n], outs[n:]
    it = iter(touts)
    tl = [next(it) if z else np.zeros(v.aval.shape, float0)
          for z, v in zip(out_nz, closed.jaxpr.outvars)]
    if has_aux:
        main_tree, aux_tree = out_tree.children
        k = main_tree.num_leaves
        return (tree_util.tree_unflatten(main_tree, prim[:k]),
                tree_util.tree_unflatten(main_tree, tl[:k]),
                tree_util.tree_unflatten(aux_tree, prim[k:]))
    return tree_util.tree_unflatten(out_tree, prim), tree_util.tree_unflatten(out_tree, tl)


def linearize(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """(fun(*primals), f_jvp) where f_jvp evaluates the linearized function."""
    closed, in_tree, out_tree, leaves = _stage(fun, primals, {})
    in_avals = [v.aval for v in closed.jaxpr.invars]
    nz = [differentiable(a) for a in in_avals]
    known, lin, out_nz, nres = ad.linearize_jaxpr(closed, nz)
    known, lin = cleanup(known), cleanup(lin)
    outs = _run(known, leaves)
    n = len(closed.jaxpr.outvars)
    prim, res = outs[:n], outs[n:]
    main_tree = out_tree.children[0] if has_aux else out_tree
    k = main_tree.num_leaves

    def f_jvp(*tangents):
        t_leaves, t_tree = tree_util.flatten_for_staging((tuple(tangents), {}))
        if t_tree != in_tree:
            raise ArgumentTypeError("linearized function called with tangents of the wrong "
                                    "structure", hint="pass tangents shaped like the primals "
                                                      "given to linearize")
        touts = _run(lin, list(res) + [t for t, z in zip(t_leaves, nz) if z])
        it = iter(touts)
        tl = [next(it) if z else np.zeros(v.aval.shape, float0)
              for z, v in zip(out_nz, closed.jaxpr.outvars)]
        return tree_util.tree_unflatten(main_tree, tl[:k])

    if has_aux:
        return (tree_util.tree_unflatten(main_tree, prim[:k]), f_jvp,
                tree_util.tree_unflatten(out_tree.children[1], prim[k:]))
    return tree_util.tree_unflatten(out_tree, prim), f_jvp


def vjp(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """(fun(*primals), vjp_fn) where vjp_fn(cotangent) -> cotangents of primals.
    As in JAX, vjp_fn is a pytree whose leaves are the residuals (here a
    `tree_util.Partial`; it can be returned from `jit`), and the backward pass -- a `custom_vjp`'s bwd rule with
    it -- is staged when vjp_fn is first called, not here."""
    closed, in_tree, out_tree, leaves = _stage(fun, primals, {}, reverse=("vjp", has_aux))
    in_avals = [v.aval for v in closed.jaxpr.invars]
    nz = [differentiable(a) for a in in_avals]
    n = len(closed.jaxpr.outvars)
    main_tree = out_tree.children[0] if has_aux else out_tree
    k = main_tree.num_leaves
    fwd, lin, out_nz, nres = ad.linearize_jaxpr(closed, nz)
    outs = _run(cleanup(fwd), leaves)
    prim, res = outs[:n], outs[n:]
    body = _VjpBody(lin, out_nz, nres, [i < k for i in range(n)], nz, in_avals,
                    [v.aval for v in closed.jaxpr.outvars], in_tree, main_tree,
                    _explicit.layouts_of(leaves), (closed, fwd))
    vjp_fn = VjpFunction(body, *res)
    primal_out = tree_util.tree_unflatten(main_tree, prim[:k])
    if has_aux:
        return primal_out, vjp_fn, tree_util.tree_unflatten(out_tree.children[1], prim[k:])
    return primal_out, vjp_fn


class _VjpBody:
    """The function inside `vjp`'s Partial: `(*residuals, ct) -> cotangents of the
    primals`; transposes the linear jaxpr on its first call."""

    def __init__(self, lin, out_nz, nres, ct_mask, nz, in_avals, out_avals, in_tree,
                 main_tree, layouts, typed):
        self.lin, self.out_nz, self.nres, self.ct_mask = lin, out_nz, nres, ct_mask
        self.layouts = layouts      # the primals' Explicit layouts (None: none)
        self.nz, self.in_avals, self.out_avals = nz, in_avals, out_avals
        self.in_tree, self.main_tree = in_tree, main_tree
        self.bwd, self.typed = {}, typed   # (typed: the function, for vma.typed_backward)

    def _backward(self, ct_vmas=None):
        if ct_vmas not in self.bwd:     # (per the cotangents' manual axes: vma_reverse)
            n_t = len(self.lin.jaxpr.invars) - self.nres
            zero_cts = [not self.ct_mask[i] for i, z in enumerate(self.out_nz) if z]
            self.bwd[ct_vmas] = cleanup(typed_backward(*self.typed, lambda: ad.transpose_jaxpr(
                self.lin, [False] * self.nres + [True] * n_t, zero_cts), self.nres, self.nz,
                [i for i, z in enumerate(self.out_nz) if z and self.ct_mask[i]], ct_vmas))
        return self.bwd[ct_vmas]

    def __call__(self, *args):
        res, ct = args[:self.nres], args[self.nres]
        ct_leaves, ct_tree = tree_util.flatten_for_staging(ct)
        if ct_tree != self.main_tree:
            raise ArgumentTypeError(f"Tree structure of cotangent input {ct_tree}, does not "
                                    f"match structure of primal output {self.main_tree}.",
                                    hint="pass a cotangent shaped like f's output")
        for c, a in zip(ct_leaves, self.out_avals):
            ca = leaf_aval(c) if not (isinstance(c, np.ndarray) and c.dtype == float0) else None
            if ca is not None:
                _check_cotangent(ca, a)
        ct_vmas = check_cotangents(self.typed[0], ct_leaves)
        cts = [c for i, c in enumerate(ct_leaves) if self.out_nz[i]]
        outs_ = _run(self._backward(ct_vmas), list(res) + cts) if (cts or self.nres) else []
        it = iter(_explicit.like_primals(outs_, [s for s, z in zip(self.layouts, self.nz)
                                                 if z]))
        flat = [next(it) if z else np.zeros(a.shape, float0)
                for z, a in zip(self.nz, self.in_avals)]
        args_ct, _ = tree_util.tree_unflatten(self.in_tree, flat)
        return tuple(args_ct)

# ------------------------------------------------------------------------- jacobians


class _Jac(_Transformed):
    _share = ("argnums", "has_aux", "mode", "holomorphic", "allow_int")

    def __init__(self, fun, argnums=0, has_aux=False, mode="rev", holomorphic=False,
                 allow_int=False):
        super().__init__(fun)
        self.argnums, self.has_aux, self.mode = argnums, has_aux, mode
        self.holomorphic, self.allow_int = holomorphic, allow_int

    def _nondiff(self, args):
        return _outside_argnums(self.argnums, args)

    def stage_inline(self, *args, **kwargs):
        nums = _argnums_tuple(self.argnums)
        if self.mode == "fwd":
            _check_inputs(args, nums, functools.partial(_check_fwd_input, self.holomorphic))
        else:
            _check_inputs(args, nums, functools.partial(_check_rev_input, "jacrev",
                                                        self.holomorphic, self.allow_int))
        fun, args, kwargs, nums = _close_over(
            self.fun, args, kwargs, tuple(i % len(args) for i in nums) if args else nums,
            known=True)
        closed, in_tree, out_tree, leaves = _stage(
            fun, args, kwargs, nums=nums, what="vmap" if self.mode == "fwd" else
            "differentiation", reverse=None if self.mode == "fwd" else ("jacrev", self.has_aux))
        ranges = _leaf_ranges(args)
        in_avals = [v.aval for v in closed.jaxpr.invars]
        n_out_all = len(closed.jaxpr.outvars)
        if self.has_aux:
            main_tree, aux_tree = out_tree.children
        else:
            main_tree, aux_tree = out_tree, None
        k = main_tree.num_leaves
        out_avals = [v.aval for v in closed.jaxpr.outvars[:k]]
        diff_idx = [j for i in nums for j in ranges[i]]
        for a in out_avals:
            if self.mode == "rev":
                _check_rev_output("jacrev", self.holomorphic, a)
            elif self.holomorphic:
                _check_rev_output("jacfwd", True, a)
        mask = [False] * len(leaves)
        for j in diff_idx:
            mask[j] = True
        sizes = [in_avals[j].size for j in diff_idx]
        n_in = sum(sizes)
        out_sizes = [a.size for a in out_avals]
        n_o = sum(out_sizes)
        dt = dtypes.result_type(*[np.zeros((), in_avals[j].dtype) for j in diff_idx]) \
            if diff_idx else np.float32

        def basis(n):
            return np.eye(n, dtype=dt)

        if self.mode == "fwd":
            jv, out_nz = ad.jvp_jaxpr(closed, mask, instantiate=True)
            jv = cleanup(jv)
            nz_k = [o for o in range(k) if out_nz[o]]

            def f(*xs):
                def step(c, e):
                    ts, off = [], 0
                    for j, s in zip(diff_idx, sizes):
                        piece = lax.slice(e, (off,), (off + s,))
                        ts.append(lax.convert_element_type(
                            lax.reshape(piece, in_avals[j].shape), in_avals[j].dtype))
                        off += s
                    outs = inline(jv, list(xs) + ts)
                    touts = outs[n_out_all:n_out_all + len(nz_k)]  # nonzero ones only
                    return c, [lax.reshape(t, (out_avals[o].size,)) for t, o in zip(touts, nz_k)]
                _, cols = scan_raw(step, (), core.current_builder().const_tracer(basis(n_in))
                                   if n_in else np.zeros((0, 0), dt))
                prim = inline(jv, list(xs) + [ad.zeros_like_aval(in_avals[j]) for j in diff_idx])
                # cols[o]: (n_in, out_size) -> jac[o][i]: out_shape + in_shape; an
                # integer output's entries are zeros of its dtype, as JAX gives
                jac, cols = [], iter(cols)
                for o, a in enumerate(out_avals):
                    if o not in nz_k:
                        jac.append([_zeros(a.shape + in_avals[j].shape, a.dtype)
                                    for j in diff_idx])
                        continue
                    ct = lax.transpose(next(cols), (1, 0)) if n_in else next(cols)
                    row, off = [], 0
                    for j, s in zip(diff_idx, sizes):
                        piece = lax.slice(ct, (0, off), (a.size, off + s))
                        row.append(_weak_as(lax.reshape(piece, a.shape + in_avals[j].shape), a))
                        off += s
                    jac.append(row)
                return prim[:n_out_all] + [x for row in jac for x in row]
        else:
            fwd, bwd, out_nz, nres = _vjp_closed(closed, mask, [i < k for i in range(n_out_all)])
            fwd, bwd = cleanup(fwd), cleanup(bwd)
            ddiff = [j for j in diff_idx if differentiable(in_avals[j])]

            def f(*xs):
                outs = inline(fwd, list(xs))
                prim, res = outs[:n_out_all], outs[n_out_all:]
                nz_k = [i for i in range(k) if out_nz[i]]

                def step(c, e):
                    cts, off = [], 0
                    for i in nz_k:
                        a = out_avals[i]
                        piece = lax.slice(e, (off,), (off + a.size,))
                        cts.append(lax.convert_element_type(lax.reshape(piece, a.shape), a.dtype))
                        off += a.size
                    g = inline(bwd, list(res) + cts)
                    return c, [lax.reshape(x, (in_avals[j].size,)) for x, j in zip(g, ddiff)]
                n_ct = sum(out_avals[i].size for i in nz_k)
                _, rows = scan_raw(step, (), core.current_builder().const_tracer(basis(n_ct)))
                jac = []
                for o, a in enumerate(out_avals):
                    row = []
                    if o in nz_k:
                        off = sum(out_avals[i].size for i in nz_k if i < o)
                        r_of = dict(zip(ddiff, rows))
                        for j in diff_idx:  # allow_int: an integer input's entries are 0
                            if j not in r_of:
                                row.append(_zeros(a.shape + in_avals[j].shape,
                                                  in_avals[j].dtype))
                                continue
                            piece = lax.slice(r_of[j], (off, 0), (off + a.size, in_avals[j].size))
                            row.append(_weak_as(lax.reshape(piece, a.shape + in_avals[j].shape),
                                                in_avals[j]))
                    else:
                        row = [_zeros(a.shape + in_avals[j].shape, in_avals[j].dtype)
                               for j in diff_idx]
                    jac.append(row)
                return prim + [x for row in jac for x in row]

        fj = cleanup(core.stage(f, in_avals))
        outs = inline(fj, leaves)
        prim, jflat = outs[:n_out_all], outs[n_out_all:]
        it = iter(jflat)
        per_out = []
        for o in range(k):
            row = [next(it) for _ in diff_idx]
            ri = iter(row)
            per_arg = [tree_util.tree_unflatten(tree_util.tree_structure(args[i]),
                                                [next(ri) for _ in ranges[i]]) for i in nums]
            per_out.append(per_arg[0] if isinstance(self.argnums, int) else tuple(per_arg))
        jac = tree_util.tree_unflatten(main_tree, per_out)
        if self.has_aux:
            return jac, tree_util.tree_unflatten(aux_tree, prim[k:])
        return jac


def _weak_as(x, example):
    """A Jacobian block with the weak type of its example (jacfwd: the output, jacrev:
    the input), as JAX's."""
    return lax.convert_element_type(x, core.get_aval(x).dtype, weak_type=example.weak_type)


def jacfwd(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable[..., Any]:
    """Jacobian of `fun` w.r.t. args `argnums`, by forward mode (one JVP per input).

    Args: fun (defined in a file: astjax stages its source); argnums: int or tuple;
    has_aux: `fun` returns `(out, aux)`. Returns a function giving the Jacobian
    (output shape + input shape).

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.jacfwd(jnp.sin)(jnp.array([0.0, 1.0]))
        Array([[1.       , 0.       ],
               [0.       , 0.5403023]], dtype=float32)
    """
    return _Jac(fun, argnums, has_aux, "fwd", holomorphic)


def jacrev(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable[..., Any]:
    """Jacobian of `fun` w.r.t. args `argnums`, by reverse mode (one VJP per output).

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.jacrev(jnp.sin)(0.0)
        Array(1., dtype=float32, weak_type=True)
    """
    return _Jac(fun, argnums, has_aux, "rev", holomorphic, allow_int)


def hessian(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable[..., Any]:
    """Hessian of scalar `fun`: `jacfwd(jacrev(fun))` w.r.t. args `argnums`.

    Args: as `jacfwd`. Returns a function giving the matrix of second derivatives.

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.hessian(jnp.sin)(0.5)
        Array(-0.47942555, dtype=float32, weak_type=True)
    """
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)
