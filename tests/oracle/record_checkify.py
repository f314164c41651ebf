"""Programs over `jax.experimental.checkify`, run on real JAX to record
`checkify.json` (each case's error message or None, and its outputs), and on astjax
by tests/test_checkify.py."""
import json
import sys
from pathlib import Path

import numpy as np


def cases(jax, jnp, lax, checkify):
    """name -> (function, arguments, errors)."""

    def f(x, i):
        checkify.check(x.sum() > 0, "sum must be positive, got {s} and {t}", s=x.sum(), t=i)
        y = jnp.log(x)
        return x[i], 1 // i, jnp.sin(x / 0.0)

    def pos(x):
        checkify.check(x > 0, "pos {}", x)
        return x * 2

    def scan_body(c, x):
        checkify.check(x < 2, "x too big {}", x)
        return c + x, c

    def scanned(xs):
        return lax.scan(scan_body, 0., xs)

    def conditional(x):
        def neg(x):
            checkify.check(x > -1, "neg {}", x)
            return x
        return lax.cond(x > 0, lambda x: x, neg, x)

    def looped(x):
        def body(c):
            checkify.check(c < 5, "c {}", c)
            return c + 1
        return lax.while_loop(lambda c: c < 10, body, x)

    def fori(x):
        def body(i, c):
            checkify.check(c < 100., "c={c} at i={i}", c=c, i=i)
            return c * 3.
        return lax.fori_loop(0, 6, body, x)

    def pred_check(x):
        def cond(c):
            checkify.check(c > -5, "cond saw {}", c)
            return c < 3
        return lax.while_loop(cond, lambda c: c + 1, x)

    def grad_fn(x):
        checkify.check(x > 0, "pos")
        return jnp.sin(x)

    def gather(x, idx):
        return x[idx]

    def dyn_update(x, i):
        return lax.dynamic_update_slice(x, jnp.ones(2), (i,))

    def kwargs_tree(x):
        checkify.check(jnp.all(x["a"] < 1), "tree {a} {b}", a=x["a"], b=x["b"])
        return x["a"] + x["b"]

    def custom(x):
        @jax.custom_jvp
        def g(x):
            checkify.check(x < 1, "custom {}", x)
            return jnp.exp(x)

        @g.defjvp
        def g_jvp(p, t):
            return g(p[0]), t[0] * jnp.exp(p[0])
        return g(x)

    def nan_then_user(x):   # JAX reports a failed user check before an earlier NaN
        y = jnp.log(x)
        checkify.check(x > -5, "user {x}", x=x)
        return y

    def user_nan_user(x):
        checkify.check(x > -5, "first {x}", x=x)
        y = jnp.log(x)
        checkify.check(x > -3, "second")
        return y

    def scan_nan_then_user(xs):
        def body(carry, x):
            y = jnp.log(x)
            checkify.check(x > -5, "in scan {x}", x=x)
            return carry + y, y
        return lax.scan(body, 0.0, xs)

    f32, i32 = jnp.float32, jnp.int32
    v = jnp.array([-1.0, 2.0])
    out = {}
    for name, errs in [("user", checkify.user_checks), ("nan", checkify.nan_checks),
                       ("index", checkify.index_checks), ("div", checkify.div_checks),
                       ("float", checkify.float_checks), ("all", checkify.all_checks)]:
        out[f"f_{name}_5"] = (f, (v, i32(5)), errs)
        out[f"f_{name}_0"] = (f, (v, i32(0)), errs)
    out.update({
        "pos_fail": (pos, (f32(-1.0),), checkify.user_checks),
        "pos_ok": (pos, (f32(3.0),), checkify.user_checks),
        "scan": (scanned, (jnp.arange(4.),), checkify.user_checks),
        "cond": (conditional, (f32(-3.),), checkify.user_checks),
        "cond_ok": (conditional, (f32(3.),), checkify.user_checks),
        "while": (looped, (i32(0),), checkify.user_checks),
        "fori": (fori, (f32(1.),), checkify.user_checks),
        "while_pred": (pred_check, (i32(-7),), checkify.user_checks),
        "gather": (gather, (jnp.arange(5.), jnp.array([1, 7, 2])), checkify.index_checks),
        "gather_neg": (gather, (jnp.arange(5.), jnp.array([1, -7])), checkify.index_checks),
        "dyn_update": (dyn_update, (jnp.zeros(4), i32(3)), checkify.index_checks),
        "kwargs_tree": (kwargs_tree, ({"a": jnp.array([0.5, 2.0]), "b": f32(1.)},),
                        checkify.user_checks),
        "custom_jvp": (custom, (f32(2.),), checkify.user_checks),
        "nan_then_user": (nan_then_user, (f32(-10.),), checkify.all_checks),
        "nan_then_user_passing": (nan_then_user, (f32(-1.),), checkify.all_checks),
        "user_nan_user": (user_nan_user, (f32(-4.),), checkify.all_checks),
        "scan_nan_then_user": (scan_nan_then_user, (jnp.array([1., -1., -10.]),),
                               checkify.all_checks),
    })
    return out


def run(jax, jnp, lax, checkify):
    """Every case's message and outputs, under checkify, jit(checkify),
    checkify(jit) and the vmap / grad compositions."""
    res = {}
    for name, (fn, args, errs) in cases(jax, jnp, lax, checkify).items():
        err, out = checkify.checkify(fn, errors=errs)(*args)
        res[name] = [err.get(), [np.asarray(o).tolist() for o in jax.tree_util.tree_leaves(out)]]
        err, _ = jax.jit(checkify.checkify(fn, errors=errs))(*args)
        res[name + "/jit_outside"] = err.get()
        err, _ = checkify.checkify(jax.jit(fn), errors=errs)(*args)
        res[name + "/jit_inside"] = err.get()
    c = cases(jax, jnp, lax, checkify)
    pos, grad_fn = c["pos_fail"][0], None
    xs = jnp.array([1., -2., -3.])
    res["vmap_of_checkify"] = jax.vmap(checkify.checkify(pos))(xs)[0].get()
    res["checkify_of_vmap"] = checkify.checkify(jax.vmap(pos))(xs)[0].get()

    def g(x):
        checkify.check(x > 0, "pos")
        return jnp.sin(x)
    res["checkify_of_grad"] = checkify.checkify(jax.grad(g))(jnp.float32(-1.0))[0].get()
    res["grad_value"] = float(checkify.checkify(jax.grad(g))(jnp.float32(0.5))[1])
    res["sets"] = [sorted(c.__name__ for c in s) for s in (
        checkify.user_checks, checkify.nan_checks, checkify.index_checks, checkify.div_checks,
        checkify.float_checks, checkify.automatic_checks, checkify.all_checks)]
    return res


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental import checkify
    assert "astjax" not in sys.modules
    result = run(jax, jnp, lax, checkify)
    Path(__file__).with_name("checkify.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {len(result)} values")
