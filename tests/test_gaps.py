"""What JAX computes and astjax used to refuse (issue 13): every `jnp.pad` mode with its
options and a callable mode, `jnp.unique(axis=)` with its extra outputs and `size=`,
`jnp.intersect1d(return_indices=True)`, `jnp.polyfit(full=, cov=)`. Values, dtypes and
weak types against JAX's stored values (tests/oracle/record_gaps.py), eagerly and under
`jit`; float64 finite differences of the derivatives; JAX's error classes."""
import builtins
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.test_util import check_grads

from oracle import record_gaps as rec

STORED = json.loads(Path(rec.__file__).with_name("gaps.json").read_text())
RTOL = {"polyfit": 2e-4}


def _check(name, got):
    gots = got if isinstance(got, tuple) else (got,)
    want_all = STORED["values"][name]
    assert len(gots) == len(want_all)
    rtol = RTOL.get(name.split("_")[0], 1e-6)
    for g, want in zip(gots, want_all):
        assert str(np.asarray(g).dtype) == want["dtype"]
        assert bool(getattr(g, "weak_type", False)) == want["weak"]
        assert list(np.shape(g)) == want["shape"]
        for part, key in ((np.real, "values"), (np.imag, "imag")):
            if key in want:
                w = np.asarray([np.nan if v is None else v for v in want[key]])
                np.testing.assert_allclose(np.asarray(part(g), np.float64).ravel(), w,
                                           rtol=rtol, atol=rtol * 1e-2)


# `pad`, `polyfit` and fixed-length `unique` / `intersect1d` compile one program per
# call even eagerly, so each case runs once: pad eagerly (plus three pad cases under a
# user's jit), the fixed-length others inside one jit; value-dependent lengths eagerly.
IN_JIT = ("pad_reflect_reflect_type-odd_f", "pad_median_stat_length-1.3_f",
          "pad_constant_constant_values-1.2.3.4_f")
JITTED = [c for c in rec.CASES if c[0] not in rec.EAGER_ONLY and
          (c[0] in IN_JIT or not c[0].startswith(("pad", "linspace")))]
EAGER = [c for c in rec.CASES if c not in JITTED or c[0] in IN_JIT]


@pytest.mark.parametrize("name,fn,args", EAGER, ids=[c[0] for c in EAGER])
def test_values_as_jax(name, fn, args):
    _check(name, fn(jnp, *args))


@pytest.fixture(scope="module")
def under_jit():
    """Every fixed-length case's results, from one compiled program."""
    flat = [a for _, _, args in JITTED for a in args]

    def everything(*arrays):
        out, at = [], 0
        for _, fn, args in JITTED:
            out.append(fn(jnp, *arrays[at:at + len(args)]))
            at += len(args)
        return out
    return dict(zip([c[0] for c in JITTED], jax.jit(everything)(*flat)))


@pytest.mark.parametrize("name", [c[0] for c in JITTED])
def test_values_as_jax_under_jit(under_jit, name):
    _check(name, under_jit[name])


GRAD_MODES = [("reflect", {"reflect_type": "odd"}), ("symmetric", {}), ("wrap", {}),
              ("linear_ramp", {"end_values": ((-3, 4), (10, 0))}),
              ("mean", {"stat_length": ((1, 2), (2, 1))}), ("median", {}),
              ("maximum", {"stat_length": 2}), ("edge", {}),
              ("constant", {"constant_values": ((1, 2), (3, 4))})]


def test_pad_derivatives(x64):
    """Each way a mode forms its values (mirrored, odd-reflected, wrapped, ramped,
    statistics over a stretch, edges, constants), at once: their outputs side by side."""
    x = np.asarray(rec.X2, np.float64) + np.array([[0.0, 0.3, -0.2], [0.1, 0.0, 0.7]])

    def f(a):
        return jnp.concatenate([jnp.ravel(jnp.pad(a, ((1, 2), (4, 3)), mode, **kw))
                                for mode, kw in GRAD_MODES])
    check_grads(jax.jit(f), (x,), order=1, modes=("rev",))


def test_pad_constant_values_derivative(x64):
    check_grads(lambda c: jnp.pad(jnp.ones((2, 2)), 1, constant_values=c),
                (np.array([1.5, -2.0]),), order=1, modes=("fwd", "rev"))


def test_polyfit_derivatives(x64):
    x = np.asarray(rec.PX, np.float64)

    def f(y):
        c, resid = jnp.polyfit(x, y, 2, full=True)[:2]
        return c, resid, jnp.polyfit(x, y, 2, cov=True)[1], \
            jnp.polyfit(x, y, 2, w=rec.PW, cov=True)[1]
    check_grads(jax.jit(f), (np.asarray(rec.PY, np.float64),), order=1, modes=("rev",))


@pytest.mark.parametrize("name,fn", rec.ERRORS, ids=[e[0] for e in rec.ERRORS])
def test_errors_as_jax(name, fn):
    want = STORED["errors"][name]
    with pytest.raises(getattr(builtins, want)) as info:
        fn(jnp)
    assert isinstance(info.value, jax.errors.AstjaxError)
