"""Issue 12's leftovers against the outcomes JAX 0.10.2 recorded in
`tests/oracle/rel_leftovers.json` (`tests/oracle/record_rel_leftovers.py`): what
`vmap` of a `cond` with a printing branch prints, the ordering functions on complex
input, and the `jnp.ufunc` objects (attributes, methods, errors, transforms)."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import errors, lax
from oracle import record_rel_leftovers as rec

STORED = json.loads(Path(rec.__file__).with_name("rel_leftovers.json").read_text())


def _same(got, want, path="result"):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (path, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict), (path, got, want)
        assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), (path, got, want)
        for part in ("re", "im"):
            np.testing.assert_allclose(got[part], want[part], rtol=2e-6, atol=1e-6,
                                       err_msg=path)
    else:
        assert got == want, (path, got, want)


@pytest.mark.parametrize("name", sorted(rec.CASES))
def test_case_matches_jax(name):
    got = rec.outcome(rec.CASES[name], astjax, jnp, lax)
    want = STORED[name]
    assert got["out"] == want["out"]
    if "error" in want:
        assert "error" in got, f"JAX raised {want['error']}, astjax returned {got.get('value')}"
        # the class JAX raises; its message (astjax may name the function first)
        # (JAX's bare `Exception` is the class of every error)
        assert want["error"][0] in ("Exception", got["error"][0]), got["error"]
        assert want["error"][1] in got["error"][1], got["error"]
    else:
        assert "error" not in got, got["error"]
        _same(got["value"], want["value"])


def test_errors_are_located_astjax_errors():
    """A ufunc method's error is an AstjaxError located at the user's call."""
    x = jnp.arange(3.0)
    with pytest.raises(errors.AstjaxError) as info:
        jnp.negative.reduce(x)
    assert isinstance(info.value, ValueError)
    assert info.value.loc.file == __file__
    with pytest.raises(errors.AstjaxError) as info:
        astjax.jit(lambda x: jnp.add.at(x, 0, 1.0))(x)
    assert isinstance(info.value, NotImplementedError)
    assert info.value.loc.file == __file__


def test_builtin_ufunc_call_keeps_the_eager_program():
    """`x + y` on Arrays reaches `jnp.add`'s compiled eager program through the ufunc."""
    from astjax.codegen import eager_programs
    x, y = jnp.ones(7), jnp.ones(7)
    for _ in range(3):
        z = jnp.add(x, y)
        w = x * y
    assert np.allclose(z, 2.0) and np.allclose(w, 1.0)
    assert any(k[0] is jnp.add.__call__ for k in eager_programs.eager_programs) or any(
        getattr(k[0], "__name__", "") == "add" for k in eager_programs.eager_programs)
