"""The pieces `custom_jvp` and `custom_vjp` (`astjax.custom_api`) build their equations
from: the Python rules kept in params (`_Rule`, the rules staged at the call:
`_StagedJvp`, `_StagedFwd`, `_RematFwd`), mutable references among the arguments
(`_RefArgs` and the stand-ins a rule gets), whether a call is differentiated and which
operands carry tangents (JAX: which are JVP tracers), and a custom_vjp's bwd staged once
per what determines it (`_CachedBwd`) with its cotangents read as JAX reads them.
"""

from __future__ import annotations

import functools
import inspect
import weakref

import numpy as np

from . import core, dtypes, tree_util
from .primitives import ops as lax  # (not .lax: lax.reduce uses this module)
from . import ad_frames
from .ad_base import differentiating, differentiation
from .extend.core import eager_input, in_eager_transform
from .core import raw
from .errors import (ArgumentIndexError, ArgumentTypeError, ArgumentValueError,
                     AstjaxError, NotImplementedInAstjaxError, StructureError,
                     UnexpectedTracerError, caller_location)
from .primitives.custom_derivatives import SymbolicZero, stop_gradient_p
from .primitives.remat_opt import PrimalThunk, remat_opt
from .primitives.state import is_ref, new_ref
from .primitives.vma import staging_inputs
from .staging import stage_flat, staged_constant as _staged  # noqa: F401 (custom_api)
from .staging import differentiation_level
from .transforms import ad
from .transforms.ad import differentiable, inline


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


def resolve_kwargs(fun, args, kwargs, what: str) -> tuple:
    """The call's arguments as positions of `fun`'s signature, defaults filled in (JAX's
    `resolve_kwargs`: a custom rule sees every argument by position, `nondiff_argnums`
    counts keywords too); a keyword-only one passed -- any keyword, for a
    `functools.partial`, whose signature JAX takes as opaque -- is JAX's TypeError
    naming the `what` ("custom_jvp" / "custom_vjp") function."""
    try:
        sig = (None if isinstance(fun, functools.partial) else inspect.signature(fun))
        bound = None if sig is None else sig.bind(*args, **kwargs)
    except (TypeError, ValueError):   # (check_signature has reported a wrong call)
        return tuple(args)
    if bound is not None:
        bound.apply_defaults()
    passed = list(kwargs) if bound is None else [k for k in bound.kwargs if k in kwargs]
    if passed:
        raise ArgumentTypeError(
            f"The input arguments to the {what}-decorated function "
            f"{getattr(fun, '__name__', fun)} could not be resolved to positional-only "
            "arguments. Binding failed with the error:\nThe following keyword arguments "
            f"could not be resolved to positions: {', '.join(passed)}", loc=caller_location(),
                                hint="pass them positionally, or make them positional "
                                     "parameters of the function")
    return tuple(args) if bound is None else bound.args


def check_nondiff_argnums(args, nondiff_argnums, what: str):
    """JAX's IndexError for a `nondiff_argnums` entry beyond the call's arguments (the
    `what` function called with `args`, keywords resolved to positions)."""
    bad = [i for i in nondiff_argnums if not -len(args) <= i < len(args)]
    if bad:
        raise ArgumentIndexError(
            f"{what} function called with {len(args)} positional arguments, but its "
            f"nondiff_argnums={tuple(nondiff_argnums)} names argument {bad[0]}",
            loc=caller_location(), hint="pass that argument, or fix nondiff_argnums")


def _split_args(args, nondiff_argnums):
    """(nondiff values by position, the other arguments, full(dyn) -> all arguments)."""
    check_nondiff_argnums(args, nondiff_argnums, "custom_jvp/custom_vjp")
    nondiff_argnums = [i % len(args) for i in nondiff_argnums]
    nd = {i: args[i] for i in nondiff_argnums}
    dyn = [a for i, a in enumerate(args) if i not in nd]

    n = len(args)   # (not `args`: a rule kept in the call's equation calls `full`)

    def full(dargs):
        it = iter(dargs)
        return [nd[i] if i in nd else next(it) for i in range(n)]
    return nd, dyn, full


class _AvalOf:
    """A staged argument's stand-in (its aval) in what a rule kept in an equation holds:
    the staged values themselves must not outlive their staging (JAX's rules close over
    no tracer; `check_tracer_leaks` reports one kept, and so a cached jaxpr keeps its
    whole staging alive)."""
    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval


