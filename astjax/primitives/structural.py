"""Shape, layout and type primitives: convert_element_type, broadcast_in_dim, reshape,
transpose, squeeze, expand_dims, rev, concatenate, pad, iota, copy,
bitcast_convert_type; and `full`/`full_like`. One block per primitive: declaration,
impl, abstract eval, lowering, jvp/transpose, batch rule, printed source and the
`lax.*` wrapper (`astjax.lax` re-exports the wrappers). Slicing is in `slicing`,
select_n/clamp in `selection`."""
from __future__ import annotations

import ast
import math

import numpy as np

from .. import core, dtypes, shape_poly
from .. import sharding_impls as shd
from ..core import ShapedArray, bind
from ..errors import (ArgumentTypeError, ArgumentValueError, DTypeError, ShapeError,
                      ShapeValueError, caller_location)
from ..pyast import attr, call, dtype_expr, lax_call, pyconst, scalar_py
from . import elementwise as ew
from .edtypes import convert_extended
from .base import (check_shape, deflinear, defno_operands, defvectorized, is_zero, match_scalars,
                   matchaxis, moveaxis, nondiff, normalize_axes, register, shift_axis, shown_params,
                   weak_const)
from .base import tangent_aval as _aval

__all__ = ["convert_element_type_p", "broadcast_in_dim_p", "reshape_p", "transpose_p",
           "squeeze_p", "rev_p", "concatenate_p", "pad_p", "iota_p", "copy_p",
           "bitcast_convert_type_p"]

# ---- convert_element_type ---------------------------------------------------------
convert_element_type_p = core.new_primitive("convert_element_type")


def _convert_impl(x, *, new_dtype, weak_type=False, sharding=None):
    x = np.asarray(x)
    if np.issubdtype(x.dtype, np.complexfloating) and not dtypes.issubdtype(new_dtype, np.complexfloating):
        x = x.real
    if dtypes.is_inexact(x.dtype) and dtypes.is_int(new_dtype):
        # XLA saturates: NaN -> 0, out-of-range -> the nearest bound (in float64, where
        # the bounds are exact or round up to 2**63 / 2**64)
        info = dtypes.iinfo(new_dtype)
        xf = np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0.0, posinf=np.inf, neginf=-np.inf)
        hi, lo = xf >= float(info.max), xf <= float(info.min)
        out = np.where(hi | lo, 0, xf).astype(new_dtype)
        out[hi] = info.max
        out[lo] = info.min
        return out
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(new_dtype)


def _convert_lowering(ctx, x, *, new_dtype, weak_type=False, sharding=None):
    a_in = ctx.avals_in[0]   # (JAX's: a convert, weak-to-strong too, after `real` or `!= 0`)
    if np.issubdtype(a_in.dtype, np.complexfloating) and not np.issubdtype(new_dtype, np.complexfloating):
        a_in = a_in.update(dtype=dtypes.float64 if a_in.dtype == dtypes.complex128 else dtypes.float32)
        x = ctx.op1("stablehlo.real", [x], a_in)
    if ctx.avals_out[0].dtype == dtypes.bool_:
        kind = ("FLOAT" if dtypes.is_inexact(a_in.dtype) else
                "SIGNED" if np.issubdtype(a_in.dtype, np.signedinteger) else "UNSIGNED")
        zero = ctx.op1("stablehlo.broadcast_in_dim", [ctx.constant(0, a_in.update(shape=()))],
                       a_in, attrs={"broadcast_dimensions": "array<i64>"})
        x = ctx.op1("stablehlo.compare", [x, zero], attrs={
            "comparison_direction": "#stablehlo<comparison_direction NE>",
            "compare_type": f"#stablehlo<comparison_type {kind}>"})
    return ctx.op1("stablehlo.convert", [x])


register(convert_element_type_p,
         impl=_convert_impl,
         abstract_eval=lambda x, *, new_dtype, weak_type=False, sharding=None:
             ShapedArray(x.shape, new_dtype, weak_type),
         lowering=_convert_lowering)


def _convert_jvp(primals, tangents, *, new_dtype, weak_type=False, sharding=None):
    x, = primals
    t, = tangents
    out = bind(convert_element_type_p, x, new_dtype=new_dtype, weak_type=weak_type,
               sharding=sharding)
    if is_zero(t) or not core.differentiable(_aval(x)) or not dtypes.is_inexact(new_dtype):
        return out, core.Zero(_aval(out))
    return out, bind(convert_element_type_p, t, new_dtype=new_dtype, weak_type=weak_type,
                     sharding=sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type=False, sharding=None):
    if is_zero(ct):
        return [None]
    return [bind(convert_element_type_p, ct, new_dtype=x.aval.dtype,
                 weak_type=x.aval.weak_type, sharding=sharding)]


