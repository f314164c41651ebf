"""The key-reuse checker on keys through every transformation and control-flow entry
(issue 13): a key operand of an eager `cond` / `switch` / `scan` / `fori_loop` /
`while_loop` / `map` consumed inside and used again, keys given to or closed over by
eager `grad`, `vjp`, `jacrev`, `value_and_grad`, `jvp`, `vmap`, `checkpoint`, called
twice -- verdicts against JAX 0.10.2's stored ones
(`tests/oracle/record_key_reuse_transforms.py`), programs JAX accepts included (no
false positive)."""
import json
import sys
import types
from pathlib import Path

import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax, random
from astjax.errors import KeyReuseError
from astjax.transforms.dce import dce_closed

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_key_reuse_eager import verdict  # noqa: E402
from record_key_reuse_transforms import CASES  # noqa: E402

RECORDED = json.loads((Path(__file__).parent / "oracle" / "key_reuse_transforms.json")
                      .read_text())
J = types.SimpleNamespace(jax=astjax, lax=lax, jnp=jnp)
KNOWN: dict = {}   # case -> why astjax's verdict differs from JAX's (a strict xfail)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=KNOWN[n])] if n in KNOWN else [])
    for n in sorted(CASES)])
def test_verdict_as_jax(name):
    assert verdict(CASES[name], J) == RECORDED["cases"][name]


def test_every_case_recorded():
    assert set(RECORDED["cases"]) == set(CASES)


def test_eager_cond_operand_reuse_message():
    k = random.key(0)
    with astjax.debug_key_reuse(True):
        random.normal(k)
        with pytest.raises(KeyReuseError, match="Previously-consumed key passed to cond"):
            lax.cond(True, lambda k: random.normal(k), lambda k: 0.0, k)


def test_consumption_mark_is_kept_by_transforms():
    """The sampler's read carries `consumes=`, so the grad program still consumes k."""
    k = random.key(0)
    with astjax.debug_key_reuse(True):
        text = str(astjax.make_jaxpr(astjax.grad(lambda x, k: x * random.normal(k)))(1.0, k))
    assert "random_unwrap[consumes=normal]" in text
    assert "consumes" not in str(astjax.make_jaxpr(lambda k: random.normal(k))(k))


def test_eager_forwarded_key_is_the_operand():
    """A key an eager cond / scan returns unchanged is the same key array (JAX's API
    functions forward it); one it computes is a new one."""
    k = random.key(0)
    ks = random.split(k, 2)
    assert lax.cond(True, lambda k: k, lambda k: k, k) is k
    assert lax.scan(lambda c, _: (c, None), k, None, length=2)[0] is k
    assert lax.scan(lambda c, x: (c, x), 0.0, ks)[1] is ks
    assert lax.cond(True, lambda k: random.split(k)[0], lambda k: k, k) is not k


def test_unused_consumption_survives_dce():
    """A sampler whose result is unused still consumes its key under the checker."""
    def f(k):
        random.normal(k)
        return 1.0
    k = random.key(0)
    with astjax.debug_key_reuse(True):   # (DCE as before lowering; make_jaxpr keeps all)
        assert "random_unwrap[consumes=normal]" in str(dce_closed(astjax.make_jaxpr(f)(k)))
    assert "random_unwrap" not in str(dce_closed(astjax.make_jaxpr(f)(k)))
