"""The public autodiff API: `grad`, `value_and_grad`, `jvp`, `vjp`, `linearize`,
`stop_gradient`, and `jacfwd`, `jacrev`, `hessian` (defined in `astjax.ad_jacobians`);
`custom_jvp` / `custom_vjp` are in `astjax.custom_api`, `checkpoint` / `remat` in
`astjax.checkpoint_api`, the machinery they share in `astjax.ad_base`.

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
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import core, hi_values as _hi, tree_util
from .dtypes import _float0_zeros
from .primitives import ops as lax  # (not .lax: lax.reduce uses this module)
from .ad_dtypes import (
    check_rev_input as _check_rev_input,
    check_rev_output as _check_rev_output,
    check_cotangent as _check_cotangent,
    check_inputs as _check_inputs)
from .codegen import explicit as _explicit
from .errors import (ArgumentTypeError, ArgumentValueError, DifferentiationTypeError,
                     DTypeError, check_signature)
from .primitives.custom_derivatives import stop_gradient
from .primitives.vma_reverse import check_cotangents, typed_backward
from .staging import leaf_aval, staged_constant
from .traceback_util import entry_point as _entry_point
from .transforms import ad
from .transforms.ad import cleanup, differentiable, float0, inline
from .ad_refs import VjpFunction
from . import ad_eager_values
# (the private names other modules of the API layer import from here: checkpoint_api,
# compat's ad_checkpoint and compute_on, the tests)
from .ad_base import (_CONCRETE, _Transformed, _argnums_tuple, _array_leaves,  # noqa: F401
                      _close_over, _fix_arguments, _leaf_ranges, _outside_argnums, _run,
                      _stage, _staging, _vjp_closed, differentiating, differentiation)
from .ad_base import _branches_decided, _finite, _staging_branches
from .ad_jacobians import hessian, jacfwd, jacrev
__all__ = ["grad", "value_and_grad", "jvp", "vjp", "linearize", "jacfwd", "jacrev",
           "hessian", "stop_gradient", "float0",
           "differentiating", "differentiation"]


def _describe_tree(tree):
    """A short description of an output pytree for grad's errors."""
    if tree.node_type is None:
        return "an array"
    return f"a {getattr(tree.node_type, '__name__', tree.node_type)} of {tree.num_leaves} leaves"


def _ones_like_aval(aval):
    v = lax.convert_element_type(np.ones((), aval.dtype), aval.dtype, weak_type=aval.weak_type)
    return lax.broadcast(v, aval.shape) if aval.shape else v


def _zeros_out(aval):
    """A zero cotangent/tangent result for an input: float0 for non-float inputs."""
    return ad.zeros_like_aval(aval) if differentiable(aval) else _float0_zeros(aval.shape)


# ------------------------------------------------------------------- grad family