def _convert_source(gen, eqn):
    (x,) = eqn.invars
    new = eqn.params["new_dtype"]
    if getattr(x.aval.dtype, "kind", None) == "c" and np.dtype(new).kind != "c":
        # the real part (a cotangent, typically) by `lax.real`: no user-facing cast warning
        real, weak = call("lax.real", [gen.arg(x)]), eqn.params.get("weak_type")
        if np.dtype(new) == np.finfo(x.aval.dtype).dtype and not weak:
            return real
        return call("lax.convert_element_type", [real, dtype_expr(new)],
                    **({"weak_type": pyconst(True)} if weak else {}))
    if eqn.params.get("weak_type"):
        return lax_call("convert_element_type", gen, eqn, dtype_expr(new), weak_type=pyconst(True))
    if isinstance(x, core.Var) and gen.name_of(x) not in gen.counters and not x.aval.weak_type:
        return call(attr(gen.arg(x), "astype"), [dtype_expr(new)])
    return lax_call("convert_element_type", gen, eqn, dtype_expr(new))


def _convert_fuse(gen, scope, i, eqn):
    """bool -> int32 feeding only a 2-branch cond: printed as the `if` test."""
    (x,) = eqn.invars
    out = eqn.outvars[0]
    if (x.aval.dtype != dtypes.bool_ or out.aval.dtype != dtypes.int32 or x.aval.shape != ()
            or scope.uses[out] != 1 or out in scope.jaxpr.outvars):
        return
    j = scope.consumers.get(out, [None])[0]
    if j is None:
        return
    user = scope.jaxpr.eqns[j]
    if user.primitive.name == "cond" and user.invars[0] is out and len(user.params["branches"]) == 2:
        gen.skip.add(id(eqn))
        gen.fused[out] = x
        # `if x > 0.0:` rather than `is_gt = x > 0.0` + `if is_gt:` when the test is
        # computed right before and used only here
        p = scope.producer.get(x)
        if p is not None and p == i - 1 and j == i + 1 and scope.uses[x] == 1:
            prod = scope.jaxpr.eqns[p]
            rule = gen.rule_of(prod.primitive)
            if (not prod.primitive.multiple_results and not getattr(rule, "statement", False)
                    and not getattr(rule, "fuse", None) and x.hint is None):
                gen.skip.add(id(prod))
                gen.fused[out] = ("expr", prod)


_convert_source.fuse = _convert_fuse
register(convert_element_type_p, jvp=_convert_jvp, transpose=_convert_transpose,
         source=_convert_source)
defvectorized(convert_element_type_p)
convert_element_type_p.pp_shown = shown_params(("sharding",))   # (JAX's: implied by the type)


# values a transformation may see that are not arrays of ours: an identity shortcut
# converts them (JAX returns only its own Array as it is)
_HOST_VALUES = (np.ndarray, np.generic, bool, int, float, complex)


def _identity(x):
    """An operation's identity shortcut: an array of ours as it is; a NumPy / Python value
    converted to its canonical dtype (an Array, as JAX's; a constant when staging)."""
    if not isinstance(x, _HOST_VALUES):
        return x
    a = _aval(x)
    return convert_element_type(x, a.dtype, weak_type=a.weak_type)


def convert_element_type(x, new_dtype, weak_type=False, warn_on_complex_to_real_cast=True):
    """`lax.convert_element_type`: x as `new_dtype` (a constant scalar converts now);
    complex to real keeps the real part, as JAX's (`dtypes.complex_to_real`)."""
    if dtypes.is_user_extended(new_dtype) or dtypes.is_user_extended(getattr(x, "dtype", None)):
        return convert_extended(x, new_dtype, weak_type)
    new_dtype = dtypes.canonicalize(new_dtype)
    a = _aval(x)
    if a.dtype == new_dtype and a.weak_type == weak_type and isinstance(x, core.Tracer):
        return x
    to_real = getattr(a.dtype, "kind", None) == "c" and new_dtype.kind != "c"
    if to_real:
        dtypes.complex_to_real(x, new_dtype, warn_on_complex_to_real_cast)
    x = dtypes._host_int_cast(x, new_dtype, weak_type)
    b = core.current_builder()
    if not isinstance(x, core.Tracer) and not hasattr(x, "_buf") and a.ndim == 0 \
            and b is not None and not core._state.compile_time_eval:
        from .while_loop import eagerly_staged   # (a constant: converted now, as JAX's)
        v = np.asarray(np.real(x) if to_real else x)
        v = _convert_impl(v, new_dtype=new_dtype) if eagerly_staged() else v.astype(new_dtype)
        t = b.const_tracer(v)
        if weak_type:
            t._var = core.Literal(v[()], t.aval.update(weak_type=True))
        return t
    return bind(convert_element_type_p, x, new_dtype=new_dtype, weak_type=bool(weak_type),
                sharding=None)


# ---- broadcast_in_dim -------------------------------------------------------------
broadcast_in_dim_p = core.new_primitive("broadcast_in_dim")


