"""Cases for the block-scaled products of `jax.nn` (scaled_matmul, scaled_dot_general,
get_scaled_dot_general_config), the dtypes int1/uint1/float6_e2m3fn/float6_e3m2fn and
`random_gamma_p`'s samplers, and a recorder of JAX's results (see README.md).

JAX 0.10.2 has no CPU lowering for `scaled_matmul` (cuDNN on NVIDIA, `lax.scaled_dot`
on ROCm). The recorder computes JAX's values on CPU by JAX's own ROCm route: it points
JAX's `scaled_matmul_wrapper` at `lax.scaled_dot` (which runs on CPU), so quantization,
the forward product and the custom VJP are JAX's code throughout.

Run with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_scaled_and_dtypes.py`
writes scaled_and_dtypes.json."""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from record_narrow_dtypes import EXPRS as NARROW_EXPRS  # noqa: E402

DTYPES = ["int1", "uint1", "float6_e2m3fn", "float6_e3m2fn"]
EXPRS = dict(NARROW_EXPRS,
             finfo_eps="jnp.finfo(dt).eps", finfo_max="jnp.finfo(dt).max",
             finfo_tiny="jnp.finfo(dt).tiny", iinfo_min="jnp.iinfo(dt).min",
             iinfo_max="jnp.iinfo(dt).max", device_put="jax.device_put(np.array([1, 0, 1], dt))",
             issub_integer="jnp.issubdtype(dt, jnp.integer)",
             issub_floating="jnp.issubdtype(dt, jnp.floating)",
             promote_self="jnp.promote_types(dt, dt)",
             jaxpr="str(jax.make_jaxpr(lambda a: a.astype(jnp.float32))(np.zeros(2, dt)))")

# scaled products: (name, code); `q`, `s` etc. are defined by `scaled_inputs`
SCALED = {
    "doc_example": "nn.scaled_matmul(a3, b3, s1, s1)",
    "matmul_f32_blocks": "nn.scaled_matmul(x, y, xs, ys)",
    "matmul_bf16_out": "nn.scaled_matmul(x, y, xs, ys, preferred_element_type=jnp.bfloat16)",
    "mxfp8_dot": "nn.scaled_dot_general(l, r, (((2,), (2,)), ((0,), (0,))), configs=[mx] * 3)",
    "mxfp8_dot_nobatch": "nn.scaled_dot_general(l[0], r[0], (((1,), (1,)), ((), ())), configs=[mx] * 3)",
    "mxfp8_dot_perm": "nn.scaled_dot_general(jnp.swapaxes(l, 1, 2), r, (((1,), (2,)), ((0,), (0,))), configs=[mx] * 3)",
    "nvfp4_dot": "nn.scaled_dot_general(l, r, (((2,), (2,)), ((0,), (0,))), configs=[nv] * 3)",
    "nvfp4_dot_bf16": "nn.scaled_dot_general(l, r, (((2,), (2,)), ((0,), (0,))), jnp.bfloat16, configs=[nv] * 3)",
    "no_configs": "nn.scaled_dot_general(l, r, (((2,), (2,)), ((0,), (0,))))",
    "mxfp8_grad": "jax.grad(lambda l, r: jnp.sum(jnp.sin(nn.scaled_dot_general(l, r, (((2,), (2,)), ((0,), (0,))), configs=[mx] * 3))), argnums=(0, 1))(l2, r2)",
    "nvfp4_grad": "jax.grad(lambda l, r: jnp.sum(jnp.sin(nn.scaled_dot_general(l, r, (((2,), (2,)), ((0,), (0,))), configs=[nv] * 3))), argnums=(0, 1))(l * 300, r)",
    "mxfp8_grad_nobatch": "jax.grad(lambda l, r: jnp.sum(nn.scaled_dot_general(l, r, (((1,), (0,)), ((), ())), configs=[mx] * 3) ** 2), argnums=(0, 1))(l2[0], r2[0])",
    "mxfp8_grad_small_raises": "jax.grad(lambda l, r: jnp.sum(nn.scaled_dot_general(l, r, (((2,), (2,)), ((0,), (0,))), configs=[mx] * 3)))(l, r)",
    "jit_vmap": "jax.jit(jax.vmap(lambda l, r: nn.scaled_dot_general(l, r, (((1,), (1,)), ((), ())), configs=[mx] * 3)))(l, r)",
    "config_mxfp8": "[mx.mode, mx.block_size, np.dtype(mx.data_type).name, np.dtype(mx.scale_type).name, mx.global_scale]",
    "config_nvfp4": "[nv.mode, nv.block_size, np.dtype(nv.data_type).name, np.dtype(nv.scale_type).name, np.asarray(nv.global_scale).tolist()]",
    "bad_rank": "nn.scaled_matmul(x[0], y, xs, ys)",
    "bad_out_dtype": "nn.scaled_dot_general(l, r, (((2,), (2,)), ((0,), (0,))), jnp.int32, configs=[mx] * 3)",
    "bad_mode": "nn.get_scaled_dot_general_config('fp8')",
}

