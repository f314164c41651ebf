"""`jit(f, donate_argnames=...)` / `donate_argnums=` with the donated argument passed by
keyword, and JAX's "Some donated buffers were not usable" warning. The expected
deletions and warnings are JAX 0.10.2's on CPU (real `jax`, the same programs)."""
import warnings

import pytest

import astjax
import astjax.numpy as jnp


def _call(f, *args, **kwargs):
    """(the arguments' leaves deleted?, the warnings' first lines)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f(*args, **kwargs)
    leaves = astjax.tree_util.tree_leaves((args, kwargs))
    return [x.is_deleted() for x in leaves], [str(i.message).splitlines()[0] for i in w]


def add(x, y):
    return x + y


def add_kwonly(a, *, b):
    return a + b


NOT_USABLE = "Some donated buffers were not usable: float32[3]."


@pytest.mark.parametrize("make, args, kwargs, expected", [
    # by name, passed by keyword: donated (JAX: x.is_deleted() afterwards)
    (lambda: astjax.jit(add, donate_argnames=("x",)), (), ("x", "y"), [True, False]),
    (lambda: astjax.jit(add, donate_argnames=("x",)), ("x", "y"), (), [True, False]),
    # by position, passed by keyword: the name completed from the signature
    (lambda: astjax.jit(add, donate_argnums=(0,)), (), ("x", "y"), [True, False]),
    (lambda: astjax.jit(add_kwonly, donate_argnames="b"), ("a",), ("b",), [False, True]),
    (lambda: astjax.jit(add_kwonly, donate_argnums=0), ("a",), ("b",), [True, False]),
], ids=["names-kw", "names-pos", "nums-kw", "kwonly", "nums-pos-with-kw"])
def test_keyword_arguments_are_donated_by_name(make, args, kwargs, expected):
    vals = {k: jnp.ones(3) for k in ("x", "y", "a", "b")}
    # (deletions listed in the order of the arguments' names: x, y or a, b)
    assert _call(make(), *[vals[k] for k in args], **{k: vals[k] for k in kwargs}) == (
        expected, [])


def test_a_donated_pytree_by_keyword():
    x = {"p": jnp.ones(3), "q": jnp.ones(2)}
    # q is unused: JAX prunes it (neither donated nor warned about)
    assert _call(astjax.jit(lambda x: x["p"] * 2, donate_argnames="x"), x=x) == (
        [True, False], [])


def test_lowered_text_aliases_a_keyword_donation():
    text = astjax.jit(add, donate_argnames=("x",)).lower(x=jnp.ones(3), y=jnp.ones(3)).as_text()
    assert "%arg0: tensor<3xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<3xf32>)" in text


def test_not_usable_warnings_as_jaxs():
    # no result to alias or reuse: JAX's warning, the buffer kept
    assert _call(astjax.jit(lambda x: x.sum(), donate_argnames="x"), x=jnp.ones(3)) == (
        [False], [NOT_USABLE])
    assert _call(astjax.jit(lambda x: jnp.concatenate([x, x]), donate_argnums=0),
                 jnp.ones(3)) == ([False], [NOT_USABLE])
    # an unused donated argument is pruned: no warning, unless keep_unused=True
    assert _call(astjax.jit(lambda x, y: y * 2, donate_argnums=0), jnp.ones(3),
                 jnp.ones(4)) == ([False, False], [])
    assert _call(astjax.jit(lambda x, y: y * 2, donate_argnames="x"), x=jnp.ones(3),
                 y=jnp.ones(4)) == ([False, False], [])
    assert _call(astjax.jit(lambda x, y: y * 2, donate_argnums=0, keep_unused=True),
                 jnp.ones(3), jnp.ones(4)) == ([False, False], [NOT_USABLE])


def test_keep_unused_is_part_of_the_cache_key():
    # (jits of one function with and without keep_unused share no compiled entry: the
    # one without prunes the unused donated argument, the other warns about it)
    def f(x, y):
        return y * 2
    assert _call(astjax.jit(f, donate_argnums=0), jnp.ones(3), jnp.ones(4))[1] == []
    assert _call(astjax.jit(f, donate_argnums=0, keep_unused=True), jnp.ones(3),
                 jnp.ones(4))[1] == [NOT_USABLE]
