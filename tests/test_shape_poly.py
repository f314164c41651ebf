"""`jax.export` shape polymorphism against JAX 0.10.2's stored behaviour
(tests/oracle/record_shape_poly.py -> shape_poly.json): symbolic dimensions'
arithmetic, comparisons and parsing; functions exported for symbolic shapes, their
printed avals and their results at two sizes or more (also serialized by astjax and
by JAX, deserialized and called); the gradient through the exported VJP; and JAX's
errors where an operation is inconclusive or a call does not fit."""
import base64
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import export, lax
from astjax.errors import AstjaxError, InconclusiveDimensionOperation

sys.path.insert(0, str(Path(__file__).with_name("oracle")))
import record_shape_poly  # noqa: E402
from record_shape_poly import (CALL_ERRORS, CASES, CONSTRAINED_DIMS, DIMS, SPECS,  # noqa: E402
                               error_functions, functions)
from oracle import compare  # noqa: E402

ORACLE = compare.load("shape_poly")
FNS = functions(jax, jnp, lax)
_BUILTIN = {"ValueError": ValueError, "TypeError": TypeError,
            "InconclusiveDimensionOperation": InconclusiveDimensionOperation}


def _message(e):
    return getattr(e, "message", str(e))


def _check_error(e, want):
    assert isinstance(e, _BUILTIN[want["error"]]), (type(e), want)
    assert want["message"] == _message(e).split("\n")[0], (_message(e), want["message"])


def _check_result(got, want):
    """`_eval`'s answer is JAX's: the same printed value, or the same error."""
    if isinstance(got, dict):
        assert got == want
    else:
        _check_error(got, want)


def _eval(text, env):
    try:
        return {"value": str(eval(text, env))}
    except Exception as e:  # noqa: BLE001
        return e


@pytest.mark.parametrize("text", DIMS)
def test_dimension_arithmetic_and_comparisons(text):
    a, b = export.symbolic_shape("a, b")
    _check_result(_eval(text, {"a": a, "b": b}), ORACLE["dims"][text])


@pytest.mark.parametrize("text", CONSTRAINED_DIMS)
def test_constraints_decide_comparisons(text):
    a, b = export.symbolic_shape("a, b", constraints=("a >= b",))
    _check_result(_eval(text, {"a": a, "b": b}), ORACLE["constrained"][text])


@pytest.mark.parametrize("spec", SPECS)
def test_symbolic_shape_parsing(spec):
    want = ORACLE["specs"][spec]
    if "value" in want:
        assert [str(d) for d in export.symbolic_shape(spec)] == want["value"]
    else:
        with pytest.raises(ValueError, match="syntax error in symbolic shape"):
            export.symbolic_shape(spec)


def test_is_symbolic_dim_scope_and_args_specs():
    b, = export.symbolic_shape("b")
    assert export.is_symbolic_dim(b) and not export.is_symbolic_dim(3)
    assert not export.is_symbolic_dim(b - b) and b - b == 0
    x, = export.symbolic_shape("x")
    with pytest.raises(ValueError, match="Invalid mixing of symbolic scopes"):
        x + b
    scope = export.SymbolicScope(("p >= q",))
    p, q = export.symbolic_shape("p, q", scope=scope)
    assert p >= q and p.scope is scope
    with pytest.raises(ValueError, match="Cannot specify both"):
        export.symbolic_shape("p", scope=scope, constraints=("p >= 2",))
    # the docs' example: one spec for every argument, `_` / `...` from the arguments
    specs = export.symbolic_args_specs((np.ones((3, 1)), np.ones((3, 4))), "a, ...")
    assert [str(s.shape) for s in specs] == ["(a, 1)", "(a, 4)"]
    assert specs[0].shape[0] is not None and specs[0].shape[0] == specs[1].shape[0]
    specs = export.symbolic_args_specs({"x": np.ones((2, 5), np.int32)}, {"x": "_, b"})
    assert str(specs["x"].shape) == "(2, b)" and specs["x"].dtype == np.int32


def _specs(name):
    return record_shape_poly.symbolic_args(jax, export, *CASES[name])


def _inputs(name, shapes):
    dtype = CASES[name][1]
    return [np.arange(np.prod(s), dtype=dtype).reshape(s) % 7 for s in shapes]


def _close(got, want):
    compare.assert_close(jax.tree_util.tree_leaves(got), want, rtol=2e-6, atol=1e-6)


