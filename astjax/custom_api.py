"""`custom_jvp` and `custom_vjp`: functions with user-defined derivative rules; and
`linear_call`, a linear function with a user-defined transpose.

When the user's Python functions run follows JAX:

- called outside any transformation, the function is simply called (on the values
  it was given: Python scalars stay Python scalars);
- staged for evaluation only (`jit`, `vmap`), the primal function is staged, and the
  rule runs later only if the staged equation is differentiated;
- staged while a function is being differentiated (`ad_api.differentiating()`: inside
  `grad`, `jvp`, `vjp`, `linearize`, `jacfwd`/`jacrev`), JAX never calls the primal
  function: only the rule runs (`f_jvp`, or `f_fwd`), once. Inside the rule one level
  of differentiation is used up: under `grad(grad(f))` the rule's own call `f(x)`
  runs the rule again, as JAX's nested JVP tracers do. Here the rule is staged
  once, at the call, into a jaxpr; the equation's primal body is the rule's primal
  part, and the differentiation passes inline the staged rule instead of calling the
  Python rule again.

A `custom_vjp`'s `bwd` runs when the cotangents are computed (transposition), i.e.
when `jax.vjp`'s function is called. The equations are `custom_jvp_call` /
`custom_vjp_call` (astjax/primitives/custom_derivatives.py); each rule kept in the
params takes the equation's consts first: `jvp(consts, primals, tangents)`,
`fwd(consts, primals)`.
"""
from __future__ import annotations

import functools

import numpy as np

from . import ad_eager_values, core, hi_state, hi_values, tree_util
from .ad_base import _Transformed, _staging, differentiation
from .core import bind
from .errors import (ArgumentTypeError, DerivativeNotImplementedError, ShapeError,
                     StructureError, UndefinedRuleError, caller_location, check_callable,
                     check_signature)
from .primitives.custom_derivatives import (CustomVJPPrimal, SymbolicZero, custom_jvp_call_p,
                                            custom_vjp_call_p, named_body)
from .primitives.jit_call import call_name
from .primitives.linear_call import linear_call_p
from .primitives.state import is_ref
from .primitives.vma_reverse import TypedCustomBwd, check_jvp_tangents
from .staging import as_callable, leaf_aval, stage_flat
from .transforms.ad import differentiable, float0
from .custom_rules import (_PY_SCALARS, _CachedBwd, _OutTrees, _RefArgs, _RematFwd, _Rule,
                           _StagedFwd,
                           _StagedJvp, _avals_of, _bwd_leaves, _check_nondiff_untraced,
                           _fit_tangent, _gone, _held, _may_be_perturbed, _primal_part, _restaged,
                           _rule_wanted, _split_args, _stage_rule, _staged, _staged_refs,
                           _staged_remat_fwd, _staged_value, _tangent_aval, _zero_ref,
                           check_nondiff_argnums, jvp_pair, resolve_kwargs)

__all__ = ["custom_jvp", "custom_vjp", "linear_call"]


def _forward_def(self, name):
    """A `def...` attribute of the wrapped function, as JAX's custom wrappers forward
    them: a custom_vjp around a custom_vmap takes `f.def_vmap`."""
    fun = self.__dict__.get("fun")
    if name.startswith("def") and fun is not None:
        return getattr(fun, name)
    raise AttributeError(name)


