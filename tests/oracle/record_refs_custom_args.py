"""A mutable array reference (`jax.new_ref`) passed as an *argument* to a `custom_jvp`
/ `custom_vjp` function -- read or written in the function, read in its rules, kept as
a residual and written by `bwd`, with `nondiff_argnums` and `symbolic_zeros` -- under
`jit`, `grad`, `jvp`, `vjp`, `vmap`, `checkpoint` and a `scan` body, and a reference
created inside a differentiated function passed on (issue 13); and programs of the
kind a user writes mixing references, PRNG keys and custom derivatives with `jit`,
`grad`, `vmap` and `scan` (`USER`: optimizer state in a Ref, a key threaded through a
scan with a custom_vjp inside, a gradient tap, a key or an array in `nondiff_argnums`).
Recorded from JAX 0.10.2: the results and the references' final values, or the builtin
class of JAX's error.

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`, `J.lax`); run
with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_refs_custom_args.py`
writes refs_custom_args.json; `tests/test_refs_custom_args.py` runs the same cases on
astjax.
"""
import functools
import json
from pathlib import Path

from record_refs_custom import _v, run

HERE = Path(__file__).resolve().parent


def jvp_read(J, nd=False, sz=False):
    @functools.partial(J.jax.custom_jvp, nondiff_argnums=(1,) if nd else ())
    def f(x, r):
        return x * r[...]

    if nd:
        f.defjvp(lambda r, p, t: (f(p[0], r), t[0] * r[...]))
    else:
        f.defjvp(lambda p, t: (f(*p), t[0] * p[1][...]), symbolic_zeros=sz)
    return f


def jvp_write(J):
    @J.jax.custom_jvp
    def f(x, r):
        r[...] = x
        return x * 2

    @f.defjvp
    def f_jvp(p, t):
        return f(*p), t[0] * 2
    return f


def jvp_tangent_ref(J):
    """The rule reads and writes the reference's tangent (a reference holding zeros)."""
    @J.jax.custom_jvp
    def f(x, r):
        return x * r[...]

    @f.defjvp
    def f_jvp(p, t):
        z = t[1][...]
        t[1][...] = z + 5.0
        return f(*p), t[0] * p[1][...] + z
    return f


def vjp_read(J, nd=False, sz=False):
    @functools.partial(J.jax.custom_vjp, nondiff_argnums=(1,) if nd else ())
    def f(x, r):
        return x * r[...]

    if nd:
        f.defvjp(lambda x, r: (f(x, r), r[...]), lambda r, res, g: (g * res,))
    elif sz:
        f.defvjp(lambda x, r: (f(x.value, r.value), r.value[...]),
                 lambda res, g: (g * res, None), symbolic_zeros=True)
    else:
        f.defvjp(lambda x, r: (f(x, r), r[...]), lambda res, g: (g * res, None))
    return f


def vjp_write(J):
    @J.jax.custom_vjp
    def f(x, r):
        r[...] = x
        return x * 2

    def fwd(x, r):
        r[...] = x + 100
        return x * 2, None

    f.defvjp(fwd, lambda res, g: (g * 2, None))
    return f


def vjp_bwd_ref(J):
    """fwd keeps the reference as a residual; bwd adds the cotangent into it."""
    @J.jax.custom_vjp
    def f(x, r):
        return x * 2

    def bwd(res, g):
        res[...] += g
        return (g * 2, None)

    f.defvjp(lambda x, r: (x * 2, r), bwd)
    return f


def vjp_ct_for_ref(J):
    """bwd returns a value (not None) for the reference argument."""
    @J.jax.custom_vjp
    def f(x, r):
        return x * r[...]

    f.defvjp(lambda x, r: (f(x, r), r[...]), lambda res, g: (g * res, g))
    return f


def _scan_grad(J, f, r):
    def loop(x):
        return J.lax.scan(lambda c, _: (f(c, r), None), x, None, length=2)[0]
    return J.jax.grad(loop)(3.0)


def _inner(J, f, wrap):
    def g(x):
        q = J.jax.new_ref(x * 5)
        return f(x, q) + q[...]
    return wrap(g)(3.0)