def _bid_shape(x, shape, broadcast_dimensions):
    """Operand axis i becomes axis broadcast_dimensions[i] (distinct, in any order) of
    `shape`, where its size is 1 or equal."""
    check_shape("broadcast_in_dim", shape)
    dims = tuple(broadcast_dimensions)
    if len(dims) != x.ndim or any(not 0 <= d < len(shape) for d in dims) or len(
            set(dims)) != len(dims) or any(x.shape[i] not in (1, shape[d])
                                           for i, d in enumerate(dims)):
        raise ShapeError(f"cannot broadcast shape {x.shape} to {tuple(shape)} with "
                         f"broadcast_dimensions={tuple(broadcast_dimensions)}")
    return ShapedArray(shape, x.dtype, x.weak_type)


def _bid_impl(x, *, shape, broadcast_dimensions, sharding=None):
    order = np.argsort(broadcast_dimensions)  # operand axes in the order of the output's
    x = np.transpose(np.asarray(x), order)
    expanded = [1] * len(shape)
    for j, i in enumerate(order):
        expanded[broadcast_dimensions[i]] = x.shape[j]
    return np.broadcast_to(x.reshape(expanded), shape).copy()


register(broadcast_in_dim_p,
         impl=_bid_impl,
         abstract_eval=lambda x, *, shape, broadcast_dimensions, sharding=None:
             _bid_shape(x, shape, broadcast_dimensions),
         lowering=lambda ctx, x, *, shape, broadcast_dimensions, sharding=None: laid_out(
             ctx, ctx.op1("stablehlo.broadcast_in_dim", [x],
                          attrs={"broadcast_dimensions": ctx.i64(broadcast_dimensions)}),
             sharding))


def _bid_transpose(ct, x, *, shape, broadcast_dimensions, sharding=None):
    from .reductions import reduce_sum
    if is_zero(ct):
        return [None]
    in_shape = x.aval.shape
    new_dims = tuple(d for d in range(len(shape)) if d not in broadcast_dimensions)
    expanded = tuple(d for i, d in enumerate(broadcast_dimensions)
                     if in_shape[i] == 1 and shape[d] != 1)
    r = ct
    if expanded:
        r = reduce_sum(r, expanded)  # reduces, then the dims are gone
    dims_left = [d for d in range(len(shape)) if d not in expanded]
    new_left = tuple(dims_left.index(d) for d in new_dims)
    if new_left:
        r = reduce_sum(r, new_left)
    # r's axes are the operand's kept axes in the output's order: back to the operand's
    kept = [i for i in np.argsort(broadcast_dimensions) if broadcast_dimensions[i] not in expanded]
    r = transpose(r, tuple(int(k) for k in np.argsort(kept)))
    return [reshape(r, in_shape)]


def _bid_batch(args, dims, *, shape, broadcast_dimensions, sharding=None):
    x = moveaxis(args[0], dims[0], 0)
    size = _aval(x).shape[0]
    return bind(broadcast_in_dim_p, x, shape=(size,) + tuple(shape),
                broadcast_dimensions=(0,) + tuple(b + 1 for b in broadcast_dimensions),
                sharding=batched_layout(sharding, 0)), 0


def _bid_source(gen, eqn):
    (x,) = eqn.invars
    shape, dims = tuple(eqn.params["shape"]), tuple(eqn.params["broadcast_dimensions"])
    if isinstance(x, core.Literal) and np.ndim(x.val) == 0:
        v = scalar_py(np.asarray(x.val)[()], x.aval.dtype)
        dt = dtype_expr(x.aval.dtype)
        if v == 0 and not (isinstance(v, float) and math.copysign(1.0, v) < 0):
            return call("jnp.zeros", [gen.value(shape), dt])
        if v == 1:
            return call("jnp.ones", [gen.value(shape), dt])
        return call("jnp.full", [gen.value(shape), pyconst(v), dt])
    n = len(shape)
    if dims == tuple(range(n - x.aval.ndim, n)) and isinstance(x, core.Var):
        return call("jnp.broadcast_to", [gen.arg(x), gen.value(shape)])
    return lax_call("broadcast_in_dim", gen, eqn, gen.value(shape), gen.value(dims))


deflinear(broadcast_in_dim_p, _bid_transpose)
register(broadcast_in_dim_p, batch=_bid_batch, source=_bid_source).pp_shown = shown_params(("shape", "sharding"), ("broadcast_dimensions",))


def broadcast_in_dim(x, shape, broadcast_dimensions, out_sharding=None):
    """`lax.broadcast_in_dim`: operand axis i becomes axis broadcast_dimensions[i];
    `out_sharding` lays the result out (see `out_layout`)."""
    shape = shape_poly.canonical_shape(shape)
    s = None if out_sharding is None else out_layout(out_sharding, "broadcast_in_dim")
    if (s is None and _aval(x).shape == shape
            and tuple(broadcast_dimensions) == tuple(range(len(shape)))):
        return _identity(x)
    return bind(broadcast_in_dim_p, x, shape=shape,
                broadcast_dimensions=tuple(int(d) for d in broadcast_dimensions), sharding=s)


