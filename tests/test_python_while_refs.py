"""Python `while` statements whose test stores into a `Ref`, staged by astjax (under
`jit`, `grad`, `vmap`), against the values JAX 0.10.2 computes running them eagerly
(`tests/oracle/record_python_while_refs.py` -> python_while_refs.json): the test's
first evaluation runs before the loop and each trip runs the body and then the test,
as Python does."""
import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_python_while_refs import FUNCTIONS, INPUTS  # noqa: E402

RECORDED = json.loads((Path(__file__).parent / "oracle" /
                       "python_while_refs.json").read_text())["cases"]
J = types.SimpleNamespace(jax=astjax, jnp=jnp)


def _want(name, what):
    return np.array([RECORDED[f"{name}_{x}"][what] for x in INPUTS])


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jit_as_python(name):
    f = astjax.jit(FUNCTIONS[name](J))
    got = np.array([[float(v) for v in f(jnp.float32(x))] for x in INPUTS])
    np.testing.assert_allclose(got, _want(name, "value"), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jit_grad_as_python(name):
    f = FUNCTIONS[name](J)
    g = astjax.jit(astjax.grad(lambda y: f(y)[0]))
    got = [float(g(jnp.float32(x))) for x in INPUTS]
    np.testing.assert_allclose(got, _want(name, "grad"), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_vmap_as_python(name):
    got = astjax.vmap(FUNCTIONS[name](J))(jnp.array(INPUTS, jnp.float32))
    np.testing.assert_allclose(np.stack([np.asarray(v) for v in got], 1),
                               _want(name, "value"), rtol=1e-6)


def test_test_runs_in_the_body():
    """The staged loop carries the test's first value; its condition only reads it."""
    text = str(astjax.make_jaxpr(FUNCTIONS["ticking"](J))(1.0))
    assert "cond_jaxpr={ lambda ; s:bool[] t:f32[]. let  in (s,) }" in text, text
