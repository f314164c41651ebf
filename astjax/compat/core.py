"""`jax.core`: the names JAX 0.10.2's `jax.core` has, over astjax's IR -- no more
(a library that feature-tests `hasattr(jax.core, name)` takes JAX 0.10.2's path).
`Tracer` is astjax's staged value, so `isinstance(x, jax.core.Tracer)` tells staged
from concrete as it does under JAX. The names JAX moved to `jax.extend.core` are
there; `jax._src.core` (astjax/compat/_src/core.py) keeps the internals libraries read.
`pytype_aval_mappings` (deprecated in JAX, still read by tfp's JAX substrate) is the
table `core.get_aval` consults (`astjax.value_tables`): JAX warns when it is read,
astjax does not (no module `__getattr__`: docs/architecture.md)."""
from astjax.core import (AbstractValue, Atom, ParamDict, ShapedArray, Trace, Tracer,  # noqa: F401
                         Value, ensure_compile_time_eval, eval_context, eval_jaxpr, max_dim,
                         min_dim)
from astjax.value_tables import pytype_aval_mappings  # noqa: F401,E402
