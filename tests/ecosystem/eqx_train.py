"""A typical equinox program: eqx.nn.MLP, filter_jit / filter_grad / filter_vmap,
tree_at, partition/combine, optax training; prints its numbers as JSON."""
import json, sys
import numpy as np
import jax, jax.numpy as jnp
import equinox as eqx
import optax

key = jax.random.PRNGKey(0)
model = eqx.nn.MLP(in_size=3, out_size=1, width_size=8, depth=2, key=key)
rng = np.random.RandomState(0)
X = jnp.asarray(rng.randn(32, 3).astype(np.float32))
Y = jnp.asarray(rng.randn(32, 1).astype(np.float32))

def loss(m, x, y):
    pred = jax.vmap(m)(x)
    return jnp.mean((pred - y) ** 2)

res = {}
res["init_loss"] = float(loss(model, X, Y))
opt = optax.adam(1e-2)
state = opt.init(eqx.filter(model, eqx.is_array))

@eqx.filter_jit
def step(m, s, x, y):
    l, g = eqx.filter_value_and_grad(loss)(m, x, y)
    u, s = opt.update(g, s, eqx.filter(m, eqx.is_array))
    return eqx.apply_updates(m, u), s, l

for i in range(10):
    model, state, l = step(model, state, X, Y)
res["loss10"] = float(l)
res["pred"] = np.asarray(eqx.filter_vmap(model)(X[:4])).ravel().tolist()
m2 = eqx.tree_at(lambda m: m.layers[0].bias, model, jnp.zeros(8))
res["tree_at"] = float(loss(m2, X, Y))
params, static = eqx.partition(model, eqx.is_array)
res["combine"] = float(loss(eqx.combine(params, static), X, Y))


# filter_custom_vjp (custom_vjp with symbolic zeros underneath)
@eqx.filter_custom_vjp
def scaled(vjp_arg, fn):
    x, y = vjp_arg
    return fn(x) * y


@scaled.def_fwd
def scaled_fwd(perturbed, vjp_arg, fn):
    x, y = vjp_arg
    return fn(x) * y, (x, y)


@scaled.def_bwd
def scaled_bwd(residuals, grad_obj, perturbed, vjp_arg, fn):
    x, y = residuals
    return (grad_obj * y * jnp.cos(x) * 3.0, grad_obj * fn(x))  # 3x: the rule is used


g = eqx.filter_grad(lambda xy: scaled(xy, jnp.sin))((jnp.array(1.0), jnp.array(2.0)))
res["filter_custom_vjp"] = [float(v) for v in g]
res["filter_custom_vjp_x_only"] = float(jax.grad(lambda x: scaled((x, jnp.array(2.0)), jnp.sin))(1.0))
json.dump(res, sys.stdout)
