"""Family helpers for declaring primitives, so that an elementwise primitive is a
few lines. Rule signatures, shared by every primitive module:

- impl(*numpy_values, **params) -> value (or list if multiple_results)
- abstract_eval(*avals, **params) -> ShapedArray (or list)
- lowering(ctx: codegen.stablehlo.RuleContext, *ssa_names, **params) -> ssa (or list)
- jvp(primals, tangents, **params) -> (primal_out, tangent_out)       [transforms.ad]
- transpose(cts, *args, **params) -> list of cotangents, one per arg   [transforms.ad]
- batch(args, dims, **params) -> (out, out_dim)                       [transforms.batching]
- source(gen, eqn) -> ast.expr                                         [codegen.pysource]

Below the declaration families: the jvp/transpose definers (`defjvp`, `defzero`,
`deflinear`, `deftranspose`, `nondiff`), the batch families (`defvectorized`,
`defbroadcasting`, `defreducer`, `defcumulative`, `deffront`, `defno_operands`) and
the axis helpers batch rules share (`moveaxis`, `matchaxis`, `bdim_at_front`, ...).
Rule bodies here may import a later family inside the function (e.g. `structural`
for broadcast_in_dim): every family imports this module first.
"""
from __future__ import annotations

import ast

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray
from ..errors import DTypeError, ShapeError, ShapeValueError
from ..precision_config import Tolerance, accuracy_attribute
from ..shape_poly import canonical_dim
from ..pyast import call, comment, lax_call, pyconst, statement_rule

FLOAT = "float"
INEXACT = "inexact"
INT = "int"
INT_BOOL = "int_bool"
NUMBER = "number"
REAL = "real"  # integer or floating, not bool or complex
ANY = "any"

_KIND_OK = {
    FLOAT: lambda d: dtypes.is_float(d),
    INEXACT: lambda d: dtypes.is_inexact(d),
    INT: lambda d: dtypes.is_int(d),
    INT_BOOL: lambda d: dtypes.is_int(d) or d == dtypes.bool_,
    NUMBER: lambda d: d != dtypes.bool_,
    REAL: lambda d: dtypes.is_int(d) or dtypes.is_float(d),
    ANY: lambda d: True,
}
_KIND_TEXT = {FLOAT: "floating-point", INEXACT: "floating-point or complex", INT: "integer",
              INT_BOOL: "integer or boolean", NUMBER: "numeric", REAL: "integer or floating-point",
              ANY: "any"}


def check_dtype(name, kind, *avals):
    for a in avals:
        if not _KIND_OK[kind](a.dtype):
            raise DTypeError(f"`{name}` needs {_KIND_TEXT[kind]} operands, got "
                             f"{', '.join(x.str_short(True) for x in avals)}")


def register(p, **rules):
    """Set rules of `p` by kind (`impl=`, `jvp=`, `batch=`, ...; see core.Primitive)."""
    for kind, r in rules.items():
        if kind not in core.RULE_KINDS:
            raise TypeError(f"unknown rule kind {kind!r}")
        if r is not None:
            setattr(p, kind, r)
    if rules.get("transpose") is not None:
        p.linear = True
    return p


def lower_inline(ctx, fn, avals, args):
    """Lower, inside the rule being lowered, what `fn(*xs)` (returning a list) stages
    on values of `avals`, applied to the SSA values `args`; -> the outputs' SSA values."""
    closed = core.stage(fn, list(avals))
    consts = [ctx.constant(np.asarray(c), core.get_aval(c)) for c in closed.consts]
    return list(ctx.lower_jaxpr(closed.jaxpr, consts, list(args)))


def lowering_from(fn, multiple_results=False):
    """A lowering rule that lowers what `fn(*operands, **params)` stages (lax
    operations on the operands): JAX's `mlir.lower_fun`, for a primitive whose
    computation is a composition of others. `fn` must not bind the primitive itself."""
    def rule(ctx, *args, **params):
        def staged(*xs):
            out = fn(*xs, **params)
            return list(out) if multiple_results else [out]
        outs = lower_inline(ctx, staged, ctx.avals_in, args)
        return outs if multiple_results else outs[0]
    return rule


