"""Cases for `lax.DotAlgorithm` / `DotAlgorithmPreset` (the `precision=` of dot products
and convolutions, the `jax_default_matmul_precision` flag) and `lax.AccuracyMode` /
`Tolerance` (the `accuracy=` of the unary functions), and a recorder of JAX's results
(see README.md).

Every case is a function of the library's (`jax`, `lax`, `jnp`) modules returning a
JSON-able value: arrays as nested lists (with their dtype), errors as their builtin
class and message, StableHLO as the lines of `jit(f).lower(...).as_text()` that hold
the operations the case is about. The test runs the same functions on astjax.

Run with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_dot_algorithm.py`
writes dot_algorithm.json."""
import json
import re
from pathlib import Path

import ml_dtypes
import numpy as np

_R = np.random.RandomState(2024)
X = _R.randn(4, 5).astype(np.float32)
Y = _R.randn(5, 3).astype(np.float32)
XB = _R.randn(2, 3, 4).astype(np.float32)
YB = _R.randn(2, 4, 2).astype(np.float32)
U = np.linspace(0.1, 2.5, 7).astype(np.float32)
IMG = _R.randn(1, 2, 5, 5).astype(np.float32)
KER = _R.randn(3, 2, 3, 3).astype(np.float32)

DTYPES = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
          "float64": np.float64}
PRESETS = ["DEFAULT", "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
           "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
           "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
           "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64"]
CPU_PRESETS = ["DEFAULT", "F16_F16_F16", "F32_F32_F32", "F64_F64_F64", "BF16_BF16_F32",
               "BF16_BF16_F32_X3", "BF16_BF16_F32_X6"]
UNARY = ["exp", "exp2", "expm1", "log", "log1p", "sin", "cos", "tan", "tanh", "logistic",
         "sqrt", "rsqrt", "cbrt"]
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def array(x):
    """An array as JSON: its dtype and values (complex ones as [real, imag])."""
    x = np.asarray(x)
    if np.iscomplexobj(x):
        return {"dtype": x.dtype.name, "value": [x.real.tolist(), x.imag.tolist()]}
    return {"dtype": x.dtype.name, "value": x.astype(np.float64).tolist()}


def error(e):
    """A raised exception as the builtin class JAX raises and its message (the test
    looks for JAX's first line in astjax's located message)."""
    for cls in (NotImplementedError, TypeError, ValueError):
        if isinstance(e, cls):
            return {"error": cls.__name__, "message": str(e)}
    raise e


def hlo_lines(jax, f, *args, ops=("dot_general", "convert", "convolution")):
    """The StableHLO lines of `jit(f)` holding `ops`, SSA names numbered from 0 in order
    (JAX also emits dead copies of some ops; numbering only what is kept)."""
    text = jax.jit(f).lower(*args).as_text()
    lines = [ln.strip() for ln in text.splitlines()
             if any(re.search(rf"stablehlo\.{op}[ (]", ln) for op in ops)]
    names = {}
    for ln in lines:
        for m in re.findall(r"%\d+", ln.split(" = ")[0]):
            names.setdefault(m, f"%v{len(names)}")
    return [re.sub(r"%\d+", lambda m: names.get(m.group(0), m.group(0)), ln) for ln in lines]


