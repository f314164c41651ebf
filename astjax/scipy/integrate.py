"""`astjax.scipy.integrate` (JAX's `jax.scipy.integrate`): `trapezoid`, the trapezoidal
rule, with SciPy's signature; the computation is `astjax.numpy.trapezoid`'s."""
from __future__ import annotations

from ..numpy import trapezoid as _trapezoid

__all__ = ["trapezoid"]


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integrate `y` along `axis` by the trapezoidal rule, as JAX's
    `jax.scipy.integrate.trapezoid`: at sample points `x` (broadcast against y along
    `axis`) or, without x, evenly spaced by `dx`."""
    return _trapezoid(y, x, dx, axis)
