"""The PRNG implementations (threefry2x32, rbg, unsafe_rbg and a user-defined one) run
as one program on JAX or astjax: `run(jax, jnp, lax)` returns a dict of plain values.
`python record_prng_impls.py` (with JAX 0.10.2 installed) writes prng_impls.json, which
tests/test_prng_impls.py compares astjax against bit for bit."""
import json
import math
import sys
from pathlib import Path

import numpy as np

IMPLS = ("threefry2x32", "rbg", "unsafe_rbg")


def _mix(jnp, x):
    """A 32-bit integer hash (lowbias32) in uint32 arithmetic."""
    x = x ^ (x >> jnp.uint32(16))
    x = x * jnp.uint32(0x7FEB352D)
    x = x ^ (x >> jnp.uint32(15))
    x = x * jnp.uint32(0x846CA68B)
    return x ^ (x >> jnp.uint32(16))


def custom_impl(jax, jnp):
    """A small user-defined implementation, every function written in jax.numpy."""
    def seed(s):
        s = jnp.asarray(s).astype(jnp.uint32)
        return jnp.stack([_mix(jnp, s), _mix(jnp, s ^ jnp.uint32(0x9E3779B9))])

    def split(k, shape):
        i = jnp.arange(math.prod(shape), dtype=jnp.uint32)
        a = _mix(jnp, k[0] ^ (i * jnp.uint32(0x9E3779B9)))
        b = _mix(jnp, k[1] + i)
        return jnp.stack([a, b], axis=-1).reshape(*shape, 2)

    def random_bits(k, bit_width, shape):
        i = jnp.arange(math.prod(shape), dtype=jnp.uint32)
        w = _mix(jnp, k[0] + _mix(jnp, k[1] ^ i)).reshape(shape)
        return w if bit_width == 32 else w.astype(f"uint{bit_width}")

    def fold_in(k, d):
        d = jnp.asarray(d).astype(jnp.uint32)
        return jnp.stack([_mix(jnp, k[0] ^ d), _mix(jnp, k[1] + d)])

    return jax.extend.random.define_prng_impl(
        key_shape=(2,), seed=seed, split=split, random_bits=random_bits, fold_in=fold_in,
        name="mix32", tag="mix")


def _samples(jax, jnp, k):
    r = jax.random
    logits = jnp.array([0.1, 0.5, 1.0, -0.3])
    return {
        "bits": r.bits(k, (5,)),
        "bits8": r.bits(k, (6,), jnp.uint8),
        "bits16": r.bits(k, (3,), jnp.uint16),
        "uniform": r.uniform(k, (4,)),
        "normal": r.normal(k, (2, 2)),
        "randint": r.randint(k, (5,), 0, 100),
        "permutation": r.permutation(k, 7),
        "categorical": r.categorical(k, logits, shape=(6,)),
        "bernoulli": r.bernoulli(k, 0.4, (5,)).astype(jnp.int32),
        "choice": r.choice(k, 10, (3,), replace=False),
        "exponential": r.exponential(k, (3,)),
    }


def _tolist(tree):
    return {n: np.asarray(v).tolist() for n, v in tree.items()}