class _Grad(_Transformed):
    _share = ("argnums", "has_aux", "with_value", "allow_int", "holomorphic")
    _known_values = True

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

    def _aux_path(self):
        return ((0, 1) if self.with_value else (1,)) if self.has_aux else None

    def _with_aux(self, nums, g):
        """This transformation of `g`, with `has_aux=True` and the normalized `nums`
        (`hi_values.grad_call` passes one more argument, last)."""
        return _Grad(g, nums if isinstance(self.argnums, (tuple, list)) else nums[0], True,
                     self.with_value, self.allow_int, self.holomorphic)

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
        # hijax Variables among the arguments, or written where it closes over them:
        # staged on their arrays, their states stored back
        lift = functools.partial(_hi.grad_call, functools.partial(self._with_aux, nums),
                                 self.fun, self.has_aux, self.with_value, args, kwargs)
        if _hi.has_mutable((args, kwargs)):
            return lift(nums=nums)
        fun, args, kwargs, nums = _close_over(self.fun, args, kwargs, nums, known=True)
        _check_inputs(args, nums, functools.partial(_check_rev_input, "grad",
                                                    self.holomorphic, self.allow_int))
        try:
            with _hi.watching(writes_only=True):   # (hijax Variables it closes over)
                closed, in_tree, out_tree, leaves = _stage(
                    fun, args, kwargs, nums=nums, reverse=("grad", self.has_aux),
                    aux="grad" if self.has_aux else None, concrete=True)
        except _hi.CapturedHiError as e:   # staged again, with them passed in
            return lift(e.objs)
        ranges = _leaf_ranges(args)
        diff_mask = [False] * len(leaves)
        for i in nums:
            for k in ranges[i]:
                diff_mask[k] = True
        n_out = len(closed.jaxpr.outvars)
        if self.has_aux:
            main_tree, aux_tree = out_tree.children
        else:
            main_tree, aux_tree = out_tree, None
        # (checked after linearizing, as JAX checks `ans` of its vjp: a JVP rule that
        # raises -- equinox's `nontraceable`, a callback's -- is the error a non-scalar
        # output gives; and before transposing, whose memory-space check is JAX's later)
        linearized = ad.linearize_jaxpr(closed, diff_mask)
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
        fwd, bwd, out_nz, nres = _vjp_closed(closed, diff_mask, ct_mask, linearized)
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
        # (a literal result, e.g. a constant aux `jnp.array(-1.0)`, stays a staged value:
        # JAX's tracer, an Array once out, not a Python scalar)
        outs = [staged_constant(o) for o in inline(gj, leaves)]
        prim, grads_flat = outs[:n_out], outs[n_out:]
        git = iter(_explicit.like_primals(grads_flat, _explicit.layouts_of(
            [x for x, nz in zip(leaves, nz_in) if nz])))
        grads = []
        for nz, m, a in zip(nz_in, diff_mask, in_avals):
            if not m:
                continue
            grads.append(next(git) if nz else _float0_zeros(a.shape))
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
            raise ArgumentTypeError(f"{where}: float0 tangent for a {p_aval.str_short(True)} primal",
                                    hint="give float primals a float tangent of their shape")
        return
    if not differentiable(p_aval):
        raise ArgumentTypeError(
            "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in "
            "case of int/bool primal dtype the tangent dtype must be float0. Got primal dtype "
            f"{p_aval.dtype} and so expected tangent dtype [('float0', 'V')], but got tangent "
            f"dtype {t_aval.dtype} instead.",
            hint="pass np.zeros(shape, astjax.float0) as the tangent of an int/bool primal")
    if t_aval.dtype != p_aval.dtype:   # (weak types aside: a Python float is float32)
        raise DTypeError(
            "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in "
            "case of int/bool primal dtype the tangent dtype must be float0.Got primal dtype "
            f"{p_aval.dtype} and so expected tangent dtype {p_aval.dtype}, but got tangent "
            f"dtype {t_aval.dtype} instead.",
            hint=f"give the tangent the primal's dtype (t.astype({p_aval.dtype.name!r}))")
    if t_aval.shape != p_aval.shape:
        raise ArgumentValueError(f"jvp called with different primal and tangent shapes; got "
                                 f"primal shape {p_aval.shape} and tangent shape "
                                 f"{t_aval.shape}",
                                 hint="each tangent has the shape and dtype of its primal")


def _with_hi(what, run, fun, primals, has_aux):
    """`run(fun, has_aux)` -- `jvp` / `linearize` / `vjp` (`what`) of `fun` -- with hijax
    Variables: mutable hi primals are differentiated as JAX does (their types' rules run,
    `primal_check`), and Variables `fun` closes over carried out in the aux output."""
    if not _hi.active():
        return run(fun, has_aux)
    if _hi.has_mutable(primals):
        _hi.primal_check(lambda g, p: _vjp(g, p, has_aux), fun, primals, what)
    return _hi.aux_carrying(lambda: run(fun, has_aux), lambda g: run(g, True), fun, has_aux)


@_entry_point
def jvp(fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: bool = False) -> tuple[Any, ...]:
    """(fun(*primals), the directional derivative along tangents)."""
    return _with_hi("jvp", lambda g, aux: _jvp(g, primals, tangents, aux), fun, primals,
                    has_aux)


