"""`astjax.scipy.cluster.vq` (JAX's `jax.scipy.cluster.vq`): `vq`, the nearest code of
a code book for each observation and its Euclidean distance."""
from __future__ import annotations

from ... import numpy as jnp
from ...errors import ArgumentValueError
from ...numpy.arraylike import check_arraylike
from ...numpy.operands import promote_dtypes_inexact

__all__ = ["vq"]


def vq(obs, code_book, check_finite=True):
    """Assign each row of `obs` (n, d) -- or each entry of a 1-D `obs` -- to the closest
    row of `code_book` (k, d), as JAX's `jax.scipy.cluster.vq.vq`: returns the codes
    (int, first on ties) and the distances. Both arguments must have the same rank, 1 or
    2; `check_finite` is accepted and ignored, as in JAX."""
    del check_finite
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs, book = promote_dtypes_inexact(obs, code_book)
    if obs.ndim != book.ndim:
        raise ArgumentValueError("Observation and code_book should have the same rank",
                                 hint="give obs and code_book both 1 or both 2 dimensions")
    if obs.ndim == 1:
        obs, book = obs[:, None], book[:, None]
    if obs.ndim != 2:
        raise ArgumentValueError("ndim different than 1 or 2 are not supported",
                                 hint="flatten the observations to (n, d)")
    # (n, k) distances from every observation to every code
    dist = jnp.linalg.norm(obs[:, None, :] - book[None, :, :], axis=-1)
    code = jnp.argmin(dist, axis=-1)
    return code, jnp.take_along_axis(dist, code[:, None], axis=1)[:, 0]
