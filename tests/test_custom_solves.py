"""`lax.custom_linear_solve` and `lax.custom_root`: values and derivatives against JAX
0.10.2's stored ones (tests/oracle/record_custom_solves.py), float64 finite differences,
the transformations' compositions (jit, grad, jvp, vmap, jit(grad), converted source),
the one-equation mechanism, and JAX's errors for bad input."""
import json
import types
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import AstjaxError
from astjax.source_api import compile_source
from astjax.test_util import check_grads

from oracle import record_custom_solves as rec

STORED = json.loads(Path(rec.__file__).with_name("custom_solves.json").read_text())
M = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax)
INPUTS = rec.inputs()


def _run(fn, args):
    res = fn(M, *[INPUTS[a] for a in args])
    return res if isinstance(res, tuple) else (res,)


@pytest.mark.parametrize("name,fn,args", rec.CASES, ids=[c[0] for c in rec.CASES])
def test_values_and_derivatives_as_jax(name, fn, args):
    res = _run(fn, args)
    want = STORED[name]
    assert len(res) == len(want)
    for got, w in zip(res, want):
        got = np.asarray(got)
        assert str(got.dtype) == w["dtype"], (name, got.dtype, w["dtype"])
        assert list(got.shape) == w["shape"], (name, got.shape)
        ref = rec.decode(w)
        tol = 1e-3 if name == "root_aux" else 2e-4   # a residual near float32's epsilon
        np.testing.assert_allclose(got, ref, rtol=2e-3, atol=tol * max(1.0, np.abs(ref).max()),
                                   err_msg=name)


# the same cases staged once: every transformation of the primitive also under jit
@pytest.mark.parametrize("name", ["dense_grad", "cg_grad", "tree_grad", "vmap_ab_grad",
                                  "sqrt_grad", "fixed_point_grad"])
def test_jitted_derivatives_equal_eager(name):
    _, fn, args = next(c for c in rec.CASES if c[0] == name)
    eager = _run(fn, args)
    jitted = jax.jit(lambda *xs: fn(M, *xs))(*[INPUTS[a] for a in args])
    jitted = jitted if isinstance(jitted, tuple) else (jitted,)
    for e, j in zip(eager, jitted):
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-5, atol=1e-6)

# ------------------------------------------------------------ finite differences (f64)


def _r(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape)


def _spd(n):
    s = _r(n, n, seed=3)
    return s @ s.T + n * np.eye(n)


FD = [
    ("dense", lambda a, b: rec.dense_solve(M, a, b), (_r(4, 4) + 4 * np.eye(4), _r(4, seed=1))),
    # CG solves symmetric systems only: perturbations must keep the matrix symmetric
    ("cg", lambda a, b: rec.cg_solve(M, a + a.T, b), (_spd(4) / 2, _r(4, seed=1))),
    ("tree", lambda a, b: rec.tree_solve(M, a, b), (_r(4, 4) + 4 * np.eye(4), _r(4, seed=2))),
    ("sqrt", lambda c: rec.sqrt_newton(M, c), (np.float64(2.5),)),
    ("fixed_point", lambda w, u: rec.fixed_point(M, w, u), (0.3 * _r(3, 3), _r(3, seed=4))),
]


@pytest.mark.parametrize("name,f,args", FD, ids=[c[0] for c in FD])
def test_derivatives_finite_differences(name, f, args, x64):
    check_grads(f, args, order=1, modes=("fwd", "rev"), atol=1e-6, rtol=1e-6)


def test_second_order_finite_differences(x64):
    check_grads(lambda c: rec.sqrt_newton(M, c), (np.float64(2.5),), order=2,
                modes=("fwd", "rev"), atol=1e-6, rtol=1e-6)
    check_grads(lambda a, b: rec.dense_solve(M, a, b), (_r(3, 3) + 3 * np.eye(3), _r(3)),
                order=2, modes=("rev",), atol=1e-5, rtol=1e-5)

# --------------------------------------------------------------------- mechanism


