"""`astjax.debug_key_reuse` / `jax_debug_key_reuse`: JAX's key-reuse checker, on the
cases of JAX's documentation and `jax/experimental/key_reuse` (what jax 0.10.2 does
for each is noted): a typed key consumed twice (two samplers, a sampler after `split`,
`split` twice) raises `KeyReuseError`, a `TypeError`, located at the second use,
eagerly and in staged code, including a key consumed inside a `cond` branch;
`fold_in`, `key_data`, `clone` and raw keys are fine."""
import pytest

import astjax
import astjax.numpy as jnp
from astjax import random
from astjax.errors import AstjaxError, KeyReuseError

HERE = "test_key_reuse.py"


@pytest.fixture(autouse=True)
def _checker_on():
    with astjax.debug_key_reuse(True):
        yield


def _raises_here(fn):
    with pytest.raises(TypeError) as e:
        fn()
    assert isinstance(e.value, KeyReuseError) and isinstance(e.value, AstjaxError)
    assert HERE in str(e.value)
    return str(e.value)


def test_eager_reuse():
    k = random.key(0)
    random.normal(k)
    text = _raises_here(lambda: random.uniform(k))          # JAX: KeyReuseError
    assert "random.uniform(k)" in text
    k = random.key(0)
    random.split(k)
    _raises_here(lambda: random.normal(k))                  # JAX: KeyReuseError


def test_eager_fine():
    k = random.key(0)
    random.fold_in(k, 1), random.fold_in(k, 2)               # JAX: fine
    random.key_data(k), random.key_data(k)
    random.normal(random.clone(k)), random.normal(k)        # JAX: fine
    r = random.PRNGKey(0)
    random.normal(r), random.normal(r)                      # raw keys: not checked


def _twice(key):
    return random.normal(key) + random.uniform(key)


def _split_once(key):
    k1, k2 = random.split(key)
    return random.normal(k1) + random.normal(k2)


def _branch_then_outside(k, p):
    return astjax.lax.cond(p, lambda k: random.normal(k), lambda k: 0.0, k) + random.normal(k)


def test_staged_reuse():
    text = _raises_here(lambda: astjax.jit(_twice)(random.key(1)))     # JAX: KeyReuseError
    assert "random.uniform(key)" in text
    _raises_here(lambda: astjax.jit(_branch_then_outside)(random.key(4), True))
    _raises_here(lambda: astjax.jit(lambda k: (random.split(k), random.split(k)))(random.key(5)))
    _raises_here(lambda: astjax.make_jaxpr(_twice)(random.key(1)))


def test_staged_fine():
    assert astjax.jit(_split_once)(random.key(1)).shape == ()
    f = astjax.jit(lambda k: random.normal(random.clone(k)) + random.normal(k))
    assert f(random.key(2)).shape == ()
    g = astjax.jit(lambda k: random.normal(random.fold_in(k, 1)) + random.normal(random.fold_in(k, 2)))
    assert g(random.key(3)).shape == ()


def test_flag_off_and_config_update():
    with astjax.debug_key_reuse(False):
        k = random.key(0)
        assert random.normal(k) == random.normal(k)
        assert astjax.jit(_twice)(random.key(1)).shape == ()
    astjax.config.update("jax_debug_key_reuse", False)
    try:
        assert not astjax.debug_key_reuse.value
        k = random.key(0)
        random.normal(k), random.normal(k)
    finally:
        astjax.config.update("jax_debug_key_reuse", True)
    k = random.key(0)
    random.normal(k)
    _raises_here(lambda: random.normal(k))
