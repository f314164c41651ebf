"""A program over typed PRNG keys (`jax.random.key`), run on real JAX to record
`typed_keys.json`, and on astjax by tests/test_typed_keys.py."""
import json
import sys
from pathlib import Path

import numpy as np


def _scan_step(jax):
    def step(k, x):
        k, sub = jax.random.split(k)
        return k, jax.random.normal(sub) * x
    return step


def _fori_body(jax):
    def body(i, carry):
        k, acc = carry
        k, sub = jax.random.split(k)
        return k, acc + jax.random.uniform(sub)
    return body


def _while_body(jax):
    def body(carry):
        k, n, acc = carry
        k = jax.random.fold_in(k, n)
        return k, n + 1, acc + jax.random.normal(k)
    return body


def samplers(jax, jnp):
    """name -> a sampler of one typed key (each recorded eagerly and under jit)."""
    return {
        "bits": lambda k: jax.random.bits(k, (3,)),
        "uniform": lambda k: jax.random.uniform(k, (3,), minval=-1.0, maxval=2.0),
        "normal": lambda k: jax.random.normal(k, (2, 2)),
        "bernoulli": lambda k: jax.random.bernoulli(k, 0.3, (5,)).astype(jnp.int32),
        "randint": lambda k: jax.random.randint(k, (4,), 0, 10),
        "choice": lambda k: jax.random.choice(k, 10, (3,), replace=False),
        "permutation": lambda k: jax.random.permutation(k, 6),
        "truncated_normal": lambda k: jax.random.truncated_normal(k, -1.0, 1.0, (3,)),
        "categorical": lambda k: jax.random.categorical(k, jnp.array([0.1, 2.0, -1.0]), shape=(4,)),
        "gumbel": lambda k: jax.random.gumbel(k, (3,)),
        "exponential": lambda k: jax.random.exponential(k, (3,)),
        "laplace": lambda k: jax.random.laplace(k, (3,)),
        "logistic": lambda k: jax.random.logistic(k, (3,)),
        "rademacher": lambda k: jax.random.rademacher(k, (4,)),
        "cauchy": lambda k: jax.random.cauchy(k, (3,)),
        "lognormal": lambda k: jax.random.lognormal(k, shape=(3,)),
        "pareto": lambda k: jax.random.pareto(k, 2.0, (3,)),
        "rayleigh": lambda k: jax.random.rayleigh(k, 1.5, (3,)),
        "maxwell": lambda k: jax.random.maxwell(k, (3,)),
        "geometric": lambda k: jax.random.geometric(k, 0.3, (3,)),
        "orthogonal": lambda k: jax.random.orthogonal(k, 2),
        "multivariate_normal": lambda k: jax.random.multivariate_normal(
            k, jnp.zeros(2), jnp.eye(2), (2,)),
        "gamma": lambda k: jax.random.gamma(k, jnp.array([0.3, 1.0, 4.0])),
        "loggamma": lambda k: jax.random.loggamma(k, 0.2, (3,)),
        "beta": lambda k: jax.random.beta(k, 2.0, 3.0, (3,)),
        "dirichlet": lambda k: jax.random.dirichlet(k, jnp.array([1.0, 2.0, 0.5])),
        "chisquare": lambda k: jax.random.chisquare(k, 3.0, (3,)),
        "f": lambda k: jax.random.f(k, 3.0, 4.0, (3,)),
        "t": lambda k: jax.random.t(k, 5.0, (3,)),
        "generalized_normal": lambda k: jax.random.generalized_normal(k, 1.5, (3,)),
        "ball": lambda k: jax.random.ball(k, 3, p=1.5),
        "poisson": lambda k: jax.random.poisson(k, jnp.array([0.5, 3.0, 20.0, 0.0])),
        "binomial": lambda k: jax.random.binomial(k, jnp.array([5.0, 100.0, 30.0]),
                                                  jnp.array([0.3, 0.6, 0.9])),
        "multinomial": lambda k: jax.random.multinomial(k, 10.0, jnp.array([0.2, 0.3, 0.5])),
    }


def sample(jax, f, jitted=(False, True)):
    """`f` on key 3, eagerly and / or under jit (`jitted`), as nested lists."""
    return tuple(np.asarray((jax.jit(f) if j else f)(jax.random.key(3))).tolist()
                 for j in jitted)


