"""The AOT tutorial's entry point, jax.jit(f).trace(*args), returns a tuple in astjax
(astjax/api.py Jitted.trace returned self.stage(...); fixed on branch api: a stages.Traced); JAX returns a jax.stages.Traced
(.jaxpr, .lower()). astjax/stages.py has a Traced class, unused. The lower() path
works, but the Compiled object has no cost_analysis().

JAX:    { lambda ; a:i32[] b:i32[]. let c:i32[] = mul 2:i32[] a; d:i32[] = add c b in (d,) }
        2.0 / 10 / TypeError for a float32 call
astjax: AttributeError: 'tuple' object has no attribute 'jaxpr'
        cost_analysis: AttributeError: 'Compiled' object has no attribute 'cost_analysis'
        10 / TypeError for a float32 call
"""
import jax
import jax.numpy as jnp


def f(x, y):
    return 2 * x + y


try:
    traced = jax.jit(f).trace(3, 4)
    print(traced.jaxpr)
except Exception as e:
    print(type(e).__name__ + ":", e)
compiled = jax.jit(f).lower(3, 4).compile()
try:
    print(compiled.cost_analysis()["flops"])
except Exception as e:
    print("cost_analysis:", type(e).__name__ + ":", str(e).splitlines()[0])
print(compiled(3, 4))
try:
    compiled(jnp.float32(72.), jnp.float32(72.))
except TypeError as e:
    print("TypeError for a float32 call")