def shown_params(hidden=(), hidden_empty=(), hidden_none=()):
    """A primitive's `pp_shown` (`ir.pp_eqn`: the params printed, where JAX's pp rule
    hides some): without `hidden`, nor `hidden_empty` when empty, `hidden_none` when None."""
    return lambda params: {k: v for k, v in params.items() if k not in hidden and not (
        k in hidden_empty and not v) and not (k in hidden_none and v is None)}


def mark_unsupported(p, kind, reason):
    """Leave `p`'s rule of `kind` out on purpose; `core.rule` raises with `reason`."""
    p.unsupported[kind] = reason


def _cast(x, dtype):
    return np.asarray(x).astype(dtype, copy=False)


def as_operand(x):
    """A list/tuple operand as an array of its canonical dtype (wrappers' input)."""
    if isinstance(x, (list, tuple)):
        return np.asarray(x, dtypes.canonicalize(np.asarray(x).dtype))
    return x


def match_scalars(x, y):
    """A lax wrapper's two operands, as JAX takes them: a Python scalar is a weak value of
    its kind's default dtype, which the primitive's dtype rule then checks (`lax.add(x_f32,
    1)` is JAX's TypeError). astjax's own code gives a wrapper a number of an operand's
    dtype with `weak_like`."""
    wx, wy = dtypes.is_weak_scalar(x), dtypes.is_weak_scalar(y)
    if wx == wy:
        return as_operand(x), as_operand(y)
    v = x if wx else y
    c = core.WeakConst(np.asarray(v, dtypes.python_scalar_dtype(v))[()])
    return (c, y) if wx else (x, c)


def weak_like(value, x):
    """The number `value` as a weak 0-d constant of `x`'s dtype: what astjax's own rules and
    libraries pass to a lax wrapper beside `x`, where a bare Python scalar would be a value
    of its own default dtype (JAX's rule for every caller)."""
    return core.WeakConst(np.asarray(value, core.get_aval(x).dtype)[()])

# ----------------------------------------------------------------- elementwise


def lax_source(name):
    """The default printed form of an elementwise primitive: `lax.<name>(*operands)`."""
    def rule(gen, eqn):
        return lax_call(name, gen, eqn)
    return rule


def _accuracy_source(name):
    """`lax.<name>(x)`, with `accuracy=` when the equation has one."""
    def rule(gen, eqn):
        acc = eqn.params.get("accuracy")
        if acc is None:
            return lax_call(name, gen, eqn)
        if isinstance(acc, Tolerance):
            value = call("lax.Tolerance", atol=pyconst(acc.atol), rtol=pyconst(acc.rtol),
                         ulps=pyconst(acc.ulps))
        else:
            value = gen.value(acc)
        return lax_call(name, gen, eqn, accuracy=value)
    return rule


def unop(name, np_fn, hlo, kind=FLOAT, out_dtype=None, hlo_attrs=None, source=None,
         check=None, accuracy=None):
    """A unary elementwise primitive: `out_dtype` maps the input dtype (default same).
    Params (e.g. `round`'s rounding_method) are passed on to `np_fn` and to a callable
    `hlo`; `check(x_aval, **params)` may reject operands first. Batching is
    `defvectorized`; printed source is `source`, by default `lax.<name>(x)`. `accuracy`,
    a predicate of the operand's aval, makes the primitive take lax's `accuracy` param
    (None: not printed, as JAX's; an AccuracyMode or Tolerance: the reference ignores it,
    a string `hlo` carries it as `result_accuracy` where the predicate holds)."""
    p = core.new_primitive(name)

    def abstract_eval(x, **params):
        check_dtype(name, kind, x)
        if check is not None:
            check(x, **params)
        # JAX's standard rule: the result is weak when the operand is, whatever its dtype
        return ShapedArray(x.shape, out_dtype(x.dtype) if out_dtype else x.dtype, x.weak_type)

    def impl(x, **params):
        dt = out_dtype(np.asarray(x).dtype) if out_dtype else np.asarray(x).dtype
        if accuracy is not None:
            params.pop("accuracy", None)
        with np.errstate(all="ignore"):
            return _cast(np_fn(np.asarray(x), **params), dt)

    def lowering(ctx, x, **params):
        if callable(hlo):
            return hlo(ctx, x, **params)
        attrs = hlo_attrs
        if params.get("accuracy") is not None and accuracy(ctx.avals_in[0]):
            attrs = {**(hlo_attrs or {}), **accuracy_attribute(params["accuracy"])}
        return ctx.op1(hlo, [x], attrs=attrs)

    register(p, impl=impl, abstract_eval=abstract_eval, lowering=lowering,
             source=source or (_accuracy_source(name) if accuracy else lax_source(name)))
    defvectorized(p)
    p.pp_shown = shown_params(hidden_none=("accuracy",)) if accuracy else None
    return p


