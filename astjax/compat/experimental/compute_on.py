"""`jax.experimental.compute_on`: `compute_on(compute_type)`, a context manager (or a
decorator) under which the operations staged run on another compute of the device:
`'device_host'` (the host's CPU cores), `'device'` (the device itself); and
`compute_on2(f, compute_type=, out_memory_spaces=)`, `f` staged into one `compute_on`
equation (`astjax/primitives/compute_on.py`) whose results are put in the memory
spaces named (`memory.Space.Host` / `Space.Device`, one for all results or a pytree
prefix of them).

As in JAX 0.10.2 the staged program is unchanged (its jaxpr prints the same): each
equation staged in the block remembers the compute type (its `SourceInfo`), and the
lowering marks its operations with `mhlo.frontend_attributes = {_xla_compute_type =
"host"}` (`"dense"` for `'device'`; `codegen/compute_on.py`). On the CPU the marked
operations run where they would run anyway, with the same values. A nested
`compute_on` overrides the outer one for its own block. Outside staging, the programs
`jit` stages in the block (an eager call of a jitted function, its `lower`) are marked
as a whole and cached apart, as JAX traces them under the compute type; eager
operations have nothing to mark.

JAX's TypeError for a compute type that is not a string, and its ValueError for an
unknown one, are raised by `compute_on` itself.
"""
from __future__ import annotations

import json
from contextlib import contextmanager

from astjax import core as _core, tree_util as _tree_util
from astjax.ad_api import _stage
from astjax.api import jit as _jit
from astjax.api_util import flatten_axes as _flatten_axes
from astjax.errors import (ArgumentTypeError as _ArgumentTypeError,
                           ArgumentValueError as _ArgumentValueError,
                           caller_location as _caller_location)
from astjax.primitives.compute_on import (compute_on_p as _compute_on_p, marked as _marked,
                                         outside_staging as _outside_staging,
                                         tagged as _tagged)

__all__ = ["compute_on", "compute_on2"]

_VALID = ("device_host", "device", "tpu_sparsecore")


def _check(compute_type):
    if not isinstance(compute_type, str):
        raise _ArgumentTypeError("`compute_on`'s compute_type argument must be a string.",
                                loc=_caller_location())
    if compute_type not in _VALID and not compute_type.startswith("gpu_stream:"):
        raise _ArgumentValueError(
            f"Invalid compute type {compute_type}. Current supported values are "
            "`device_host`, `device`, `tpu_sparsecore`, and `gpu_stream:#`.",
            loc=_caller_location())
    if compute_type.startswith("gpu_stream:") or compute_type == "tpu_sparsecore":
        raise _ArgumentValueError(
            f"compute_on({compute_type!r}) names a GPU stream or a TPU SparseCore: astjax "
            "lowers `device_host` and `device` only", loc=_caller_location(),
            hint="use compute_on('device_host') or compute_on('device')")


def compute_on(compute_type: str):
    """Run the operations staged inside on `compute_type`'s compute
    (`'device_host'`: the host; `'device'`: the device): a context manager, or a
    decorator."""
    _check(compute_type)
    return _block(compute_type)


@contextmanager
def _block(compute_type):
    builder = _core.current_builder()
    if builder is None:   # (eagerly: the programs `jit` stages inside, as JAX's)
        with _outside_staging(compute_type):
            yield
        return
    start = len(builder.eqns)
    try:
        yield
    finally:
        if builder.alive:
            eqns = builder.eqns
            for i in range(start, len(eqns)):
                new = _marked(eqns[i], compute_type)
                if new is not eqns[i]:
                    for v in new.outvars:
                        builder.producer[v] = new
                    eqns[i] = new


def compute_on2(f=None, *, compute_type, out_memory_spaces, compiler_options=None):
    """`f` run on `compute_type`'s compute as one `compute_on` equation, each result
    put in its memory space (`out_memory_spaces`: one `memory.Space` for every result,
    or a pytree prefix of them); a decorator without `f`. `compiler_options` (a dict)
    reach XLA as the call's `backend_config` (JSON)."""
    if f is None:
        return lambda g: compute_on2(g, compute_type=compute_type,
                                     out_memory_spaces=out_memory_spaces,
                                     compiler_options=compiler_options)
    _check(compute_type)
    options = None if compiler_options is None else json.dumps(compiler_options)

    def wrapped(*args):
        if _core.current_builder() is None:   # (eagerly: as JAX, a program of the call)
            return _jit(wrapped)(*args)
        closed, _, out_tree, leaves = _stage(f, args, {}, None)
        body, consts = _core.split_consts(_tagged(closed, compute_type))
        spaces = _flatten_axes("compute_on out_memory_spaces", out_tree, out_memory_spaces)
        outs = _core.bind(_compute_on_p, *consts, *leaves, jaxpr=body,
                         compute_type=compute_type, out_memory_spaces=tuple(spaces),
                         compiler_options_json=options)
        return _tree_util.tree_unflatten(out_tree, outs)
    return wrapped
