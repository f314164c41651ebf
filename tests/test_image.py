"""`astjax.image` (issue 13, item 13): `resize` and `scale_and_translate` against
JAX 0.10.2's stored values for every method, antialiased or not, up- and
downsampling, integer inputs and empty outputs; gradients in the image and in the
scale and translation; JAX's errors."""

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import image

from oracle import record_image
from oracle import compare

STORED = compare.load("image")


def _close(got, want, tol=2e-5):
    compare.assert_close(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("i", range(len(record_image.CASES)))
def test_matches_jax(i):
    fn, name, args, kw = record_image.CASES[i]
    x = record_image.inputs()[name]
    _close(getattr(image, fn)(jnp.asarray(x), *args, **kw), STORED["cases"][i])


@pytest.mark.parametrize("i", range(len(record_image.GRADS)))
def test_gradients_match_jax(i):
    f, g = record_image.grad_fns(image)[i]
    st = np.array([[1.7, 1.3], [0.4, -0.7]], np.float32)
    _close(jax.grad(f)(jnp.asarray(record_image.SMALL)), STORED["grads"][i][0], 1e-4)
    _close(jax.grad(g)(jnp.asarray(st)), STORED["grads"][i][1], 2e-3)


def test_jit_and_enum():
    x = jnp.asarray(record_image.IMG)
    want = image.resize(x, (2, 4, 3, 3), image.ResizeMethod.LANCZOS3)
    got = jax.jit(lambda x: image.resize(x, (2, 4, 3, 3), "lanczos3"))(x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert image.ResizeMethod.from_string("bilinear") is image.ResizeMethod.LINEAR


def test_errors_as_jax():
    x = jnp.ones((4, 4))
    with pytest.raises(ValueError, match="Unknown resize method"):
        image.resize(x, (2, 2), "bogus")
    with pytest.raises(ValueError, match="shape must have length"):
        image.resize(x, (2,), "linear")
    with pytest.raises(ValueError, match="Nearest neighbor"):
        image.scale_and_translate(x, (2, 2), (0,), jnp.ones(1), jnp.zeros(1), "nearest")