def attempt(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - recorded as data
        return error(e)


# ------------------------------------------------------------------- dot algorithms
def _preset_case(dname, preset):
    def run(jax, lax, jnp):
        a, b = X.astype(DTYPES[dname]), Y.astype(DTYPES[dname])
        f = lambda a, b: lax.dot(a, b, precision=preset)  # noqa: E731
        return attempt(lambda: dict(array(jax.jit(f)(a, b)), hlo=hlo_lines(jax, f, a, b)))
    run.__name__ = f"preset_{preset}_{dname}"
    return run


for _d in DTYPES:
    for _p in PRESETS:
        case(_preset_case(_d, _p))


@case
def preset_properties(jax, lax, jnp):
    def names(ts):
        return None if ts is None else [np.dtype(t).name for t in ts]
    out = {}
    for p in lax.DotAlgorithmPreset:
        out[p.name] = {
            "repr": repr(p), "str": str(p), "lhs": names(p.supported_lhs_types),
            "rhs": names(p.supported_rhs_types),
            "acc": None if p.accumulation_type is None else np.dtype(p.accumulation_type).name,
            "out_f16": names(p.supported_output_types(np.float16, np.float16)),
            "out_bf16": names(p.supported_output_types(ml_dtypes.bfloat16, ml_dtypes.bfloat16)),
            "out_f32": names(p.supported_output_types(np.float32, np.float32))}
    return out


@case
def dot_algorithm_tuple(jax, lax, jnp):
    alg = lax.DotAlgorithm(np.float32, np.float32, np.float32)
    return {"fields": list(lax.DotAlgorithm._fields), "defaults": list(alg[3:]),
            "cpu": attempt(lambda: array(jax.jit(lambda a, b: lax.dot(a, b, precision=alg))(X, Y)))}


_PRECISION_FORMS = {"highest": "'highest'", "bfloat16_3x": "'bfloat16_3x'",
                    "pair_str": "('high', 'default')",
                    "pair_enum": "(lax.Precision.HIGH, lax.Precision.HIGHEST)",
                    "preset_name": "'BF16_BF16_F32_X3'", "bad_name": "'BF16'", "bad_int": "3",
                    "bad_pair_none": "(None, None)", "bad_mixed": "('high', lax.Precision.HIGH)"}


@case
def precision_forms(jax, lax, jnp):
    out = {}
    for name, code in _PRECISION_FORMS.items():
        p = eval(code)
        out[name] = attempt(lambda: str(jax.make_jaxpr(
            lambda a, b: lax.dot(a, b, precision=p))(X, Y)).split("precision=")[1].split("\n")[0])
    return out


@case
def grad_and_vmap(jax, lax, jnp):
    out = {}
    for p in CPU_PRESETS:
        for dname in ("float32", "float16"):
            a, b = X.astype(DTYPES[dname]), Y.astype(DTYPES[dname])
            g = jax.jit(jax.grad(lambda a, b: jnp.sum(jnp.sin(lax.dot(a, b, precision=p)
                                                              .astype(np.float32))),
                                 argnums=(0, 1)))(a, b)
            out[f"grad_{p}_{dname}"] = [array(t) for t in g]
        out[f"vmap_{p}"] = array(jax.vmap(
            lambda a, b: lax.dot(a, b, precision=p))(XB, YB))
    return out


@case
def grad_jaxpr_carries_algorithm(jax, lax, jnp):
    text = str(jax.make_jaxpr(jax.grad(lambda a, b: jnp.sum(
        lax.dot(a, b, precision=lax.DotAlgorithmPreset.BF16_BF16_F32)), argnums=(0, 1)))(X, Y))
    # every dot_general of the derivative (the transposes) has the forward's algorithm
    return [text.count("dot_general[") > 0,
            text.count("precision=BF16_BF16_F32") == text.count("dot_general[")]


@case
def numpy_layer(jax, lax, jnp):
    a16, b16 = X.astype(np.float16), Y.astype(np.float16)
    return {
        "matmul": array(jnp.matmul(a16, b16, precision="F16_F16_F16")),
        "dot": array(jnp.dot(X, Y, precision=lax.DotAlgorithmPreset.F64_F64_F64)),
        "einsum": array(jnp.einsum("ij,jk->ik", a16, b16, precision="F32_F32_F32")),
        "einsum_hlo": hlo_lines(jax, lambda a, b: jnp.einsum(
            "ij,jk->ik", a, b, precision="F32_F32_F32"), a16, b16),
        "tensordot": array(jnp.tensordot(X, Y, 1, precision="BF16_BF16_F32")),
        "matmul_cpu_error": attempt(lambda: array(jnp.matmul(X, Y, precision="TF32_TF32_F32"))),
    }


@case
def convolution(jax, lax, jnp):
    def f(p):
        return lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "SAME", precision=p)

    def config(p):  # the convolution's precision_config (no algorithm attribute)
        return [m for ln in hlo_lines(jax, f(p), IMG, KER)
                for m in re.findall(r"precision_config = \[[^\]]*\]|algorithm", ln)]
    return {p: attempt(lambda: dict(array(jax.jit(f(p))(IMG, KER)), hlo=config(p)))
            for p in ("F32_F32_F32", "BF16_BF16_F32", "TF32_TF32_F32")}


