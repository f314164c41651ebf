"""`lax.Precision` and the `precision=` of matrix products: accepted in JAX's forms,
carried in the IR, lowered to StableHLO's precision_config, printed in source."""
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax


def test_precision_enum_like_jax():
    P = lax.Precision
    assert [P("highest"), P("float32"), P("bfloat16"), P("tensorfloat32"), P("fastest")] == [
        P.HIGHEST, P.HIGHEST, P.DEFAULT, P.HIGH, P.DEFAULT]
    assert str(P.HIGH) == "HIGH" and repr(P.HIGHEST) == "Precision.HIGHEST"
    with pytest.raises(ValueError):
        P("x")


def _f(a, b):
    return lax.dot(a, b, precision=lax.Precision.HIGHEST) + jnp.dot(a, b, precision="float32")


def test_precision_reaches_ir_stablehlo_and_source():
    a, b = jnp.ones((2, 3)), jnp.ones((3, 2))
    assert float(astjax.jit(_f)(a, b)[0, 0]) == 6.0
    assert "precision=(Precision.HIGHEST, Precision.HIGHEST)" in str(astjax.make_jaxpr(_f)(a, b))
    hlo = astjax.jit(_f).lower(a, b).as_text()
    # JAX 0.10.2 prints the same line (MLIR's pretty form)
    assert "contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST]" in hlo
    src = astjax.source(_f, a, b)
    assert "precision=('HIGHEST', 'HIGHEST')" in src
    g = astjax.grad(lambda a: jnp.sum(jnp.dot(a, b, precision="highest")))(a)
    assert g.shape == (2, 3) and float(g[0, 0]) == 2.0
    with pytest.raises(ValueError, match="Precision argument"):
        lax.dot(a, b, precision=3)
