"""`lax.fori_loop` as JAX 0.10.2 stages it: static bounds give a `scan` with no `xs`
whose carry holds the index as a scalar counter (so reverse mode works and the StableHLO
carries no iota array of indices), staged bounds give a `while`. Printed jaxprs are
JAX's exactly (an outer equation's unread output prints `_`), and values are JAX's,
recorded from /work/jaxref (jax 0.10.2).

Bounds are "static" by JAX's rule (`core.is_concrete`): Python/NumPy scalars and Arrays
are; a value computed inside the traced function is not, even where astjax knows it
(`jnp.int32(4)` under jit), so that loop is a `while`, as in JAX. JAX then refuses
reverse mode under jit; astjax differentiates it, by scans when the trip count is known."""
import re

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax
from astjax.transforms.dce import dce_closed


def f1(x):
    return lax.fori_loop(0, 3, lambda i, c: c * 2.0 + i, x)


def f2(x):
    return lax.fori_loop(2, 5, lambda i, c: (c[0] + i, c[1] * c[0]), (x, x))


def f3(x, n):
    return lax.fori_loop(0, n, lambda i, c: c + i, x)


def f5(x):
    def body(c, _):
        return lax.fori_loop(0, 2, lambda i, v: v * 2.0 + i, c), None
    return lax.scan(body, x, None, length=3)[0]


def f4(x):
    return lax.fori_loop(1, 6, lambda i, c: jnp.sin(c) * i + c[i % 3], x)


# `jax.make_jaxpr(f)(...)` printed by jax 0.10.2.
JAX_F1 = """\
{ lambda ; a:f32[]. let
    _:i32[] b:f32[] = scan[
      jaxpr={ lambda ; c:i32[] d:f32[]. let
          e:i32[] = add c 1:i32[]
          f:f32[] = mul d 2.0:f32[]
          g:f32[] = convert_element_type[new_dtype=float32 weak_type=True] c
          h:f32[] = add f g
        in (e, h) }
      length=3
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] 0:i32[] a
  in (b,) }"""

JAX_F2 = """\
{ lambda ; a:f32[]. let
    _:i32[] b:f32[] c:f32[] = scan[
      jaxpr={ lambda ; d:i32[] e:f32[] f:f32[]. let
          g:i32[] = add d 1:i32[]
          h:f32[] = convert_element_type[new_dtype=float32 weak_type=True] d
          i:f32[] = add e h
          j:f32[] = mul f e
        in (g, i, j) }
      length=3
      num_carry=3
      num_consts=0
      reverse=False
      unroll=1
    ] 2:i32[] a a
  in (b, c) }"""

JAX_F3 = """\
{ lambda ; a:f32[] b:i32[]. let
    _:i32[] _:i32[] c:f32[] = while[
      body_jaxpr={ lambda ; d:i32[] e:i32[] f:f32[]. let
          g:i32[] = add d 1:i32[]
          h:f32[] = convert_element_type[new_dtype=float32 weak_type=True] d
          i:f32[] = add f h
        in (g, e, i) }
      body_nconsts=0
      cond_jaxpr={ lambda ; j:i32[] k:i32[] l:f32[]. let
          m:bool[] = lt j k
        in (m,) }
      cond_nconsts=0
    ] 0:i32[] b a
  in (c,) }"""

JAX_F5 = """\
{ lambda ; a:f32[]. let
    b:f32[] = scan[
      jaxpr={ lambda ; c:f32[]. let
          d:i32[] e:f32[] = scan[
            jaxpr={ lambda ; f:i32[] g:f32[]. let
                h:i32[] = add f 1:i32[]
                i:f32[] = mul g 2.0:f32[]
                j:f32[] = convert_element_type[new_dtype=float32 weak_type=True] f
                k:f32[] = add i j
              in (h, k) }
            length=2
            num_carry=2
            num_consts=0
            reverse=False
            unroll=1
          ] 0:i32[] c
        in (e,) }
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] a
  in (b,) }"""


@pytest.mark.parametrize("fn,args,expected", [
    (f1, (1.0,), JAX_F1),
    (f2, (1.0,), JAX_F2),
    (f3, (1.0, 3), JAX_F3),
    (f5, (1.0,), JAX_F5),
], ids=["scan", "scan_tuple_carry_from_2", "while_traced_bound", "nested_in_scan"])
def test_printed_jaxpr_is_jax(fn, args, expected):
    assert str(jax.make_jaxpr(fn)(*args)) == expected


