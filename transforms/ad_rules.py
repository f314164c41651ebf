"""JVP and transpose rules for every non-control-flow primitive, one contiguous block
per primitive family. Rules are written with `lax` functions on Tracers, so `bind`
stages them into the current builder.

Signatures (see `primitives.helpers`):
  jvp(primals, tangents, **params) -> (primal_out, tangent_out)   tangents may be Zero
  transpose(ct, *args, **params) -> [ct per arg]   linear args are UndefinedPrimal;
                                                   ct may be Zero; None = no cotangent
"""
from __future__ import annotations

import numpy as np

from astjax import core, dtypes, lax
from astjax.core import bind
from astjax.primitives import cumulative as cum
from astjax.primitives import gather as ix
from astjax.primitives import reductions as red
from astjax.primitives import sort as srt
from astjax.primitives import structural as st

from .ad import UndefinedPrimal, Zero, add_tangents, differentiable, instantiate, is_undefined

jvp_rules = core.jvp_rules
transpose_rules = core.transpose_rules


from astjax.primitives.base import (bcast_rank0 as _bcast, deflinear, defjvp,  # noqa: E402
                                    deftranspose, defzero, is_zero as _is_zero, nondiff,
                                    sum_tangents as _sum_tangents, tangent_aval as _aval,
                                    unbcast_rank0 as _unbcast, weak_const as _const)


# ------------------------------------------------------------ collectives (named axes)
from astjax.primitives import collectives as coll  # noqa: E402


def _psum_transpose(ct, x, **params):
    return [None if _is_zero(ct) else bind(coll.psum_p, ct, **params)]


deflinear(coll.psum_p, _psum_transpose)
deflinear(coll.ppermute_p, lambda ct, x, *, axis_name, perm: [
    None if _is_zero(ct) else bind(coll.ppermute_p, ct, axis_name=axis_name,
                                   perm=tuple((t, s) for s, t in perm))])


def _all_to_all_transpose(ct, x, *, split_axis, concat_axis, **params):
    if _is_zero(ct):
        return [None]
    return [bind(coll.all_to_all_p, ct, split_axis=concat_axis, concat_axis=split_axis,
                 **params)]


deflinear(coll.all_to_all_p, _all_to_all_transpose)
nondiff(coll.axis_index_p)
for _p, _why in ((coll.pmax_p, "pmax has no derivative rule yet"),
                 (coll.pmin_p, "pmin has no derivative rule yet")):
    core.unsupported["jvp"][_p] = _why
core.jvp_rules[coll.all_gather_p] = lambda primals, tangents, **params: (
    bind(coll.all_gather_p, *primals, **params),
    Zero(core.get_aval(bind(coll.all_gather_p, *primals, **params)))
    if _is_zero(tangents[0]) else bind(coll.all_gather_p, tangents[0], **params))
core.unsupported["transpose"][coll.all_gather_p] = "needs psum_scatter (not implemented)"

