"""PRNG keys, references, `pure_callback` results and programs with tokens under
`set_mesh` are placed as JAX 0.10.2 places them (tests/oracle/record_mesh_objects.py
-> mesh_objects.json): keys and `Ref`s have JAX's `.sharding` (a key's is its data's
without the key dimensions), a `pure_callback`'s result is on the mesh's first device
(XLA's maximal layout: JAX's `GSPMDSharding`, zeros on the other devices), and a `jit` taking or returning tokens is a partitioned program on the mesh (its
module text as JAX's)."""
import json

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_mesh_objects as rec

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")
_CLASS = {"ArrayImpl": "GlobalArray"}   # (astjax's class of an array over several devices)


# a callback's result: XLA's maximal layout on the first device (`GSPMDSharding`)
_XLA_LAYOUT = ("sharding", "spec")
_CASES = sorted(k for k in EXPECTED if k != "lowered")


def _compare(case, keys=None):
    kind, name = case.split("/")
    got = rec.run_case(jax, jnp, name, kind)
    want = EXPECTED[case]
    assert isinstance(got, list), got
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = dict(w, **{"class": _CLASS.get(w["class"], w["class"])})
        if "value" in w:
            np.testing.assert_allclose(np.asarray(g.pop("value"), np.float64),
                                       np.asarray(w.pop("value"), np.float64), rtol=1e-6)
        if keys is not None:
            g, w = ({k: v for k, v in d.items() if (k in _XLA_LAYOUT) == keys}
                    for d in (g, w))
        assert g == w


@pytest.mark.parametrize("case", _CASES)
def test_placed_as_jax(case):
    """Class, type, devices, committed and value (the sharding too, but of the
    callbacks' results)."""
    _compare(case, keys=False if "callback" in case else None)


@pytest.mark.parametrize("case", [c for c in _CASES if "callback" in c and "then" not in c])
def test_callback_result_layout_as_jax(case):
    _compare(case, keys=True)


@pytest.mark.parametrize("name", sorted(EXPECTED["lowered"]))
def test_token_program_text_as_jax(name):
    assert rec.lowered(jax, jnp)[name] == EXPECTED["lowered"][name]
