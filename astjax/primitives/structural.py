"""Shape, layout and type primitives: convert_element_type, broadcast_in_dim, reshape,
transpose, squeeze, expand_dims, iota, copy, bitcast_convert_type; and
`full`/`full_like`. One block per primitive: declaration, impl, abstract eval,
lowering, jvp/transpose, batch rule, printed source and the `lax.*` wrapper
(`astjax.lax` re-exports the wrappers). rev, concatenate and pad are in `concat_pad`,
slicing in `slicing`, select_n/clamp in `selection`."""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import core, dtypes, shape_poly
from .. import sharding_impls as shd
from ..core import ShapedArray, bind
from ..errors import (ArgumentTypeError, ArgumentValueError, DTypeError, ShapeError,
                      ShapeValueError, caller_location)
from ..pyast import attr, call, dtype_expr, lax_call, pyconst, scalar_py
from .edtypes import convert_extended
from .base import (check_shape, deflinear, defno_operands, defvectorized, is_zero, moveaxis,
                   nondiff, normalize_axes, register, shift_axis, shown_params)
from .base import tangent_aval as _aval

__all__ = ["convert_element_type_p", "broadcast_in_dim_p", "reshape_p", "transpose_p",
           "squeeze_p", "iota_p", "copy_p",
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


def _never(x) -> bool:
    return False


# whether staged `x` is a value JAX's op-by-op transformation holds concretely (a JVP
# tracer of an eager differentiation: JAX converts it, giving a new array, where it
# hands back an abstract tracer unchanged); `ad_frames` installs the analysis
concrete_to_jax = _never


def convert_element_type(x, new_dtype, weak_type=False, warn_on_complex_to_real_cast=True):
    """`lax.convert_element_type`: x as `new_dtype` (a constant scalar converts now);
    complex to real keeps the real part, as JAX's (`dtypes.complex_to_real`)."""
    if dtypes.is_user_extended(new_dtype) or dtypes.is_user_extended(getattr(x, "dtype", None)):
        return convert_extended(x, new_dtype, weak_type)
    new_dtype = dtypes.canonicalize(new_dtype)
    a = _aval(x)
    if a.dtype == new_dtype and a.weak_type == weak_type and isinstance(x, core.Array):
        if isinstance(x, core.Tracer) and concrete_to_jax(x):
            return bind(copy_p, x)   # (JAX's converts it: a new array, which no
        return x   # simplification forwards) (an eager Array: `jnp.asarray(x, x.dtype) is x`)
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
    if dimensions is not None and sorted(dimensions) != list(range(x.ndim)):
        raise ShapeError("reshape dimensions must be a permutation of operand dimensions, "
                         f"got dimensions {tuple(dimensions)} for shape {x.shape}.")
    if math.prod(new_sizes) != x.size:  # lax.reshape: JAX's ValueError
        raise ShapeValueError(f"cannot reshape an array of shape {x.shape} (size {x.size}) "
                              f"into shape {tuple(new_sizes)}",
                              hint="the new shape must have as many elements as the operand")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


def _reshape_impl(x, *, new_sizes, dimensions=None, sharding=None):
    x = np.asarray(x)
    return np.reshape(x if dimensions is None else np.transpose(x, dimensions), new_sizes)


def _reshape_lowering(ctx, x, *, new_sizes, dimensions=None, sharding=None):
    if dimensions is not None:   # the operand transposed first, as JAX lowers it
        a = ctx.avals_in[0]
        x = ctx.op1("stablehlo.transpose", [x], a.update(shape=tuple(a.shape[d] for d in dimensions)),
                    attrs={"permutation": ctx.i64(dimensions)})
    return laid_out(ctx, ctx.op1("stablehlo.reshape", [x]), sharding)


register(reshape_p, impl=_reshape_impl, abstract_eval=_reshape_ae, lowering=_reshape_lowering)


def _reshape_batch(args, dims, *, new_sizes, dimensions=None, sharding=None):
    x = moveaxis(args[0], dims[0], 0)
    size = _aval(x).shape[0]
    if dimensions is not None:
        dimensions = (0,) + tuple(d + 1 for d in dimensions)
    return bind(reshape_p, x, new_sizes=(size,) + tuple(new_sizes), dimensions=dimensions,
                sharding=batched_layout(sharding, 0)), 0


def _reshape_transpose(ct, x, *, new_sizes, dimensions=None, sharding=None):
    if is_zero(ct):
        return [None]
    shape = x.aval.shape
    if dimensions is None:
        return [reshape(ct, shape)]
    # undo the reshape into the permuted shape, then the permutation
    return [transpose(reshape(ct, tuple(shape[d] for d in dimensions)), tuple(np.argsort(dimensions)))]


def _reshape_source(gen, eqn):
    (x,) = eqn.invars
    if eqn.params.get("dimensions") is not None:
        return lax_call("reshape", gen, eqn, gen.value(tuple(eqn.params["new_sizes"])),
                        gen.value(tuple(eqn.params["dimensions"])))
    if isinstance(x, core.Var) and not x.aval.weak_type:
        return call(attr(gen.arg(x), "reshape"), [gen.value(tuple(eqn.params["new_sizes"]))])
    if isinstance(x, core.Var):  # may be a Python scalar when run eagerly
        return call("jnp.reshape", [gen.arg(x), gen.value(tuple(eqn.params["new_sizes"]))])
    return lax_call("reshape", gen, eqn, gen.value(tuple(eqn.params["new_sizes"])))


deflinear(reshape_p, _reshape_transpose)
register(reshape_p, batch=_reshape_batch, source=_reshape_source)


def reshape(operand, new_sizes, dimensions=None, out_sharding=None):
    """`lax.reshape` (after transposing by `dimensions`, if given); `out_sharding`
    lays the result out (see `out_layout`)."""
    new_sizes = shape_poly.canonical_shape(new_sizes)
    s = None if out_sharding is None else out_layout(out_sharding, "reshape")
    if dimensions is not None:   # (the identity permutation is none: JAX drops it)
        try:
            dimensions = tuple(operator.index(d) for d in dimensions)
        except TypeError as e:   # (JAX's TypeError of operator.index)
            raise ArgumentTypeError(str(e), hint="reshape's dimensions are ints") from None
        if dimensions == tuple(range(_aval(operand).ndim)):
            dimensions = None
    if s is None and _aval(operand).shape == new_sizes and dimensions is None and \
            not isinstance(operand, _HOST_VALUES):   # (JAX: only an Array comes back as is;
        return operand                               # a NumPy one is converted, canonical)
    return bind(reshape_p, operand, new_sizes=new_sizes, dimensions=dimensions, sharding=s)

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
    # the batch axis first, as JAX's rule: the layout is observable (rbg keys draw
    # their bits in the order of the keys' data, so `k1, k2 = split(key)` needs it)
    x = moveaxis(args[0], dims[0], 0)
    nd = _aval(x).ndim - 1
    return bind(squeeze_p, x, dimensions=tuple(sorted(a % nd + 1 for a in dimensions))), 0


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