RUNS = {
    "eager": lambda J, f, r: f(3.0, r),
    "jit": lambda J, f, r: J.jax.jit(f)(3.0, r),
    "grad": lambda J, f, r: J.jax.grad(f)(3.0, r),
    "jit_grad": lambda J, f, r: J.jax.jit(J.jax.grad(f))(3.0, r),
    "jvp": lambda J, f, r: J.jax.jvp(lambda x: f(x, r), (3.0,), (1.0,)),
    "vjp": lambda J, f, r: J.jax.vjp(lambda x: f(x, r), 3.0)[1](1.0),
    "vmap": lambda J, f, r: J.jax.vmap(f, in_axes=(0, None))(J.jnp.array([1.0, 3.0]), r),
    "vmap_grad": lambda J, f, r: J.jax.vmap(J.jax.grad(f), in_axes=(0, None))(
        J.jnp.array([1.0, 3.0]), r),
    "vmap_mapped": lambda J, f, r: J.jax.vmap(f)(J.jnp.array([3.0, 4.0]), r),
    "checkpoint_grad": lambda J, f, r: J.jax.grad(J.jax.checkpoint(f))(3.0, r),
    "scan_grad": _scan_grad,
    "inner_eager": lambda J, f, r: _inner(J, f, lambda g: g),
    "inner_grad": lambda J, f, r: _inner(J, f, J.jax.grad),
    "inner_jit": lambda J, f, r: _inner(J, f, J.jax.jit),
}

MAKERS = {
    "jvp_read": jvp_read, "jvp_write": jvp_write, "jvp_tangent_ref": jvp_tangent_ref,
    "jvp_nondiff": functools.partial(jvp_read, nd=True),
    "jvp_symbolic_zeros": functools.partial(jvp_read, sz=True),
    "vjp_read": vjp_read, "vjp_write": vjp_write, "vjp_bwd_ref": vjp_bwd_ref,
    "vjp_ct_for_ref": vjp_ct_for_ref, "vjp_nondiff": functools.partial(vjp_read, nd=True),
    "vjp_symbolic_zeros": functools.partial(vjp_read, sz=True),
}

ALL = tuple(RUNS)
SOME = ("eager", "jit", "grad", "jit_grad", "vmap")
GRID = {"jvp_read": ALL, "jvp_write": ALL, "vjp_read": ALL, "vjp_write": ALL,
        "vjp_bwd_ref": ("eager", "jit", "grad", "jit_grad", "vjp", "vmap", "scan_grad",
                        "inner_eager", "inner_grad", "inner_jit"),
        "jvp_tangent_ref": ("grad", "jit_grad", "jvp"),
        "jvp_nondiff": SOME, "vjp_nondiff": SOME, "jvp_symbolic_zeros": SOME,
        "vjp_symbolic_zeros": SOME, "vjp_ct_for_ref": ("grad", "jit_grad")}


def _case(maker, how):
    def case(J):
        init = J.jnp.array([1.0, 2.0]) if how == "vmap_mapped" else J.jnp.float32(2.0)
        r = J.jax.new_ref(init)
        out = RUNS[how](J, MAKERS[maker](J), r)
        return [_v(o) for o in J.jax.tree_util.tree_leaves(out)] + [_v(r[...])]
    case.__name__ = f"{maker}_{how}"
    return case


# ------------------------------------------------- programs of the kind a user writes
# (optimizer state in a Ref, a PRNG key threaded through a scan with a custom_vjp
# inside, a gradient tap, ...): their results, or the builtin class of JAX's error


def _clip_grad(J):
    """The identity, its cotangent clipped to [-1, 1] (a custom_vjp)."""
    @J.jax.custom_vjp
    def clip(x):
        return x

    clip.defvjp(lambda x: (x, None), lambda _, g: (J.jnp.clip(g, -1.0, 1.0),))
    return clip


def _softplus(J):
    """softplus with its own jvp (a custom_jvp)."""
    @J.jax.custom_jvp
    def softplus(x):
        return J.jnp.logaddexp(x, 0.0)

    softplus.defjvp(lambda p, t: (softplus(p[0]), t[0] / (1.0 + J.jnp.exp(-p[0]))))
    return softplus


def _quadratic(J, p):
    return J.jnp.sum((p - J.jnp.array([1.0, -2.0])) ** 2)


def user_momentum_closed_ref(J):
    """Momentum in a Ref a jitted step closes over; three steps."""
    m = J.jax.new_ref(J.jnp.zeros(2))

    @J.jax.jit
    def step(p):
        m[...] = 0.9 * m[...] + J.jax.grad(lambda q: _quadratic(J, q))(p)
        return p - 0.1 * m[...]
    p = J.jnp.zeros(2)
    for _ in range(3):
        p = step(p)
    return [_v(p), _v(m[...])]


def user_momentum_ref_argument(J):
    """Momentum in a Ref passed to the jitted step; three steps."""
    @J.jax.jit
    def step(p, m):
        m[...] = 0.9 * m[...] + J.jax.grad(lambda q: _quadratic(J, q))(p)
        return p - 0.1 * m[...]
    m = J.jax.new_ref(J.jnp.zeros(2))
    p = J.jnp.zeros(2)
    for _ in range(3):
        p = step(p, m)
    return [_v(p), _v(m[...])]


