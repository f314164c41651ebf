"""`jax._src.flatten_util`: `ravel_pytree` (blackjax's SMC tuners import it from here),
the function `jax.flatten_util` serves."""
from ...flatten_util import ravel_pytree  # noqa: F401

__all__ = ["ravel_pytree"]
