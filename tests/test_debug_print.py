"""`jax.debug.print` / `log` bind `debug_print` as JAX 0.10.2 does (its printed params:
tests/test_jit_call.py's `effects` case, recorded from JAX): what it writes eagerly,
under jit, vmap (one print per example, unrolled) and grad (the primal values), the
NumPy print options of the call, static (non-array) arguments, and JAX's ValueError
for unused format arguments."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


def _show(x):
    astjax.debug.print("x={x} tag={t}", x=x, t="s")
    return x * 2


def _lines(capsys):
    astjax.effects_barrier()
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("run,want", [
    (lambda: _show(np.float32(1.5)), ["x=1.5 tag=s"]),
    (lambda: astjax.jit(_show)(1.5), ["x=1.5 tag=s"]),
    (lambda: astjax.grad(_show)(1.5), ["x=1.5 tag=s"]),
    (lambda: astjax.vmap(_show)(jnp.arange(2.0)), ["x=0.0 tag=s", "x=1.0 tag=s"]),
])
def test_printed(capsys, run, want):
    run()
    assert sorted(_lines(capsys)) == want


def _third(x):
    astjax.debug.print("{}", x)


def test_print_options_of_the_call(capsys):
    with np.printoptions(precision=2):
        astjax.jit(_third)(np.array([1 / 3], np.float32))
    assert _lines(capsys) == ["[0.33]"]


@pytest.mark.xfail(strict=True, reason=(
    "astjax's vmap of an unordered debug_print is one sequential debug_callback over the "
    "batch (primitives/debug_print.py `_batch`; an ordered one is unrolled as JAX's: "
    "test_vmap_of_ordered_print_unrolls). The order of unordered prints is all it "
    "decides, and JAX leaves it unspecified: measured on a vmapped cond printing in both "
    "branches, JAX's eager vmap prints each branch's lanes in turn and its jitted vmap "
    "interleaves them per lane (XLA's schedule of the unrolled calls); astjax runs both "
    "as one program, so unrolled it would interleave in both and one call groups in both "
    "(tests/bad_inputs/ok_vmap_cond_debug_print_lanes.py pins the eager order). Ordered "
    "prints (tokens) come in the same order in all four."))
def test_vmap_unrolls_one_equation_per_example():
    closed = astjax.make_jaxpr(astjax.vmap(_third))(jnp.ones(3))
    assert [e.primitive.name for e in closed.jaxpr.eqns].count("debug_print") == 3


def _third_ordered(x):
    astjax.debug.print("{}", x, ordered=True)


def test_vmap_of_ordered_print_unrolls(capsys):
    """JAX's batching: one ordered print per example, chained by the effect's token."""
    closed = astjax.make_jaxpr(astjax.vmap(_third_ordered))(jnp.ones(3))
    assert [e.primitive.name for e in closed.jaxpr.eqns].count("debug_print") == 3
    astjax.jit(astjax.vmap(_third_ordered))(jnp.arange(3.0))
    assert _lines(capsys) == ["0.0", "1.0", "2.0"]


def _unused(x):
    astjax.debug.print("no fields", x)


def test_unused_argument_is_jax_value_error():
    with pytest.raises(ValueError, match="Unused positional arguments") as info:
        astjax.jit(_unused)(1.0)
    assert isinstance(info.value, AstjaxError)
    assert "test_debug_print.py" in str(info.value).splitlines()[0]
