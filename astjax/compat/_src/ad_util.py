"""`jax._src.ad_util`: the autodiff helpers libraries import from it -- `stop_gradient_p`
(lineax registers a transpose rule on it), the symbolic `Zero` / `SymbolicZero` tangents,
`zeros_like_aval` and `zero_from_primal`."""
from __future__ import annotations

from ... import tree_util
from ...dtypes import _float0_zeros, float0
from ... import numpy as jnp
from ...core import Zero, get_aval
from ...interpreters.ad import zeros_like_aval
from ...primitives.custom_derivatives import SymbolicZero, stop_gradient_p

__all__ = ["stop_gradient_p", "Zero", "SymbolicZero", "zeros_like_aval", "zero_from_primal"]


def zero_from_primal(val, symbolic_zeros=False):
    """The zero tangent of each leaf of the pytree `val`, of its tangent type (float0
    for integer and boolean leaves): a `SymbolicZero`, or a zero array."""
    def zero(x):
        aval = get_aval(x).to_tangent_aval()
        if symbolic_zeros:
            return SymbolicZero(aval)
        if aval.dtype == float0:
            return _float0_zeros(aval.shape)
        return jnp.zeros(aval.shape, aval.dtype)
    return tree_util.tree_map(zero, val)