class custom_jvp(_Transformed):
    """A function with a user-defined JVP: `f = custom_jvp(f); @f.defjvp def f_jvp(primals,
    tangents): ... return primal_out, tangent_out`."""

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun)
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp, self.symbolic_zeros = None, False

    __getattr__ = _forward_def

    def defjvp(self, jvp, symbolic_zeros=False):
        """Set the JVP rule `jvp(primals, tangents) -> (primal_out, tangent_out)`
        (nondiff arguments first); returns it, so it can be used as a decorator."""
        check_callable(jvp, "custom_jvp.defjvp")   # (JAX: a TypeError at every call)
        self.jvp = jvp
        self.symbolic_zeros = bool(symbolic_zeros)   # (read for a Ref argument's tangent)
        return jvp

    def defjvps(self, *jvps):
        """Set the JVP from one rule per argument: `jvp_i(t_i, primal_out, *primals)`
        (None for an argument with zero derivative); the contributions are summed."""
        for f in jvps:
            if f is not None:
                check_callable(f, "custom_jvp.defjvps")
        def jvp_(primals, tangents):
            out = self(*primals)
            tout = None
            for f, t in zip(jvps, tangents):
                if f is None:
                    continue
                c = as_callable(f)(t, out, *primals)
                tout = c if tout is None else tout + c
            return out, tout
        self.jvp = jvp_

    def __call__(self, *args, **kwargs):
        if not _staging():  # JAX: outside transformations, just call the function
            # (JAX's TypeError for a keyword-only argument there too, and IndexError for
            # a nondiff_argnums entry beyond the arguments)
            check_nondiff_argnums(resolve_kwargs(self.fun, args, kwargs, "custom_jvp")
                                  if kwargs else args, self.nondiff_argnums, "custom_jvp")
            return self.fun(*args, **kwargs)
        return self.stage_inline(*args, **kwargs)

    def stage_inline(self, *args, **kwargs):
        return _hi_carrying(self, args, kwargs)

    def _hi_lifted(self, objs, run):
        """This function of `run`'s form `(*args, nodes) -> (out, states)` (the
        hijax Variables `objs` it closes over passed in), its rule run so too."""
        user_jvp = self.jvp

        def jvp(*a):
            *nd, primals, tangents = a
            (po, to), states = hi_state.swapped_in(objs, primals[-1], lambda: as_callable(
                user_jvp)(*nd, tuple(primals[:-1]), tuple(tangents[:-1])))
            zeros = tree_util.tree_map(lambda v: SymbolicZero(leaf_aval(v)), states)
            return (po, states), (to, zeros)
        g = custom_jvp(run, self.nondiff_argnums)
        g.defjvp(jvp, self.symbolic_zeros)
        return g

    def _stage(self, args, kwargs):
        if self.jvp is None:
            raise UndefinedRuleError("No JVP defined for custom_jvp function "
                                     f"{getattr(self.fun, '__name__', '?')} using defjvp.")
        check_signature(self.fun, args, kwargs)
        args, kwargs = resolve_kwargs(self.fun, args, kwargs, "custom_jvp"), {}
        nd, dyn, full = _split_args(args, self.nondiff_argnums)
        ndv = [nd[i] for i in sorted(nd)]
        fun, user_jvp = self.fun, self.jvp
        ra = _RefArgs(*tree_util.flatten_for_staging((tuple(dyn), {})))
        leaves, fill = ra.plain, _zero_ref(self.symbolic_zeros)
        if _rule_wanted(leaves):
            return self._stage_with_rule(ra, ndv, user_jvp, fill)
        closed, out_tree = ra.stage(lambda *a: as_callable(fun)(*full(a), **kwargs),
                                    [leaf_aval(x) for x in leaves])
        body, consts = core.split_consts(closed)
        ra.find(consts)
        ra.release()

        def jvp_rule(_consts, primals, tangents):
            p_args = ra.args([_staged(x) for x in primals], ra.live(_consts))
            t_args = ra.args([_staged(x) for x in tangents], fill)
            with differentiation(False):
                po, to = jvp_pair(as_callable(user_jvp)(*ra.nondiff(ndv, _consts),
                                                        tuple(p_args), tuple(t_args)),
                                  user_jvp, fun)
            p_leaves = tree_util.tree_leaves(po)
            t_leaves = [_fit_tangent(t, p) for p, t in zip(p_leaves, tree_util.tree_leaves(to))]
            check_jvp_tangents(p_leaves, t_leaves)
            return p_leaves, t_leaves

        outs = bind(custom_jvp_call_p, *consts, *leaves,
                    call_jaxpr=named_body(body, call_name(fun)),
                    jvp_jaxpr_fun=_Rule(jvp_rule, len(consts), call_name(user_jvp)),
                    num_consts=len(consts),
                    symbolic_zeros=False)
        return tree_util.tree_unflatten(out_tree, outs)

    def _stage_with_rule(self, ra, ndv, user_jvp, fill):
        """Only the rule runs (JAX's order): stage it once, primal body = its primal part."""
        leaves = ra.plain
        avals = [leaf_aval(x) for x in leaves]
        n = len(avals)
        out_tree = [None]
        # JAX gives a rule defined with symbolic_zeros=True a SymbolicZero for each
        # operand that is no JVP tracer (equinox's filter_custom_jvp passes it as None)
        # and the others an integer's or a boolean's tangent as a float0 zero array
        # (JAX's instantiated zero: arithmetic on it is JAX's TypeError)
        perturbed = [_may_be_perturbed(x) for x in leaves] if self.symbolic_zeros \
            else [differentiable(a) for a in avals]
        t_avals = [a for a, p in zip(avals, perturbed) if p]

        def rule(*xs):
            p_args = ra.args(xs[:n])
            it = iter(xs[n:])
            t_args = ra.args([next(it) if p else SymbolicZero(_tangent_aval(a))
                              if self.symbolic_zeros else np.zeros(a.shape, float0)
                              for a, p in zip(avals, perturbed)], fill)
            po, to = jvp_pair(as_callable(user_jvp)(*ndv, tuple(p_args), tuple(t_args)),
                              user_jvp, self.fun)
            p_leaves, out_tree[0] = tree_util.flatten_for_staging(po)
            t_leaves = [_fit_tangent(t, p) for p, t in zip(p_leaves, tree_util.tree_leaves(to))]
            check_jvp_tangents(p_leaves, t_leaves)
            return p_leaves + t_leaves

        # (an eager jvp's own values: the rule runs on them, once, as JAX's op-by-op jvp
        # runs it; the equation keeps what it returned)
        known = ad_eager_values.values_of(leaves)
        ran = None if known is None else ad_eager_values.run_rule(
            rule, known[0], [t for t, p in zip(known[1], perturbed) if p])
        body, consts = _stage_rule(rule if ran is None else (lambda *_: list(ran)),
                                   avals + t_avals,
                                   leaves + [x for x, p in zip(leaves, perturbed) if p])
        n_out = out_tree[0].num_leaves
        primal = _primal_part(body, len(consts), n, n_out, t_avals)
        outs = bind(custom_jvp_call_p, *consts, *leaves,
                    call_jaxpr=named_body(primal, call_name(self.fun)),
                    jvp_jaxpr_fun=_StagedJvp(body, n_out, perturbed, ran, call_name(user_jvp)),
                    num_consts=len(consts),
                    symbolic_zeros=False)
        if ran is not None:
            ad_eager_values.note(outs, ran[:n_out], ran[n_out:])
        return tree_util.tree_unflatten(out_tree[0], outs)


