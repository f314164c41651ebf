"""`vmap` of a `custom_vjp` (or `custom_jvp`) function whose outputs do not all depend
on the batch: each output is mapped as its dependence says, as JAX's batching decides
it -- a hijax Variable the function closes over and writes an unbatched value stays
unbatched, an output from unmapped operands takes `out_axes=None`, and bwd sees an
unmapped output's one cotangent in every example. Expected values are real JAX
0.10.2's (the same programs run with `import jax`)."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from test_hijax_qdd import Cell, _val, cell_get, cell_set


def _lists(tree):
    return jax.tree.map(lambda a: np.asarray(a).tolist(), tree)


def _counting_square(c):
    """A custom_vjp `x -> x * x` that adds 1 to the cell at every call."""
    @jax.custom_vjp
    def f(x):
        cell_set(c, cell_get(c) + 1.0)
        return x * x

    f.defvjp(lambda x: (f(x), x), lambda x, g: (2 * x * g,))
    return f


def test_vmap_of_a_custom_vjp_writing_a_closed_over_value():
    c = Cell._new(jnp.float32(1.0))
    f = _counting_square(c)
    assert _lists(jax.vmap(f)(jnp.arange(3.0))) == [0.0, 1.0, 4.0]
    assert _val(c) == ("float32", 2.0)
    assert _lists(jax.vmap(jax.grad(f))(jnp.arange(3.0))) == [0.0, 2.0, 4.0]
    assert _val(c) == ("float32", 3.0)
    g = jax.grad(lambda x: jax.vmap(f)(x).sum())(jnp.arange(3.0))
    assert (_lists(g), _val(c)) == ([0.0, 2.0, 4.0], ("float32", 4.0))
    out = jax.vmap(jax.vmap(f))(jnp.ones((2, 3)))
    assert (_lists(out), _val(c)) == ([[1.0] * 3] * 2, ("float32", 5.0))


def test_vmap_of_a_custom_vjp_writing_a_batched_value_is_jaxs_error():
    c = Cell._new(jnp.float32(1.0))

    @jax.custom_vjp
    def f(x):
        cell_set(c, cell_get(c) + x)
        return x * x

    f.defvjp(lambda x: (f(x), x), lambda x, g: (2 * x * g,))
    with pytest.raises(NotImplementedError, match="batched value"):
        jax.vmap(f)(jnp.arange(3.0))   # (JAX: no batching rule for 'cell_set')
    assert _val(c) == ("float32", 1.0)


@jax.custom_vjp
def _two(x, y):
    return x * y, y * 2.0


_two.defvjp(lambda x, y: (_two(x, y), (x, y)),
            lambda res, g: (g[0] * res[1], g[0] * res[0] + 2.0 * g[1]))


def test_an_output_of_unmapped_operands_is_unmapped():
    x, y = jnp.arange(3.0), jnp.float32(1.5)
    out = jax.vmap(_two, (0, None), (0, None))(x, y)
    assert _lists(out) == ([0.0, 1.5, 3.0], 3.0)
    out = jax.vmap(_two, (0, None))(x, y)
    assert _lists(out) == ([0.0, 1.5, 3.0], [3.0, 3.0, 3.0])


def test_bwd_sees_an_unmapped_outputs_cotangent_in_every_example():
    # (JAX's: y's cotangent 3 + 3 * (2 * 3): bwd runs once per example on the one
    # cotangent of the unmapped output, the contributions summed over the batch)
    x, y = jnp.arange(3.0), jnp.float32(1.5)

    def loss(x, y):
        a, b = jax.vmap(_two, (0, None), (0, None))(x, y)
        return a.sum() + 3.0 * b

    assert _lists(jax.grad(loss, (0, 1))(x, y)) == ([1.5] * 3, 21.0)
    assert _lists(jax.jit(jax.grad(loss, (0, 1)))(x, y)) == ([1.5] * 3, 21.0)

    def loss_bcast(x, y):   # (out_axes=0: the unmapped output broadcast, then summed)
        a, b = jax.vmap(_two, (0, None))(x, y)
        return a.sum() + 3.0 * b.sum()

    assert _lists(jax.grad(loss_bcast, (0, 1))(x, y)) == ([1.5] * 3, 57.0)

    def nested(x, y):
        a, b = jax.vmap(jax.vmap(_two, (0, None), (0, None)), (None, 0), (0, 0))(x, y)
        return a.sum() + 3.0 * b.sum()

    assert _lists(jax.grad(nested, (0, 1))(x, jnp.array([1.0, 2.0]))) == (
        [3.0] * 3, [21.0, 21.0])


def test_a_fwd_output_batched_where_the_functions_is_not_is_a_located_error():
    @jax.custom_vjp
    def h(x, y):
        return y * 2.0

    h.defvjp(lambda x, y: (x * y, (x, y)), lambda r, g: (g, g))
    staged = jax.make_jaxpr(jax.vmap(h, (0, None)))(jnp.arange(3.0), 1.5)
    fn = jax.extend.core.jaxpr_as_fun(staged)
    with pytest.raises(TypeError, match="fwd under vmap"):   # (JAX: a TypeError)
        jax.grad(lambda x, y: fn(x, y)[0].sum(), (0, 1))(jnp.arange(3.0), 1.5)


# ------------------------------------------------------------------ custom_jvp
# (the same decision: an output of unmapped operands is unmapped, primal and tangent)


def _two_jvp(tangent_uses_x):
    @jax.custom_jvp
    def f(x, y):
        return x * y, y * 2.0

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        t2 = 2.0 * ty + x * tx if tangent_uses_x else 2.0 * ty
        return f(x, y), (tx * y + x * ty, t2)

    return f


def test_custom_jvp_output_of_unmapped_operands_under_jvp_and_grad():
    x, y = jnp.arange(3.0), jnp.float32(1.5)
    g = jax.vmap(_two_jvp(False), (0, None), (0, None))
    assert _lists(g(x, y)) == ([0.0, 1.5, 3.0], 3.0)
    out = jax.jvp(g, (x, y), (jnp.ones(3), jnp.float32(1.0)))
    assert _lists(out) == (([0.0, 1.5, 3.0], 3.0), ([1.5, 2.5, 3.5], 2.0))
    grad = jax.grad(lambda x, y: g(x, y)[1] + g(x, y)[0].sum(), (0, 1))(x, y)
    assert _lists(grad) == ([1.5] * 3, 5.0)
    g0 = jax.vmap(_two_jvp(False), (0, None))
    grad = jax.grad(lambda x, y: (g0(x, y)[1] * x).sum(), (0, 1))(x, y)
    assert _lists(grad) == ([3.0] * 3, 6.0)
    c = Cell._new(jnp.float32(1.0))

    @jax.custom_jvp
    def h(x):
        cell_set(c, cell_get(c) + 1.0)
        return x * x

    h.defjvp(lambda p, t: (h(*p), 2 * p[0] * t[0]))
    assert (_lists(jax.vmap(h)(jnp.arange(3.0))), _val(c)) == ([0.0, 1.0, 4.0],
                                                               ("float32", 2.0))


def test_a_custom_jvp_tangent_batched_where_the_output_is_not_is_a_located_error():
    # (JAX: [0, 1, 2] for x here, a ValueError or TypeError elsewhere; astjax took the
    # tangent of the first example: x's gradient was [0, 0, 0])
    g0 = jax.vmap(_two_jvp(True), (0, None))
    with pytest.raises(TypeError, match="custom_jvp's rule under vmap"):
        jax.grad(lambda x, y: g0(x, y)[1].sum(), (0, 1))(jnp.arange(3.0), jnp.float32(1.5))
