"""Misuse at the API boundary (issue 12, part B): each error is the builtin class JAX
raises, an `AstjaxError` subclass, located at the user's line, with a hint."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import errors, lax

HERE = __file__


def _raises(cls, builtin, fn, *args, **kwargs):
    """Call fn; the error must be cls and builtin, located in this file, hinted."""
    with pytest.raises(cls) as info:
        fn(*args, **kwargs)
    e = info.value
    assert isinstance(e, builtin) and isinstance(e, errors.AstjaxError)
    assert e.loc is not None and e.loc.file == HERE, e.loc
    assert e.hint and "^" in str(e)
    return e


def one(x):
    return x * 2


def two(x, y):
    return x * y


# ---------------------------------------------------------------- signature binding


def test_jit_too_many_arguments_names_the_function():
    e = _raises(errors.ArityError, TypeError, astjax.jit(one), 1.0, 2.0)
    assert "one(x)" in e.message and "too many positional arguments" in e.message
    assert "ag__" not in str(e) and "<locals>" not in str(e)
    assert f"{HERE}:" in e.hint  # where `one` is defined


def test_jit_missing_and_unexpected_keyword_arguments():
    e = _raises(errors.ArityError, TypeError, astjax.jit(two), 1.0)
    assert "missing a required argument: 'y'" in e.message
    e = _raises(errors.ArityError, TypeError, astjax.jit(one), 1.0, z=2.0)
    assert "'z'" in e.message


def test_arity_is_checked_inside_jit_at_the_inner_call():
    inner = astjax.jit(one)

    def outer(x):
        return inner(x, x)

    with pytest.raises(errors.ArityError) as info:
        astjax.jit(outer)(1.0)
    assert info.value.loc.line == outer.__code__.co_firstlineno + 1


def test_grad_vmap_make_jaxpr_eval_shape_bind_the_signature():
    _raises(errors.ArityError, TypeError, astjax.grad(one), 1.0, 2.0)
    _raises(errors.ArityError, TypeError, astjax.value_and_grad(one), 1.0, y=2.0)
    _raises(errors.ArityError, TypeError, astjax.vmap(two), jnp.ones(3))
    _raises(errors.ArityError, TypeError, astjax.make_jaxpr(one), 1.0, 2.0)
    _raises(errors.ArityError, TypeError, astjax.eval_shape, one, 1.0, 2.0)


@pytest.mark.parametrize("call", [
    lambda: lax.fori_loop(0, 3, lambda c: c + 1.0, 0.0),
    lambda: lax.while_loop(lambda c, d: c < 3.0, lambda c: c + 1.0, 0.0),
    lambda: lax.while_loop(lambda c: c < 3.0, lambda: 1.0, 0.0),
    lambda: lax.cond(True, lambda x, y: x, lambda x: x, 1.0),
    lambda: lax.switch(1, [lambda x: x, lambda: 1.0], 2.0),
    lambda: lax.scan(lambda c: (c, c), 0.0, jnp.ones(3)),
    lambda: lax.map(lambda x, y: x, jnp.ones(3)),
], ids=["fori", "while_cond", "while_body", "cond", "switch", "scan", "map"])
def test_control_flow_bodies_of_the_wrong_arity(call):
    e = _raises(errors.ArityError, TypeError, call)
    assert "<lambda>" in e.message and "ag__" not in str(e)


def test_control_flow_functions_must_be_callable():
    _raises(errors.ArgumentTypeError, TypeError, lambda: lax.cond(True, 1.0, 2.0))
    _raises(errors.ArgumentTypeError, TypeError, lambda: lax.fori_loop(0, 3, 1.0, 0.0))
    _raises(errors.ArgumentTypeError, TypeError, lambda: astjax.jit(3))
    _raises(errors.ArgumentTypeError, TypeError, lambda: astjax.grad("f"))
    _raises(errors.ArgumentTypeError, TypeError, lambda: astjax.vmap(3))
    _raises(errors.ArgumentTypeError, TypeError, lambda: astjax.vmap(None))
    assert astjax.vmap(in_axes=1)(one)(jnp.ones((2, 3))).shape == (3, 2)


# ------------------------------------------- static_argnums / static_argnames / donate


@pytest.mark.parametrize("kw, text", [
    (dict(static_argnums=5), "static_argnums=(5,)"),
    (dict(static_argnums=-3), "static_argnums=(-3,)"),
    (dict(static_argnames="nope"), "['nope']"),
    (dict(static_argnames=("y", "nope")), "['nope']"),
    (dict(donate_argnums=5), "donate_argnums=(5,)"),
])
def test_bad_static_and_donate_arguments_are_value_errors_at_jit(kw, text):
    e = _raises(errors.ArgumentValueError, ValueError, lambda: astjax.jit(two, **kw))
    assert text in e.message and "two" in e.message


def test_static_argnums_must_be_ints():
    _raises(errors.ArgumentTypeError, TypeError, lambda: astjax.jit(two, static_argnums="y"))


def test_negative_static_argnums_count_from_the_end():
    def f(x, n):
        return jnp.zeros(n) + x
    assert astjax.jit(f, static_argnums=-1)(1.0, 2).shape == (2,)


def test_unhashable_static_argument_is_a_value_error():
    e = _raises(errors.ArgumentValueError, ValueError,
                astjax.jit(two, static_argnums=1), 1.0, [1, 2])
    assert "Non-hashable static arguments" in e.message and "list" in e.message


# ----------------------------------------------------------------- grad's own errors


@pytest.mark.parametrize("fn, args, text", [
    (lambda x: x * 2, (np.ones(3),), "Output had shape: (3,)"),
    (lambda x: (x, x), (1.0,), "scalar-output"),
    (lambda x: jnp.sum(x), (jnp.arange(3),), "real- or complex-valued inputs"),
    (lambda x: jnp.sum(x).astype(jnp.int32), (jnp.ones(3),), "grad requires real-valued outputs"),
])
def test_grad_errors_are_type_errors_with_hints(fn, args, text):
    e = _raises(errors.DifferentiationTypeError, TypeError, astjax.grad(fn), *args)
    assert text in e.message


def test_has_aux_without_a_pair():
    e = _raises(errors.DifferentiationTypeError, TypeError,
                astjax.grad(lambda x: x * 2, has_aux=True), 1.0)
    assert "two-element tuple" in e.message


def test_jacrev_of_integer_input():
    _raises(errors.DifferentiationTypeError, TypeError, astjax.jacrev(one), jnp.arange(3))


def test_grad_argnums_checks():
    _raises(errors.ArgumentTypeError, TypeError, astjax.grad(two, argnums=3), 1.0, 2.0)
    _raises(errors.ArgumentValueError, ValueError, astjax.grad(two, argnums=-3), 1.0, 2.0)
    _raises(errors.ArgumentTypeError, TypeError, astjax.grad(two, argnums=0.5), 1.0, 2.0)
    assert float(astjax.grad(two, argnums=-1)(3.0, 2.0)) == 3.0


def test_custom_rules_missing_are_attribute_errors():
    f = astjax.custom_jvp(one)
    _raises(errors.UndefinedRuleError, AttributeError, astjax.jvp, f, (1.0,), (1.0,))


# ------------------------------------------------------------------ vmap's classes


def test_vmap_misuse_classes_follow_jax():
    _raises(errors.ArgumentValueError, ValueError, astjax.vmap(two), jnp.ones(3), jnp.ones(4))
    _raises(errors.ArgumentValueError, ValueError, astjax.vmap(one, in_axes=(0, 0)), jnp.ones(3))
    _raises(errors.ArgumentValueError, ValueError, astjax.vmap(one), 1.0)
    _raises(errors.ArgumentValueError, ValueError, astjax.vmap(one, out_axes=2), jnp.ones(3))
    _raises(errors.ArgumentTypeError, TypeError, lambda: astjax.vmap(one, in_axes=0.5))


# ------------------------------------------------------------- compiled executables


def test_compiled_called_with_other_shapes_dtypes_or_structure():
    c = astjax.jit(one).lower(jnp.ones(3)).compile()
    assert c(jnp.ones(3)).tolist() == [2.0, 2.0, 2.0]
    e = _raises(errors.ArgumentTypeError, TypeError, c, jnp.ones(4))
    assert "f32[4]" in e.message and "f32[3]" in e.message
    _raises(errors.ArgumentTypeError, TypeError, c, jnp.ones(3, jnp.int32))
    _raises(errors.ArgumentTypeError, TypeError, c, jnp.ones(3), jnp.ones(3))


# ------------------------------------------------------------------------ eval_shape


def test_eval_shape_only_stages(monkeypatch):
    from astjax.codegen import runtime, stablehlo
    x = jnp.ones((2, 3))

    def forbidden(*a, **k):
        raise AssertionError("eval_shape lowered, compiled or put something on a device")
    monkeypatch.setattr(stablehlo, "lower_module", forbidden)
    monkeypatch.setattr(runtime, "device_put", forbidden)
    s = astjax.eval_shape(lambda x: x.sum(0) + np.ones(3, np.float32), x)
    assert s.shape == (3,) and s.dtype == np.float32


def test_eval_shape_inside_jit_and_on_a_closure():
    def f(x):
        a = astjax.eval_shape(lambda y: y * 2, x)
        b = astjax.eval_shape(lambda: jnp.stack([x, x]))
        return jnp.zeros(b.shape) + a.shape[0]
    assert astjax.jit(f)(jnp.ones(3)).tolist() == [[3.0] * 3] * 2


# ----------------------------------------- control flow: the former bare AstjaxErrors


@pytest.mark.parametrize("call, cls", [
    (lambda: lax.cond(True, lambda x: (x, x), lambda x: x, 1.0), errors.StructureError),
    (lambda: lax.switch(0, [lambda x: x, lambda x: [x]], 1.0), errors.StructureError),
    (lambda: lax.while_loop(lambda c: c[0] < 3, lambda c: c[0] + 1, (0, 0)),
     errors.LoopCarryError),   # (JAX's carry message: tests/test_carry_messages.py)
    (lambda: lax.scan(lambda c, x: c + x, 0.0, jnp.ones(3)), errors.StructureError),
    (lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1, jnp.zeros(2)), errors.JAXTypeError),
    (lambda: lax.while_loop(lambda c: c, lambda c: c - 1.0, 3.0), errors.JAXTypeError),
])
def test_control_flow_structure_errors_are_type_errors_with_hints(call, cls):
    _raises(cls, TypeError, call)


def _branches_differ(x):
    if x.sum() > 0:
        y = (x, x)
    else:
        y = x
    return y


def test_python_if_branches_of_different_structure():
    with pytest.raises(errors.StructureError) as info:
        astjax.jit(_branches_differ)(jnp.ones(2))
    assert isinstance(info.value, TypeError) and info.value.hint
    assert "different structure" in info.value.message


def test_jvp_of_custom_vjp_is_a_type_error():
    f = astjax.custom_vjp(one)
    f.defvjp(lambda x: (one(x), None), lambda r, g: (g * 2,))
    with pytest.raises(errors.DifferentiationTypeError) as info:
        astjax.jvp(f, (1.0,), (1.0,))
    assert isinstance(info.value, TypeError) and info.value.hint


def test_no_bare_astjax_error_is_raised_anywhere():
    import pathlib
    import re
    root = pathlib.Path(errors.__file__).parent.parent
    bare = [f"{p}:{i}" for d in ("astjax", "transforms", "codegen")
            for p in (root / d).rglob("*.py")
            for i, line in enumerate(p.read_text().splitlines(), 1)
            if re.search(r"raise AstjaxError\(", line)]
    assert not bare, bare


def test_every_argument_error_is_also_a_builtin_class():
    """`raise ArgumentError(` (neither TypeError nor ValueError) is gone: each site
    raises the subclass whose builtin JAX raises for the same misuse."""
    import pathlib
    import re
    root = pathlib.Path(errors.__file__).parent.parent
    plain = [f"{p}:{i}" for d in ("astjax", "transforms", "codegen")
             for p in (root / d).rglob("*.py")
             for i, line in enumerate(p.read_text().splitlines(), 1)
             if re.search(r"raise ArgumentError\(", line)]
    assert not plain, plain
    for cls in (errors.ArgumentTypeError, errors.ArgumentValueError, errors.ArgumentIndexError,
                errors.UnknownOptionError):
        assert issubclass(cls, errors.ArgumentError) and cls.default_hint


def test_unknown_config_option_is_an_attribute_error():
    with pytest.raises(AttributeError):
        astjax.config.update("jax_no_such_option", 1)


# ------------------------------------------ scan lengths, switch index, jvp/vjp, devices


@pytest.mark.parametrize("call, text", [
    (lambda: lax.scan(lambda c, x: (c, x), 0.0, jnp.ones(3), length=5), "length=5"),
    (lambda: lax.scan(lambda c, x: (c, x), 0.0, None), "no values to scan over"),
    (lambda: lax.scan(lambda c, x: (c, x), 0.0, (jnp.ones(3), jnp.ones(4))), "3, 4"),
    (lambda: lax.scan(lambda c, x: (c, x), 0.0, 1.0), "no leading axis"),
])
def test_scan_lengths_are_value_errors(call, text):
    assert text in _raises(errors.ArgumentValueError, ValueError, call).message


def test_scan_with_length_only_still_runs():
    c, ys = lax.scan(lambda c, x: (c + 1.0, c), 0.0, None, length=3)
    assert float(c) == 3.0 and ys.tolist() == [0.0, 1.0, 2.0]


def test_switch_index_must_be_an_integer():
    _raises(errors.ArgumentTypeError, TypeError,
            lambda: lax.switch(1.5, [lambda x: x, lambda x: x], 1.0))
    _raises(errors.ArgumentValueError, ValueError, lambda: lax.switch(0, [], 1.0))


def test_jvp_and_vjp_argument_errors():
    _raises(errors.ArgumentTypeError, TypeError, astjax.jvp, one, jnp.ones(3), jnp.ones(3))
    _raises(errors.ArgumentValueError, ValueError, astjax.jvp, one, (jnp.ones(3),),
            (jnp.ones(2),))
    _raises(errors.ArgumentTypeError, TypeError, astjax.jvp, one, (jnp.ones(3),),
            (jnp.ones(3), jnp.ones(3)))
    _, pullback = astjax.vjp(one, jnp.ones(3))
    _raises(errors.ArgumentValueError, ValueError, pullback, jnp.ones(2))


def test_grad_of_a_list_output_is_an_error():
    e = _raises(errors.DifferentiationTypeError, TypeError, astjax.grad(lambda x: [x]), 1.0)
    assert "scalar-output" in e.message


def test_device_put_rejects_what_is_not_a_device():
    _raises(errors.ArgumentValueError, ValueError, astjax.device_put, jnp.ones(2), "cpu:7")
    assert astjax.device_put(jnp.ones(2), astjax.devices()[0]).shape == (2,)


def _g(x):
    return x + 1


def _calls_g_badly(x):
    return _g(x, x)


def _raises_its_own_type_error(x):
    raise TypeError("mine")


def _calls_it(x):
    return _raises_its_own_type_error(x)


def test_a_user_call_of_the_wrong_arity_inside_jit_is_located():
    with pytest.raises(errors.ArityError) as info:
        astjax.jit(_calls_g_badly)(1.0)
    e = info.value
    assert isinstance(e, TypeError) and "_g(x)" in e.message and "ag__" not in str(e)
    assert e.loc.file == HERE and e.loc.line == _calls_g_badly.__code__.co_firstlineno + 1


def test_a_type_error_raised_inside_the_callee_is_not_an_arity_error():
    with pytest.raises(TypeError, match="mine") as info:
        astjax.jit(_calls_it)(1.0)
    assert not isinstance(info.value, errors.ArityError)


# ------------------------------------------------ lax wrappers that take shapes or axes


@pytest.mark.parametrize("call, cls, builtin", [
    (lambda: lax.transpose(jnp.ones((2, 3)), (0,)), errors.ShapeError, TypeError),
    (lambda: lax.expand_dims(jnp.ones(3), (4,)), errors.ArgumentValueError, ValueError),
    (lambda: lax.integer_pow(jnp.ones(3), 2.5), errors.ArgumentTypeError, TypeError),
    (lambda: lax.iota(jnp.int32, 2.5), errors.ShapeError, TypeError),
    (lambda: lax.broadcast(jnp.ones(3), (-1,)), errors.ShapeError, TypeError),
    (lambda: lax.full((2, -3), 1.0), errors.ShapeError, TypeError),
    (lambda: jnp.zeros((2, -1)), errors.ShapeError, TypeError),
    (lambda: lax.broadcast_in_dim(jnp.ones(3), (3,), (0, 1)), errors.ShapeError, TypeError),
    (lambda: lax.pad(jnp.ones(3), 0.0, [(1, 1, -1)]), errors.ArgumentValueError, ValueError),
    (lambda: lax.pad(jnp.ones(3), 0.0, [(1, 1, 0)] * 2), errors.ArgumentValueError, ValueError),
])
def test_lax_shape_arguments_are_validated(call, cls, builtin):
    _raises(cls, builtin, call)


def test_lax_shape_wrappers_still_compute():
    assert lax.transpose(jnp.ones((2, 3)), (1, 0)).shape == (3, 2)
    assert lax.expand_dims(jnp.ones(3), (-1,)).shape == (3, 1)
    assert float(lax.integer_pow(jnp.float32(3.0), np.int64(2))) == 9.0
    assert lax.iota(jnp.int32, np.int32(3)).tolist() == [0, 1, 2]
    assert lax.full((2,), 1.0).tolist() == [1.0, 1.0]
    assert lax.pad(jnp.ones(2), 0.0, [(1, -1, 1)]).tolist() == [0.0, 1.0, 0.0]


def test_reduction_axes_are_checked():
    _raises(errors.AxisError, ValueError, lambda: jnp.sum(jnp.ones((2, 3)), axis=(0, 0)))
    _raises(errors.ArgumentValueError, ValueError, lambda: lax.reduce_sum(jnp.ones((2, 3)), (2,)))
    assert lax.reduce_max(jnp.arange(6.0).reshape(2, 3), (-1,)).tolist() == [2.0, 5.0]


def test_stop_gradient_convert_and_dynamic_index_arguments():
    _raises(errors.ArgumentTypeError, TypeError, lambda: lax.stop_gradient("a"))
    _raises(errors.ArgumentTypeError, TypeError,
            lambda: lax.convert_element_type(jnp.ones(3), "notadtype"))
    _raises(errors.ArgumentIndexError, IndexError,
            lambda: lax.dynamic_index_in_dim(jnp.ones(3), 0, axis=2))
    assert lax.dynamic_index_in_dim(jnp.arange(6.0).reshape(2, 3), 1, axis=-1).shape == (2, 1)


def test_cond_legacy_operand_keyword_still_works():
    assert float(lax.cond(True, lambda x: x + 1.0, lambda x: x, operand=1.0)) == 2.0
    _raises(errors.ArityError, TypeError, lambda: lax.cond(True, lambda: 1.0, lambda: 0.0,
                                                            operand=1.0))
