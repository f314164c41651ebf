"""`lax.DotAlgorithm` / `DotAlgorithmPreset` and `lax.AccuracyMode` / `Tolerance` against
JAX 0.10.2's stored results (tests/oracle/record_dot_algorithm.py -> dot_algorithm.json):
every preset on f32/f16/bf16/f64 operands (values, the StableHLO JAX emits on CPU --
operand casts, `#stablehlo.dot_algorithm`, the accumulator's convert -- or JAX's
ValueError for the presets CPU would ignore), the precision forms, gradients and vmap
with a preset, jnp / conv / the `jax_default_matmul_precision` flag, and `accuracy=` of
the 13 unary functions (values, gradients, the `result_accuracy` attribute, errors)."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import AstjaxError

from oracle import record_dot_algorithm as rec

STORED = json.loads(Path(rec.__file__).with_name("dot_algorithm.json").read_text())


@pytest.fixture(autouse=True)
def _x64(x64):
    """The recorder ran with x64 on (the float64 operands and F64_F64_F64)."""
    yield


def _same(got, want, where, rtol=0.0):
    """`got` (astjax, recorded by the same case function) equals JAX's `want`."""
    if isinstance(want, dict) and "error" in want:
        assert isinstance(got, dict) and got.get("error") == want["error"], (where, got, want)
        assert want["message"].splitlines()[0] in got["message"], (where, got["message"])
        return
    if isinstance(want, dict) and "dtype" in want and "value" in want:
        assert got["dtype"] == want["dtype"], (where, got["dtype"], want["dtype"])
        # XLA's CPU dot kernels round the last bits differently on different CPU models
        # (values stored on one machine, run on an AMD EPYC: 1 ulp apart in JAX itself):
        # a few ulps of the result's type, far below what separates two presets
        value, dtype = np.asarray(want["value"]), np.dtype(want["dtype"])
        # (float32 ulps also for float64 results: presets compute in float32 and up)
        ulps = 4 * float(np.finfo(np.float32).eps) if dtype.kind in "fc" else 0.0
        # (and an entry that cancels carries its summands' rounding: ulps of the largest)
        scale = float(np.max(np.abs(value), initial=0.0)) if value.dtype.kind in "fc" else 0.0
        np.testing.assert_allclose(np.asarray(got["value"]), value,
                                   rtol=max(rtol, ulps), atol=ulps * scale, err_msg=where)
        for k in want.keys() - {"dtype", "value"}:
            _same(got[k], want[k], f"{where}.{k}", rtol)
        return
    if isinstance(want, dict):
        assert set(got) == set(want), (where, set(got) ^ set(want))
        for k in want:
            _same(got[k], want[k], f"{where}.{k}", rtol)
        return
    if isinstance(want, list) and want and isinstance(want[0], dict):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]", rtol)
        return
    assert got == want, (where, got, want)


PRESET_CASES = sorted(n for n in rec.CASES if n.startswith("preset_") and n != "preset_properties")


@pytest.mark.parametrize("name", PRESET_CASES)
def test_preset_values_and_stablehlo_match_jax(name):
    # same HLO as JAX, so the values are bit-identical
    _same(rec.CASES[name](jax, lax, jnp), STORED[name], name)


@pytest.mark.parametrize("name", ["preset_properties", "dot_algorithm_tuple", "precision_forms",
                                  "grad_jaxpr_carries_algorithm", "numpy_layer", "convolution",
                                  "default_matmul_precision_flag", "accuracy_errors",
                                  "accuracy_jaxpr"])
def test_case_matches_jax(name):
    _same(rec.CASES[name](jax, lax, jnp), STORED[name], name)


def test_complex_accuracy_is_dropped_where_jax_drops_it():
    # JAX expands complex sin/cos into real operations (no attribute); astjax lowers
    # them to stablehlo.sine/cosine without it: values to the last bits
    _same(rec.CASES["accuracy_complex"](jax, lax, jnp), STORED["accuracy_complex"],
          "accuracy_complex", rtol=1e-5)


def test_gradients_and_vmap_carry_the_algorithm():
    # astjax's transpose rule orders its converts differently from JAX's: last-bit
    # differences in the f16 cotangents, hence the tolerance
    _same(rec.CASES["grad_and_vmap"](jax, lax, jnp), STORED["grad_and_vmap"], "grad_and_vmap",
          rtol=2e-3)


@pytest.mark.parametrize("name", [f"accuracy_{n}" for n in rec.UNARY])
def test_accuracy_values_gradients_and_attribute_match_jax(name):
    # forward values bit-identical (same op); derivatives to the last bits (astjax's
    # jvp rules group their products differently for sqrt/rsqrt/cbrt)
    got, want = rec.CASES[name](jax, lax, jnp), STORED[name]
    for key in want:
        _same(got[key]["value"], want[key]["value"], f"{name}.{key}")
        assert got[key]["attribute"] == want[key]["attribute"], (name, key)
        _same(got[key]["grad"], want[key]["grad"], f"{name}.{key}.grad", rtol=1e-6)


