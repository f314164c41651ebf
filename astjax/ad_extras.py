"""Two more of JAX's differentiation entry points, on astjax's AD passes:

- `linear_transpose(f, *primals)`: f (linear in its arguments) is staged for the
  primals' shapes and dtypes and transposed as IR (`transforms.ad.transpose_jaxpr`);
  a non-linear f fails there, as in JAX. The result maps an output cotangent to the
  tuple of input cotangents.
- `custom_gradient(f)`: f returns (value, vjp) with vjp a Python function of the
  output cotangent; it becomes a `custom_vjp` whose forward pass stages vjp into a
  jaxpr (its captured values are the residuals) and whose backward pass runs it.
"""
from __future__ import annotations

import functools

import numpy as np

from . import core, dtypes, tree_util
from .ad_api import vjp
from .ad_base import _run
from .api import jit
from .custom_api import custom_vjp
from .core import ShapedArray
from .errors import ArgumentTypeError
from .primitives.vma import staging_inputs
from .primitives.vma_reverse import cotangent_vmas, reverse_typed, typed_backward
from .staging import as_callable, leaf_aval, stage_flat
from .transforms import ad

__all__ = ["linear_transpose", "custom_gradient", "fwd_and_bwd"]


def _aval_of(x):
    if hasattr(x, "shape") and hasattr(x, "dtype") and not hasattr(x, "aval") and \
            not isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(tuple(x.shape), dtypes.canonicalize(np.dtype(x.dtype)))
    return leaf_aval(x)


def _kind(dt):
    return "int" if dtypes.is_int(dt) or dt == dtypes.bool_ else "inexact"


def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of the linear function `fun` at the primals' shapes and dtypes
    (only those are read): `f_t = linear_transpose(f, x); f_t(ct)` is the tuple of
    cotangents of f's arguments."""
    leaves, in_tree = tree_util.flatten_for_staging(tuple(primals))
    in_avals = [_aval_of(x) for x in leaves]
    _, call_tree = tree_util.flatten_for_staging((tuple(primals), {}))
    with staging_inputs(leaves):
        closed, out_tree = stage_flat(fun, call_tree, in_avals)
    out_avals = [v.aval for v in closed.jaxpr.outvars]
    in_k = {_kind(a.dtype) for a in in_avals}
    out_k = {_kind(a.dtype) for a in out_avals}
    if in_k | out_k not in ({"inexact"}, {"int"}, set()):
        raise ArgumentTypeError(
            "linear_transpose only supports [float or complex] -> [float or complex], and "
            "integer -> integer functions, but got "
            f"{[str(a.dtype) for a in in_avals]} -> {[str(a.dtype) for a in out_avals]}.")
    typed = None   # (JAX's typed cotangents inside a check_vma shard_map body: vma_reverse)
    if in_k == {"inexact"}:
        typed = reverse_typed(closed, leaves, "linear_transpose")
    staged = {}

    def backward(ct_vmas=None):     # (per the cotangents' manual axes)
        if ct_vmas not in staged:
            bwd = functools.partial(ad.transpose_jaxpr, closed, [True] * len(in_avals))
            staged[ct_vmas] = ad.cleanup(bwd() if typed is None else typed_backward(
                typed, typed, bwd, 0, [True] * len(in_avals), list(range(len(out_avals))),
                ct_vmas))
        return staged[ct_vmas]
    backward()

    def transposed(out_cotangent):
        ct_leaves, ct_tree = tree_util.flatten_for_staging(out_cotangent)
        if ct_tree != out_tree:
            raise ArgumentTypeError(f"cotangent tree does not match function output, expected "
                                    f"{out_tree} but got {ct_tree}")
        for c, a in zip(ct_leaves, out_avals):
            ca = leaf_aval(c)
            if ca.shape != a.shape or ca.dtype != a.dtype:
                raise ArgumentTypeError(f"cotangent type does not match function output, "
                                        f"expected {a.str_short(True)} but got {ca.str_short(True)}")
        bwd = backward(cotangent_vmas(typed, ct_leaves))
        outs = _run(bwd, ct_leaves)
        # an input's cotangent that is an output's unchanged is that object, as JAX's
        # backward pass passes it on (a Python float for the identity)
        given = {id(v): c for v, c in zip(bwd.jaxpr.invars, ct_leaves)}
        outs = [given.get(id(v), o) for v, o in zip(bwd.jaxpr.outvars, outs)]
        return tree_util.tree_unflatten(in_tree, outs)
    return transposed


def custom_gradient(fun):
    """`fun(*args)` returns (value, vjp) where vjp(ct) gives the cotangents of args:
    the function computing `value`, differentiated with that vjp."""
    fn = as_callable(fun)
    rules = {}   # (output avals, residual avals) -> the staged vjp (latest)

    def primal(*args):
        return fn(*args)[0]

    def fwd(*args):
        ans, rule = fn(*args)
        ans_leaves, ans_tree = tree_util.flatten_for_staging((ans,))
        avals = [core.get_aval(a) for a in ans_leaves]

        def flat_rule(*cts):
            out = rule(*tree_util.tree_unflatten(ans_tree, list(cts)))
            return tree_util.tree_leaves(out)
        closed = core.stage(flat_rule, avals)
        consts = list(closed.consts)
        rules[_key(avals, consts)] = closed.jaxpr
        return ans, consts

    def bwd(consts, ct):
        cts = tree_util.tree_leaves((ct,))
        jaxpr = rules[_key([core.get_aval(c) for c in cts], consts)]
        return tuple(ad.inline(core.ClosedJaxpr(jaxpr, list(consts)), list(cts)))

    wrapped = custom_vjp(primal)
    wrapped.defvjp(fwd, bwd)
    functools.update_wrapper(wrapped, fun, updated=())
    return wrapped


def _key(ct_avals, consts):
    strip = lambda a: (a.shape, a.dtype)  # noqa: E731
    return (tuple(strip(a) for a in ct_avals), tuple(strip(core.get_aval(c)) for c in consts))


def fwd_and_bwd(fun, argnums, has_aux=False, jitted=True):
    """(`fwd`, `bwd`): `fwd(*args)` is `vjp` of `fun` in the arguments `argnums` --
    `(out, residuals)` or, with `has_aux`, `(out, residuals, aux)` -- and
    `bwd(residuals, cotangent)` the cotangents of those arguments (one array for an
    int `argnums`, a tuple for a sequence). The residuals are a pytree, so with
    `jitted` (the default) both are jitted and `bwd` compiles once for all calls."""
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    def fwd(*args):
        def partial(*dyn):
            full = list(args)
            for i, v in zip(nums, dyn):
                full[i] = v
            return fun(*full)
        return vjp(partial, *[args[i] for i in nums], has_aux=has_aux)

    def bwd(f_vjp, cotangent):
        cts = f_vjp(cotangent)
        return cts[0] if single else cts
    return (jit(fwd), jit(bwd)) if jitted else (fwd, bwd)