def test_unused_outputs_print_as_jax_dropvar():
    """An equation's output that nothing reads prints `_` and takes no name (JAX's
    DropVar); a read one keeps its name (jax 0.10.2 prints `h:f32[] = mul b 2.0`)."""
    text = str(jax.make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x) * 2.0)(1.0))
    assert "    _:i32[] b:f32[] = scan[" in text
    assert "    h:f32[] = mul b 2.0:f32[]\n  in (h,) }" in text
    # only the outer jaxpr's: JAX names the unread counter of a fori_loop nested in a
    # scan body (jax 0.10.2's printing, exactly)
    assert str(jax.make_jaxpr(f5)(1.0)) == JAX_F5


def _while_carry_types(hlo):
    m = re.search(r"stablehlo\.while\(.*?\) : ([^\n]*)", hlo)
    assert m, hlo
    return [t.strip() for t in m.group(1).split(", ")]


def test_stablehlo_has_no_iota_operand():
    """The loop's operands are the scan's step counter, the fori index and the carry:
    all scalars, no tensor<3xi32> of indices built by an iota."""
    hlo = jax.jit(f1).lower(1.0).as_text()
    assert "stablehlo.iota" not in hlo
    assert "dynamic_slice" not in hlo
    assert _while_carry_types(hlo) == ["tensor<i32>", "tensor<i32>", "tensor<f32>"]
    x = np.array([0.3, -1.2, 2.0], np.float32)
    hlo = jax.jit(f4).lower(x).as_text()
    assert "stablehlo.iota" not in hlo
    assert _while_carry_types(hlo) == ["tensor<i32>", "tensor<i32>", "tensor<3xf32>"]
    # a long loop carries no array of its length
    hlo = jax.jit(lambda x: lax.fori_loop(0, 1000, lambda i, c: c + i, x)).lower(1.0).as_text()
    assert "1000xi32" not in hlo and "stablehlo.iota" not in hlo


def test_grad_jaxpr_has_no_iota():
    text = str(jax.make_jaxpr(jax.grad(lambda x: f4(x).sum()))(np.ones(3, np.float32)))
    assert "iota" not in text and "scan[" in text


def test_values_and_reverse_mode_match_jax():
    # jax 0.10.2: f1(1.5), grad(f1)(1.5), f2(1.5), grad(f2(.)[1])(1.5)
    assert float(f1(1.5)) == 16.0
    assert float(jax.grad(f1)(1.5)) == 8.0
    assert float(jax.jit(jax.grad(f1))(1.5)) == 8.0
    a, b = f2(1.5)
    assert (float(a), float(b)) == (10.5, 51.1875)
    assert float(jax.grad(lambda x: f2(x)[1])(1.5)) == 90.75
    x = np.array([0.3, -1.2, 2.0], np.float32)
    np.testing.assert_allclose(np.asarray(f4(x)),
                               [-4.110263347625732, -4.190031051635742, -5.966662883758545],
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.jit(jax.grad(lambda x: f4(x).sum()))(x)),
                               [1.4250484704971313, -47.87374496459961, 28.622976303100586],
                               rtol=1e-5)
    np.testing.assert_allclose(np.asarray(jax.vmap(f1)(x)), [6.4, -5.6, 20.0], rtol=1e-6)


