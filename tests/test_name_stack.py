"""`eqn.source_info.name_stack` (issue 13: dm-haiku's `jaxpr_info` attributes equations
to modules by it): the names `named_scope` / `named_call` and the API's `jvp` / `grad` /
`vmap` give each equation, at the top level and in `cond` / `scan` / `while` / inner `jit`
bodies, against JAX 0.10.2's (tests/oracle/name_stacks.json, recorded by
tests/oracle/record_name_stacks.py)."""
import difflib
import json
import re
import sys
import types
from pathlib import Path

import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.name_stack import NameStack, Scope, Transform, current_name_stack

ORACLE = Path(__file__).resolve().parent / "oracle"
sys.path.insert(0, str(ORACLE))
import record_name_stacks as R  # noqa: E402

WANT = json.loads((ORACLE / "name_stacks.json").read_text())
J = types.SimpleNamespace(jax=astjax, jnp=jnp, lax=lax)


def _check(got, want, where):
    """Align the two equation lists by primitive (astjax may stage a few equations
    fewer: simplified zeros, no dtype no-ops); every astjax equation must align with a
    JAX one of the same primitive, and carry its name stack; bodies recursively."""
    sm = difflib.SequenceMatcher(a=[g[0] for g in got], b=[w[0] for w in want],
                                 autojunk=False)
    matched, seen = 0, set()
    for i, j, n in sm.get_matching_blocks():
        seen.update(range(i, i + n))
        for k in range(n):
            (prim, ns, subs), (_, want_ns, want_subs) = got[i + k], want[j + k]
            assert ns == want_ns, f"{where}: {prim} (#{i + k}) named {ns!r}, JAX {want_ns!r}"
            assert len(subs) == len(want_subs), f"{where}: {prim}'s bodies"
            for s, (g, w) in enumerate(zip(subs, want_subs)):
                _check(g, w, f"{where}/{prim}[{s}]")
            matched += 1
    # (a weak-type cast of a cotangent to its primal's type: astjax's AD keeps one JAX's
    # does not stage -- docs/coming_from_jax.md; it must still carry one of JAX's names)
    names = {w[1] for w in want}
    casts = [g for i, g in enumerate(got) if i not in seen
             and g[0] == "convert_element_type" and g[1] in names]
    assert matched + len(casts) == len(got), (
        f"{where}: astjax's {[g[0] for g in got]} do not all align with JAX's "
        f"{[w[0] for w in want]}")


@pytest.mark.parametrize("name", sorted(R.CASES))
def test_name_stacks_as_jax(name):
    fun, args = R.CASES[name](J)
    _check(R.name_stacks(J, astjax.make_jaxpr(fun)(*args)), WANT[name], name)
    assert str(current_name_stack()) == ""   # every scope closed again


PRINTED = [   # JAX's printing: a transformation wraps the scope entered right inside it
    ((), ""),
    ((Scope("a"), Scope("b")), "a/b"),
    ((Transform("jvp"),), "jvp()"),
    ((Scope("a"), Transform("jvp")), "a/jvp()"),
    ((Transform("transpose"), Transform("jvp"), Scope("foo"), Scope("bar")),
     "transpose(jvp(foo))/bar"),
    ((Scope("o"), Transform("vmap"), Scope("x"), Transform("jvp"), Scope("y")),
     "o/vmap(x)/jvp(y)"),
]


@pytest.mark.parametrize("stack,text", PRINTED)
def test_printed_as_jax(stack, text):
    ns = NameStack(stack)
    assert str(ns) == text
    assert ns[:1] + ns[1:] == ns and len(ns) == len(stack)


def test_named_call_and_scope_leave_no_trace():
    with astjax.named_scope("outer"):
        inner = astjax.named_call(lambda: str(current_name_stack()), name="blk")()
        assert str(current_name_stack()) == "outer"
    assert inner == "outer/blk" and str(current_name_stack()) == ""
    with pytest.raises(TypeError, match="must be a string"):
        astjax.named_scope(3)


def _scoped_grad(x):
    with astjax.named_scope("a"):
        y = jnp.sin(x)
    return astjax.grad(lambda z: jnp.cos(z) * 2.0)(y)


def test_lowered_locations_named_by_the_stack():
    # JAX 0.10.2 names these "jit(f)/a/sin", "jit(f)/jvp()/sin",
    # "jit(f)/transpose(jvp())/neg" and ".../mul"; astjax's names leave out `jit(f)/`
    text = astjax.jit(_scoped_grad).lower(1.0).as_text(debug_info=True)
    names = re.findall(r'^#loc\d+ = loc\("([^"]*)"\(', text, re.M)
    assert names == ["a/sin", "jvp()/sin", "transpose(jvp())/neg", "transpose(jvp())/mul"]