def _is_one(d) -> bool:
    return type(d) is int and d == 1


def binary_shape(name, *avals):
    """The result shape of an elementwise primitive, by JAX's rule for lax's n-ary
    operations: rank-0 operands broadcast, the others have one rank, and each of their
    dimensions is one size or 1 (a size-1 dimension broadcasts)."""
    shapes = [tuple(a.shape) for a in avals if a.shape != ()]
    if not shapes or all(s == shapes[0] for s in shapes):
        return shapes[0] if shapes else ()
    if len({len(s) for s in shapes}) != 1:
        raise ShapeError(f"{name}: arrays must have the same number of dimensions, "
                         f"got {set(len(s) for s in shapes)}")
    out = []
    for ds in zip(*shapes):
        sizes = {d for d in ds if not _is_one(d)}
        if len(sizes) > 1:
            raise ShapeError(f"{name} got incompatible shapes for broadcasting: "
                             + ", ".join(str(s) for s in shapes) + ".")
        out.append(next(iter(sizes), 1))
    return tuple(out)


def binop(name, np_fn, hlo, kind=NUMBER, out_dtype=None, same_dtype=True, check=None,
          source=None):
    """A binary elementwise primitive. Operands have one dtype (lax semantics) and
    equal shapes, except that rank-0 operands broadcast (as JAX's literals do).
    `check(x_aval, y_aval)` may reject operands first. Batching is
    `defbroadcasting`; printed source is `source`, by default `lax.<name>(x, y)`."""
    p = core.new_primitive(name)

    def abstract_eval(x, y):
        if check is not None:
            check(x, y)
        check_dtype(name, kind, x, y)
        if same_dtype and x.dtype != y.dtype:
            raise DTypeError(f"`{name}` needs operands of one dtype, got "
                             f"{x.str_short(True)} and {y.str_short(True)}")
        shape = binary_shape(name, x, y)
        # weak when every operand is, also for a fixed result dtype (`lt` of two Python
        # scalars is a weak bool in JAX)
        return ShapedArray(shape, out_dtype(x.dtype) if out_dtype else x.dtype,
                           x.weak_type and y.weak_type)

    def impl(x, y):
        x, y = np.asarray(x), np.asarray(y)
        with np.errstate(all="ignore"):
            r = np_fn(x, y)
        return _cast(r, out_dtype(x.dtype) if out_dtype else x.dtype)

    def lowering(ctx, x, y):
        out = ctx.avals_out[0]
        # (`broadcast` gives its result the operand's dtype; equal shapes pass through)
        x = ctx.broadcast(x, ctx.avals_in[0], out)
        y = ctx.broadcast(y, ctx.avals_in[1], out)
        if callable(hlo):
            return hlo(ctx, x, y)
        return ctx.op1(hlo, [x, y])

    register(p, impl=impl, abstract_eval=abstract_eval, lowering=lowering,
             source=source or lax_source(name))
    defbroadcasting(p)

    def batch(args, dims, **params):   # (JAX's `broadcast_batcher`: size-1 dimensions)
        from .broadcasting import broadcast_batcher
        return broadcast_batcher(p, args, dims, params)
    p.batch = batch
    return p


# ------------------------------------------------------------------- reducers


def normalize_axes(name, axes, ndim, error=None):
    """`axes` of an array of rank `ndim`, made non-negative: each in range and none
    repeated (what the StableHLO verifier requires). `error`: the class JAX raises for
    this primitive (default `ShapeValueError`, a ValueError)."""
    error = error or ShapeValueError
    out = []
    for a in axes:
        if not -ndim <= a < max(ndim, 1) or (ndim == 0):
            raise error(f"`{name}`: axis {a} is out of bounds for an array of rank {ndim}")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise error(f"`{name}`: repeated axis in {tuple(axes)}")
    return tuple(out)


