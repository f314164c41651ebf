"""`jax.test_util`: check derivatives against central finite differences.

`check_jvp`, `check_vjp` and `check_grads` follow JAX's contract: one random
direction per check (NumPy's `RandomState(0)`, so a check is repeatable), a step of
`EPS = 1e-4`, and per-dtype tolerances (the gradient table below) scaled by the
number of elements compared. `check_grads(f, args, order)` checks forward and/or
reverse mode and, for `order > 1`, the derivatives of the derivative functions.
A failed check raises `AssertionError` naming what was compared (``JVP of VJP
tangent``, ...).
"""
from __future__ import annotations

import functools

import numpy as np

from . import dtypes
from .ad_api import jvp, linearize, vjp
from .config import config
from .tree_util import tree_map, tree_reduce

__all__ = ["check_grads", "check_jvp", "check_vjp"]

EPS = 1e-4

# Per-dtype tolerances for values and for derivatives (absolute and relative alike).
_VALUE_TOL = {np.dtype(np.bool_): 0, np.dtype(np.int8): 0, np.dtype(np.int16): 0,
              np.dtype(np.int32): 0, np.dtype(np.int64): 0, np.dtype(np.uint8): 0,
              np.dtype(np.uint16): 0, np.dtype(np.uint32): 0, np.dtype(np.uint64): 0,
              np.dtype(dtypes.bfloat16): 1e-2, np.dtype(np.float16): 1e-3,
              np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-15,
              np.dtype(np.complex64): 1e-6, np.dtype(np.complex128): 1e-15}
_GRAD_TOL = {np.dtype(dtypes.bfloat16): 1e-1, np.dtype(np.float16): 1e-2,
             np.dtype(np.float32): 2e-3, np.dtype(np.float64): 1e-5,
             np.dtype(np.complex64): 1e-3, np.dtype(np.complex128): 1e-5}


def _dtype(x) -> np.dtype:
    if hasattr(x, "dtype"):
        return np.dtype(x.dtype)
    if dtypes.is_weak_scalar(x):
        return np.dtype(dtypes.python_scalar_dtype(x))
    return np.asarray(x).dtype


def _is_py_scalar(x) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _tol_of(dtype, tol) -> float:
    if not isinstance(tol, dict):
        return tol
    dtype = np.dtype(dtypes.canonicalize(np.dtype(dtype)))
    return tol.get(dtype, _VALUE_TOL.get(dtype, 0))


def _with_defaults(tol, default):
    if tol is None:
        return default
    if not isinstance(tol, dict):
        return tol
    return {**default, **{np.dtype(k): v for k, v in tol.items()}}


def _assert_close_leaf(a, b, atol, rtol, err_msg):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{err_msg}: shapes {a.shape} and {b.shape} differ"
    at = max(_tol_of(a.dtype, atol), _tol_of(b.dtype, atol)) * a.size
    rt = max(_tol_of(a.dtype, rtol), _tol_of(b.dtype, rtol)) * b.size
    up = lambda x: x.astype(np.float32) if x.dtype == dtypes.bfloat16 else x  # noqa: E731
    kw = {k: v for k, v in (("atol", at), ("rtol", rt)) if v}
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(up(a), up(b), err_msg=err_msg, **kw)


def check_close(xs, ys, atol=None, rtol=None, err_msg=""):
    """Assert two pytrees are elementwise close (tolerances per dtype, scaled by size)."""
    tree_map(lambda a, b: _assert_close_leaf(a, b, atol, rtol, err_msg), xs, ys)


def _assert_dtypes_match(xs, ys):
    def same(x, y):
        dx, dy = _dtype(x), _dtype(y)
        if not config.read("jax_enable_x64"):
            dx, dy = dtypes.canonicalize(dx), dtypes.canonicalize(dy)
        assert dx == dy, f"dtypes differ: {dx} and {dy}"
    tree_map(same, xs, ys)


def _keep_type(fn):
    """Apply a NumPy op leafwise, keeping the first operand's dtype (and Python
    scalars as Python scalars)."""
    def leaf(*xs):
        out = np.array(fn(*xs), dtype=_dtype(xs[0]))
        return out.item() if all(_is_py_scalar(x) for x in xs) else out
    return functools.partial(tree_map, leaf)


_add = _keep_type(lambda x, y: np.add(x, y))
_sub = _keep_type(lambda x, y: np.subtract(x, y))
_conj = _keep_type(np.conj)


def _sub_inf_safe(xs, ys):
    """x - y with inf - inf == 0 (a derivative is 0 where f is infinite on both sides)."""
    def leaf(x, y):
        dt = _dtype(x)
        with np.errstate(invalid="ignore"):
            return np.where(np.equal(x, y), np.array(0, dt), np.subtract(x, y, dtype=dt))
    return tree_map(leaf, xs, ys)


