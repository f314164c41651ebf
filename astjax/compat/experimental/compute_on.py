"""`jax.experimental.compute_on`: `compute_on(compute_type)`, a context manager (or a
decorator) under which the operations staged run on another compute of the device:
`'device_host'` (the host's CPU cores), `'device'` (the device itself).

As in JAX 0.10.2 the staged program is unchanged (its jaxpr prints the same): each
equation staged in the block remembers the compute type (its `SourceInfo`), and the
lowering marks its operations with `mhlo.frontend_attributes = {_xla_compute_type =
"host"}` (`"dense"` for `'device'`; `codegen/compute_on.py`). On the CPU the marked
operations run where they would run anyway, with the same values. A nested
`compute_on` overrides the outer one for its own block. Outside staging (eager
operations) there is nothing to mark.

JAX's TypeError for a compute type that is not a string, and its ValueError for an
unknown one, are raised by `compute_on` itself.
"""
from __future__ import annotations

from contextlib import contextmanager

from astjax import core
from astjax.errors import ArgumentTypeError, ArgumentValueError, caller_location

__all__ = ["compute_on"]

_VALID = ("device_host", "device", "tpu_sparsecore")


def _check(compute_type):
    if not isinstance(compute_type, str):
        raise ArgumentTypeError("`compute_on`'s compute_type argument must be a string.",
                                loc=caller_location())
    if compute_type not in _VALID and not compute_type.startswith("gpu_stream:"):
        raise ArgumentValueError(
            f"Invalid compute type {compute_type}. Current supported values are "
            "`device_host`, `device`, `tpu_sparsecore`, and `gpu_stream:#`.",
            loc=caller_location())
    if compute_type.startswith("gpu_stream:") or compute_type == "tpu_sparsecore":
        raise ArgumentValueError(
            f"compute_on({compute_type!r}) names a GPU stream or a TPU SparseCore: astjax "
            "lowers `device_host` and `device` only", loc=caller_location(),
            hint="use compute_on('device_host') or compute_on('device')")


def _tagged_value(p, compute_type):
    """Param value `p` with the sub-jaxprs in it copied, their equations marked."""
    if isinstance(p, core.ClosedJaxpr):
        return core.ClosedJaxpr(_tagged_value(p.jaxpr, compute_type), p.consts)
    if isinstance(p, core.Jaxpr):
        return core.Jaxpr(p.constvars, p.invars, p.outvars,
                          [_marked(e, compute_type) for e in p.eqns])
    if isinstance(p, tuple):
        return tuple(_tagged_value(q, compute_type) for q in p)
    return p


def _marked(eqn, compute_type):
    """A copy of `eqn` staged under `compute_type` (an inner block's own type kept), its
    sub-jaxprs' equations too (they may be shared with other programs: copied)."""
    if getattr(eqn.source_info, "compute_type", None) is not None:
        return eqn
    params = eqn.params
    if any(True for _ in core.sub_jaxprs(params)):
        params = {k: _tagged_value(v, compute_type) for k, v in params.items()}
    return eqn.replace(source_info=eqn.source_info.replace(compute_type=compute_type),
                       params=params)


def compute_on(compute_type: str):
    """Run the operations staged inside on `compute_type`'s compute
    (`'device_host'`: the host; `'device'`: the device): a context manager, or a
    decorator."""
    _check(compute_type)
    return _block(compute_type)


@contextmanager
def _block(compute_type):
    builder = core.current_builder()
    start = len(builder.eqns) if builder is not None else 0
    try:
        yield
    finally:
        if builder is not None and builder.alive:
            eqns = builder.eqns
            for i in range(start, len(eqns)):
                new = _marked(eqns[i], compute_type)
                if new is not eqns[i]:
                    for v in new.outvars:
                        builder.producer[v] = new
                    eqns[i] = new
