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

# jax 0.10.2: the bits of the flattened result at some indices where astjax's former
# rule rounded otherwise
JAX_BITS = {  # index:bits pairs
    # reduce_max's jvp: sums over x's own axes (not one folded axis)
    "max_ties/jvp": "19:be4036b0 20:bdfa7491 26:3ed005aa 28:be93af85 29:3d20e267 30:beeb2af7",
    # reduce_prod's jvp: the halving tree of `mul`s (not exclusive cumprods)
    "prod/jit_grad": "0:3e224a62 1:bd7d72f5 2:3c98d8f8 4:bcebb36a 5:3cde7ba3 6:bc67286a",
    "prod_ax1/vmap_grad": "1:4089da43 5:40803322 6:407604de 7:411c1ce5 8:40798203 11:3d0c1d09",
    "prod_ax1/jvp": "2:bdd81e5b 3:bce250be 4:bf0ab309 6:c09c4e12 7:3e298235 8:be437390",
    # cumprod / cumlogsumexp's jvp: an associative scan's (not a linear recurrence)
    "cumprod/vmap_grad": "1:3f012995 7:3a89e679 10:3da02768 11:3ed5b59d 12:3eab3ad6 13:c05f06ad",
    "cumprod/jvp": "13:3f2b3a5d 14:3f283737 23:3de98aeb 24:3d97b531 28:bdd4b9b3 29:bd5ffaac",
    "logcumsumexp/jit_grad": "2:4033e672 3:3f117e60 7:3da5928b 8:3fcfb1a8 10:3f9afae9 13:3f100c0b",
    "logcumsumexp/jvp": "28:400dc8b8 29:40159dc4 43:3ff8ce0c 53:402a7c3e 54:402ba293 78:4001ea84",
    # linalg.norm over every axis: a sum over x's own axes (not over x raveled)
    "norm/vmap_grad": "40:bd3173b0 41:3eecfdc5 42:3edb67e3 43:3f16c3a8 45:3d4a4a51 46:3d14d85c",
}


@pytest.fixture(scope="module", autouse=True)
def _astjax_modules():
    sweep._bind(astjax)


@pytest.mark.parametrize("key", sorted(JAX_BITS))
def test_bits_are_jaxs(key):
    name, transform = key.split("/")
    got = sweep.run_case(astjax, name, (transform,))[transform]
    assert isinstance(got, np.ndarray), got
    want = JAX_BITS[key].split()
    bits = got.view(np.uint32)
    assert [f"{i}:{bits[int(i)]:08x}" for i, _ in (p.split(":") for p in want)] == want


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
