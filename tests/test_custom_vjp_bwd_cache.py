"""A `custom_vjp`'s bwd rule runs once for a jitted function differentiated again, as
JAX caches the transpose of a jitted function's jaxpr (equinox's test_ad counts the
traces of bwd: `filter_grad(jit(f))(x)` twice traces it once). Counts recorded from JAX
0.10.2 on the same programs; the bwd rules count in a list on purpose."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

pytestmark = pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")

# residual -> what fwd keeps (None; a NumPy bool, as equinox's perturbed flags; an array)
RESIDUALS = {"none": lambda x: None, "numpy_bool": lambda x: np.bool_(True),
             "array": lambda x: x * 2.0}


def _counting(residual, counts):
    @astjax.custom_vjp
    def f(x):
        return x

    def f_fwd(x):
        return x, residual(x)

    def f_bwd(res, g):
        counts.append(1)
        return (g + 2.0,)
    f.defvjp(f_fwd, f_bwd)
    return f


@pytest.mark.parametrize("residual", sorted(RESIDUALS))
def test_bwd_traced_once_for_a_jitted_function(residual):
    counts = []
    jitf = astjax.jit(_counting(RESIDUALS[residual], counts))
    x = jnp.array(1.0)
    for _ in range(3):
        # a fresh function each time: grad stages it again, the inner jit's is reused
        assert float(astjax.grad(lambda x: jitf(x))(x)) == 3.0
    assert len(counts) == 1   # JAX 0.10.2: 1


def test_bwd_staged_again_for_other_cotangent_types():
    counts = []
    jitf = astjax.jit(_counting(RESIDUALS["none"], counts))
    assert float(astjax.grad(lambda x: jitf(x))(jnp.array(1.0))) == 3.0
    g = astjax.grad(lambda x: jitf(x).sum())(jnp.ones(3))
    np.testing.assert_allclose(g, [3.0, 3.0, 3.0])
    assert len(counts) == 2   # JAX 0.10.2: 2 (a new input type: a new jaxpr)
