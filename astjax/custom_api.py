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
import weakref

from . import core, dtypes, tree_util
from .primitives import ops as lax  # (not .lax: lax.reduce uses this module)
from .ad_base import _Transformed, _staging, differentiating, differentiation
from .extend.core import eager_input, in_eager_transform
from .core import bind, raw
from .errors import (ArgumentTypeError, DerivativeNotImplementedError,
                     NotImplementedInAstjaxError, ShapeError, StructureError,
                     UndefinedRuleError, UnexpectedTracerError, caller_location,
                     check_signature)
from .primitives.custom_derivatives import (CustomVJPPrimal, SymbolicZero, custom_jvp_call_p,
                                            custom_vjp_call_p, stop_gradient_p)
from .primitives.linear_call import linear_call_p
from .primitives.remat_opt import PrimalThunk, remat_opt
from .primitives.state import is_ref, new_ref
from .primitives.vma import staging_inputs
from .primitives.vma_reverse import TypedCustomBwd, check_jvp_tangents
from .staging import as_callable, leaf_aval, stage_flat
from .transforms import ad
from .transforms.ad import differentiable, inline

__all__ = ["custom_jvp", "custom_vjp", "linear_call"]


class _Rule:
    """A Python rule kept in eqn params (printed by its name)."""
    __slots__ = ("fn", "nconsts", "name", "symbolic_zeros")

    def __init__(self, fn, nconsts, name="rule", symbolic_zeros=False):
        self.fn, self.nconsts, self.name = fn, nconsts, name
        self.symbolic_zeros = symbolic_zeros

    def __call__(self, *args, **static):
        return self.fn(*args, **static)

    def __repr__(self):
        return self.name


def _split_args(args, nondiff_argnums):
    """(nondiff values by position, the other arguments, full(dyn) -> all arguments)."""
    nd = {i: args[i] for i in nondiff_argnums}
    dyn = [a for i, a in enumerate(args) if i not in nd]

    def full(dargs):
        it = iter(dargs)
        return [nd[i] if i in nd else next(it) for i in range(len(args))]
    return nd, dyn, full


class _RefArgs:
    """The dynamic arguments' leaves with the mutable array references among them taken
    out (`plain`, the call's operands): JAX passes a `Ref` argument through to the
    function and its rules; here they close over it, as over a `Ref` from outside
    (`transforms/discharge.py` threads its value through the call and its staged rule).
    `args(xs)` rebuilds the argument tuple from operand values, each reference put back
    (or, for a rule's tangents, `fill(ref)` in its place)."""
    __slots__ = ("tree", "refs", "n", "plain", "at")

    def __init__(self, leaves, tree):
        self.tree, self.n = tree, len(leaves)
        self.refs = {i: x for i, x in enumerate(leaves) if is_ref(x)}
        self.plain = [x for i, x in enumerate(leaves) if i not in self.refs]
        self.at = {}

    def find(self, consts):
        """Note where the staged call's `consts` hold the references (it closes over
        them): a Python rule that runs later finds them there (`live`)."""
        self.at = {id(c): k for k, c in enumerate(consts) if isinstance(c, core.Tracer)}

    def live(self, consts):
        """A fill for `args` in a Python rule run with the call's `consts`: each
        reference as the call now holds it -- itself, or, once the references were
        discharged (its value in the consts), a reference holding that value (its
        staged original may be gone; the call's final values come from its body)."""
        def fill(ref):
            k = self.at.get(id(ref))
            c = consts[k] if k is not None and k < len(consts) else ref
            return c if is_ref(c) else _own_ref(c)
        return fill

    def nondiff(self, ndv, consts):
        """The nondiff arguments for a Python rule run with the call's `consts` (a
        reference among them as `live` gives it, a staged value as the call now
        holds it: the rule may run after the function that staged it has finished)."""
        fill = self.live(consts)
        return [fill(x) if is_ref(x) else self.now(x, consts) for x in ndv]

    def now(self, x, consts):
        k = self.at.get(id(x)) if isinstance(x, core.Tracer) else None
        return consts[k] if k is not None and k < len(consts) else x

    def tree_of(self, xs, fill=None):
        """The tree of operand values `xs`, each reference put back (or `fill(ref)`)."""
        it = iter(xs)
        full = [(fill(self.refs[i]) if fill else self.refs[i]) if i in self.refs
                else next(it) for i in range(self.n)]
        return tree_util.tree_unflatten(self.tree, full)

    def args(self, xs, fill=None):
        return self.tree_of(xs, fill)[0]

    def stage(self, fun, avals):
        """`fun(*args)` staged on the operands' avals -> (ClosedJaxpr, out_tree)."""
        flat = tree_util.tree_structure((tuple(range(len(avals))), {}))
        with differentiation(False), staging_inputs(self.plain):   # (vma.py)
            return stage_flat(raw(lambda *d: fun(*self.args(d))), flat, avals)

    def drop(self, cts):
        """A rule's per-leaf cotangents without those of the references."""
        return [c for i, c in enumerate(cts) if i not in self.refs]