def check_shape(name, shape, what="shape"):
    """A shape of non-negative sizes (JAX: TypeError; a negative size is not a
    StableHLO type)."""
    if any(canonical_dim(d) < 0 for d in shape):   # (a symbolic dimension is >= 1)
        raise ShapeError(f"`{name}`: every size in {what} must be >= 0, got {tuple(shape)}")


def reducer(name, np_fn, hlo_body, init, kind=ANY, out_dtype=None):
    """A reduction over `axes`; `init(dtype)` is the identity, `hlo_body` the
    combiner's StableHLO op name."""
    p = core.new_primitive(name)

    def abstract_eval(x, *, axes, out_sharding=None):
        check_dtype(name, kind, x)
        axes = normalize_axes(name, axes, x.ndim)
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return ShapedArray(shape, out_dtype(x.dtype) if out_dtype else x.dtype, x.weak_type)

    def impl(x, *, axes, out_sharding=None):
        x = np.asarray(x)
        return _cast(np_fn(x, axis=tuple(axes)), out_dtype(x.dtype) if out_dtype else x.dtype)

    def lowering(ctx, x, *, axes, out_sharding=None):
        aval = ctx.avals_in[0]
        axes = tuple(a % aval.ndim for a in axes) if aval.ndim else tuple(axes)
        scalar = ShapedArray((), aval.dtype)
        init_v = ctx.constant(init(aval.dtype), scalar)
        if hlo_body in ("stablehlo.maximum", "stablehlo.minimum"):
            from .comparisons import minmax_values   # (complex values: lexicographic)
            body = ctx.region([scalar, scalar],
                              lambda a, b: [minmax_values(ctx, hlo_body, a, b, scalar)])
        else:
            body = ctx.region([scalar, scalar],
                              lambda a, b: [ctx.mb.op(hlo_body, [a, b], [scalar])[0]])
        return ctx.op1("stablehlo.reduce", [x, init_v], regions=[body],
                       attrs={"dimensions": ctx.i64(axes)})

    register(p, impl=impl, abstract_eval=abstract_eval, lowering=lowering)
    return p


def min_value(dt):
    """The least value of `dt` (-inf where it has one; False for bool)."""
    return -max_value(dt) if dtypes.is_inexact(dt) else (
        False if np.dtype(dt) == dtypes.bool_ else dtypes.iinfo(dt).min)


def max_value(dt):
    """The greatest value of `dt` (inf where it has one; True for bool)."""
    dt = np.dtype(dt)
    if dt == dtypes.bool_:
        return True
    if dtypes.is_inexact(dt):
        return np.inf if dtypes.supports_inf(dt) else dtypes.finfo(dt).max
    return dtypes.iinfo(dt).max

# ------------------------------------------------------------- AD: tangent helpers
# Tangents / cotangents may be the symbolic `core.Zero`; rules bind primitives on Tracers.


def tangent_aval(x):
    return x.aval if isinstance(x, (core.Zero, core.UndefinedPrimal)) else core.get_aval(x)


def zeros_like_aval(aval):
    if hasattr(aval, "edtype"):   # a user extended dtype's data: its rules' `zero`
        return aval.zeros()
    from .structural import broadcast, convert_element_type
    v = convert_element_type(np.zeros((), aval.dtype), aval.dtype, weak_type=aval.weak_type)
    return broadcast(v, aval.shape) if aval.shape else v


def instantiate(t, aval=None):
    return zeros_like_aval(t.aval if aval is None else aval) if isinstance(t, core.Zero) else t


def add_tangents(a, b):
    if isinstance(a, core.Zero):
        return b
    if isinstance(b, core.Zero):
        return a
    if hasattr(aval := core.get_aval(a), "edtype"):   # a user extended dtype's: its `add`
        return aval.add_values(a, b)
    from .elementwise import add_any_p
    return core.bind(add_any_p, a, b)


GPU_PLATFORMS = ("cuda", "rocm")   # the lowering platforms with GPU kernels (and their rules)


def lax_ops():
    """Every family's wrapper functions (`primitives/ops.py`), for rule bodies that
    need an operation of a family later than their own."""
    from . import ops
    return ops


def is_zero(t):
    return isinstance(t, core.Zero)


