"""The parameters astjax lacked against JAX 0.10.2 (issue 13's signature gaps) and a few
small semantic gaps, on one device: `lax.mul(out_dtype=)`, `scipy.special.log_ndtr(
series_order=)`, `nn.standardize(algorithm=)`, `nn.dot_product_attention(
return_residual=)` (with grouped heads, lengths, windows), `lax.random_gamma_grad(*args)`,
`lax.all_gather(to=)`'s check, the ufunc methods given `out=`, `lax.dynamic_slice` with
mixed index dtypes, the printed jaxpr of a traced negative index and the module name of
a jitted lambda. Per case: the value and dtype (a list of them for a tuple), the printed
text, or the error's builtin class and message. Run on JAX 0.10.2 (`python
tests/oracle/record_lax_signature_gaps.py`) to write lax_signature_gaps.json; run on
astjax by tests/test_lax_signature_gaps.py."""
import json
import sys
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("lax_signature_gaps.json")

_R = np.random.RandomState(0)
Q = _R.randn(2, 3, 4, 8).astype(np.float32)      # B T N H
K = _R.randn(2, 5, 2, 8).astype(np.float32)      # B S K H (two query heads per key head)
V = _R.randn(2, 5, 2, 8).astype(np.float32)
BIAS = _R.randn(2, 1, 3, 5).astype(np.float32)   # broadcast over the heads
MASK = _R.rand(2, 4, 3, 5) > 0.3
STD_X = (1e4 + _R.randn(3, 6)).astype(np.float32)  # a large mean: the fast variance cancels
LOG_NDTR_X = np.array([-40., -12., -3., 0., 6., 9.], np.float32)


