"""JAX 0.10.2's values and errors for the calls issue 13 fixed last: weighted
quantiles (`method='inverted_cdf'`, eager, under `jit` and `grad`), 'nearest' at a
tie, `nanvar` / `nanstd` with `dtype=`, `ravel_multi_index(dtype=)` and its modes,
`trim_zeros(axis=)`, `jnp.array` / `asarray` with `order` and positional
arguments, `reshape(newshape=)`, `einsum_path`'s default path, `jax.core.max_dim` /
`min_dim`, and `lax.platform_dependent`'s printed jaxpr.

Run under jax==0.10.2 (`python tests/oracle/record_jnp_semantics.py`) to write
jnp_semantics.json; tests/test_jnp_semantics.py runs the same `cases` on astjax."""
from __future__ import annotations

import json
import os
import warnings

import numpy as np

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jnp_semantics.json")
_BUILTINS = (NotImplementedError, ValueError, TypeError, IndexError)


def cases(jax, jnp, jax_core):
    """name -> zero-argument function (its result: arrays, or a string); `jax_core`:
    the module `import jax.core` gives."""
    lax = jax.lax
    X = jnp.array([[1., 4., 2., 8.], [3., np.nan, .5, 2.]], jnp.float32)
    V = jnp.nan_to_num(X)
    W = jnp.array([[1., 2., 0., 1.], [3., 1., 1., 2.]], jnp.float32)
    Q3 = jnp.array([.1, .5, .9], jnp.float32)
    I1, I2 = jnp.array([0, 1, 2], jnp.int32), jnp.array([1, 0, 3], jnp.int32)
    T = jnp.zeros((4, 5)).at[1:3, 1:4].set(1.).at[2, 3].set(0.)
    inv = {"method": "inverted_cdf"}

    def wq(a, w):
        return jnp.quantile(a, Q3, axis=1, weights=w, **inv)
    out = {
        "wq_row": lambda: jnp.quantile(V, .5, axis=1, weights=W, **inv),
        "wq_vec_keepdims": lambda: jnp.quantile(V, Q3, axis=1, weights=W, keepdims=True, **inv),
        "wq_all": lambda: jnp.quantile(V, .3, weights=W, **inv),
        "wq_axis_weights": lambda: jnp.quantile(V, .5, axis=1, weights=jnp.array([1., 1., 2., 1.]),
                                                **inv),
        "wq_axis0_weights": lambda: jnp.quantile(V, Q3, axis=0, weights=jnp.array([1., 3.]),
                                                 **inv),
        "wq_axes_tuple": lambda: jnp.quantile(V, jnp.array([.25, .75]), axis=(0, 1), weights=W,
                                              **inv),
        "wq_axes_tuple_keepdims": lambda: jnp.quantile(V, .5, axis=(0, 1), weights=W,
                                                       keepdims=True, **inv),
        "wq_edges": lambda: jnp.quantile(V, jnp.array([0., 1.]), axis=1, weights=W, **inv),
        "q_inverted_unweighted": lambda: jnp.quantile(V, Q3, axis=1, **inv),
        "wq_nan_data": lambda: jnp.quantile(X, .5, axis=1, weights=W, **inv),
        "wq_negative_weight": lambda: jnp.quantile(V, .5, axis=1, weights=W.at[0, 2].set(-1.),
                                                   **inv),
        "wq_nan_weight": lambda: jnp.quantile(V, .5, axis=1, weights=W.at[1, 0].set(np.nan),
                                              **inv),
        "wq_zero_weights": lambda: jnp.quantile(V, Q3, axis=1, weights=jnp.zeros((2, 4)), **inv),
        "wq_int_data": lambda: jnp.quantile(jnp.arange(6), .5, weights=jnp.arange(6), **inv),
        "wnq_row": lambda: jnp.nanquantile(X, .5, axis=1, weights=W, **inv),
        "wnq_vec_keepdims": lambda: jnp.nanquantile(X, Q3, axis=1, weights=W, keepdims=True,
                                                    **inv),
        "wnq_all_nan_row": lambda: jnp.nanquantile(X.at[0].set(np.nan), .5, axis=1, weights=W,
                                                   **inv),
        "nq_inverted_unweighted": lambda: jnp.nanquantile(X, Q3, axis=1, **inv),
        "wp_row": lambda: jnp.percentile(V, 50, axis=1, weights=W, **inv),
        "wnp_vec": lambda: jnp.nanpercentile(X, jnp.array([20., 70.]), axis=1, weights=W, **inv),
        "wq_jit": lambda: jax.jit(lambda a, w: jnp.quantile(a, .5, axis=1, weights=w, **inv))(
            V, W),
        "wq_grad_data": lambda: jax.grad(lambda a: wq(a, W).sum())(V),
        "wq_grad_weights": lambda: jax.grad(lambda w: wq(V, w).sum())(W),
        "wnq_grad_data": lambda: jax.grad(lambda a: jnp.nanquantile(
            a, Q3, axis=1, weights=W, **inv).sum())(V.at[1, 1].set(np.nan)),
        "nearest_tie": lambda: jnp.quantile(jnp.arange(4.), jnp.array([.5, .1, .9]),
                                            method="nearest"),
        "nearest_percentile": lambda: jnp.percentile(jnp.arange(7.), jnp.array([25., 50., 75.]),
                                                     method="nearest"),
        "nan_nearest_tie": lambda: jnp.nanquantile(X, .5, axis=1, method="nearest"),
        "err_weights_linear": lambda: jnp.quantile(V, .5, weights=W),
        "err_weights_shape": lambda: jnp.quantile(V, .5, axis=1, weights=jnp.ones(3), **inv),
        "err_weights_axis_none": lambda: jnp.quantile(V, .5, weights=jnp.ones(4), **inv),
        "err_weights_complex": lambda: jnp.quantile(V, .5, weights=W.astype(jnp.complex64),
                                                    **inv),
        "err_method": lambda: jnp.quantile(V, .5, method="bogus"),
        "err_out": lambda: jnp.quantile(V, .5, out=V),
        "err_overwrite": lambda: jnp.nanquantile(V, .5, overwrite_input=True),
        "err_percentile_overwrite": lambda: jnp.percentile(V, 50, overwrite_input=True),
        "err_median_overwrite": lambda: jnp.median(V, overwrite_input=True),
        "err_q_rank": lambda: jnp.quantile(V, jnp.ones((2, 2)) / 2),
        # nanvar / nanstd honour dtype=
        "nanvar_f16": lambda: jnp.nanvar(X, axis=1, dtype=jnp.float16),
        "nanvar_bf16_data": lambda: jnp.nanvar(X.astype(jnp.bfloat16), axis=0),
        "nanstd_f16": lambda: jnp.nanstd(X, axis=0, dtype=jnp.float16),
        "nanvar_int_data": lambda: jnp.nanvar(jnp.arange(6).reshape(2, 3), axis=1),
        "nanvar_int_data_f16": lambda: jnp.nanvar(jnp.arange(6).reshape(2, 3), dtype=jnp.float16),
        "nanvar_complex": lambda: jnp.nanvar(X * (1 + 2j), axis=1),
        "nanvar_ddof_empty": lambda: jnp.nanvar(X, axis=0, ddof=1),
        "nanstd_ddof_big": lambda: jnp.nanstd(X, axis=1, ddof=3),
        "nanvar_where": lambda: jnp.nanvar(X, axis=1, where=W > 0.5, dtype=jnp.float16),
        "err_nanvar_real_dtype_complex": lambda: jnp.nanvar(X * 1j, dtype=jnp.float32),
        # ravel_multi_index
        "rmi": lambda: jnp.ravel_multi_index((I1, I2), (3, 4)),
        "rmi_dtype": lambda: jnp.ravel_multi_index((I1, I2), (3, 4), mode="wrap",
                                                   dtype=jnp.int16),
        "rmi_uint8": lambda: jnp.ravel_multi_index((I1, I2), (3, 4), mode="clip",
                                                   dtype=jnp.uint8),
        "rmi_int8_indices": lambda: jnp.ravel_multi_index((I1.astype(jnp.int8),
                                                           I2.astype(jnp.int8)), (3, 4),
                                                          mode="wrap"),
        "rmi_scalars": lambda: jnp.ravel_multi_index((1, 2), (3, 4)),
        "rmi_wrap_f": lambda: jnp.ravel_multi_index((I1 + 2, I2 - 5), (3, 4), mode="wrap",
                                                    order="F"),
        "rmi_clip": lambda: jnp.ravel_multi_index((I1 + 2, I2 - 5), (3, 4), mode="clip"),
        "rmi_ignore": lambda: jnp.ravel_multi_index((I1, I2 + 1), (3, 4), mode="ignore"),
        "rmi_clip_jit": lambda: jax.jit(lambda i, j: jnp.ravel_multi_index(
            (i, j), (3, 4), mode="clip", dtype=jnp.int16))(I1 + 2, I2),
        "err_rmi_small_dtype": lambda: jnp.ravel_multi_index((I1, I2), (20, 20), dtype=jnp.int8),
        "err_rmi_float_dtype": lambda: jnp.ravel_multi_index((I1, I2), (3, 4),
                                                             dtype=jnp.float32),
        "err_rmi_raise": lambda: jnp.ravel_multi_index((I1, I2 + 2), (3, 4)),
        "err_rmi_raise_jit": lambda: jax.jit(lambda i: jnp.ravel_multi_index((i, i), (3, 4)))(I1),
        "err_rmi_float_index": lambda: jnp.ravel_multi_index((I1 * 1., I2), (3, 4), mode="clip"),
        "err_rmi_mode": lambda: jnp.ravel_multi_index((I1, I2), (3, 4), mode="bogus"),
        "err_rmi_order": lambda: jnp.ravel_multi_index((I1, I2), (3, 4), order="A"),
        # trim_zeros(axis=)
        "trim_all": lambda: jnp.trim_zeros(T),
        "trim_axis0": lambda: jnp.trim_zeros(T, axis=0),
        "trim_axis1_f": lambda: jnp.trim_zeros(T, "f", axis=1),
        "trim_axis_neg_b": lambda: jnp.trim_zeros(T, trim="b", axis=-1),
        "trim_tuple": lambda: jnp.trim_zeros(T, axis=(1, 0)),
        "trim_zeros_2d": lambda: jnp.trim_zeros(jnp.zeros((2, 3)), axis=1),
        "trim_1d": lambda: jnp.trim_zeros(jnp.array([0, 0, 2, 0, 1, 0])),
        "trim_no_ends": lambda: jnp.trim_zeros(T, trim="x"),
        # array / asarray: order, positional copy / order / ndmin, keyword-only copy
        "array_positional": lambda: jnp.array([1, 2], jnp.float32, True, "K", 2),
        "array_order_none": lambda: jnp.array([1., 2.], order=None),
        "err_array_order_c": lambda: jnp.array([1., 2.], order="C"),
        "err_array_order_positional": lambda: jnp.array([1., 2.], None, True, "F"),
        "err_array_too_many": lambda: jnp.array([1.], None, True, "K", 0, 1),
        "err_array_twice": lambda: jnp.array([1.], None, False, copy=False),
        "array_object_keyword": lambda: jnp.array(object=[3, 4], dtype=jnp.int16),
        "asarray_order_k": lambda: jnp.asarray([1., 2.], None, "K"),
        "err_asarray_order_f": lambda: jnp.asarray([1., 2.], order="F"),
        "err_asarray_copy_positional": lambda: jnp.asarray([1., 2.], None, None, True),
        "empty_like_prototype": lambda: jnp.empty_like(prototype=V, dtype=jnp.int32),
        "issubdtype_names": lambda: str(jnp.issubdtype(arg1=jnp.bfloat16, arg2=jnp.floating)),
        "err_reshape_newshape": lambda: jnp.reshape(V, newshape=(4, 2)),
        "reshape_shape_keyword": lambda: jnp.reshape(V, shape=(4, 2)),
        "err_repeat_positional_total": lambda: jnp.repeat(V, 2, 0, 8),
        "einsum_path_auto": lambda: str(jnp.einsum_path("ij,jk,kl->il", np.ones((2, 3)),
                                                        np.ones((3, 8)), np.ones((8, 2)))[0]),
        "einsum_path_four": lambda: str(jnp.einsum_path(
            "ab,bc,cd,de->ae", np.ones((8, 2)), np.ones((2, 9)), np.ones((9, 3)),
            np.ones((3, 7)))[0]),
        "einsum_path_greedy": lambda: str(jnp.einsum_path(
            "ab,bc,cd->ad", np.ones((8, 2)), np.ones((2, 9)), np.ones((9, 3)),
            optimize="greedy")[0]),
        "einsum_path_false": lambda: str(jnp.einsum_path(
            "ab,bc,cd->ad", np.ones((8, 2)), np.ones((2, 9)), np.ones((9, 3)),
            optimize=False)[0]),
        "einsum_path_true": lambda: str(jnp.einsum_path(
            "ab,bc,cd->ad", np.ones((8, 2)), np.ones((2, 9)), np.ones((9, 3)),
            optimize=True)[0]),
        # jax.core.max_dim / min_dim
        "core_max_min_dim": lambda: str((jax_core.max_dim(2, 5), jax_core.min_dim(2, 5))),
        "core_max_dim_symbolic": lambda: str(jax_core.max_dim(
            jax.export.symbolic_shape("b")[0], 3)),
        # lax.platform_dependent's jaxpr
        "platform_dependent_jaxpr": lambda: str(jax.make_jaxpr(
            lambda x: lax.platform_dependent(x, cpu=jnp.sin, default=jnp.cos))(1.)),
        "platform_dependent_shared": lambda: str(jax.make_jaxpr(
            lambda x: lax.platform_dependent(x, cpu=jnp.sin, cuda=jnp.sin, tpu=jnp.cos))(1.)),
        "platform_dependent_value": lambda: jax.jit(
            lambda x: lax.platform_dependent(x, cpu=jnp.sin, default=jnp.cos))(1.),
    }
    return out


