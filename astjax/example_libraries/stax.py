"""`stax`: layers as pairs `(init_fun, apply_fun)`.

`init_fun(rng, input_shape) -> (output_shape, params)` and
`apply_fun(params, inputs, **kwargs) -> outputs` (`rng=` for `Dropout`); combinators
(`serial`, `parallel`, `FanOut`, `FanInSum`, `FanInConcat`, `shape_dependent`) build
networks from layers. Random initializers split keys exactly as JAX's `stax`, so
the same key gives the same parameters.
"""
from __future__ import annotations

import functools
import math

from .. import lax, random
from .. import numpy as jnp
from ..nn import (elu, gelu, leaky_relu, log_softmax, relu, selu, sigmoid, softmax,
                  softplus, standardize)
from ..nn.initializers import glorot_normal, normal, ones, zeros

__all__ = ["Dense", "GeneralConv", "Conv", "GeneralConvTranspose", "ConvTranspose",
           "Conv1DTranspose", "BatchNorm", "elementwise", "Tanh", "Relu", "Exp",
           "LogSoftmax", "Softmax", "Softplus", "Sigmoid", "Elu", "LeakyRelu", "Selu", "Gelu",
           "MaxPool", "SumPool", "AvgPool", "Flatten", "Identity", "FanOut", "FanInSum",
           "FanInConcat", "Dropout", "serial", "parallel", "shape_dependent", "glorot",
           "randn", "logsoftmax"]

glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    """A fully connected layer: inputs @ W + b."""
    def init_fun(rng, input_shape):
        k_w, k_b = random.split(rng)
        params = (W_init(k_w, (input_shape[-1], out_dim)), b_init(k_b, (out_dim,)))
        return tuple(input_shape[:-1]) + (out_dim,), params

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b
    return init_fun, apply_fun


def _kernel_shape(rhs_spec, lhs_spec, input_shape, out_chan, filter_shape):
    spatial = iter(filter_shape)
    return [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I"
            else next(spatial) for c in rhs_spec]


def _conv_layer(shape_rule, apply_rule, dimension_numbers, out_chan, filter_shape, strides,
                padding, W_init, b_init):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    strides = strides or (1,) * len(filter_shape)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng, input_shape):
        kernel = _kernel_shape(rhs_spec, lhs_spec, input_shape, out_chan, filter_shape)
        out_shape = shape_rule(input_shape, kernel, strides, padding, dimension_numbers)
        bias = [out_chan if c == "C" else 1 for c in out_spec]
        k_w, k_b = random.split(rng)
        return out_shape, (W_init(k_w, kernel), b_init(k_b, bias))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return apply_rule(inputs, W, strides, padding, dimension_numbers) + b
    return init_fun, apply_fun


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
                W_init=None, b_init=normal(1e-6)):
    """A convolution with layouts `dimension_numbers` (e.g. ('NHWC', 'HWIO', 'NHWC'))."""
    one = (1,) * len(filter_shape)
    return _conv_layer(
        lax.conv_general_shape_tuple,
        lambda x, W, s, p, dn: lax.conv_general_dilated(x, W, s, p, one, one,
                                                        dimension_numbers=dn),
        dimension_numbers, out_chan, filter_shape, strides, padding, W_init, b_init)


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,
                         padding="VALID", W_init=None, b_init=normal(1e-6)):
    """A transposed convolution (`lax.conv_transpose`) with layouts `dimension_numbers`."""
    return _conv_layer(
        lax.conv_transpose_shape_tuple,
        lambda x, W, s, p, dn: lax.conv_transpose(x, W, s, p, dimension_numbers=dn),
        dimension_numbers, out_chan, filter_shape, strides, padding, W_init, b_init)


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))
Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros,
              gamma_init=ones):
    """Normalize over `axis` with the batch's statistics, then scale and shift."""
    axis = (axis,) if jnp.isscalar(axis) else tuple(axis)

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k_beta, k_gamma = random.split(rng)
        beta = beta_init(k_beta, shape) if center else ()
        gamma = gamma_init(k_gamma, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        expand = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if scale:
            z = gamma[expand] * z
        if center:
            z = z + beta[expand]
        return z
    return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
    """A parameterless layer applying `fun(inputs, **fun_kwargs)`."""
    init_fun = lambda rng, input_shape: (input_shape, ())  # noqa: E731
    apply_fun = lambda params, inputs, **kwargs: fun(inputs, **fun_kwargs)  # noqa: E731
    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _pooling_layer(reducer, init_val, rescaler=None):
    def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
        strides = strides or (1,) * len(window_shape)
        rescale = rescaler(window_shape, strides, padding) if rescaler else None
        fixed = (0, len(window_shape) + 1) if spec is None else (spec.index("N"),
                                                                  spec.index("C"))
        window, stride = tuple(window_shape), tuple(strides)
        for i in sorted(fixed):
            window = window[:i] + (1,) + window[i:]
            stride = stride[:i] + (1,) + stride[i:]

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, window, stride, padding)
            return lax.reduce_window_shape_tuple(input_shape, window, stride, pads), ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, window, stride, padding)
            return rescale(out, inputs, spec) if rescale else out
        return init_fun, apply_fun
    return PoolingLayer