# gamma samplers (random_gamma_p): name -> code; `k` is key(7), `kr` PRNGKey(7)
GAMMA = {
    "gamma_vec": "jax.random.gamma(k, jnp.array([0.2, 1.0, 3.5, 40.0]))",
    "gamma_shape": "jax.random.gamma(kr, 2.0, (2, 3))",
    "gamma_bcast": "jax.random.gamma(k, jnp.array([0.5, 5.0]), (3, 2))",
    "loggamma_small": "jax.random.loggamma(k, jnp.array([1e-3, 0.05, 0.7]))",
    "beta": "jax.random.beta(k, 0.5, jnp.array([0.3, 2.0, 7.0]))",
    "dirichlet": "jax.random.dirichlet(kr, jnp.array([0.2, 1.0, 4.0]), (2,))",
    "vmap_keys": "jax.vmap(lambda kk, a: jax.random.gamma(kk, a, (2,)))(jax.random.split(k, 3), jnp.array([0.3, 1.5, 9.0]))",
    "vmap_alpha": "jax.vmap(lambda a: jax.random.gamma(k, a))(jnp.array([0.3, 1.5, 9.0]))",
    "vmap_loggamma_keys": "jax.vmap(lambda kk: jax.random.loggamma(kk, jnp.array([0.1, 2.0])))(jax.random.split(kr, 2))",
    "jvp": "jax.jvp(lambda a: jax.random.gamma(k, a), (jnp.array([0.4, 2.0, 12.0]),), (jnp.array([1.0, 0.5, 2.0]),))",
    "jvp_log": "jax.jvp(lambda a: jax.random.loggamma(k, a), (jnp.array([0.4, 2.0]),), (jnp.array([1.0, 1.0]),))",
    "grad_vmap": "jax.grad(lambda a: jnp.sum(jax.vmap(lambda kk: jax.random.gamma(kk, a, (2,)))(jax.random.split(k, 2))))(1.7)",
    "jaxpr": "str(jax.make_jaxpr(lambda kk, a: jax.random.gamma(kk, a))(k, jnp.ones(3)))",
    "jaxpr_log": "str(jax.make_jaxpr(lambda kk, a: jax.random.loggamma(kk, a))(k, jnp.ones(3)))",
}


def scaled_inputs(jnp, jax, nn):
    """The operands of SCALED, from fixed NumPy draws (the same for both libraries)."""
    rng = np.random.default_rng(0)
    f32 = np.float32
    env = {"jnp": jnp, "jax": jax, "nn": nn, "np": np}
    env["a3"] = jnp.array(np.array([1, 2, 3], f32).reshape(1, 1, 3))
    env["b3"] = jnp.array(np.array([4, 5, 6], f32).reshape(1, 1, 3))
    env["s1"] = jnp.array(np.array([0.5], f32).reshape(1, 1, 1))
    env["x"] = jnp.array(rng.standard_normal((2, 3, 8)).astype(f32))
    env["y"] = jnp.array(rng.standard_normal((2, 5, 8)).astype(f32))
    env["xs"] = jnp.array(rng.uniform(0.5, 2, (2, 3, 2)).astype(f32))
    env["ys"] = jnp.array(rng.uniform(0.5, 2, (2, 5, 2)).astype(f32))
    env["l"] = jnp.array((rng.standard_normal((2, 4, 64)) * 3).astype(f32))
    env["r"] = jnp.array(rng.standard_normal((2, 6, 64)).astype(f32))
    env["l2"] = jnp.array(rng.standard_normal((1, 32, 32)).astype(f32))
    env["r2"] = jnp.array((rng.standard_normal((1, 32, 32)) * 0.1).astype(f32))
    env["mx"] = nn.get_scaled_dot_general_config("mxfp8")
    env["nv"] = nn.get_scaled_dot_general_config("nvfp4", jnp.array([0.5], jnp.float32))
    return env


def _encode(out):
    if isinstance(out, (list, tuple)) and out and not all(
            hasattr(o, "shape") or isinstance(o, (int, float)) for o in out):
        return {"value": [o if isinstance(o, (str, int, float, type(None))) else
                          np.asarray(o).tolist() for o in out]}
    if isinstance(out, str):
        return {"text": out}
    leaves = list(out) if isinstance(out, (list, tuple)) else [out]
    return {"arrays": [{"dtype": str(np.asarray(v).dtype),
                        "shape": list(np.shape(v)),
                        "values": np.asarray(v).astype(np.float64).ravel().tolist()}
                       for v in leaves]}


def run_code(env, code):
    """-> the encoded result, or {"raises": class name} when the code raises."""
    try:
        out = eval(code, env)
    except Exception as e:  # noqa: BLE001 - the class name is the recorded result
        return {"raises": type(e).__name__}
    return _encode(out)


def gamma_env(jnp, jax):
    return {"jnp": jnp, "jax": jax, "np": np, "k": jax.random.key(7),
            "kr": jax.random.PRNGKey(7)}


def _jax_rocm_route():
    """Point JAX's scaled_matmul at lax.scaled_dot (its ROCm lowering), which CPU runs."""
    import jax
    from jax import lax
    from jax._src.cudnn import scaled_matmul_stablehlo as sm

    def wrapper(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
        return lax.scaled_dot(lhs, rhs, lhs_scale=lhs_scales, rhs_scale=rhs_scales,
                              dimension_numbers=(((2,), (2,)), ((0,), (0,))),
                              preferred_element_type=preferred_element_type)
    sm.scaled_matmul_wrapper = wrapper

    def scaled_matmul(a, b, sa, sb, preferred_element_type=np.float32):
        # the docstring's definition, through the same bfloat16 route (block size 1 too)
        bf = jax.numpy.bfloat16

        def dequantized(v, s):
            return v.astype(bf) * jax.numpy.repeat(s, v.shape[-1] // s.shape[-1], -1).astype(bf)
        return lax.dot_general(dequantized(a, sa), dequantized(b, sb),
                               (((2,), (2,)), ((0,), (0,))),
                               preferred_element_type=preferred_element_type)
    return scaled_matmul


def record(path):
    import jax
    import jax.numpy as jnp
    out = {f"dtype/{d}/{k}": run_case_ext(jnp, jax, d, code)
           for d in DTYPES for k, code in EXPRS.items()}
    matmul = _jax_rocm_route()

    class NN:  # jax.nn with the CPU route for scaled_matmul's non-raising cases
        scaled_dot_general = staticmethod(jax.nn.scaled_dot_general)
        get_scaled_dot_general_config = staticmethod(jax.nn.get_scaled_dot_general_config)

        @staticmethod
        def scaled_matmul(a, b, sa, sb, preferred_element_type=np.float32):
            if not all(v.ndim == 3 for v in (a, b, sa, sb)):
                return jax.nn.scaled_matmul(a, b, sa, sb, preferred_element_type)
            return matmul(a, b, sa, sb, preferred_element_type)
    env = scaled_inputs(jnp, jax, NN)
    out.update({f"scaled/{k}": run_code(env, code) for k, code in SCALED.items()})
    genv = gamma_env(jnp, jax)
    out.update({f"gamma/{k}": run_code(genv, code) for k, code in GAMMA.items()})
    Path(path).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


def run_case_ext(jnp, jax, dtype_name, code):
    """record_narrow_dtypes.run_case's encoding, with `np` bound and string / bool
    results kept."""
    dt = getattr(jnp, dtype_name)
    try:
        val = eval(code, {"jnp": jnp, "jax": jax, "dt": dt, "np": np})
    except Exception as e:  # noqa: BLE001 - the class name is the recorded result
        return {"raises": type(e).__name__}
    if isinstance(val, str):
        return {"text": val}
    if isinstance(val, (bool, np.bool_)):
        return {"value": bool(val)}
    if isinstance(val, (np.dtype, type)):
        return {"dtype": str(np.dtype(val)), "values": None}
    arr = np.asarray(val)
    return {"dtype": str(arr.dtype), "values": arr.astype(np.float64).ravel().tolist()}


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("scaled_and_dtypes.json"))
