"""Weak types and dtype promotion against JAX (issues 12 and 16): the dtype and
`weak_type` of what `lax`, `jnp`, Python operators, `result_type`/`promote_types`, the
loop primitives (`while_loop`, `fori_loop`, `scan`, `cond`, `switch`) and converted
Python loops return, for weak (Python scalar) and strong operands, bfloat16/float16
included, under `eval_shape`, `jit` and eagerly. The cases and the recorder are
tests/oracle/record_weak_types.py; JAX 0.10.2's answers are stored in
tests/oracle/weak_types.json.

`KNOWN` lists the cases where astjax still differs from JAX, each with its reason;
they are checked too, and must still differ (so fixing one means deleting its line)."""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import astjax
from astjax import lax

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
import record_weak_types as R  # noqa: E402
from oracle import compare  # noqa: E402

WANT = compare.load("weak_types")
assert len(WANT) == len(R.CASES)

# (fn, args) -> reason
KNOWN = {}


def _key(case):
    return case[1], ",".join(case[2])


def _ids():
    return [f"{i}-{c[0]}-{c[1]}({','.join(c[2])}){'-x64' if c[4] else ''}"
            for i, c in enumerate(R.CASES)]


@pytest.mark.parametrize("i", range(len(R.CASES)), ids=_ids())
def test_matches_jax(i):
    case, want = R.CASES[i], WANT[i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = R.run_case(astjax, case)
    reason = KNOWN.get(_key(case))
    if reason is not None:
        assert got != want, f"fixed, delete its KNOWN entry: {reason}"
    else:
        assert got == want, f"{case}: astjax {got}, JAX {want}"


def test_known_entries_are_cases():
    keys = {_key(c) for c in R.CASES}
    assert set(KNOWN) <= keys, sorted(set(KNOWN) - keys)

# ------------------------------------------------------------ minimal regressions


def fori_int_index(x):
    return lax.fori_loop(0, 3, lambda i, c: c + i, 0)


def scan_weak_carry(xs):
    return lax.scan(lambda c, x: (c + x, c * 2), 0, xs)


def test_loop_weak_types():
    # JAX: a Python-int fori_loop index is weak (the sum stays weak); a weak carry
    # that the body makes strong keeps its dtype: the body runs on the weak carry
    # (`c * 2` is weak) and the loop returns the body's (strong) type
    assert astjax.jit(fori_int_index)(0.5).weak_type
    c, ys = astjax.jit(scan_weak_carry)(np.ones(3, np.int32))
    assert not c.weak_type and ys.weak_type and int(c) == 3
    np.testing.assert_array_equal(ys, [0, 2, 4])


def pow_int_exponent(n):
    return 0.5 ** n


def test_float_scalar_to_integer_power_is_strong():
    # JAX: a Python float base under an integer array exponent keeps float32, strong
    out = astjax.jit(pow_int_exponent)(np.int32(3))
    assert out.dtype == np.float32 and not out.weak_type and float(out) == 0.125
    g = astjax.grad(lambda x: lax.pow(x, np.int32(3)))(2.0)
    assert float(g) == 12.0


def test_comparison_of_weak_values_is_weak():
    assert lax.lt(0.5, 1.0).weak_type and lax.abs(-0.5).weak_type
    assert not lax.lt(np.float32(0.5), 1.0).weak_type


def test_promote_types_without_x64():
    # JAX forms no 64-bit type from narrower ones without x64: uint32 with int32 is int32
    assert astjax.numpy.promote_types(np.uint32, np.int32) == np.int32
    assert astjax.numpy.promote_types(np.uint64, np.int8) == np.float64


def test_shape_dtype_struct_shows_weak_type():
    s = astjax.eval_shape(lax.abs, 0.5)
    assert repr(s) == "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"


def doubled(x):
    return x * 2.0


def test_simplified_derivative_keeps_output_weak_types():
    # JAX: the gradient of x * 2.0 at a strong float32 is strong, at a Python float weak
    # (simplification forwards the literal 2.0 but keeps the output's type)
    assert not astjax.grad(doubled)(np.float32(1.0)).weak_type
    assert astjax.grad(doubled)(1.0).weak_type


def sin_plus(x):
    return astjax.numpy.sin(x) + x


def test_transform_outputs_weak_types():
    # JAX 0.10.2 on the same calls: every result weak except vmap over a strong array and
    # grad at a strong float32 (a Jacobian block has its example's weak type)
    ones = astjax.numpy.ones(2)
    got = [astjax.grad(doubled)(1.0), astjax.grad(sin_plus)(1.0),
           astjax.jvp(doubled, (1.0,), (1.0,))[1], astjax.vmap(doubled)(ones),
           astjax.jacfwd(sin_plus)(1.0), astjax.jacrev(sin_plus)(1.0),
           astjax.grad(doubled)(np.float32(1.0)), astjax.hessian(sin_plus)(1.0),
           astjax.vjp(doubled, 1.0)[1](1.0)[0], astjax.linearize(doubled, 1.0)[1](1.0)]
    assert [bool(x.weak_type) for x in got] == [True, True, True, False, True, True, False,
                                                True, True, True]