def bcast_operand(t, shape):
    """Broadcast an elementwise operand (or its tangent / cotangent) to the result's
    `shape`: a rank-0 one, or one whose size-1 dimensions broadcast (JAX's
    `_maybe_broadcast`: the size-1 dimensions reshaped away, then `broadcast_in_dim`)."""
    a = tangent_aval(t)
    shape = tuple(shape)
    if a.shape == shape:
        return t
    from .structural import broadcast_in_dim, reshape
    if not a.shape:
        return broadcast_in_dim(t, shape, ())
    keep = tuple(i for i, (d, n) in enumerate(zip(a.shape, shape)) if d == n)
    return broadcast_in_dim(reshape(t, tuple(a.shape[i] for i in keep)), shape, keep)


def unbcast_operand(ct, aval):
    """Sum a cotangent down to the shape of an operand an elementwise primitive
    broadcast (rank 0, or size-1 dimensions: JAX's `_unbroadcast`)."""
    if is_zero(ct):
        return core.Zero(aval)
    shape = tangent_aval(ct).shape
    if shape == aval.shape:
        return ct
    from .reductions import reduce_sum
    from .structural import reshape
    if not aval.shape:
        return reduce_sum(ct, tuple(range(len(shape))))
    dims = tuple(i for i, (d, n) in enumerate(zip(shape, aval.shape)) if d != n)
    return reshape(reduce_sum(ct, dims), aval.shape)


def weak_const(x, v):
    """A weak scalar constant of x's dtype."""
    return core.WeakConst(np.asarray(v, tangent_aval(x).dtype))


def sum_tangents(ts, shape):
    out = core.Zero(None)
    for t in ts:
        if is_zero(t):
            continue
        t = bcast_operand(t, shape)
        out = t if is_zero(out) else add_tangents(out, t)
    return out


# ------------------------------------------------------------------ AD: definers


def defjvp(p, *fns):
    """Elementwise: fns[i](t_i, out, *primals) is operand i's tangent contribution."""
    def rule(primals, tangents, **params):
        out = core.bind(p, *primals, **params)
        shape = tangent_aval(out).shape
        ts = [core.Zero(None) if is_zero(t) or f is None else f(t, out, *primals, **params)
              for f, t in zip(fns, tangents)]
        tout = sum_tangents(ts, shape)
        return out, core.Zero(tangent_aval(out)) if is_zero(tout) else tout
    p.jvp = rule


def defzero(p):
    """Piecewise-constant functions: zero derivative (floor, sign, ...)."""
    def rule(primals, tangents, **params):
        out = core.bind(p, *primals, **params)
        return out, core.Zero(tangent_aval(out))
    p.jvp = rule


def deflinear(p, transpose):
    """A primitive linear in all its (differentiable) operands: the JVP applies it
    to the tangents (zeros instantiated)."""
    def rule(primals, tangents, **params):
        out = core.bind(p, *primals, **params)
        if all(is_zero(t) for t in tangents):
            return out, core.Zero(tangent_aval(out))
        ts = [instantiate(t) for t in tangents]
        return out, core.bind(p, *ts, **params)
    p.jvp, p.transpose, p.linear = rule, transpose, True


def bilinear(p, transpose_lhs, transpose_rhs) -> dict:
    """The `jvp` and `transpose` rules of `p(x, y)`, linear in each operand (JAX's
    `defbilinear`; dot_general, conv_general_dilated), for `register(p, **bilinear(...))`:
    the tangent `p(tx, y) + p(x, ty)`; the linear operand's cotangent
    `transpose_lhs(ct, x_aval, y, **params)` or `transpose_rhs(ct, x, y_aval, **params)`."""
    def jvp(primals, tangents, **params):
        (x, y), (tx, ty) = primals, tangents
        out = core.bind(p, x, y, **params)
        ts = [core.bind(p, *xy, **params) for t, xy in ((tx, (tx, y)), (ty, (x, ty)))
              if not is_zero(t)]
        if not ts:
            return out, core.Zero(tangent_aval(out))
        return out, ts[0] if len(ts) == 1 else add_tangents(*ts)

    def transpose(ct, x, y, **params):
        if is_zero(ct):
            return [None, None]
        if core.is_undefined(x) and core.is_undefined(y):
            raise AssertionError(f"{p.name} of two linear values is not linear")
        if core.is_undefined(x):
            return [transpose_lhs(ct, x.aval, y, **params), None]
        return [None, transpose_rhs(ct, x, y.aval, **params)]
    return {"jvp": jvp, "transpose": transpose}


def deftranspose(p, transpose):
    p.transpose, p.linear = transpose, True