def _eqns(jaxpr, name):
    return [e for e in jaxpr.jaxpr.eqns if e.primitive.name == name]


def test_make_jaxpr_shows_one_custom_linear_solve():
    a, b = INPUTS["a"], INPUTS["b"]
    closed = jax.make_jaxpr(lambda a, b: rec.dense_solve(M, a, b))(a, b)
    [eqn] = _eqns(closed, "custom_linear_solve")
    assert len(closed.jaxpr.eqns) == 1
    # symmetric=True: vecmat is matvec and transpose_solve is solve
    sym = jax.make_jaxpr(lambda a, b: rec.cg_solve(M, a, b))(INPUTS["spd"], b)
    [eqn] = _eqns(sym, "custom_linear_solve")
    text = str(sym)
    assert text.count("custom_linear_solve[") == 1
    for field in ("matvec=", "vecmat=", "solve=", "transpose_solve=", "const_lengths="):
        assert field in text
    assert str(eqn.params["transpose_solve"]) == str(eqn.params["solve"])
    assert str(eqn.params["vecmat"]) == str(eqn.params["matvec"])


def test_derivative_is_a_second_linear_solve_not_the_solver_differentiated():
    """jvp: dx is another custom_linear_solve; grad: its transpose (the transposed
    system), never the JVP of the solver (whose while loops would not transpose)."""
    a, b = INPUTS["spd"], INPUTS["b"]
    closed = jax.make_jaxpr(jax.grad(lambda a, b: jnp.sum(rec.cg_solve(M, a, b)),
                                     (0, 1)))(a, b)
    eqns = _eqns(closed, "custom_linear_solve")
    assert len(eqns) == 2, closed
    jv = jax.make_jaxpr(lambda a, b: jax.jvp(lambda b: rec.dense_solve(M, a, b), (b,),
                                             (b,)))(INPUTS["a"], b)
    assert len(_eqns(jv, "custom_linear_solve")) == 2


def test_grad_with_a_while_loop_solver():
    """The solver may be a `while` loop that reverse mode cannot differentiate through:
    only the transpose solve runs backwards."""
    a, b = INPUTS["spd"], INPUTS["b"]

    def jacobi(mv, y):
        d = jnp.diag(a)

        def body(c):
            x, k = c
            return x + (y - mv(x)) / d, k + 1
        return lax.while_loop(lambda c: c[1] < 200, body, (jnp.zeros_like(y), 0))[0]

    def f(a_, b):
        return jnp.sum(jnp.sin(lax.custom_linear_solve(lambda x: a_ @ x, b, jacobi,
                                                       symmetric=True)))
    dd = 4 * np.eye(4, dtype=np.float32) + np.diag(np.abs(a).sum(1))   # diagonally dominant
    a = (a + dd).astype(np.float32)
    g = jax.jit(jax.grad(f, (0, 1)))(a, b)
    x = np.linalg.solve(a, b)
    ct_b = np.linalg.solve(a.T, np.cos(x))
    np.testing.assert_allclose(np.asarray(g[1]), ct_b, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(g[0]), -np.outer(ct_b, x), rtol=1e-4, atol=1e-5)


def test_vmap_over_the_matrix_closure_and_b():
    as_, bs = INPUTS["as"], INPUTS["bs"]
    got = jax.vmap(lambda a, b: rec.dense_solve(M, a, b))(as_, bs)
    want = np.stack([np.linalg.solve(a, b) for a, b in zip(as_, bs)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5)
    # b mapped on another axis, the matrix unmapped
    got = jax.vmap(lambda b: rec.dense_solve(M, INPUTS["a"], b), in_axes=1)(bs.T)
    np.testing.assert_allclose(np.asarray(got), np.linalg.solve(INPUTS["a"], bs.T).T,
                               rtol=1e-4, atol=1e-5)


def test_source_of_grad_runs_and_matches():
    a, b = INPUTS["a"], INPUTS["b"]
    g = jax.grad(lambda a, b: jnp.sum(jnp.sin(rec.dense_solve(M, a, b))), (0, 1))
    src = jax.source(g, a, b)
    assert "custom_linear_solve" in src
    again = jax.jit(compile_source(src))(a, b)
    for x, y in zip(again, g(a, b)):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6)
    r = jax.grad(lambda c: rec.sqrt_newton(M, c))
    again = jax.jit(compile_source(jax.source(r, np.float32(2.5))))
    np.testing.assert_allclose(np.asarray(again(np.float32(2.5))),
                               0.5 / np.sqrt(2.5), rtol=1e-5)


