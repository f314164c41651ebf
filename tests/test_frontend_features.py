"""Calls and Python features inside staged functions: methods of plain objects,
closures, lambdas, comprehensions, builtins, f-strings, assert, unroll control."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import ConcretizationError


class Dense:
    """A plain object holding arrays, with a method that has Python control flow."""

    def __init__(self, w, b, clip):
        self.w, self.b, self.clip = w, b, clip

    def __call__(self, x):
        return self.forward(x)

    def forward(self, x):
        y = x @ self.w + self.b
        if self.clip:
            y = jnp.clip(y, -1.0, 1.0)
        return y


def test_methods_of_plain_objects():
    layer = Dense(np.eye(2, dtype=np.float32) * 3, np.ones(2, np.float32), True)

    def f(x):
        return layer(x) + layer.forward(x)
    x = np.array([0.1, -2.0], np.float32)
    np.testing.assert_allclose(astjax.jit(f)(x), 2 * np.clip(x @ layer.w + layer.b, -1, 1))


def test_closure_and_nested_function_with_control_flow():
    k = 2.0

    def outer(x):
        def inner(y):
            if y > 0:
                return y * k
            return -y
        return inner(x) + inner(-x)
    assert float(astjax.jit(outer)(3.0)) == 9.0


def test_several_lambdas_on_one_line():
    f, g = (lambda x: x + 1.0), (lambda x: x * 10.0)
    assert float(astjax.jit(f)(1.0)) == 2.0 and float(astjax.jit(g)(1.0)) == 10.0


def test_comprehensions_and_builtins():
    def f(x, xs):
        ys = [x * i for i in range(3)]
        total = sum(ys) + sum(v for v in xs)
        n = len(xs) + len(x.shape)
        m = max(x, 0.5) + min(x, 0.0, -1.0) + abs(x)
        idx = {i: v for i, v in enumerate(xs)}
        assert isinstance(n, int) and n == 3
        return total + m + idx[1] + float(n) + int(2.7)
    x = np.float32(2.0)
    xs = [np.float32(1.0), np.float32(2.0), np.float32(3.0)]
    expected = 6.0 + 6.0 + 2.0 + (-1.0) + 2.0 + 2.0 + 3.0 + 2
    assert float(astjax.jit(f)(x, xs)) == pytest.approx(expected)


def test_fstring_of_staged_value_prints_abstract_value(capsys):
    def f(x):
        print(f"x = {x}")
        return x
    astjax.jit(f)(np.ones(3, np.float32))
    assert "JitTracer(float32[3])" in capsys.readouterr().out


def test_assert_on_static_values_and_staged_assert():
    def ok(x):
        assert x.shape == (3,), "shape"
        return x
    astjax.jit(ok)(np.ones(3, np.float32))

    def bad(x):
        assert x > 0
        return x
    with pytest.raises(ConcretizationError):
        astjax.jit(bad)(1.0)


def test_explicit_unroll_gives_same_results_and_straight_line_code():
    def f(x):
        for i in astjax.unroll(range(20)):
            x = jnp.sin(x) + 0.1
        return x

    def g(x):
        for i in range(20):
            x = jnp.sin(x) + 0.1
        return x
    np.testing.assert_allclose(astjax.jit(f)(0.3), astjax.jit(g)(0.3), rtol=1e-6)
    assert "stablehlo.while" not in astjax.jit(f).lower(0.3).as_text()
    assert "stablehlo.while" in astjax.jit(g).lower(0.3).as_text()


def test_scan_partial_unroll_matches():
    from astjax import lax
    xs = np.arange(12, dtype=np.float32)

    def f(c, x):
        return c * 0.5 + x, c
    for u in (1, 3, 5, 12):
        c, ys = astjax.jit(lambda xs: lax.scan(f, 0.0, xs, unroll=u))(xs)
        c0, ys0 = astjax.jit(lambda xs: lax.scan(f, 0.0, xs))(xs)
        np.testing.assert_allclose(c, c0, rtol=1e-6)
        np.testing.assert_allclose(ys, ys0, rtol=1e-6)


def _predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.tanh(outputs)
    return outputs


def _loss(params, batch):
    inputs, targets = batch
    return jnp.sum((_predict(params, inputs) - targets) ** 2)


def test_unpacked_names_name_container_arguments():
    P = [(np.ones((4, 5), np.float32), np.ones(5, np.float32)),
         (np.ones((5, 2), np.float32), np.ones(2, np.float32))]
    batch = (np.ones((3, 4), np.float32), np.ones((3, 2), np.float32))
    cj = astjax.make_jaxpr(_loss)(P, batch)
    assert [v.hint for v in cj.jaxpr.invars] == ["W", "b", "W", "b", "inputs", "targets"]
    src = astjax.source(astjax.grad(_loss), P, batch)
    assert "(W, b), (W_1, b_1) = params" in src and "inputs, targets = batch" in src
    assert "return [(ct_W, ct_b), (ct_W_1, ct_b_1)]" in src