def _per_impl(jax, jnp, lax, impl, out, tag):
    r = jax.random
    kd = r.key_data
    k = r.key(42, impl=impl)
    out[f"{tag}/dtype"] = str(k.dtype)
    out[f"{tag}/seed"] = kd(k).tolist()
    out[f"{tag}/seed_big"] = kd(r.key(2 ** 31 + 5, impl=impl)).tolist()
    out[f"{tag}/split"] = kd(r.split(k, 3)).tolist()
    out[f"{tag}/split_2x2"] = kd(r.split(k, (2, 2))).tolist()
    out[f"{tag}/fold_in"] = kd(r.fold_in(k, 7)).tolist()
    out[f"{tag}/PRNGKey"] = np.asarray(r.PRNGKey(3, impl=impl)).tolist()
    out[f"{tag}/raw_split"] = np.asarray(
        r.split(r.PRNGKey(3, impl=impl), 2)).tolist() if impl == "threefry2x32" else None
    for name, v in _tolist(_samples(jax, jnp, k)).items():
        out[f"{tag}/eager/{name}"] = v
    for name, v in _tolist(jax.jit(lambda k: _samples(jax, jnp, k))(k)).items():
        out[f"{tag}/jit/{name}"] = v
    ks = r.split(k, 3)
    vm = jax.vmap(lambda k: {"u": r.uniform(k, (2,)), "n": r.normal(k, (2,)),
                             "i": r.randint(k, (2,), 0, 50),
                             "s": kd(r.split(k, 2)), "f": kd(r.fold_in(k, 3))})(ks)
    for name, v in _tolist(vm).items():
        out[f"{tag}/vmap/{name}"] = v
    out[f"{tag}/jit_split_fold"] = kd(jax.jit(lambda k, d: r.fold_in(r.split(k, 4)[2], d))(
        k, jnp.uint32(11))).tolist()
    out[f"{tag}/jit_seed"] = kd(jax.jit(lambda s: r.key(s, impl=impl))(9)).tolist()

    def body(i, carry):
        key, acc = carry
        key, sub = r.split(key)
        return key, acc + r.uniform(sub)
    kf, acc = lax.fori_loop(0, 4, body, (k, jnp.float32(0)))
    out[f"{tag}/fori"] = [kd(kf).tolist(), float(acc)]

    def step(key, x):
        key, sub = r.split(key)
        return key, r.normal(sub) + x
    ke, ys = lax.scan(step, k, jnp.arange(3.0))
    out[f"{tag}/scan"] = [kd(ke).tolist(), np.asarray(ys).tolist()]
    kc = lax.cond(True, lambda k: r.fold_in(k, 1), lambda k: r.fold_in(k, 2), k)
    out[f"{tag}/cond"] = kd(kc).tolist()
    out[f"{tag}/grad"] = float(jax.grad(lambda x, k: jnp.sum(x * r.normal(k, (2,))))(1.5, k))
    out[f"{tag}/tree"] = kd(jax.tree_util.tree_map(lambda k: r.fold_in(k, 5), {"a": [k]})["a"][0]
                            ).tolist()
    out[f"{tag}/binomial"] = np.asarray(r.binomial(k, jnp.array([5.0, 40.0]),
                                                   jnp.array([0.3, 0.6]))).tolist()
    out[f"{tag}/wrap"] = r.uniform(r.wrap_key_data(kd(k), impl=impl), (2,)).tolist()
    out[f"{tag}/key_impl"] = str(r.key_impl(k))


# the sections of the program: each implementation's, and the default-impl flag's
SECTIONS = IMPLS + ("custom", "defaults")


def run_section(jax, jnp, lax, section, out):
    """Record one section of SECTIONS into `out`."""
    if section in IMPLS:
        _per_impl(jax, jnp, lax, section, out, section)
    elif section == "custom":
        mine = custom_impl(jax, jnp)
        _per_impl(jax, jnp, lax, mine, out, "custom")
        out["custom/key_impl"] = repr(jax.random.key_impl(jax.random.key(0, impl=mine)))
    else:
        _defaults(jax, out)


def _defaults(jax, out):
    with jax.default_prng_impl("rbg"):
        raw = jax.random.PRNGKey(5)
        out["default_rbg/PRNGKey"] = np.asarray(raw).tolist()
        out["default_rbg/uniform_raw"] = jax.random.uniform(raw, (3,)).tolist()
        out["default_rbg/split_raw"] = np.asarray(jax.random.split(raw)).tolist()
        out["default_rbg/key_dtype"] = str(jax.random.key(0).dtype)
    jax.config.update("jax_default_prng_impl", "unsafe_rbg")
    try:
        out["default_urbg/normal_raw"] = jax.random.normal(jax.random.PRNGKey(1), (2,)).tolist()
        out["default_urbg/key_impl_raw"] = str(jax.random.key_impl(jax.random.PRNGKey(1)))
    finally:
        jax.config.update("jax_default_prng_impl", "threefry2x32")


def section_of(name):
    """The section of SECTIONS that records the value `name`."""
    tag = name.split("/")[0]
    return "defaults" if tag.startswith("default_") else tag


def run(jax, jnp, lax):
    out = {}
    for section in SECTIONS:
        run_section(jax, jnp, lax, section, out)
    return out


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax import lax
    import jax.extend.random  # noqa: F401
    result = run(jax, jnp, lax)
    Path(__file__).with_name("prng_impls.json").write_text(json.dumps(result, indent=0))
    print(len(result), "values", file=sys.stderr)
