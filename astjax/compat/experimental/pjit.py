"""`jax.experimental.pjit`: the deprecated spelling of `jit` with shardings. JAX
0.10.2 keeps `pjit` behind a DeprecationWarning ("use `jax.jit` instead"); libraries
still import it (orbax's test utilities). astjax warns when it is called (JAX warns
when the name is read) and returns `astjax.jit` of the same arguments."""
from __future__ import annotations

import warnings

import astjax as _astjax

__all__ = ["pjit"]


def pjit(fun, in_shardings=None, out_shardings=None, static_argnums=None,
         static_argnames=None, donate_argnums=None, donate_argnames=None,
         keep_unused=False, device=None, backend=None, inline=False,
         compiler_options=None):
    """`jax.experimental.pjit.pjit` has been deprecated: `astjax.jit(fun, ...)` with the
    same arguments (a DeprecationWarning, as JAX's)."""
    warnings.warn("jax.experimental.pjit.pjit has been deprecated. Please use "
                  "`jax.jit` instead.", DeprecationWarning, stacklevel=2)
    options = {k: v for k, v in dict(
        static_argnums=static_argnums, static_argnames=static_argnames,
        donate_argnums=donate_argnums, donate_argnames=donate_argnames, device=device,
        backend=backend, compiler_options=compiler_options).items() if v is not None}
    if keep_unused:
        options["keep_unused"] = True
    return _astjax.jit(fun, in_shardings, out_shardings, inline=inline, **options)
