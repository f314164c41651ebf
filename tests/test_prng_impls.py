"""PRNG implementations (`impl='threefry2x32'|'rbg'|'unsafe_rbg'`, `define_prng_impl`):
the program in tests/oracle/record_prng_impls.py run on astjax against JAX 0.10.2's
stored values, bit for bit (key data after seed / split / fold_in, bits and samplers,
eager, under jit, vmap, loops, cond, grad, pytrees, a user-defined implementation, the
`jax_default_prng_impl` flag), plus the errors JAX raises, located at the user's line."""
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax, random
from astjax.errors import AstjaxError
from astjax.extend import random as xrandom

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
import record_prng_impls  # noqa: E402
from oracle import compare  # noqa: E402

EXPECTED = compare.load("prng_impls")


def assert_matches_stored(value, want, name):
    """astjax's `value` for the stored entry `name` equals JAX's `want`: floats exactly
    (the same bits give the same float32 values), but for an eager grad."""
    got = compare.plain(value)
    if name.endswith("/grad"):
        # astjax's eager grad runs as one compiled program, where XLA fuses the sampler
        # with the product: JAX's own jit(grad) gives the same float32 one ulp away from
        # its op-by-op value (rbg, seed 42: 0.79455572 vs 0.79455566)
        np.testing.assert_allclose(got, want, rtol=2e-7, atol=0)
    else:
        assert got == want, name


def assert_section_matches(out, expected, names):
    """The values one section computed are exactly the stored `names`, each equal to
    JAX's (every mismatch named at once)."""
    assert sorted(out) == sorted(names)
    bad = []
    for name in names:
        try:
            assert_matches_stored(out[name], expected[name], name)
        except AssertionError as e:
            bad.append(f"{name}: astjax {out[name]} JAX {expected[name]} ({e})")
    assert not bad, "\n".join(bad)


# one test per section (an implementation's program), each computed once: under
# `pytest -n 2` the sections spread over the workers instead of each worker
# computing all of them
@pytest.mark.parametrize("section", record_prng_impls.SECTIONS)
def test_matches_jax_bit_for_bit(section):
    out = {}
    record_prng_impls.run_section(astjax, jnp, lax, section, out)
    assert_section_matches(out, EXPECTED, [n for n in EXPECTED
                                           if record_prng_impls.section_of(n) == section])


def test_make_jaxpr_types_each_impl_by_its_own_dtype():
    # an executable's result aval annotated as fry4 keys (u32[4]) once became the
    # interned aval of every u32[4] Array, so rbg keys and plain data printed key<fry4>
    astjax.jit(lambda: random.key_data(random.key(1, impl="threefry4x32")))()
    astjax.jit(lambda: random.key(1, impl="threefry4x32"))()
    assert str(astjax.make_jaxpr(random.key_data)(random.key(0, impl="rbg"))) == (
        "{ lambda ; a:key<rbg>[]. let b:u32[4] = random_unwrap a in (b,) }")
    assert str(astjax.make_jaxpr(lambda x: x + 1)(jnp.zeros(4, jnp.uint32))).startswith(
        "{ lambda ; a:u32[4]. let")
    # whatever was interned first: an Array's aval is never a key annotation
    from astjax.codegen import runtime
    from astjax.ir import KeyDataAval
    interned = runtime.intern_aval(KeyDataAval((5, 7, 2), jnp.uint32, "fry"))
    assert type(interned) is astjax.core.ShapedArray and interned.str_short() == "uint32[5,7,2]"


def test_every_impl_and_the_custom_one_are_covered():
    tags = {n.split("/")[0] for n in EXPECTED}
    assert {"threefry2x32", "rbg", "unsafe_rbg", "custom", "default_rbg"} <= tags
    assert EXPECTED["rbg/dtype"] == "key<rbg>" and EXPECTED["unsafe_rbg/dtype"] == "key<urbg>"

# ------------------------------------------------------------------ key facts


def test_key_shapes_dtypes_and_names():
    k = random.key(0, impl="rbg")
    assert k.shape == () and str(k.dtype) == "key<rbg>" and k.dtype.itemsize == 16
    assert random.key_data(k).shape == (4,)
    assert random.key_dtype("unsafe_rbg") == random.key(1, impl="unsafe_rbg").dtype
    assert random.key_dtype("rbg") != random.key_dtype("unsafe_rbg")
    assert random.key_impl(k) == "rbg"
    assert str(astjax.typeof(random.split(k, 3))) == "key<rbg>[3]"
    assert repr(k) == "Array((), dtype=key<rbg>) overlaying:\n[0 0 0 0]"
    assert random.key(0, impl=xrandom.rbg_prng_impl).dtype == k.dtype
    assert random.key(0, dtype=random.key_dtype("rbg")).dtype == k.dtype


