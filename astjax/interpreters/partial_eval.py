"""`astjax.interpreters.partial_eval` (JAX's `jax.interpreters.partial_eval`): staging
a function with some inputs known — `PartialVal` and `trace_to_jaxpr_nounits`."""
from __future__ import annotations

from .. import core
from ..ir import ShapedArray

__all__ = ["PartialVal", "trace_to_jaxpr_nounits"]


class PartialVal(tuple):
    """(aval, None) for an unknown value, (None, value) for a known one."""

    def __new__(cls, xs):
        return super().__new__(cls, xs)

    @classmethod
    def known(cls, const):
        return cls((None, const))

    @classmethod
    def unknown(cls, aval):
        return cls((aval, None))

    def is_known(self):
        return self[0] is None

    def get_known(self):
        return self[1] if self[0] is None else None

    def get_aval(self):
        return core.get_aval(self[1]) if self[0] is None else self[0]


def trace_to_jaxpr_nounits(fun, pvals, instantiate=False):
    """Stage `fun` (a `linear_util.WrappedFun` or callable) with the unknown inputs
    as jaxpr inputs and the known ones as constants -> (jaxpr, out_pvals, consts):
    every output unknown (astjax computes known parts at run time, in XLA)."""
    call = getattr(fun, "call_wrapped", fun)
    unknown = [pv for pv in pvals if not pv.is_known()]

    def body(*xs):
        it = iter(xs)
        args = [pv.get_known() if pv.is_known() else next(it) for pv in pvals]
        out = call(*args)
        return list(out)
    closed = core.stage(body, [ShapedArray(a.shape, a.dtype, a.weak_type) for a, _ in unknown])
    out_pvals = [PartialVal.unknown(v.aval) for v in closed.jaxpr.outvars]
    return closed.jaxpr, out_pvals, list(closed.consts)