def broadcast(x, sizes):
    """`lax.broadcast`: new leading axes of `sizes`."""
    a = _aval(x)
    n = len(sizes)
    return broadcast_in_dim(x, tuple(sizes) + a.shape, tuple(range(n, n + a.ndim)))

# ---- reshape ----------------------------------------------------------------------
reshape_p = core.new_primitive("reshape")


def _reshape_ae(x, *, new_sizes, dimensions=None, sharding=None):
    check_shape("reshape", new_sizes, "new_sizes")
    if math.prod(new_sizes) != x.size:  # lax.reshape: JAX's ValueError
        raise ShapeValueError(f"cannot reshape an array of shape {x.shape} (size {x.size}) "
                              f"into shape {tuple(new_sizes)}",
                              hint="the new shape must have as many elements as the operand")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


register(reshape_p,
         impl=lambda x, *, new_sizes, dimensions=None, sharding=None:
             np.reshape(np.asarray(x), new_sizes),
         abstract_eval=_reshape_ae,
         lowering=lambda ctx, x, *, new_sizes, dimensions=None, sharding=None: laid_out(
             ctx, ctx.op1("stablehlo.reshape", [x]), sharding))


def _reshape_batch(args, dims, *, new_sizes, dimensions=None, sharding=None):
    x = moveaxis(args[0], dims[0], 0)
    size = _aval(x).shape[0]
    return bind(reshape_p, x, new_sizes=(size,) + tuple(new_sizes), dimensions=None,
                sharding=batched_layout(sharding, 0)), 0


def _reshape_source(gen, eqn):
    (x,) = eqn.invars
    if isinstance(x, core.Var) and not x.aval.weak_type:
        return call(attr(gen.arg(x), "reshape"), [gen.value(tuple(eqn.params["new_sizes"]))])
    if isinstance(x, core.Var):  # may be a Python scalar when run eagerly
        return call("jnp.reshape", [gen.arg(x), gen.value(tuple(eqn.params["new_sizes"]))])
    return lax_call("reshape", gen, eqn, gen.value(tuple(eqn.params["new_sizes"])))


deflinear(reshape_p, lambda ct, x, **_: [None if is_zero(ct) else reshape(ct, x.aval.shape)])
register(reshape_p, batch=_reshape_batch, source=_reshape_source)


def reshape(operand, new_sizes, dimensions=None, out_sharding=None):
    """`lax.reshape` (after transposing by `dimensions`, if given); `out_sharding`
    lays the result out (see `out_layout`)."""
    new_sizes = shape_poly.canonical_shape(new_sizes)
    s = None if out_sharding is None else out_layout(out_sharding, "reshape")
    if s is None and _aval(operand).shape == new_sizes and dimensions is None and \
            not isinstance(operand, _HOST_VALUES):   # (JAX: only an Array comes back as is;
        return operand                               # a NumPy one is converted, canonical)
    if dimensions is not None:
        operand = transpose(operand, dimensions)
    return bind(reshape_p, operand, new_sizes=new_sizes, dimensions=None, sharding=s)

# ---- out_sharding: an operation that lays its result out ---------------------------
# `lax.reshape` / `broadcast_in_dim` / `dot_general(..., out_sharding=)`: on a mesh of
# Explicit axes the result's layout (its type, `codegen/explicit.py`); in the program,
# a sharding constraint after the operation (the program is partitioned for it).


def out_layout(s, what):
    """An `out_sharding` argument as a NamedSharding over Explicit axes (JAX's
    ValueErrors for a bare PartitionSpec outside `set_mesh` and for Auto axes)."""
    if isinstance(s, shd.PartitionSpec):
        mesh = shd.get_mesh()
        if mesh.empty:
            raise ArgumentValueError(
                "Using PartitionSpec when you are not under a mesh context is not allowed. "
                "Please pass a NamedSharding instance or enter into a mesh context via "
                f"`jax.set_mesh`. Got {s!r}", loc=caller_location())
        s = shd.NamedSharding(mesh, s)
    if not isinstance(s, shd.NamedSharding):
        raise ArgumentTypeError(f"`out_sharding` argument of {what} only supports instances "
                                f"of `NamedSharding` or `PartitionSpec`. Got {s} of type: "
                                f"{type(s)}", loc=caller_location())
    types = dict(zip(s.mesh.axis_names, s.mesh.axis_types))
    for entry in s.spec.partitions:
        for a in shd.PartitionSpec._axes(entry):
            if types[a] != shd.AxisType.Explicit:
                raise ArgumentValueError(
                    f"PartitionSpec passed to {what} cannot contain axis names that are "
                    f"of type Auto or Manual. Got PartitionSpec: {s.spec!r} with axis name: "
                    f"{a} of type: {types[a]}.", loc=caller_location())
    return s