@case
def default_matmul_precision_flag(jax, lax, jnp):
    out = {}
    for flag in ("F16_F16_F16", "highest", "BF16_BF16_F32_X9"):
        with jax.default_matmul_precision(flag):
            f = lambda a, b: a @ b  # noqa: E731
            out[flag] = attempt(lambda: dict(array(jax.jit(f)(X, Y)), hlo=hlo_lines(jax, f, X, Y)))
    return out


# ------------------------------------------------------------------ result accuracy
_ACCURACIES = {"none": "None", "HIGHEST": "lax.AccuracyMode.HIGHEST",
               "DEFAULT": "lax.AccuracyMode.DEFAULT", "atol": "lax.Tolerance(atol=1e-5)",
               "rtol_ulps": "lax.Tolerance(rtol=1e-3, ulps=2)"}


def _accuracy_case(name):
    def run(jax, lax, jnp):
        out = {}
        for key, code in _ACCURACIES.items():
            acc = eval(code)
            f = lambda v: getattr(lax, name)(v, accuracy=acc)  # noqa: E731
            out[key] = dict(array(jax.jit(f)(U)),
                            grad=array(jax.jit(jax.grad(lambda v: jnp.sum(f(v))))(U)),
                            attribute=[m for ln in hlo_lines(jax, f, U, ops=(
                                "exponential", "exponential_minus_one", "log", "log_plus_one",
                                "sine", "cosine", "tan", "tanh", "logistic", "sqrt", "rsqrt",
                                "cbrt")) for m in re.findall(r"result_accuracy = .*>>", ln)])
        return out
    run.__name__ = f"accuracy_{name}"
    return run


for _n in UNARY:
    case(_accuracy_case(_n))


@case
def accuracy_errors(jax, lax, jnp):
    return {"bad_string": attempt(lambda: array(jax.jit(
                lambda v: lax.exp(v, accuracy="highest"))(U))),
            "negative": attempt(lambda: lax.Tolerance(atol=-1.0) and None),
            "unset": attempt(lambda: lax.Tolerance() and None),
            "modes": [m.name for m in lax.AccuracyMode]}


@case
def accuracy_complex(jax, lax, jnp):
    z = (U + 1j * U[::-1]).astype(np.complex64)
    out = {}
    for name in ("sin", "cos", "exp"):
        f = lambda v: getattr(lax, name)(v, accuracy=lax.AccuracyMode.HIGHEST)  # noqa: E731
        out[name] = dict(array(np.real(jax.jit(f)(z))), imag=array(np.imag(jax.jit(f)(z))),
                         count=jax.jit(f).lower(z).as_text().count("result_accuracy"))
    return out


@case
def accuracy_jaxpr(jax, lax, jnp):
    return str(jax.make_jaxpr(lambda v: lax.tanh(v, accuracy=lax.AccuracyMode.HIGHEST))(U))