def _divide_by_window_size(window_shape, strides, padding):
    def rescale(outputs, inputs, spec):
        fixed = (0, inputs.ndim - 1) if spec is None else (spec.index("N"), spec.index("C"))
        spatial = tuple(n for i, n in enumerate(inputs.shape) if i not in fixed)
        counts = lax.reduce_window(jnp.ones(spatial, inputs.dtype), 0.0, lax.add,
                                   window_shape, strides, padding)
        for i in sorted(fixed):
            counts = jnp.expand_dims(counts, i)
        return outputs / counts
    return rescale


MaxPool = _pooling_layer(lax.max, -jnp.inf)
SumPool = _pooling_layer(lax.add, 0.0)
AvgPool = _pooling_layer(lax.add, 0.0, _divide_by_window_size)


def _flatten():
    def init_fun(rng, input_shape):
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.reshape(inputs, (inputs.shape[0], -1))
    return init_fun, apply_fun


Flatten = _flatten()
Identity = elementwise(lambda x: x)


def FanOut(num):
    """Copy the input into `num` outputs (a list)."""
    return (lambda rng, input_shape: ([input_shape] * num, ()),
            lambda params, inputs, **kwargs: [inputs] * num)


FanInSum = (lambda rng, input_shape: (input_shape[0], ()),
            lambda params, inputs, **kwargs: sum(inputs))


def FanInConcat(axis=-1):
    """Concatenate a list of inputs along `axis`."""
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        size = sum(s[ax] for s in input_shape)
        return tuple(input_shape[0][:ax]) + (size,) + tuple(input_shape[0][ax + 1:]), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)
    return init_fun, apply_fun


def Dropout(rate, mode="train"):
    """Keep each input with probability `rate` (JAX stax's meaning of `rate`), scaled by
    1/rate, in 'train' mode; identity otherwise. apply_fun needs `rng=`."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng")
        if rng is None:
            raise ValueError("Dropout layer requires apply_fun to be called with a PRNG key "
                             "argument. That is, instead of `apply_fun(params, inputs)`, call "
                             "it like `apply_fun(params, inputs, rng)` where `rng` is a PRNG "
                             "key (e.g. from `jax.random.key`).")
        if mode != "train":
            return inputs
        keep = random.bernoulli(rng, rate, inputs.shape)
        return jnp.where(keep, inputs / rate, 0)
    return init_fun, apply_fun


def serial(*layers):
    """Apply `layers` one after the other."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, p = init(layer_rng, input_shape)
            params.append(p)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, len(layers)) if rng is not None else (None,) * len(layers)
        for f, p, r in zip(apply_funs, params, rngs):
            inputs = f(p, inputs, rng=r, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    """Apply `layers[i]` to the i-th of a list of inputs."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, len(layers))
        return zip(*[init(r, s) for init, r, s in zip(init_funs, rngs, input_shape)])

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, len(layers)) if rng is not None else (None,) * len(layers)
        return [f(p, x, rng=r, **kwargs)
                for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built by `make_layer(input_shape)` once the shape is known."""
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun
