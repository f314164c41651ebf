"""`jax._src.core`: served by the same names as `jax.core` (astjax.compat.core)."""
from astjax.compat.core import *  # noqa: F401,F403
from astjax.compat.core import (Atom, ClosedJaxpr, Jaxpr, Literal, Primitive,  # noqa: F401
                                ShapedArray, Tracer, Var, eval_jaxpr, get_aval,
                                jaxpr_as_fn, raise_to_shaped)
