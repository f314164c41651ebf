"""Reverse mode of `scan` stores what the backward pass reads once when it is the same
in every iteration, as JAX 0.10.2's `_scan_partial_eval` does: what the body computes
from the loop's consts alone is computed before the loop and passed to the backward
scan as a const, a residual that is a const or an `xs` slice is the operand itself,
and only the rest is stacked (one copy per iteration). Checked on the printed jaxpr
of `grad` -- of a scan, a nested scan, a `fori_loop`, a Python `for` under `jit`, a
scan under `vmap` -- against the residual shapes JAX's `make_jaxpr` prints (recorded
below with real jax 0.10.2), and on values against float64 finite differences."""
from collections import Counter

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp


@pytest.fixture
def x64_on():
    old = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", old)


def rnn(W, h0, xs):
    def body(h, x):
        M = W * 2.0                 # depends only on a constant of the loop
        h = jnp.tanh(M @ h + x)
        return h, h.sum()
    _, ys = jax.lax.scan(body, h0, xs)
    return ys.sum()


def cell(W, h, x):
    """One step: its `cos W` depends only on a constant of the loop."""
    return jnp.sin(jnp.cos(W) @ h) * x


def rnn_sin(W, h0, xs):
    def body(h, x):
        h = cell(W, h, x)
        return h, h.sum()
    h, ys = jax.lax.scan(body, h0, xs)
    return ys.sum() + h.sum()


def nested(W, h0, xs):          # xs: [T1, T2, d]
    def outer(h, xrow):
        def inner(g, x):
            return cell(W, g, x), None
        h, _ = jax.lax.scan(inner, h, xrow)
        return h, h.sum()
    _, ys = jax.lax.scan(outer, h0, xs)
    return ys.sum()


def fori(W, h0, xs):
    def body(i, h):
        return cell(W, h, xs[i])
    return jax.lax.fori_loop(0, xs.shape[0], body, h0).sum()


def python_for(W, h0, xs):
    h = h0
    for t in range(xs.shape[0]):     # a `scan` reading xs[t] as its xs
        h = cell(W, h, xs[t])
    return h.sum()


def vmapped(W, h0, xs):
    return jax.vmap(jax.grad(rnn_sin), in_axes=(0, None, None))(W, h0, xs)


_W, _H, _XS = np.full((3, 3), 0.5, np.float32), np.ones(3, np.float32), np.ones((5, 3), np.float32)
ARGS = {"rnn": (rnn, _W, _XS), "rnn_sin": (rnn_sin, _W, _XS),
        "nested": (nested, _W, np.ones((4, 5, 3), np.float32)), "fori": (fori, _W, _XS),
        "python_for": (python_for, _W, _XS), "vmapped": (vmapped, np.ones((2, 3, 3), np.float32), _XS)}

# JAX 0.10.2's stacked residuals (`stacked_residuals(jax.make_jaxpr(jax.grad(f))(...))`,
# `vmapped` unwrapped: it is a grad already); python_for: JAX's `lax.scan` of its body
JAX_STACKED = {"rnn": [(5, 3)] * 3, "rnn_sin": [(5, 3)] * 2, "nested": [(4, 5, 3)] * 2,
               "fori": [(5, 3)] * 3, "python_for": [(5, 3)] * 2, "vmapped": [(5, 2, 3)] * 2}
# (astjax's derivative of tanh keeps one residual, 1 - tanh(x)**2, where JAX's keeps two)
FEWER = {"rnn"}


def stacked_residuals(closed):
    """Shapes of the scan outputs another scan reads as its xs, in every (nested)
    jaxpr: what the forward pass stacks for the backward pass."""
    out = []

    def walk(j):
        made = {}
        for e in j.eqns:
            if e.primitive.name == "scan":
                n = e.params["num_consts"] + e.params["num_carry"]
                out.extend(tuple(x.aval.shape) for x in e.invars[n:]
                           if made.get(x, e) is not e)
                made.update((v, e) for v in e.outvars)
            for p in e.params.values():
                for q in (p if isinstance(p, (tuple, list)) else [p]):
                    if hasattr(q, "eqns"):
                        walk(getattr(q, "jaxpr", q))
    walk(closed.jaxpr)
    return sorted(out)


