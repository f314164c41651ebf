"""`checkpoint(f, policy=...)` honoured (issue 13, item 8): for every policy of
`checkpoint_policies`, the gradient equals the one without checkpoint (and JAX's stored
values), and what the forward pass saves and the backward pass recomputes is checked on
the IR: `print_saved_residuals` against JAX 0.10.2's text, and the number of
`dot_general`s the backward pass runs (inside the differentiated `checkpoint`) against
the count in JAX's jaxpr of the same gradient. Also under jit, vmap, nested
checkpoints and `scan` bodies, and the policy answers `Saveable` / `Recompute` /
`Offloadable`.

The functions between the two `# ---- functions` lines are the ones JAX's values were
recorded on (the recorder ran this block verbatim with `import jax`); locations in the
stored texts are `@L:C (function)`, L counted from the first of those lines.
"""
import re

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax
from astjax.compat import ad_checkpoint as adc
from astjax.compat.ad_checkpoint import checkpoint_name
from astjax.errors import AstjaxError
from oracle import record_checkpoint_policies as rec
from oracle import compare


# ---- functions (recorded with jax 0.10.2) ----
def mlp(W1, W2, W3, x):
    h = checkpoint_name(jnp.sin(W1 @ x), "h")
    z = checkpoint_name(jnp.sin(W2 @ h), "z")
    b = jnp.einsum("bij,bj->bi", W3, jnp.broadcast_to(jnp.cos(z) * h, (2, 3)))
    return jnp.sum(jnp.sin(b)) + jnp.sum(z * h)


def layer(W, x):
    return jnp.sin(W @ x)


def chain(Ws, x):
    for W in Ws:
        x = jax.checkpoint(layer, policy=jax.checkpoint_policies.dots_saveable)(W, x)
    return jnp.sum(x)


def nested(W, x):
    y = jax.checkpoint(layer, policy=jax.checkpoint_policies.everything_saveable)(W, x)
    return jnp.sum(jnp.cos(W @ y) * y)


def scanned(W, xs):
    def body(c, x):
        c = jax.checkpoint(lambda c, x: jnp.sin(W @ c + x),
                           policy=jax.checkpoint_policies.dots_saveable)(c, x)
        return c, jnp.sum(c)
    c, ys = lax.scan(body, jnp.zeros(3), xs)
    return jnp.sum(ys) + jnp.sum(c)


def remat_body(W, xs):
    @jax.checkpoint
    def body(c, x):
        return jnp.tanh(W @ c + x), None
    c, _ = lax.scan(body, jnp.ones(3), xs)
    return jnp.sum(c)


EXTRA = {  # name -> (function, arguments)
    "chain": (chain, ([jnp.ones((3, 3)) * 0.1 * i for i in (1, 2, 3)], jnp.arange(3.0))),
    "nested": (nested, (jnp.ones((3, 3)) * 0.2, jnp.arange(3.0))),
    "scanned": (scanned, (jnp.ones((3, 3)) * 0.2, jnp.arange(12.0).reshape(4, 3) / 10)),
    "remat_body": (remat_body, (jnp.ones((3, 3)) * 0.2, jnp.arange(12.0).reshape(4, 3) / 10)),
}


def args():
    W1 = jnp.arange(9.0).reshape(3, 3) / 10
    W2 = jnp.ones((3, 3)) * 0.3
    W3 = jnp.arange(18.0).reshape(2, 3, 3) / 20
    x = jnp.arange(3.0) + 1
    return W1, W2, W3, x


CP = jax.checkpoint_policies
POLICIES = {
    "nothing_saveable": CP.nothing_saveable,
    "everything_saveable": CP.everything_saveable,
    "dots_saveable": CP.dots_saveable,
    "checkpoint_dots": CP.checkpoint_dots,
    "dots_with_no_batch_dims_saveable": CP.dots_with_no_batch_dims_saveable,
    "checkpoint_dots_with_no_batch_dims": CP.checkpoint_dots_with_no_batch_dims,
    "save_only_these_names": CP.save_only_these_names("h"),
    "save_any_names_but_these": CP.save_any_names_but_these("h"),
    "save_anything_except_these_names": CP.save_anything_except_these_names("h"),
    "save_from_both_policies": CP.save_from_both_policies(
        CP.dots_with_no_batch_dims_saveable, CP.save_only_these_names("z")),
    "offload_dot_with_no_batch_dims": CP.offload_dot_with_no_batch_dims(
        "device", "pinned_host"),
    "save_and_offload_only_these_names": CP.save_and_offload_only_these_names(
        names_which_can_be_saved=["h"], names_which_can_be_offloaded=["z"],
        offload_src="device", offload_dst="pinned_host"),
    "custom_saveable_recompute": lambda prim, *_, **__: (
        jax.ad_checkpoint.Saveable if prim.name == "sin" else jax.ad_checkpoint.Recompute),
}
# ---- functions end ----


