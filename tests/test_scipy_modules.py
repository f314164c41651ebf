"""The `jax.scipy` submodules beyond linalg / special / stats: values and derivatives
against JAX 0.10.2's stored ones (tests/oracle/record_scipy_modules.py), the same
cases under jit, float64 finite differences of derivatives, and JAX's error classes
for bad input."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from astjax.scipy.sparse import linalg as spla
from astjax.test_util import check_grads

from oracle import record_scipy_modules as rec

STORED = json.loads(Path(rec.__file__).with_name("scipy_modules.json").read_text())
M = rec.namespace(jax)
INPUTS = rec.inputs()
# iterative solvers stop at a tolerance: their results agree to about that
LOOSE = {"bicgstab", "gmres", "gmres_incr", "cg", "cg_maxiter", "bicgstab_maxiter",
         "gmres_restart"}


def _run(fn, args, wrap=None):
    f = (lambda *xs: fn(M, *xs)) if wrap is None else wrap(lambda *xs: fn(M, *xs))
    res = f(*[INPUTS[a] for a in args])
    return tuple(res) if isinstance(res, (tuple, list)) else (res,)


def _compare(name, res, want, check_dtype=True):
    assert len(res) == len(want), name
    for got, w in zip(res, want):
        got = np.asarray(got)
        if check_dtype:
            assert str(got.dtype) == w["dtype"], (name, got.dtype, w["dtype"])
        assert list(got.shape) == w["shape"], (name, got.shape)
        ref = rec.decode(w)
        scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
        rtol = 2e-3 if name.split("_")[0] in {n.split("_")[0] for n in LOOSE} else 2e-4
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol * scale, err_msg=name)


@pytest.mark.parametrize("name,fn,args", rec.CASES, ids=[c[0] for c in rec.CASES])
def test_values_and_derivatives_as_jax(name, fn, args):
    _compare(name, _run(fn, args), STORED[name])


@pytest.mark.parametrize("name,fn,args", rec.CASES, ids=[c[0] for c in rec.CASES])
def test_jitted_as_jax(name, fn, args):
    _compare(name, _run(fn, args, jax.jit), STORED[name])

# ------------------------------------------------------------ sparse.linalg


def _r(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape)


def _spd(n, seed=3):
    s = _r(n, n, seed=seed)
    return s @ s.T + n * np.eye(n)


@pytest.mark.parametrize("solver", ["cg", "bicgstab", "gmres"])
def test_sparse_solvers_finite_differences(solver, x64):
    a0 = _spd(4) if solver == "cg" else _r(4, 4) + 4 * np.eye(4)
    sym = solver == "cg"      # CG solves symmetric systems: keep perturbations symmetric
    f = getattr(spla, solver)

    def solve(a, b):
        a = (a + a.T) / 2 if sym else a
        return f(lambda v: a @ v, b, tol=1e-12)[0]
    check_grads(solve, (a0, _r(4, seed=1)), order=1, modes=("fwd", "rev"))


def test_sparse_solve_is_one_linear_solve_equation():
    a, b = INPUTS["spd"], INPUTS["b"]
    text = str(jax.make_jaxpr(lambda b: spla.cg(a, b)[0])(b))
    assert text.count("custom_linear_solve") == 1
    # the derivative is a second solve, not the while loop differentiated
    grad_text = str(jax.make_jaxpr(jax.grad(lambda b: jnp.sum(spla.cg(a, b)[0] ** 2)))(b))
    assert grad_text.count("custom_linear_solve") == 2


def test_sparse_solvers_agree_with_numpy_solve():
    a, b = INPUTS["gen"], INPUTS["b"]
    want = np.linalg.solve(a.astype(np.float64), b)
    for f in (spla.bicgstab, spla.gmres):
        np.testing.assert_allclose(np.asarray(f(a, b, tol=1e-7)[0]), want, rtol=1e-4,
                                   atol=1e-5)


@pytest.mark.parametrize("call,cls,msg", [
    (lambda: spla.cg(np.ones((3, 4), np.float32), np.ones(3, np.float32)), ValueError,
     r"linear operator must be a square matrix, but has shape: \(3, 4\)"),
    (lambda: spla.cg("A", np.ones(3, np.float32)), TypeError,
     "linear operator must be either a function or ndarray"),
    (lambda: spla.bicgstab(np.eye(3, dtype=np.float32), np.ones(3, np.float32),
                           x0=np.ones(2, np.float32)),
     ValueError, "arrays in x0 and b must have matching shapes"),
    (lambda: spla.cg(np.eye(3, dtype=np.float32), np.ones(3, np.float32),
                     x0=(np.ones(3, np.float32),)),
     ValueError, "x0 and b must have matching tree structure"),
    (lambda: spla.gmres(np.eye(3, dtype=np.float32), np.ones(3, np.float32),
                        solve_method="qr"),
     ValueError, "invalid solve_method qr, must be either 'incremental' or 'batched'"),
])
def test_sparse_bad_inputs_raise_jax_classes(call, cls, msg):
    with pytest.raises(cls, match=msg) as e:
        call()
    assert isinstance(e.value, AstjaxError)
    assert "test_scipy_modules.py" in str(e.value)
