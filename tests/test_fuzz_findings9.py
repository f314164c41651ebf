"""Findings of the twenty-first session's program fuzzer seeds and bad-input cases, each
pinned with plain Python's (so JAX's) answer or error class written out: no JAX needed
to run them."""
import sys
from pathlib import Path

import astjax  # noqa: F401


def _fuzz():
    sys.path.insert(0, str(Path(__file__).parent))
    from fuzz import gen, gen_constructs6
    return gen, gen_constructs6


def test_constructs6_is_off_by_default():
    # a family on by default would change every documented seed range's programs
    gen, c6 = _fuzz()
    assert set(c6.CONSTRUCTS6) <= set(gen.DEFAULT_OFF)
    marks = ("with Sw6(", "except ", "def g", "Bag6(")   # the family's constructs
    plain = [gen.generate(seed).render("jax") for seed in range(30)]
    assert not any(m in t for t in plain for m in ("Sw6", "Bag6", "except "))
    enabled = [gen.generate(seed, enabled=c6.CONSTRUCTS6).render("jax") for seed in range(60)]
    assert all(any(m in t for t in enabled) for m in marks)
