"""distrax: Normal, MultivariateNormalDiag, Categorical, a bijector chain (Tanh,
ScalarAffine, Block, MaskedCoupling), Transformed; log_prob, sample with a key,
entropy, kl_divergence; a small coupling flow trained with optax for a few steps."""
import json

import distrax
import jax
import jax.numpy as jnp
import numpy as np
import optax

out = {}
key = jax.random.key(0)

normal = distrax.Normal(loc=jnp.array([0.0, 1.0]), scale=jnp.array([1.0, 2.0]))
x = jnp.array([0.5, -0.3])
out["normal_log_prob"] = normal.log_prob(x).tolist()
out["normal_entropy"] = normal.entropy().tolist()
out["normal_cdf"] = normal.cdf(x).tolist()
out["normal_sample"] = normal.sample(seed=jax.random.key(1)).tolist()
s, lp = normal.sample_and_log_prob(seed=jax.random.key(2), sample_shape=(3,))
out["normal_sample_and_log_prob"] = [s.tolist(), lp.tolist()]
out["normal_kl"] = normal.kl_divergence(distrax.Normal(0.5, 1.5)).tolist()

mvn = distrax.MultivariateNormalDiag(loc=jnp.array([1.0, -1.0, 0.0]),
                                     scale_diag=jnp.array([0.5, 1.0, 2.0]))
mvn2 = distrax.MultivariateNormalDiag(loc=jnp.zeros(3), scale_diag=jnp.ones(3))
y = jnp.array([[0.0, 0.0, 0.0], [1.0, -1.0, 1.0]])
out["mvn_log_prob"] = mvn.log_prob(y).tolist()
out["mvn_entropy"] = float(mvn.entropy())
out["mvn_kl"] = float(mvn.kl_divergence(mvn2))
out["mvn_sample"] = mvn.sample(seed=jax.random.key(3), sample_shape=(2,)).tolist()
out["mvn_mean_stddev"] = [mvn.mean().tolist(), mvn.stddev().tolist()]

cat = distrax.Categorical(logits=jnp.array([0.1, 1.0, -0.5, 2.0]))
cat2 = distrax.Categorical(probs=jnp.array([0.25, 0.25, 0.25, 0.25]))
out["cat_log_prob"] = cat.log_prob(jnp.array([0, 3, 2])).tolist()
out["cat_entropy"] = float(cat.entropy())
out["cat_kl"] = float(cat.kl_divergence(cat2))
out["cat_sample"] = cat.sample(seed=jax.random.key(4), sample_shape=(6,)).tolist()
out["cat_mode_probs"] = [int(cat.mode()), cat.probs.tolist()]

# a bijector chain on 2-d values, and the distribution it transforms
chain = distrax.Chain([distrax.Block(distrax.Tanh(), 1),
                       distrax.Block(distrax.ScalarAffine(shift=0.5, scale=2.0), 1)])
z = jnp.array([0.3, -0.7])
fz, ldj = chain.forward_and_log_det(z)
out["chain_forward"] = fz.tolist()
out["chain_ldj"] = float(ldj)
out["chain_inverse"] = chain.inverse(fz).tolist()
base = distrax.MultivariateNormalDiag(jnp.zeros(2), jnp.ones(2))
td = distrax.Transformed(base, chain)
out["transformed_log_prob"] = float(td.log_prob(fz))
ts, tlp = td.sample_and_log_prob(seed=jax.random.key(5), sample_shape=(4,))
out["transformed_sample"] = [ts.tolist(), tlp.tolist()]


# a 2-layer masked coupling flow (affine conditioners, Tanh-squashed log-scales)
def conditioner(params):
    def fn(x):
        h = jnp.tanh(x @ params["w1"] + params["b1"])
        return h @ params["w2"] + params["b2"]
    return fn


def make_flow(params):
    layers = []
    for i, p in enumerate(params):
        mask = jnp.arange(2) % 2 == i % 2

        def bij(theta):
            shift, log_scale = theta[..., :2], jnp.tanh(theta[..., 2:])
            return distrax.ScalarAffine(shift=shift, log_scale=log_scale)

        layers.append(distrax.MaskedCoupling(mask=mask, conditioner=conditioner(p),
                                             bijector=bij))
    return distrax.Transformed(base, distrax.Chain(layers))


rng = np.random.default_rng(0)
params = [{"w1": jnp.asarray(rng.normal(size=(2, 8)) * 0.3, jnp.float32),
           "b1": jnp.zeros(8),
           "w2": jnp.asarray(rng.normal(size=(8, 4)) * 0.1, jnp.float32),
           "b2": jnp.zeros(4)} for _ in range(2)]
data = jnp.asarray(rng.normal(size=(64, 2)) * jnp.array([0.5, 2.0]) + jnp.array([1.0, -1.0]),
                   jnp.float32)


def loss(params):
    return -jnp.mean(make_flow(params).log_prob(data))


opt = optax.adam(1e-2)
state = opt.init(params)


@jax.jit
def step(params, state):
    value, grads = jax.value_and_grad(loss)(params)
    updates, state = opt.update(grads, state)
    return optax.apply_updates(params, updates), state, value


losses = []
for _ in range(5):
    params, state, value = step(params, state)
    losses.append(float(value))
out["flow_losses"] = losses
out["flow_final_loss"] = float(loss(params))
out["flow_sample"] = make_flow(params).sample(seed=jax.random.key(6), sample_shape=(3,)).tolist()
print(json.dumps(out))
