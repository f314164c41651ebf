"""`jax._src.*` modules that libraries import, with what they use from them."""