def nondiff(*ps):
    for p in ps:
        p.nondiff = True

# ------------------------------------------------------------------ batching: axes
# A batch dim is an axis index, or None for an unmapped operand.


def moveaxis(x, src, dst):
    """Move axis `src` of x to position `dst`."""
    nd = core.get_aval(x).ndim
    src, dst = src % nd, dst % nd
    if src == dst:
        return x
    from .structural import transpose
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return transpose(x, perm)


def broadcast_batch(x, size, dim):
    """Insert a new axis of `size` at `dim` (x is unmapped)."""
    from .structural import broadcast_in_dim
    a = core.get_aval(x)
    shape = list(a.shape)
    shape.insert(dim, size)
    dims = [i for i in range(len(shape)) if i != dim]
    return broadcast_in_dim(x, tuple(shape), tuple(dims))


def matchaxis(x, src, dst, size=None):
    """Put the batch axis of x (at `src`, or unmapped) at `dst`."""
    if src is None:
        if dst is None:
            return x
        return broadcast_batch(x, core.axis_size() if size is None else size, dst)
    if dst is None:
        raise ValueError("cannot unmap a mapped value")
    return moveaxis(x, src, dst)


def bdim_at_front(x, d, size=None):
    return matchaxis(x, d, 0, size)


def shift_axis(a, d):
    """A per-example axis index `a` -> the same axis with a batch axis at `d`."""
    return a if d is None or a < d else a + 1


def mapped_aval(aval: ShapedArray, d, size) -> ShapedArray:
    if d is None:
        return aval
    shape = list(aval.shape)
    shape.insert(d, size)
    return aval.update(shape=tuple(shape))


def unmapped_aval(aval: ShapedArray, d) -> ShapedArray:
    if d is None:
        return aval
    return aval.update(shape=tuple(s for i, s in enumerate(aval.shape) if i != d))

# ---------------------------------------------------------------- batching: families
# Each sets `p.batch` (and returns the rule): rule(args, dims, **params) -> (out, out_dim).


def defvectorized(p):
    """Unary elementwise (also marks `p.elementwise`: the default sharding rule
    of `codegen/explicit.py` applies)."""
    def rule(args, dims, **params):
        return core.bind(p, args[0], **params), dims[0]
    p.batch, p.elementwise = rule, True
    return rule


def defbroadcasting(p, scalar_ok=None):
    """n-ary elementwise; `scalar_ok`: operand positions allowed to stay rank 0
    (default: all). Marks `p.elementwise` (`codegen/explicit.py`'s default sharding
    rule: the operands' layouts broadcast)."""
    def rule(args, dims, **params):
        size = core.axis_size()
        avals = [core.get_aval(x) for x in args]
        ranks = [a.ndim - (d is not None) for a, d in zip(avals, dims)]
        r = max(ranks)
        out_d = next((d for d, rk in zip(dims, ranks) if d is not None and rk == r), 0)
        # (the operands' shapes without their batch dimensions, size-1 ones broadcast)
        shape = binary_shape(p.name, *(ShapedArray(tuple(s for i, s in enumerate(a.shape)
                                                         if i != d), a.dtype)
                                       for a, d, rk in zip(avals, dims, ranks) if rk == r))
        full = list(shape)
        full.insert(out_d, size)
        full = tuple(full)
        from .structural import broadcast_in_dim
        new = []
        for i, (x, d, rk) in enumerate(zip(args, dims, ranks)):
            if d is None and rk == 0 and (scalar_ok is None or i in scalar_ok):
                new.append(x)
            elif d is None:
                new.append(broadcast_in_dim(
                    x, full, tuple(j for j in range(len(full)) if j != out_d)))
            elif rk == 0:
                new.append(broadcast_in_dim(x, full, (out_d,)) if len(full) > 1 else x)
            else:
                new.append(moveaxis(x, d, out_d))
        return core.bind(p, *new, **params), out_d
    p.batch, p.elementwise = rule, True
    return rule


def defreducer(p):
    def rule(args, dims, *, axes, **params):
        x, d = args[0], dims[0]
        nd = max(core.get_aval(x).ndim - 1, 1)
        axes = tuple(a % nd for a in axes)
        new_axes = tuple(sorted(shift_axis(a, d) for a in axes))
        out_d = d - sum(1 for a in axes if a < d)
        return core.bind(p, x, axes=new_axes, **params), out_d
    p.batch = rule
    return rule


