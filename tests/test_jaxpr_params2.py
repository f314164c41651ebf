"""Call equations as JAX 0.10.2 makes them (each text recorded with /work/jaxref/bin/python):
an inner `jit` holds pjit's params (layouts, donations, the context mesh, options) and
prints only those not at their defaults; `custom_jvp_call` / `custom_vjp_call` hold
`jvp_jaxpr_fun` / `fwd_jaxpr_thunk`, `out_trees`, `symbolic_zeros` and print the
function's `name=` and the rules' names; `checkpoint` is `remat2` with an open Jaxpr."""
import numpy as np
import pytest

import astjax as jax
from astjax import lax
from astjax import numpy as jnp
from astjax.errors import AstjaxError
from astjax.sharding import Mesh

from oracle import record_jaxpr_params as rec

V = np.arange(4, dtype=np.float32)


def _donating(x, y):
    return jax.jit(lambda a, b: a * b, donate_argnums=1, keep_unused=True)(x, y) + 1.0


JIT_TEXT = """\
{ lambda ; a:f32[4] b:f32[4]. let
    c:f32[4] = jit[
      name=<lambda>
      donated_invars=(False, True)
      jaxpr={ lambda ; a:f32[4] b:f32[4]. let c:f32[4] = mul a b in (c,) }
      keep_unused=True
    ] a b
    d:f32[4] = add c 1.0:f32[]
  in (d,) }"""


def test_inner_jit_params_and_text():
    closed = jax.make_jaxpr(_donating)(V, V)
    assert str(closed) == JIT_TEXT
    p = closed.jaxpr.eqns[0].params
    assert {k: repr(v) for k, v in p.items() if k != "jaxpr"} == {
        "compiler_options_kvs": "()", "ctx_mesh": "Mesh(axis_sizes=(), axis_names=())",
        "donated_invars": "(False, True)", "in_layouts": "(None, None)",
        "in_shardings": "(UnspecifiedValue, UnspecifiedValue)", "inline": "False",
        "keep_unused": "True", "name": "'<lambda>'", "out_layouts": "(None,)",
        "out_shardings": "(UnspecifiedValue,)"}
    np.testing.assert_array_equal(jax.jit(_donating)(V, V), V * V + 1.0)


def test_inner_jit_params_follow_its_operands_through_transforms():
    """grad / vmap re-bind the call with per-operand params of the new operands."""
    def f(x, y):
        return jax.jit(lambda a, b: jnp.sin(a) * b)(x, y).sum()
    for closed in (jax.make_jaxpr(jax.grad(f))(V, V),
                   jax.make_jaxpr(jax.vmap(jax.grad(f)))(np.stack([V, V]), np.stack([V, V]))):
        calls = [e for e in closed.jaxpr.eqns if e.primitive.name == "jit"]
        assert calls
        for e in calls:
            n_in, n_out = len(e.invars), len(e.outvars)
            assert e.params["in_shardings"] == (e.params["in_shardings"][0],) * n_in
            assert e.params["donated_invars"] == (False,) * n_in
            assert len(e.params["in_layouts"]) == n_in
            assert len(e.params["out_shardings"]) == len(e.params["out_layouts"]) == n_out


def test_empty_mesh_hashes_as_in_jax():
    """An empty Mesh (a jit equation's `ctx_mesh` outside any mesh) hashes and compares
    as JAX's (hashing it raised AttributeError: its one device is None)."""
    a, b = Mesh(np.empty((), object), ()), Mesh(np.empty((), object), ())
    assert hash(a) == hash(b) and a == b


@jax.custom_vjp
def _g(x):
    return jnp.sin(x)


def _g_fwd(x):
    return jnp.sin(x), (x, jnp.cos(x))


def _g_bwd(res, ct):
    return (res[1] * ct,)


_g.defvjp(_g_fwd, _g_bwd)

VJP_TEXT = """\
{ lambda ; a:f32[4]. let
    b:f32[4] = custom_vjp_call[
      name=_g
      bwd=_g_bwd
      call_jaxpr={ lambda ; c:f32[4]. let d:f32[4] = sin c in (d,) }
      fwd=_g_fwd
      symbolic_zeros=False
    ] a
    e:f32[4] = mul b 2.0:f32[]
  in (e,) }"""


def test_custom_vjp_params_and_text():
    closed = jax.make_jaxpr(lambda x: _g(x) * 2.0)(V)
    assert str(closed) == VJP_TEXT
    p = closed.jaxpr.eqns[0].params
    assert sorted(p) == ["bwd", "call_jaxpr", "fwd_jaxpr_thunk", "num_consts", "out_trees",
                         "symbolic_zeros"]
    assert callable(p["fwd_jaxpr_thunk"]) and callable(p["out_trees"])
    with pytest.raises(AstjaxError, match="once its fwd has run"):   # (JAX: its store empty)
        p["out_trees"]()
    np.testing.assert_allclose(jax.grad(lambda x: _g(x).sum())(V), np.cos(V), rtol=1e-6)