def test_solve_derivative_uses_the_primitive():
    """jnp.linalg.solve is JAX's custom_linear_solve on a's LU (item 3 of the issue)."""
    a, b = INPUTS["a"], INPUTS["b"]
    closed = jax.make_jaxpr(jnp.linalg.solve)(a, b)
    assert len(_eqns(closed, "custom_linear_solve")) == 1
    assert len(_eqns(closed, "lu")) == 1

# ------------------------------------------------------------------------ errors


def test_bad_matvec_structure_is_a_type_error():
    b = INPUTS["b"]
    with pytest.raises(TypeError, match=r"matvec\(\) output pytree structure must match b") \
            as e:
        lax.custom_linear_solve(lambda x: (x, x), b, lambda mv, y: y)
    assert isinstance(e.value, AstjaxError)
    assert "test_custom_solves.py" in str(e.value)


def test_bad_shapes_are_value_errors():
    b = INPUTS["b"]
    with pytest.raises(ValueError, match=r"matvec\(\) output shapes must match b") as e:
        lax.custom_linear_solve(lambda x: x[:2], b, lambda mv, y: y)
    assert isinstance(e.value, AstjaxError)
    assert "test_custom_solves.py" in str(e.value)
    with pytest.raises(ValueError, match=r"solve\(\) output shapes must match b"):
        lax.custom_linear_solve(lambda x: x, b, lambda mv, y: jnp.concatenate([y, y]))


def test_has_aux_without_a_pair_is_a_value_error():
    with pytest.raises(ValueError, match="auxiliary output was expected"):
        lax.custom_linear_solve(lambda x: x, INPUTS["b"], lambda mv, y: y, has_aux=True)
    with pytest.raises(ValueError, match="auxiliary output was expected"):
        lax.custom_root(lambda x: x - 1.0, 0.0, lambda f, x: x, lambda g, y: y, has_aux=True)


def test_custom_root_structure_errors():
    with pytest.raises(TypeError, match=r"f\(\) output pytree structure must match "
                                        "initial_guess"):
        lax.custom_root(lambda x: (x, x), 1.0, lambda f, x: x, lambda g, y: y)
    with pytest.raises(TypeError, match=r"tangent_solve\(\) output pytree structure"):
        lax.custom_root(lambda x: x - 2.0, 1.0, lambda f, x: x, lambda g, y: (y, y))


def test_reverse_mode_without_transpose_solve_raises_as_jax():
    a, b = INPUTS["a"], INPUTS["b"]

    def f(b):
        return jnp.sum(lax.custom_linear_solve(lambda x: a @ x, b,
                                               lambda mv, y: jnp.linalg.solve(a, y)))
    with pytest.raises(TypeError, match="transpose_solve required"):
        jax.grad(f)(b)
    # forward mode needs no transpose solve
    _, t = jax.jvp(f, (b,), (b,))
    np.testing.assert_allclose(float(t), float(np.sum(np.linalg.solve(a, b))), rtol=1e-4)


def test_solver_changing_the_dtype_is_a_located_type_error():
    b = INPUTS["b"]
    with pytest.raises(TypeError, match=r"solve\(\) output dtypes must match b") as e:
        lax.custom_linear_solve(lambda x: x, b, lambda mv, y: y.astype(jnp.int32))
    assert isinstance(e.value, AstjaxError)
    assert "test_custom_solves.py" in str(e.value)
