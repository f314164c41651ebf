"""grad, jvp, vjp, value_and_grad, grad-of-grad, jacfwd == jacrev, hessian, custom rules,
checkpoint, the seeds' MLP loss gradient and SGD update against NumPy; exact IR."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import core, lax
from astjax.transforms import ad


def sin_times_x(x):
    return jnp.sin(x) * x


def poly(x, y):
    return x * x * y + 3.0 * y


def test_grad_sin_x_ir_has_no_mul_by_one():
    cj = astjax.make_jaxpr(astjax.grad(sin_times_x))(1.0)
    core.check_jaxpr(cj)
    assert str(cj) == """{ lambda ; a:f32[]. let
    b:f32[] = sin a
    c:f32[] = cos a
    _:f32[] = mul b a
    d:f32[] = mul a c
    e:f32[] = add_any b d
  in (e,) }"""
    assert "1.0" not in str(cj)


def test_phases_and_hints():
    cj = astjax.make_jaxpr(astjax.grad(sin_times_x))(1.0)
    phases = {e.source_info.phase for e in cj.jaxpr.eqns}
    assert phases <= {"forward", "backward", "tangent"}
    closed, _ = ad.jvp_jaxpr(astjax.make_jaxpr(sin_times_x)(1.0), [True])
    assert closed.jaxpr.invars[1].hint == "dx"


def test_grad_jvp_vjp_value_and_grad():
    x, y = 1.5, -0.7
    gx, gy = astjax.grad(poly, argnums=(0, 1))(x, y)
    assert np.allclose([gx, gy], [2 * x * y, x * x + 3])
    v, g = astjax.value_and_grad(poly)(x, y)
    assert np.allclose(v, x * x * y + 3 * y) and np.allclose(g, 2 * x * y)
    out, t = astjax.jvp(poly, (x, y), (1.0, 0.0))
    assert np.allclose(t, 2 * x * y)
    out, f_vjp = astjax.vjp(poly, x, y)
    cx, cy = f_vjp(1.0)
    assert np.allclose([cx, cy], [2 * x * y, x * x + 3])
    out, f_jvp = astjax.linearize(poly, x, y)
    assert np.allclose(f_jvp(0.0, 1.0), x * x + 3)


def aux_fn(x):
    return jnp.sum(x ** 2), {"mean": jnp.mean(x)}


def test_has_aux():
    x = np.arange(3.0, dtype=np.float32)
    g, aux = astjax.grad(aux_fn, has_aux=True)(x)
    assert np.allclose(g, 2 * x) and np.allclose(aux["mean"], 1.0)
    (v, aux), g = astjax.value_and_grad(aux_fn, has_aux=True)(x)
    assert np.allclose(v, 5.0)


def test_grad_of_grad_and_under_jit():
    d2 = astjax.grad(astjax.grad(sin_times_x))(0.3)
    assert np.allclose(d2, 2 * np.cos(0.3) - 0.3 * np.sin(0.3), rtol=1e-5)
    d3 = astjax.jit(astjax.grad(astjax.grad(astjax.grad(sin_times_x))))(0.3)
    assert np.allclose(d3, -3 * np.sin(0.3) - 0.3 * np.cos(0.3), rtol=1e-4)


def vec_fn(x):
    return jnp.tanh(x) * jnp.sum(x ** 2)


def scalar_fn(x):
    return jnp.sum(jnp.sin(x) * x[::-1]) + jnp.prod(x)


def test_jacfwd_equals_jacrev_and_hessian():
    x = np.array([0.3, -0.2, 0.5], np.float32)
    jf = np.asarray(astjax.jacfwd(vec_fn)(x))
    jr = np.asarray(astjax.jacrev(vec_fn)(x))
    assert jf.shape == (3, 3)
    np.testing.assert_allclose(jf, jr, rtol=1e-5, atol=1e-6)
    h = np.asarray(astjax.hessian(scalar_fn)(x))
    eps = 1e-3
    g = astjax.jit(astjax.grad(scalar_fn))
    fd = np.stack([(np.asarray(g(x + eps * e)) - np.asarray(g(x - eps * e))) / (2 * eps)
                   for e in np.eye(3, dtype=np.float32)], 1)
    np.testing.assert_allclose(h, fd, rtol=1e-2, atol=1e-3)
    np.testing.assert_allclose(h, h.T, rtol=1e-5, atol=1e-5)


def test_stop_gradient():
    def f(x):
        return lax.stop_gradient(x) * x
    assert np.allclose(astjax.grad(f)(3.0), 3.0)
    assert np.allclose(astjax.grad(lambda x: astjax.lax.stop_gradient(x ** 2) + x)(3.0), 1.0)


@astjax.custom_jvp
def safe_log1pexp(x):
    return jnp.log1p(jnp.exp(x))


@safe_log1pexp.defjvp
def _safe_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return safe_log1pexp(x), t * (1.0 - 1.0 / (1.0 + jnp.exp(x)))


@astjax.custom_vjp
def clip_grad(x):
    return x


def clip_fwd(x):
    return x, None


def clip_bwd(res, g):
    return (jnp.clip(g, -1.0, 1.0),)


clip_grad.defvjp(clip_fwd, clip_bwd)


def test_custom_jvp_vjp():
    assert np.allclose(astjax.grad(safe_log1pexp)(100.0), 1.0)
    assert np.allclose(astjax.jvp(safe_log1pexp, (0.0,), (1.0,))[1], 0.5)
    assert np.allclose(astjax.grad(lambda x: 10.0 * clip_grad(x))(1.0), 1.0)
    assert np.allclose(clip_grad(2.0), 2.0)


def remat_body(x):
    return jnp.sin(jnp.sin(x))


def test_checkpoint():
    f = astjax.checkpoint(remat_body)
    g = astjax.grad(lambda x: jnp.sum(f(x)))(np.float32(0.4))
    assert np.allclose(g, np.cos(np.sin(0.4)) * np.cos(0.4), rtol=1e-6)
    assert astjax.remat is astjax.checkpoint

# ------------------------------------------------------------------- the seeds' MLP


def predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.tanh(outputs)
    return outputs


def mse_loss(params, batch):
    inputs, targets = batch
    preds = predict(params, inputs)
    return jnp.sum((preds - targets) ** 2)


step_size = 0.01


def update(params, x, y):
    grads = astjax.grad(mse_loss)(params, (x, y))
    return [(w - step_size * dw, b - step_size * db) for (w, b), (dw, db) in zip(params, grads)]


def _np_grads(params, x, y):
    acts, pre = [x], []
    h = x
    for W, b in params:
        z = h @ W + b
        pre.append(z)
        h = np.tanh(z)
        acts.append(h)
    out = pre[-1]
    d = 2 * (out - y)
    grads = []
    for i in reversed(range(len(params))):
        W, _ = params[i]
        grads.append((acts[i].T @ d, d.sum(0)))
        if i:
            d = (d @ W.T) * (1 - np.tanh(pre[i - 1]) ** 2)
    return grads[::-1]


def _mlp(sizes, batch, seed=0):
    r = np.random.RandomState(seed)
    params = [(r.randn(m, n).astype(np.float32) / np.sqrt(m), r.randn(n).astype(np.float32) * 0.1)
              for m, n in zip(sizes[:-1], sizes[1:])]
    x = r.randn(batch, sizes[0]).astype(np.float32)
    y = r.randn(batch, sizes[-1]).astype(np.float32)
    return params, x, y


def test_mlp_mse_loss_gradient_and_sgd_update():
    params, x, y = _mlp([5, 7, 6, 3], 4)
    grads = astjax.jit(astjax.grad(mse_loss))(params, (x, y))
    ref = _np_grads(params, x, y)
    for (dw, db), (rw, rb) in zip(grads, ref):
        np.testing.assert_allclose(dw, rw, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(db, rb, rtol=1e-4, atol=1e-4)
    new = astjax.jit(update)(params, x, y)
    for (w, b), (w0, b0), (rw, rb) in zip(new, params, ref):
        np.testing.assert_allclose(w, w0 - step_size * rw, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(b, b0 - step_size * rb, rtol=1e-5, atol=1e-5)
    cj = astjax.make_jaxpr(astjax.grad(mse_loss))(params, (x, y))
    core.check_jaxpr(cj)


def _pow_n(n, x):
    return x ** n


def _pow_n_jvp(n, primals, tangents):
    x, = primals
    t, = tangents
    return x ** n, n * x ** (n - 1) * t


pow_n = astjax.custom_jvp(_pow_n, nondiff_argnums=(0,))
pow_n.defjvp(_pow_n_jvp)


def test_custom_jvp_nondiff_argnums():
    assert np.allclose(pow_n(3, 2.0), 8.0)
    assert np.allclose(astjax.grad(lambda x: pow_n(3, x))(2.0), 12.0)


@astjax.custom_vjp
def scaled_mul(x, y):
    return x * y


def _sm_fwd(x, y):
    return x * y, (x, y)


def _sm_bwd(res, g):
    x, y = res
    return (g * y * 10.0, g * x)


scaled_mul.defvjp(_sm_fwd, _sm_bwd)


def test_custom_vjp_two_args():
    gx, gy = astjax.grad(scaled_mul, argnums=(0, 1))(2.0, 3.0)
    assert np.allclose([gx, gy], [30.0, 2.0])
    assert np.allclose(astjax.jit(astjax.grad(lambda x: scaled_mul(x, x)))(2.0), 22.0)


def test_compositions_with_jit_and_vmap():
    def f(x):
        return jnp.sum(jnp.sin(x) ** 2)
    x = np.ones((2, 3), np.float32)
    want = np.sin(2.0) * np.ones((2, 3))
    np.testing.assert_allclose(astjax.grad(astjax.jit(f))(x), want, rtol=1e-6)
    np.testing.assert_allclose(astjax.vmap(astjax.grad(f))(x), want, rtol=1e-6)
    np.testing.assert_allclose(astjax.grad(lambda x: jnp.sum(astjax.vmap(f)(x)))(x), want,
                               rtol=1e-6)
