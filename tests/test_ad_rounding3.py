"""Reduction, contraction and cumulative derivative rules in JAX's exact form: each is
JAX's expression, operation for operation, so it rounds as JAX's (the same value
computed in another order differs in the last bits, and a training loop drifts apart).
Recorded against jax 0.10.2 with tests/fuzz/reduce_rule_sweep.py's cases and
transforms (`case/transform`): the float32 bits of results where astjax's former rule
rounded otherwise."""
import numpy as np
import pytest

import astjax
from fuzz import reduce_rule_sweep as sweep

# jax 0.10.2: (indices into the flattened result, their bits)
JAX_BITS = {
    # reduce_max's jvp: sums over x's own axes (not one folded axis)
    "max_ties/jvp": (
        [19, 20, 26, 28, 29, 30],
        [0xbe4036b0, 0xbdfa7491, 0x3ed005aa, 0xbe93af85, 0x3d20e267, 0xbeeb2af7]),
    # reduce_prod's jvp: the halving tree of `mul`s (not exclusive cumprods)
    "prod/jit_grad": (
        [0, 1, 2, 4, 5, 6],
        [0x3e224a62, 0xbd7d72f5, 0x3c98d8f8, 0xbcebb36a, 0x3cde7ba3, 0xbc67286a]),
    "prod_ax1/vmap_grad": (
        [1, 5, 6, 7, 8, 11],
        [0x4089da43, 0x40803322, 0x407604de, 0x411c1ce5, 0x40798203, 0x3d0c1d09]),
    "prod_ax1/jvp": (
        [2, 3, 4, 6, 7, 8],
        [0xbdd81e5b, 0xbce250be, 0xbf0ab309, 0xc09c4e12, 0x3e298235, 0xbe437390]),
    # cumprod / cumlogsumexp's jvp: an associative scan's (not a linear recurrence)
    "cumprod/vmap_grad": (
        [1, 7, 10, 11, 12, 13],
        [0x3f012995, 0x3a89e679, 0x3da02768, 0x3ed5b59d, 0x3eab3ad6, 0xc05f06ad]),
    "cumprod/jvp": (
        [13, 14, 23, 24, 28, 29],
        [0x3f2b3a5d, 0x3f283737, 0x3de98aeb, 0x3d97b531, 0xbdd4b9b3, 0xbd5ffaac]),
    "logcumsumexp/jit_grad": (
        [2, 3, 7, 8, 10, 13],
        [0x4033e672, 0x3f117e60, 0x3da5928b, 0x3fcfb1a8, 0x3f9afae9, 0x3f100c0b]),
    "logcumsumexp/jvp": (
        [28, 29, 43, 53, 54, 78],
        [0x400dc8b8, 0x40159dc4, 0x3ff8ce0c, 0x402a7c3e, 0x402ba293, 0x4001ea84]),
    # linalg.norm over every axis: a sum over x's own axes (not over x raveled)
    "norm/vmap_grad": (
        [40, 41, 42, 43, 45, 46],
        [0xbd3173b0, 0x3eecfdc5, 0x3edb67e3, 0x3f16c3a8, 0x3d4a4a51, 0x3d14d85c]),
}


@pytest.fixture(scope="module", autouse=True)
def _astjax_modules():
    sweep._bind(astjax)


@pytest.mark.parametrize("key", sorted(JAX_BITS))
def test_bits_are_jaxs(key):
    name, transform = key.split("/")
    got = sweep.run_case(astjax, name, (transform,))[transform]
    assert isinstance(got, np.ndarray), got
    idx, want = JAX_BITS[key]
    bits = got.view(np.uint32)[idx]
    assert [hex(b) for b in bits] == [hex(w) for w in want]


