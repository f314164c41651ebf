"""Batch rules for every primitive (control flow and collectives aside: see
`batching` and `astjax.primitives.collectives`).

Signature: `rule(args, dims, **params) -> (out, out_dim)` (lists for primitives with
several results); `dims[i]` is where the batch axis of `args[i]` is, or None.
Families share one rule each:

- `vectorized`: elementwise with one operand (and shape-preserving ops): the batch
  dim stays where it is.
- `broadcasting`: elementwise n-ary ops whose operands have one shape, except that
  rank-0 operands broadcast (lax semantics): unmapped rank-0 operands stay scalars,
  everything else is brought to the full batched shape with the batch axis of the
  first mapped full-rank operand.
- `reducer`: ops with an `axes` param (reductions, argmax/argmin): the axes are
  shifted past the batch dim, which moves left by the number of axes before it.
- `cumulative`: ops with an `axis` param that keep the shape (cumsum, ...).
- `front`: ops that accept leading batch dimensions (linalg): move to 0.
Everything else has its own rule below. Rules for primitives declared in files that
may not exist yet are registered by name, when the primitive exists.
"""
from __future__ import annotations

import numpy as np

from astjax import core, dtypes
from astjax.core import bind

from .batching import (always_batch, axis_size, bdim_at_front, matchaxis, moveaxis,
                       not_mapped, shift_axis)

import astjax.primitives  # noqa: E402,F401  (every family: its primitives exist; no importlib)


def _aval(x):
    return core.get_aval(x)


def _prim(name):
    return core.primitives.get(name)

# --------------------------------------------------------------------- families


from astjax.primitives.base import (defbroadcasting as broadcasting,  # noqa: E402
                                    defcumulative as cumulative, deffront as front,
                                    defno_operands as no_operands, defreducer as reducer,
                                    defvectorized as vectorized)


def _register(name, rule_factory, *a, **kw):
    p = _prim(name)
    if p is not None and p not in core.batch_rules:
        core.batch_rules[p] = rule_factory(p, *a, **kw)


_register("stop_gradient", vectorized)

# ------------------------------------------------------------------- structural


# Collectives: rules live in astjax.primitives.collectives; they run even when the
# operands are unmapped (`axis_index` has none, `psum` of an unmapped x is x * n).
for _n in ("psum", "pmax", "pmin", "axis_index", "all_gather", "ppermute", "all_to_all"):
    if _prim(_n) is not None:
        always_batch.add(_prim(_n))


__all__ = ["vectorized", "broadcasting", "reducer", "cumulative", "front", "no_operands",
           "always_batch", "not_mapped"]

from . import batching_custom  # noqa: E402,F401  (checkpoint, custom_jvp_call, custom_vjp_call)
