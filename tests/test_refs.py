"""Mutable array references (`jax.new_ref`, `jax.ref`, issue 13): the state primitives
(`astjax/primitives/state.py`) printed as JAX prints them, their discharge
(`transforms/discharge.py`) under jit / grad / jvp / vjp / vmap, references closed
over by `scan` / `fori_loop` / `while_loop` / `cond` and by converted Python loops and
`if`s, eager `Ref`s, and JAX's errors. Expected values were computed with jax 0.10.2
(the same programs, `import jax`); Python loops on a staged trip count, which JAX
cannot trace, are checked against plain Python."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import core, lax
from astjax.errors import AstjaxError
from astjax.transforms.discharge import discharge_closed, uses_refs

X = jnp.arange(3.)


def f_example(x):
    r = jax.new_ref(x)
    r[...] += 1.
    r[0] = 5.
    return jax.freeze(r)


def g_example(x):
    r = jax.new_ref(jnp.zeros(()))

    def body(c, xi):
        r[...] += xi * c
        return c, None
    lax.scan(body, 2., x)
    return r[...]


def fori_acc(x):
    r = jax.new_ref(jnp.zeros(()))

    def body(i, c):
        r[...] += x[i] * c
        return c * 2.
    lax.fori_loop(0, 3, body, 1.)
    return r[...]


def while_acc(x, n):
    r = jax.new_ref(jnp.zeros(3))

    def body(c):
        r[...] += x * c
        return c + 1
    lax.while_loop(lambda c: c < n, body, 0)
    return r[...]


def cond_write(x, p):
    r = jax.new_ref(x)

    def yes():
        r[0] = 10.

    def no():
        r[1] = 20.
    lax.cond(p > 0, yes, no)
    return jax.freeze(r)


def py_for(x):
    r = jax.new_ref(jnp.zeros(()))
    for i in range(3):
        r[...] += x[i] * 2.
    return r[...]


def py_while(x, n):
    r = jax.new_ref(jnp.zeros(()))
    i = 0
    while i < n:
        r[...] += x[i]
        i += 1
    return r[...]


def py_if(x):
    r = jax.new_ref(x)
    if x.sum() > 0:
        r[0] = 7.
    else:
        r[2] = 9.
    return jax.freeze(r)


def local_ref(x):
    r = jax.new_ref(x)
    r[0] = 1.
    return jax.freeze(r) * 2


# ------------------------------------------------------------------ values vs JAX

CASES = [  # name, call, JAX 0.10.2's value
    ("example jit", lambda: jax.jit(f_example)(jnp.ones(3)), [5., 2., 2.]),
    ("example eager", lambda: f_example(jnp.ones(3)), [5., 2., 2.]),
    ("scan jit", lambda: jax.jit(g_example)(X), 6.),
    ("scan grad", lambda: jax.grad(g_example)(X), [2., 2., 2.]),
    ("fori jit", lambda: jax.jit(fori_acc)(X), 10.),
    ("fori grad", lambda: jax.grad(fori_acc)(X), [1., 2., 4.]),
    ("while jit", lambda: jax.jit(while_acc)(X, 3), [0., 3., 6.]),
    ("while grad", lambda: jax.grad(lambda x: while_acc(x, 3).sum())(X), [3., 3., 3.]),
    ("cond true", lambda: jax.jit(cond_write)(X, 1), [10., 1., 2.]),
    ("cond false", lambda: jax.jit(cond_write)(X, -1), [0., 20., 2.]),
    ("python for", lambda: jax.jit(py_for)(X), 6.),
    ("python for grad", lambda: jax.grad(py_for)(X), [2., 2., 2.]),
    ("python while", lambda: jax.jit(py_while)(X, 2), 1.),          # Python's value
    ("python if", lambda: jax.jit(py_if)(X), [7., 1., 2.]),         # Python's value
    ("python if else", lambda: jax.jit(py_if)(-X), [-0., -1., 9.]),  # Python's value
    ("vmap local ref", lambda: jax.vmap(local_ref)(jnp.ones((2, 3))), [[2.] * 3] * 2),
    ("jvp", lambda: jax.jvp(local_ref, (X,), (jnp.ones(3),)), ([2., 2., 4.], [0., 2., 2.])),
    ("vjp", lambda: jax.vjp(local_ref, X)[1](jnp.ones(3)), ([0., 2., 2.],)),
    ("staged index", lambda: jax.jit(lambda x, i: _set_then_freeze(x, i, 0.))(X, 1),
     [0., 0., 2.]),
    ("strided read", lambda: jax.jit(lambda x: jax.new_ref(x)[::2])(X), [0., 2.]),
    ("strided set", lambda: jax.jit(lambda x: _set_then_freeze(x, slice(None, None, 2),
                                                               jnp.array([7., 8.])))(X),
     [7., 1., 8.]),
    ("negative index", lambda: jax.jit(lambda x: jax.new_ref(x)[-1])(X), 2.),
    ("out of bounds clamps", lambda: jax.jit(lambda x: jax.new_ref(x)[5])(X), 2.),
    ("empty_ref", lambda: jax.jit(lambda x: _through_empty(x))(X), [0., 1., 2.]),
]


def _set_then_freeze(x, idx, v):
    r = jax.new_ref(x)
    r[idx] = v
    return jax.freeze(r)


def _through_empty(x):
    r = jax.empty_ref(jax.typeof(x))
    r[...] = x
    y = r[...]
    jax.free_ref(r)
    return y


@pytest.mark.parametrize("name,call,want", CASES, ids=[c[0] for c in CASES])
def test_values_match_jax(name, call, want):
    got = call()
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w, np.float32), rtol=1e-6)
    else:
        np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32), rtol=1e-6)


def test_grad_matches_finite_differences():
    x = np.array([0.3, -1.2, 2.0])
    g = np.asarray(jax.grad(fori_acc)(jnp.asarray(x, jnp.float32)))
    eps, run = 1e-3, jax.jit(fori_acc)
    fd = [(float(run(jnp.asarray(x + eps * e, jnp.float32)))
           - float(run(jnp.asarray(x - eps * e, jnp.float32)))) / (2 * eps)
          for e in np.eye(3)]
    np.testing.assert_allclose(g, fd, rtol=1e-2)

# ------------------------------------------------------------------- printed jaxprs


def test_printed_jaxpr_is_jaxs():
    assert str(jax.make_jaxpr(f_example)(jnp.ones(3))) == """\
{ lambda ; a:f32[3]. let
    b:Ref{f32[3]} = new_ref[kind=None memory_space=None] a
    c:f32[3] <- b[...]
    d:f32[3] = add c 1.0:f32[]
    b[...] <- d
    b[0] <- 5.0:f32[]
    e:f32[3] = freeze b
  in (e,) }"""
    assert str(jax.make_jaxpr(lambda x: jax.ref.swap(jax.new_ref(x), 0, 3.))(jnp.ones(3))) == """\
{ lambda ; a:f32[3]. let
    b:Ref{f32[3]} = new_ref[kind=None memory_space=None] a
    c:f32[], b[0] <- b[0], 3.0:f32[]
  in (c,) }"""
    assert str(jax.make_jaxpr(lambda x: jax.ref.addupdate(jax.new_ref(x), (slice(None),), x))(
        jnp.ones(3))) == """\
{ lambda ; a:f32[3]. let
    b:Ref{f32[3]} = new_ref[kind=None memory_space=None] a
    b[:] += a
  in () }"""


def test_printed_scan_closing_over_a_ref():
    # JAX prints the same body; its scan also moves the loop-invariant carry `2.0`
    # into the consts (num_consts=2, num_carry=0), which astjax's scan does not
    assert str(jax.make_jaxpr(g_example)(X)) == """\
{ lambda ; a:f32[3]. let
    b:Ref{f32[]} = new_ref[kind=None memory_space=None] 0.0:f32[]
    _:f32[] = scan[
      jaxpr={ lambda ; c:Ref{f32[]} d:f32[] e:f32[]. let
          f:f32[] <- c[...]
          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          h:f32[] = mul e g
          i:f32[] = add f h
          j:f32[], c[...] <- c[...], i
        in (d,) }
      length=3
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] b 2.0:f32[] a
    k:f32[] <- b[...]
  in (k,) }"""


def test_discharged_program_has_no_references():
    for fn, args in [(g_example, (X,)), (while_acc, (X, 3)), (cond_write, (X, 1)),
                     (py_if, (X,))]:
        staged = jax.make_jaxpr(fn)(*args)
        assert uses_refs(staged.jaxpr)
        plain = discharge_closed(staged)
        assert not uses_refs(plain.jaxpr)
        core.check_jaxpr(plain)
        np.testing.assert_allclose(np.asarray(core.eval_closed(plain, *args)[0]),
                                   np.asarray(jax.jit(fn)(*args)))


def test_reference_interpreter_runs_the_staged_program():
    # the NumPy `impl` rules act on a mutable Box: the undischarged jaxpr evaluates too
    staged = jax.make_jaxpr(f_example)(jnp.ones(3))
    np.testing.assert_array_equal(core.eval_closed(staged, np.ones(3, np.float32))[0],
                                  [5., 2., 2.])

# --------------------------------------------------------------------------- eager


def test_eager_ref_as_jax():
    r = jax.new_ref(jnp.arange(3.))
    assert repr(r) == "Ref([0., 1., 2.], dtype=float32)"
    assert (r.shape, r.dtype, len(r)) == ((3,), np.float32, 3)
    assert str(jax.typeof(r)) == "Ref{float32[3]}"
    r[...] += 1
    assert repr(r) == "Ref([1., 2., 3.], dtype=float32)"
    assert float(jax.ref.swap(r, 0, 10.)) == 1.
    jax.ref.addupdate(r, slice(1, 3), jnp.ones(2))
    np.testing.assert_array_equal(np.asarray(r[1:]), [3., 4.])
    np.testing.assert_array_equal(np.asarray(jax.freeze(r)), [10., 3., 4.])
    assert repr(jax.new_ref(1.)) == "Ref(1., dtype=float32, weak_type=True)"
    assert str(jax.typeof(jax.new_ref(1.))) == "Ref{float32[]}"
    assert isinstance(r, jax.Ref) and not isinstance(r, jax.Array)
    with pytest.raises(TypeError):
        r + 1


def test_staged_ref_is_a_ref():
    def f(x):
        r = jax.new_ref(x)
        assert isinstance(r, jax.Ref) and isinstance(r, jax.ref.Ref)
        return r[...]
    np.testing.assert_array_equal(np.asarray(jax.jit(f)(X)), [0., 1., 2.])

# -------------------------------------------------------------------------- errors


def _raises(cls, fn, *args, match=None):
    with pytest.raises(cls, match=match) as e:
        fn(*args)
    assert isinstance(e.value, AstjaxError)
    return e.value


def test_errors_as_jax():
    e = _raises(ValueError, jax.jit(lambda x: jax.new_ref(x)), X,
                match="mutable array references cannot be returned")
    assert "test_refs.py" in str(e)          # located at the new_ref
    _raises(TypeError, jax.jit(lambda x: jax.new_ref(x) + 1), X,
            match="requires ndarray or scalar arguments")
    _raises(TypeError, jax.jit(lambda x: jnp.sin(jax.new_ref(x))), X,
            match="sin requires ndarray")

    def freed(x):
        r = jax.new_ref(x)
        jax.free_ref(r)
        return r[...]
    _raises(ValueError, jax.jit(freed), X, match="`get` must be called on `Ref` types")
    _raises(ValueError, jax.jit(lambda x: _set_then_freeze(x, ..., jnp.ones(4))), X,
            match=r"Invalid shape for `swap`. Ref shape: \(3,\). Expected shape: \(3,\). "
                  r"Value shape: \(4,\)")
    _raises(ValueError, jax.jit(lambda x: _set_then_freeze(x, ..., jnp.ones(3, jnp.int32))), X,
            match="Invalid dtype for `swap`. Ref dtype: float32. Value dtype: int32")
    _raises(ValueError, jax.jit(lambda x: _set_then_freeze(x, 0, jnp.ones(3))), X,
            match="Invalid shape for `swap`")
    _raises(ValueError, jax.jit(lambda x: jax.ref.get(x, ...)), X,
            match="`get` must be called on `Ref` types")


EAGER = [  # outside jit: lax control flow whose body closes over an eager Ref
    ("scan", lambda: g_example(X), 6.),
    ("fori_loop", lambda: fori_acc(X), 10.),
    ("while_loop", lambda: while_acc(X, 3), [0., 3., 6.]),
    ("cond true", lambda: cond_write(X, 1), [10., 1., 2.]),
    ("cond false", lambda: cond_write(X, -1), [0., 20., 2.]),
]


@pytest.mark.parametrize("name,call,want", EAGER, ids=[c[0] for c in EAGER])
def test_eager_control_flow_writes_back(name, call, want):
    np.testing.assert_allclose(np.asarray(call()), np.asarray(want, np.float32))


def test_eager_ref_in_a_primitive_is_a_type_error():
    r = jax.new_ref(X)
    _raises(TypeError, lax.sin, r, match="mutable array reference")


def test_jit_mutates_a_ref_argument_in_place():
    # values from jax 0.10.2 running the same calls
    r = jax.new_ref(X)

    @jax.jit
    def acc(ref, x):
        ref[...] += x
        return ref[...] * 2
    np.testing.assert_array_equal(np.asarray(acc(r, X)), [0., 4., 8.])
    np.testing.assert_array_equal(np.asarray(acc(r, X)), [0., 6., 12.])
    assert repr(r) == "Ref([0., 3., 6.], dtype=float32)"

    def loop(ref, xs):          # a converted Python loop writing into the argument
        for i in range(3):
            ref[i] += xs[i]
    assert jax.jit(loop)(r, X) is None
    assert repr(r) == "Ref([0., 4., 8.], dtype=float32)"
    # as jax 0.10.2 prints it: make_jaxpr of a jitted function is one `jit` equation
    assert str(jax.make_jaxpr(acc)(r, X)) == """\
{ lambda ; a:Ref{f32[3]} b:f32[3]. let
    c:f32[3] = jit[
      name=acc
      jaxpr={ lambda ; a:Ref{f32[3]} b:f32[3]. let
          d:f32[3] <- a[...]
          e:f32[3] = add d b
          f:f32[3], a[...] <- a[...], e
          g:f32[3] <- a[...]
          c:f32[3] = mul g 2.0:f32[]
        in (c,) }
    ] a b
  in (c,) }"""


def test_jit_mutates_a_closed_over_ref():
    r = jax.new_ref(X)
    store = jax.jit(lambda y: r.__setitem__(1, y))
    store(3.)
    assert repr(r) == "Ref([0., 3., 2.], dtype=float32)"
    store(4.)                   # the cached program reads and writes `r` again
    assert repr(r) == "Ref([0., 4., 2.], dtype=float32)"


def test_same_ref_twice_is_an_error():
    r = jax.new_ref(X)
    _raises(ValueError, jax.jit(lambda a, b: a.__setitem__(0, b[0])), r, r,
            match="more than once")


def test_ref_from_outside_under_grad_is_a_located_error():
    # JAX raises too ("... on a non-differentiated array reference")
    r = jax.new_ref(X)
    _raises(Exception, jax.grad(lambda y: (r.__setitem__(1, y), r[1])[1]), 3.,
            match="with a differentiated value on a non-differentiated array reference")
    np.testing.assert_array_equal(np.asarray(r[...]), [0., 1., 2.])


# ------------------------------------------------------------------------- jax.ad


def test_vjp_with_refs_as_jax():
    # values from jax 0.10.2 (the same calls)
    def f(x, y):
        return (jnp.sin(x) * y).sum()
    _, pullback = jax.vjp(f, jnp.arange(3.), 2.)
    r = jax.new_ref(jnp.ones(3))
    assert pullback.with_refs(r, jax.ad.DontWant())(1.) == (jax.ad.GradRef(), jax.ad.DidntWant())
    np.testing.assert_allclose(np.asarray(r[...]), [3., 2.0806046, 0.16770631], rtol=1e-6)
    gx, gy = pullback.with_refs(jax.ad.GradValue(), jax.ad.GradValue())(1.)
    np.testing.assert_allclose(np.asarray(gx), [2., 1.0806046, -0.8322937], rtol=1e-6)
    np.testing.assert_allclose(float(gy), 1.7507684, rtol=1e-6)
    _, pb = jax.vjp(lambda p: p["a"] * p["b"], {"a": 2., "b": 3.})
    ra = jax.new_ref(0.)
    (out,) = pb.with_refs({"a": ra, "b": jax.ad.GradValue()})(1.)
    assert out["a"] == jax.ad.GradRef() and float(out["b"]) == 2.
    assert repr(ra) == "Ref(3., dtype=float32, weak_type=True)"
    assert jax.tree_util.tree_leaves([jax.ad.GradRef(), jax.ad.DidntWant(), jax.ad.DontWant(),
                                      jax.ad.GradValue()]) == [jax.ad.DontWant(),
                                                               jax.ad.GradValue()]
    _raises(Exception, pullback.with_refs(r), 1., match="one spec per primal leaf")
    _raises(ValueError, pullback.with_refs(jax.new_ref(jnp.ones(2)), jax.ad.GradValue()), 1.,
            match="Invalid shape for `addupdate`")


def test_source_and_lowering_show_the_discharged_program():
    src = jax.source(f_example, X)
    assert "new_ref" not in src and "dynamic_update_slice" in src
    assert "stablehlo.dynamic_update_slice" in jax.jit(f_example).lower(X).as_text()

# ------------------------------------------------- integer-array indices (NumPy's)

M = jnp.arange(12.).reshape(3, 4)
A02 = jnp.array([0, 2])


def _store(idx, v, add=False):
    def f(x):
        r = jax.new_ref(x)
        if add:
            jax.ref.addupdate(r, idx, v)
        else:
            r[idx] = v
        return jax.freeze(r)
    return f


ARRAY_CASES = [  # name, function of M, jax 0.10.2's value
    ("get rows", lambda x: jax.new_ref(x)[A02], [[0., 1., 2., 3.], [8., 9., 10., 11.]]),
    ("get columns", lambda x: jax.new_ref(x)[:, jnp.array([3, 1])],
     [[3., 1.], [7., 5.], [11., 9.]]),
    ("get pairs", lambda x: jax.new_ref(x)[A02, jnp.array([3, 1])], [3., 9.]),
    ("get broadcast", lambda x: jax.new_ref(x)[jnp.array([[0], [2]]), jnp.array([3, 1])],
     [[3., 1.], [11., 9.]]),
    ("get out of bounds clamps", lambda x: jax.new_ref(x)[jnp.array([5, -1])],
     [[8., 9., 10., 11.], [8., 9., 10., 11.]]),
    ("get int and array", lambda x: jax.new_ref(x)[1, jnp.array([0, 3])], [4., 7.]),
    ("get strided and array", lambda x: jax.new_ref(x)[::2, jnp.array([0, 3])],
     [[0., 3.], [8., 11.]]),
    ("set rows", _store(A02, jnp.ones((2, 4))),
     [[1., 1., 1., 1.], [4., 5., 6., 7.], [1., 1., 1., 1.]]),
    ("set repeated: last wins", _store(jnp.array([0, 0]), jnp.stack([jnp.ones(4), 2 * jnp.ones(4)])),
     [[2., 2., 2., 2.], [4., 5., 6., 7.], [8., 9., 10., 11.]]),
    ("set columns", _store((slice(None), jnp.array([3, 1])), jnp.ones((3, 2))),
     [[0., 1., 2., 1.], [4., 1., 6., 1.], [8., 1., 10., 1.]]),
    ("set out of bounds drops", _store(jnp.array([5, 1]), jnp.ones((2, 4))),
     [[0., 1., 2., 3.], [1., 1., 1., 1.], [8., 9., 10., 11.]]),
    ("add repeated", _store(jnp.array([0, 0]), jnp.ones((2, 4)), add=True),
     [[2., 3., 4., 5.], [4., 5., 6., 7.], [8., 9., 10., 11.]]),
    ("add int and array", _store((1, jnp.array([0, 0, 3])), jnp.ones(3), add=True),
     [[0., 1., 2., 3.], [6., 5., 6., 8.], [8., 9., 10., 11.]]),
]


@pytest.mark.parametrize("name,fn,want", ARRAY_CASES, ids=[c[0] for c in ARRAY_CASES])
def test_integer_array_indices_as_jax(name, fn, want):
    np.testing.assert_array_equal(np.asarray(jax.jit(fn)(M)), np.asarray(want, np.float32))
    # the NumPy reference interpreter on the undischarged program agrees
    staged = jax.make_jaxpr(fn)(M)
    np.testing.assert_array_equal(core.eval_closed(staged, np.asarray(M))[0],
                                  np.asarray(want, np.float32))


def test_integer_array_index_printed_as_jax():
    assert str(jax.make_jaxpr(lambda x, i: jax.new_ref(x)[i, 1:3])(M, A02)) == """\
{ lambda ; a:f32[3,4] b:i32[2]. let
    c:Ref{f32[3,4]} = new_ref[kind=None memory_space=None] a
    d:f32[2,2] <- c[b,1:3]
  in (d,) }"""


def test_integer_array_index_grad():
    # d/dx sum(r[[0, 0, 2]] * w) after r[[1]] = 0: rows 0 (twice) and 2 of w
    def f(x):
        r = jax.new_ref(x)
        r[jnp.array([1])] = jnp.zeros((1, 4))
        return (r[jnp.array([0, 0, 2])] * jnp.arange(3.)[:, None]).sum()
    np.testing.assert_array_equal(np.asarray(jax.grad(f)(M)),
                                  [[1.] * 4, [0.] * 4, [2.] * 4])


def test_weak_types_survive_the_discharge():
    # jax 0.10.2: the fori_loop carry started from `1.` stays weak (eager and under jit)
    r = jax.new_ref(jnp.zeros(()))

    def body(i, c):
        r[...] += X[i] * c
        return c * 2.
    assert lax.fori_loop(0, 3, body, 1.).weak_type
    assert float(r[...]) == 10.

    def local(x):
        q = jax.new_ref(jnp.zeros(()))

        def step(c, xi):
            q[...] += xi
            return c * 2., None
        return lax.scan(step, 1., x)[0]
    assert jax.jit(local)(X).weak_type


def test_local_refs_inside_checkpoint_custom_jvp_and_pmap():
    def sq(x):
        r = jax.new_ref(jnp.zeros(()))
        for i in range(3):
            r[...] += x[i] * x[i]
        return r[...]
    assert float(jax.jit(jax.checkpoint(sq))(X)) == 5.
    np.testing.assert_array_equal(np.asarray(jax.jit(jax.grad(jax.checkpoint(sq)))(X)),
                                  [0., 2., 4.])
    np.testing.assert_array_equal(np.asarray(jax.pmap(sq)(jnp.ones((1, 3)))), [3.])

    @jax.custom_jvp
    def h(x):
        r = jax.new_ref(x)
        r[0] = 1.
        return jax.freeze(r).sum()
    h.defjvp(lambda p, t: (h(p[0]), t[0].sum()))
    assert float(jax.jit(h)(X)) == 4.
    np.testing.assert_array_equal(np.asarray(jax.grad(h)(X)), [1., 1., 1.])


def test_served_as_jax_ref():
    import subprocess
    import sys
    code = ("import astjax; astjax.install_as_jax()\n"
            "import jax, jax.numpy as jnp\n"
            "from jax.ref import AbstractRef, get\n"
            "r = jax.new_ref(jnp.ones(2))\n"
            "print(float(get(r, 0)), isinstance(jax.typeof(r), AbstractRef), jax.ad.GradRef())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.stdout.strip() == "1.0 True GradRef()", out.stderr[-2000:]