def test_reverse_mode_by_finite_differences_x64(x64):
    def g(x):
        return lax.fori_loop(0, 4, lambda i, c: jnp.cos(c) * (i + 1.0), x).sum()
    x = np.array([0.1, 0.7], np.float64)
    gr = np.asarray(jax.grad(g)(x))
    eps = 1e-6
    fd = [(float(g(x + eps * e)) - float(g(x - eps * e))) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(gr, fd, rtol=1e-6)
    # and the counter carries the default integer dtype with x64 on
    assert "_:i64[]" in str(jax.make_jaxpr(g)(x))


def test_empty_range_float_bounds_and_unroll():
    # jax 0.10.2: upper <= lower runs no step; float bounds truncate; unroll=True runs all
    assert float(lax.fori_loop(3, 1, lambda i, c: c + i, 1.0)) == 1.0
    assert float(lax.fori_loop(0.0, 3.7, lambda i, c: c + i, 1.0)) == 4.0
    assert float(jax.jit(lambda x: lax.fori_loop(0, 4, lambda i, c: c + i, x,
                                                 unroll=True))(1.0)) == 7.0
    text = str(jax.make_jaxpr(lambda x: lax.fori_loop(0, 4, lambda i, c: c + i, x,
                                                       unroll=2))(1.0))
    assert "unroll=2" in text and "length=4" in text


def test_unroll_with_traced_bounds_is_jax_value_error():
    # jax 0.10.2: ValueError("Can only use `unroll` in `fori_loop` if the loop bounds
    # are statically known.")
    from astjax.errors import AstjaxError
    with pytest.raises(ValueError, match="unroll") as e:
        jax.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c + i, x, unroll=2))(1.0, 3)
    assert isinstance(e.value, AstjaxError)
    # unroll=1 / False is accepted there, as in JAX
    assert float(jax.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c + i, x,
                                                     unroll=1))(1.0, 3)) == 4.0


def test_long_loop_value_is_jax_bit_for_bit():
    """JAX's program, so JAX's float32 rounding: jax 0.10.2 gives 199.0025177001953;
    the scan over an iota of indices, another XLA program, gave 199.00311279296875."""
    def f(x):
        return lax.fori_loop(0, 200000, lambda i, c: c * 0.999 + i * 1e-6, x)
    assert float(jax.jit(f)(np.float32(1.0))) == 199.0025177001953


# ---- staged bounds: JAX's `while`, even when astjax knows their value ---------------

def _body(i, c):
    return c * 2.0 + i


_CLOSED_N = jnp.int32(4)

# name: (fori_loop of x, loop primitive jax 0.10.2 stages, f(1.5), grad(f)(1.5))
BOUNDS = {
    "jnp_int32": (lambda x: lax.fori_loop(0, jnp.int32(4), _body, x), "while", 35.0, 16.0),
    "jnp_array": (lambda x: lax.fori_loop(0, jnp.array(4), _body, x), "while", 35.0, 16.0),
    "summed": (lambda x: lax.fori_loop(jnp.int32(1), jnp.sum(jnp.ones(4, jnp.int32)), _body, x),
               "while", 23.0, 8.0),
    "empty": (lambda x: lax.fori_loop(jnp.int32(3), jnp.int32(1), _body, x), "while", 1.5, 1.0),
    "numpy_ints": (lambda x: lax.fori_loop(np.int32(0), np.int32(4), _body, x), "scan", 35.0, 16.0),
    "closed_array": (lambda x: lax.fori_loop(0, _CLOSED_N, _body, x), "scan", 35.0, 16.0),
    "shape_int": (lambda x: lax.fori_loop(0, jnp.ones(4).shape[0], _body, x), "scan", 35.0, 16.0),
}


def _loops(closed):
    return [e.primitive.name for e in closed.jaxpr.eqns if e.primitive.name in ("scan", "while")]


@pytest.mark.parametrize("name", list(BOUNDS))
def test_loop_kind_follows_jax_trace_time_rule(name):
    """JAX makes a scan only for bounds it knows at trace time (Python/NumPy scalars,
    Arrays); a bound computed inside the traced function is a tracer there, so the loop
    is a `while` -- also under vmap. Values and eager grad are JAX's (recorded)."""
    f, kind, value, grad = BOUNDS[name]
    assert _loops(jax.make_jaxpr(f)(1.0)) == [kind]
    assert _loops(jax.make_jaxpr(jax.vmap(f))(jnp.ones(2))) == [kind]
    assert float(f(1.5)) == value and float(jax.jit(f)(1.5)) == value
    assert float(jax.grad(f)(1.5)) == grad


