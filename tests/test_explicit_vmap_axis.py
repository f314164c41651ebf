"""`vmap` over arrays whose mapped dimension is laid out over an Explicit mesh axis,
as JAX 0.10.2 (tests/oracle/record_explicit_vmap_axis.py -> explicit_vmap_axis.json):
an unbatched result is broadcast laid out over that axis (`codegen/explicit_control.
broadcast_mapped`), and JAX's ValueErrors for mapped arguments that disagree on the
axis, an unmapped one sharded along it, or another `spmd_axis_name`
(`mapped_axis`), located at the user's line."""
import json

import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

from oracle import compare
from oracle import record_explicit_vmap_axis as rec

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_as_jax(name):
    assert compare.plain(rec.run_case(jax, jnp, name)) == EXPECTED[name]


def test_every_case_recorded():
    compare.assert_recorded(EXPECTED, rec.cases(jax, jnp)[1])


def test_error_is_located():
    mesh, table = rec.cases(jax, jnp)
    with jax.set_mesh(mesh), pytest.raises(ValueError) as info:
        table["mapped_inconsistent"]()
    assert isinstance(info.value, AstjaxError) and info.value.loc.file == rec.__file__