JAX = compare.load("checkpoint_policies")
_START = next(i for i, line in enumerate(open(__file__), 1)
              if line.startswith("# ---- functions (recorded"))


def _residuals(fn, *a):
    """astjax's `print_saved_residuals` lines, locations as the recorder stores them."""
    return [re.sub(re.escape(__file__) + r":(\d+):(\d+)",
                   lambda m: f"@{int(m.group(1)) - _START}:{m.group(2)}", what).join(
                       [aval.str_short(short_dtypes=True) + " ", ""])
            for aval, what in adc.saved_residuals(fn, *a)]


def _close(got, want, rtol=1e-5):
    compare.assert_close(jax.tree_util.tree_leaves(got), want, rtol=rtol, atol=1e-6)


ARGNUMS = (0, 1, 2, 3)
# Policies whose saved values depend on the derivative rules only (everything saved):
# astjax's rules keep fewer values than JAX's (tanh/sin/cos JVPs); checked against
# astjax without checkpoint instead.
SAVE_ALL = {"everything_saveable", "save_anything_except_these_names"}


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_gradient_equals_plain_and_jax(name):
    g = jax.checkpoint(mlp, policy=POLICIES[name])
    plain = jax.grad(mlp, argnums=ARGNUMS)(*args())
    _close(jax.grad(g, argnums=ARGNUMS)(*args()), JAX["policies"][name]["grads"])
    _close(jax.jit(jax.grad(g, argnums=ARGNUMS))(*args()),
           [np.asarray(p) for p in plain], rtol=1e-6)


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_saved_residuals_match_jax(name):
    got = _residuals(jax.checkpoint(mlp, policy=POLICIES[name]), *args())
    want = JAX["policies"][name]["residuals"]
    if name in SAVE_ALL:
        assert got == _residuals(mlp, *args())
        assert len(got) >= 4 + 3 and len(want) >= len(got)
    else:   # (offloading policies: `f32<host>[3] output of device_put from `, as JAX)
        assert got == want


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_backward_pass_recomputes_what_jax_recomputes(name):
    # dot_generals inside the differentiated checkpoint: the transposes (6) plus the
    # products the policy did not save, recomputed
    jaxpr = jax.make_jaxpr(jax.grad(jax.checkpoint(mlp, policy=POLICIES[name]),
                                    argnums=ARGNUMS))(*args())
    back, total = rec.dots(jaxpr.jaxpr)
    jax_back, jax_total = JAX["policies"][name]["dots"]
    assert back == jax_back
    # forward: the saved products (JAX's make_jaxpr also keeps the primal's, unused)
    saved = sum("dot_general" in r for r in JAX["policies"][name]["residuals"])
    assert saved <= total - back <= jax_total - jax_back


def test_without_checkpoint_nothing_is_recomputed():
    jaxpr = jax.make_jaxpr(jax.grad(mlp, argnums=ARGNUMS))(*args())
    assert list(rec.dots(jaxpr.jaxpr)) == JAX["plain"]["dots"]
    _close(jax.grad(mlp, argnums=ARGNUMS)(*args()), JAX["plain"]["grads"])


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_nested_and_scanned_checkpoints(name):
    fn, fargs = EXTRA[name]
    _close(jax.grad(fn, argnums=(0, 1))(*fargs), JAX["extra"][name]["grads"])
    _close(jax.jit(jax.grad(fn, argnums=(0, 1)))(*fargs), JAX["extra"][name]["grads"])
    jaxpr = jax.make_jaxpr(jax.grad(fn, argnums=(0, 1)))(*fargs)
    back, _ = rec.dots(jaxpr.jaxpr)
    assert back == JAX["extra"][name]["dots"][0]


@pytest.mark.parametrize("name", ["chain", "nested"])
def test_nested_saved_residuals_match_jax(name):
    fn, fargs = EXTRA[name]
    assert _residuals(fn, *fargs) == JAX["extra"][name]["residuals"]