@pytest.fixture(scope="module")
def exports():
    return {}


def _export(exports, name):
    if name not in exports:
        exports[name] = export.export(jax.jit(FNS[name]))(*_specs(name))
    return exports[name]


@pytest.mark.parametrize("name", list(CASES))
def test_export_prints_jax_avals_and_runs_every_size(exports, name):
    exp, want = _export(exports, name), ORACLE["cases"][name]
    assert [str(a) for a in exp.in_avals] == want["in_avals"]
    assert [str(a) for a in exp.out_avals] == want["out_avals"]
    text = exp.mlir_module()
    assert "?x" in text or "tensor<?" in text, text
    for shapes, result in zip(CASES[name][2], want["results"]):
        xs = _inputs(name, shapes)
        _close(exp.call(*xs), result)
        _close(jax.jit(exp.call)(*xs), result)
        _close(FNS[name](*xs), result)


@pytest.mark.parametrize("name", list(CASES))
def test_artifacts_round_trip_both_ways(exports, name):
    want = ORACLE["cases"][name]
    ours = export.deserialize(_export(exports, name).serialize())
    theirs = export.deserialize(base64.b64decode(want["artifact"]))
    for exp in (ours, theirs):
        assert [str(a) for a in exp.in_avals] == want["in_avals"]
        assert [str(a) for a in exp.out_avals] == want["out_avals"]
        for shapes, result in zip(CASES[name][2], want["results"]):
            _close(exp.call(*_inputs(name, shapes)), result)


@pytest.mark.parametrize("name", [n for n in CASES if "grad" in ORACLE["cases"][n]])
def test_grad_through_the_exported_vjp(exports, name):
    exp, want = _export(exports, name), ORACLE["cases"][name]["grad"]
    xs = _inputs(name, CASES[name][2][0])

    def first(a):
        return jax.tree_util.tree_leaves(exp.call(a, *xs[1:]))[0].sum()
    if isinstance(want, dict):
        with pytest.raises(_BUILTIN.get(want["error"], Exception)):
            jax.grad(first)(xs[0])
    else:
        _close(jax.grad(first)(xs[0]), [want])


def test_multi_platform_export_with_symbolic_shapes():
    b, = export.symbolic_shape("b")
    exp = export.export(jax.jit(lambda x: jnp.sum(x, axis=1) / x.shape[0]),
                        platforms=["cpu", "cuda"])(jax.ShapeDtypeStruct((b, 3), np.float32))
    assert exp.platforms == ("cpu", "cuda") and exp.uses_global_constants
    for n in (2, 5):
        x = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
        np.testing.assert_allclose(exp.call(x), x.sum(1) / n, rtol=1e-6)
        np.testing.assert_allclose(export.deserialize(exp.serialize()).call(x), x.sum(1) / n,
                                   rtol=1e-6)


def test_vmap_of_an_exported_call_is_refused_as_in_jax():
    b, = export.symbolic_shape("b")
    exp = export.export(jax.jit(lambda x: x * 2))(jax.ShapeDtypeStruct((b,), np.float32))
    with pytest.raises(NotImplementedError, match="batch"):
        jax.vmap(exp.call)(np.ones((2, 3), np.float32))


@pytest.mark.parametrize("name", list(ORACLE["errors"]))
def test_export_errors_as_jax(name):
    fn, specs = error_functions(jax, jnp, lax)[name]
    scope = export.SymbolicScope(())
    args = [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), np.float32)
            for s in specs]
    with pytest.raises(Exception) as info:
        export.export(jax.jit(fn))(*args)
    want = ORACLE["errors"][name]
    assert isinstance(info.value, _BUILTIN[want["error"]]), info.value
    assert isinstance(info.value, AstjaxError), type(info.value)
    assert _message(info.value).split("\n")[0] == want["message"]
    assert "test_shape_poly.py" in str(info.value) or "record_shape_poly.py" in str(info.value)


@pytest.mark.parametrize("name", list(CALL_ERRORS))
def test_call_errors_as_jax(name):
    spec, shape, dtype = CALL_ERRORS[name]
    exp = export.export(jax.jit(lambda x: x * 2))(
        jax.ShapeDtypeStruct(export.symbolic_shape(spec), np.float32))
    for call in (exp.call, jax.jit(exp.call)):
        with pytest.raises(ValueError) as info:
            call(np.ones(shape, dtype))
        _check_error(info.value, ORACLE["call_errors"][name])