def test_staged_bound_prints_jax_while():
    # jax 0.10.2's `make_jaxpr(lambda x: lax.fori_loop(0, jnp.int32(4), body, x))(1.0)`
    assert str(jax.make_jaxpr(BOUNDS["jnp_int32"][0])(1.0)) == """\
{ lambda ; a:f32[]. let
    _:i32[] _:i32[] b:f32[] = while[
      body_jaxpr={ lambda ; c:i32[] d:i32[] e:f32[]. let
          f:i32[] = add c 1:i32[]
          g:f32[] = mul e 2.0:f32[]
          h:f32[] = convert_element_type[new_dtype=float32 weak_type=True] c
          i:f32[] = add g h
        in (f, d, i) }
      body_nconsts=0
      cond_jaxpr={ lambda ; j:i32[] k:i32[] l:f32[]. let
          m:bool[] = lt j k
        in (m,) }
      cond_nconsts=0
    ] 0:i32[] 4:i32[] a
  in (b,) }"""


def test_reverse_mode_through_staged_bounds_under_jit():
    """JAX raises ValueError ("Reverse-mode differentiation does not work for
    lax.while_loop or lax.fori_loop with dynamic start/stop values") for
    jit(grad(f)) here; astjax differentiates the `while` and gives the value JAX's
    eager grad (a scan there) gives, recorded from jax 0.10.2."""
    for name, (f, kind, _, grad) in BOUNDS.items():
        assert float(jax.jit(jax.grad(f))(1.5)) == grad, name

    def closure(y):  # a differentiated value read by the body (a linear body const)
        return lax.fori_loop(0, jnp.int32(3), lambda i, c: c * y + i, 1.0)
    assert float(closure(1.3)) == 5.496999740600586
    assert float(jax.jit(jax.grad(closure))(1.3)) == 6.069999694824219

    def h(x):
        return lax.fori_loop(0, jnp.int32(4), lambda i, c: jnp.cos(c) * (i + 1.0), x).sum()
    x = np.array([0.1, 0.7], np.float32)
    assert float(jax.jit(h)(x)) == 4.4298787117004395
    np.testing.assert_allclose(np.asarray(jax.jit(jax.grad(h))(x)),
                               [1.7519100904464722, 3.9621918201446533], rtol=1e-6)


def test_known_trip_count_transposes_as_scans():
    """A `while` whose trip count is known while staging (fori_loop's shape over known
    staged bounds) is reverse-differentiated by a scan keeping every state and a reverse
    scan, not by the checkpointing `while` a run-time trip count needs: the cost of
    the scan it was before JAX's rule was followed."""
    def f(x):
        return lax.fori_loop(0, jnp.int32(20), lambda i, v: v * 0.999 + jnp.sin(v) * 1e-3, x)
    # (the program lowered: make_jaxpr also shows the primal `while` left dead)
    text = str(dce_closed(jax.make_jaxpr(jax.grad(f))(1.0)))
    assert "while[" not in text and text.count("scan[") == 2 and "reverse=True" in text
    assert "f32[20]" in text and "f32[1024]" not in text  # every state, no checkpoint buffer
    g = jax.jit(jax.grad(lambda x: lax.fori_loop(0, 20, lambda i, v: v * 0.999
                                                 + jnp.sin(v) * 1e-3, x)))
    assert float(jax.jit(jax.grad(f))(1.0)) == float(g(1.0))

    def w(x):  # the same loop written as a while_loop
        return lax.while_loop(lambda s: s[0] < s[1],
                              lambda s: (s[0] + 1, s[1], s[2] * 0.999 + jnp.sin(s[2]) * 1e-3),
                              (jnp.int32(0), jnp.int32(20), x))[2]
    text = str(dce_closed(jax.make_jaxpr(jax.grad(w))(1.0)))
    assert "while[" not in text and text.count("scan[") == 2
    assert float(jax.jit(jax.grad(w))(1.0)) == float(g(1.0))
    # a run-time trip count keeps the checkpointing while
    text = str(jax.make_jaxpr(jax.grad(lambda x, n: lax.fori_loop(0, n, lambda i, v: jnp.sin(v),
                                                                  x)))(1.0, 3))
    assert "while[" in text and "f32[1024]" in text


def test_long_loop_with_staged_bound_is_jax_bit_for_bit():
    # jax 0.10.2: jit of this gives 199.0025177001953 (a while there), grad 0.0
    def f(x):
        return lax.fori_loop(0, jnp.int32(200000), lambda i, c: c * 0.999 + i * 1e-6, x)
    assert float(jax.jit(f)(np.float32(1.0))) == 199.0025177001953
    assert float(jax.jit(jax.grad(f))(np.float32(1.0))) == 0.0
