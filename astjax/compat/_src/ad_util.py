"""`jax._src.ad_util`: the autodiff helpers libraries import from it -- `stop_gradient_p`
(lineax registers a transpose rule on it), the symbolic `Zero` / `SymbolicZero` tangents
and `zeros_like_aval`."""
from __future__ import annotations

from ...core import Zero
from ...interpreters.ad import zeros_like_aval
from ...primitives.custom_derivatives import SymbolicZero, stop_gradient_p

__all__ = ["stop_gradient_p", "Zero", "SymbolicZero", "zeros_like_aval"]
