"""Manual-axis types through loop and branch bodies inside `shard_map` against JAX
0.10.2 (tests/oracle/record_vma_loops.py -> vma_loops.json): a value typed reduced by
`lax.all_gather(..., to='reduced')` carried through, closed over by, or scanned by
`scan` / `fori_loop` / `while_loop` / `cond` / `switch` bodies (its type, layout and
value, or JAX's error: JAX's n-ary rule refuses an operand replicated over the axes
another is reduced on, `vma.rd_env`), and a loop carry started from `zeros_like` /
`ones_like` / `full_like` of a varying value (typed as it, `vma.typed_like`)."""
import json

import numpy as np
import pytest

import astjax as jax

from oracle import record_vma_loops as rec
from oracle import record_vma_reverse as rev

EXPECTED = json.loads(rec.PATH.read_text())
CASES = rec.cases(jax)

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")

XFAIL = {}   # case -> a strict xfail mark: what astjax still does otherwise than JAX


def _params(names):
    return [pytest.param(n, marks=XFAIL[n]) if n in XFAIL else n for n in names]


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # records typeof
@pytest.mark.parametrize("case", _params(sorted(EXPECTED)))
def test_as_jax(case):
    got, want = rev.run_reduced(jax, CASES[case]), EXPECTED[case]
    if "error" in want:
        assert "error" in got, got
        assert want["error"] in [c.__name__ for c in getattr(
            jax.errors, got["error"], Exception).__mro__] + [got["error"]], got
        assert got["message"] == want["message"]
        return
    assert "error" not in got, got
    np.testing.assert_allclose(got.pop("value"), want["value"], rtol=1e-6)
    assert got == {k: v for k, v in want.items() if k != "value"}
