"""Findings of the program fuzzer's fresh seeds (constructs, constructs2/3/4, closures,
global, plain) and of the bad-input corpus's eighteenth-session cases, each pinned with
plain Python's (so JAX's) answer or error class written out: no JAX needed to run them."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


def _del_in_loop(x):
    for i in range(3):
        t = x * i
        del t
    return t  # noqa: F821 -- unbound: deleted in every trip


def _del_in_staged_if(x):
    t = x
    if jnp.sum(x) > 0:
        del t
    return t


def _only_in_branch(x):
    if jnp.sum(x) > 0:
        t = x
    return t  # noqa: F821 -- unbound where the test is false


def _global_in_staged_if(x):
    if jnp.sum(x) > 0:
        x = x + NOT_A_GLOBAL  # noqa: F821
    return x


@pytest.mark.parametrize("fn", [_del_in_loop, _del_in_staged_if, _only_in_branch])
def test_unbound_local_is_unbound_local_error(fn):
    # plain Python (and so JAX, which runs the function as Python) raises
    # UnboundLocalError for a local read where no assignment reaches it
    with pytest.raises(UnboundLocalError) as e:
        astjax.jit(fn)(np.ones(3, np.float32))
    assert isinstance(e.value, AstjaxError) and "test_fuzz_findings7.py" in str(e.value)


def test_undefined_global_stays_a_plain_name_error():
    # a global nothing defines is Python's NameError, not UnboundLocalError
    with pytest.raises(NameError) as e:
        astjax.jit(_global_in_staged_if)(np.ones(3, np.float32))
    assert isinstance(e.value, AstjaxError) and not isinstance(e.value, UnboundLocalError)


def _sum_axs(x):
    return jnp.sum(x, axs=0)


def _norm_axes(x):
    return jnp.linalg.norm(x, axes=0)


def _method_sum_axs(x):
    return x.sum(axs=0)


@pytest.mark.parametrize("fn, said", [(_sum_axs, "sum() got an unexpected keyword argument 'axs'"),
                                      (_norm_axes, "norm() got an unexpected keyword argument"),
                                      (_method_sum_axs, "sum() got an unexpected keyword")])
def test_wrong_keyword_to_a_library_function_is_located(fn, said):
    # JAX: Python's TypeError, raised at the user's call while tracing
    with pytest.raises(TypeError) as e:
        astjax.jit(fn)(np.ones(3, np.float32))
    assert isinstance(e.value, AstjaxError) and said in e.value.message
    assert e.value.loc.file == __file__ and "its signature is" in e.value.hint


def test_dynamic_update_slice_index_count_is_checked_first():
    # JAX's wrapper counts the start indices before the shape rule: a ValueError
    with pytest.raises(ValueError, match="one start index per axis"):
        astjax.jit(lambda x: astjax.lax.dynamic_update_slice(x, jnp.ones((1, 1)), (0,)))(
            np.ones((3, 3), np.float32))


def test_constructs4_is_off_by_default():
    # a family on by default would change every documented seed range's programs
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from fuzz.gen import DEFAULT_OFF, generate
    from fuzz.gen_constructs4 import CONSTRUCTS4
    assert set(CONSTRUCTS4) <= set(DEFAULT_OFF)
    assert not any(generate(seed).uses_constructs4 for seed in range(40))
    assert any(generate(seed, enabled=CONSTRUCTS4).uses_constructs4 for seed in range(40))


def _lambdas_made_in_a_loop(x):
    fs = []
    for i in range(2):
        fs.append(lambda u: u * 0.5 + i * 0.2)   # late-bound: every lambda reads the last i
    for h in fs:
        x = jnp.sin(h(x))
    return x


def _lambdas_in_a_list_display(x):
    fs = []
    for i in range(3):
        fs = fs + [lambda u: u + i]
    return fs[0](x)


@pytest.mark.parametrize("fn", [_lambdas_made_in_a_loop, _lambdas_in_a_list_display])
def test_lambda_not_bound_to_a_name_reads_the_loop_variable_late(fn):
    # fuzz seed 9500101 (constructs4): a lambda stored in a container, not bound to a
    # name, saw the loop variable of its own trip instead of its last value
    x = np.array([0.3, -0.2, 0.5])
    np.testing.assert_allclose(astjax.jit(fn)(x), fn(x), rtol=1e-6)
