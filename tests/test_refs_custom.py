"""Mutable references from outside a `custom_jvp` / `custom_vjp` function (closed
over; read and written in the function and its rules) and a `pmap` body (issue 13),
against JAX 0.10.2's stored results and error classes
(`tests/oracle/record_refs_custom.py`). Where JAX 0.10.2 has no rule (a `custom_jvp`
under `jit` closing over a reference: its NotImplementedError "No state discharge
rule"), astjax computes, and the value is JAX's for the same program without `jit`."""
import sys
import types
from pathlib import Path

import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_refs_custom import CASES, run  # noqa: E402
from oracle import compare  # noqa: E402

RECORDED = compare.load("refs_custom")
J = types.SimpleNamespace(jax=astjax, jnp=jnp)
# case JAX refuses (NotImplementedError, no discharge rule) -> its JAX-recorded twin
BEYOND_JAX = {"jvp_reading_jit": "jvp_reading_eager", "jvp_writing_jit": "jvp_writing_eager",
              "jvp_writing_jit_grad": "jvp_writing_grad",
              "jvp_ref_argument_jit": "jvp_ref_argument_eager"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_jax(name):
    want = RECORDED["cases"][name]
    got = run(CASES[name], J)
    if name in BEYOND_JAX:
        assert want == {"error": "NotImplementedError"}
        want = RECORDED["cases"][BEYOND_JAX[name]]
    compare.assert_outcome(got, want, rtol=1e-6)


def test_every_case_recorded():
    compare.assert_recorded(RECORDED["cases"], CASES)


def test_errors_are_located():
    r = astjax.new_ref(jnp.float32(2.0))
    for fn in (lambda: astjax.pmap(lambda x: x * r[...])(jnp.ones(1)),
               lambda: astjax.pmap(lambda q: q[...] * 2)(astjax.new_ref(jnp.ones(1)))):
        with pytest.raises(AstjaxError) as e:
            fn()
        assert "test_refs_custom.py" in str(e.value)

    @astjax.custom_vjp
    def f(x):
        r[...] = x
        return x * 2

    f.defvjp(lambda x: (f(x), None), lambda res, g: (g * 2,))
    with pytest.raises(AstjaxError) as e:
        astjax.vmap(f)(jnp.ones(2))
    assert "r[...] = x" in str(e.value) and "vmapped value" in str(e.value)


def test_stored_value_is_not_differentiated():
    """A store inside the function or its rule stores a primal value (as JAX's), so
    `grad` through the call is the rule's and the reference keeps that value."""
    r = astjax.new_ref(jnp.float32(0.0))

    @astjax.custom_jvp
    def f(x):
        r[...] = x * x
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(p, t):
        return f(p[0]), 10.0 * t[0]
    g = astjax.jit(astjax.grad(lambda x: f(x) * 2.0))(3.0)
    assert float(g) == 20.0 and float(r[...]) == 9.0
