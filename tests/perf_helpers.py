"""What several `tests/test_perf_*.py` modules share: generated user functions
(a long straight-line function, nested `lax.cond`s), call counters, and the check that
skips a test of astjax's C++ dispatch while real JAX is imported."""
import collections
import sys

import pytest

import astjax.numpy as jnp
from astjax import lax
from astjax.codegen import compile_cache


def nested_cond(depth):
    if depth == 0:
        return jnp.sin

    inner = nested_cond(depth - 1)

    def f(x):
        return lax.cond(jnp.sum(x) > 0.0, inner, lambda y: y * 2.0 - 1.0, x)
    return f


def long_function(n):
    lines = ["def f(x):", "    a0 = x"]
    for i in range(1, n + 1):
        lines.append(f"    a{i} = a{i - 1} * 0.5 + a{max(0, i - 3)}")
        if i % 50 == 0:
            lines += [f"    if a{i} > 0:", f"        a{i} = a{i} - 1"]
    lines.append(f"    return a{n}")
    return "\n".join(lines) + "\n"


def counter(monkeypatch, owner, attr) -> list:
    """Replace `owner.attr` (a function or a method) by a wrapper counting its calls;
    returns the one-item list holding the count."""
    n = [0]
    orig = getattr(owner, attr)

    def counted(*a, **k):   # (a function: a counted method still binds)
        n[0] += 1
        return orig(*a, **k)
    monkeypatch.setattr(owner, attr, counted)
    return n


@pytest.fixture
def compiles(monkeypatch):
    """Counts XLA compiles (misses of the in-memory executable cache)."""
    return counter(monkeypatch, compile_cache, "_compile_or_load_disk")


def skip_if_real_jax_loaded():
    """The C++ path steps aside while real JAX is imported (its jaxlib settings may be
    JAX's); a JAX-oracle test earlier in the process imports it where jax is installed."""
    if "jax._src.config" in sys.modules:
        pytest.skip("real JAX is imported in this process: astjax's C++ dispatch steps aside")


def count_calls(monkeypatch, targets):
    """Replace each (owner, attribute, label) of `targets` by a wrapper counting its
    calls; returns the Counter."""
    counts = collections.Counter()

    def counted(label, orig):   # (a function: a counted method still binds)
        return lambda *a, **k: (counts.update((label,)), orig(*a, **k))[1]
    for owner, attr, label in targets:
        monkeypatch.setattr(owner, attr, counted(label, getattr(owner, attr)))
    return counts


def straight_function(n):
    lines = ["def f(x):", "    a0 = x"]
    for i in range(1, n + 1):
        lines.append(f"    a{i} = a{i - 1} * 0.5 + (a{max(0, i - 3)} if a0 is not None else x)")
    lines.append(f"    return a{n}")
    return "\n".join(lines) + "\n"
