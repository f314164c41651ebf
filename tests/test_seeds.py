"""The programs in the user's seed documents (shared/seeds), end to end."""
import functools

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import grad, jit, lax, vmap
from astjax.errors import NonConcreteBooleanIndexError


def predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.tanh(outputs)
    return outputs


def loss(params, batch):
    inputs, targets = batch
    preds = predict(params, inputs)
    return jnp.sum((preds - targets) ** 2)


def _params(sizes=(5, 4, 3), seed=0):
    rng = np.random.RandomState(seed)
    return [(rng.randn(m, n).astype(np.float32) * 0.5, rng.randn(n).astype(np.float32) * 0.1)
            for m, n in zip(sizes[:-1], sizes[1:])]


def _np_predict(params, x):
    for W, b in params:
        out = x @ W + b
        x = np.tanh(out)
    return out


def test_log2_jaxpr():
    def log2(x):
        ln_x = lax.log(x)
        ln_2 = lax.log(2.0)
        return ln_x / ln_2
    assert str(astjax.make_jaxpr(log2)(3.0)) == (
        "{ lambda ; a:f32[]. let\n    b:f32[] = log a\n    c:f32[] = log 2.0:f32[]\n"
        "    d:f32[] = div b c\n  in (d,) }")


def test_mlp_predict_under_jit():
    rng = np.random.RandomState(1)
    sizes = (784, 512, 512, 10)
    params = [(rng.randn(m, n).astype(np.float32) / np.sqrt(m), rng.randn(n).astype(np.float32))
              for m, n in zip(sizes[:-1], sizes[1:])]
    x = rng.randn(128, 784).astype(np.float32)
    ref = _np_predict([(w.astype(np.float64), b.astype(np.float64)) for w, b in params],
                      x.astype(np.float64))
    np.testing.assert_allclose(jit(predict)(params, x), ref, rtol=1e-5, atol=1e-5)


def test_gradient_fun_and_per_example_grads():
    params = _params()
    rng = np.random.RandomState(2)
    x, y = rng.randn(6, 5).astype(np.float32), rng.randn(6, 3).astype(np.float32)
    gradient_fun = jit(grad(loss))
    g = gradient_fun(params, (x, y))
    per_example = jit(vmap(grad(loss), in_axes=(None, 0)))(params, (x, y))
    summed = [(dw.sum(0), db.sum(0)) for dw, db in per_example]
    for (gw, gb), (sw, sb) in zip(g, summed):
        np.testing.assert_allclose(gw, sw, rtol=2e-4, atol=1e-5)
        np.testing.assert_allclose(gb, sb, rtol=2e-4, atol=1e-5)


def test_sgd_update():
    step_size = 0.01

    @jit
    def update(params, x, y):
        grads = grad(loss)(params, (x, y))
        return [(w - step_size * dw, b - step_size * db)
                for (w, b), (dw, db) in zip(params, grads)]
    params = _params()
    rng = np.random.RandomState(3)
    x, y = rng.randn(8, 5).astype(np.float32), rng.randn(8, 3).astype(np.float32)
    before = float(loss(params, (x, y)))
    for _ in range(20):
        params = update(params, x, y)
    assert float(loss(params, (x, y))) < before * 0.7


def test_static_argnums_example(capsys):
    @functools.partial(jit, static_argnums=(1,))
    def f(x, neg):
        print(x)
        return -x if neg else x
    assert int(f(1, True)) == -1
    assert int(f(2, True)) == -2
    assert int(f(2, False)) == 2
    assert int(f(23, False)) == 23
    assert capsys.readouterr().out.count("JitTracer") == 2  # staged once per static value

    @jit
    def g(x, neg):  # astjax: works without static_argnums too
        return -x if neg else x
    assert int(g(1, True)) == -1


def test_reshape_static_product():
    @jit
    def f(x):
        return x.reshape(jnp.array(x.shape).prod())
    assert f(jnp.ones((2, 3))).shape == (6,)


def test_get_negatives_error():
    def get_negatives(x):
        return x[x < 0]
    with pytest.raises(NonConcreteBooleanIndexError):
        jit(get_negatives)(jnp.arange(5.0) - 2)
    np.testing.assert_allclose(jnp.where(jnp.arange(5.0) - 2 < 0, 0, jnp.arange(5.0) - 2),
                               [0, 0, 0, 1, 2])


def test_model_sum_stablehlo():
    def model(x, y, z):
        return jnp.sum(x + y * z)
    x = np.ones(4, np.float32)
    text = jit(model).lower(x, x, x).as_text()
    assert "stablehlo.multiply" in text and "stablehlo.add" in text and "stablehlo.reduce" in text
    assert float(jit(model)(x, x, x)) == 8.0


def test_pytree_grads_of_nested_params():
    def f3(args):
        a, b, (c, d) = args
        return a * b + jnp.sin(c) * d
    g = grad(f3)((1.0, 2.0, (0.5, 3.0)))
    np.testing.assert_allclose([g[0], g[1], g[2][0], g[2][1]],
                               [2.0, 1.0, np.cos(0.5) * 3.0, np.sin(0.5)], rtol=1e-6)


def test_block_until_ready_and_device_put():
    x = astjax.device_put(np.arange(3.0, dtype=np.float32))
    y = jnp.dot(x, x)
    assert float(y.block_until_ready()) == 5.0
    assert astjax.devices()[0].platform == "cpu"