def _error(e):
    builtin = next((b.__name__ for b in _BUILTINS if isinstance(e, b)), "Exception")
    return {"error": builtin, "message": (getattr(e, "message", None) or str(e)).split("\n")[0]}


def record_one(fn):
    """A case's result as JSON: {"value", "dtype", "shape"} for an array, {"text"} for
    a string, or {"error", "message"}."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        return _error(e)
    return as_json(r)


def as_json(r):
    """`record_one`'s JSON of a result."""
    if isinstance(r, str):
        return {"text": r}
    v = np.asarray(r)
    vals = np.where(np.isnan(v), -999.0, v) if v.dtype.kind in "fc" else v
    if v.dtype.kind == "c":
        vals = [np.real(vals).tolist(), np.imag(vals).tolist()]
    else:
        vals = vals.astype(np.float64).tolist()
    return {"value": vals, "dtype": v.dtype.name, "shape": list(v.shape)}


def run(jax, jnp, jax_core):
    return {name: record_one(fn) for name, fn in cases(jax, jnp, jax_core).items()}


if __name__ == "__main__":
    import jax
    import jax.core
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2", jax.__version__
    with open(PATH, "w") as f:
        json.dump(run(jax, jnp, jax.core), f, indent=0, sort_keys=True)
        f.write("\n")