def _avals_of(tree):
    """`tree` with each staged value replaced by its `_AvalOf`."""
    return tree_util.tree_map(lambda x: _AvalOf(x.aval) if isinstance(x, core.Tracer)
                              else x, tree)


class _RefArgs:
    """The dynamic arguments' leaves with the mutable array references among them taken
    out (`plain`, the call's operands): JAX passes a `Ref` argument through to the
    function and its rules; here they close over it, as over a `Ref` from outside
    (`transforms/discharge.py` threads its value through the call and its staged rule).
    `args(xs)` rebuilds the argument tuple from operand values, each reference put back
    (or, for a rule's tangents, `fill(ref)` in its place)."""
    __slots__ = ("tree", "refs", "n", "plain", "k", "at")

    def __init__(self, leaves, tree):
        self.tree, self.n = tree, len(leaves)
        self.refs = {i: x for i, x in enumerate(leaves) if is_ref(x)}
        self.plain = [x for i, x in enumerate(leaves) if i not in self.refs]
        self.k = len(self.plain)
        self.at = {}

    def release(self):
        """Drop the operands once the call is staged: a rule kept in its equation needs
        only their structure (see `_AvalOf`)."""
        self.plain = None

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


def jvp_pair(out, jvp, fun):
    """`out`, what the custom_jvp rule `jvp` of `fun` returned, checked to be a pair
    (JAX's TypeError, naming both functions, for anything else)."""
    if isinstance(out, (tuple, list)) and len(out) == 2:
        return out
    raise ArgumentTypeError(
        f"Custom JVP rule {getattr(jvp, '__name__', jvp)} for function "
        f"{getattr(fun, '__name__', fun)} must produce a pair (list or tuple of length two) "
        f"representing primal and tangent outputs, but got {out!r:.200}.",
        hint="return (primal_out, tangent_out) from the rule")


def _fit_tangent(t, p):
    """A rule's tangent output brought to its primal's shape and dtype (a
    `SymbolicZero` one, which a rule defined with `symbolic_zeros=True` may return:
    zeros)."""
    pa = core.get_aval(p)
    if isinstance(t, SymbolicZero):   # (an integer output's tangent is dropped later)
        return ad.zeros_like_aval(pa) if differentiable(pa) else lax.full(pa.shape, 0, pa.dtype)
    if not differentiable(pa):
        return t
    ta = core.get_aval(t)
    if (ta.shape, ta.dtype) != (pa.shape, pa.dtype):   # (JAX: no broadcast, no cast)
        raise ArgumentTypeError(
            "Custom JVP rule must produce primal and tangent outputs with corresponding "
            f"shapes and dtypes. Expected {pa.str_short()} (tangent type of "
            f"{pa.str_short()}) but got {ta.str_short()}.",
            hint="return a tangent of the primal output's shape and dtype")
    return t