def test_custom_jvp_text():
    closed = rec.CASES["custom_jvp"](jax, jnp, lax)   # (g, with its rule g_jvp)
    assert str(closed) == """\
{ lambda ; a:f32[4]. let
    b:f32[4] = custom_jvp_call[
      name=g
      call_jaxpr={ lambda ; c:f32[4]. let d:f32[4] = sin c in (d,) }
      jvp=g_jvp
      symbolic_zeros=False
    ] a
  in (b,) }"""
    eqn, = closed.jaxpr.eqns
    assert sorted(eqn.params) == ["call_jaxpr", "jvp_jaxpr_fun", "num_consts", "symbolic_zeros"]


def test_checkpoint_is_remat2_with_an_open_jaxpr():
    """The body's closed-over constant is a leading operand, as JAX's."""
    closed = jax.make_jaxpr(jax.checkpoint(lambda x: jnp.sin(x) * V))(V)
    assert str(closed) == """\
{ lambda a:f32[4]; b:f32[4]. let
    c:f32[4] = remat2[
      differentiated=False
      jaxpr={ lambda ; d:f32[4] e:f32[4]. let
          f:f32[4] = sin e
          g:f32[4] = mul f d
        in (g,) }
      policy=None
      prevent_cse=True
    ] a b
  in (c,) }"""
    assert type(closed.jaxpr.eqns[0].params["jaxpr"]).__name__ == "Jaxpr"
    f = jax.checkpoint(lambda x: jnp.sin(x) * V)
    np.testing.assert_allclose(jax.grad(lambda x: f(x).sum())(V), np.cos(V) * V, rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(jax.grad(lambda x: f(x).sum()))(np.stack([V, V])),
                               np.stack([np.cos(V) * V] * 2), rtol=1e-6)


# ---- jnp functions JAX defines under `jit`: an inner `jit` equation named as JAX's
M = np.arange(12, dtype=np.float32).reshape(3, 4)

CLIP_TEXT = """\
{ lambda ; a:f32[3,4]. let
    b:f32[3,4] = jit[
      name=clip
      jaxpr={ lambda ; a:f32[3,4] c:f32[] d:f32[]. let
          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
          f:f32[3,4] = max e a
          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          b:f32[3,4] = min g f
        in (b,) }
    ] a -1.0:f32[] 1.0:f32[]
  in (b,) }"""

WHERE_TEXT = """\
{ lambda ; a:f32[3,4]. let
    b:bool[3,4] = gt a 0.0:f32[]
    c:f32[3,4] = jit[
      name=_where
      jaxpr={ lambda ; b:bool[3,4] a:f32[3,4] d:f32[]. let
          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          f:f32[3,4] = broadcast_in_dim e
          c:f32[3,4] = select_n b f a
        in (c,) }
    ] b a 0.0:f32[]
  in (c,) }"""

FLIP_SORT_TEXT = """\
{ lambda ; a:f32[3,4]. let
    b:f32[3,4] = jit[
      name=_flip
      jaxpr={ lambda ; a:f32[3,4]. let
          b:f32[3,4] = rev[dimensions=(1,)] a
        in (b,) }
    ] a
    c:f32[3,4] = jit[
      name=sort
      jaxpr={ lambda ; b:f32[3,4]. let
          c:f32[3,4] = sort[dimension=0 is_stable=True num_keys=1] b
        in (c,) }
    ] b
  in (c,) }"""


@pytest.mark.parametrize("fn, text", [
    (lambda x: jnp.clip(x, -1.0, 1.0), CLIP_TEXT),
    (lambda x: jnp.where(x > 0, x, 0.0), WHERE_TEXT),
    (lambda x: jnp.sort(jnp.flip(x, 1), axis=0), FLIP_SORT_TEXT)])
def test_jitted_jnp_functions_print_as_jax(fn, text):
    assert str(jax.make_jaxpr(fn)(M)) == text
    np.testing.assert_array_equal(jax.jit(fn)(M), fn(M))   # (eager: as before)


def test_jitted_jnp_functions_differentiate_and_batch():
    """grad and vmap go through the inner calls (their own jit rules)."""
    g = jax.grad(lambda x: jnp.where(x > 4, jnp.clip(x, 1.0, 9.0), 0.0).sum())(M)
    np.testing.assert_array_equal(g, [[0, 0, 0, 0], [0, 1, 1, 1], [1, 0.5, 0, 0]])   # (JAX's)
    np.testing.assert_array_equal(jax.vmap(lambda r: jnp.sort(jnp.flip(r)))(M),
                                  np.sort(M[:, ::-1], axis=1))
    np.testing.assert_array_equal(jax.vmap(jnp.cumsum)(M), np.cumsum(M, axis=1))