def defcumulative(p):
    def rule(args, dims, *, axis, **params):
        x, d = args[0], dims[0]
        axis = axis % max(core.get_aval(x).ndim - 1, 1)
        return core.bind(p, x, axis=shift_axis(axis, d), **params), d
    p.batch = rule
    return rule


def deffront(p):
    """Operands may have leading batch dims: bring every batch axis to 0."""
    def rule(args, dims, **params):
        size = core.axis_size()
        args = [bdim_at_front(x, d, size) for x, d in zip(args, dims)]
        out = core.bind(p, *args, **params)
        return out, ([0] * len(out) if p.multiple_results else 0)
    p.batch = rule
    return rule


def defno_operands(p):
    """A primitive without operands is never mapped (rule only called by mistake)."""
    def rule(args, dims, **params):
        out = core.bind(p, *args, **params)
        return out, ([None] * len(out) if p.multiple_results else None)
    p.batch = rule
    return rule

# ------------------------------------------------------------- printed source: infix


def numeric(dt):
    return dt != dtypes.bool_


def operator_ok(eqn, kind):
    """Can `x <op> y` stand for this equation exactly? Operands already of the result
    dtype (comparisons: of one dtype), not both literals."""
    x, y = eqn.invars
    if isinstance(x, core.Literal) and isinstance(y, core.Literal):
        return False
    dt = x.aval.dtype
    if y.aval.dtype != dt:
        return False
    if kind == "compare":
        return True
    if kind == "bits":
        return eqn.outvars[0].aval.dtype == dt and (dtypes.is_int(dt) or dt == dtypes.bool_)
    if eqn.outvars[0].aval.dtype != dt or not numeric(dt):
        return False
    if kind == "div":
        return dtypes.is_inexact(dt)
    return True


def infix_source(op, kind, fname=None):
    """Printed source `x <op> y` when `operator_ok(eqn, kind)`, else
    `lax.<fname>(x, y)` (default: the primitive's name)."""
    def rule(gen, eqn):
        if operator_ok(eqn, kind):
            x, y = eqn.invars
            return ast.BinOp(left=gen.arg(x, bare=True), op=op(), right=gen.arg(y, bare=True))
        return lax_call(fname or eqn.primitive.name, gen, eqn)
    return rule


def call_source(param, what, consts=False):
    """The source rule of a call primitive whose nested jaxpr is `eqn.params[param]`:
    printed inline under a comment naming `what` (custom_jvp/vjp/vmap calls,
    checkpoint, linear_call, jit); `consts`: the body's constants printed as values
    (else a body with constants prints as the generic `bind`)."""
    keep_consts = consts

    @statement_rule
    def rule(gen, eqn, stmts):
        """A call of a nested jaxpr, printed inline (the numbers are the same; a custom
        derivative rule or a rematerialization policy is not kept in the source)."""
        body = eqn.params[param]
        jaxpr = body.jaxpr if isinstance(body, core.ClosedJaxpr) else body
        consts = body.consts if isinstance(body, core.ClosedJaxpr) else []
        if consts or jaxpr.constvars:
            if not keep_consts or len(consts) != len(jaxpr.constvars):
                stmts.extend(gen.generic_statement(eqn))
                return
            for v, c in zip(jaxpr.constvars, consts):
                gen.env[v] = gen.value(np.asarray(c))
        if gen.comments:
            stmts.append(comment(f"{what} (inlined)"))
        outs = [gen.out_name(v, gen.hint_from(v, o) or eqn.primitive.name)
                for v, o in zip(eqn.outvars, jaxpr.outvars)]
        stmts.extend(s for s in gen.branch_block(jaxpr, eqn.invars, outs, eqn.outvars)
                     if not isinstance(s, ast.Pass))
    return rule


def call_rules(param):
    """impl, abstract_eval and lowering of a call primitive: it computes its nested
    ClosedJaxpr `eqn.params[param]` on its operands (custom_jvp/vjp/vmap calls,
    remat_opt, closed_call); `register(p, **call_rules(param), ...)`."""
    def impl(*args, **params):
        return core.eval_closed(params[param], *args)

    def abstract_eval(*avals, **params):
        return list(params[param].out_avals)

    def lowering(ctx, *args, **params):
        body = params[param]
        consts = [ctx.constant(np.asarray(c), core.get_aval(c)) for c in body.consts]
        return ctx.lower_jaxpr(body.jaxpr, consts, list(args))
    return dict(impl=impl, abstract_eval=abstract_eval, lowering=lowering)