def batched_layout(s, d):
    """The `out_sharding` of an operation batched with its new dimension at `d`
    (unsharded, as JAX's vmap leaves it)."""
    if s is None:
        return None
    spec = list(s.spec.partitions)
    spec[d:d] = [None] * max(0, d - len(spec)) + [None]
    return shd.NamedSharding(s.mesh, s.spec.update(partitions=spec))


def laid_out(ctx, y, sharding):
    """Lowering: the rule's result `y` constrained to its operation's `out_sharding`
    (when there is one)."""
    if sharding is None or shd.current_assignment() is None:
        return y        # (an eager operation on host values: one device, as JAX 0.10.2)
    from .spmd import sharding_constraint_p
    aval = ctx.avals_out[0]
    return sharding_constraint_p.lowering(type(ctx)(ctx.mb, [aval], [aval], ctx.platform),
                                          y, sharding=sharding)

# ---- transpose --------------------------------------------------------------------
transpose_p = core.new_primitive("transpose")


def _transpose_ae(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise ShapeError(f"transpose permutation {tuple(permutation)} does not fit an "
                         f"array of rank {x.ndim}")
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


register(transpose_p,
         impl=lambda x, *, permutation: np.transpose(np.asarray(x), permutation).copy(),
         abstract_eval=_transpose_ae,
         lowering=lambda ctx, x, *, permutation: ctx.op1(
             "stablehlo.transpose", [x], attrs={"permutation": ctx.i64(permutation)}))


def _transpose_batch(args, dims, *, permutation):
    x, d = args[0], dims[0]
    perm = [shift_axis(p, d) for p in permutation]
    perm.insert(d, d)
    return bind(transpose_p, x, permutation=tuple(perm)), d


def _transpose_source(gen, eqn):
    (x,) = eqn.invars
    perm = tuple(eqn.params["permutation"])
    if perm == (1, 0) and isinstance(x, core.Var):
        return attr(gen.arg(x), "T")
    return lax_call("transpose", gen, eqn, gen.value(perm))


deflinear(transpose_p, lambda ct, x, *, permutation: [
    None if is_zero(ct) else transpose(ct, tuple(np.argsort(permutation)))])
register(transpose_p, batch=_transpose_batch, source=_transpose_source)


def transpose(x, permutation):
    """`lax.transpose`: output axis i is operand axis permutation[i]."""
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(_aval(x).ndim)):
        return _identity(x)
    return bind(transpose_p, x, permutation=permutation)

# ---- squeeze / expand_dims --------------------------------------------------------
squeeze_p = core.new_primitive("squeeze")


def _squeeze_ae(x, *, dimensions):
    dims = normalize_axes("squeeze", dimensions, x.ndim)
    for d in dims:
        if x.shape[d] != 1:
            raise ShapeValueError(f"cannot squeeze axis {d} of shape {x.shape}: its size is "
                                  "not 1")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dims), x.dtype,
                       x.weak_type)


register(squeeze_p,
         impl=lambda x, *, dimensions: np.squeeze(np.asarray(x), tuple(dimensions)),
         abstract_eval=_squeeze_ae,
         lowering=lambda ctx, x, **_: ctx.op1("stablehlo.reshape", [x]))


def _param_source(fname, *names):
    """`lax.<fname>(x, <params named>)`."""
    def rule(gen, eqn):
        return lax_call(fname, gen, eqn, *[gen.value(eqn.params[n]) for n in names])
    return rule


def _squeeze_batch(args, dims, *, dimensions):
    x, d = args[0], dims[0]
    nd = _aval(x).ndim - 1
    dimensions = [a % nd for a in dimensions]
    return (bind(squeeze_p, x, dimensions=tuple(sorted(shift_axis(a, d) for a in dimensions))),
            d - sum(1 for a in dimensions if a < d))


deflinear(squeeze_p, lambda ct, x, **_: [None if is_zero(ct) else reshape(ct, x.aval.shape)])
register(squeeze_p, batch=_squeeze_batch, source=_param_source("squeeze", "dimensions"))


def squeeze(array, dimensions):
    """`lax.squeeze`: drop the size-1 axes `dimensions`."""
    dims = tuple(sorted(normalize_axes("squeeze", [int(d) for d in dimensions], _aval(array).ndim)))
    if not dims:
        return array
    return bind(squeeze_p, array, dimensions=dims)


def expand_dims(x, dimensions):
    """`lax.expand_dims`: insert size-1 axes at `dimensions`, as JAX's: a
    `broadcast_in_dim` (what `jnp.expand_dims` and `x[None]` stage there too)."""
    shape = list(_aval(x).shape)
    nd = len(shape) + len(dimensions)
    new = sorted(normalize_axes("expand_dims", [int(d) for d in dimensions], nd))
    for d in new:
        shape.insert(d, 1)
    return broadcast_in_dim(x, tuple(shape), tuple(i for i in range(nd) if i not in new))

