"""Located errors and warnings of the control-flow conversion."""
import warnings

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import (AstjaxError, ConcretizationError, LoopCarryError,
                           NonConcreteBooleanIndexError, SideEffectWarning,
                           UndefinedVariableError)

HERE = __file__


def line_of(fn, text):
    """The file line number of the first line of `fn` containing `text`."""
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, l in enumerate(lines) if text in l)


def assigned_in_one_branch(x):
    if x > 0:
        y = x * 2.0
    return y


def test_undefined_variable_names_both_lines():
    with pytest.raises(UndefinedVariableError) as e:
        astjax.jit(assigned_in_one_branch)(1.0)
    msg = str(e.value)
    f = assigned_in_one_branch
    assert "'y'" in msg and f"line {line_of(f, 'y = x')}" in msg
    assert f"line {line_of(f, 'return y')}" in msg
    assert f"{HERE}:{line_of(f, 'if x > 0')}" in msg   # the if, with its line and a caret
    assert "if x > 0:" in msg and "^" in msg


def grows(x, n):
    for i in range(n):
        x = jnp.concatenate([x, x])
    return x


def test_loop_carry_error_names_variable_and_types():
    with pytest.raises(LoopCarryError) as e:
        astjax.jit(grows)(np.ones(2, np.float32), np.int32(3))
    msg = str(e.value)
    assert "'x'" in msg and "f32[2]" in msg and "f32[4]" in msg
    assert HERE in msg


def get_negatives(x):
    return x[x < 0]


def test_boolean_mask_index():
    with pytest.raises(NonConcreteBooleanIndexError) as e:
        astjax.jit(get_negatives)(np.array([1.0, -2.0], np.float32))
    msg = str(e.value)
    assert "jnp.where" in msg and f"{HERE}:{line_of(get_negatives, 'x[x < 0]')}" in msg and "x[x < 0]" in msg


def int_of_staged(x):
    return x * int(x)


def test_int_of_staged_value():
    with pytest.raises(ConcretizationError) as e:
        astjax.jit(int_of_staged)(1.0)
    assert f"{HERE}:{line_of(int_of_staged, 'int(x)')}" in str(e.value) and "int(x)" in str(e.value)


def staged_shape(x, n):
    return jnp.zeros(n) + x


def test_staged_shape():
    with pytest.raises(ConcretizationError) as e:
        astjax.jit(staged_shape)(1.0, np.int32(3))
    assert f"{HERE}:{line_of(staged_shape, 'zeros')}" in str(e.value)


def rec(x, n):
    return x if n <= 0 else rec(x * 2.0, n - 1)


def test_staged_recursion_depth():
    with pytest.raises(ConcretizationError) as e:
        astjax.jit(rec)(1.0, np.int32(3))
    assert "recurs" in str(e.value)
    # static depth is fine
    assert float(astjax.jit(rec, static_argnums=1)(1.0, 3)) == 8.0


global_list = []


def log2(x):
    global_list.append(x)
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2


def test_side_effect_warning_and_seeds_jaxpr():
    with pytest.warns(SideEffectWarning) as w:
        j = astjax.make_jaxpr(log2)(3.0)
    assert any(f"{HERE}" in str(r.message) and "global_list.append" in str(r.message) for r in w)
    assert str(j) == ("{ lambda ; a:f32[]. let\n    b:f32[] = log a\n    c:f32[] = log 2.0:f32[]\n"
                      "    d:f32[] = div b c\n  in (d,) }")


def branches_disagree(x):
    if x > 0:
        y = x
    else:
        y = jnp.ones(3)
    return y


def test_branch_types_disagree():
    with pytest.raises(AstjaxError) as e:
        astjax.jit(branches_disagree)(1.0)
    assert "'y'" in str(e.value) and "f32[3]" in str(e.value)


def array_test(x):
    if x > 0:
        return x
    return -x


def test_array_condition_is_error():
    with pytest.raises(ValueError) as e:  # the truth value of an array is ambiguous, as JAX
        astjax.jit(array_test)(np.ones(3, np.float32))
    assert isinstance(e.value, AstjaxError) and "jnp.any" in str(e.value)
    with pytest.raises(ConcretizationError) as e:  # one element: a staged value, not ambiguous
        astjax.jit(array_test)(np.ones(1, np.float32))


def local_only_in_branch(x):
    if x > 0:
        t = x + 1.0
        x = t * 2.0
    return x


def test_variable_local_to_branch_is_fine():
    assert float(astjax.jit(local_only_in_branch)(1.0)) == 4.0


def test_print_of_staged_value_prints_abstract_value(capsys):
    def f(x):
        print("x is", x)
        return x * 2
    astjax.jit(f)(np.ones(2, np.float32))
    assert "JitTracer(float32[2])" in capsys.readouterr().out


def sorts(x):
    return jnp.sort(x)


def test_module_functions_named_like_mutators_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", SideEffectWarning)
        astjax.make_jaxpr(sorts)(np.ones(3, np.float32))
