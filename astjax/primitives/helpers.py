"""Family helpers for declaring primitives, so that an elementwise primitive is a
few lines. Rule signatures, shared by every primitive module:

- impl(*numpy_values, **params) -> value (or list if multiple_results)
- abstract_eval(*avals, **params) -> ShapedArray (or list)
- lowering(ctx: codegen.stablehlo.RuleContext, *ssa_names, **params) -> ssa (or list)
- jvp(primals, tangents, **params) -> (primal_out, tangent_out)       [transforms.ad]
- transpose(cts, *args, **params) -> list of cotangents, one per arg   [transforms.ad]
- batch(args, dims, **params) -> (out, out_dim)                       [transforms.batching]
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray
from ..errors import DTypeError, ShapeError

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
                             f"{', '.join(x.str_short() for x in avals)}")


def register(p, *, impl=None, abstract_eval=None, lowering=None, jvp=None, transpose=None,
             batch=None, source=None):
    for table, rule in ((core.impl_rules, impl), (core.abstract_eval_rules, abstract_eval),
                        (core.lowering_rules, lowering), (core.jvp_rules, jvp),
                        (core.transpose_rules, transpose), (core.batch_rules, batch),
                        (core.source_rules, source)):
        if rule is not None:
            table[p] = rule
    if transpose is not None:
        core.linear_primitives.add(p)
    return p


def mark_unsupported(p, registry, reason):
    core.unsupported[registry][p] = reason


def nondifferentiable(p):
    """Integer/boolean-valued primitive: zero tangent, no transpose."""
    core.nondiff_primitives.add(p)
    return p


def _cast(x, dtype):
    return np.asarray(x).astype(dtype, copy=False)

# ----------------------------------------------------------------- elementwise


def unop(name, np_fn, hlo, kind=FLOAT, out_dtype=None, hlo_attrs=None):
    """A unary elementwise primitive: `out_dtype` maps the input dtype (default same).
    Params of the primitive (e.g. `round`'s rounding_method) are passed on to
    `np_fn` and to a callable `hlo`."""
    p = core.new_primitive(name)

    def abstract_eval(x, **params):
        check_dtype(name, kind, x)
        return ShapedArray(x.shape, out_dtype(x.dtype) if out_dtype else x.dtype,
                           x.weak_type if out_dtype is None else False)

    def impl(x, **params):
        dt = out_dtype(np.asarray(x).dtype) if out_dtype else np.asarray(x).dtype
        with np.errstate(all="ignore"):
            return _cast(np_fn(np.asarray(x), **params), dt)

    def lowering(ctx, x, **params):
        if callable(hlo):
            return hlo(ctx, x, **params)
        return ctx.op1(hlo, [x], attrs=hlo_attrs)

    register(p, impl=impl, abstract_eval=abstract_eval, lowering=lowering)
    return p


def binary_shape(name, *avals):
    shapes = [a.shape for a in avals if a.shape != ()]
    if shapes and any(s != shapes[0] for s in shapes):
        raise ShapeError(f"`{name}` got incompatible shapes "
                         f"{', '.join(str(a.shape) for a in avals)}")
    return shapes[0] if shapes else ()


def binop(name, np_fn, hlo, kind=NUMBER, out_dtype=None, same_dtype=True):
    """A binary elementwise primitive. Operands have one dtype (lax semantics) and
    equal shapes, except that rank-0 operands broadcast (as JAX's literals do)."""
    p = core.new_primitive(name)

    def abstract_eval(x, y):
        check_dtype(name, kind, x, y)
        if same_dtype and x.dtype != y.dtype:
            raise DTypeError(f"`{name}` needs operands of one dtype, got "
                             f"{x.str_short()} and {y.str_short()}")
        shape = binary_shape(name, x, y)
        if out_dtype:
            return ShapedArray(shape, out_dtype(x.dtype), False)
        return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)

    def impl(x, y):
        x, y = np.asarray(x), np.asarray(y)
        with np.errstate(all="ignore"):
            r = np_fn(x, y)
        return _cast(r, out_dtype(x.dtype) if out_dtype else x.dtype)

    def lowering(ctx, x, y):
        out = ctx.avals_out[0]
        x = ctx.broadcast(x, ctx.avals_in[0], out.update(dtype=ctx.avals_in[0].dtype))
        y = ctx.broadcast(y, ctx.avals_in[1], out.update(dtype=ctx.avals_in[1].dtype))
        if callable(hlo):
            return hlo(ctx, x, y)
        return ctx.op1(hlo, [x, y])

    register(p, impl=impl, abstract_eval=abstract_eval, lowering=lowering)
    return p


def _complex_parts(ctx, x, aval):
    r = aval.update(dtype=dtypes.float64 if aval.dtype == dtypes.complex128 else dtypes.float32)
    return ctx.op1("stablehlo.real", [x], r), ctx.op1("stablehlo.imag", [x], r), r


def complex_order_lowering(ctx, x, y, direction):
    """Lexicographic (real, then imaginary) ordering of complex values, as NumPy."""
    aval = ctx.avals_out[0].update(dtype=ctx.avals_in[0].dtype)
    xr, xi, r = _complex_parts(ctx, x, aval)
    yr, yi, _ = _complex_parts(ctx, y, aval)
    b = aval.update(dtype=dtypes.bool_)

    def cmp(a, c, d):
        return ctx.op1("stablehlo.compare", [a, c], b, attrs={
            "comparison_direction": f"#stablehlo<comparison_direction {d}>",
            "compare_type": "#stablehlo<comparison_type FLOAT>"})
    strict = {"LE": "LT", "GE": "GT"}.get(direction, direction)
    tie = ctx.op1("stablehlo.and", [cmp(xr, yr, "EQ"), cmp(xi, yi, direction)], b)
    return ctx.op1("stablehlo.or", [cmp(xr, yr, strict), tie], b)


def compare_lowering(direction):
    def rule(ctx, x, y):
        dt = ctx.avals_in[0].dtype
        if dtypes.issubdtype(dt, np.complexfloating) and direction not in ("EQ", "NE"):
            return complex_order_lowering(ctx, x, y, direction)
        ctype = ("FLOAT" if dtypes.is_inexact(dt) else
                 "UNSIGNED" if dtypes.issubdtype(dt, np.unsignedinteger) or dt == dtypes.bool_
                 else "SIGNED")
        return ctx.op1("stablehlo.compare", [x, y], attrs={
            "comparison_direction": f"#stablehlo<comparison_direction {direction}>",
            "compare_type": f"#stablehlo<comparison_type {ctype}>"})
    return rule

# ------------------------------------------------------------------- reducers


def normalize_axes(name, axes, ndim):
    out = []
    for a in axes:
        if not -ndim <= a < max(ndim, 1) or (ndim == 0):
            raise ShapeError(f"`{name}`: axis {a} is out of bounds for an array of rank {ndim}")
        out.append(a % ndim)
    return tuple(out)


def reducer(name, np_fn, hlo_body, init, kind=ANY, out_dtype=None):
    """A reduction over `axes`; `init(dtype)` is the identity, `hlo_body` the
    combiner's StableHLO op name."""
    p = core.new_primitive(name)

    def abstract_eval(x, *, axes, out_sharding=None):
        check_dtype(name, kind, x)
        axes = normalize_axes(name, axes, x.ndim) if x.ndim else tuple(axes)
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return ShapedArray(shape, out_dtype(x.dtype) if out_dtype else x.dtype, x.weak_type)

    def impl(x, *, axes, out_sharding=None):
        x = np.asarray(x)
        return _cast(np_fn(x, axis=tuple(axes)), out_dtype(x.dtype) if out_dtype else x.dtype)

    def lowering(ctx, x, *, axes, out_sharding=None):
        aval = ctx.avals_in[0]
        scalar = ShapedArray((), aval.dtype)
        init_v = ctx.constant(init(aval.dtype), scalar)
        body = ctx.region([scalar, scalar],
                          lambda a, b: [ctx.mb.op(hlo_body, [a, b], [scalar])[0]])
        return ctx.op1("stablehlo.reduce", [x, init_v], regions=[body],
                       attrs={"dimensions": ctx.i64(axes)})

    register(p, impl=impl, abstract_eval=abstract_eval, lowering=lowering)
    return p


def min_value(dt):
    dt = np.dtype(dt)
    if dt == dtypes.bool_:
        return False
    if dtypes.is_inexact(dt):
        return -np.inf
    return dtypes.iinfo(dt).min


def max_value(dt):
    dt = np.dtype(dt)
    if dt == dtypes.bool_:
        return True
    if dtypes.is_inexact(dt):
        return np.inf
    return dtypes.iinfo(dt).max