def _tangent_aval(aval):
    """The aval of a tangent of a value of `aval` (float0 for an integer or boolean)."""
    return aval if differentiable(aval) else core.ShapedArray(aval.shape, ad.float0)


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
    `(consts, primals, tangents) -> (primal outs, tangent outs)` inlines it. The rule
    was staged on the tangents of the operands in `perturbed` only (the others it got
    as `SymbolicZero`s: their tangents are zero). `values`: what the rule returned when
    an eager jvp ran it on the values passed (`ad_eager_values`, JAX's op-by-op jvp),
    primal outs then tangent outs, as the objects it returned (a Python float stays
    one); called outside staging, it hands them back."""
    __slots__ = ("body", "n_out", "perturbed", "values", "name")

    def __init__(self, body, n_out, perturbed, values=None, name="jvp"):
        self.body, self.n_out, self.perturbed = body, n_out, perturbed
        self.values, self.name = values, name

    def __call__(self, consts, primals, tangents):
        if self.values is not None and core.current_builder() is None:
            outs = self.values
        else:
            ts = [t for t, p in zip(tangents, self.perturbed) if p]
            outs = inline(self.body, list(consts) + list(primals) + ts)
        return outs[:self.n_out], outs[self.n_out:]

    def __repr__(self):
        return self.name


class _StagedFwd:
    """The fwd param of a `custom_vjp_call` whose fwd was staged at the call:
    `(consts, primals) -> (outs, residuals)`."""
    __slots__ = ("body", "n_out", "name")

    def __init__(self, body, n_out, name="fwd"):
        self.body, self.n_out, self.name = body, n_out, name

    def __call__(self, consts, primals, perturbed=None):
        # staged at the call with every primal perturbed (symbolic_zeros rules see True)
        outs = inline(self.body, list(consts) + list(primals))
        return outs[:self.n_out], outs[self.n_out:]

    def __repr__(self):
        return self.name


class _RematFwd:
    """The fwd param of a `custom_vjp_call` defined with `optimize_remat=True` whose fwd
    was staged at the call: `(consts, primals) -> (outs, residuals)` through one
    `remat_opt` equation."""
    __slots__ = ("body", "n_out", "thunk", "name")

    def __init__(self, body, n_out, thunk, name="fwd"):
        self.body, self.n_out, self.thunk, self.name = body, n_out, thunk, name

    def __call__(self, consts, primals, perturbed=None):
        return remat_opt(self.body, list(consts), list(primals), self.n_out,
                         PrimalThunk(self.thunk))

    def __repr__(self):
        return self.name


class _StoreEmptyError(AstjaxError):
    """A value filled in while a transformation runs, asked for before it ran (JAX's
    `StoreException`, an Exception)."""


class _OutTrees:
    """JAX's `out_trees` param of a `custom_vjp_call`: called, (the output's treedef,
    the residuals' treedef, per residual the operand it forwards -- None each: astjax
    saves every residual), known once the call's fwd has run (JAX's store, empty
    until then)."""
    __slots__ = ("out", "res")

    def __init__(self, out, res):
        self.out, self.res = out, res   # the one-element lists custom_vjp's fwd fills

    def __call__(self):
        rr = self.res[0]
        if rr is None or self.out[0] is None:
            raise _StoreEmptyError("a custom_vjp_call's out_trees are known once its fwd "
                                   "has run (the call was not differentiated)")
        return self.out[0], rr.tree, [None] * rr.tree.num_leaves

    def __repr__(self):
        return "out_trees"


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
                and dtypes.is_inexact(core.get_aval(x).dtype) and ad_frames.perturbed(x))


def _rule_wanted(leaves):
    """Is this call differentiated (JAX: are its operands JVP tracers)? Here: a
    function is being differentiated and some operand may carry a tangent of a
    differentiation (`ad_frames.perturbed`: `grad(f, argnums=0)(x, y)`'s `y` carries
    none, and a rule given only `y` does not run)."""
    return differentiating() and any(ad_frames.perturbed(x) for x in leaves)


def _may_depend_on_inputs(x, eager=False):
    """Whether some path back from staged `x` (through captures into enclosing
    builders) reaches a builder's inputs without crossing a `stop_gradient`: whether
    `x` is a tracer to JAX (`_check_nondiff_untraced`). With `eager`, only inputs that
    are tracers to JAX count (`eager_input`)."""
    stack, seen, consts = [(x.builder, x._var)], set(), {}
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
                stack.append((src.builder, src._var))
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
                    f"a traced value ({core.get_aval(leaf).str_short(True)}) was passed to the "
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
        _OWN.add(ref._var)
    return ref


def _made_ref(ref):
    """Whether an eager transformation gives JAX a tracer for staged reference `ref`:
    one its function creates (JAX's `new_ref` always runs on the transformation's
    trace), not one passed in (nor astjax's stand-in for one, `_own_ref`)."""
    return ref.builder.producer.get(ref._var) is not None and ref._var not in _OWN



class _CachedBwd:
    """A custom_vjp's `bwd(res, cts)`, staged once per what determines it and inlined
    where it is needed again, as JAX caches the transpose of a jitted function: a
    `jit(f)` differentiated twice runs the user's bwd once (equinox's test_ad counts).
    What determines it: fwd's run (`state()`: the residuals' structure and the Python
    scalars among them, the outputs' structure, which nondiff values became residuals;
    None where references are involved), the staged operands' avals, the Python and
    NumPy scalars and symbolic zeros among them, and the differentiation depth. Operands known at
    staging time (bwd may read them as Python values) and a staging that closes over
    another function's staged values run bwd as it is."""
    __slots__ = ("bwd", "state", "staged")

    def __init__(self, bwd, state):
        self.bwd, self.state, self.staged = bwd, state, {}

    @staticmethod
    def _staged_operand(x):
        return isinstance(x, core.Tracer) and x.known is None

    def _key(self, res, cts):
        state = self.state()
        if state is None:
            return None
        parts = []
        for x in list(res) + list(cts):
            if self._staged_operand(x):
                parts.append(x.aval)
            elif isinstance(x, SymbolicZero):
                parts.append((SymbolicZero, x.aval))
            elif type(x) in _PY_SCALARS or isinstance(x, np.generic):   # (a NumPy bool:
                parts.append((type(x), x))                              # equinox's flags)
            else:
                return None
        key = (state, tuple(parts), differentiation_level.depth)
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def _stage(self, ops, n_res):
        present = []

        def staged(*xs):
            it = iter(xs)
            full = [next(it) if self._staged_operand(x) else x for x in ops]
            got = self.bwd(full[:n_res], full[n_res:])
            present[:] = [g is not None for g in got]
            return [g for g in got if g is not None]
        return core.stage(staged, [x.aval for x in ops if self._staged_operand(x)]), present

    def __call__(self, res, cts):
        key = self._key(res, cts)
        if key is None:
            return self.bwd(res, cts)
        ops = list(res) + list(cts)
        hit = self.staged.get(key)
        if hit is None:
            hit = self._stage(ops, len(res))
            if not any(isinstance(c, core.Tracer) for c in hit[0].consts):
                self.staged[key] = hit
        closed, present = hit
        outs = iter(inline(closed, [x for x in ops if self._staged_operand(x)]))
        return [next(outs) if p else None for p in present]


def _bwd_leaves(got, dyn):
    """A custom_vjp bwd's cotangents, one per leaf of the differentiable arguments
    `dyn` (None: zero), read as JAX reads them: bwd's tuple is matched against the
    arguments' structure with None as a leaf, so a None (or a SymbolicZero) over a
    subtree is zeros for all its leaves and a None over an argument's own None node is
    nothing. Flattening the cotangents on their own would shift every leaf after such a
    None onto the wrong argument (a silent zero gradient: equinox's checkpointed loops)."""
    if isinstance(got, list) and len(got) == len(dyn):
        got = tuple(got)
    out, pairs = [], []

    def take(path, g, a):
        n = len(tree_util.tree_leaves(a))
        if tree_util.is_staging_leaf_type(type(g)):
            g = tree_util.staging_leaves(g)[0]   # (an extended dtype's cotangent: its data)
        out.extend([None] * n if g is None or isinstance(g, SymbolicZero) else [g] * n)
        if g is not None and not isinstance(g, SymbolicZero):
            pairs.append((path, g, a))
        return g

    try:
        if not isinstance(got, tuple):
            raise ValueError
        tree_util.tree_map_with_path(take, got, dyn, is_leaf=lambda x: x is None)
    except ValueError:
        raise StructureError(
            "custom_vjp bwd function must return a tuple with the structure of the "
            f"differentiable arguments: got {tree_util.tree_structure(got)} for arguments "
            f"{tree_util.tree_structure(dyn)}",
            hint="return one entry per differentiable argument, each with that "
                 "argument's structure (None for no cotangent)") from None
    for path, g, a in pairs:
        _check_bwd_shape(path, g, a)
    return out


def _long(aval):   # (JAX's str_short, its dtypes named in full)
    return f"{np.dtype(aval.dtype).name}[{','.join(map(str, aval.shape))}]"


def _check_bwd_shape(path, ct, arg):
    """JAX's ValueError for a bwd cotangent shaped otherwise than its argument (one
    with a float or complex dtype; an integer's cotangent is dropped, and JAX lets the
    dtype differ): astjax passed it on, a gradient of the wrong shape, silently."""
    try:
        a, c = core.get_aval(arg), core.get_aval(ct)
    except TypeError:   # (a reference, a hi value: theirs are checked where they are used)
        return
    if (not isinstance(getattr(a, "dtype", None), np.dtype) or a.dtype.kind not in "fc"
            or getattr(c, "shape", a.shape) == a.shape):
        return
    extra = (["the dtypes do not match"] if c.dtype != a.dtype else []) + [
        "the shapes do not match"]
    raise ArgumentValueError(
        "Custom VJP bwd rule must produce an output with the same type as the args tuple "
        f"of the primal function, but at output{tree_util.keystr(path)} the bwd rule "
        f"produced an output of type {_long(c)} corresponding to an input of type "
        f"{_long(a)}, so {', and '.join(extra)}",
        hint="return, for each argument, a cotangent of that argument's shape (or None)")
