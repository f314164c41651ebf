"""blackjax: NUTS and HMC chains on a 2-d Gaussian, window adaptation, RWMH, MALA."""
import json

import blackjax
import jax
import jax.numpy as jnp
import jax.scipy.stats as stats

out = {}
loc, scale = jnp.array([1.0, -2.0]), jnp.array([0.5, 2.0])


def logdensity(x):
    return jnp.sum(stats.norm.logpdf(x, loc, scale))


def run(kernel, key, state, n):
    def step(state, k):
        state, info = kernel.step(k, state)
        return state, (state.position, info.acceptance_rate if hasattr(info, "acceptance_rate") else info.is_accepted)
    return jax.lax.scan(step, state, jax.random.split(key, n))


x0 = jnp.zeros(2)
key = jax.random.key(0)
nuts = blackjax.nuts(logdensity, step_size=0.5, inverse_mass_matrix=jnp.ones(2))
_, (xs, acc) = jax.jit(lambda k: run(nuts, k, nuts.init(x0), 200))(key)
out["nuts_mean"] = xs.mean(0).tolist()
out["nuts_last"] = xs[-1].tolist()
out["nuts_acc"] = float(acc.mean())
hmc = blackjax.hmc(logdensity, step_size=0.3, inverse_mass_matrix=jnp.ones(2), num_integration_steps=10)
_, (xs, acc) = jax.jit(lambda k: run(hmc, k, hmc.init(x0), 200))(jax.random.key(1))
out["hmc_mean"] = xs.mean(0).tolist()
out["hmc_acc"] = float(acc.mean())
rw = blackjax.additive_step_random_walk.normal_random_walk(logdensity, sigma=jnp.array([0.5, 1.0]))
_, (xs, acc) = jax.jit(lambda k: run(rw, k, rw.init(x0), 300))(jax.random.key(2))
out["rwmh_mean"] = xs.mean(0).tolist()
mala = blackjax.mala(logdensity, step_size=0.1)
_, (xs, acc) = jax.jit(lambda k: run(mala, k, mala.init(x0), 200))(jax.random.key(3))
out["mala_mean"] = xs.mean(0).tolist()
warmup = blackjax.window_adaptation(blackjax.nuts, logdensity)
(state, params), _ = warmup.run(jax.random.key(4), x0, num_steps=100)
out["adapted_step_size"] = float(params["step_size"])
out["adapted_inv_mass"] = params["inverse_mass_matrix"].tolist()
out["adapted_position"] = state.position.tolist()
print(json.dumps(out))
