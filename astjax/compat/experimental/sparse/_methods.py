"""The operators and array methods of `BCOO` (and `@` / indexing of `BCSR`), derived
from `sparsify` as JAX derives them: `S + T`, `S * x`, `S @ x`, `-S`, `S[i, 1:3]`,
`S.sum(axis)`, `S.reshape(...)`, `S.astype(...)`, iteration, and comparisons (which
raise JAX's `NotImplementedError`: their result would be dense). Each is the `jnp`
function run through `sparsify`, so its result is what the sparse rules give: a BCOO
where JAX's is one, a dense array where JAX's is dense."""
from __future__ import annotations

import numpy as np

from astjax import numpy as jnp

from .bcoo import BCOO
from .bcsr import BCSR
from .transform import sparsify

__all__: list[str] = []


def _swapped(f):
    return lambda a, b: f(b, a)


def _sum(self, *args, **kwargs):
    """The sum over the given axes (all: a dense scalar), as `jnp.sum`'s."""
    return sparsify(lambda x: x.sum(*args, **kwargs))(self)


def _reshape(self, *args, **kwargs):
    """The array with a new shape (see `bcoo_reshape` for the layouts allowed)."""
    return sparsify(lambda x: x.reshape(*args, **kwargs))(self)


def _astype(self, *args, **kwargs):
    """The array with its data cast to a new dtype."""
    return sparsify(lambda x: x.astype(*args, **kwargs))(self)


def _getitem(self, idx):
    """`self[idx]` with static integers, slices, `None` and `...` (a BCOO result);
    indexing with arrays raises JAX's NotImplementedError (no sparse gather rule)."""
    result = sparsify(lambda x: x[idx])(self)
    if not isinstance(result, BCOO) and np.size(result) == 0:
        # an empty selection indexes no sparse dimension: stage it as JAX does
        result = BCOO.fromdense(result)
    return result


def _bcsr_getitem(self, idx):
    """`self[idx]`, through `sparsify` (as JAX's)."""
    return sparsify(lambda x: x[idx])(self)


def _iter(self):
    """The sub-arrays along the first axis."""
    return iter(self[i] for i in range(self.shape[0]))


def _pow(self, y):
    """`self ** y` (a positive integer `y`: a BCOO; otherwise JAX's error)."""
    return sparsify(lambda x: jnp.power(x, y))(self)


_BCOO_METHODS = {
    "astype": _astype, "reshape": _reshape, "sum": _sum,
    "__abs__": sparsify(jnp.abs), "__neg__": sparsify(jnp.negative),
    "__pos__": sparsify(jnp.positive),
    "__matmul__": sparsify(jnp.matmul), "__rmatmul__": sparsify(_swapped(jnp.matmul)),
    "__mul__": sparsify(jnp.multiply), "__rmul__": sparsify(_swapped(jnp.multiply)),
    "__truediv__": sparsify(jnp.divide), "__rtruediv__": sparsify(_swapped(jnp.divide)),
    "__add__": sparsify(jnp.add), "__radd__": sparsify(_swapped(jnp.add)),
    "__sub__": sparsify(jnp.subtract), "__rsub__": sparsify(_swapped(jnp.subtract)),
    "__pow__": _pow, "__rpow__": sparsify(_swapped(jnp.power)),
    "__getitem__": _getitem, "__iter__": _iter,
    "__gt__": sparsify(jnp.greater), "__ge__": sparsify(jnp.greater_equal),
    "__lt__": sparsify(jnp.less), "__le__": sparsify(jnp.less_equal),
    "__eq__": sparsify(jnp.equal), "__ne__": sparsify(jnp.not_equal),
}


def _install():
    for name, impl in _BCOO_METHODS.items():
        setattr(BCOO, name, impl)
    setattr(BCSR, "__getitem__", _bcsr_getitem)


_install()
