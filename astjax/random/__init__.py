"""`astjax.random`: JAX's functional PRNG, bit-identical to `jax.random` with the
default threefry2x32 implementation (same key, shape and dtype -> same values).

`PRNGKey(seed)` makes a raw key, a `uint32[2]` array, as JAX's does; `key(seed)`
makes a typed key (dtype `key<fry>`, shape `()`, `random.keys`) over the same data,
and `key_data` / `wrap_key_data` convert between the two. Every sampler accepts both. Samplers follow JAX's algorithms step by step; each is
compiled once per signature when called outside `jit`.
"""
from __future__ import annotations

from ..errors import MissingNameError as _MissingNameError
from .prng import *  # noqa: F401,F403
from .prng import __all__ as _base
from .distributions import *  # noqa: F401,F403
from .distributions import __all__ as _more

from .keys import *  # noqa: F401,F403  (typed keys; samplers accepting them)
from ..primitives.random_gamma import random_gamma_p  # noqa: F401  (what the gamma family binds)

__all__ = list(_base) + list(_more) + ["random_gamma_p"]


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _MissingNameError(f"astjax.random.{name} is not implemented",
                           hint="docs/api.md lists what is implemented")