class _GoneRef:
    """What a `custom_vjp` bwd rule gets for a reference created in the differentiated
    function and kept as a residual: bwd runs after that function has finished
    staging, so reading or writing it is a located error here (JAX 0.10.2 runs it). A
    reference from outside that function (a `Ref` argument of `grad`'s function, which
    `grad` closes over, or one it closes over) is still live: bwd gets it, and its
    writes are staged after the forward pass, as JAX runs them."""
    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def _fail(self, *_):
        raise NotImplementedInAstjaxError(
            f"a custom_vjp bwd rule uses a mutable array reference ({self.aval}) created "
            f"in the differentiated function and kept as a residual; astjax runs bwd "
            f"after that function has finished staging (JAX 0.10.2 can run this)",
            loc=caller_location(), hint="keep its value r[...] as the residual, or pass a "
                                        "Ref from outside the differentiated function")

    __getitem__ = __setitem__ = _fail


def _staged_value(x):
    """A staged value (not a reference) among a custom_vjp's nondiff arguments: one JAX
    sees concrete (`_check_nondiff_untraced`), here a value of the staged function
    that fwd passes on to bwd as one more residual."""
    return isinstance(x, core.Tracer) and not is_ref(x) and x.builder.alive


def _restaged(x, flags, values):
    """Nondiff argument `x` with its staged leaves (`flags`) taken from `values`."""
    if not any(flags):
        return x
    leaves, tree = tree_util.flatten_for_staging(x)
    return tree_util.tree_unflatten(tree, [next(values) if f else v
                                           for v, f in zip(leaves, flags)])


def _staged_refs(ra):
    """The staged references among a custom_vjp's residuals: fwd keeps the value each
    holds then as one more residual, for bwd (`_held`)."""
    return [x for x in ra.refs.values() if isinstance(x, core.RefTracer)]


def _held(values):
    """What bwd gets for a residual reference: itself while its function is staging;
    once that has finished (created in the differentiated function), a reference
    holding the value it held when fwd ran (`values`, by the reference's id) -- JAX's
    bwd sees the same where it computes (bwd's writes to it are then lost, as in JAX,
    where nothing reads that reference after the backward pass)."""
    def fill(ref):
        if isinstance(ref, core.RefTracer) and not ref.builder.alive:
            return _own_ref(values[id(ref)])
        return ref
    return fill


def _gone(ref):
    return _GoneRef(ref.aval) if isinstance(ref, core.RefTracer) and not ref.builder.alive \
        else ref


def _zero_ref(symbolic):
    """The tangent a rule receives for a `Ref` argument (JAX's: a fresh reference
    holding zeros, or a `SymbolicZero` when the rule takes symbolic zeros)."""
    def fill(ref):
        aval = ref.aval.inner_aval
        return SymbolicZero(aval) if symbolic else _own_ref(lax.full(aval.shape, 0, aval.dtype))
    return fill


def _staged(x):
    """A weak-typed constant operand (`WeakConst`, from a Python scalar) as a staged
    value, so that the user's rule can compute with it (`v - 1`), as on JAX's tracers."""
    b = core.current_builder()
    if isinstance(x, core.WeakConst) and b is not None:
        return core.Tracer(b, core.Literal(x.val[()], x.aval), x.val)
    return x


def _fit_tangent(t, p):
    """A rule's tangent output brought to its primal's shape and dtype."""
    pa = core.get_aval(p)
    if not differentiable(pa):
        return t
    ta = core.get_aval(t)
    if ta.shape != pa.shape:
        t = lax.broadcast_in_dim(t, pa.shape, tuple(
            range(len(pa.shape) - len(ta.shape), len(pa.shape))))
    if ta.dtype != pa.dtype:
        t = lax.convert_element_type(t, pa.dtype)
    return t


