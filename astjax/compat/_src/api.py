"""`jax._src.api`: where JAX defines its transformations; tutorials import it as
`from jax._src import api` and call `api.jit`, `api.grad`, `api.jvp`, `api.vmap`, ..."""
from astjax import (device_get, device_put, eval_shape, grad, hessian, jacfwd, jacrev,
                    jit, jvp, linearize, make_jaxpr, value_and_grad, vjp, vmap)

__all__ = ["device_get", "device_put", "eval_shape", "grad", "hessian", "jacfwd",
           "jacrev", "jit", "jvp", "linearize", "make_jaxpr", "value_and_grad", "vjp",
           "vmap"]
