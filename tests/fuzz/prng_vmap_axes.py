"""Sweep: PRNG functions under (nested, jitted) vmap with moved axes, JAX vs astjax.

rbg/unsafe_rbg results depend on the layout batching leaves keys in, so every
implementation x sampler x in_axes/out_axes case is compared with JAX 0.10.2:
    /work/jaxref/bin/python tests/fuzz/prng_vmap_axes.py jax /tmp/j.json
    .venv/bin/python tests/fuzz/prng_vmap_axes.py astjax /tmp/a.json
    python3 tests/fuzz/prng_vmap_axes.py compare /tmp/j.json /tmp/a.json
(cases both reject, a key array where one key is needed, count as agreeing).
"""
import warnings; warnings.simplefilter("ignore")
import collections, json, sys

import numpy as np


def compare(a_path, b_path):
    """Print the count of agreeing cases and every disagreeing one."""
    a, b = json.load(open(a_path)), json.load(open(b_path))
    cnt, bad = collections.Counter(), []
    for k, x in a.items():
        y = b.get(k)
        if isinstance(x, str) or isinstance(y, str):
            ok = isinstance(x, str) and isinstance(y, str)
        else:
            x, y = np.array(x), np.array(y)
            ok = x.shape == y.shape and np.allclose(x, y, rtol=1e-6, atol=0)
        cnt[ok] += 1
        if not ok:
            bad.append(k)
    print(dict(cnt), *bad, sep="\n")


if sys.argv[1] == "compare":
    compare(sys.argv[2], sys.argv[3])
    sys.exit()
if sys.argv[1] == "jax":
    import jax
else:
    import astjax as jax
r = jax.random
FUNS = {
    "bits": lambda k: r.bits(k, (2,)),
    "split": lambda k: r.key_data(r.split(k, 2)),
    "fold_in": lambda k: r.key_data(r.fold_in(k, 7)),
    "uniform": lambda k: r.uniform(k, (2,)),
    "normal": lambda k: r.normal(k, (2,)),
    "randint": lambda k: r.randint(k, (2,), 0, 1000),
    "key_data": lambda k: r.key_data(k),
    "gamma": lambda k: r.gamma(k, 2.0, (2,)),
    "choice": lambda k: r.choice(k, 10, (3,)),
    "permutation": lambda k: r.permutation(k, 5),
    "bernoulli": lambda k: r.bernoulli(k, 0.5, (4,)).astype(np.int32),
    "categorical": lambda k: r.categorical(k, np.zeros(6, np.float32), shape=(2,)),
    "exponential": lambda k: r.exponential(k, (2,)),
    "split_idx": lambda k: r.key_data(r.split(k, 3)[1]),
    "split_iter": lambda k: r.key_data(list(r.split(k))[1]),
    "truncnorm": lambda k: r.truncated_normal(k, -1.0, 1.0, (2,)),
    "ball": lambda k: r.ball(k, 2, shape=(2,)),
}
out = {}
for impl in ["threefry2x32", "rbg", "unsafe_rbg"]:
    k2 = r.split(r.key(6, impl=impl), (2, 3))
    k3 = r.split(r.key(9, impl=impl), (2, 3, 2))
    for fn, f in FUNS.items():
        cases = {}
        for ia in (0, 1, -1):
            for oa in (0, 1, -1):
                cases[f"v{ia}{oa}"] = lambda ia=ia, oa=oa: jax.vmap(f, in_axes=ia, out_axes=oa)(k2)
                cases[f"vv{ia}{oa}"] = lambda ia=ia, oa=oa: jax.vmap(jax.vmap(f), in_axes=ia, out_axes=oa)(k2)
                cases[f"vvi{ia}{oa}"] = lambda ia=ia, oa=oa: jax.vmap(jax.vmap(f, in_axes=ia, out_axes=oa), in_axes=1)(k3)
                cases[f"jv{ia}{oa}"] = lambda ia=ia, oa=oa: jax.jit(jax.vmap(f, in_axes=ia, out_axes=oa))(k2)
        # fold_in with batched messages / broadcast keys
        cases["fold_msgs"] = lambda: r.key_data(jax.vmap(lambda m: r.fold_in(k2, m), out_axes=1)(np.arange(4, dtype=np.uint32)))
        cases["fold_kb_mb"] = lambda: r.key_data(jax.vmap(r.fold_in, in_axes=(1, 0))(k2, np.arange(3, dtype=np.uint32)))
        cases["fold_plain"] = lambda: r.key_data(r.fold_in(k2, 5))
        cases["fold_plain_arr"] = lambda: r.key_data(r.fold_in(k2, np.arange(3, dtype=np.uint32)))
        for name, c in cases.items():
            if name.startswith("fold") and fn != "fold_in":
                continue
            try:
                out[f"{impl}/{fn}/{name}"] = np.asarray(c()).tolist()
            except Exception as e:
                out[f"{impl}/{fn}/{name}"] = "ERR " + type(e).__name__
json.dump(out, open(sys.argv[2], "w"))