def _grad_jaxpr(name):
    f, w, xs = ARGS[name]
    g = f if name == "vmapped" else jax.jit(jax.grad(f))
    return jax.make_jaxpr(g)(w, _H, xs)


@pytest.mark.parametrize("name", sorted(ARGS))
def test_stacked_residuals_as_jax(name):
    """No residual computed from the loop's consts alone (the f32[3,3] `M`) is stacked;
    the stacked ones are JAX's."""
    ours, theirs = stacked_residuals(_grad_jaxpr(name)), JAX_STACKED[name]
    assert not Counter(ours) - Counter(theirs), (ours, theirs)
    if name not in FEWER:
        assert ours == theirs


def test_invariant_residual_is_computed_once_before_the_loop():
    """The issue's program: `M = W * 2.0` is computed before both scans and passed to
    the backward scan as a const, the forward scan reading it as a const too."""
    closed = jax.make_jaxpr(jax.grad(rnn))(_W, _H, _XS)
    top = closed.jaxpr.eqns
    scans = [e for e in top if e.primitive.name == "scan"]
    assert len(scans) == 2
    m = [e for e in top if e.primitive.name == "mul" and e.invars[0] is closed.jaxpr.invars[0]]
    assert len(m) == 1 and m[0].outvars[0].aval.shape == (3, 3)
    for e in scans:
        assert m[0].outvars[0] in e.invars[:e.params["num_consts"]]
        assert not any(b.primitive.name == "mul" and b.outvars[0].aval.shape == (3, 3)
                       and not e.params["reverse"] for b in e.params["jaxpr"].jaxpr.eqns)


def test_xs_and_const_residuals_are_the_operands():
    """A residual that is an `xs` slice is the xs operand itself (no stacked copy), one
    that is a const is the const operand."""
    def f(W, xs):
        def body(h, x):
            return W @ h * x, None
        return jax.lax.scan(body, jnp.ones(3), xs)[0].sum()
    closed = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(_W, _XS)
    w, xs = closed.jaxpr.invars
    back = [e for e in closed.jaxpr.eqns if e.primitive.name == "scan" and e.params["reverse"]]
    assert len(back) == 1
    nc, nk = back[0].params["num_consts"], back[0].params["num_carry"]
    assert w in back[0].invars[:nc]
    assert xs in back[0].invars[nc + nk:]
    assert stacked_residuals(closed) == [(5, 3)] * 2   # (h and W @ h, as JAX)


def _fd_grad(f, args, argnum, eps=1e-6):
    args = [np.asarray(a, np.float64) for a in args]
    g = np.zeros_like(args[argnum])
    for idx in np.ndindex(g.shape):
        hi = [a.copy() for a in args]
        lo = [a.copy() for a in args]
        hi[argnum][idx] += eps
        lo[argnum][idx] -= eps
        g[idx] = (float(f(*hi)) - float(f(*lo))) / (2 * eps)
    return g


@pytest.mark.parametrize("name", ["rnn", "rnn_sin", "nested", "fori", "python_for"])
def test_values_against_finite_differences(name, x64_on):
    f, w, xs = ARGS[name]
    rng = np.random.default_rng(0)
    args = [rng.normal(size=np.shape(a)) * 0.5 for a in (w, _H, xs)]
    grads = jax.jit(jax.grad(f, argnums=(0, 1, 2)))(*args)
    jf = jax.jit(f)
    for k in range(3):
        np.testing.assert_allclose(np.asarray(grads[k]), _fd_grad(jf, args, k),
                                   rtol=1e-6, atol=1e-8)


def test_vmapped_values():
    """The scan under vmap: each example's gradient is its own `grad`."""
    w = np.stack([_W, _W * -0.3])
    out = vmapped(w, _H, _XS)
    for b in range(2):
        np.testing.assert_array_equal(np.asarray(out[b]), np.asarray(jax.grad(rnn_sin)(w[b], _H, _XS)))


@pytest.mark.parametrize("policy", [None, "dots_saveable", "nothing_saveable",
                                    "everything_saveable"])