# ---------------------------------------------------------------------- scaled_dot
_F8 = ml_dtypes.float8_e4m3fn
_E8 = ml_dtypes.float8_e8m0fnu
SD_LHS = _R.randn(2, 4, 64).astype(_F8)
SD_RHS = _R.randn(2, 64, 3).astype(_F8)
SD_LS = (2.0 ** _R.randint(-3, 3, (2, 4, 2))).astype(_E8)
SD_RS = (2.0 ** _R.randint(-3, 3, (2, 2, 3))).astype(_E8)
SD_CASES = {
    "batched": "lax.scaled_dot(l, r, lhs_scale=ls, rhs_scale=rs)",
    "f32_out": "lax.scaled_dot(l, r, lhs_scale=ls, rhs_scale=rs, preferred_element_type=jnp.float32)",
    "no_scales": "lax.scaled_dot(l, r)",
    "rank2": "lax.scaled_dot(l[0], r[0], lhs_scale=ls[0], rhs_scale=rs[0])",
    "explicit_dims": "lax.scaled_dot(l[0], jnp.swapaxes(r[0], 0, 1), lhs_scale=ls[0], "
                     "rhs_scale=jnp.swapaxes(rs[0], 0, 1), dimension_numbers=(((1,), (1,)), ((), ())))",
    "f32_operands": "lax.scaled_dot(l.astype(jnp.float32) * 0.3, r.astype(jnp.float32), "
                    "lhs_scale=ls.astype(jnp.float32), rhs_scale=rs, preferred_element_type=jnp.float32)",
    "jit_vmap": "jax.jit(jax.vmap(lambda a, b, c, d: lax.scaled_dot(a, b, lhs_scale=c, rhs_scale=d)))(l, r, ls, rs)",
    "vmap_rhs_only": "jax.vmap(lambda b: lax.scaled_dot(l[0], b, lhs_scale=ls[0], rhs_scale=rs[0]))(r)",
    "jaxpr": "str(jax.make_jaxpr(lambda a, b, c, d: lax.scaled_dot(a, b, lhs_scale=c, rhs_scale=d))(l, r, ls, rs))",
    "composite": "[ln.strip().split(' : ')[0] for ln in jax.jit(lambda a, b, c, d: lax.scaled_dot("
                 "a, b, lhs_scale=c, rhs_scale=d)).lower(l, r, ls, rs).as_text().splitlines() "
                 "if 'stablehlo.composite' in ln]",
    "grad": "jax.grad(lambda a: lax.scaled_dot(a, r.astype(jnp.float32)).astype(jnp.float32).sum())(l.astype(jnp.float32))",
    "bad_rank1": "lax.scaled_dot(l[0, 0], r[0, :, 0])",
    "bad_ratio": "lax.scaled_dot(l, r, lhs_scale=jnp.ones((2, 4, 64), jnp.float8_e8m0fnu), rhs_scale=rs)",
    "bad_divisible": "lax.scaled_dot(l, r, lhs_scale=jnp.ones((2, 4, 5), jnp.float8_e8m0fnu), rhs_scale=rs)",
    "bad_noncontracting": "lax.scaled_dot(l, r, lhs_scale=ls[:, :3], rhs_scale=rs)",
    "bad_rank_mismatch": "lax.scaled_dot(l, r, lhs_scale=ls[0], rhs_scale=rs)",
    "bad_contract_size": "lax.scaled_dot(l[:, :, :32], r, lhs_scale=ls[:, :, :1], rhs_scale=rs)",
}


def _scaled_case(name, code):
    def run(jax, lax, jnp):
        env = dict(jax=jax, lax=lax, jnp=jnp, l=SD_LHS, r=SD_RHS, ls=SD_LS, rs=SD_RS)
        def go():
            out = eval(code, env)
            return out if isinstance(out, (str, list)) else array(out)
        return attempt(go)
    run.__name__ = f"scaled_dot_{name}"
    return run


for _n, _c in SD_CASES.items():
    case(_scaled_case(_n, _c))


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax import lax
    jax.config.update("jax_enable_x64", True)
    results = {name: fn(jax, lax, jnp) for name, fn in CASES.items()}
    out = Path(__file__).with_name("dot_algorithm.json")
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(results)} cases to {out}")
