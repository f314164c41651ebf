"""`astjax.extend.ifrt_programs` (JAX's `jax.extend.ifrt_programs`): jaxlib's
`ifrt_programs` module -- IFRT programs (e.g. a plugin program) that a client
compiles with `compile_ifrt_program`. Libraries such as orbax import it at load time
for their Pathways back end."""
from jaxlib import _jax

ifrt_programs = _jax.ifrt_programs

__all__ = ["ifrt_programs"]
