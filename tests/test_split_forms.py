"""`jnp.split` and its forms (`array_split`, `hsplit`, `vsplit`, `dsplit`, and the
library functions JAX builds on `lax.split`: `nn.glu`, `ravel_pytree`'s unravel) are
one `lax.split`, as in jax 0.10.2, so reverse mode joins the parts' cotangents as
`split` transposes (one `concatenate`), while hand-written slices keep a `pad` each,
summed by `add_any`, as JAX's (that rounds otherwise: the sign of a zero). Values,
shapes and printed jaxprs recorded against jax 0.10.2."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax


def _names(closed):
    return [e.primitive.name for e in closed.jaxpr.eqns]


# jax 0.10.2: make_jaxpr(lambda x: jnp.FORM(x, ...))(f32[6] / f32[2, 4, 6])
JAX_JAXPRS = [
    (lambda x: jnp.split(x, 3), (6,), """\
{ lambda ; a:f32[6]. let
    b:f32[2] c:f32[2] d:f32[2] = split[
      axis=0
      sizes=(np.int64(2), np.int64(2), np.int64(2))
    ] a
  in (b, c, d) }"""),
    (lambda x: jnp.array_split(x, [1, 4]), (6,), """\
{ lambda ; a:f32[6]. let
    b:f32[1] c:f32[3] d:f32[2] = split[
      axis=0
      sizes=(np.int64(1), np.int64(3), np.int64(2))
    ] a
  in (b, c, d) }"""),
    (lambda x: jnp.hsplit(x, 2), (2, 4, 6), """\
{ lambda ; a:f32[2,4,6]. let
    b:f32[2,2,6] c:f32[2,2,6] = split[axis=1 sizes=(np.int64(2), np.int64(2))] a
  in (b, c) }"""),
    (lambda x: jnp.dsplit(x, [5]), (2, 4, 6), """\
{ lambda ; a:f32[2,4,6]. let
    b:f32[2,4,5] c:f32[2,4,1] = split[axis=2 sizes=(np.int64(5), np.int64(1))] a
  in (b, c) }"""),
]


@pytest.mark.parametrize("case", range(len(JAX_JAXPRS)))
def test_split_forms_are_one_lax_split(case):
    f, shape, want = JAX_JAXPRS[case]
    assert str(astjax.make_jaxpr(f)(np.zeros(shape, np.float32))) == want


def _sin_cos(x):
    return jnp.sum(jnp.sin(x[:3])) + jnp.sum(jnp.cos(x[3:]))


def _sin_cos_adjacent(x):   # (the two slices back to back: was joined as a split)
    a = x[:3]
    b = x[3:]
    return jnp.sum(jnp.sin(a)) + jnp.sum(jnp.cos(b))


# jax 0.10.2: jit(grad(f))(x); x[3] = 0: cos' = -0.0 there, and pad + add_any gives +0.0
SLICES_X = [0.5, 1.0, -2.0, 0.0, -0.0, 3.0]
SLICES_GRAD = [0x3f60a940, 0x3f0a5140, 0xbed51133, 0x0, 0x0, 0xbe1081c3]


@pytest.mark.parametrize("f", [_sin_cos, _sin_cos_adjacent], ids=lambda f: f.__name__)
def test_hand_written_slices_transpose_to_pads_as_jax(f):
    x = np.array(SLICES_X, np.float32)
    for g in (astjax.grad(f), astjax.jit(astjax.grad(f))):
        assert [hex(v) for v in np.asarray(g(x)).view(np.uint32)] == \
            [hex(v) for v in SLICES_GRAD]
    # jax 0.10.2's backward part: pad (3, 0), pad (0, 3), add_any of them
    closed = astjax.make_jaxpr(astjax.grad(f))(x)
    tail = [(e.primitive.name, tuple(e.params["padding_config"][0][:2])
             if e.primitive.name == "pad" else None) for e in closed.jaxpr.eqns
            if e.primitive.name in ("pad", "add_any", "concatenate")]
    assert tail == [("pad", (3, 0)), ("pad", (0, 3)), ("add_any", None)]


def test_split_cotangent_is_split_transpose():
    """The parts' cotangents of a `jnp.split` (one unread, one empty) are one
    `concatenate` with zeros for the unread part, as JAX's `split` transposes."""
    def f(x):
        a, e, _, c = jnp.split(x, [2, 2, 5])
        return jnp.sum(a ** 2) + jnp.sum(c * 3.0) + jnp.sum(e)
    x = np.arange(6, dtype=np.float32)
    closed = astjax.make_jaxpr(astjax.grad(f))(x)
    assert "pad" not in _names(closed) and _names(closed).count("concatenate") == 1
    np.testing.assert_array_equal(astjax.grad(f)(x), [0, 2, 0, 0, 0, 3])


def test_glu_and_unravel_are_a_split():
    """`nn.glu` and `ravel_pytree`'s unravel cut their input with one `lax.split`, as
    jax 0.10.2's, so their gradients are one concatenate, not pads summed."""
    from astjax.flatten_util import ravel_pytree
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    closed = astjax.make_jaxpr(astjax.grad(lambda x: jnp.sum(astjax.nn.glu(x) ** 2)))(x)
    assert "split" in _names(closed) and "pad" not in _names(closed)
    flat, unravel = ravel_pytree({"a": x, "b": x[0]})
    closed = astjax.make_jaxpr(astjax.grad(
        lambda f: jnp.sum(unravel(f)["a"]) + jnp.sum(unravel(f)["b"] * 2)))(flat)
    assert "split" in _names(closed) and "pad" not in _names(closed)
    np.testing.assert_array_equal(astjax.grad(
        lambda f: jnp.sum(unravel(f)["a"]) + jnp.sum(unravel(f)["b"] * 2))(flat),
        [1, 1, 1, 1, 1, 1, 2, 2])


def test_lax_split_keeps_numpy_int_sizes():
    """`lax.split`'s sizes are kept as given (NumPy ints print as JAX prints them)."""
    closed = astjax.make_jaxpr(lambda x: lax.split(x, (np.int32(1), 2)))(np.zeros(3))
    assert "sizes=(np.int32(1), 2)" in str(closed)
