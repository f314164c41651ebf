"""A typical JAX program, run unchanged by astjax: `python examples/jax_program.py`
(add `--jax` to run the same file with JAX itself and compare the output)."""
import sys
if "--jax" not in sys.argv:
    import astjax as jax
else:
    import jax
jnp = jax.numpy
from functools import partial
import numpy as np

key = jax.random.PRNGKey(0)
k1, k2, k3 = jax.random.split(key, 3)
W = jax.random.normal(k1, (3, 4)) * 0.1
b = jnp.zeros(4)
params = {"W": W, "b": b}
x = jax.random.uniform(k2, (8, 3))
y = jax.random.normal(k3, (8, 4))

def model(params, x):
    return jax.nn.relu(x @ params["W"] + params["b"])

def loss_fn(params, x, y):
    pred = model(params, x)
    l = jnp.mean((pred - y) ** 2)
    return l, {"pred_norm": jnp.linalg.norm(pred)}

@partial(jax.jit, static_argnames=("lr",))
def step(params, x, y, lr=0.1):
    (l, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return params, l, aux

for i in range(5):
    params, l, aux = step(params, x, y)
print("loss", float(l), float(aux["pred_norm"]))
print("softmax", jax.nn.softmax(jnp.arange(3.0)))
print("fori", jax.lax.fori_loop(0, 10, lambda i, c: c + i, 0))
per_ex = jax.vmap(lambda p, xi: model(p, xi[None])[0], in_axes=(None, 0))(params, x)
print("vmap", per_ex.shape)
print("einsum", jnp.einsum("ij,jk->ik", x, params["W"]).shape)
print("hess", jax.hessian(lambda v: jnp.sum(v ** 3))(jnp.arange(3.0)))
print("where", jnp.where(x > 0.5, x, 0.0).sum())
print("scan", jax.lax.scan(lambda c, v: (c + v, c * v), 0.0, jnp.arange(4.0)))
print("cond", jax.lax.cond(True, lambda a: a + 1, lambda a: a - 1, 5))
print("jacrev", jax.jacrev(lambda v: jnp.sin(v))(jnp.ones(2)))
print("argmax", jnp.argmax(per_ex, axis=1))
print("at", jnp.zeros(4).at[1].add(3.0))
print("tree", jax.tree_util.tree_leaves(params)[0].shape)
print(jax.make_jaxpr(lambda v: jnp.sum(v * 2))(jnp.ones(3)))
