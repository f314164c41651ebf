"""Compatibility modules served as `jax.<name>` by `astjax.jax_alias`: what JAX has
under a name astjax's public modules do not use. Each is implemented, never a stub
that raises."""