def _stage_rule(fn, avals, leaves):
    """Stage `fn(*tracers) -> flat outputs` with differentiation off (inside a rule
    the primals are plain values, as in JAX) -> (body taking consts first, consts);
    its arguments vary over the manual axes `leaves` do (vma.py)."""
    with differentiation(False), staging_inputs(leaves):
        closed = core.stage(fn, avals)
    return core.split_consts(closed)


def _primal_part(body, nconsts, n_primal_in, n_out, tangent_avals):
    """The rule's primal outputs as a function of (consts, primals): the equation's
    body when only the rule was run (tangents are zeros, then dead code)."""
    in_avals = [v.aval for v in body.jaxpr.invars[:nconsts + n_primal_in]]

    def primal(*cp):
        zeros = [ad.zeros_like_aval(a) for a in tangent_avals]
        return inline(body, list(cp) + zeros)[:n_out]
    return ad.cleanup(core.stage(primal, in_avals))


class _StagedJvp:
    """The jvp param of a `custom_jvp_call` whose rule was staged at the call:
    `(consts, primals, tangents) -> (primal outs, tangent outs)` inlines it."""
    __slots__ = ("body", "n_out")

    def __init__(self, body, n_out):
        self.body, self.n_out = body, n_out

    def __call__(self, consts, primals, tangents):
        outs = inline(self.body, list(consts) + list(primals) + list(tangents))
        return outs[:self.n_out], outs[self.n_out:]

    def __repr__(self):
        return "jvp"


class _StagedFwd:
    """The fwd param of a `custom_vjp_call` whose fwd was staged at the call:
    `(consts, primals) -> (outs, residuals)`."""
    __slots__ = ("body", "n_out")

    def __init__(self, body, n_out):
        self.body, self.n_out = body, n_out

    def __call__(self, consts, primals, perturbed=None):
        # staged at the call with every primal perturbed (symbolic_zeros rules see True)
        outs = inline(self.body, list(consts) + list(primals))
        return outs[:self.n_out], outs[self.n_out:]

    def __repr__(self):
        return "fwd"


class _RematFwd:
    """The fwd param of a `custom_vjp_call` defined with `optimize_remat=True` whose fwd
    was staged at the call: `(consts, primals) -> (outs, residuals)` through one
    `remat_opt` equation."""
    __slots__ = ("body", "n_out", "thunk")

    def __init__(self, body, n_out, thunk):
        self.body, self.n_out, self.thunk = body, n_out, thunk

    def __call__(self, consts, primals, perturbed=None):
        return remat_opt(self.body, list(consts), list(primals), self.n_out,
                         PrimalThunk(self.thunk))

    def __repr__(self):
        return "fwd"


def _staged_remat_fwd(fwd, thunk):
    """`fwd(consts, primals, ...)` (the Python rule of `custom_vjp`) staged into a
    jaxpr and bound as one `remat_opt` equation (`optimize_remat=True`)."""
    def rule(consts, primals, level=False, perturbed=None):
        n_out = [0]

        def staged(*xs):
            outs, res = fwd(consts, list(xs), level, perturbed)
            n_out[0] = len(outs)
            return list(outs) + list(res)

        with differentiation(level):
            closed = core.stage(staged, [core.get_aval(p) for p in primals])
        body, fwd_consts = core.split_consts(closed)
        return remat_opt(body, fwd_consts, list(primals), n_out[0], PrimalThunk(thunk))
    return rule


_PY_SCALARS = (bool, int, float, complex)


def _may_be_perturbed(x):
    """JAX's `CustomVJPPrimal.perturbed` for a symbolic-zeros fwd staged at the call:
    an operand that may carry a tangent (an inexact staged value that may depend on a
    staged function's inputs). An integer, a boolean or a known value never does
    (equinox's `filter_custom_vjp` asserts so for its non-differentiable arrays)."""
    return bool(isinstance(x, core.Tracer) and x.known is None
                and dtypes.is_inexact(core.get_aval(x).dtype) and _may_depend_on_inputs(x))


