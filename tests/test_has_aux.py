"""`has_aux=True` with auxiliary outputs that are not arrays, as JAX 0.10.2 returns them.

The expected behaviour was recorded from JAX 0.10.2 (`jax.grad(f, has_aux=True)(1.0)`
and the other entry points on the same functions): every entry point returns the aux's
leaves as the very objects the function returned (a string, None, a Python int, an
object, a NumPy array), eagerly and inside `jit`; `jacfwd` and `hessian` batch the aux
and raise TypeError for a leaf that is not a JAX type; `jit(grad(f))` and
`vmap(grad(f))` raise TypeError for such a leaf and turn Python scalars into arrays.
An output that is not a pair is JAX's TypeError (grad, vjp, linearize, jacrev: "expected
function with aux output to return a two-element tuple") or Python's unpacking error
(jvp, jacfwd).
"""
import collections

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


class Obj:
    """A user object: JAX returns it as the aux, itself."""


OBJ = Obj()
NP = np.ones(2)
AUXES = {"str": "hello", "none": None, "int": 3, "float": 2.5, "bool": True,
         "dict": {"a": "s", "b": 1, "c": None}, "obj": OBJ, "mixed": ("s", 1.0, None),
         "list_of_obj": [OBJ, 2], "numpy": NP, "numpy_scalar": np.float32(2.0)}
NOT_JAX_TYPES = {"str", "dict", "obj", "mixed", "list_of_obj"}   # (for jacfwd / hessian)

ENTRIES = {
    "grad": lambda f: astjax.grad(f, has_aux=True)(1.0)[1],
    "value_and_grad": lambda f: astjax.value_and_grad(f, has_aux=True)(1.0)[0][1],
    "vjp": lambda f: astjax.vjp(f, 1.0, has_aux=True)[2],
    "jvp": lambda f: astjax.jvp(f, (1.0,), (1.0,), has_aux=True)[2],
    "linearize": lambda f: astjax.linearize(f, 1.0, has_aux=True)[2],
    "jacrev": lambda f: astjax.jacrev(f, has_aux=True)(1.0)[1],
    "jacfwd": lambda f: astjax.jacfwd(f, has_aux=True)(1.0)[1],
    "hessian": lambda f: astjax.hessian(f, has_aux=True)(1.0)[1],
}
BATCHED = {"jacfwd", "hessian"}


def _with_aux(aux):
    def f(x):
        return jnp.sin(x) * 2.0, aux
    return f


def _same_objects(got, want):
    got_leaves, got_tree = astjax.tree_util.tree_flatten(got)
    want_leaves, want_tree = astjax.tree_util.tree_flatten(want)
    return got_tree == want_tree and all(g is w for g, w in zip(got_leaves, want_leaves))


@pytest.mark.parametrize("entry", sorted(ENTRIES))
@pytest.mark.parametrize("kind", sorted(AUXES))
def test_eager_aux_is_returned_as_is(entry, kind):
    aux = AUXES[kind]
    if entry in BATCHED and kind in NOT_JAX_TYPES:
        with pytest.raises(TypeError, match="is not a valid JAX type"):
            ENTRIES[entry](_with_aux(aux))
        return
    got = ENTRIES[entry](_with_aux(aux))
    assert _same_objects(got, aux), (got, aux)


@pytest.mark.parametrize("entry", ["grad", "value_and_grad", "jacrev", "jacfwd"])
def test_eager_compiled_call_returns_the_object_again(entry):
    # an eager grad runs compiled and cached: the second call reuses the program and
    # still returns the function's object (haiku's stateful_test asserts `aux is o`)
    o = object() if entry != "jacfwd" else np.zeros(3)
    f = _with_aux({"o": o, "n": None})
    for _ in range(2):
        assert ENTRIES[entry](f)["o"] is o


def test_aux_object_inside_jit():
    o = object()

    def g(x):
        val, aux = astjax.grad(lambda y: (jnp.sin(y), o), has_aux=True)(x)
        return val if aux is o else val * 0.0
    assert float(astjax.jit(g)(0.0)) == 1.0


def test_aux_mixing_arrays_and_objects():
    def f(x):
        y = jnp.sin(x)
        return y * 2.0, {"y": y, "name": "layer", "n": 3}
    g, aux = astjax.grad(f, has_aux=True)(0.5)
    assert aux["name"] == "layer" and aux["n"] == 3 and type(aux["n"]) is int
    np.testing.assert_allclose(aux["y"], np.sin(0.5), rtol=1e-6)
    np.testing.assert_allclose(g, 2 * np.cos(0.5), rtol=1e-6)


@pytest.mark.parametrize("kind", ["str", "obj", "dict"])
def test_jit_and_vmap_of_grad_reject_objects(kind):
    f = _with_aux(AUXES[kind])
    with pytest.raises(TypeError):
        astjax.jit(astjax.grad(f, has_aux=True))(1.0)
    with pytest.raises(TypeError):
        astjax.vmap(astjax.grad(f, has_aux=True))(jnp.arange(3.0))


def test_jit_and_vmap_of_grad_make_python_scalars_arrays():
    f = _with_aux(3)
    out = astjax.jit(astjax.grad(f, has_aux=True))(1.0)[1]
    assert isinstance(out, astjax.Array) and out.dtype == np.int32 and out.weak_type
    out = astjax.vmap(astjax.grad(f, has_aux=True))(jnp.arange(3.0))[1]
    np.testing.assert_array_equal(out, [3, 3, 3])


Pair = collections.namedtuple("Pair", "value aux")


def test_pairs_that_are_lists_or_namedtuples():
    assert astjax.grad(lambda x: [jnp.sin(x), "a"], has_aux=True)(1.0)[1] == "a"
    assert astjax.vjp(lambda x: Pair(jnp.sin(x), "s"), 1.0, has_aux=True)[2] == "s"
    assert astjax.jvp(lambda x: Pair(jnp.sin(x), "s"), (1.0,), (1.0,), has_aux=True)[2] == "s"


NOT_PAIRS = {"scalar": lambda x: jnp.sin(x), "triple": lambda x: (jnp.sin(x), 1, 2),
             "single": lambda x: (jnp.sin(x),)}
# JAX 0.10.2's error classes for an output that is not a pair
NOT_PAIR_ERRORS = {
    ("grad", "scalar"): TypeError, ("grad", "triple"): TypeError, ("grad", "single"): TypeError,
    ("vjp", "scalar"): TypeError, ("vjp", "triple"): TypeError, ("vjp", "single"): TypeError,
    ("linearize", "scalar"): TypeError, ("linearize", "triple"): TypeError,
    ("linearize", "single"): TypeError,
    ("jacrev", "scalar"): TypeError, ("jacrev", "triple"): TypeError,
    ("jacrev", "single"): TypeError,
    ("jvp", "scalar"): TypeError, ("jvp", "triple"): ValueError, ("jvp", "single"): ValueError,
    ("jacfwd", "scalar"): TypeError, ("jacfwd", "triple"): ValueError,
    ("jacfwd", "single"): ValueError,
}


@pytest.mark.parametrize("entry,kind", sorted(NOT_PAIR_ERRORS))
def test_output_that_is_not_a_pair(entry, kind):
    with pytest.raises(NOT_PAIR_ERRORS[entry, kind]) as info:
        ENTRIES[entry](NOT_PAIRS[kind])
    assert isinstance(info.value, astjax.errors.AstjaxError)
    if NOT_PAIR_ERRORS[entry, kind] is TypeError and entry not in ("jvp", "jacfwd"):
        assert "expected function with aux output to return a two-element tuple" in str(
            info.value)
