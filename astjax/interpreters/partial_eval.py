"""`astjax.interpreters.partial_eval` (JAX's `jax.interpreters.partial_eval`): staging
a function with some inputs known — `PartialVal` and `trace_to_jaxpr_nounits`."""
from __future__ import annotations

from .. import core, dtypes
from ..ir import ShapedArray
from ..transforms import ad as _ad

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
    """Stage `fun` (a `linear_util.WrappedFun` or callable) with some inputs known ->
    (jaxpr, out_pvals, residuals), as JAX's: the outputs that depend on no unknown input
    are computed now (eagerly, or staged into an enclosing trace) and come back
    `PartialVal.known(value)` -- unless `instantiate` (a bool, or one per output)
    asks for them unknown; the rest is `jaxpr`, whose constvars take `residuals` (the
    known values it reads) and whose invars are the unknown inputs in order."""
    call = getattr(fun, "call_wrapped", fun)
    staged, avals = [], []     # the inputs given to the jaxpr: unknowns and known arrays
    for i, pv in enumerate(pvals):
        if pv.is_known():
            try:
                aval = core.get_aval(pv.get_known())
            except TypeError:
                continue       # (a Python object: closed over, as a constant)
            if type(aval) is not ShapedArray:
                continue       # (typed keys, Refs: closed over too)
            avals.append(aval)
        else:
            aval = pv[0]
            if isinstance(aval.dtype, dtypes.ExtendedDType):   # (typed keys: their data)
                avals.append(ShapedArray(*aval.dtype.physical(aval.shape)))
            else:
                avals.append(ShapedArray.update(aval))   # (a plain ShapedArray)
        staged.append(i)

    def body(*xs):
        args = [pv.get_known() for pv in pvals]
        for i, x in zip(staged, xs):
            dt = None if pvals[i].is_known() else pvals[i][0].dtype
            args[i] = dt.from_physical(x) if isinstance(dt, dtypes.ExtendedDType) else x
        return list(call(*args))
    closed = core.stage(body, avals)
    unknowns = [not pvals[i].is_known() for i in staged]
    known, unknown, out_uk, n_res = _ad.partial_eval_jaxpr(closed, unknowns, instantiate)
    values = core.inline_jaxpr(known.jaxpr, known.consts,
                               [pvals[i].get_known() for i in staged if pvals[i].is_known()])
    n_known = len(values) - n_res
    known_outs, residuals = iter(values[:n_known]), list(values[n_known:])
    out_pvals = [PartialVal.unknown(ShapedArray.update(a.aval)) if u else PartialVal.known(next(known_outs))
                 for a, u in zip(closed.jaxpr.outvars, out_uk)]
    uj = unknown.jaxpr
    jaxpr = core.Jaxpr(uj.invars[:n_res], uj.invars[n_res:], uj.outvars, uj.eqns)
    return jaxpr, out_pvals, residuals
