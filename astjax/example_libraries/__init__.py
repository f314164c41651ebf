"""`astjax.example_libraries` (JAX's `jax.example_libraries`): `stax`, a small neural
network library of (init_fun, apply_fun) pairs, and `optimizers`, first-order
optimizers as (init, update, get_params) triples — same signatures and numbers."""
from . import optimizers, stax  # noqa: F401