class custom_vjp(_Transformed):
    """A function with a user-defined VJP: `f.defvjp(f_fwd, f_bwd)` with
    f_fwd(*args) -> (out, residuals) and f_bwd(residuals, ct_out) -> cts of args."""

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun)
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = self.bwd = None
        self.symbolic_zeros = self.optimize_remat = False

    __getattr__ = _forward_def

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        """Set the forward rule `fwd(*args) -> (out, residuals)` and the backward rule
        `bwd(*nondiff, residuals, ct_out) -> tuple of cotangents, one per argument`.
        With `symbolic_zeros=True`, fwd receives each primal leaf as a
        `CustomVJPPrimal(value, perturbed)` and bwd a `SymbolicZero` for each output
        without a cotangent (and may return None or a SymbolicZero). With
        `optimize_remat=True`, the forward rule is staged as one `remat_opt` equation
        that becomes the primal function where its residuals are not used (the forward
        pass of a `checkpoint`): worth it when fwd is an opaque kernel."""
        if symbolic_zeros and optimize_remat:
            raise DerivativeNotImplementedError(
                "remat optimization for custom_vjp does not support symbolic zeros",
                loc=caller_location(),
                hint="pass either symbolic_zeros=True or optimize_remat=True")
        check_callable(fwd, "custom_vjp.defvjp: fwd")   # (JAX: a TypeError at every call)
        check_callable(bwd, "custom_vjp.defvjp: bwd")
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, bool(symbolic_zeros)
        self.optimize_remat = bool(optimize_remat)

    def __call__(self, *args, **kwargs):
        if not _staging():  # JAX: outside transformations, just call the function
            # (JAX's TypeError for a keyword-only argument there too, and IndexError for
            # a nondiff_argnums entry beyond the arguments)
            check_nondiff_argnums(resolve_kwargs(self.fun, args, kwargs, "custom_vjp")
                                  if kwargs else args, self.nondiff_argnums, "custom_vjp")
            return self.fun(*args, **kwargs)
        return self.stage_inline(*args, **kwargs)

    def stage_inline(self, *args, **kwargs):
        return _hi_carrying(self, args, kwargs)

    def _hi_lifted(self, objs, run):
        """This function of `run`'s form `(*args, nodes) -> (out, states)` (the
        hijax Variables `objs` it closes over passed in), its fwd run so too."""
        user_fwd, user_bwd = self.fwd, self.bwd

        def fwd(*a):
            nodes = tree_util.tree_map(
                lambda p: p.value if isinstance(p, CustomVJPPrimal) else p, a[-1])
            (out, res), states = hi_state.swapped_in(
                objs, nodes, lambda: as_callable(user_fwd)(*a[:-1]))
            return (out, states), res

        def bwd(*a):
            *nd, res, (ct, _) = a
            got = as_callable(user_bwd)(*nd, res, ct)
            return (*got, None) if isinstance(got, (tuple, list)) else got
        g = custom_vjp(run, self.nondiff_argnums)
        g.defvjp(fwd, bwd, self.symbolic_zeros, self.optimize_remat)
        return g

    def _stage(self, args, kwargs):
        if self.fwd is None:
            raise UndefinedRuleError("No VJP defined for custom_vjp function "
                                     f"{getattr(self.fun, '__name__', '?')} using defvjp.")
        check_signature(self.fun, args, kwargs)
        args, kwargs = resolve_kwargs(self.fun, args, kwargs, "custom_vjp"), {}
        _check_nondiff_untraced(self.fun, args, self.nondiff_argnums)
        nd, dyn, full = _split_args(args, self.nondiff_argnums)
        ndv = [nd[i] for i in sorted(nd)]
        fun, user_fwd, user_bwd, sz = self.fun, self.fwd, self.bwd, self.symbolic_zeros
        ra = _RefArgs(*tree_util.flatten_for_staging((tuple(dyn), {})))
        leaves = ra.plain
        avals = [leaf_aval(x) for x in leaves]
        res_refs, out_tree = [None], [None]   # residuals: a Ref among them is closed over
        dyn_avals = _avals_of(tuple(dyn))   # (bwd's cotangents are read against them)
        nd_res = []   # which nondiff values fwd passed on as residuals
        py_res = [{}]   # residual position -> the Python scalar fwd returned there

        def call(*a):
            return as_callable(fun)(*full(a), **kwargs)

        def primal_thunk():   # optimize_remat: the primal function, staged when DCE asks
            return ra.stage(call, avals)[0]

        def fwd(_consts, primals, level=False, perturbed=None):  # level None: staged already
            primals = [_staged(x) for x in primals]
            if sz:
                flags = [True] * len(primals) if perturbed is None else perturbed
                primals = [CustomVJPPrimal(p, z) for p, z in zip(primals, flags)]
            live = ra.live(_consts)
            p_args = ra.args(primals, (lambda r: CustomVJPPrimal(live(r), False)) if sz
                             else live)
            fwd_args = [(live(a) if is_ref(a) else ra.now(a, _consts)) if i in nd else a
                        for i, a in enumerate(full(p_args))]
            with differentiation(level):
                got = as_callable(user_fwd)(*fwd_args)
            if not (isinstance(got, (tuple, list)) and len(got) == 2):   # JAX's TypeError
                raise StructureError(
                    f"Custom VJP fwd rule {getattr(user_fwd, '__name__', '?')} for function "
                    f"{getattr(fun, '__name__', '?')} must produce a pair (list or tuple of "
                    "length two) of the primal output and the residuals, got "
                    f"{type(got).__name__}", hint="return `out, residuals` from the fwd rule")
            out, res = got
            res_refs[0] = rr = _RefArgs(*tree_util.flatten_for_staging(res))
            # Python scalars among the residuals reach bwd as they are (JAX keeps them
            # as literals; equinox's filter_custom_vjp passes its `perturbed` bools on)
            py_res[0] = {i: x for i, x in enumerate(rr.plain) if type(x) in _PY_SCALARS}
            out_leaves, out_tree[0] = tree_util.flatten_for_staging(out)
            nd_leaves = [tree_util.staging_leaves(fwd_args[i]) for i in sorted(nd)]
            nd_res[:] = [[_staged_value(x) for x in xs] for xs in nd_leaves]
            res_leaves = rr.plain + [x[...] for x in _staged_refs(rr)] + [
                x for xs, fs in zip(nd_leaves, nd_res) for x, f in zip(xs, fs) if f]
            rr.release()
            return out_leaves, res_leaves

        def bwd(res, cts):
            rr = res_refs[0]
            k, m = rr.k, len(_staged_refs(rr))
            plain = [py_res[0].get(i, x) for i, x in enumerate(res[:k])]
            r = rr.tree_of(plain, _held(dict(zip(map(id, _staged_refs(rr)), res[k:k + m]))))
            ct = tree_util.tree_unflatten(out_tree[0], cts)
            staged = iter(res[k + m:])   # the nondiff values that are staged: residuals
            nd_args = [_gone(x) if is_ref(x) else _restaged(x, fs, staged)
                       for x, fs in zip(ndv, nd_res)]
            with differentiation(False):
                got = as_callable(user_bwd)(*nd_args, r, ct)
            if not isinstance(got, (tuple, list)):
                raise StructureError("custom_vjp bwd function must return a tuple, with one "
                                     f"entry per differentiable argument; got "
                                     f"{type(got).__name__}",
                                     hint="return (ct_x,) -- note the comma -- for one "
                                          "argument, or (ct_x, ct_y, ...)")
            return ra.drop(_bwd_leaves(got, dyn_avals))

        if _rule_wanted(leaves):  # JAX runs only fwd (and bwd later), not the function
            n_out = [0]

            flags = [_may_be_perturbed(x) for x in leaves]

            def staged_fwd(*xs):
                outs, res = fwd((), list(xs), None, flags)
                n_out[0] = len(outs)
                return outs + res

            body, consts = _stage_rule(staged_fwd, avals, leaves)
            primal = _primal_part(body, len(consts), len(avals), n_out[0], [])
            fwd_name = call_name(user_fwd)
            fwd_param = (_RematFwd(body, n_out[0], primal_thunk, fwd_name)
                         if self.optimize_remat else _StagedFwd(body, n_out[0], fwd_name))
        else:
            closed, out_tree[0] = ra.stage(call, avals)
            primal, consts = core.split_consts(closed)
            ra.find(consts)
            if self.optimize_remat:
                fwd_param = _Rule(_staged_remat_fwd(fwd, primal_thunk), len(consts),
                                  call_name(user_fwd))
            else:
                fwd_param = _Rule(fwd, len(consts), call_name(user_fwd))
        def fwd_state():   # what bwd's staging depends on from fwd's run (_CachedBwd)
            rr = res_refs[0]
            if rr is None or rr.refs or any(is_ref(x) for x in ndv):
                return None
            return (rr.tree, tuple((i, type(x), x) for i, x in sorted(py_res[0].items())),
                    out_tree[0], tuple(map(tuple, nd_res)))

        paths = [tree_util.keystr(k) for k, x in tree_util.tree_flatten_with_path(
            tuple(dyn))[0] if not is_ref(x)]
        cached = _CachedBwd(bwd, fwd_state)
        typed_bwd = TypedCustomBwd(cached, leaves, paths)   # (JAX's typed cotangents: vma.py)
        if typed_bwd.typing is not None:
            cached.state = lambda: None   # (typed cotangents: bwd runs at each transpose)
        outs = bind(custom_vjp_call_p, *consts, *leaves,
                    call_jaxpr=named_body(primal, call_name(fun)),
                    fwd_jaxpr_thunk=fwd_param,
                    bwd=_Rule(typed_bwd, 0, call_name(user_bwd), symbolic_zeros=sz),
                    num_consts=len(consts), out_trees=_OutTrees(out_tree, res_refs),
                    symbolic_zeros=sz)
        typed_bwd.outputs(outs)
        if not self.optimize_remat:   # (primal_thunk stages on the operands)
            ra.release()
        return tree_util.tree_unflatten(out_tree[0], outs)