def _rule_wanted(leaves):
    """Is this call differentiated (JAX: are its operands JVP tracers)? Here: a
    function is being differentiated and some operand is a staged value not known
    at staging time that may depend on a staged function's inputs."""
    return differentiating() and any(
        isinstance(x, core.Tracer) and x.known is None and _may_depend_on_inputs(x)
        for x in leaves)


def _may_depend_on_inputs(x, eager=False):
    """Whether some path back from staged `x` (through captures into enclosing
    builders) reaches a builder's inputs without crossing a `stop_gradient`: JAX's
    operands of a stopped or constant computation are no JVP tracers, so the rule
    does not run for them (optax's perturbations test a rule that must not). With
    `eager`, only inputs that are tracers to JAX count (`eager_input`)."""
    stack, seen, consts = [(x.builder, x.var)], set(), {}
    while stack:
        b, v = stack.pop()
        if not isinstance(v, core.Var) or (id(b), v) in seen:
            continue
        seen.add((id(b), v))
        eqn = b.producer.get(v)
        if eqn is not None:
            if eqn.primitive is not stop_gradient_p:
                stack.extend((b, a) for a in eqn.invars)
            continue
        if id(b) not in consts:
            consts[id(b)] = ({cv for cv, _ in b.consts.values()},
                             {cv: t for cv, t in b.captures.values()})
        const_vars, captured = consts[id(b)]
        if v in captured:
            stack.append((captured[v].builder, captured[v].var))
        elif v not in const_vars:   # an input of a staged function
            src = eager_input(b, v) if eager else True
            if src is True:
                return True
            if isinstance(src, core.Tracer):
                stack.append((src.builder, src.var))
    return False


def _check_nondiff_untraced(fun, args, nondiff_argnums):
    """JAX refuses a traced value among a custom_vjp function's `nondiff_argnums`
    arguments (UnexpectedTracerError, a TypeError): under `jit` a `Ref` or a value
    computed from the function's inputs is one. An eager `grad` / `vmap` stages all
    its arguments, but to JAX only those it differentiates / maps are tracers (and
    values computed from them): only those count there (`eager_input`)."""
    eager = in_eager_transform()
    for i in nondiff_argnums:
        for leaf in tree_util.staging_leaves(args[i]) if i < len(args) else ():
            if (isinstance(leaf, core.RefTracer) and (not eager or _made_ref(leaf))) or (
                    isinstance(leaf, core.Tracer) and leaf.known is None
                    and _may_depend_on_inputs(leaf, eager)):
                raise UnexpectedTracerError(
                    f"a traced value ({core.get_aval(leaf).str_short()}) was passed to the "
                    f"custom_vjp function {getattr(fun, '__name__', '?')} as argument {i}, a "
                    f"position nondiff_argnums marks non-differentiable; tracers cannot be "
                    f"passed as non-differentiable arguments of a custom_vjp function",
                    loc=caller_location(),
                    hint="use nondiff_argnums only for values that cannot be traced "
                         "(functions, Python constants); pass arrays, keys and Refs as "
                         "ordinary arguments and return None as their cotangent")


# the variables of the references astjax creates for a rule (`_own_ref`)
_OWN: "weakref.WeakSet" = weakref.WeakSet()


def _own_ref(value):
    """A reference holding `value` that astjax creates for a custom rule (a stand-in for
    one the user passed), not the user's function."""
    ref = new_ref(value)
    if isinstance(ref, core.RefTracer):
        _OWN.add(ref.var)
    return ref


def _made_ref(ref):
    """Whether an eager transformation gives JAX a tracer for staged reference `ref`:
    one its function creates (JAX's `new_ref` always runs on the transformation's
    trace), not one passed in (nor astjax's stand-in for one, `_own_ref`)."""
    return ref.builder.producer.get(ref.var) is not None and ref.var not in _OWN


