"""Every case of the shared function collection under `jit`, against running the
same Python on NumPy values; plus the jaxprs Python control flow stages to."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import tree_util
from astjax.primitives.cond import cond_p
from astjax.primitives.scan import scan_p
from astjax.primitives.while_loop import while_p

from functions import CASES


def _close(a, b):
    la, ta = tree_util.tree_flatten(a)
    lb, tb = tree_util.tree_flatten(b)
    assert len(la) == len(lb), (ta, tb)
    for x, y in zip(la, lb):
        np.testing.assert_allclose(np.asarray(x, np.float64), np.asarray(y, np.float64),
                                   rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_under_jit(case):
    expected = case.fn(*case.args)
    got = astjax.jit(case.fn, static_argnums=case.static_argnums)(*case.args)
    _close(got, expected)
    jaxpr = astjax.make_jaxpr(case.fn, static_argnums=case.static_argnums)(*case.args)
    astjax.core.check_jaxpr(jaxpr)


def _prims(jaxpr):
    out = []
    for e in jaxpr.jaxpr.eqns if hasattr(jaxpr, "jaxpr") else jaxpr.eqns:
        out.append(e.primitive)
        for sub in astjax.core.sub_jaxprs(e.params):
            out.extend(_prims(sub))
    return out


def test_staged_if_is_cond():
    from functions import if_else
    assert cond_p in _prims(astjax.make_jaxpr(if_else)(1.0))


def test_static_if_stages_one_branch():
    from functions import static_test
    j = astjax.make_jaxpr(static_test, static_argnums=1)(1.0, True)
    assert cond_p not in _prims(j)
    assert [e.primitive.name for e in j.eqns] == ["add"]


def test_while_is_while():
    from functions import while_data_dependent
    assert while_p in _prims(astjax.make_jaxpr(while_data_dependent)(1.0))


def test_static_range_is_one_scan_in_constant_size():
    from functions import range_static

    def long(x):
        for i in range(1000):
            x = np.sin(x) * 0.5 + x * 0.1
        return x
    j = astjax.make_jaxpr(long)(1.0)
    assert _prims(j).count(scan_p) == 1
    assert len(j.eqns) <= 3
    assert len(astjax.make_jaxpr(range_static)(1.0).eqns) == len(j.eqns)


def test_staged_range_is_while():
    from functions import range_staged
    assert while_p in _prims(astjax.make_jaxpr(range_staged)(1.0, np.int32(3)))


def test_loop_over_python_list_unrolls():
    from functions import enumerate_zip
    j = astjax.make_jaxpr(enumerate_zip)(1.0)
    assert scan_p not in _prims(j) and while_p not in _prims(j)


def test_append_becomes_scan_output():
    from functions import list_append_stack
    j = astjax.make_jaxpr(list_append_stack)(np.ones(3, np.float32))
    assert _prims(j).count(scan_p) == 1
    assert j.jaxpr.outvars[0].aval.shape == (5, 3)


def test_indexing_with_loop_index_list_falls_back_to_unrolling():
    ws = [1.0, 2.0, 3.0]

    def f(x):
        for i in range(3):
            x = x * ws[i]
        return x
    assert float(astjax.jit(f)(1.0)) == 6.0


def test_carry_shape_change_with_static_trip_count_unrolls():
    def f(x):
        for i in range(3):
            x = np.concatenate([x, x[:1]])
        return x
    out = astjax.jit(f)(np.arange(2.0, dtype=np.float32))
    np.testing.assert_allclose(out, f(np.arange(2.0, dtype=np.float32)))


def test_seeds_neg_without_static_argnums():
    def f(x, neg):
        return -x if neg else x
    jf = astjax.jit(f)
    assert float(jf(1.0, True)) == -1.0
    assert float(jf(2.0, False)) == 2.0
    jfs = astjax.jit(f, static_argnums=(1,))
    assert float(jfs(1.0, True)) == -1.0 and float(jfs(23.0, False)) == 23.0


def test_reshape_of_static_shape_product():
    import astjax.numpy as jnp

    def f(x):
        return x.reshape(jnp.array(x.shape).prod())
    out = astjax.jit(f)(np.ones((2, 3), np.float32))
    assert out.shape == (6,)


def test_python_int_state_in_staged_while():
    def f(x):
        i = 0
        while x < 50.0:
            x = x * 2.0
            i = i + 1
        return i
    assert int(astjax.jit(f)(1.0)) == 6


def test_staged_range_bounds_and_step():
    def f(x, a, b):
        for i in range(a, b, 2):
            x = x + i
        return x
    assert float(astjax.jit(f)(0.0, np.int32(1), np.int32(8))) == 1 + 3 + 5 + 7


def test_loop_variable_undefined_before_loop_defined_inside():
    def f(x):
        for i in range(3):
            y = x * i
        return y
    assert float(astjax.jit(f)(2.0)) == 4.0


def test_indexed_reads_become_scan_inputs():
    import astjax.numpy as jnp

    def f(h, xs, w):
        for t in range(xs.shape[0]):
            h = jnp.tanh(h * w + xs[t])
        return h
    xs = np.arange(12.0, dtype=np.float32).reshape(6, 2) / 10
    j = astjax.make_jaxpr(f)(np.zeros(2, np.float32), xs, 0.5)
    scan = [e for e in j.eqns if e.primitive is scan_p][0]
    body_prims = [e.primitive.name for e in scan.params["jaxpr"].eqns]
    assert "dynamic_slice" not in body_prims          # xs[t] is a scanned input
    assert scan.params["jaxpr"].in_avals[-1].shape == (2,)
    h = np.zeros(2, np.float32)
    for t in range(6):
        h = np.tanh(h * 0.5 + xs[t])
    np.testing.assert_allclose(astjax.jit(f)(np.zeros(2, np.float32), xs, 0.5), h, rtol=1e-6)
    # and under grad the read stays a scanned input (cotangents are scan outputs)
    g = astjax.grad(lambda xs: f(np.zeros(2, np.float32), xs, 0.5).sum())(xs)
    assert g.shape == xs.shape


def test_reads_with_offset_range_and_out_of_bounds_fallback():
    def f(x, xs):
        for i in range(1, 4):
            x = x + xs[i]
        return x
    xs = np.arange(5.0, dtype=np.float32)
    assert float(astjax.jit(f)(0.0, xs)) == 6.0

    def g(x, xs):
        for i in range(-2, 1):          # negative indices: stays xs[i]
            x = x + xs[i]
        return x
    assert float(astjax.jit(g)(0.0, xs)) == 3.0 + 4.0 + 0.0


def test_enumerate_and_zip_over_arrays_scan():
    def f(xs, ys):
        total = 0.0
        for i, x in enumerate(xs):
            total = total + i * x
        for a, b in zip(xs, ys):
            total = total + a * b
        return total
    xs = np.arange(4.0, dtype=np.float32)
    ys = np.ones(4, np.float32) * 2
    j = astjax.make_jaxpr(f)(xs, ys)
    assert _prims(j).count(scan_p) == 2
    assert float(astjax.jit(f)(xs, ys)) == float(f(xs, ys))


# fuzz seed 800194: `return` then `break` in an unrolled loop inside a staged branch:
# the guarded `break` never runs on the path that returned, so its flag is undefined
# there, and the loop's stop test must not read it once the return flag is set
def _return_then_break_in_unrolled_loop(x):
    if jnp.sum(x) > 0:
        x = x + 1
    else:
        for u in [x, x]:
            if x.ndim == 1:
                return x * 2
            break
    return x


def test_return_then_break_in_unrolled_loop_in_staged_branch():
    for v in (np.ones(2), -np.ones(2)):
        np.testing.assert_allclose(astjax.jit(_return_then_break_in_unrolled_loop)(v),
                                   _return_then_break_in_unrolled_loop(v))
    np.testing.assert_allclose(
        astjax.grad(lambda v: _return_then_break_in_unrolled_loop(v).sum())(-np.ones(2)),
        [2.0, 2.0])
