"""User names that start with `ag__` (the converted code's own prefix) do not break
staging (issue 12): parameters, locals, loop variables, closure variables, globals
and names equal to generated ones all keep their meaning."""
import astjax
import astjax.numpy as jnp

ag__ = 3.0
ag__scale = 10.0


def test_parameter_named_ag__():
    def f(ag__):
        return ag__ * 2
    assert float(astjax.jit(f)(2.0)) == 4.0


def test_local_and_loop_variable_named_ag__():
    def f(x):
        ag__ = x * 2
        for ag__i in range(3):
            ag__ = ag__ + ag__i
        return ag__
    assert float(astjax.jit(f)(1.0)) == 5.0


def test_local_named_ag__with_a_staged_if_and_return():
    def f(x):
        ag__retval = 1.0
        if x > 0:
            return x * ag__retval
        ag__do_return = -x
        return ag__do_return
    assert float(astjax.jit(f)(2.0)) == 2.0 and float(astjax.jit(f)(-2.0)) == 2.0


def test_globals_named_ag__are_read_live():
    global ag__scale

    def f(x):
        return x * ag__ + ag__scale
    assert float(astjax.jit(f)(2.0)) == 16.0
    ag__scale = 20.0
    try:
        assert float(astjax.jit(f)(1.0)) == 23.0
    finally:
        ag__scale = 10.0


def test_closure_variable_named_ag__():
    ag__k = jnp.float32(4.0)

    def f(x):
        return x * ag__k
    assert float(astjax.jit(f)(2.0)) == 8.0


def test_nested_function_named_like_a_generated_one():
    def f(x):
        def ag__fn_true_1(y):
            return y + 1
        if x > 0:
            x = ag__fn_true_1(x)
        return x
    assert float(astjax.jit(f)(1.0)) == 2.0 and float(astjax.grad(f)(1.0)) == 1.0
