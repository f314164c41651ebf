"""Manual-axis types through loop and branch bodies inside `shard_map` against JAX
0.10.2 (tests/oracle/record_vma_loops.py -> vma_loops.json): a value typed reduced by
`lax.all_gather(..., to='reduced')` carried through, closed over by, or scanned by
`scan` / `fori_loop` / `while_loop` / `cond` / `switch` bodies (its type, layout and
value, or JAX's error: JAX's n-ary rule refuses an operand replicated over the axes
another is reduced on, `vma.rd_env`), and a loop carry started from `zeros_like` /
`ones_like` / `full_like` of a varying value (typed as it, `vma.typed_like`)."""
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