def _jvp(fun, primals, tangents, has_aux):
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise ArgumentTypeError("primal and tangent arguments to jax.jvp must be tuples or "
                                f"lists; found {type(primals).__name__} and "
                                f"{type(tangents).__name__}",
                                hint="wrap them: jvp(f, (x,), (t,))")
    t_leaves, t_tree = tree_util.flatten_for_staging((tuple(tangents), {}))
    eager = contextlib.nullcontext() if _staging() else ad_eager_values.jvp_values(
        tree_util.flatten_for_staging((tuple(primals), {}))[0], t_leaves)
    with eager as state:
        closed, in_tree, out_tree, leaves = _stage(fun, primals, {}, concrete=True,
                                                   aux="jvp" if has_aux else None)
    if t_tree != in_tree:
        raise ArgumentTypeError("primal and tangent arguments to jax.jvp must have the same "
                                f"tree structure; primals have {in_tree} and tangents have "
                                f"{t_tree}", hint="give one tangent per primal, of the same "
                                                  "pytree structure")
    in_avals = [v.aval for v in closed.jaxpr.invars]
    for a, t in zip(in_avals, t_leaves):
        _check_tangent(a, t, "jvp")
    outvars = closed.jaxpr.outvars
    # eagerly, what JAX's op-by-op jvp leaves as Python objects is found first
    found = None if state is None else ad_eager_values.split(closed, leaves, t_leaves, state)
    known = {}
    if found is not None:
        closed, extra_p, extra_t, known = found
        leaves, t_leaves = list(leaves) + extra_p, list(t_leaves) + extra_t
    nz = [differentiable(v.aval) and not isinstance(t, core.Zero)
          for v, t in zip(closed.jaxpr.invars, t_leaves)]
    jv, out_nz = ad.jvp_jaxpr(closed, nz, instantiate=True)
    jv = cleanup(jv)
    outs = _run(jv, list(leaves) + [t for t, z in zip(t_leaves, nz) if z])
    n = len(outvars)
    prim, touts = outs[:n], outs[n:]
    it = iter(touts)
    tl = [next(it) if z else _float0_zeros(v.aval.shape)
          for z, v in zip(out_nz, outvars)]
    if not _staging():
        prim, tl = map(list, zip(*(ad_eager_values.output(v, known, p, t)
                                   for v, p, t in zip(outvars, prim, tl)))) if n else (prim, tl)
    if has_aux:
        main_tree, aux_tree = out_tree.children
        k = main_tree.num_leaves
        return (tree_util.tree_unflatten(main_tree, prim[:k]),
                tree_util.tree_unflatten(main_tree, tl[:k]),
                tree_util.tree_unflatten(aux_tree, prim[k:]))
    return tree_util.tree_unflatten(out_tree, prim), tree_util.tree_unflatten(out_tree, tl)


