"""Type hints (issue 17 item 5): `mypy --strict` passes on a small typed user program
(tests/typing/mlp_train.py: an MLP trained with jit/grad/vmap/random/tree_util/jnp),
reports every deliberate error of tests/typing/bad_program.py, `py.typed` ships in the
package data, `astjax.typing` works at run time, and the package's `__all__` (what a
strict type checker takes as exported) names every public function.

mypy reads astjax as a user's installed copy: a folder laid out as the wheel installs
it (`transforms/` and `codegen/` inside `astjax/`, as pyproject's package-dir maps
them), with errors inside astjax silenced as mypy silences installed packages."""
import os
import re
import subprocess
import sys
import textwrap
import tomllib
import types

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.typing import Array, ArrayLike, DTypeLike, PyTree, Shape, SupportsDType

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TYPING = os.path.join(ROOT, "tests", "typing")
# the API modules a user imports from the package (the rest are implementation)
API_MODULES = {"numpy", "lax", "random", "nn", "scipy", "tree_util", "tree", "sharding",
               "typing", "dtypes", "errors", "debug", "flatten_util", "stages", "extend",
               "interpreters", "distributed", "example_libraries", "test_util", "core"}


def _installed_layout(dest):
    """`dest/astjax` laid out as the wheel installs it, by symlinks into the source."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        package_dir = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    pkg = dest / "astjax"
    pkg.mkdir(parents=True)
    for name in os.listdir(os.path.join(ROOT, "astjax")):
        os.symlink(os.path.join(ROOT, "astjax", name), pkg / name)
    for module, folder in package_dir.items():
        if module != "astjax":
            os.symlink(os.path.join(ROOT, folder), pkg / module.split(".", 1)[1])
    return dest


@pytest.fixture(scope="module")
def mypy_dir(tmp_path_factory):
    """One installed layout and mypy cache for the module's runs."""
    tmp = tmp_path_factory.mktemp("mypy")
    _installed_layout(tmp / "site")
    return tmp


def _mypy(tmp_path, program):
    site = tmp_path / "site"
    config = tmp_path / "mypy.ini"
    config.write_text(textwrap.dedent("""\
        [mypy]
        [mypy-astjax.*]
        follow_imports = silent
    """))
    env = dict(os.environ, MYPYPATH=str(site))
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                        "--config-file", str(config), "--cache-dir", str(tmp_path / "cache"),
                        os.path.join(TYPING, program)],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert "No module named mypy" not in r.stderr, "install the test extra: pip install -e '.[test]'"
    return r


def test_typed_program_passes_mypy_strict(mypy_dir):
    r = _mypy(mypy_dir, "mlp_train.py")
    assert r.returncode == 0, r.stdout + r.stderr


def test_type_errors_are_reported(mypy_dir):
    r = _mypy(mypy_dir, "bad_program.py")
    with open(os.path.join(TYPING, "bad_program.py")) as f:
        expected = {i + 1 for i, line in enumerate(f) if "# error:" in line}
    reported = {int(m.group(1)) for m in re.finditer(r"bad_program\.py:(\d+): error:", r.stdout)}
    assert r.returncode == 1 and expected and reported == expected, r.stdout + r.stderr


def test_typed_program_runs():
    sys.path.insert(0, TYPING)
    try:
        import mlp_train
    finally:
        sys.path.remove(TYPING)
    losses = mlp_train.main()
    assert losses[-1] < 0.1 * losses[0]


def test_py_typed_in_package_data():
    assert os.path.exists(os.path.join(ROOT, "astjax", "py.typed"))
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        data = tomllib.load(f)["tool"]["setuptools"]["package-data"]["astjax"]
    assert "py.typed" in data


def test_typing_names_at_run_time():
    x = jnp.ones(3)
    assert isinstance(x, Array) and Array is astjax.Array
    assert isinstance(x, ArrayLike) and isinstance(np.float32(1), ArrayLike)
    assert isinstance(2.5, ArrayLike) and not isinstance("2.5", ArrayLike)
    assert isinstance(x, SupportsDType) and isinstance(jnp.float32(1), SupportsDType)
    assert str in DTypeLike.__args__ and np.dtype in DTypeLike.__args__
    assert Shape == tuple[int, ...] and PyTree is not None

    @astjax.jit
    def staged(v):
        assert isinstance(v, Array) and isinstance(v, ArrayLike)
        return v * 2
    staged(x)


def test_all_names_every_public_name():
    public = {n for n, v in vars(astjax).items()
              if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    assert len(astjax.__all__) == len(set(astjax.__all__))
    missing = public - set(astjax.__all__)
    assert not missing, f"add to astjax/__init__.py's __all__: {sorted(missing)}"
    assert API_MODULES <= set(astjax.__all__)
    assert all(hasattr(astjax, n) for n in astjax.__all__)
