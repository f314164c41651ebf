"""`astjax.interpreters.ad` (JAX's `jax.interpreters.ad`): symbolic zeros, undefined
primals and the JVP / transpose rule tables, with JAX's rule signatures:

- `primitive_jvps[p] = rule(primals, tangents, **params) -> (primal_out, tangent_out)`
  (tangents may be `Zero`);
- `primitive_transposes[p] = rule(ct, *args, **params) -> cotangent per argument`
  (linear arguments arrive as `UndefinedPrimal`; `None` or `Zero` for no cotangent).
"""
from __future__ import annotations

from .. import core, lax
from ..core import UndefinedPrimal, Zero
from ._views import RuleView
from ..ad_frames import carries_tangent

__all__ = ["Zero", "UndefinedPrimal", "is_undefined_primal", "instantiate_zeros",
           "primitive_jvps", "primitive_transposes", "JVPTracer", "defjvp", "deflinear",
           "deflinear2",
           "zeros_like_aval"]


def _mark_linear(p):
    p.linear = True


primitive_jvps = RuleView("jvp")
primitive_transposes = RuleView("transpose", on_set=_mark_linear)


def is_undefined_primal(x) -> bool:
    """Is `x` a linear input of a transpose rule (an `UndefinedPrimal`)?"""
    return isinstance(x, UndefinedPrimal)


def zeros_like_aval(aval):
    """A zero array of `aval`'s shape and dtype."""
    return lax.full(aval.shape, 0, aval.dtype)


def instantiate_zeros(tangent):
    """`tangent`, with a symbolic `Zero` made a zero array."""
    return zeros_like_aval(tangent.aval) if isinstance(tangent, Zero) else tangent


def defjvp(p, *jvp_rules):
    """One rule per operand, `rule(tangent, *primals, **params) -> tangent_out` (None
    for operands with no derivative); the primal output comes from binding `p`."""
    def jvp(primals, tangents, **params):
        out = p.bind(*primals, **params)
        total = None
        for rule, t in zip(jvp_rules, tangents):
            if rule is None or isinstance(t, Zero):
                continue
            term = rule(t, *primals, **params)
            total = term if total is None else total + term
        if total is None:
            total = Zero(core.get_aval(out))
        return out, total
    primitive_jvps[p] = jvp


def deflinear(p, transpose_rule):
    """`p` linear in its operands: the JVP applies `p` to the tangents;
    `transpose_rule(ct, **params)` gives the cotangent per operand (JAX's older form:
    the rule sees no operands; a symbolic-zero cotangent gives no cotangents)."""
    def transpose(ct, *args, **params):
        if isinstance(ct, Zero):
            return [Zero(x.aval) if isinstance(x, UndefinedPrimal) else None for x in args]
        return transpose_rule(ct, **params)
    deflinear2(p, transpose)


def deflinear2(p, transpose_rule):
    """`p` linear in its operands: the JVP applies `p` to the tangents; `transpose_rule`
    (ct, *args, **params) gives the cotangents."""
    def jvp(primals, tangents, **params):
        tangents = [instantiate_zeros(t) for t in tangents]
        return p.bind(*primals, **params), p.bind(*tangents, **params)
    primitive_jvps[p] = jvp
    primitive_transposes[p] = transpose_rule


class _JVPTracerType(type):
    def __instancecheck__(cls, x):
        return carries_tangent(x)


class JVPTracer(metaclass=_JVPTracerType):
    """JAX's forward-mode tracer type. astjax differentiates staged programs and makes
    none: `isinstance(x, JVPTracer)` tells whether staged value `x` carries a tangent
    of the differentiation staging its function (`ad_frames`), as JAX's JVP tracers
    do; `x._trace.main` then names that function's builder."""

    def __init__(self, *args, **kwargs):
        raise TypeError("astjax has no JVP tracers: derivatives are computed on staged "
                        "programs (see docs/architecture.md)")
