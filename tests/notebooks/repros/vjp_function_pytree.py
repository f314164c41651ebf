"""The function jax.vjp returns is a pytree in JAX (a jax.tree_util.Partial whose leaves
are the residuals): it can be flattened, and returned from make_jaxpr/jit. In astjax it
is an opaque closure (autodiff_remat's print_fwd_bwd relies on both).

JAX:    leaves: 2 [(), ()]
        make_jaxpr(lambda x: jax.vjp(f, x)) -> 3 outputs
astjax: leaves: 1 ['function']
        ArgumentTypeError: ... returns a function ...
"""
import jax
import jax.numpy as jnp

f = lambda x: jnp.sin(jnp.sin(x))
y, f_vjp = jax.vjp(f, 3.)
leaves, _ = jax.tree_util.tree_flatten(f_vjp)
print("leaves:", len(leaves), [getattr(l, "shape", type(l).__name__) for l in leaves])
try:
    print("make_jaxpr(lambda x: jax.vjp(f, x)) ->",
          len(jax.make_jaxpr(lambda x: jax.vjp(f, x))(3.).jaxpr.outvars), "outputs")
except Exception as e:
    print(type(e).__name__, [l for l in str(e).splitlines() if l.strip()][-2][:160])
