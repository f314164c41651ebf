"""An eager transformation returns an input it passes through unchanged as that very
object, as JAX 0.10.2's op-by-op transformations do (`astjax/eager_outputs.py`); a
`jit`'s call returns a new array, as JAX's. Each `is` below is JAX 0.10.2's answer."""
import astjax as jax
import astjax.numpy as jnp

X = jnp.ones(2)
C = jnp.full(2, 3.0)


@jax.custom_jvp
def passed(v):   # lineax's `inexact_asarray`: no copy promised
    return jnp.asarray(v, dtype=v.dtype)


passed.defjvp(lambda p, t: (p[0], t[0]))


@jax.custom_vjp
def ident(v):
    return v


ident.defvjp(lambda v: (v, None), lambda r, g: (g,))


def test_vmap_hands_back_its_input():
    assert jax.vmap(lambda v: v)(X) is X
    assert jax.vmap(lambda v: (v, v * 2))(X)[0] is X
    assert jax.vmap(lambda v, w: w, in_axes=(0, None), out_axes=None)(X, C) is C
    assert jax.vmap(lambda v: C, out_axes=None)(X) is C
    y = jnp.ones((2, 2))
    assert jax.vmap(jax.vmap(lambda v: v))(y) is y
    assert jax.vmap(lambda v: v, in_axes=1)(y) is not y   # (moved: a transpose)


def test_jvp_linearize_vjp_hand_back_their_inputs():
    p, t = jax.jvp(lambda v: v, (X,), (C,))
    assert p is X and t is C
    assert jax.jvp(lambda v: C, (X,), (X,))[0] is C
    out, f_jvp = jax.linearize(lambda v: v, X)
    assert out is X and f_jvp(C) is C
    out, f_vjp = jax.vjp(lambda v: v, X)
    assert out is X and f_vjp(C)[0] is C


def test_grad_aux_hands_back_its_input():
    assert jax.grad(lambda v: (v.sum(), v), has_aux=True)(X)[1] is X
    assert jax.grad(lambda v, w: (v[0], w), has_aux=True)(X, C)[1] is C
    assert jax.value_and_grad(lambda v: v[0])(X)[0] is not X


def test_checkpoint_hands_back_its_input():
    assert jax.checkpoint(lambda v: v)(X) is X
    assert jax.checkpoint(lambda v, w: (w, v))(X, C)[0] is C
    assert jax.checkpoint(lambda v, n: v, static_argnums=1)(X, 2) is X
    assert jax.vmap(jax.checkpoint(lambda v: v))(X) is X
    assert jax.jvp(jax.checkpoint(lambda v: v), (X,), (X,))[0] is X


def test_custom_rules_hand_back_their_input():
    assert passed(X) is X
    assert jnp.asarray(X, dtype=X.dtype) is X
    assert jax.lax.convert_element_type(X, X.dtype) is X
    assert jnp.asarray(X, dtype=jnp.int32) is not X
    assert jax.vmap(passed)(X) is X
    assert ident(X) is X and jax.vmap(ident)(X) is X


def test_jit_returns_a_new_array():
    assert jax.jit(lambda v: v)(X) is not X
    assert jax.vmap(jax.jit(lambda v: v))(X) is not X
    # (the values are the same all the same)
    assert (jax.jit(lambda v: v)(X) == X).all()


def test_same_type_conversion_copies_a_concrete_jvp_value():
    # JAX's `convert_element_type` to the operand's own type hands back an abstract
    # operand (vmap's, checkpoint's, a jvp under vmap) but converts a JVP tracer whose
    # primal is concrete (an eager jvp / vjp / linearize / grad): a new array there
    same = lambda v: v.astype(v.dtype)   # noqa: E731
    cet = lambda v: jax.lax.convert_element_type(v, v.dtype)   # noqa: E731
    p, t = jax.jvp(same, (X,), (X,))
    assert p is not X and t is not X
    assert jax.jvp(cet, (X,), (X,))[0] is not X
    assert jax.vjp(lambda v: jnp.asarray(v, v.dtype), X)[0] is not X
    assert jax.linearize(same, X)[0] is not X
    assert jax.grad(lambda v: (v.sum(), same(v)), has_aux=True)(X)[1] is not X
    assert jax.jvp(lambda v: jax.jvp(same, (v,), (v,))[0], (X,), (X,))[0] is not X
    # a non-differentiated argument is a concrete array to JAX: handed back
    w = jnp.zeros(2)
    assert jax.grad(lambda v, w: (v.sum(), same(w)), has_aux=True)(X, w)[1] is w
    # abstract operands: handed back
    assert jax.vmap(same)(X) is X
    assert jax.checkpoint(same)(X) is X
    assert jax.vmap(lambda v: jax.jvp(same, (v,), (v,))[0])(X) is X
    assert jax.jvp(jax.vmap(same), (X,), (X,))[0] is X
    assert jax.jvp(jax.checkpoint(same), (X,), (X,))[0] is X
    assert passed(X) is X and jax.jvp(passed, (X,), (X,))[0] is X


def test_vmap_and_linearize_hand_back_host_arguments():
    # JAX's op-by-op vmap / linearize (as jvp) keep an argument passed through as the
    # object given: a NumPy array (a float64 one stays float64 without x64), a scalar
    import numpy as np
    x, x64 = np.arange(3.0, dtype=np.float32), np.arange(3.0)
    assert jax.vmap(lambda v: v)(x) is x
    r = jax.vmap(lambda v: v)(x64)
    assert r is x64 and r.dtype == np.float64
    assert jax.vmap(lambda v, s: s, in_axes=(0, None), out_axes=None)(x, x64) is x64
    assert jax.vmap(lambda v: v)([x])[0] is x
    assert type(jax.vmap(lambda v: v * 1)(x)) is not np.ndarray
    assert jax.linearize(lambda v: v, x)[0] is x
    assert jax.linearize(lambda v: v, x64)[0] is x64
    p = jax.linearize(lambda v, w: (v, w), x, 2.0)[0]
    assert p[0] is x and type(p[1]) is float
    assert type(jax.linearize(lambda v: v, 2)[0]) is int
    assert jax.linearize(lambda v: (v, v), x, has_aux=True)[2] is x
    assert jax.jvp(lambda v: v, (x64,), (x64,))[0] is x64
