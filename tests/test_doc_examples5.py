"""The jaxprs JAX's documentation notebooks print, as JAX 0.10.2 prints them.

Each case is a notebook cell that prints `jax.make_jaxpr(...)` and the text JAX 0.10.2
printed for it (from `tests/notebooks/run.py`'s JAX run). key-concepts cell 4 (a
nested `jit` named `_where` for `jnp.where`) and Common_Gotchas cell 19 (each element
of a list of staged values converted, then broadcast, then concatenated) printed other
forms before the jaxpr changes of 29 Nov 2026 (`tests/notebooks/FAILURES.md`)."""
import textwrap

import astjax as jax
import astjax.numpy as jnp


def _text(f, *args):
    return str(jax.make_jaxpr(f)(*args))


def _expected(s):
    return textwrap.dedent(s).strip("\n")


def test_key_concepts_selu_prints_jaxs_nested_where():
    def selu(x, alpha=1.67, lambda_=1.05):
        return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

    assert _text(selu, jnp.arange(5.0)) == _expected("""
        { lambda ; a:f32[5]. let
            b:bool[5] = gt a 0.0:f32[]
            c:f32[5] = exp a
            d:f32[5] = mul 1.6699999570846558:f32[] c
            e:f32[5] = sub d 1.6699999570846558:f32[]
            f:f32[5] = jit[
              name=_where
              jaxpr={ lambda ; b:bool[5] a:f32[5] e:f32[5]. let
                  f:f32[5] = select_n b e a
                in (f,) }
            ] b a e
            g:f32[5] = mul 1.0499999523162842:f32[] f
          in (g,) }""")


def test_common_gotchas_permissive_sum_prints_jaxs_list_conversion():
    def permissive_sum(x):
        return jnp.sum(jnp.array(x))

    got = _text(permissive_sum, list(range(3)))
    assert got == _expected("""
        { lambda ; a:i32[] b:i32[] c:i32[]. let
            d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
            e:i32[1] = broadcast_in_dim d
            f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
            g:i32[1] = broadcast_in_dim f
            h:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
            i:i32[1] = broadcast_in_dim h
            j:i32[3] = concatenate[dimension=0] e g i
            k:i32[] = reduce_sum[axes=(0,) out_sharding=None] j
          in (k,) }""")


def test_thinking_in_jax_dot_prints_jaxs_dot_general():
    def f(x, y):
        return jnp.dot(x + 1, y + 1)

    assert _text(f, jnp.ones((3, 4)), jnp.ones(4)) == _expected("""
        { lambda ; a:f32[3,4] b:f32[4]. let
            c:f32[3,4] = add a 1.0:f32[]
            d:f32[4] = add b 1.0:f32[]
            e:f32[3] = dot_general[
              dimension_numbers=(([1], [0]), ([], []))
              preferred_element_type=float32
            ] c d
          in (e,) }""")


def test_norm_jaxpr_has_no_unused_abs():
    # vector_norm / norm computed `abs(x)` before their 2-norm / Frobenius branches,
    # which do not use it: an extra `abs` equation JAX's jaxpr lacks
    assert _text(jnp.linalg.norm, jnp.ones(4)) == _expected("""
        { lambda ; a:f32[4]. let
            b:f32[] = jit[
              name=norm
              jaxpr={ lambda ; a:f32[4]. let
                  c:f32[4] = mul a a
                  d:f32[] = reduce_sum[axes=(0,) out_sharding=None] c
                  b:f32[] = sqrt d
                in (b,) }
            ] a
          in (b,) }""")
    assert _text(lambda m: jnp.linalg.norm(m, axis=(0, 1)), jnp.ones((2, 3))) == _expected("""
        { lambda ; a:f32[2,3]. let
            b:f32[] = jit[
              name=norm
              jaxpr={ lambda ; a:f32[2,3]. let
                  c:f32[2,3] = mul a a
                  d:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
                  b:f32[] = sqrt d
                in (b,) }
            ] a
          in (b,) }""")