def user_ema_dict_of_refs(J):
    """An exponential moving average of the parameters in a dict of Refs, updated in the
    jitted step after a gradient step."""
    def loss(params):
        return J.jnp.sum((params["w"] * 2.0 + params["b"] - 1.0) ** 2)

    @J.jax.jit
    def step(params, ema):
        g = J.jax.grad(loss)(params)
        params = J.jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, params, g)
        for name in ("w", "b"):
            ema[name][...] = 0.5 * ema[name][...] + 0.5 * params[name]
        return params
    params = {"w": J.jnp.ones(2), "b": J.jnp.float32(0.5)}
    ema = {"w": J.jax.new_ref(J.jnp.zeros(2)), "b": J.jax.new_ref(J.jnp.float32(0.0))}
    for _ in range(2):
        params = step(params, ema)
    return [_v(params["w"]), _v(params["b"]), _v(ema["w"][...]), _v(ema["b"][...])]


def _noisy_scan_loss(J):
    clip = _clip_grad(J)

    def loss(x, key):
        def body(c, _):
            k, acc = c
            k, s = J.jax.random.split(k)
            return (k, acc + clip(x * J.jax.random.normal(s)) ** 2), None
        (_, acc), _ = J.lax.scan(body, (key, 0.0), None, length=3)
        return acc
    return loss


def user_scan_key_custom_vjp_grad(J):
    """A key threaded through a scan whose body calls a custom_vjp: grad, eager."""
    return [_v(J.jax.grad(_noisy_scan_loss(J))(1.5, J.jax.random.key(0)))]


def user_scan_key_custom_vjp_jit_grad(J):
    """The same under jit(grad)."""
    return [_v(J.jax.jit(J.jax.grad(_noisy_scan_loss(J)))(1.5, J.jax.random.key(0)))]


def user_scan_key_custom_vjp_vmap_grad(J):
    """The same under vmap(grad) over split keys."""
    ks = J.jax.random.split(J.jax.random.key(4), 2)
    return [_v(J.jax.vmap(J.jax.grad(_noisy_scan_loss(J)), in_axes=(None, 0))(1.5, ks))]


def user_grad_tap_jit(J):
    """A custom_vjp identity whose bwd adds the cotangent into a Ref from outside,
    under jit(grad)."""
    tap = J.jax.new_ref(J.jnp.zeros(3))

    @J.jax.custom_vjp
    def probe(x):
        return x

    def bwd(_, g):
        tap[...] += g
        return (g,)
    probe.defvjp(lambda x: (x, None), bwd)
    g = J.jax.jit(J.jax.grad(lambda x: J.jnp.sum(J.jnp.sin(probe(x * 2.0)))))(
        J.jnp.arange(3.0))
    return [_v(g), _v(tap[...])]


def user_grad_tap_residual_ref_jit(J):
    """The tap Ref passed to the function and kept by fwd as its residual, under
    jit(grad): bwd adds the cotangent into it."""
    @J.jax.custom_vjp
    def probe(x, r):
        return x

    def bwd(r, g):
        r[...] += g
        return (g, None)
    probe.defvjp(lambda x, r: (x, r), bwd)
    tap = J.jax.new_ref(J.jnp.zeros(3))
    g = J.jax.jit(J.jax.grad(lambda x, r: J.jnp.sum(J.jnp.sin(probe(x * 2.0, r)))))(
        J.jnp.arange(3.0), tap)
    return [_v(g), _v(tap[...])]


def user_vmap_keys_custom_jvp(J):
    """vmap over split keys of a function applying a custom_jvp to a sample, and of its
    grad."""
    softplus = _softplus(J)

    def f(w, k):
        return softplus(w * J.jax.random.normal(k))
    ks = J.jax.random.split(J.jax.random.key(1), 3)
    return [_v(J.jax.vmap(f, in_axes=(None, 0))(0.5, ks)),
            _v(J.jax.vmap(J.jax.grad(f), in_axes=(None, 0))(0.5, ks))]


def user_scan_counter_ref_jit(J):
    """A Ref from outside counts a jitted scan's steps; the key is split per step."""
    n = J.jax.new_ref(J.jnp.float32(0.0))

    @J.jax.jit
    def run(key):
        def body(k, _):
            k, s = J.jax.random.split(k)
            n[...] += 1.0
            return k, J.jax.random.uniform(s)
        return J.lax.scan(body, key, None, length=4)[1]
    ys = run(J.jax.random.key(2))
    return [_v(ys), _v(n[...])]


def user_ref_inside_grad_with_keys(J):
    """A Ref created inside the differentiated function accumulates noisy terms: grad
    and jit(grad)."""
    def f(x, k):
        acc = J.jax.new_ref(0.0 * x)
        ks = J.jax.random.split(k, 2)
        acc[...] += x * J.jax.random.normal(ks[0])
        acc[...] += J.jnp.sin(x) * J.jax.random.normal(ks[1])
        return acc[...]
    k = J.jax.random.key(3)
    return [_v(J.jax.grad(f)(2.0, k)), _v(J.jax.jit(J.jax.grad(f))(2.0, k))]