def test_cpu_rejection_is_located_and_a_value_error():
    def f(a, b):
        return lax.dot(a, b, precision="TF32_TF32_F32")
    with pytest.raises(ValueError) as info:
        jax.jit(f)(rec.X, rec.Y)
    assert isinstance(info.value, AstjaxError)
    assert "test_dot_algorithm.py" in str(info.value) and "TF32_TF32_F32" in str(info.value)


def test_reference_interpreter_follows_the_algorithm():
    # the NumPy reference (used by astjax's interpreter) rounds operands to the
    # algorithm's types as XLA does: F16_F16_F16 on f32 operands loses f32 digits,
    # BF16_BF16_F32 on f32 keeps them (f32 is one of its operand types)
    from astjax.primitives.reductions import dot_general_p
    dn = (((1,), (0,)), ((), ()))
    want = STORED["preset_F16_F16_F16_float32"]["value"]
    got = dot_general_p.impl(rec.X, rec.Y, dimension_numbers=dn,
                             precision=lax.DotAlgorithmPreset.F16_F16_F16,
                             preferred_element_type=np.dtype(np.float32))
    np.testing.assert_allclose(got, want, rtol=2e-3)
    assert np.abs(got - rec.X @ rec.Y).max() > 1e-4
    got = dot_general_p.impl(rec.X, rec.Y, dimension_numbers=dn,
                             precision=lax.DotAlgorithmPreset.BF16_BF16_F32,
                             preferred_element_type=np.dtype(np.float32))
    np.testing.assert_allclose(got, STORED["preset_BF16_BF16_F32_float32"]["value"], rtol=1e-6)


@pytest.mark.filterwarnings("ignore::UserWarning")  # exec'd source: traced, as JAX does
def test_printed_source_round_trips_presets_and_accuracy():
    def f(a, b):
        return (lax.dot(a, b, precision="F64_F64_F64")
                + lax.exp(lax.dot(a, b), accuracy=lax.Tolerance(atol=1e-5))
                + lax.sin(lax.dot(a, b), accuracy=lax.AccuracyMode.HIGHEST))
    src = jax.source(f, rec.X, rec.Y)
    assert "precision=DotAlgorithmPreset.F64_F64_F64" in src
    assert "accuracy=lax.Tolerance(atol=1e-05, rtol=0.0, ulps=0)" in src
    assert "accuracy=AccuracyMode.HIGHEST" in src
    scope = {}
    exec(compile(src, "<generated>", "exec"), scope)
    np.testing.assert_allclose(np.asarray(jax.jit(scope["f"])(rec.X, rec.Y)),
                               np.asarray(jax.jit(f)(rec.X, rec.Y)), rtol=0)


def test_dot_signature_is_jax_0_10_2s():
    # everything after the operands by keyword; dimension_numbers optional
    with pytest.raises(TypeError):
        lax.dot(rec.X, rec.Y, "highest")
    got = lax.dot(rec.XB, rec.YB, dimension_numbers=(((2,), (1,)), ((0,), (0,))),
                  precision=lax.DotAlgorithmPreset.F32_F32_F32)
    np.testing.assert_allclose(got, STORED["grad_and_vmap"]["vmap_F32_F32_F32"]["value"], rtol=0)
    with pytest.raises(ValueError, match="dimension_numbers must be specified"):
        lax.dot(rec.XB, rec.YB)


# ---------------------------------------------------------------------- scaled_dot
SCALED = sorted(f"scaled_dot_{n}" for n in rec.SD_CASES)


@pytest.mark.filterwarnings("ignore::UserWarning")  # eval'd lambdas: traced, as JAX does
@pytest.mark.parametrize("name", SCALED)
def test_scaled_dot_matches_jax(name):
    # values (eager, jit, vmap), the printed jaxpr, the composite op, JAX's TypeErrors
    # and differentiation error
    got, want = rec.CASES[name](jax, lax, jnp), STORED[name]
    if name == "scaled_dot_composite":
        # the decomposition's private function is named by astjax's composite lowering
        got, want = ([re.sub(r"decomposition = @[\w.]+", "decomposition = @F", g) for g in x]
                     for x in (got, want))
    _same(got, want, name)


def test_scaled_dot_reference_matches_xla():
    # the NumPy reference the interpreter runs
    from astjax.primitives.scaled_dot import scaled_dot_p
    dn = (((2,), (1,)), ((0,), (0,)))
    got = scaled_dot_p.impl(rec.SD_LHS, rec.SD_RHS, rec.SD_LS, rec.SD_RS, dimension_numbers=dn,
                            preferred_element_type=np.dtype(np.float32))
    np.testing.assert_allclose(got, STORED["scaled_dot_f32_out"]["value"], rtol=1e-6)


def test_scaled_dot_errors_are_located():
    with pytest.raises(TypeError) as info:
        jax.jit(lambda a, b: lax.scaled_dot(a, b, lhs_scale=rec.SD_LS[:, :3]))(rec.SD_LHS,
                                                                              rec.SD_RHS)
    assert isinstance(info.value, AstjaxError) and "test_dot_algorithm.py" in str(info.value)
