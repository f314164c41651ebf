"""`lax.conv_general_dilated` and its wrappers: XLA's result against the NumPy
reference over layouts, strides, dilations, paddings and groups; derivatives of
both operands against finite differences (float64), second order included; vmap of
either or both operands against a loop; `conv_transpose` against values stored from
JAX 0.10.2."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import ArgumentError
from astjax.primitives.convolution import _conv_reference
from astjax.test_util import check_grads


# (operand shape, kernel shape, strides, padding, lhs_dilation, rhs_dilation, layouts, groups)
CONFIGS = [
    ((2, 5, 6, 4), (3, 2, 4, 6), (1, 1), "SAME", None, None, ("NHWC", "HWIO", "NHWC"), (1, 1)),
    ((2, 5, 6, 4), (3, 2, 4, 6), (2, 1), "VALID", None, (1, 2), ("NHWC", "HWIO", "NHWC"), (1, 1)),
    ((2, 4, 5, 6), (6, 4, 2, 3), (1, 2), [(1, 0), (2, -1)], (2, 1), None, None, (1, 1)),
    ((2, 5, 6, 4), (3, 2, 2, 6), (1, 1), "SAME", None, None, ("NHWC", "HWIO", "NHWC"), (2, 1)),
    ((4, 5, 6, 2), (3, 2, 2, 6), (1, 1), "VALID", None, None, ("NHWC", "HWIO", "NHWC"), (1, 2)),
    ((2, 3, 7), (4, 3, 3), (2,), "SAME", None, (2,), None, (1, 1)),
    ((1, 2, 4, 4, 3), (2, 2, 2, 3, 4), (1, 1, 1), "SAME", None, None,
     ("NDHWC", "DHWIO", "NDHWC"), (1, 1)),
]


def _conv(cfg):
    _, _, strides, padding, ld, rd, dn, (g, b) = cfg
    return lambda x, w: lax.conv_general_dilated(x, w, strides, padding, ld, rd, dn,
                                                 feature_group_count=g, batch_group_count=b)


def _args(cfg, dtype=np.float32):
    rng = np.random.RandomState(0)
    return (rng.randn(*cfg[0]).astype(dtype), rng.randn(*cfg[1]).astype(dtype))


@pytest.mark.parametrize("cfg", CONFIGS)
def test_xla_matches_numpy_reference(cfg):
    x, w = _args(cfg)
    out = _conv(cfg)(x, w)
    eqn = astjax.make_jaxpr(_conv(cfg))(x, w).jaxpr.eqns[-1]
    ref = _conv_reference(x, w, **eqn.params)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    assert astjax.jit(_conv(cfg))(x, w).shape == ref.shape


@pytest.mark.parametrize("cfg", [c for c in CONFIGS if c[7][1] == 1])
def test_derivatives_match_finite_differences(cfg, x64):
    x, w = _args(cfg, np.float64)
    check_grads(_conv(cfg), (x, w), order=2, modes=("fwd", "rev"))


def test_batch_grouped_derivatives(x64):
    cfg = CONFIGS[4]
    x, w = _args(cfg, np.float64)
    check_grads(lambda w: _conv(cfg)(x, w), (w,), order=1, modes=("fwd", "rev"))


@pytest.mark.parametrize("cfg", [c for c in CONFIGS if c[7][1] == 1])
@pytest.mark.parametrize("mapped", ["lhs", "rhs", "both"])
def test_vmap_matches_a_loop(cfg, mapped):
    x, w = _args(cfg)
    xs = np.stack([x, 2 * x + 1]) if mapped in ("lhs", "both") else x
    ws = np.stack([w, w[::-1] * 0.5]) if mapped in ("rhs", "both") else w
    axes = (0 if mapped != "rhs" else None, 0 if mapped != "lhs" else None)
    got = astjax.vmap(_conv(cfg), in_axes=axes)(xs, ws)
    want = [_conv(cfg)(xs[i] if axes[0] == 0 else xs, ws[i] if axes[1] == 0 else ws)
            for i in range(2)]
    np.testing.assert_allclose(got, np.stack(want), rtol=1e-5, atol=1e-5)


def test_per_example_gradients_of_a_cnn():
    cfg = CONFIGS[0]
    x, w = _args(cfg)
    loss = lambda w, x: jnp.sum(jnp.tanh(_conv(cfg)(x[None], w)))
    g = astjax.jit(astjax.vmap(astjax.grad(loss), in_axes=(None, 0)))(w, x)
    want = np.stack([astjax.grad(loss)(w, x[i]) for i in range(2)])
    np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-4)


# recorded from JAX 0.10.2: lax.conv_transpose(x, w, (2, 2), padding) with
# x = arange(1*3*3*2).reshape(1,3,3,2)/10, w = arange(3*3*2*1).reshape(3,3,2,1)/10 (NHWC, HWIO)
JAX_CONV_TRANSPOSE = {
    "SAME": [[0.17, 0.15, 0.96, 0.73, 2.12, 1.31],
             [0.11, 0.09, 0.60, 0.43, 1.28, 0.77]],
    "VALID": [[0.17, 0.15, 0.96, 0.73, 2.12, 1.31, 1.13],
              [0.11, 0.09, 0.60, 0.43, 1.28, 0.77, 0.59]],
}


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv_transpose_matches_jax(padding):
    x = np.arange(18, dtype=np.float32).reshape(1, 3, 3, 2) / 10
    w = np.arange(18, dtype=np.float32).reshape(3, 3, 2, 1) / 10
    out = np.asarray(lax.conv_transpose(x, w, (2, 2), padding))
    np.testing.assert_allclose(out[0, :2, :, 0], JAX_CONV_TRANSPOSE[padding], rtol=1e-5,
                               atol=1e-6)


def test_errors():
    x, w = np.ones((1, 4, 4, 3), np.float32), np.ones((2, 2, 2, 5), np.float32)
    with pytest.raises(TypeError, match="features"):
        lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    with pytest.raises(ArgumentError, match="String padding"):
        lax.conv_general_dilated(x, np.ones((2, 2, 3, 5), np.float32), (1, 1), "SAME", (2, 2),
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    with pytest.raises(ArgumentError, match="window_strides must have 2"):
        lax.conv_general_dilated(x, np.ones((2, 2, 3, 5), np.float32), (1,), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))


def test_printed_source_runs():
    cfg = CONFIGS[3]
    x, w = _args(cfg)
    f = astjax.source_function(astjax.grad(lambda x, w: jnp.sum(_conv(cfg)(x, w) ** 2),
                                           argnums=1), x, w)
    np.testing.assert_allclose(f(x, w), astjax.grad(lambda x, w: jnp.sum(_conv(cfg)(x, w) ** 2),
                                                    argnums=1)(x, w), rtol=1e-4)
