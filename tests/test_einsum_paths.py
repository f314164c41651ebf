"""`jnp.einsum_path` against JAX 0.10.2's (opt_einsum's) paths and printed reports
(tests/oracle/record_einsum_paths.py -> einsum_paths.json): 3 to 16 operands, every
`optimize` choice -- 'auto' is the exhaustive search up to 4 operands, branch and
bound for 5-14 (all / 2 / 1 branches), greedy beyond; 'dp' the dynamic-programming
search, 'auto-hq' it from 6 operands -- including ellipses, Hadamard and outer
products, disconnected groups and operands summed alone; the refusals; and
`jnp.einsum`, which contracts in that order (JAX's values to a few units in the
last place)."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from oracle import record_einsum_paths as rec

STORED = json.loads(Path(rec.__file__).with_name("einsum_paths.json").read_text())
RUNS = list(rec.runs())


def _operands(name):
    return [np.zeros(s, np.float32) for s in rec.CASES[name][1]]


def test_every_run_is_recorded():
    assert sorted(rec.key(*r) for r in RUNS) + sorted(
        "value:" + rec.key(*r) for r in rec.VALUE_RUNS) == sorted(STORED)


@pytest.mark.parametrize("name,opt", RUNS, ids=[rec.key(*r) for r in RUNS])
def test_path_and_report_are_jax(name, opt):
    path, info = jnp.einsum_path(rec.CASES[name][0], *_operands(name), optimize=opt)
    want = STORED[rec.key(name, opt)]
    assert [list(p) for p in path] == want["path"]
    assert repr(info) == want["report"]


def test_staged_operands_and_an_explicit_path():
    sub, _ = rec.CASES["chain7"]
    want = STORED[rec.key("chain7", "auto")]

    def f(*ops):
        path, _ = jnp.einsum_path(sub, *ops)
        assert [list(p) for p in path] == want["path"]
        return ops[0]
    jax.jit(f)(*_operands("chain7"))
    path, info = jnp.einsum_path(sub, *_operands("chain7"), optimize=want["path"])
    assert [list(p) for p in path] == want["path"] and repr(info) == want["report"]


def test_refusals():
    ops = _operands("chain3")
    with pytest.raises(AstjaxError) as info:
        jnp.einsum_path("ij,jk,kl", *ops, optimize="fastest")
    assert isinstance(info.value, KeyError)   # opt_einsum's error under JAX
    with pytest.raises(ValueError, match="did not appear in the input"):
        jnp.einsum_path("ij,jk,kl->iz", *ops)


def test_auto_hq_beyond_16_operands_is_refused():
    # opt_einsum's 128 seeded random-greedy trials: not implemented, a located refusal
    sub, _ = rec.CASES["chain16"]
    ops = _operands("chain16") + [np.zeros((7, 2), np.float32)]
    with pytest.raises(AstjaxError) as info:
        jnp.einsum_path(sub + ",qr", *ops, optimize="auto-hq")
    assert isinstance(info.value, NotImplementedError)


@pytest.mark.parametrize("name,opt", rec.VALUE_RUNS, ids=[rec.key(*r) for r in rec.VALUE_RUNS])
def test_einsum_contracts_in_jax_order(name, opt):
    want = STORED["value:" + rec.key(name, opt)]
    ref = np.array(want["values"], np.float32).reshape(want["shape"])
    sub = rec.CASES[name][0]
    got = np.asarray(jax.jit(lambda *ops: jnp.einsum(sub, *ops, optimize=opt))(
        *rec.operands(name)))   # (one compile: eagerly, each contraction is one)
    assert got.shape == ref.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, ref, rtol=0, atol=4 * np.finfo(np.float32).eps
                               * max(1.0, float(np.abs(ref).max())))


@pytest.mark.parametrize("opt", [True, False, "greedy", "optimal", "auto"])
def test_one_operand_einsum_contracts_nothing(opt):
    # a single operand has no pair to contract (the path order once popped one anyway)
    a = np.arange(9.0, dtype=np.float32).reshape(3, 3)
    for spec, want in [("ii->", np.trace(a)), ("ij->ji", a.T), ("ij->", a.sum()),
                       ("ii->i", np.diag(a))]:
        np.testing.assert_allclose(np.asarray(jnp.einsum(spec, a, optimize=opt)), want)