def user_checkpoint_sample_into_ref(J):
    """grad of a checkpointed function drawing a sample, which it also stores into a Ref
    from outside (a value not differentiated)."""
    log = J.jax.new_ref(J.jnp.float32(0.0))

    def f(x, k):
        z = J.jax.random.normal(k)
        log[...] = z
        return x * z
    g = J.jax.grad(J.jax.checkpoint(f))(2.0, J.jax.random.key(5))
    return [_v(g), _v(log[...])]


def user_custom_jvp_key_nondiff_jit_grad(J):
    """A custom_jvp taking a key in nondiff_argnums, under jit(grad)."""
    @functools.partial(J.jax.custom_jvp, nondiff_argnums=(1,))
    def noisy(x, k):
        return x + J.jax.random.normal(k)

    noisy.defjvp(lambda k, p, t: (noisy(p[0], k), t[0]))
    return [_v(J.jax.jit(J.jax.grad(lambda x, k: noisy(x, k) ** 2))(
        1.0, J.jax.random.key(6)))]


def _keyed_vjp(J):
    @functools.partial(J.jax.custom_vjp, nondiff_argnums=(1,))
    def noisy(x, k):
        return x * J.jax.random.uniform(k)

    noisy.defvjp(lambda x, k: (noisy(x, k), None), lambda k, _, g: (g * 2.0,))
    return noisy


def user_custom_vjp_key_nondiff_grad(J):
    """A custom_vjp taking a key in nondiff_argnums, under eager grad."""
    return [_v(J.jax.grad(_keyed_vjp(J))(1.0, J.jax.random.key(7)))]


def user_custom_vjp_key_nondiff_jit(J):
    """The same under jit: the key is a tracer there (JAX's UnexpectedTracerError)."""
    return [_v(J.jax.jit(_keyed_vjp(J))(1.0, J.jax.random.key(7)))]


def user_custom_vjp_array_nondiff_jit(J):
    """An array in a custom_vjp's nondiff_argnums, under jit."""
    @functools.partial(J.jax.custom_vjp, nondiff_argnums=(1,))
    def scale(x, s):
        return x * s

    scale.defvjp(lambda x, s: (x * s, None), lambda s, _, g: (g * s,))
    return [_v(J.jax.jit(scale)(1.0, J.jnp.float32(3.0)))]


def user_scan_ref_custom_vjp_jit_grad(J):
    """jit(grad) of a scan whose body calls a custom_vjp reading a Ref from outside (a
    learning-rate schedule), and writes the step count into another."""
    lr = J.jax.new_ref(J.jnp.float32(0.5))
    steps = J.jax.new_ref(J.jnp.float32(0.0))

    @J.jax.custom_vjp
    def scaled(x):
        return x * lr[...]

    scaled.defvjp(lambda x: (x * lr[...], lr[...]), lambda s, g: (g * s,))

    def loss(x):
        def body(c, _):
            steps[...] += 1.0
            return J.jnp.sin(scaled(c)), None
        return J.lax.scan(body, x, None, length=3)[0]
    g = J.jax.jit(J.jax.grad(loss))(1.0)
    return [_v(g), _v(lr[...]), _v(steps[...])]


USER = [user_momentum_closed_ref, user_momentum_ref_argument, user_ema_dict_of_refs,
        user_scan_key_custom_vjp_grad, user_scan_key_custom_vjp_jit_grad,
        user_scan_key_custom_vjp_vmap_grad, user_grad_tap_jit, user_grad_tap_residual_ref_jit,
        user_vmap_keys_custom_jvp, user_scan_counter_ref_jit, user_ref_inside_grad_with_keys,
        user_checkpoint_sample_into_ref, user_custom_jvp_key_nondiff_jit_grad,
        user_custom_vjp_key_nondiff_grad, user_custom_vjp_key_nondiff_jit,
        user_custom_vjp_array_nondiff_jit, user_scan_ref_custom_vjp_jit_grad]

CASES = {c.__name__: c for c in (_case(m, h) for m, hows in GRID.items() for h in hows)}
CASES.update((f.__name__, f) for f in USER)


def main():
    import types
    import jax
    import jax.numpy as jnp
    J = types.SimpleNamespace(jax=jax, jnp=jnp, lax=jax.lax)
    out = {"jax": jax.__version__, "cases": {n: run(c, J) for n, c in CASES.items()}}
    (HERE / "refs_custom_args.json").write_text(json.dumps(out, indent=1, sort_keys=True)
                                                + "\n")


if __name__ == "__main__":
    main()
