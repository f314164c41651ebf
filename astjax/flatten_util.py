"""`jax.flatten_util.ravel_pytree`: a pytree of arrays as one flat vector.

`ravel_pytree(tree) -> (flat, unravel)`: `flat` is the concatenation of every leaf
raveled, in `tree_flatten` order, in the leaves' common dtype (`result_type`);
`unravel(flat)` rebuilds the tree, each leaf in its own shape and dtype. Used by
optimizers that work on a single vector (e.g. `scipy.optimize.minimize`).
"""
from __future__ import annotations

import numpy as np

from . import dtypes
from . import lax as _lax
from . import numpy as jnp
from .tree_util import tree_flatten, tree_unflatten

__all__ = ["ravel_pytree"]


def ravel_pytree(pytree):
    """Flatten `pytree` into one 1-D array; returns `(flat, unravel)`."""
    leaves, treedef = tree_flatten(pytree)
    if not leaves:
        return jnp.zeros(0, dtypes.float32), lambda flat: tree_unflatten(treedef, [])
    from_dtypes = [jnp.result_type(x) for x in leaves]
    to_dtype = jnp.result_type(*from_dtypes)
    shapes = [np.shape(x) for x in leaves]
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    flat = jnp.concatenate([jnp.ravel(jnp.asarray(x)).astype(to_dtype) for x in leaves])
    total = sum(sizes)

    def unravel(flat_vector):
        if np.shape(flat_vector) != (total,):
            raise ValueError(
                f"The unravel function expected an array of shape {(total,)}, "
                f"got shape {np.shape(flat_vector)}.")
        got = jnp.result_type(flat_vector)
        if got != to_dtype:
            raise TypeError(f"The unravel function expected an array of dtype {to_dtype}, "
                            f"got dtype {got}.")
        out = []   # (one `lax.split`, as JAX: its cotangent is one concatenate)
        chunks = _lax.split(flat_vector, sizes)
        for chunk, shape, dt in zip(chunks, shapes, from_dtypes):
            if np.issubdtype(to_dtype, np.complexfloating) and not np.issubdtype(
                    dt, np.complexfloating):
                chunk = jnp.real(chunk)
            out.append(jnp.reshape(chunk, shape).astype(dt))
        return tree_unflatten(treedef, out)

    return flat, unravel
