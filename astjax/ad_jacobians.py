"""The Jacobians: `jacfwd` (one JVP per input element, a `scan` over the basis),
`jacrev` (one VJP per output element) and `hessian` (`jacfwd` of `jacrev`), each a
`_Transformed` (`ad_base`): staged where it is called, compiled when called eagerly.

On arrays laid out over Explicit mesh axes the Jacobian is typed as JAX's: each seed
(`jacfwd`) and input cotangent (`jacrev`) has its primal's layout, each output tangent
its output's (`like_primals`), tangents and cotangents keep their shapes through the
`scan` (a laid-out value is never flattened), and the blocks are split only along the
basis axis, which is unsharded: a `jacrev` block is laid out along its input's
dimensions, a `jacfwd` block along its output's, as JAX's `_jacrev_unravel` /
`_jacfwd_unravel` give them.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import core, dtypes, sharding_impls as shd, tree_util
from .primitives import ops as lax  # (not .lax: lax.reduce uses this module)
from .ad_dtypes import (
    check_rev_input as _check_rev_input,
    check_rev_output as _check_rev_output,
    check_fwd_input as _check_fwd_input,
    check_inputs as _check_inputs)
from .primitives.scan import scan_raw
from .codegen.explicit import layouts_of, like_primals, staging_nested
from .errors import ArgumentValueError
from .transforms import ad
from .transforms.ad import cleanup, differentiable, inline
from .ad_base import (_Transformed, _argnums_tuple, _close_over, _leaf_ranges,
                      _outside_argnums, _stage, _vjp_closed)

__all__ = ["jacfwd", "jacrev", "hessian"]


def _zeros(shape, dtype, layout=None):
    """A Jacobian block of zeros; given the `layout` of its leading dimensions (its
    output's), laid out so, the others unsharded, as JAX's."""
    z = ad.zeros_like_aval(core.ShapedArray(shape, dtype))
    if layout is None:
        return z
    spec = tuple(layout.spec._normalized(len(shape)))
    return like_primals([z], [shd.NamedSharding(layout.mesh, layout.spec.update(
        partitions=spec))])[0]



class _Jac(_Transformed):
    _share = ("argnums", "has_aux", "mode", "holomorphic", "allow_int")
    _known_values = True

    def __init__(self, fun, argnums=0, has_aux=False, mode="rev", holomorphic=False,
                 allow_int=False):
        super().__init__(fun)
        self.argnums, self.has_aux, self.mode = argnums, has_aux, mode
        self.holomorphic, self.allow_int = holomorphic, allow_int

    def _nondiff(self, args):
        return _outside_argnums(self.argnums, args)

    def _aux_path(self):
        return (1,) if self.has_aux else None

    def stage_inline(self, *args, **kwargs):
        nums = _argnums_tuple(self.argnums)
        bad = [i for i in nums if not -len(args) <= i < len(args)]
        if bad:   # (JAX's ValueError, where grad's is a TypeError)
            raise ArgumentValueError(
                "Positional argument indices, e.g. for `argnums`, must have value greater "
                "than or equal to -len(args) and less than len(args), but got value "
                f"{bad[0]} for len(args) == {len(args)}",
                hint="pass the differentiated arguments positionally, or change argnums")
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
            "differentiation", reverse=None if self.mode == "fwd" else ("jacrev", self.has_aux),
            aux=("jacfwd" if self.mode == "fwd" else "jacrev") if self.has_aux else None,
            concrete=True)
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

        # each seed (jacfwd) and cotangent (jacrev) has its primal's type, as JAX's:
        # laid out over an Explicit mesh as its input is
        layouts = layouts_of(leaves)
        seed_layouts = [layouts[j] for j in diff_idx]

        if self.mode == "fwd":
            jv, out_nz = ad.jvp_jaxpr(closed, mask, instantiate=True)
            jv = cleanup(jv)
            nz_k = [o for o in range(k) if out_nz[o]]

            def f(*xs):
                prim = inline(closed, list(xs))
                out_layouts = layouts_of(prim[:k])    # (a tangent has its output's type)

                def step(c, e):
                    ts, off = [], 0
                    for j, s in zip(diff_idx, sizes):
                        piece = lax.slice(e, (off,), (off + s,))
                        ts.append(lax.convert_element_type(
                            lax.reshape(piece, in_avals[j].shape), in_avals[j].dtype))
                        off += s
                    outs = inline(jv, list(xs) + like_primals(ts, seed_layouts))
                    return c, like_primals(outs[n_out_all:n_out_all + len(nz_k)],  # nonzero
                                           [out_layouts[o] for o in nz_k])          # ones only
                _, cols = scan_raw(step, (), core.current_builder().const_tracer(basis(n_in))
                                   if n_in else np.zeros((0, 0), dt))
                # cols[o]: (n_in, *out_shape) -> jac[o][i]: out_shape + in_shape, split
                # along the last, unlaid-out axis; an integer output's entries are zeros
                # of its dtype, as JAX gives
                jac, cols = [], iter(cols)
                for o, a in enumerate(out_avals):
                    if o not in nz_k:
                        jac.append([_zeros(a.shape + in_avals[j].shape, a.dtype,
                                           out_layouts[o]) for j in diff_idx])
                        continue
                    ct = next(cols)
                    if a.ndim:
                        ct = lax.transpose(ct, (*range(1, a.ndim + 1), 0))
                    row, off = [], 0
                    for j, s in zip(diff_idx, sizes):
                        piece = lax.slice(ct, (0,) * a.ndim + (off,), a.shape + (off + s,))
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
                    return c, like_primals(g, [layouts[j] for j in ddiff])
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
                            shape = in_avals[j].shape
                            piece = lax.slice(r_of[j], (off,) + (0,) * len(shape),
                                              (off + a.size,) + shape)
                            row.append(_weak_as(lax.reshape(piece, a.shape + shape),
                                                in_avals[j]))
                    else:
                        row = [_zeros(a.shape + in_avals[j].shape, in_avals[j].dtype)
                               for j in diff_idx]
                    jac.append(row)
                return prim + [x for row in jac for x in row]

        with staging_nested(leaves):    # (the types `like_primals` reads inside)
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