@_entry_point
def linearize(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """(fun(*primals), f_jvp) where f_jvp evaluates the linearized function."""
    return _with_hi("linearize", lambda g, aux: _linearize(g, primals, aux), fun, primals,
                    has_aux)


def _linearize(fun, primals, has_aux):
    closed, in_tree, out_tree, leaves = _stage(fun, primals, {}, concrete=True,
                                               aux="linearize" if has_aux else None)
    in_avals = [v.aval for v in closed.jaxpr.invars]
    nz = [differentiable(a) for a in in_avals]
    known, lin, out_nz, nres = ad.linearize_jaxpr(closed, nz)
    known, lin = cleanup(known), cleanup(lin)
    outs = _run(known, leaves, hosts=True)   # (a NumPy argument passed through: itself)
    n = len(closed.jaxpr.outvars)
    prim, res = outs[:n], outs[n:]
    main_tree = out_tree.children[0] if has_aux else out_tree
    k = main_tree.num_leaves
    # (as JAX's: a pytree whose leaves are the residuals, so `jit` can return it)
    f_jvp = tree_util.Partial(_LinearizedBody(lin, nres, nz, in_tree, in_avals, out_nz,
                                              [v.aval for v in closed.jaxpr.outvars],
                                              main_tree, k), *res)
    if has_aux:
        return (tree_util.tree_unflatten(main_tree, prim[:k]), f_jvp,
                tree_util.tree_unflatten(out_tree.children[1], prim[k:]))
    return tree_util.tree_unflatten(out_tree, prim), f_jvp


class _LinearizedBody:
    """The function inside `linearize`'s Partial: `(*residuals, *tangents) -> the
    output's tangent` (the linear jaxpr run on them)."""

    def __init__(self, lin, nres, nz, in_tree, in_avals, out_nz, out_avals, main_tree, k):
        self.lin, self.nres, self.nz, self.in_tree = lin, nres, nz, in_tree
        self.in_avals = in_avals
        self.out_nz, self.out_avals, self.main_tree, self.k = out_nz, out_avals, main_tree, k

    def __call__(self, *args):
        res, tangents = args[:self.nres], args[self.nres:]
        t_leaves, t_tree = tree_util.flatten_for_staging((tuple(tangents), {}))
        if t_tree != self.in_tree:
            raise ArgumentTypeError("linearized function called with tangents of the wrong "
                                    "structure", hint="pass tangents shaped like the primals "
                                                      "given to linearize")
        for a, t in zip(self.in_avals, t_leaves):
            _check_linearized_tangent(a, t)
        touts = _run(self.lin, list(res) + [t for t, z in zip(t_leaves, self.nz) if z])
        it = iter(touts)
        tl = [next(it) if z else _float0_zeros(a.shape)
              for z, a in zip(self.out_nz, self.out_avals)]
        return tree_util.tree_unflatten(self.main_tree, tl[:self.k])


def _check_linearized_tangent(p_aval, t):
    """JAX's check of a tangent given to `linearize`'s function: the primal's shape and
    tangent dtype (float0 for an int / bool primal), weak types aside."""
    want = p_aval.dtype if differentiable(p_aval) else np.dtype(float0)
    is_float0 = isinstance(t, np.ndarray) and t.dtype == float0
    got = core.ShapedArray(np.shape(t), float0) if is_float0 else leaf_aval(t)
    if got.shape != p_aval.shape or np.dtype(got.dtype) != want:
        raise ArgumentValueError(
            "linearized function called on tangent values inconsistent with the original "
            f"primal values: got tangent aval {got.str_short(True)} for primal aval "
            f"{p_aval.str_short(True)} but expected {p_aval.update(dtype=want).str_short(True)}",
            hint="pass tangents of the primals' shapes, float dtypes of the float primals' "
                 "and np.zeros(shape, astjax.float0) for int / bool primals")


@_entry_point
def vjp(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """(fun(*primals), vjp_fn) where vjp_fn(cotangent) -> cotangents of primals.
    As in JAX, vjp_fn is a pytree whose leaves are the residuals (here a
    `tree_util.Partial`; it can be returned from `jit`), and the backward pass -- a `custom_vjp`'s bwd rule with
    it -- is staged when vjp_fn is first called, not here."""
    return _with_hi("vjp", lambda g, aux: _vjp(g, primals, aux), fun, primals, has_aux)


def _vjp(fun, primals, has_aux):
    eager = not _staging()   # (eagerly: whether it stages a `cond`; else an outer
    with _staging_branches() if eager else contextlib.nullcontext([False]) as seen:  # call's)
        closed, in_tree, out_tree, leaves = _stage(fun, primals, {}, reverse=("vjp", has_aux),
                                                   aux="vjp" if has_aux else None,
                                                   concrete=True)
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
    if seen[0]:
        body.decided = functools.partial(_vjp_decided, fun, primals, has_aux)
    vjp_fn = VjpFunction(body, *res)
    primal_out = tree_util.tree_unflatten(main_tree, prim[:k])
    if has_aux:
        return primal_out, vjp_fn, tree_util.tree_unflatten(out_tree.children[1], prim[k:])
    return primal_out, vjp_fn


def _vjp_decided(fun, primals, has_aux, ct):
    """The cotangents of an eager `vjp` of `fun` at `primals` for `ct`, with the
    function's `if`s decided on the primal values, as JAX's eager vjp runs only the
    branch they take (`_Transformed._decided`)."""
    with _branches_decided():
        return _vjp(fun, primals, has_aux)[1](ct)


class _VjpBody:
    """The function inside `vjp`'s Partial: `(*residuals, ct) -> cotangents of the
    primals`; transposes the linear jaxpr on its first call. `decided`: for an eager
    vjp whose function staged a `cond`, `ct -> cotangents` with its `if`s decided on
    the primal values, which an eager call whose result is not finite returns (a branch
    not taken sends back `0 * inf`; JAX's eager vjp does not run it)."""
    decided = None

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
            raise ArgumentValueError(f"unexpected tree structure: the cotangent has "
                                     f"structure {ct_tree}, the primal output "
                                     f"{self.main_tree}",
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
        flat = [next(it) if z else _float0_zeros(a.shape)
                for z, a in zip(self.nz, self.in_avals)]
        args_ct, _ = tree_util.tree_unflatten(self.in_tree, flat)
        if self.decided is not None and not _staging() and not _finite(args_ct):
            try:
                return self.decided(ct)
            except Exception:   # (not stageable for its values: the result stands)
                pass
        return tuple(args_ct)