# jax 0.10.2's `make_jaxpr(lambda x, t: jvp(f, (x,), (t,)))` on f32[3,2] operands
JAX_JVP_JAXPRS = {
    "reduce_prod": (lambda x: astjax.lax.reduce_prod(x, (0,)), """\
{ lambda ; a:f32[3,2] b:f32[3,2]. let
    c:f32[2,2] = slice[limit_indices=(2, 2) start_indices=(0, 0) strides=(1, 1)] a
    d:f32[2,2] = slice[limit_indices=(2, 2) start_indices=(0, 0) strides=(1, 1)] b
    e:f32[1,2] = slice[limit_indices=(3, 2) start_indices=(2, 0) strides=(1, 1)] a
    f:f32[1,2] = slice[limit_indices=(3, 2) start_indices=(2, 0) strides=(1, 1)] b
    g:f32[2,2] = pad[padding_config=((0, 1, 0), (0, 0, 0))] e 1.0:f32[]
    h:f32[2,2] = pad[padding_config=((0, 1, 0), (0, 0, 0))] f 0.0:f32[]
    i:f32[2,2] = mul c g
    j:f32[2,2] = mul d g
    k:f32[2,2] = mul c h
    l:f32[2,2] = add_any j k
    m:f32[1,2] = slice[limit_indices=(1, 2) start_indices=(0, 0) strides=(1, 1)] i
    n:f32[1,2] = slice[limit_indices=(1, 2) start_indices=(0, 0) strides=(1, 1)] l
    o:f32[1,2] = slice[limit_indices=(2, 2) start_indices=(1, 0) strides=(1, 1)] i
    p:f32[1,2] = slice[limit_indices=(2, 2) start_indices=(1, 0) strides=(1, 1)] l
    q:f32[1,2] = mul m o
    r:f32[1,2] = mul n o
    s:f32[1,2] = mul m p
    t:f32[1,2] = add_any r s
    u:f32[2] = squeeze[dimensions=(0,)] q
    v:f32[2] = squeeze[dimensions=(0,)] t
  in (u, v) }
"""),
    "cumprod": (lambda x: astjax.lax.cumprod(x, axis=0), """\
{ lambda ; a:f32[3,2] b:f32[3,2]. let
    c:f32[1,2] = slice[limit_indices=(2, 2) start_indices=(0, 0) strides=(2, 1)] a
    d:f32[1,2] = slice[limit_indices=(2, 2) start_indices=(0, 0) strides=(2, 1)] b
    e:f32[1,2] = slice[limit_indices=(3, 2) start_indices=(1, 0) strides=(2, 1)] a
    f:f32[1,2] = slice[limit_indices=(3, 2) start_indices=(1, 0) strides=(2, 1)] b
    g:f32[1,2] = mul c e
    h:f32[1,2] = mul d e
    i:f32[1,2] = mul c f
    j:f32[1,2] = add_any h i
    k:f32[1,2] = slice[limit_indices=(3, 2) start_indices=(2, 0) strides=(2, 1)] a
    l:f32[1,2] = slice[limit_indices=(3, 2) start_indices=(2, 0) strides=(2, 1)] b
    m:f32[1,2] = mul g k
    n:f32[1,2] = mul j k
    o:f32[1,2] = mul g l
    p:f32[1,2] = add_any n o
    q:f32[1,2] = slice[limit_indices=(1, 2) start_indices=(0, 0) strides=(1, 1)] a
    r:f32[1,2] = slice[limit_indices=(1, 2) start_indices=(0, 0) strides=(1, 1)] b
    s:f32[2,2] = concatenate[dimension=0] q m
    t:f32[2,2] = concatenate[dimension=0] r p
    u:f32[3,2] = pad[padding_config=((0, 0, 1), (0, 0, 0))] s 0.0:f32[]
    v:f32[3,2] = pad[padding_config=((0, 0, 1), (0, 0, 0))] t 0.0:f32[]
    w:f32[3,2] = pad[padding_config=((1, 1, 1), (0, 0, 0))] g 0.0:f32[]
    x:f32[3,2] = pad[padding_config=((1, 1, 1), (0, 0, 0))] j 0.0:f32[]
    y:f32[3,2] = add u w
    z:f32[3,2] = add v x
  in (y, z) }
"""),
}


@pytest.mark.parametrize("name", sorted(JAX_JVP_JAXPRS))
def test_jvp_is_jaxs_expression(name):
    f, want = JAX_JVP_JAXPRS[name]
    x = np.ones((3, 2), np.float32)
    got = astjax.make_jaxpr(lambda x, t: astjax.jvp(f, (x,), (t,)))(x, x)
    assert str(got).strip() == want.strip()