# ---- rev --------------------------------------------------------------------------
rev_p = core.new_primitive("rev")
register(rev_p,
         impl=lambda x, *, dimensions: np.flip(np.asarray(x), tuple(dimensions)).copy(),
         abstract_eval=lambda x, *, dimensions: (
             normalize_axes("rev", dimensions, x.ndim, ShapeError), x)[1],
         lowering=lambda ctx, x, *, dimensions: ctx.op1("stablehlo.reverse", [x], attrs={
             "dimensions": ctx.i64([d % ctx.avals_in[0].ndim for d in dimensions])}))


def _rev_batch(args, dims, *, dimensions):
    x, d = args[0], dims[0]
    nd = max(_aval(x).ndim - 1, 1)
    return bind(rev_p, x, dimensions=tuple(shift_axis(a % nd, d) for a in dimensions)), d


deflinear(rev_p, lambda ct, x, *, dimensions: [None if is_zero(ct) else rev(ct, dimensions)])
register(rev_p, batch=_rev_batch, source=_param_source("rev", "dimensions"))


def rev(operand, dimensions):
    """`lax.rev`: reverse the axes `dimensions`."""
    return bind(rev_p, operand, dimensions=tuple(int(d) for d in dimensions))

# ---- concatenate ------------------------------------------------------------------
concatenate_p = core.new_primitive("concatenate")


def _concat_ae(*xs, dimension):
    if not xs:
        raise ShapeValueError("concatenate needs at least one array")
    x0 = xs[0]
    if not 0 <= dimension < x0.ndim:
        raise ShapeError(f"concatenate: dimension {dimension} is out of bounds for arrays of "
                         f"rank {x0.ndim}")
    for x in xs[1:]:
        if x.ndim != x0.ndim or any(a != b for i, (a, b) in enumerate(zip(x.shape, x0.shape))
                                    if i != dimension):
            raise ShapeError("concatenate needs arrays whose shapes agree except along "
                             f"axis {dimension}, got {', '.join(str(y.shape) for y in xs)}")
        if x.dtype != x0.dtype:
            raise DTypeError(f"concatenate needs one dtype, got {x0.dtype} and {x.dtype}")
    shape = list(x0.shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return ShapedArray(shape, x0.dtype, all(x.weak_type for x in xs))


register(concatenate_p,
         impl=lambda *xs, dimension: np.concatenate([np.asarray(x) for x in xs], dimension),
         abstract_eval=_concat_ae,
         lowering=lambda ctx, *xs, dimension: ctx.op1(
             "stablehlo.concatenate", list(xs), attrs={"dimension": f"{dimension} : i64"}))


def _concat_transpose(ct, *xs, dimension):
    from .slicing import slice_in_dim
    out, off = [], 0
    for x in xs:
        n = _aval(x).shape[dimension]
        if core.is_undefined(x) and not is_zero(ct):
            out.append(slice_in_dim(ct, off, off + n, axis=dimension))
        else:
            out.append(None)
        off += n
    return out


def _concatenate_batch(args, dims, *, dimension):
    size = core.axis_size()
    xs = [matchaxis(x, d, 0, size) for x, d in zip(args, dims)]
    nd = max(_aval(xs[0]).ndim - 1, 1)
    return bind(concatenate_p, *xs, dimension=dimension % nd + 1), 0


def _concat_source(gen, eqn):
    return call("lax.concatenate", [ast.List(elts=[gen.arg(a) for a in eqn.invars], ctx=ast.Load()),
                                    pyconst(eqn.params["dimension"])])


deflinear(concatenate_p, _concat_transpose)
register(concatenate_p, batch=_concatenate_batch, source=_concat_source)


def concatenate(operands, dimension):
    """`lax.concatenate` along `dimension`."""
    if len(operands) == 1 and 0 <= int(dimension) < _aval(operands[0]).ndim:
        return operands[0]
    return bind(concatenate_p, *operands, dimension=int(dimension))

# ---- pad --------------------------------------------------------------------------
pad_p = core.new_primitive("pad")


def _pad_ae(x, pv, *, padding_config):
    if pv.dtype != x.dtype:
        raise DTypeError(f"pad operand and padding_value must be same dtype: got {x.dtype} and {pv.dtype}")
    elif len(padding_config) != x.ndim:
        raise ShapeValueError(f"pad: padding_config has {len(padding_config)} entries for rank {x.ndim}")
    shape = []
    for d, (lo, hi, interior) in zip(x.shape, padding_config):
        if interior < 0:
            raise ShapeValueError(f"pad: interior padding must be >= 0, got {padding_config}")
        shape.append(lo + hi + d + (max(d - 1, 0) * interior if interior else 0))
    if any(d < 0 for d in shape):
        raise ShapeValueError(f"pad: padding {tuple(padding_config)} of shape {x.shape} gives "
                              f"a negative size: {tuple(shape)}")
    return ShapedArray(shape, x.dtype, x.weak_type and pv.weak_type)   # (JAX: all weak)


def _pad_impl(x, pv, *, padding_config):
    x = np.asarray(x)
    a = ShapedArray(x.shape, x.dtype)
    out_shape = _pad_ae(a, a.update(shape=()), padding_config=padding_config).shape
    # interior padding first, then (possibly negative) edge padding
    full = [d + max(d - 1, 0) * it for d, (_, _, it) in zip(x.shape, padding_config)]
    y = np.full(full, pv, x.dtype)
    y[tuple(slice(None, None, it + 1) for (_, _, it) in padding_config)] = x
    pads = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in padding_config]
    y = np.pad(y, pads, constant_values=pv)
    idx = tuple(slice(-min(lo, 0), y.shape[i] + min(hi, 0))
                for i, (lo, hi, _) in enumerate(padding_config))
    assert y[idx].shape == tuple(out_shape)
    return y[idx]