@pytest.mark.parametrize("where", ["body", "whole"])
def test_checkpoint_policies_keep_values(policy, where):
    """`checkpoint` of the body or of the whole function, with each policy: the same
    gradient as without it."""
    pol = policy and getattr(jax.checkpoint_policies, policy)

    def f(W, h0, xs):
        def body(h, x):
            h = cell(W, h, x)
            return h, h.sum()
        if where == "body":
            body = jax.checkpoint(body, policy=pol)
        h, ys = jax.lax.scan(body, h0, xs)
        return ys.sum() + h.sum()
    g = jax.checkpoint(f, policy=pol) if where == "whole" else f
    w, xs = _W * 0.7, np.linspace(0, 1, 15, dtype=np.float32).reshape(5, 3)
    want = jax.grad(rnn_sin, argnums=(0, 1, 2))(w, _H, xs)
    got = jax.grad(g, argnums=(0, 1, 2))(w, _H, xs)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@jax.jit
def _helper(W, h):
    return jnp.sin(jnp.cos(W) @ h)


def _call_in_body(kind):
    def f(W, h0, xs):
        def body(h, x):
            h = _helper(W, h) * x if kind == "jit" else cell(W, h, x)
            return h, h.sum()
        if kind == "checkpoint":
            body = jax.checkpoint(body, policy=jax.checkpoint_policies.everything_saveable)
        h, ys = jax.lax.scan(body, h0, xs)
        return ys.sum() + h.sum()
    return f


@pytest.mark.parametrize("kind", ["checkpoint", "jit"])
def test_invariant_part_of_a_call_in_the_body(kind):
    """A `checkpoint` (saving everything) or an inner `jit` in the body reading a const
    and the carry: its part computed from the const alone (cos W, and sin W for its
    derivative) moves before the loop too; JAX stacks f32[5,3] twice (recorded)."""
    f = _call_in_body(kind)
    closed = jax.make_jaxpr(jax.grad(f))(_W, _H, _XS)
    assert stacked_residuals(closed) == [(5, 3)] * 2
    got = jax.grad(f, argnums=(0, 1, 2))(_W, _H, _XS)
    for a, b in zip(got, jax.grad(rnn_sin, argnums=(0, 1, 2))(_W, _H, _XS)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_effects_reading_only_consts_stay_in_the_loop():
    """An effect reading only the loop's consts is not moved out of the loop: it runs
    once per iteration under `grad` as without it."""
    seen = []

    def f(W, xs):
        def body(h, x):
            jax.debug.callback(lambda w: seen.append(1), W)
            return jnp.sin(W @ h) * x, None
        return jax.lax.scan(body, jnp.ones(3), xs)[0].sum()
    jax.grad(f)(_W, _XS)
    assert len(seen) == 5


# ------------------------------------------------------------------ mechanism: bytes stacked

def test_rnn_stacks_no_weight_sized_residual():
    """An RNN (T=100, d=64): the forward pass stacks only per-step vectors (2 x T x d
    float32, as JAX), never the d x d matrix computed from the weights (before: 3.3 MB
    more, two f32[100,64,64])."""
    T, d = 100, 64
    closed = jax.make_jaxpr(jax.grad(rnn_sin))(np.ones((d, d), np.float32),
                                                np.ones(d, np.float32),
                                                np.ones((T, d), np.float32))
    shapes = stacked_residuals(closed)
    assert shapes == [(T, d)] * 2
    assert sum(4 * np.prod(s) for s in shapes) == 2 * T * d * 4


def test_residuals_all_invariant_or_xs():
    """Every residual is computed from a const or is an xs slice: nothing is stacked,
    and the gradient is the closed form."""
    def f(W, xs):
        _, ys = jax.lax.scan(lambda c, x: (c, jnp.cos(W) * x), 0.0, xs)
        return ys.sum()
    xs = np.linspace(0, 1, 15, dtype=np.float32).reshape(5, 3)
    w = np.linspace(-1, 1, 3, dtype=np.float32)
    assert stacked_residuals(jax.make_jaxpr(jax.grad(f))(w, xs)) == []
    np.testing.assert_allclose(np.asarray(jax.grad(f)(w, xs)), -np.sin(w) * xs.sum(0),
                               rtol=1e-6)


def test_linearize_reads_the_hoisted_residual():
    """`linearize`: its linear function gives `jvp`'s tangent, bit for bit."""
    args = (_W * 0.7, _H, np.linspace(0, 1, 15, dtype=np.float32).reshape(5, 3))
    _, lin = jax.linearize(rnn_sin, *args)
    _, want = jax.jvp(rnn_sin, args, args)
    assert np.asarray(lin(*args)) == np.asarray(want)