def test_default_impl_flag_and_context_manager():
    with astjax.default_prng_impl("rbg"):
        assert random.PRNGKey(0).shape == (4,)
        assert str(random.key(0).dtype) == "key<rbg>"
    assert random.PRNGKey(0).shape == (2,)
    astjax.config.update("jax_default_prng_impl", "unsafe_rbg")
    try:
        assert random.split(random.PRNGKey(0)).shape == (2, 4)
    finally:
        astjax.config.update("jax_default_prng_impl", "threefry2x32")
    assert str(random.key(0).dtype) == "key<fry>"


def test_printed_jaxpr_types_keys_by_impl():
    # JAX 0.10.2's make_jaxpr text for the same functions
    assert str(astjax.make_jaxpr(random.key_data)(random.key(0, impl="rbg"))) == (
        "{ lambda ; a:key<rbg>[]. let b:u32[4] = random_unwrap a in (b,) }")
    wrap = astjax.make_jaxpr(lambda d: random.wrap_key_data(d, impl="unsafe_rbg"))
    assert str(wrap(jnp.zeros(4, jnp.uint32))) == (
        "{ lambda ; a:u32[4]. let b:key<urbg>[] = random_wrap[impl=urbg] a in (b,) }")


def draw(k):
    return random.uniform(k, (3,))


def test_source_of_an_rbg_draw_runs_again():
    k = random.key(3, impl="rbg")
    text = astjax.source(astjax.jit(draw), k)
    assert "random_bits(" in text   # (the primitive: the implementation's draw on the data)
    np.testing.assert_array_equal(astjax.source_function(astjax.jit(draw), k)(k), draw(k))
    np.testing.assert_array_equal(astjax.jit(draw)(k), draw(k))


def test_keys_are_not_differentiated():
    g = astjax.grad(lambda x, k: jnp.sum(x * random.uniform(k, (2,))))(2.0, random.key(1, impl="rbg"))
    np.testing.assert_allclose(g, jnp.sum(random.uniform(random.key(1, impl="rbg"), (2,))))

# --------------------------------------------------------------------- errors


def _located(e):
    assert isinstance(e, AstjaxError)
    assert e.loc.file == __file__, e.loc


def test_unknown_impl_name_is_jax_value_error():
    with pytest.raises(ValueError, match='unrecognized PRNG implementation "nope"') as e:
        random.key(0, impl="nope")
    _located(e.value)
    with pytest.raises(TypeError, match="unrecognized type") as e:
        random.PRNGKey(0, impl=3)
    _located(e.value)
    with pytest.raises(ValueError):
        astjax.config.update("jax_default_prng_impl", "nope")
    with pytest.raises(ValueError, match="both"):
        random.key(0, impl="rbg", dtype=random.key_dtype("rbg"))


def test_mixing_impls_is_jax_error():
    k1, k2 = random.key(0), random.key(0, impl="rbg")
    with pytest.raises(TypeError, match="equal does not accept dtypes key<fry>, key<rbg>") as e:
        k1 == k2  # noqa: B015
    _located(e.value)
    for join in (jnp.stack, jnp.concatenate):
        with pytest.raises(ValueError, match="not a valid dtype for JAX type promotion") as e:
            join([k1[None], k2[None]])
        _located(e.value)
    with pytest.raises(ValueError, match="not a valid dtype"):
        jnp.where(True, k1, k2)
    with pytest.raises(TypeError):
        lax.cond(True, lambda: k1, lambda: k2)


def test_wrong_key_data_is_jax_type_error():
    with pytest.raises(TypeError, match=r"expected key_data.shape to end with \(4,\)") as e:
        random.wrap_key_data(jnp.zeros(2, jnp.uint32), impl="rbg")
    _located(e.value)
    with pytest.raises(TypeError, match="key_data.dtype = uint32"):
        random.wrap_key_data(jnp.zeros(4, jnp.int32), impl="rbg")
    with pytest.raises(TypeError, match=r"end with \(2,\)"):   # raw rbg data, threefry default
        random.uniform(random.PRNGKey(0, impl="rbg"), (2,))
    with pytest.raises(ValueError, match="single key"):
        random.split(random.split(random.key(0, impl="rbg"), 2))


def test_poisson_refuses_other_impls_as_jax_does():
    # JAX 0.10.2's own refusal (the gamma family draws from every implementation:
    # tests/test_prng_impls_more.py)
    with pytest.raises(NotImplementedError,
                       match="only implemented for the threefry2x32 RNG, not rbg") as e:
        random.poisson(random.key(0, impl="rbg"), 3.0)
    _located(e.value)