def _pad_lowering(ctx, x, pv, *, padding_config):
    cfg = [[c[k] for c in padding_config] for k in range(3)]   # low, high, interior
    if any(map(shape_poly.is_symbolic_dim, (d for c in cfg for d in c))):   # (jax.export)
        return ctx.op1("stablehlo.dynamic_pad", [x, pv, *map(ctx.shape_value, cfg)])
    return ctx.op1("stablehlo.pad", [x, pv], attrs=dict(zip(
        ("edge_padding_low", "edge_padding_high", "interior_padding"), map(ctx.i64, cfg))))


def _pad_transpose(ct, x, pv, *, padding_config):
    from .reductions import reduce_sum
    from .slicing import slice
    if is_zero(ct):
        return [None, None]
    t = ct
    unpad = tuple((-lo, -hi, 0) for lo, hi, _ in padding_config)
    t = pad(t, weak_const(t, 0), unpad)
    tx = slice(t, (0,) * len(padding_config), _aval(t).shape,
               tuple(it + 1 for _, _, it in padding_config))
    cx = tx if core.is_undefined(x) else None
    cpv = None
    if core.is_undefined(pv):
        total = reduce_sum(ct, tuple(range(_aval(ct).ndim)))
        cpv = bind(ew.sub_p, total, reduce_sum(tx, tuple(range(_aval(tx).ndim))))
    return [cx, cpv]


def _pad_batch(args, dims, *, padding_config):
    size = core.axis_size()
    x, pv = args
    xd, pd = dims
    x = matchaxis(x, xd, 0, size)
    cfg = ((0, 0, 0),) + tuple(padding_config)
    if pd is None:
        return bind(pad_p, x, pv, padding_config=cfg), 0
    # a per-lane padding value: pad with zero, then select the padding positions
    a = _aval(x)
    zero = np.zeros((), a.dtype)[()]
    padded = bind(pad_p, x, zero, padding_config=cfg)
    ones = full(a.shape, np.ones((), dtypes.bool_)[()], dtypes.bool_)
    mask = bind(pad_p, ones, np.bool_(False), padding_config=cfg)
    pshape = _aval(padded).shape
    pvb = broadcast_in_dim(moveaxis(pv, pd, 0), pshape, (0,))
    from .selection import select_n
    return select_n(mask, pvb, padded), 0


def _pad_source(gen, eqn):
    return lax_call("pad", gen, eqn, gen.value(tuple(tuple(c) for c in eqn.params["padding_config"])))


deflinear(pad_p, _pad_transpose)
register(pad_p, impl=_pad_impl, abstract_eval=_pad_ae, lowering=_pad_lowering, batch=_pad_batch,
         source=_pad_source)


def pad(x, padding_value, padding_config):
    """`lax.pad`: (low, high, interior) padding per axis with `padding_value`."""
    pv, config = match_scalars(x, padding_value)[1], map(shape_poly.canonical_shape, padding_config)
    return bind(pad_p, x, pv, padding_config=tuple(config))

# ---- iota / copy / bitcast --------------------------------------------------------
iota_p = core.new_primitive("iota")


def _iota_impl(*, dtype, shape, dimension, sharding=None):
    r = np.arange(shape[dimension], dtype=dtype)
    sh = [1] * len(shape)
    sh[dimension] = shape[dimension]
    return np.broadcast_to(r.reshape(sh), shape).copy()


def _iota_ae(*, dtype, shape, dimension, sharding=None):
    check_shape("iota", shape)
    if not 0 <= dimension < len(shape):
        raise ShapeValueError(f"iota: dimension {dimension} is out of bounds for shape {shape}")
    return ShapedArray(shape, dtype)


register(iota_p,
         impl=_iota_impl,
         abstract_eval=_iota_ae,
         lowering=lambda ctx, *, dtype, shape, dimension, sharding=None: ctx.op1(
             "stablehlo.iota", [], attrs={"iota_dimension": f"{dimension} : i64"}))


