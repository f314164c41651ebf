"""docs/api.md is generated from the code (docs/gen_api.py) and must stay in sync;
astjax.numpy implements at least 200 of jax.numpy's names."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "docs"))
import gen_api  # noqa: E402


def test_api_md_in_sync():
    with open(gen_api.OUT) as f:
        assert f.read() == gen_api.render(), "docs/api.md is stale: run python docs/gen_api.py"


def test_at_least_200_numpy_names():
    rows = gen_api.coverage()["jax.numpy"]
    assert sum(ok for _, _, ok in rows) >= 200
    assert sum(ok for _, k, ok in rows if k == "f") >= 200


@pytest.mark.parametrize("module", ["astjax.numpy", "astjax.numpy.linalg", "astjax.nn",
                                    "astjax.random", "astjax.scipy.special"])
def test_missing_names_raise_not_implemented(module):
    import importlib
    from astjax.errors import NotImplementedInAstjaxError
    mod = importlib.import_module(module)
    jax_mod = {v: k for k, v in gen_api._ASTJAX.items()}[module]
    missing = [n for n, _, ok in gen_api.coverage()[jax_mod] if not ok]
    for name in missing[:5]:
        with pytest.raises(NotImplementedInAstjaxError):
            getattr(mod, name)


# Names implemented per module, counted as docs/gen_reference.py counts them (issue 13,
# item 13): the figures reached; a module may gain names, never lose them.
COVERAGE_FLOOR = {"jax": 133, "jax.lax": 371, "jax.tree_util": 36, "jax.tree": 14,
                  "jax.debug": 9, "jax.errors": 12, "jax.scipy.stats": 30, "jax.image": 3,
                  "jax.dlpack": 2, "jax.ops": 4, "jax.monitoring": 13, "jax.api_util": 9,
                  "jax.custom_batching": 2, "jax.custom_derivatives": 12,
                  "jax.sharding": 17, "jax.extend": 9, "jax.interpreters": 7,
                  "jax.ad_checkpoint": 6, "jax.export": 13, "jax.profiler": 15}

# The modules issue 13 asks to be >= 90% covered (item 13): all of them.
AT_LEAST_90 = ["jax", "jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.lax",
               "jax.lax.linalg", "jax.random", "jax.nn", "jax.nn.initializers",
               "jax.scipy.special", "jax.scipy.linalg", "jax.scipy.stats", "jax.scipy.signal",
               "jax.scipy.fft", "jax.scipy.sparse.linalg", "jax.scipy.optimize",
               "jax.scipy.integrate", "jax.scipy.interpolate", "jax.scipy.ndimage",
               "jax.scipy.cluster.vq", "jax.scipy.spatial.transform", "jax.tree_util",
               "jax.tree", "jax.dtypes", "jax.errors", "jax.debug", "jax.test_util",
               "jax.flatten_util", "jax.typing", "jax.image", "jax.dlpack",
               "jax.ad_checkpoint", "jax.profiler", "jax.export"]


@pytest.mark.parametrize("module", sorted(COVERAGE_FLOOR))
def test_module_coverage_does_not_drop(module):
    import gen_reference
    names = gen_reference.jax_names()[module]
    have, _missing, _extra = gen_reference.coverage(module, names)
    assert len(have) >= COVERAGE_FLOOR[module], (module, len(have), len(names))


@pytest.mark.parametrize("module", AT_LEAST_90)
def test_module_coverage_at_least_90_percent(module):
    import gen_reference
    names = gen_reference.jax_names()[module]
    have, missing, _extra = gen_reference.coverage(module, names)
    assert len(have) >= 0.9 * len(names), (module, f"{len(have)}/{len(names)}", sorted(missing))