# ------------------------------------------------------------------- linear_call


def _hi_carrying(custom, args, kwargs):
    """`custom`'s staging; where its function writes hijax Variables it closes over, the
    same function passing their states in and out (`_hi_lifted`), those stored back."""
    if not hi_state.active():
        return custom._stage(args, kwargs)

    def lifted(objs):
        cap = hi_state.Lowering(list(objs))
        a = resolve_kwargs(custom.fun, args, kwargs, type(custom).__name__)
        g = custom._hi_lifted(objs, hi_values.closed_over(custom.fun, objs))
        out, states = g._stage((*a, cap.tree), {})   # (not watched again: see carrying)
        cap.write_back(states)
        return out
    return hi_state.carrying(lambda: custom._stage(args, kwargs), lifted)


def linear_call(fun, fun_transpose, residual_args, linear_args):
    """`fun(residual_args, linear_args)`, where `fun` is linear in `linear_args` and
    `fun_transpose(residual_args, cotangents)` is its transpose in them (JAX's
    `custom_derivatives.linear_call`).

    Transposition (`linear_transpose`, `vjp`, `grad`) calls `fun_transpose` instead of
    transposing `fun`; the transpose of that is `fun` again. The result is linear in
    `linear_args`, so its JVP is the same call on their tangents; differentiating
    with respect to `residual_args` is an error (as in JAX). Under `vmap` both
    functions are batched.

    Example:
      >>> from astjax.custom_api import linear_call
      >>> def div_add(x, denom):
      ...     return x + linear_call(lambda r, x: x / r, lambda r, t: t / r, denom, x)
      >>> float(div_add(9., 3.))
      12.0
    """
    res_leaves, _ = tree_util.flatten_for_staging(residual_args)
    lin_leaves, lin_tree = tree_util.flatten_for_staging(linear_args)
    res_avals = [leaf_aval(x) for x in res_leaves]
    lin_avals = [leaf_aval(x) for x in lin_leaves]
    _, f_tree = tree_util.flatten_for_staging(((residual_args, linear_args), {}))
    with differentiation(False):
        closed, out_tree = stage_flat(fun, f_tree, res_avals + lin_avals)
    callee, f_consts = core.split_consts(closed)
    out_avals = list(callee.out_avals)

    @functools.cache
    def transpose_thunk():
        cts = tree_util.tree_unflatten(out_tree, out_avals)
        _, t_tree = tree_util.flatten_for_staging(((residual_args, cts), {}))
        with differentiation(False):
            t_closed, t_out_tree = stage_flat(fun_transpose, t_tree, res_avals + out_avals)
        if t_out_tree != lin_tree:
            raise StructureError(
                "transpose output pytree structure must match that of linear inputs, got "
                f"output structure {t_out_tree} and input structure {lin_tree}.",
                hint="fun_transpose(residual_args, cotangents) returns one value per "
                     "leaf of linear_args, in the same structure")
        for got, want in zip(t_closed.out_avals, lin_avals):
            if (got.shape, got.dtype) != (want.shape, want.dtype):
                raise ShapeError(
                    f"fun_transpose returned {got.str_short(True)} for a linear input of "
                    f"{want.str_short(True)}", hint="the transpose's outputs have the shapes "
                    "and dtypes of the linear arguments")
        t_callee, t_consts = core.split_consts(t_closed)
        return t_callee, t_consts

    if not callable(fun_transpose):
        raise ArgumentTypeError(f"linear_call: fun_transpose must be callable, got "
                                f"{type(fun_transpose).__name__}")
    outs = bind(linear_call_p, *f_consts, *res_leaves, *lin_leaves, callee=callee,
                transpose_thunk=transpose_thunk, num_callee_consts=len(f_consts),
                num_res=len(res_leaves))
    return tree_util.tree_unflatten(out_tree, outs)

