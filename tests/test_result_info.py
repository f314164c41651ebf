"""`jit(f).lower(...).as_text()` names each result as JAX 0.10.2 does: a
`jax.result_info` attribute holding `result` and the leaf's key path. The expected
signature lines were printed by JAX 0.10.2 for the same functions."""
import collections
import dataclasses

import pytest

import astjax
import astjax.numpy as jnp
from astjax.codegen import stablehlo

NT = collections.namedtuple("NT", "a b")


@astjax.tree_util.register_dataclass
@dataclasses.dataclass
class D:
    u: astjax.Array
    v: astjax.Array


class C:
    def __init__(self, a):
        self.a = a


astjax.tree_util.register_pytree_node(C, lambda c: ((c.a,), None), lambda _, ch: C(*ch))

X = "tensor<2x3xf32>"


def _one(x):
    return x * 2


def _nested(x, y):
    return (x * 2, {"a": y, "b": [x, 1.0]})


def _namedtuple(x):
    return NT(x, (x, None))


def _quoted_keys(x):
    return {'a"b\\c': x, "é\n": x}


def _dataclass(x):
    return D(x, x)


def _custom(x):
    return C(x)


def _nothing(x):
    return ()


def _sum(x):
    return x.sum()


# (function, extra args, JAX 0.10.2's result types with attributes)
CASES = {
    "single": (_one, (), f'{X} {{jax.result_info = "result"}}'),
    "nested": (_nested, (3.0,), f'{X} {{jax.result_info = "result[0]"}}, tensor<f32> '
               f'{{jax.result_info = "result[1][\'a\']"}}, {X} {{jax.result_info = '
               f'"result[1][\'b\'][0]"}}, tensor<f32> {{jax.result_info = "result[1][\'b\'][1]"}}'),
    "namedtuple": (_namedtuple, (), f'{X} {{jax.result_info = "result.a"}}, {X} '
                   f'{{jax.result_info = "result.b[0]"}}'),
    "escaped": (_quoted_keys, (), f'{X} {{jax.result_info = "result[\'a\\22b\\\\\\\\c\']"}}, '
                f'{X} {{jax.result_info = "result[\'\\C3\\A9\\\\n\']"}}'),
    "dataclass": (_dataclass, (), f'{X} {{jax.result_info = "result.u"}}, {X} '
                  f'{{jax.result_info = "result.v"}}'),
    "custom_node": (_custom, (), f'{X} {{jax.result_info = "result[0]"}}'),
    "grad": (astjax.grad(_sum), (), f'{X} {{jax.result_info = "result"}}'),
    "value_and_grad": (astjax.value_and_grad(_sum), (), f'tensor<f32> {{jax.result_info = '
                       f'"result[0]"}}, {X} {{jax.result_info = "result[1]"}}'),
}


def _results(text):
    line = next(ln for ln in text.splitlines() if "func.func public @main" in ln)
    return line.split(") -> (", 1)[1].rsplit(") {", 1)[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_result_info_as_jax(name):
    fn, extra, want = CASES[name]
    text = astjax.jit(fn).lower(jnp.ones((2, 3)), *extra).as_text()
    assert _results(text) == want


def test_no_results_has_no_arrow():
    """JAX prints `@main(...) {` for a function without results."""
    text = astjax.jit(_nothing).lower(jnp.ones((2, 3))).as_text()
    line = next(ln for ln in text.splitlines() if "func.func public @main" in ln)
    assert "->" not in line and line.endswith(") {")


def test_compiles_and_runs_with_names():
    out = astjax.jit(_nested)(jnp.ones((2, 3)), 3.0)
    assert float(out[1]["a"]) == 3.0


def test_mlir_string_escapes_as_mlir():
    assert stablehlo.mlir_string('a"\\é\n') == 'a\\22\\\\\\C3\\A9\\0A'