def cases(jax, jnp):
    """name -> zero-argument function (its result: an array, a tuple of arrays, or str)."""
    lax, nn, special = jax.lax, jax.nn, jax.scipy.special
    i8 = jnp.array([1, 2, 100], jnp.int8)
    j8 = jnp.array([3, 4, 100], jnp.int8)
    bf = jnp.array([1.5, 2.], jnp.bfloat16)
    bg = jnp.array([2., 3.], jnp.bfloat16)
    f32 = jnp.array([1.5, 2., 70000.], jnp.float32)
    x = jnp.arange(12.).reshape(3, 4)

    def mul32(a, b):
        return lax.mul(a, b, out_dtype=jnp.float32)

    def jitted(f):   # one compiled program, not one per operation (cheap to test)
        return lambda: jax.jit(f)()

    def attention(**kw):
        return jitted(lambda: nn.dot_product_attention(Q, K, V, **kw))
    out = {
        "mul_i8_to_i32": lambda: lax.mul(i8, j8, out_dtype=jnp.int32),
        "mul_i8_to_f32": lambda: mul32(i8, j8),
        "mul_f32_to_f16": lambda: lax.mul(f32, f32, out_dtype=jnp.float16),
        "mul_bf16_to_f32_jit": lambda: jax.jit(mul32)(bf, bg),
        "mul_scalar_operand": lambda: lax.mul(i8, 2, out_dtype=jnp.float32),
        "mul_mixed_dtypes": lambda: lax.mul(i8[:2], bf, out_dtype=jnp.float32),
        "mul_grad": lambda: jax.grad(lambda a, b: mul32(a, b).sum(), (0, 1))(bf, bg),
        "mul_vmap": lambda: jax.vmap(lambda a, b: lax.mul(a, b, out_dtype=jnp.int32))(i8, j8),
        "mul_jvp": lambda: jax.jvp(mul32, (bf, bg), (bg, bf)),
        "log_ndtr_default": jitted(lambda: special.log_ndtr(LOG_NDTR_X)),
        "log_ndtr_grad_order5": lambda: jax.grad(lambda v: special.log_ndtr(v, 5))(-12.),
        "log_ndtr_python_scalar_order2": jitted(lambda: special.log_ndtr(-30.0, series_order=2)),
        "err_log_ndtr_int": lambda: special.log_ndtr(jnp.array([1, 2])),
        "err_log_ndtr_f16": lambda: special.log_ndtr(jnp.array([1.], jnp.float16)),
        "err_log_ndtr_order_float": lambda: special.log_ndtr(1., 2.5),
        "err_log_ndtr_order_31": lambda: special.log_ndtr(1., 31),
        "err_log_ndtr_order_negative": lambda: special.log_ndtr(1., -1),
        "standardize_fast": jitted(lambda: nn.standardize(STD_X)),
        "standardize_stable": jitted(lambda: nn.standardize(STD_X, algorithm="stable")),
        "standardize_stable_where": jitted(lambda: nn.standardize(
            STD_X, axis=0, where=STD_X > 1e4, algorithm="stable")),
        "err_standardize_algorithm": lambda: nn.standardize(STD_X, algorithm="exact"),
        "attention_residual": attention(return_residual=True),
        "attention_causal_lengths": attention(
            is_causal=True, key_value_seq_lengths=jnp.array([3, 5], jnp.int32),
            query_seq_lengths=jnp.array([2, 3], jnp.int32), return_residual=True),
        "attention_window_bias_mask": attention(local_window_size=(1, 0), bias=BIAS,
                                                mask=MASK, implementation="xla"),
        "attention_unbatched": jitted(lambda: nn.dot_product_attention(
            Q[0], K[0], V[0], local_window_size=1, return_residual=True)),
        "err_attention_heads": lambda: nn.dot_product_attention(Q[:, :, :3], K, V),
        "err_attention_mask_dtype": attention(mask=MASK.astype(np.float32)),
        "err_attention_implementation": attention(implementation="tpu"),
        "random_gamma_grad": jitted(lambda: lax.random_gamma_grad(
            jnp.array([0.5, 2., 7.]), jnp.array([0.3, 1.5, 9.]))),
        "random_gamma_grad_f16": jitted(lambda: lax.random_gamma_grad(
            jnp.array([0.5, 2.], jnp.float16), jnp.array([0.3, 1.5], jnp.float16))),
        "err_random_gamma_grad_one": lambda: lax.random_gamma_grad(jnp.array([2.])),
        "err_random_gamma_grad_three": lambda: lax.random_gamma_grad(
            jnp.array(2.), jnp.array(1.), jnp.array(1.)),
        "err_all_gather_to": lambda: lax.all_gather(x, "i", to="everywhere"),
        "err_ufunc_reduce_out": lambda: jnp.add.reduce(x, out=x),
        "err_ufunc_reduce_list_axis": lambda: jnp.multiply.reduce(x, axis=[0]),
        "err_ufunc_reduce_out_hashable": lambda: jnp.add.reduce(x, out=5),
        "err_ufunc_accumulate_out": lambda: jnp.add.accumulate(x, out=x),
        "err_ufunc_reduceat_out": lambda: jnp.add.reduceat(x, jnp.array([0, 2]), out=x),
        "err_ufunc_call_out": lambda: jnp.add(x, x, out=x),
        "err_dynamic_slice_i32_u32": lambda: lax.dynamic_slice(
            x, (jnp.int32(1), jnp.uint32(1)), (2, 2)),
        "err_dynamic_slice_u8_i32_jit": lambda: jax.jit(
            lambda i, j: lax.dynamic_slice(x, (i, j), (2, 2)))(jnp.uint8(1), jnp.int32(1)),
        "err_dynamic_update_slice_i32_u32": lambda: lax.dynamic_update_slice(
            x, jnp.ones((2, 2)), (jnp.int32(1), jnp.uint32(1))),
        "dynamic_slice_python_int_and_i32": lambda: lax.dynamic_slice(
            x, (jnp.int32(1), -1), (2, 2)),
        "dynamic_slice_in_dim_u32": lambda: lax.dynamic_slice_in_dim(x, jnp.uint32(1), 2, 1),
        "jaxpr_weak_negative_index": lambda: str(jax.make_jaxpr(lambda v, i: v[i])(
            jnp.arange(5.), 1)),
        "jaxpr_strong_negative_index": lambda: str(jax.make_jaxpr(lambda v, i: v[i])(
            jnp.arange(5.), jnp.int32(1))),
        "jaxpr_dynamic_slice_weak_index": lambda: str(jax.make_jaxpr(
            lambda v, i: lax.dynamic_slice(v, (0, i), (2, 2)))(x, 1)),
        "module_name_lambda": lambda: jax.jit(lambda v: v + 1).lower(1.).as_text().split(
            " attributes")[0],
        "hlo_module_name_lambda": lambda: jax.jit(lambda v: v * 2).lower(
            1.).compile().as_text().split(",")[0],
    }
    return out


# errors whose message astjax repeats (the others name JAX's own classes or sets)
SAME_MESSAGE = {
    "err_log_ndtr_int", "err_log_ndtr_f16", "err_log_ndtr_order_float",
    "err_log_ndtr_order_31", "err_log_ndtr_order_negative", "err_standardize_algorithm",
    "err_attention_heads", "err_attention_mask_dtype", "err_attention_implementation",
    "err_random_gamma_grad_one", "err_random_gamma_grad_three", "err_ufunc_reduce_list_axis",
    "err_ufunc_accumulate_out", "err_ufunc_reduceat_out", "err_ufunc_reduce_out_hashable",
    "err_dynamic_slice_i32_u32", "err_dynamic_slice_u8_i32_jit",
    "err_dynamic_update_slice_i32_u32"}


def _record(r):
    if isinstance(r, str):
        return {"text": r}
    if isinstance(r, (tuple, list)):
        return {"items": [_record(v) for v in r]}
    a = np.asarray(r)
    return {"value": a.astype(np.float64).tolist(), "dtype": str(a.dtype)}


def run_case(fn):
    """One case's record: {"text"}, {"items"}, {"value", "dtype"} or {"error", "message"}."""
    try:
        return _record(fn())
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        return {"error": type(e).__name__, "message": str(e)}


def run(jax, jnp):
    return {name: run_case(fn) for name, fn in cases(jax, jnp).items()}


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2", "record with JAX 0.10.2"
    PATH.write_text(json.dumps(run(jax, jnp), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PATH}", file=sys.stderr)
