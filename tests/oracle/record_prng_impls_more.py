"""JAX's threefry4x32, philox2x32 and philox4x32 implementations, and the gamma family
drawn from keys of every implementation, run as one program on JAX or astjax:
`run(jax, jnp, lax)` returns a dict of plain values. `python record_prng_impls_more.py`
(with JAX 0.10.2 installed) writes prng_impls_more.json, which
tests/test_prng_impls_more.py compares astjax against bit for bit. The per-implementation
program of record_prng_impls.py (seed / split / fold_in / bits / samplers, eager, jit,
vmap, loops, cond, grad) is run for the three new implementations too."""
import json
import sys
from pathlib import Path

import numpy as np

import record_prng_impls as base

NEW = ("threefry4x32", "philox2x32", "philox4x32")
EVERY = ("threefry2x32", "rbg", "unsafe_rbg") + NEW


def _bits64(jax, jnp, k):
    with jax.enable_x64(True):
        r = jax.random
        return {"bits64": [int(v) for v in np.asarray(r.bits(k, (3,), jnp.uint64))],
                "uniform64": np.asarray(r.uniform(k, (3,), jnp.float64)).tolist(),
                "jit_bits64": [int(v) for v in np.asarray(
                    jax.jit(lambda k: r.bits(k, (2, 2), jnp.uint64))(k)).ravel()]}


def _gammas(jax, jnp, k):
    r = jax.random
    a = jnp.array([0.3, 1.0, 2.5, 9.0])
    return {
        "gamma": r.gamma(k, a),
        "gamma_shape": r.gamma(k, 2.0, (2, 3)),
        "loggamma": r.loggamma(k, a),
        "beta": r.beta(k, a, 1.5),
        "dirichlet": r.dirichlet(k, jnp.array([0.5, 1.0, 3.0]), (2,)),
        "chisquare": r.chisquare(k, a),
        "f": r.f(k, 3.0, a),
        "t": r.t(k, a),
        "generalized_normal": r.generalized_normal(k, 1.5, (3,)),
        "ball": r.ball(k, 3, 2, (2,)),
    }


def _per_impl_gamma(jax, jnp, lax, impl, out, tag):
    r = jax.random
    k = r.key(7, impl=impl)
    for name, v in base._tolist(_gammas(jax, jnp, k)).items():
        out[f"{tag}/gamma_eager/{name}"] = v
    out[f"{tag}/gamma_jit/beta"] = np.asarray(
        jax.jit(lambda k, al: jax.random.beta(k, al, 1.5))(k, jnp.array([0.7, 3.0]))).tolist()
    ks = r.split(k, 3)
    a = jnp.array([0.5, 2.0, 4.0])
    out[f"{tag}/gamma_vmap_keys"] = np.asarray(
        jax.vmap(lambda k: r.gamma(k, a))(ks)).tolist()
    out[f"{tag}/gamma_vmap_alpha"] = np.asarray(
        jax.vmap(lambda al: r.gamma(k, al, (2,)))(a)).tolist()
    out[f"{tag}/beta_vmap_both"] = np.asarray(
        jax.vmap(lambda k, al: r.beta(k, al, 2.0))(ks, a)).tolist()
    out[f"{tag}/gamma_grad"] = np.asarray(
        jax.grad(lambda al: jnp.sum(r.gamma(k, al)))(a)).tolist()
    out[f"{tag}/loggamma_grad"] = np.asarray(
        jax.grad(lambda al: jnp.sum(r.loggamma(k, al)))(a)).tolist()

    def step(key, x):
        key, sub = r.split(key)
        return key, r.gamma(sub, x + 1.0)
    ke, ys = lax.scan(step, k, jnp.arange(3.0))
    out[f"{tag}/gamma_scan"] = [r.key_data(ke).tolist(), np.asarray(ys).tolist()]
    out[f"{tag}/gamma_cond"] = float(lax.cond(
        True, lambda k: r.gamma(k, 3.0), lambda k: r.beta(k, 2.0, 2.0), k))
    try:
        r.poisson(k, 3.0)
        out[f"{tag}/poisson"] = "ok"
    except NotImplementedError as e:   # the message (astjax's str(e) also has its location)
        out[f"{tag}/poisson"] = getattr(e, "message", str(e))


# the sections of the program, most needed first: the recorder saves after each one, and
# the test runs the ones it finds stored
SECTIONS = tuple(f"impl:{i}" for i in NEW) + tuple(
    f"gamma:{i}" for i in NEW + ("rbg", "unsafe_rbg", "custom", "threefry2x32"))


def _impl_section(jax, jnp, lax, impl, out):
    base._per_impl(jax, jnp, lax, impl, out, impl)
    for name, v in _bits64(jax, jnp, jax.random.key(42, impl=impl)).items():
        out[f"{impl}/{name}"] = v
    out[f"{impl}/seed_neg"] = jax.random.key_data(jax.random.key(-3, impl=impl)).tolist()
    out[f"{impl}/seed_u8"] = jax.random.key_data(
        jax.random.key(np.uint8(200), impl=impl)).tolist()
    with jax.default_prng_impl(impl):
        raw = jax.random.PRNGKey(5)
        out[f"default_{impl}/PRNGKey"] = np.asarray(raw).tolist()
        out[f"default_{impl}/uniform_raw"] = jax.random.uniform(raw, (3,)).tolist()
        out[f"default_{impl}/split_raw"] = np.asarray(jax.random.split(raw)).tolist()
        out[f"default_{impl}/key_dtype"] = str(jax.random.key(0).dtype)


def run_section(jax, jnp, lax, section, out):
    """Record one section of SECTIONS into `out`."""
    kind, impl = section.split(":")
    if kind == "impl":
        _impl_section(jax, jnp, lax, impl, out)
    else:
        spec = base.custom_impl(jax, jnp) if impl == "custom" else impl
        _per_impl_gamma(jax, jnp, lax, spec, out, impl)


_GAMMA_VALUES = ("gamma_", "beta_vmap_both", "loggamma_grad", "poisson")


def section_of(name):
    """The section of SECTIONS that records the value `name`."""
    tag, rest = name.split("/", 1)
    if tag.startswith("default_"):
        return "impl:" + tag[len("default_"):]
    return ("gamma:" if rest.startswith(_GAMMA_VALUES) else "impl:") + tag


def run(jax, jnp, lax, sections=SECTIONS):
    out = {}
    for section in sections:
        run_section(jax, jnp, lax, section, out)
    return out


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax import lax
    import jax.extend.random  # noqa: F401
    path = Path(__file__).with_name("prng_impls_more.json")
    stored = json.loads(path.read_text()) if path.exists() else {}
    for section in sys.argv[1:] or SECTIONS:
        run_section(jax, jnp, lax, section, stored)
        stored["_sections"] = sorted(set(stored.get("_sections", [])) | {section})
        path.write_text(json.dumps(stored, indent=0))
        print(section, len(stored), "values", file=sys.stderr, flush=True)
