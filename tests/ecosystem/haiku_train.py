"""A typical haiku program: hk.transform / transform_with_state, hk.nets.MLP, a small
CNN (hk.Conv2D, hk.BatchNorm with state, max_pool, hk.Flatten, dropout with
hk.next_rng_key), hk.LSTM with hk.dynamic_unroll, hk.scan and hk.remat with their
gradients, trained with optax under jax.jit;
prints its numbers as JSON."""
import json

import numpy as np
import jax, jax.numpy as jnp
import haiku as hk
import optax

rng = np.random.RandomState(0)
res = {}

# ---- an MLP, hk.transform, adam
X = jnp.asarray(rng.randn(32, 5).astype(np.float32))
Y = jnp.asarray(rng.randn(32, 2).astype(np.float32))
mlp = hk.without_apply_rng(hk.transform(lambda x: hk.nets.MLP([16, 16, 2])(x)))
params = mlp.init(jax.random.PRNGKey(0), X)
res["mlp_param_sum"] = float(sum(jnp.sum(p) for p in jax.tree_util.tree_leaves(params)))
res["mlp_shapes"] = [list(p.shape) for p in jax.tree_util.tree_leaves(params)]


def mse(p, x, y):
    return jnp.mean((mlp.apply(p, x) - y) ** 2)


opt = optax.adam(1e-2)
state = opt.init(params)


@jax.jit
def mlp_step(p, s, x, y):
    l, g = jax.value_and_grad(mse)(p, x, y)
    u, s = opt.update(g, s, p)
    return optax.apply_updates(p, u), s, l


losses = []
for _ in range(15):
    params, state, l = mlp_step(params, state, X, Y)
    losses.append(float(l))
res["mlp_losses"] = losses


# ---- a CNN with BatchNorm state and dropout, hk.transform_with_state
def cnn(x, is_training):
    x = hk.Conv2D(8, kernel_shape=3)(x)
    x = hk.BatchNorm(create_scale=True, create_offset=True, decay_rate=0.9)(x, is_training)
    x = jax.nn.relu(x)
    x = hk.max_pool(x, window_shape=2, strides=2, padding="VALID")
    x = hk.Conv2D(4, kernel_shape=3, stride=2, padding="SAME")(x)
    x = hk.Flatten()(x)
    if is_training:
        x = hk.dropout(hk.next_rng_key(), 0.25, x)
    return hk.Linear(3)(x)


net = hk.transform_with_state(cnn)
imgs = jnp.asarray(rng.rand(8, 8, 8, 2).astype(np.float32))
labels = jnp.asarray(rng.randint(0, 3, size=8))
cparams, cstate = net.init(jax.random.PRNGKey(1), imgs, True)
res["cnn_state_sizes"] = [int(v.size) for v in jax.tree_util.tree_leaves(cstate)]


def xent(p, s, key, x, y):
    logits, s = net.apply(p, s, key, x, True)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean(), s


copt = optax.sgd(0.02, momentum=0.9)
cos = copt.init(cparams)


@jax.jit
def cnn_step(p, s, o, key, x, y):
    (l, s), g = jax.value_and_grad(xent, has_aux=True)(p, s, key, x, y)
    u, o = copt.update(g, o, p)
    return optax.apply_updates(p, u), s, o, l


key = jax.random.PRNGKey(2)
closs = []
for _ in range(6):
    key, sub = jax.random.split(key)
    cparams, cstate, cos, l = cnn_step(cparams, cstate, cos, sub, imgs, labels)
    closs.append(float(l))
res["cnn_losses"] = closs
res["bn_mean_ema"] = np.asarray(
    cstate["batch_norm/~/mean_ema"]["average"]).ravel().tolist()
eval_logits, _ = net.apply(cparams, cstate, None, imgs, False)
res["cnn_eval_logits"] = np.asarray(eval_logits[:2]).ravel().tolist()


# ---- an LSTM unrolled over time with hk.dynamic_unroll
def seq_model(xs):
    core = hk.LSTM(6)
    outs, _ = hk.dynamic_unroll(core, xs, core.initial_state(xs.shape[1]))
    return hk.Linear(1)(outs[-1])


seq = hk.without_apply_rng(hk.transform(seq_model))
xs = jnp.asarray(rng.randn(7, 4, 3).astype(np.float32))  # [time, batch, features]
ys = jnp.asarray(rng.randn(4, 1).astype(np.float32))
sparams = seq.init(jax.random.PRNGKey(3), xs)
res["lstm_out"] = np.asarray(seq.apply(sparams, xs)).ravel().tolist()
sgrad = jax.grad(lambda p: jnp.mean((seq.apply(p, xs) - ys) ** 2))(sparams)
res["lstm_grad_norm"] = float(optax.global_norm(sgrad))


# ---- hk.scan over a shared layer and hk.remat around a block, with their gradients
def scanned_model(xs):
    lin = hk.Linear(3)

    def step(c, x):
        c = jnp.tanh(lin(c) + x)
        return c, jnp.sum(c)

    c, ys = hk.scan(step, jnp.zeros((xs.shape[1], 3)), xs)
    block = hk.remat(lambda v: hk.nets.MLP([4, 3], activation=jnp.sin)(v))
    return jnp.sum(block(c)) + jnp.sum(ys)


sc = hk.without_apply_rng(hk.transform(scanned_model))
zs = jnp.asarray(rng.randn(5, 2, 3).astype(np.float32))  # [time, batch, features]
scparams = sc.init(jax.random.PRNGKey(4), zs)
res["scan_remat_out"] = float(sc.apply(scparams, zs))
scgrad = jax.jit(jax.grad(sc.apply))(scparams, zs)
res["scan_remat_grad"] = [float(jnp.sum(g)) for g in jax.tree_util.tree_leaves(scgrad)]
print(json.dumps(res))
