"""`astjax.extend.xla`: a registered HLO-module pass runs while astjax compiles, its
returned module is the one compiled, and clearing it stops it (jax 0.10.2's
`jax.extend.xla` contract)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.extend import xla


def test_pass_sees_each_compilation_and_is_cleared():
    seen = []
    xla.register_hlo_module_transformation(lambda b: seen.append(b), name="t_rec")
    try:
        out = astjax.jit(lambda x: x * 3.25 + 1)(jnp.ones(3))
    finally:
        assert xla.clear_hlo_module_transformation("t_rec") is True
    np.testing.assert_array_equal(np.asarray(out), [4.25] * 3)
    assert seen and all(isinstance(b, bytes) and b for b in seen)
    n = len(seen)
    astjax.jit(lambda x: x * 5.125 + 1)(jnp.ones(3))
    assert len(seen) == n                      # cleared: not called any more
    assert xla.clear_hlo_module_transformation("t_rec") is False


def test_returned_module_is_what_runs():
    seen = []
    xla.register_hlo_module_transformation(seen.append, name="t_rec2",
                                           stage=xla.PipelineStage.PRE_SCHEDULER,
                                           platforms="cpu")
    astjax.jit(lambda x: x * 7.5)(jnp.ones(4))
    xla.clear_hlo_module_transformation("t_rec2", platforms=["cpu"])
    times_7_5 = seen[-1]
    xla.register_hlo_module_transformation(lambda b: times_7_5, name="t_swap")
    try:
        swapped = astjax.jit(lambda x: x - 100.0)(jnp.ones(4))
    finally:
        xla.clear_hlo_module_transformation("t_swap")
    np.testing.assert_array_equal(np.asarray(swapped), [7.5] * 4)
    np.testing.assert_array_equal(np.asarray(astjax.jit(lambda x: x - 200.0)(jnp.ones(4))),
                                  [-199.] * 4)


def test_stage_must_be_a_pipeline_stage():
    with pytest.raises(TypeError, match="PipelineStage"):
        xla.register_hlo_module_transformation(lambda b: None, name="t_bad", stage=0)
    assert [s.value for s in xla.PipelineStage] == [0, 1]