def run(jax, jnp, lax, samples=True):
    """Every value as nested lists of numbers (typed keys through key_data); the
    samplers' (`sample_*`, `jit_*`) only when `samples`."""
    out = {}
    kd = jax.random.key_data
    k = jax.random.key(0)
    out["repr"] = repr(k)
    out["repr_split"] = repr(jax.random.split(k, 2))
    out["dtype"] = str(k.dtype)
    ks = jax.random.split(k, 4)
    out["split4"] = kd(ks).tolist()
    out["split_shape"] = [2, 3]
    out["split_2x3"] = kd(jax.random.split(jax.random.key(7), (2, 3))).tolist()
    out["fold_in"] = kd(jax.random.fold_in(k, 42)).tolist()
    out["index"] = kd(ks[1:3]).tolist()
    out["reshape"] = kd(ks.reshape(2, 2)[1, 0]).tolist()
    out["transpose"] = kd(ks.reshape(2, 2).T).tolist()
    out["wrap"] = kd(jax.random.wrap_key_data(jnp.array([3, 4], dtype=jnp.uint32))).tolist()
    out["from_raw"] = jax.random.uniform(jax.random.wrap_key_data(jax.random.PRNGKey(5)),
                                         (3,)).tolist()
    if samples:
        for name, f in samplers(jax, jnp).items():
            out["sample_" + name], out["jit_" + name] = sample(jax, f)
    out["vmap_gamma"] = jax.vmap(lambda k, a: jax.random.gamma(k, a, (2,)))(
        ks[:2], jnp.array([0.5, 2.0])).tolist()
    out["jit_split"] = kd(jax.jit(lambda k: jax.random.split(k, 3))(k)).tolist()
    out["vmap_normal"] = jax.vmap(lambda k: jax.random.normal(k, (2,)))(ks).tolist()
    out["vmap_split"] = kd(jax.vmap(lambda k: jax.random.split(k))(ks)).tolist()
    out["vmap_fold_in"] = kd(jax.vmap(jax.random.fold_in, in_axes=(None, 0))(
        k, jnp.arange(3))).tolist()
    out["grad"] = jax.grad(lambda x, k: jnp.sum(x * jax.random.normal(k, (2,))))(
        jnp.ones(2), k).tolist()
    out["jit_grad"] = jax.jit(jax.grad(lambda x, k: jnp.sum(jnp.sin(x) * jax.random.uniform(k, (2,)))))(
        jnp.ones(2), k).tolist()
    kf, acc = lax.fori_loop(0, 3, _fori_body(jax), (k, 0.0))
    out["fori"] = [kd(kf).tolist(), float(acc)]
    ke, xs = lax.scan(_scan_step(jax), k, jnp.arange(3.0))
    out["scan"] = [kd(ke).tolist(), xs.tolist()]
    kw, n, acc = lax.while_loop(lambda c: c[1] < 4, _while_body(jax), (k, 0, 0.0))
    out["while"] = [kd(kw).tolist(), int(n), float(acc)]
    kc = lax.cond(True, lambda k: jax.random.fold_in(k, 1), lambda k: k, k)
    out["cond"] = kd(kc).tolist()
    tree = jax.tree_util.tree_map(lambda x: x, {"a": k, "b": [ks]})
    out["tree_map"] = kd(tree["b"][0]).tolist()
    # a key array is one pytree leaf (not a node over its data)
    tu = jax.tree_util
    out["tree_leaves"] = [len(tu.tree_leaves({"a": k, "b": [ks]})),
                          str(tu.tree_leaves(k)[0].dtype), repr(tu.tree_structure(k)),
                          tu.tree_structure(k) == tu.tree_structure(1.0),
                          repr(tu.tree_structure({"k": ks, "x": 1.0}))]
    out["tree_map_leaf"] = [str(tu.tree_map(lambda x: x.dtype, {"a": k})["a"]),
                            kd(tu.tree_map(lambda x: jax.random.fold_in(x, 3), [k])[0]).tolist(),
                            tu.tree_map(lambda x: list(x.shape), ks)]
    out["tree_path"] = [tu.keystr(p) for p, _ in tu.tree_flatten_with_path({"k": k, "s": ks})[0]]
    out["jit_tree_map"] = kd(jax.jit(lambda t: tu.tree_map(
        lambda x: jax.random.fold_in(x, 5) if jnp.issubdtype(x.dtype, jax.dtypes.prng_key)
        else x, t))({"k": k, "x": 1.0})["k"]).tolist()
    out["vmap_split"] = kd(jax.vmap(lambda k: jax.random.split(k, 2))(ks)).tolist()
    out["vmap_tree"] = jax.vmap(lambda t: jax.random.normal(t["k"]) * t["x"])(
        {"k": ks, "x": jnp.arange(4.0)}).tolist()
    # negative in_axes / out_axes count key axes (the key data's axis is not one)
    k23 = ks[:3].reshape(1, 3)
    out["vmap_neg_axes"] = [
        jax.vmap(lambda k: jax.random.uniform(k[0]), in_axes=-1)(k23).tolist(),
        kd(jax.vmap(lambda k: jax.random.split(k, 2), out_axes=-1)(ks[:3])).tolist()]
    out["eval_shape"] = repr(jax.eval_shape(lambda k: jax.random.split(k, 3), k))
    out["stack_keys"] = kd(jnp.stack([ks[0], ks[2]], axis=-1)).tolist()
    out["concat_keys"] = kd(jnp.concatenate([ks, ks[:1]])).tolist()
    out["eq"] = np.asarray(ks == jax.random.split(k, 4)).tolist()
    out["issubdtype"] = [bool(jax.dtypes.issubdtype(k.dtype, jax.dtypes.prng_key)),
                         bool(jnp.issubdtype(k.dtype, jax.dtypes.prng_key)),
                         bool(jax.dtypes.issubdtype(jnp.uint32, jax.dtypes.prng_key)),
                         bool(k.dtype == jnp.uint32), isinstance(k, jax.Array)]
    out["shapes"] = [list(ks.shape), ks.ndim, ks.size, list(ks.reshape(2, 2)[0].shape),
                     len(ks), list(ks[None].shape)]
    return out


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax import lax
    assert "astjax" not in sys.modules
    result = run(jax, jnp, lax)
    Path(__file__).with_name("typed_keys.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {len(result)} values")