class custom_jvp(_Transformed):
    """A function with a user-defined JVP: `f = custom_jvp(f); @f.defjvp def f_jvp(primals,
    tangents): ... return primal_out, tangent_out`."""

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun)
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp, self.symbolic_zeros = None, False

    def defjvp(self, jvp, symbolic_zeros=False):
        """Set the JVP rule `jvp(primals, tangents) -> (primal_out, tangent_out)`
        (nondiff arguments first); returns it, so it can be used as a decorator."""
        self.jvp = jvp
        self.symbolic_zeros = bool(symbolic_zeros)   # (read for a Ref argument's tangent)
        return jvp

    def defjvps(self, *jvps):
        """Set the JVP from one rule per argument: `jvp_i(t_i, primal_out, *primals)`
        (None for an argument with zero derivative); the contributions are summed."""
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
            return self.fun(*args, **kwargs)
        return self.stage_inline(*args, **kwargs)

    def stage_inline(self, *args, **kwargs):
        if self.jvp is None:
            raise UndefinedRuleError("No JVP defined for custom_jvp function "
                                     f"{getattr(self.fun, '__name__', '?')} using defjvp.")
        check_signature(self.fun, args, kwargs)
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

        def jvp_rule(_consts, primals, tangents):
            p_args = ra.args([_staged(x) for x in primals], ra.live(_consts))
            t_args = ra.args([_staged(x) for x in tangents], fill)
            with differentiation(False):
                po, to = as_callable(user_jvp)(*ra.nondiff(ndv, _consts), tuple(p_args),
                                               tuple(t_args))
            p_leaves = tree_util.tree_leaves(po)
            t_leaves = [_fit_tangent(t, p) for p, t in zip(p_leaves, tree_util.tree_leaves(to))]
            check_jvp_tangents(p_leaves, t_leaves)
            return p_leaves, t_leaves

        outs = bind(custom_jvp_call_p, *consts, *leaves, call_jaxpr=body,
                    jvp=_Rule(jvp_rule, len(consts), "jvp"), num_consts=len(consts),
                    symbolic_zeros=False)
        return tree_util.tree_unflatten(out_tree, outs)

    def _stage_with_rule(self, ra, ndv, user_jvp, fill):
        """Only the rule runs (JAX's order): stage it once, primal body = its primal part."""
        leaves = ra.plain
        avals = [leaf_aval(x) for x in leaves]
        n = len(avals)
        out_tree = [None]

        def rule(*xs):
            p_args = ra.args(xs[:n])
            t_args = ra.args(xs[n:], fill)
            po, to = as_callable(user_jvp)(*ndv, tuple(p_args), tuple(t_args))
            p_leaves, out_tree[0] = tree_util.flatten_for_staging(po)
            t_leaves = [_fit_tangent(t, p) for p, t in zip(p_leaves, tree_util.tree_leaves(to))]
            check_jvp_tangents(p_leaves, t_leaves)
            return p_leaves + t_leaves

        body, consts = _stage_rule(rule, avals + avals, leaves + leaves)
        n_out = out_tree[0].num_leaves
        primal = _primal_part(body, len(consts), n, n_out, avals)
        outs = bind(custom_jvp_call_p, *consts, *leaves, call_jaxpr=primal,
                    jvp=_StagedJvp(body, n_out), num_consts=len(consts),
                    symbolic_zeros=False)
        return tree_util.tree_unflatten(out_tree[0], outs)