def test_vmap_of_grad_and_grad_of_vmap():
    W1, W2, W3, x = args()
    xs = jnp.stack([x, 2 * x])
    g = jax.checkpoint(mlp, policy=CP.dots_with_no_batch_dims_saveable)
    got = jax.vmap(jax.grad(g, argnums=3), in_axes=(None, None, None, 0))(W1, W2, W3, xs)
    want = jax.vmap(jax.grad(mlp, argnums=3), in_axes=(None, None, None, 0))(W1, W2, W3, xs)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    batched = lambda W1, xs: jnp.sum(jax.vmap(g, in_axes=(None, None, None, 0))(
        W1, W2, W3, xs))
    plain = lambda W1, xs: jnp.sum(jax.vmap(mlp, in_axes=(None, None, None, 0))(
        W1, W2, W3, xs))
    for a, b in zip(jax.grad(batched, argnums=(0, 1))(W1, xs),
                    jax.grad(plain, argnums=(0, 1))(W1, xs)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_forward_mode_and_linearize():
    W1, W2, W3, x = args()
    g = jax.checkpoint(mlp, policy=CP.dots_saveable)
    t = (W1, W2, W3, x)
    np.testing.assert_allclose(jax.jvp(g, args(), t)[1], jax.jvp(mlp, args(), t)[1],
                               rtol=1e-6)
    y, lin = jax.linearize(g, *args())
    np.testing.assert_allclose(lin(*t), jax.jvp(mlp, args(), t)[1], rtol=1e-6)
    h = jax.hessian(lambda x: g(W1, W2, W3, x))(x)
    np.testing.assert_allclose(h, jax.hessian(lambda x: mlp(W1, W2, W3, x))(x), rtol=1e-5)


def test_recomputation_is_behind_a_barrier_under_jit():
    # the backward pass's recomputation is not merged with the forward values by XLA
    g = jax.checkpoint(mlp, policy=CP.dots_saveable)
    text = jax.jit(jax.grad(g)).lower(*args()).as_text()
    assert "optimization_barrier" in text
    assert "optimization_barrier" not in jax.jit(jax.grad(mlp)).lower(*args()).as_text()


def test_checkpoint_name_is_the_identity_staged_as_name():
    x = jnp.arange(3.0)
    assert np.array_equal(checkpoint_name(x, "a"), x)
    tree = checkpoint_name({"a": x, "b": (x, 2 * x)}, "t")
    assert np.array_equal(tree["b"][1], 2 * x)
    text = str(jax.make_jaxpr(lambda v: checkpoint_name(v * 2, "twice"))(x))
    assert "name[name=twice]" in text
    assert np.array_equal(jax.grad(lambda v: jnp.sum(checkpoint_name(v, "v") ** 2))(x), 2 * x)
    out = jax.vmap(lambda v: checkpoint_name(v, "v"))(jnp.ones((2, 3)))
    assert out.shape == (2, 3)


def test_policy_answers_and_their_errors():
    assert repr(adc.Saveable) == "Saveable" and repr(adc.Recompute) == "Recompute"
    off = adc.Offloadable(src="device", dst="pinned_host")
    assert off.src == "device" and off == adc.Offloadable("device", "pinned_host")
    assert jax.ad_checkpoint.Saveable is adc.Saveable
    for bad, cls in [(lambda *_, **__: "yes", TypeError),
                     (lambda *_, **__: adc.Offloadable, TypeError)]:
        with pytest.raises(cls) as e:
            jax.grad(jax.checkpoint(mlp, policy=bad))(*args())
        assert isinstance(e.value, AstjaxError) and "remat policy" in str(e.value)
    both = CP.save_from_both_policies(CP.dots_saveable, lambda *_, **__: adc.Saveable)
    with pytest.raises(ValueError, match="bools"):
        jax.grad(jax.checkpoint(mlp, policy=both))(*args())
    with pytest.raises(ValueError, match="must not share"):
        CP.save_and_offload_only_these_names(
            names_which_can_be_saved=["a"], names_which_can_be_offloaded=["a"],
            offload_src="device", offload_dst="pinned_host")


def test_policy_is_called_as_jax_calls_it():
    calls = []

    def policy(prim, *avals, **params):
        calls.append((prim.name, tuple(a.shape for a in avals), sorted(params)))
        return prim is lax.dot_general_p

    W1, W2, W3, x = args()
    jax.grad(lambda W, v: jnp.sum(jax.checkpoint(layer, policy=policy)(W, v)))(W1, x)
    dot = [c for c in calls if c[0] == "dot_general"]
    assert dot and dot[0][1] == ((3, 3), (3,)) and "dimension_numbers" in dot[0][2]
    assert ("sin", ((3,),), ["accuracy"]) in calls   # (JAX 0.10.2: sin[accuracy=None])
    assert sorted(set(c[0] for c in calls)) == ["cos", "dot_general", "sin"]


def test_static_argnums_and_static_argnames():
    def f(x, n):
        return jnp.sum(jnp.sin(x) * jnp.ones(n))
    foo = jax.checkpoint(f, static_argnums=(1,))
    np.testing.assert_allclose(foo(1.0, 3), 3 * np.sin(np.float32(1)), rtol=1e-6)
    np.testing.assert_allclose(foo(1.0, 4), 4 * np.sin(np.float32(1)), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(lambda x: foo(x, 3))(1.0), 3 * np.cos(1.0), rtol=1e-6)
    h = jax.checkpoint(lambda x, *, n: jnp.sum(x * jnp.ones(n)), static_argnames="n")
    assert float(jax.grad(lambda x: h(x, n=5))(1.0)) == 5.0 and float(h(1.0, n=2)) == 2.0
    neg = jax.checkpoint(f, static_argnums=-1)
    assert float(jax.jit(lambda x: neg(x, 2))(0.0)) == 0.0
    with pytest.raises(TypeError, match="static_argnums"):
        jax.checkpoint(f, static_argnums="1")
    with pytest.raises(ValueError, match="static_argnums"):
        jax.grad(lambda x: jax.checkpoint(f, static_argnums=5)(x, 1))(1.0)


def test_prevent_cse_bool_or_tuple():
    g = jax.checkpoint(lambda x, y: jnp.sin(x) * y, prevent_cse=(True, False))
    np.testing.assert_allclose(jax.grad(g)(2.0, 3.0), 3 * np.cos(2.0), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(jax.checkpoint(
        lambda x: jnp.sin(x), prevent_cse=False)))(2.0), np.cos(2.0), rtol=1e-6)
    for flag, barrier in [(False, False), ((False,), False), (True, True)]:
        text = jax.jit(jax.grad(jax.checkpoint(jnp.sin, prevent_cse=flag))).lower(
            2.0).as_text()
        assert ("optimization_barrier" in text) == barrier
    with pytest.raises(TypeError, match="prevent_cse"):
        jax.checkpoint(lambda x: x, prevent_cse="yes")