def _iota_source(gen, eqn):
    p = eqn.params
    shape = tuple(p["shape"])
    if len(shape) == 1:
        return call("lax.iota", [dtype_expr(p["dtype"]), pyconst(shape[0])])
    return call("lax.broadcasted_iota", [dtype_expr(p["dtype"]), gen.value(shape),
                                         pyconst(p["dimension"])])


nondiff(iota_p)
register(iota_p, source=_iota_source)
defno_operands(iota_p)


def iota(dtype, size):
    """`lax.iota`: 0, 1, ..., size - 1."""
    return bind(iota_p, dtype=dtypes.canonicalize(dtype), shape=shape_poly.canonical_shape([size]),
                dimension=0, sharding=None)


def broadcasted_iota(dtype, shape, dimension):
    """`lax.broadcasted_iota`: the index along `dimension`, of `shape`."""
    return bind(iota_p, dtype=dtypes.canonicalize(dtype), shape=shape_poly.canonical_shape(shape),
                dimension=int(dimension), sharding=None)

copy_p = core.new_primitive("copy")
register(copy_p, impl=lambda x: np.array(x), abstract_eval=lambda x: x,
         lowering=lambda ctx, x: x)
deflinear(copy_p, lambda ct, x: [None if is_zero(ct) else bind(copy_p, ct)])
register(copy_p, source=lambda gen, eqn: lax_call("copy_p", gen, eqn))
defvectorized(copy_p)


def copy(x):
    """`lax.copy_p(x)`: a copy of x."""
    return bind(copy_p, x)


bitcast_convert_type_p = core.new_primitive("bitcast_convert_type")


def _bitcast_ae(x, *, new_dtype):
    a, b = np.dtype(x.dtype).itemsize, np.dtype(new_dtype).itemsize   # JAX's checks, in order
    if a < b and (x.shape[-1] if x.shape else 1) * a != b:
        raise ShapeValueError(f"bitcast of {x.dtype}{list(x.shape)} to {new_dtype}: last axis not {b // a}")
    odd = [d for d in (x.dtype, new_dtype) if dtypes.issubdtype(d, np.complexfloating) or d == bool]
    if odd and np.dtype(x.dtype) != np.dtype(new_dtype):
        raise DTypeError(f"lax.bitcast_convert_type of bool or complex values needs one dtype; "
                         f"got {x.dtype} to {new_dtype}", hint="use x.view(dtype) instead")
    return ShapedArray(x.shape if a == b else (*x.shape, a // b) if a > b else x.shape[:-1], new_dtype)


def _bitcast_impl(x, *, new_dtype):
    x = np.ascontiguousarray(x)
    out = _bitcast_ae(ShapedArray(x.shape, x.dtype), new_dtype=new_dtype)
    return x.view(new_dtype).reshape(out.shape)


register(bitcast_convert_type_p, impl=_bitcast_impl, abstract_eval=_bitcast_ae,
         lowering=lambda ctx, x, *, new_dtype: ctx.op1("stablehlo.bitcast_convert", [x]))
nondiff(bitcast_convert_type_p)
register(bitcast_convert_type_p, source=_param_source("bitcast_convert_type", "new_dtype"))
defvectorized(bitcast_convert_type_p)


def bitcast_convert_type(operand, new_dtype):
    """`lax.bitcast_convert_type`: operand's bits as `new_dtype`."""
    return bind(bitcast_convert_type_p, operand,   # (64-bit types narrowed without x64,
                new_dtype=dtypes.canonicalize(new_dtype, warn=True))   # as JAX's, warning)

# ---- full / full_like (conveniences over convert + broadcast) -----------------------


def full(shape, fill_value, dtype=None):
    """`lax.full`: an array of `shape` filled with `fill_value`."""
    if dtypes.is_user_extended(dtype):   # the dtype's own rule, as JAX's
        return dtype._rules.full(shape, fill_value, dtype)
    dt = dtypes.canonicalize(dtype) if dtype is not None else dtypes.result_type(fill_value)
    return _full(shape, fill_value, dt, dtype is None and dtypes.is_weak_scalar(fill_value))


def _full(shape, fill_value, dt, weak):
    shape = shape_poly.canonical_shape(shape if isinstance(shape, (tuple, list)) else (shape,))
    v = convert_element_type(fill_value, dt, weak_type=weak)
    return broadcast(v, shape) if shape else v


def full_like(x, fill_value, dtype=None, shape=None):
    """`lax.full_like`: `full` shaped and typed as x (weak as x without dtype), as JAX."""
    from .vma import typed_like   # (a later family: inside a shard_map body, typed as x)
    a = _aval(x)
    if dtypes.is_user_extended(dtype or a.dtype):
        return full(a.shape if shape is None else shape, fill_value, dtype or a.dtype)
    return typed_like(_full(a.shape if shape is None else shape, fill_value,
                            dtypes.canonicalize(dtype or a.dtype), dtype is None and a.weak_type), x)
