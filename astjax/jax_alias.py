"""Run code written against `jax` on astjax: `import jax` means astjax.

`install_as_jax()` (first line of a program) or `python -m astjax run SCRIPT`
puts a finder at the front of `sys.meta_path` that serves every `jax` and `jax.X.Y`
module from astjax, so programs and the libraries they import (optax, flax,
equinox, chex, ...) run unchanged on astjax. The rules, in order:

1. a compatibility module shipped in astjax (`astjax.compat.<X.Y>`, when it exists:
   names JAX has and astjax's public modules do not, e.g. `jax.version`);
2. the astjax module of the same public name (`jax.numpy` -> `astjax.numpy`,
   `jax.scipy.special` -> `astjax.scipy.special`, ...), from `PUBLIC_MODULES`, or of
   another name (`_RENAMED`: `jax.lax.linalg` -> `astjax.lax_linalg`);
3. otherwise `ModuleNotFoundError` -- never the real `jax` distribution, which pip
   installs beside the libraries that depend on it: no module of it is ever imported
   in a process where the alias is installed.

`jax` itself is a module of its own holding astjax's public names, so that
`jax.__version__` reports the JAX API level astjax implements (`JAX_API_VERSION`)
while `astjax.__version__` stays astjax's. Library code served this way is run on
staged values as JAX runs it on tracers; it is not source-converted (see
`frontend/operators.py`).
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types

from .compat import _compile_log

__all__ = ["install_as_jax", "uninstall", "ASTJAX_ONLY", "JAX_API_VERSION", "PUBLIC_MODULES"]

JAX_API_VERSION = "0.10.2"

# astjax's public names JAX has not (DESIGN.md's own API): `import astjax` has them,
# `import jax` does not, so a program probing `hasattr(jax, name)` sees JAX's namespace.
ASTJAX_ONLY = frozenset({"AstjaxError", "function", "install_as_jax", "source",
                         "source_function", "unroll"})

# jax.<name> -> astjax.<name>: the public modules astjax provides under JAX's names.
PUBLIC_MODULES = ("numpy", "numpy.linalg", "lax", "random", "nn", "nn.initializers",
                  "scipy", "scipy.special", "scipy.linalg", "tree_util", "tree", "typing",
                  "test_util", "flatten_util", "errors", "dtypes", "scipy.stats",
                  "sharding", "stages", "debug", "ffi", "example_libraries",
                  "example_libraries.stax", "example_libraries.optimizers", "extend", "extend.core", "extend.linear_util", "extend.source_info_util",
                  "extend.backend", "extend.lowering", "extend.mlir", "extend.mlir.ir",
                  "extend.random", "extend.xla",
                  "extend.mlir.passmanager", "extend.mlir.dialects", "interpreters", "interpreters.xla",
                  "interpreters.ad", "interpreters.batching", "interpreters.mlir",
                  "interpreters.partial_eval", "scipy.sparse", "scipy.sparse.linalg",
                  "scipy.optimize", "scipy.integrate", "scipy.interpolate", "scipy.ndimage",
                  "scipy.fft", "scipy.signal", "scipy.cluster", "scipy.cluster.vq",
                  "scipy.spatial", "scipy.spatial.transform", "image", "ops", "monitoring",
                  "api_util", "custom_batching", "export", "profiler", "ref",
                  "extend.sharding", "interpreters.pxla") + tuple(
    f"scipy.stats.{d}" for d in (
        "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon",
        "gamma", "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace", "logistic",
        "multinomial", "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "t",
        "uniform", "vonmises", "wrapcauchy"))

# jax.<name> -> the astjax module of another name serving it (`jax.lax.linalg` is
# `astjax.lax.linalg`, an attribute of the module `astjax.lax`, not a submodule)
_RENAMED = {"lax.linalg": "astjax.lax_linalg",
            "extend.core.primitives": "astjax.extend.core_primitives"}


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves `jax` and `jax.*` from astjax (see the module docstring)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "jax" and not fullname.startswith("jax."):
            return None
        target = _target_name(fullname)
        if target is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: astjax serves `jax` (install_as_jax) and "
                "has no counterpart of this module; see docs/api.md", name=fullname)
        return importlib.util.spec_from_loader(fullname, self, origin=target,
                                               is_package=True)

    def create_module(self, spec):
        return _jax_module() if spec.name == "jax" else None

    def exec_module(self, module):
        # `jax.X` *is* the astjax module: the import system returns whatever the
        # loader leaves in sys.modules, so astjax's module keeps its own spec.
        if module.__name__ != "jax":
            sys.modules[module.__name__] = importlib.import_module(module.__spec__.origin)


def _target_name(fullname):
    """The astjax module serving `fullname`, or None."""
    if fullname == "jax":
        return "astjax"
    sub = fullname[len("jax."):]
    compat = f"astjax.compat.{sub}"
    try:  # find_spec imports the parents, which may themselves be missing
        if importlib.util.find_spec(compat) is not None:
            return compat
    except ModuleNotFoundError:
        pass
    if sub in PUBLIC_MODULES:
        return f"astjax.{sub}"
    return _RENAMED.get(sub)


def _jax_module():
    """A module object for `jax`: astjax's public names, JAX's version."""
    mod = types.ModuleType("jax", "astjax serving the `jax` namespace (astjax.jax_alias)")
    astjax = sys.modules["astjax"]  # this module is imported by astjax itself
    for name in astjax.__all__:
        value = getattr(astjax, name)
        if name in ASTJAX_ONLY or (isinstance(value, types.ModuleType) and
                                   _target_name(f"jax.{name}") != value.__name__ and
                                   importlib.util.find_spec(f"astjax.compat.{name}")):
            continue   # (a compat module serves `jax.core` & co.: `_submodule_attribute`)
        setattr(mod, name, value)
    mod.log_compiles = _compile_log.log_compiles  # (astjax has no `log_compiles` of its own)
    mod.dtypes = importlib.import_module("astjax.compat.dtypes")  # (JAX's bfloat16 type)
    mod.__version__ = JAX_API_VERSION
    mod.__version_info__ = tuple(int(p) for p in JAX_API_VERSION.split("."))
    mod.__path__ = []  # a package: `import jax.numpy` goes through the finder
    mod.__getattr__ = _submodule_attribute
    return mod


def _submodule_attribute(name):
    """`jax.<name>` read as an attribute before anything imported it (`jax._src`,
    which JAX's own `import jax` imports): the module the finder serves for it."""
    if not name.startswith("__") and _target_name(f"jax.{name}") is not None:
        return importlib.import_module(f"jax.{name}")
    raise AttributeError(f"module 'jax' has no attribute {name!r}")


_finder = _AliasFinder()


def install_as_jax():
    """Make `import jax` (and every `jax.X`) import astjax from now on in this
    process. Call it before anything imports `jax`; raises RuntimeError if the real
    `jax` was already imported."""
    real = [m for m in sys.modules
            if (m == "jax" or m.startswith("jax.")) and not _served(m)]
    if real:
        raise RuntimeError(
            f"the real `jax` is already imported ({real[0]}): call "
            "astjax.install_as_jax() before anything imports jax")
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def uninstall():
    """Undo `install_as_jax` (for tests): drop the finder and the `jax` modules it made."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [m for m in sys.modules if m == "jax" or m.startswith("jax.")]:
        if _served(name):
            del sys.modules[name]


def _served(name):
    """Whether sys.modules[name] came from the alias (the `jax` module it made, or an
    astjax module)."""
    mod = sys.modules[name]
    return (getattr(mod, "__name__", "") == "jax" and isinstance(
        getattr(getattr(mod, "__spec__", None), "loader", None), _AliasFinder)) or \
        getattr(mod, "__name__", "").startswith("astjax")