class custom_vjp(_Transformed):
    """A function with a user-defined VJP: `f.defvjp(f_fwd, f_bwd)` with
    f_fwd(*args) -> (out, residuals) and f_bwd(residuals, ct_out) -> cts of args."""

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun)
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = self.bwd = None
        self.symbolic_zeros = self.optimize_remat = False

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
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, bool(symbolic_zeros)
        self.optimize_remat = bool(optimize_remat)

    def __call__(self, *args, **kwargs):
        if not _staging():  # JAX: outside transformations, just call the function
            return self.fun(*args, **kwargs)
        return self.stage_inline(*args, **kwargs)

    def stage_inline(self, *args, **kwargs):
        if self.fwd is None:
            raise UndefinedRuleError("No VJP defined for custom_vjp function "
                                     f"{getattr(self.fun, '__name__', '?')} using defvjp.")
        check_signature(self.fun, args, kwargs)
        _check_nondiff_untraced(self.fun, args, self.nondiff_argnums)
        nd, dyn, full = _split_args(args, self.nondiff_argnums)
        ndv = [nd[i] for i in sorted(nd)]
        fun, user_fwd, user_bwd, sz = self.fun, self.fwd, self.bwd, self.symbolic_zeros
        ra = _RefArgs(*tree_util.flatten_for_staging((tuple(dyn), {})))
        leaves = ra.plain
        avals = [leaf_aval(x) for x in leaves]
        res_refs, out_tree = [None], [None]   # residuals: a Ref among them is closed over
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
                out, res = as_callable(user_fwd)(*fwd_args)
            res_refs[0] = rr = _RefArgs(*tree_util.flatten_for_staging(res))
            # Python scalars among the residuals reach bwd as they are (JAX keeps them
            # as literals; equinox's filter_custom_vjp passes its `perturbed` bools on)
            py_res[0] = {i: x for i, x in enumerate(rr.plain) if type(x) in _PY_SCALARS}
            out_leaves, out_tree[0] = tree_util.flatten_for_staging(out)
            nd_leaves = [tree_util.staging_leaves(fwd_args[i]) for i in sorted(nd)]
            nd_res[:] = [[_staged_value(x) for x in xs] for xs in nd_leaves]
            return out_leaves, (rr.plain + [x[...] for x in _staged_refs(rr)] + [
                x for xs, fs in zip(nd_leaves, nd_res) for x, f in zip(xs, fs) if f])

        def bwd(res, cts):
            rr = res_refs[0]
            k, m = len(rr.plain), len(_staged_refs(rr))
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
            return ra.drop(_bwd_leaves(got, tuple(dyn)))

        if _rule_wanted(leaves):  # JAX runs only fwd (and bwd later), not the function
            n_out = [0]

            flags = [_may_be_perturbed(x) for x in leaves]

            def staged_fwd(*xs):
                outs, res = fwd((), list(xs), None, flags)
                n_out[0] = len(outs)
                return outs + res

            body, consts = _stage_rule(staged_fwd, avals, leaves)
            primal = _primal_part(body, len(consts), len(avals), n_out[0], [])
            fwd_param = (_RematFwd(body, n_out[0], primal_thunk) if self.optimize_remat
                         else _StagedFwd(body, n_out[0]))
        else:
            closed, out_tree[0] = ra.stage(call, avals)
            primal, consts = core.split_consts(closed)
            ra.find(consts)
            if self.optimize_remat:
                fwd_param = _Rule(_staged_remat_fwd(fwd, primal_thunk), len(consts), "fwd")
            else:
                fwd_param = _Rule(fwd, len(consts), "fwd")
        paths = [tree_util.keystr(k) for k, x in tree_util.tree_flatten_with_path(
            tuple(dyn))[0] if not is_ref(x)]
        typed_bwd = TypedCustomBwd(bwd, leaves, paths)   # (JAX's typed cotangents: vma.py)
        outs = bind(custom_vjp_call_p, *consts, *leaves, call_jaxpr=primal,
                    fwd=fwd_param, bwd=_Rule(typed_bwd, 0, "bwd", symbolic_zeros=sz),
                    num_consts=len(consts))
        typed_bwd.outputs(outs)
        return tree_util.tree_unflatten(out_tree[0], outs)


def _bwd_leaves(got, dyn):
    """A custom_vjp bwd's cotangents, one per leaf of the differentiable arguments
    `dyn` (None: zero), read as JAX reads them: bwd's tuple is matched against the
    arguments' structure with None as a leaf, so a None (or a SymbolicZero) over a
    subtree is zeros for all its leaves and a None over an argument's own None node is
    nothing. Flattening the cotangents on their own would shift every leaf after such a
    None onto the wrong argument (a silent zero gradient: equinox's checkpointed loops)."""
    if isinstance(got, list) and len(got) == len(dyn):
        got = tuple(got)
    out = []

    def take(g, a):
        n = len(tree_util.tree_leaves(a))
        out.extend([None] * n if g is None or isinstance(g, SymbolicZero) else [g] * n)
        return g

    try:
        if not isinstance(got, tuple):
            raise ValueError
        tree_util.tree_map(take, got, dyn, is_leaf=lambda x: x is None)
    except ValueError:
        raise StructureError(
            "custom_vjp bwd function must return a tuple with the structure of the "
            f"differentiable arguments: got {tree_util.tree_structure(got)} for arguments "
            f"{tree_util.tree_structure(dyn)}",
            hint="return one entry per differentiable argument, each with that "
                 "argument's structure (None for no cotangent)") from None
    return out


# ------------------------------------------------------------------- linear_call


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
                    f"fun_transpose returned {got.str_short()} for a linear input of "
                    f"{want.str_short()}", hint="the transpose's outputs have the shapes "
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
