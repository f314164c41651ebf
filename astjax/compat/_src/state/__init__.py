"""`jax._src.state`: JAX's mutable-reference ("state") types, as far as libraries
import them (`types.AbstractRef`)."""
