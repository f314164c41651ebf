"""Eager transformations see a global (or captured variable) rebound between calls.

JAX's eager `grad` / `vmap` / `jacrev` / ... trace the function on every call, so a
wrapper kept and called again after a global the function reads was rebound uses the
new value. astjax compiles eager calls and keeps the program: it must stage again once
anything its staging read was rebound (`codegen/compile_cache.Reads`), also for a
wrapper of a wrapper (`hessian`, `vmap(grad(f))`), which kept its first program
forever before. `jit` keeps JAX's rule: a global is read when the function is traced.
A value changed *in place* inside a global or captured object (`cfg["lr"] = 2.0`,
`box[0] = 3.0`, `model.scale = 0.5`, `w[:] = 0` of a small NumPy array) is seen too
(`compile_cache.contents`): the kept program gave the first call's gradient before.
An eager call whose `has_aux` output holds Python objects returns that call's objects,
not the first call's (it kept them before, a mutated NumPy aux came back mutated).
"""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

SCALE = 1.0


def _loss(x):
    return jnp.sum(x) * SCALE


def _per_row(x):
    return x * SCALE


def _sq(x):
    return _loss(x) * jnp.sum(x)


X = np.ones(2, np.float32)

# transform -> (wrapper of the functions above, the value for SCALE = s)
CASES = {
    "grad": (lambda: jax.grad(_loss), lambda s: s * X),
    "value_and_grad": (lambda: jax.value_and_grad(_loss), lambda s: (2 * s, s * X)),
    "jacrev": (lambda: jax.jacrev(_loss), lambda s: s * X),
    "jacfwd": (lambda: jax.jacfwd(_loss), lambda s: s * X),
    "hessian": (lambda: jax.hessian(_sq), lambda s: 2 * s * np.ones((2, 2), np.float32)),
    "jacfwd_of_jacrev": (lambda: jax.jacfwd(jax.jacrev(_sq)),
                         lambda s: 2 * s * np.ones((2, 2), np.float32)),
    "vmap": (lambda: jax.vmap(_per_row), lambda s: s * X),
    "vmap_of_grad": (lambda: jax.vmap(jax.grad(lambda x: _per_row(x) ** 2 / 2)),
                     lambda s: s * s * X),
    "checkpoint": (lambda: jax.checkpoint(_loss), lambda s: 2 * s),
    "jvp": (lambda: lambda x: jax.jvp(_loss, (x,), (x,)), lambda s: (2 * s, 2 * s)),
    "vjp": (lambda: lambda x: jax.vjp(_loss, x)[1](1.0), lambda s: (s * X,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_kept_wrapper_sees_a_rebound_global(name):
    global SCALE
    make, expected = CASES[name]
    wrapped = make()
    try:
        for s in (1.0, 2.0, 3.0):
            SCALE = s
            got = wrapped(X)
            for g, e in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(expected(s))):
                np.testing.assert_allclose(np.asarray(g), e, err_msg=f"{name}, SCALE={s}")
    finally:
        SCALE = 1.0


def test_a_kept_wrapper_sees_a_reassigned_captured_variable():
    scale = 1.0

    def loss(x):
        return jnp.sum(x) * scale
    g, h = jax.grad(loss), jax.hessian(lambda x: loss(x) * jnp.sum(x))
    for s in (1.0, 2.0, 3.0):
        scale = s
        np.testing.assert_allclose(g(X), s * X)
        np.testing.assert_allclose(h(X), 2 * s * np.ones((2, 2)))


def test_jit_reads_a_global_when_it_traces_as_jax():
    global SCALE
    f = jax.jit(_loss)
    try:
        assert float(f(X)) == 2.0
        SCALE = 5.0
        assert float(f(X)) == 2.0      # (JAX: the traced program is reused)
    finally:
        SCALE = 1.0


def test_no_rebinding_no_new_staging():
    from astjax.codegen import compile_cache
    g = jax.grad(_loss)
    g(X)
    misses = compile_cache.fun_stats["misses"]
    for _ in range(5):
        g(X)
    assert compile_cache.fun_stats["misses"] == misses


def test_aux_objects_are_each_calls_own():
    def f(x):
        return jnp.sum(x ** 2), np.zeros(2)
    g = jax.grad(f, has_aux=True)
    _, first = g(jnp.ones(3))
    first[0] = 5.0
    _, second = g(jnp.ones(3))
    assert second is not first
    np.testing.assert_array_equal(second, np.zeros(2))


def test_aux_strings_follow_python_state_each_call():
    counter = [0]

    def h(x):
        return jnp.sum(x), f"call {counter[0]}"
    vg = jax.value_and_grad(h, has_aux=True)
    got = []
    for i in range(3):
        counter[0] = i
        got.append(vg(jnp.ones(2))[0][1])
    assert got == ["call 0", "call 1", "call 2"]


CFG = {"scale": 1.0}
BOX = [1.0]


class _Model:
    scale = 1.0


MODEL = _Model()
W = np.ones(2, np.float32)


def _from_objects(x):
    return jnp.sum(x) * CFG["scale"] * BOX[0] * MODEL.scale + jnp.sum(W * x)


def test_a_kept_wrapper_sees_values_changed_in_place():
    g = jax.grad(_from_objects)
    saved = (CFG["scale"], BOX[0], W.copy())
    MODEL.scale = 1.0
    try:
        np.testing.assert_array_equal(g(X), [2, 2])
        CFG["scale"] = 2.0
        np.testing.assert_array_equal(g(X), [3, 3])
        BOX[0] = 3.0
        np.testing.assert_array_equal(g(X), [7, 7])
        MODEL.scale = 0.5
        np.testing.assert_array_equal(g(X), [4, 4])
        W[:] = 0.0
        np.testing.assert_array_equal(g(X), [3, 3])
    finally:
        CFG["scale"], BOX[0], W[:] = saved
        del MODEL.scale


def test_a_captured_dict_changed_in_place():
    d = {"s": 1.0}
    v = jax.vmap(lambda x: x * d["s"])
    np.testing.assert_array_equal(v(X), [1, 1])
    d["s"] = 4.0
    np.testing.assert_array_equal(v(X), [4, 4])
    h = jax.hessian(lambda x: jnp.sum(x) ** 2 * d["s"])
    np.testing.assert_array_equal(h(X), 8 * np.ones((2, 2)))
    d["s"] = 1.0
    np.testing.assert_array_equal(h(X), 2 * np.ones((2, 2)))


CYCLE = [1.0]
CYCLE.append(CYCLE)
BIG = {i: float(i) for i in range(10_000)}


def _reads_cycle_and_big(x):
    return jnp.sum(x) * CYCLE[0] * BIG[1]


def test_unchanged_objects_are_not_staged_again():
    from astjax.codegen import compile_cache
    g = jax.grad(_reads_cycle_and_big)   # (a cycle, and more than CONTENTS_LIMIT values)
    g(X)
    misses = compile_cache.fun_stats["misses"]
    for _ in range(3):
        np.testing.assert_array_equal(g(X), [1, 1])
    assert compile_cache.fun_stats["misses"] == misses
    CYCLE[0] = 2.0
    try:
        np.testing.assert_array_equal(g(X), [2, 2])
    finally:
        CYCLE[0] = 1.0
