"""JAX's sharding-in-types checks for operations on arrays laid out over
**Explicit** mesh axes, outside `jit` (`spmd.eager_apply` calls `check`).

On a mesh whose axes are Explicit (`jax.make_mesh`'s default in JAX 0.10.2) the
layout is part of an array's type, and operations whose operands' layouts cannot
be reconciled without an implicit resharding raise JAX's `ShardingTypeError`
(astjax: `astjax.sharding.ShardingTypeError`) rather than letting the partitioner
pick a layout:

- elementwise operations with two or more array operands: along each dimension,
  the operands (those whose dimension is not a broadcast 1) may name at most one
  mesh axis (`P('x')` + `P('y')` is an error, `P('x')` + `P()` is not);
- `select_n` (`jnp.where`): the cases must have the same sharding;
- `concatenate`: every operand must have the same sharding;
- `dot_general`: batch and contracting dimensions sharded alike where both sides are
  sharded, and no contracting dimension sharded on both sides (ambiguous output).

Only operands that are GlobalArrays over a mesh all of whose axes are Explicit
take part; host values and arrays on one device are untyped (replicated). They also
run on the jaxpr of a partitioned `jit` with the arguments' layouts carried
through elementwise operations only (`check_jaxpr`); JAX checks every operation.
"""
from __future__ import annotations

from astjax import sharding as shd

from . import sharded

__all__ = ["check", "check_jaxpr", "ELEMENTWISE", "UNARY"]

#: n-ary elementwise primitives (equal shapes, rank-0 operands broadcast)
ELEMENTWISE = frozenset({
    "add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2", "nextafter",
    "and", "or", "xor", "eq", "ne", "lt", "le", "gt", "ge", "add_any", "complex",
    "shift_left", "shift_right_logical", "shift_right_arithmetic", "igamma", "igammac",
    "polygamma", "zeta", "clamp"})

#: unary elementwise primitives through which `check_jaxpr` carries a layout
UNARY = frozenset({
    "neg", "sign", "abs", "exp", "exp2", "expm1", "log", "log1p", "sqrt", "rsqrt", "cbrt",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "logistic", "erf", "erfc", "erf_inv", "floor", "ceil", "round", "not",
    "is_finite", "square", "integer_pow", "convert_element_type", "real", "imag", "conj",
    "reduce_precision", "copy", "copy_p", "sharding_constraint"})


def _typed(x):
    """(shape, per-dimension spec, sharding) of `x` when it is laid out over an
    all-Explicit mesh, else None."""
    if type(x) is not sharded.GlobalArray:
        return None
    s = x._sharding
    if not isinstance(s, shd.NamedSharding):
        return None
    types = s.mesh.axis_types
    if not types or not all(t == shd.AxisType.Explicit for t in types):
        return None
    return (tuple(x.shape), tuple(s.spec._normalized(x.ndim)), s)


def check(prim, args, params):
    """Raise JAX's ShardingTypeError when `prim` on the concrete `args` mixes
    incompatible Explicit layouts (see the module docstring); else do nothing."""
    _rule(prim.name, [_typed(a) for a in args], params)


def _rule(name, ts, params):
    """The check of one primitive on typed operands (None: untyped); returns the
    typed result (shape, spec, sharding) when it is known, else None."""
    if name in ELEMENTWISE or name == "select_n":
        if name == "select_n":
            cases = [t for t in ts[1:] if t is not None]
            if len({t[1] for t in cases}) > 1:
                raise shd.ShardingTypeError(
                    "select cases must have the same shardings, got ["
                    + ", ".join(str(t[2]) for t in cases) + "].")
        return _broadcasting(name, ts)
    if name == "concatenate":
        typed = [t for t in ts if t is not None]
        if len({t[1] for t in typed}) > 1:
            raise shd.ShardingTypeError("All operands should have the same sharding. Got "
                                        "shardings " + ", ".join(str(t[2]) for t in typed))
        return None
    if name == "dot_general" and len(ts) >= 2 and None not in ts[:2]:
        _dot(ts[0][1], ts[1][1], params["dimension_numbers"])
        return None
    if name in UNARY and ts and ts[0] is not None:
        return ts[0]
    return None


def check_jaxpr(jaxpr, leaves):
    """The same checks over a `jit`'s jaxpr, with the layouts of its GlobalArray
    arguments (`leaves`, one per invar) propagated through elementwise operations
    (any other operation's result is untyped: no check can fail on it wrongly)."""
    env = {}
    for v, x in zip(jaxpr.invars, leaves):
        t = _typed(x)
        if t is not None:
            env[v] = t
    if not env:
        return
    for eqn in jaxpr.eqns:
        ts = [env.get(a) if hasattr(a, "aval") and not hasattr(a, "val") else None
              for a in eqn.invars]
        if all(t is None for t in ts):
            continue
        out = _rule(eqn.primitive.name, ts, eqn.params)
        if out is not None and len(eqn.outvars) == 1:
            shape = tuple(eqn.outvars[0].aval.shape)
            if shape == out[0]:
                env[eqn.outvars[0]] = out


def _dot(lspec, rspec, dimension_numbers):
    """dot_general (JAX's rule without an `out_sharding`): batch dimensions and
    contracting dimensions sharded alike where both are sharded, and no contracting
    dimension sharded on both sides (the output's layout would be ambiguous)."""
    (lc, rc), (lb, rb) = dimension_numbers
    lhs_batch = tuple(lspec[d] for d in lb)
    rhs_batch = tuple(rspec[d] for d in rb)
    _match(lhs_batch, rhs_batch, "dot_general requires lhs batch dimensions and rhs batch "
           f"dimensions to have the consistent sharding, got {lhs_batch} and {rhs_batch}.")
    left = tuple(lspec[d] for d in lc)
    right = tuple(rspec[d] for d in rc)
    _match(left, right, "dot_general requires contracting dimensions to have consistent "
           f"sharding, got {left} and {right}.")
    if any(x is not None and y is not None for x, y in zip(left, right)):
        raise shd.ShardingTypeError(
            "Contracting dimensions are sharded and it is ambiguous how the output should "
            "be sharded. Please specify the output sharding via the `out_sharding` "
            f"parameter. Got lhs_contracting_spec={left!r} and rhs_contracting_spec="
            f"{right!r}")


def _match(left, right, msg):
    if any(x is not None and y is not None and x != y for x, y in zip(left, right)):
        raise shd.ShardingTypeError(msg)


def _broadcasting(name, ts):
    """Along each dimension at most one mesh axis among the operands whose dimension
    is not a broadcast 1; returns the typed result when every operand has one rank."""
    typed = [t for t in ts if t is not None and t[0]]
    if not typed:
        return None
    ndim = max(len(t[0]) for t in typed)
    spec = []
    for d in range(ndim):
        named = set()
        for shape, sp, _ in typed:
            k = d - (ndim - len(shape))
            if k >= 0 and shape[k] != 1 and sp[k] is not None:
                named.add(sp[k])
        if len(named) > 1:
            raise shd.ShardingTypeError(
                f"{name} got incompatible shardings for broadcasting: "
                + ", ".join(str(t[1]) for t in typed) + ".")
        spec.append(next(iter(named)) if named else None)
    if any(len(t[0]) != ndim for t in typed):
        return None
    shape = max((t[0] for t in typed), key=lambda sh: sum(n != 1 for n in sh))
    s = typed[0][2]
    return (shape, tuple(spec), shd.NamedSharding(s.mesh, shd.PartitionSpec(*spec)))
