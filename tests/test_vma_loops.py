"""Manual-axis types through loop and branch bodies inside `shard_map` against JAX
0.10.2 (tests/oracle/record_vma_loops.py -> vma_loops.json): a value typed reduced by
`lax.all_gather(..., to='reduced')` carried through, closed over by, or scanned by
`scan` / `fori_loop` / `while_loop` / `cond` / `switch` bodies (its type, layout and
value, or JAX's error: JAX's n-ary rule refuses an operand replicated over the axes
another is reduced on, `vma.rd_env`), and a loop carry started from `zeros_like` /
`ones_like` / `full_like` of a varying value (typed as it, `vma.typed_like`); `cond` /
`switch` branches varying over different manual axes (JAX's TypeError,
`vma.check_branches`)."""
import json

import pytest

import astjax as jax

from oracle import record_vma_loops as rec
from oracle import record_vma_reverse as rev
from oracle_compare import four_devices, same_as_jax, with_xfails

EXPECTED = json.loads(rec.PATH.read_text())
CASES = rec.cases(jax)

pytestmark = four_devices(jax)

XFAIL = {}   # case -> a strict xfail mark: what astjax still does otherwise than JAX


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # records typeof
@pytest.mark.parametrize("case", with_xfails(sorted(EXPECTED), XFAIL))
def test_as_jax(case):
    same_as_jax(jax, rev.run_reduced(jax, CASES[case]), EXPECTED[case])


def test_typed_like_follows_each_equation_once(monkeypatch):
    """`zeros_like` inside a body asks its operand's varying axes (`vma.typed_like`):
    the body's equations are followed from where the last question left them, not
    again from the start (50 calls: linear, not quadratic, in the body's length)."""
    import functools

    import numpy as np
    from astjax.primitives import vma
    seen = []
    real = vma._vma_eqn
    monkeypatch.setattr(vma, "_vma_eqn", lambda eqn, ins: seen.append(eqn) or real(eqn, ins))
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    f = jax.shard_map(lambda a: functools.reduce(
        lambda c, _: c + jax.numpy.zeros_like(c), range(50), a),
        mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
    body = jax.make_jaxpr(f)(np.ones((4, 4), np.float32)).eqns[0].params["jaxpr"].jaxpr
    assert sum(e.primitive.name == "pvary" for e in body.eqns) == 50
    assert len(seen) < 3 * len(body.eqns), (len(seen), len(body.eqns))


def test_body_followed_once(monkeypatch):
    """The varying axes of a body's equations are computed once: the implicit `pvary`
    follows them while the body is staged, and `check_vma_types` takes that env
    (`staging_body`'s) instead of following the body again, nor again for reduced and
    unreduced axes when no spec or gather has any (were three passes more)."""
    import functools

    import numpy as np
    from astjax.primitives import vma
    seen = []
    real = vma._vma_eqn
    monkeypatch.setattr(vma, "_vma_eqn", lambda eqn, ins: seen.append(eqn) or real(eqn, ins))
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    f = jax.shard_map(lambda a, b: functools.reduce(lambda c, _: c * b + 1.0, range(40), a),
                      mesh=mesh, in_specs=(P("x"), P()), out_specs=P("x"))
    x = np.ones((4, 4), np.float32)
    body = jax.make_jaxpr(f)(x, x[:2]).eqns[0].params["jaxpr"].jaxpr
    assert sum(e.primitive.name == "pvary" for e in body.eqns) == 80
    assert len(seen) == len(body.eqns), (len(seen), len(body.eqns))