def test_static_argument_unhashable_or_not_an_array():
    # equinox's filter_checkpoint passes the non-array part of its arguments as a
    # static pytree (lists: unhashable), and may pass functions
    def f(static, x):
        fn, scale = static
        return fn(x) * scale[0]
    g = jax.checkpoint(f, static_argnums=(0,), policy=CP.dots_saveable)
    np.testing.assert_allclose(g([jnp.sin, [2.0]], 1.0), 2 * np.sin(1.0), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(lambda x: g([jnp.sin, [2.0]], x))(1.0),
                               2 * np.cos(1.0), rtol=1e-6)
    h = jax.checkpoint(lambda fn, x: fn(x), static_argnums=0)
    np.testing.assert_allclose(h(jnp.cos, 1.0), np.cos(1.0), rtol=1e-6)


@jax.custom_vjp
def _sin_vjp(x):
    return jnp.sin(x)


_sin_vjp.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, g: (g * c,))


def _control(W, x):
    h = jax.nn.gelu(W @ x)
    h = _sin_vjp(h) + jax.nn.relu(h)
    h = lax.cond(jnp.sum(h) > 0, lambda v: jnp.tanh(W @ v), lambda v: v * 2, h)
    h, _ = lax.scan(lambda c, _: (jnp.sin(W @ c), None), h, None, length=3)
    i = 0
    while i < 2:
        h = jnp.cos(h)
        i += 1
    return jnp.sum(lax.fori_loop(0, 3, lambda j, v: v * jnp.sin(v), h))


@pytest.mark.parametrize("name", ["nothing_saveable", "dots_saveable", "everything_saveable",
                                  "dots_with_no_batch_dims_saveable"])
def test_control_flow_and_custom_rules_inside_a_checkpoint(name):
    W, x = jnp.arange(9.0).reshape(3, 3) / 10, jnp.arange(3.0)
    g = jax.checkpoint(_control, policy=POLICIES[name])
    want = jax.grad(_control, argnums=(0, 1))(W, x)
    for got in (jax.grad(g, argnums=(0, 1))(W, x), jax.jit(jax.grad(g, argnums=(0, 1)))(W, x)):
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    second = jax.jacrev(jax.jacrev(g, argnums=1), argnums=1)(W, x)
    np.testing.assert_allclose(second, jax.hessian(_control, argnums=1)(W, x),
                               rtol=1e-4, atol=1e-5)


def test_generated_source_recomputes_and_round_trips():
    g = jax.grad(jax.checkpoint(mlp, policy=CP.save_only_these_names("h")), argnums=ARGNUMS)
    text = str(jax.source(g, *args()))
    back = text[text.index("---- backward"):]
    assert "lax.sin" in back   # z = sin(W2 @ h) is recomputed from the saved h
    fn = jax.source_function(g, *args())
    want = g(*args())
    for got in (fn(*args()), jax.jit(fn)(*args())):
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-6)