def call_dce(param):
    """The DCE rule of a call primitive whose nested ClosedJaxpr is `eqn.params[param]`
    (closed_call, jit): the body's unused outputs pruned, then its unused operands."""
    def dce(tx, eqn, used_outputs):
        body = eqn.params[param]
        j, used_in = tx.dce_jaxpr(body.jaxpr, used_outputs, prune_invars=True)
        new = eqn.replace(invars=[a for a, u in zip(eqn.invars, used_in) if u],
                          outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                          params={**eqn.params, param: core.ClosedJaxpr(j, body.consts)})
        return new, used_in
    return dce


def inline_call_jvp(param):
    """The jvp rule of a call primitive differentiated as the function it calls: the
    JVP of `eqn.params[param]`, inlined (custom_vmap_call, closed_call)."""
    def jvp(tx, primals, tangents, **params):
        body = params[param]
        nz = [not isinstance(t, core.Zero) for t in tangents]
        jv, out_nz = tx.jvp_jaxpr(body, nz, instantiate=False)
        outs = core.inline_jaxpr(jv.jaxpr, list(jv.consts), list(primals) + [
            t for t in tangents if not isinstance(t, core.Zero)])
        n = len(body.out_avals)
        it = iter(outs[n:])
        return outs[:n], [next(it) if z else core.Zero(a)
                          for z, a in zip(out_nz, body.out_avals)]
    return jvp


def region_body(ctx, jaxpr, consts):
    """The body of a region lowering a user's scalar computation (`jaxpr` open, closed
    over the concrete `consts`): `lax.reduce` here, the window computations too."""
    def body(*xs):
        cs = [ctx.constant(np.asarray(c), core.get_aval(c)) for c in consts]
        return ctx.lower_jaxpr(jaxpr, cs, list(xs))
    return body


def private_function(ctx, jaxpr, name_for, dims=(), tokens=()):
    """Lower ClosedJaxpr `jaxpr` (taking the rule's operands) as a private function named
    `name_for(slot)` (`slot`: its index among the module's functions); return the name
    (`composite`, `compute_on`, an inner `jit`: stablehlo.RuleContext.call_function). It
    takes symbolic dimensions `dims` first (JAX's `jax.global_constant` arguments), then
    the tokens of the ordered effects `tokens` (effects.py), which it returns first."""
    mb = ctx.mb
    slot = len(mb.functions)
    name = name_for(slot)
    mb.functions.append(f"func.func private @{name}")   # (reserved while lowering)
    saved = mb.lines, mb.indent, mb.dim_values, mb.tokens
    mb.lines, mb.indent = [], 4
    dim_params = [mb.fresh("tensor<i32>") for _ in dims]
    mb.dim_values = dict(zip(dims, dim_params)) if dims else mb.dim_values
    mb.tokens = {e: mb.fresh("!stablehlo.token") for e in tokens}
    params = [*mb.tokens.values(), *(mb.fresh(ctx.type(a)) for a in ctx.avals_in)]
    consts = [ctx.constant(np.asarray(c), core.get_aval(c)) for c in jaxpr.consts]
    outs = ctx.lower_jaxpr(jaxpr.jaxpr, consts, params[len(tokens):])
    outs, tok = [*mb.tokens.values(), *outs], [" {jax.token = true}"] * len(tokens)
    types = [mb.types[o] for o in outs]
    mb.emit(f"func.return {', '.join(outs)} : {', '.join(types)}" if outs else "func.return")
    body = mb.lines
    mb.lines, mb.indent, mb.dim_values, mb.tokens = saved
    head = ", ".join([f'{p}: tensor<i32> {{jax.global_constant = "{v}"}}' for v, p in zip(
        dims, dim_params)] + [f"{p}: {mb.types[p]}{a}" for p, a in zip(params, tok + [""] * len(params))])
    res = ", ".join(t + a for t, a in zip(types, tok + [""] * len(types)))
    mb.functions[slot] = f"func.func private @{name}({head}) -> ({res}) {{\n" + "\n".join(body) + "\n}"
    return name
