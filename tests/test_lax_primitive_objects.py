"""The `jax.lax` primitive objects added for issue 13 -- `square_p`, `split_p`, `stack_p`,
`unstack_p`, `tile_p`, `eq_to_p`, `le_to_p`, `lt_to_p`, `top_k_p`, `scatter_sub_p`,
`approx_top_k_p` -- against JAX 0.10.2's stored
results (tests/oracle/record_lax_primitive_objects.py -> lax_primitive_objects.json):
`.bind` with JAX's parameter names gives JAX's values, the printed jaxprs name them as
JAX does, and their derivatives and batched forms agree; plus each one's NumPy
reference against XLA, and the errors JAX raises."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
from astjax import lax

from oracle import record_lax_primitive_objects as rec

STORED = json.loads(Path(rec.__file__).with_name("lax_primitive_objects.json").read_text())
# derivatives and batched cosines: astjax's sin/cos/transposes may differ in the last bits
RTOL = {"restructure_grads": 1e-6, "top_k_grad_vmap": 1e-6, "scatter_sub_bind": 1e-6,
        "approx_top_k_bind": 1e-6, "square_grad_vmap": 0, "restructure_vmap": 0}


def _same(got, want, where, rtol=0.0):
    """`got` (astjax's result of the recorder's case function) equals JAX's `want`."""
    if isinstance(want, dict):
        assert got["dtype"] == want["dtype"], (where, got["dtype"], want["dtype"])
        np.testing.assert_allclose(np.asarray(got["value"], np.float64),
                                   np.asarray(want["value"]), rtol=rtol, err_msg=where)
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]", rtol)
    else:
        assert got == want, (where, got, want)


@pytest.mark.parametrize("name", sorted(rec.CASES))
def test_matches_jax(name):
    _same(rec.CASES[name](jax, lax), STORED[name], name, RTOL.get(name, 0.0))


@pytest.mark.parametrize("p, params, args", [
    (lax.square_p, {}, (rec.X,)),
    (lax.split_p, {"sizes": (1, 0, 3), "axis": 1}, (rec.X,)),
    (lax.stack_p, {"axis": 2}, (rec.X, rec.Y)),
    (lax.unstack_p, {"axis": 0}, (rec.X,)),
    (lax.tile_p, {"reps": (2, 3)}, (rec.X,)),
    (lax.eq_to_p, {}, (rec.SPECIAL_A, rec.SPECIAL_B)),
    (lax.le_to_p, {}, (rec.SPECIAL_A, rec.SPECIAL_B)),
    (lax.lt_to_p, {}, (rec.SPECIAL_A, rec.SPECIAL_B)),
    (lax.top_k_p, {"k": 3, "axis": 1}, (rec.TN,)),
    (lax.top_k_p, {"k": 2, "axis": 0}, (rec.T,)),
    (lax.approx_top_k_p, dict(k=2, reduction_dimension=-1, recall_target=0.95, is_max_k=False,
                              reduction_input_size_override=-1, aggregate_to_topk=True),
     (rec.T,)),
])
def test_numpy_reference_matches_xla(p, params, args):
    # the reference the interpreter runs equals the compiled lowering
    want = p.bind(*args, **params)
    got = p.impl(*args, **params)
    for g, w in zip(*(x if p.multiple_results else [x] for x in (got, want))):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def test_errors_are_jax_classes():
    with pytest.raises(ValueError, match="Sum of sizes 3 must be equal to dimension 1"):
        lax.split(rec.X, (1, 2), axis=1)
    with pytest.raises(ValueError, match="must be nonnegative"):
        lax.split(rec.X, (5, -1), axis=1)
    with pytest.raises(ValueError, match="All input arrays must have the same shape"):
        lax.stack([rec.X, rec.X[:2]])
    with pytest.raises(ValueError, match="unstack requires arrays with rank > 0"):
        lax.unstack(np.float32(1))
    with pytest.raises(TypeError, match="reps length must be equal to the ndim of x"):
        lax.tile_p.bind(rec.X, reps=(2,))
    with pytest.raises(TypeError):
        lax.square(np.array([True, False]))
    with pytest.raises(TypeError):
        lax.lt_to_p.bind(rec.Z, rec.Z)
