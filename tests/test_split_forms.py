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
    (lambda x: jnp.split(x, 2), (6,), """\
{ lambda ; a:f32[6]. let
    b:f32[3] c:f32[3] = split[axis=0 sizes=(np.int64(3), np.int64(3))] a
  in (b, c) }"""),
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


# jax 0.10.2, on x = arange(prod(shape)) as float32: (function, shape, indices_or_sections,
# axis (None: the function's own), the parts' shapes or the builtin class JAX raises,
# zlib.crc32 of the bits of jit(grad(sum_i (i + 1) * sum(sin(part_i))))(x))
SPLIT_TABLE = [
    ('split', (6,), [2, 4], 0, [(2,), (2,), (2,),
], 562358521),
    ('split', (6,), [4, 2], 0, 'ValueError', None),
    ('split', (6,), [-1], 0, 'ValueError', None),
    ('split', (6,), [2, 2], 0, [(2,), (0,), (4,),
], 1091909131),
    ('split', (6,), [0], 0, [(0,), (6,),
], 2510932869),
    ('split', (6,), [6], 0, [(6,), (0,),
], 4196604483),
    ('split', (6,), [7], 0, 'ValueError', None),
    ('split', (6,), [], 0, [(6,),
], 4196604483),
    ('split', (6,), 3, 0, [(2,), (2,), (2,),
], 562358521),
    ('split', (6,), 4, 0, 'ValueError', None),
    ('split', (6,), 0, 0, 'ZeroDivisionError', None),
    ('split', (6,), -2, 0, 'ValueError', None),
    ('split', (6,), 1, 0, [(6,),
], 4196604483),
    ('split', (0,), 3, 0, [(0,), (0,), (0,),
], 0),
    ('split', (6,), 'arr[1,3]', 0, [(1,), (2,), (3,),
], 762219521),
    ('array_split', (6,), 4, 0, [(2,), (2,), (1,), (1,),
], 1412536733),
    ('array_split', (6,), 7, 0, [(1,), (1,), (1,), (1,), (1,), (1,), (0,),
], 477998385),
    ('array_split', (6,), [1, 5], 0, [(1,), (4,), (1,),
], 4037711502),
    ('array_split', (6,), [5, 1], 0, 'ValueError', None),
    ('array_split', (6,), [3, 3, 3], 0, [(3,), (0,), (0,), (3,),
], 3652997583),
    ('array_split', (6,), -4, 0, 'ValueError', None),
    ('array_split', (6,), 2.0, 0, [(3,), (3,),
], 1309847367),
    ('split', (4, 6, 2), 2, 0, [(2, 6, 2), (2, 6, 2),
], 1343953446),
    ('split', (4, 6, 2), [1, 4], 1, [(4, 1, 2), (4, 3, 2), (4, 2, 2),
], 4232433638),
    ('split', (4, 6, 2), 2, 2, [(4, 6, 1), (4, 6, 1),
], 668661776),
    ('split', (4, 6, 2), [5], -1, 'ValueError', None),
    ('split', (4, 6, 2), [1, 3], -3, [(1, 6, 2), (2, 6, 2), (1, 6, 2),
], 3849705234),
    ('split', (4, 6, 2), 2, 3, 'IndexError', None),
    ('split', (4, 6, 2), [0, 6], 1, [(4, 0, 2), (4, 6, 2), (4, 0, 2),
], 1689691434),
    ('array_split', (4, 6, 2), 4, 1, [(4, 2, 2), (4, 2, 2), (4, 1, 2), (4, 1, 2),
], 3883684923),
    ('array_split', (4, 6, 2), [2, 1], -2, 'ValueError', None),
    ('array_split', (4, 6, 2), 3, -1, [(4, 6, 1), (4, 6, 1), (4, 6, 0),
], 668661776),
    ('hsplit', (4, 6, 2), [2], None, [(4, 2, 2), (4, 4, 2),
], 3193531169),
    ('hsplit', (6,), 2, None, [(3,), (3,),
], 1309847367),
    ('vsplit', (4, 6, 2), 2, None, [(2, 6, 2), (2, 6, 2),
], 1343953446),
    ('vsplit', (6,), [4], None, [(4,), (2,),
], 2820122182),
    ('dsplit', (4, 6, 2), [1], None, [(4, 6, 1), (4, 6, 1),
], 668661776),
    ('dsplit', (4, 6), 2, None, 'IndexError', None),
]


def _split_call(name, ios, axis):
    ios = np.array([1, 3]) if ios == "arr[1,3]" else ios
    fn = getattr(jnp, name)
    return (lambda x: fn(x, ios)) if axis is None else (lambda x: fn(x, ios, axis))


@pytest.mark.parametrize("row", SPLIT_TABLE, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}-{r[3]}")
def test_split_table_as_jax(row):
    import builtins
    import zlib
    name, shape, ios, axis, want, grad_crc = row
    call = _split_call(name, ios, axis)
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    if isinstance(want, str):
        with pytest.raises(getattr(builtins, want)):
            call(x)
        return
    parts = call(x)
    assert [p.shape for p in parts] == want
    ax = {"hsplit": 1 if len(shape) > 1 else 0, "vsplit": 0, "dsplit": 2}.get(name, axis)
    cuts = np.cumsum([s[ax] for s in want])[:-1]
    for got, ref in zip(parts, np.split(x, cuts, axis=ax)):
        np.testing.assert_array_equal(got, ref)
    xs = np.stack([x, -x])
    for got, ref in zip(astjax.vmap(call)(xs), np.split(xs, cuts, axis=ax % len(shape) + 1)):
        np.testing.assert_array_equal(got, ref)

    def loss(x):
        return sum((i + 1.0) * jnp.sum(jnp.sin(p)) for i, p in enumerate(call(x)))
    grad = np.asarray(astjax.jit(astjax.grad(loss))(x))
    assert zlib.crc32(grad.view(np.uint32).tobytes()) == grad_crc


def test_split_prints_as_lax_split_and_round_trips():
    """A `split` equation prints as `lax.split(x, sizes, axis=...)` (it was a generic
    `core.primitives['split'].bind(...)`), and the printed derivative runs again."""
    def f(x):
        a, b, c = jnp.split(x, [1, 4])
        return jnp.sum(a * 2) + jnp.sum(jnp.sin(b)) + jnp.sum(c ** 2)
    x = np.arange(6.0, dtype=np.float32)
    text = astjax.source(astjax.grad(f), x)
    assert "a, b, c = lax.split(x, (1, 3, 2), axis=0)" in text
    np.testing.assert_array_equal(astjax.source_function(astjax.grad(f), x)(x),
                                  astjax.grad(f)(x))
