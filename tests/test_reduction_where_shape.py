"""A reduction's `where` mask that does not broadcast to the operand's shape is a
located ValueError, NumPy's rule (NumPy raises for every case below). JAX 0.10.2 raises
for some (a ValueError, or a TypeError for nanvar / nanstd) and for others broadcasts the
operand up to the mask and reduces the wrong axes (`jnp.sum(x3, where=mask_2x3)` has
shape (3,)): a decision recorded in docs/coming_from_jax.md."""
import numpy as np
import pytest

import astjax.numpy as jnp
from astjax.errors import AstjaxError

X = np.arange(3.0, dtype=np.float32)
MASKS = [np.array([[True, False, True], [True, True, False]]), np.array([True, False]),
         np.array([[True], [False]])]
FUNCS = ["sum", "mean", "var", "any", "nansum", "nanmean", "nanstd", "nanmax"]


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("mask", range(len(MASKS)))
def test_where_beyond_operand_is_numpys_value_error(name, mask):
    w = MASKS[mask]
    kw = {"initial": 0.0} if name == "nanmax" else {}
    with pytest.raises(ValueError):
        getattr(np, name)(X, where=w, **kw)
    with pytest.raises(ValueError) as e:
        getattr(jnp, name)(X, where=w, **kw)
    assert isinstance(e.value, AstjaxError)
    assert "test_reduction_where_shape.py" in str(e.value).splitlines()[0]


@pytest.mark.parametrize("name", ["nanmean", "nanvar", "mean"])
def test_where_broadcasting_to_operand(name):
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], np.float32)
    w = np.array([True, False, True])
    np.testing.assert_allclose(np.asarray(getattr(jnp, name)(x, axis=1, where=w)),
                               getattr(np, name)(x, axis=1, where=w), rtol=1e-6)
