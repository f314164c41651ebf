"""JAX's key primitives `random_split`, `random_fold_in` and `random_bits`
(`astjax/primitives/prng_ops.py`): staged on typed keys they are one equation each,
printed as JAX 0.10.2 prints them (no implementation parameter: it is the keys' type),
under `vmap` too; the key data and bits are JAX's (values recorded with jax 0.10.2 on
CPU) for threefry, rbg, unsafe_rbg and threefry4x32 keys; plain uint32 data is no key."""
import numpy as np
import pytest

import astjax as jax
from astjax import core
from astjax import numpy as jnp
from astjax.primitives.prng_ops import random_bits_p, random_split_p

r = jax.random
kd = r.key_data


def _jaxpr(f, *args):
    return str(jax.make_jaxpr(f)(*args))


def test_split_fold_in_bits_are_one_equation_each_as_jax():
    assert _jaxpr(lambda s: r.split(r.PRNGKey(s)), np.uint32(0)) == """\
{ lambda ; a:u32[]. let
    b:key<fry>[] = random_seed[impl=fry] a
    c:u32[2] = random_unwrap b
    d:key<fry>[] = random_wrap[impl=fry] c
    e:key<fry>[2] = random_split[shape=(2,)] d
    f:u32[2,2] = random_unwrap e
  in (f,) }"""
    assert _jaxpr(lambda s: kd(r.fold_in(r.key(s), 3)), np.uint32(0)) == """\
{ lambda ; a:u32[]. let
    b:key<fry>[] = random_seed[impl=fry] a
    c:key<fry>[] = random_fold_in b 3:u32[]
    d:u32[2] = random_unwrap c
  in (d,) }"""
    eqn = jax.make_jaxpr(lambda k: r.bits(k, (3,)))(np.zeros(2, np.uint32)).jaxpr.eqns[1]
    assert eqn.primitive.name == "random_bits" and eqn.params == {"bit_width": 32,
                                                                   "shape": (3,)}


def test_vmap_of_the_key_primitives_prints_as_jax():
    k0 = r.key(0)
    assert _jaxpr(jax.vmap(lambda k: r.split(k, 3)), r.split(k0, 2)) == """\
{ lambda ; a:key<fry>[2]. let
    b:key<fry>[2,3] = random_split[shape=(3,)] a
  in (b,) }"""
    assert _jaxpr(jax.vmap(lambda k: r.bits(k, (2,))), r.split(r.key(1, impl="rbg"), 2)) == """\
{ lambda ; a:key<rbg>[2]. let
    b:u32[2,2] = random_bits[bit_width=32 shape=(2,)] a
  in (b,) }"""


def test_batched_key_data_and_bits_are_jax():
    k0 = r.key(0)
    ar = jnp.arange(3, dtype=jnp.uint32)
    assert kd(jax.vmap(lambda d: r.fold_in(k0, d))(ar)).tolist() == [
        [1797259609, 2579123966], [928981903, 3453687069], [4146024105, 2718843009]]
    assert kd(jax.vmap(lambda k: r.split(k, 3))(r.split(k0, 2))).tolist() == [
        [[4165894930, 804218099], [1353695780, 2116000888], [2839387376, 2467677468]],
        [[346279018, 360566543], [3968330031, 3923691647], [3152301319, 792466127]]]
    rbg = r.split(r.key(1, impl="rbg"), 2)
    assert jax.vmap(lambda k: r.bits(k, (2,)))(rbg).tolist() == [[1862425085, 3304256489],
                                                                  [2523509201, 60036221]]
    urbg = r.split(r.key(1, impl="unsafe_rbg"), 2)
    assert kd(jax.vmap(r.split)(urbg)).tolist() == [
        [[3519558403, 881424858, 575596533, 2884981920],
         [3280241817, 1231397161, 3255328786, 4206039614]],
        [[1259556626, 1670325373, 3217396315, 659948839],
         [838635624, 3707208068, 2657635079, 26642652]]]
    assert kd(jax.vmap(r.fold_in)(urbg, jnp.arange(2, dtype=jnp.uint32))).tolist() == [
        [396051163, 970001973, 196186645, 2873148296],
        [2332933784, 3389060673, 3426098747, 1110578943]]
    fry4 = r.split(r.key(2, impl="threefry4x32"), (2, 2))
    assert jax.vmap(jax.vmap(lambda k: r.bits(k, (2,), jnp.uint8)))(fry4).tolist() == [
        [[174, 206], [133, 169]], [[62, 143], [56, 20]]]


def test_plain_data_is_no_key():
    with pytest.raises(TypeError, match="random_split takes typed PRNG keys"):
        core.bind(random_split_p, np.zeros(2, np.uint32), shape=(2,))
    with pytest.raises(TypeError, match="random_bits takes typed PRNG keys"):
        jax.make_jaxpr(lambda d: random_bits_p.bind(d, bit_width=32, shape=()))(
            np.zeros(2, np.uint32))


def test_vmap_with_an_unbatched_key_or_a_moved_axis_is_jax():
    # (the batch rule broadcasts / moves the keys and types them as keys again)
    ks = r.split(r.key(4), 2)
    got = jax.vmap(r.fold_in, in_axes=(None, 0))(ks[0], jnp.arange(2, dtype=jnp.uint32))
    assert kd(got).tolist() == [[790831124, 2766039447], [603487872, 4092817842]]
    got = kd(jax.vmap(jax.vmap(r.split), in_axes=1)(r.split(r.key(5), (2, 3))))
    assert got[:, 1].tolist() == [[[3428970737, 3503630209], [626509434, 2912031311]],
                                  [[3796207017, 859920493], [1573955797, 4203984149]],
                                  [[4156252085, 3642490124], [181618951, 1070042423]]]


def test_transformations_re_binding_the_key_primitives_type_their_keys():
    # the re-staging interpreters (AD's linearize / inline, pmap's inline) bind the
    # primitives on values whose type the outer program lost (a sliced key): typed again
    k0 = r.key(3)
    got = jax.jit(jax.grad(lambda x, k: x * r.normal(r.split(k, 3)[2])))(1.0, k0)
    np.testing.assert_array_equal(got, np.float32(-0.5877813696861267))
    assert jax.pmap(lambda k: r.bits(k, (2,)))(r.split(k0, 1)).tolist() == [[37346497,
                                                                          188929330]]