def _scale(xs, a):
    def leaf(x):
        dt = _dtype(x)
        out = np.multiply(x, np.array(a, dtype=dt), dtype=dt)
        return out.item() if _is_py_scalar(x) else out
    return tree_map(leaf, xs)


def _random_like(rng, x):
    dt = _dtype(x)
    draw = lambda: np.asarray(rng.randn(*np.shape(x)), dtype=dt)  # noqa: E731
    out = draw() + dt.type(1j) * draw() if np.issubdtype(dt, np.complexfloating) else draw()
    return out.item() if _is_py_scalar(x) else out


def _inner(xs, ys):
    dot = lambda x, y: np.real(np.dot(np.conj(x).reshape(-1), np.reshape(y, -1)))  # noqa: E731
    return tree_reduce(np.add, tree_map(dot, xs, ys))


def numerical_jvp(f, primals, tangents, eps=EPS):
    """Central difference of `f` at `primals` in direction `tangents`."""
    step = _scale(tangents, eps)
    hi, lo = f(*_add(primals, step)), f(*_sub(primals, step))
    return _scale(_sub_inf_safe(hi, lo), 0.5 / eps)


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """Check `f_jvp(args, tangents) -> (out, tangent_out)` (typically
    `functools.partial(astjax.jvp, f)`) against finite differences of `f` in one
    random direction. Raises AssertionError on a mismatch."""
    atol, rtol = _with_defaults(atol, _GRAD_TOL), _with_defaults(rtol, _GRAD_TOL)
    rng = np.random.RandomState(0)
    tangents = tree_map(lambda x: _random_like(rng, x), args)
    out, t_out = f_jvp(args, tangents)
    _assert_dtypes_match(out, t_out)
    expected = f(*args)
    _assert_dtypes_match(out, expected)
    t_expected = numerical_jvp(f, args, tangents, eps=eps)
    check_close(out, expected, atol, rtol, f"{err_msg} primal" if err_msg else "primal")
    check_close(t_out, t_expected, atol, rtol, f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """Check `f_vjp(*args) -> (out, vjp_fun)` (typically
    `functools.partial(astjax.vjp, f)`) against finite differences: the projection
    <tangent, vjp(cotangent)> must equal <jvp_numerical(tangent), cotangent> for one
    random tangent and cotangent. Raises AssertionError on a mismatch."""
    atol, rtol = _with_defaults(atol, _GRAD_TOL), _with_defaults(rtol, _GRAD_TOL)
    rng = np.random.RandomState(0)
    out, vjp_fun = f_vjp(*args)
    check_close(out, f(*args), atol, rtol, f"{err_msg} primal" if err_msg else "primal")
    tangents = tree_map(lambda x: _random_like(rng, x), args)
    t_out = numerical_jvp(f, args, tangents, eps=eps)
    cotangent = tree_map(lambda x: _random_like(rng, x), out)
    ct_in = _conj(vjp_fun(_conj(cotangent)))
    msg = f"{err_msg} cotangent projection" if err_msg else "cotangent projection"
    check_close(_inner(tangents, ct_in), _inner(t_out, cotangent), atol, rtol, msg)


def _jvp_by_linearize(f, primals, tangents):
    out, f_lin = linearize(f, *primals)
    return out, f_lin(*tangents)


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check derivatives of `f` at `args` up to `order` against finite differences:
    forward mode (``"fwd"``), reverse mode (``"rev"``) and/or `linearize`
    (``"lin"``), each in one random direction. Raises AssertionError on a mismatch."""
    args, eps = tuple(args), eps or EPS
    kw = dict(atol=atol, rtol=rtol, eps=eps)

    def recurse(f, args, order, what):
        def name(mode):
            return f"{mode} of {what}" if what else mode
        if "fwd" in modes:
            f_jvp = functools.partial(jvp, f)
            check_jvp(f, f_jvp, args, err_msg=name("JVP"), **kw)
            if order > 1:
                recurse(f_jvp, (args, args), order - 1, name("JVP"))
        if "rev" in modes:
            check_vjp(f, functools.partial(vjp, f), args, err_msg=name("VJP"), **kw)
            if order > 1:
                def pulled_back(*xs):
                    out, pullback = vjp(f, *xs)
                    return pullback(out)
                recurse(pulled_back, args, order - 1, name("VJP"))
        if "lin" in modes:
            f_lin = functools.partial(_jvp_by_linearize, f)
            check_jvp(f, f_lin, args, err_msg=name("LIN"), **kw)
            if order > 1:
                recurse(f_lin, (args, args), order - 1, name("LIN"))

    recurse(f, args, order, "")
