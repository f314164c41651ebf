import os
import sys

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# Cache bytecode even where the environment turns it off (PYTHONDONTWRITEBYTECODE): the
# suite starts ~40 Python processes (xdist workers, subprocess tests), each of which
# would otherwise recompile astjax's ~430 modules (about two seconds apiece).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
# pmap tests run on 4 CPU devices; the runtime reads this when its client starts.
os.environ.setdefault("ASTJAX_NUM_CPU_DEVICES", "4")
sys.path.insert(0, os.path.dirname(__file__))

import tiers  # noqa: E402


def pytest_collection_modifyitems(config, items):
    """The CI tier: drop the sampled-out cases of the costliest tables (tests/tiers.py;
    `ASTJAX_TESTS=full` keeps every case)."""
    keep = tiers.keep_in_ci(items)
    if not all(keep):
        config.hook.pytest_deselected(items=[it for it, k in zip(items, keep) if not k])
        items[:] = [it for it, k in zip(items, keep) if k]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """With `ASTJAX_TEST_COSTS=DIR` (tests/measure_costs.py), each test's CPU-seconds
    (this process and its finished children) are appended to DIR/cpu_<pid>.txt."""
    out = os.environ.get("ASTJAX_TEST_COSTS")
    if not out:
        yield
        return
    import resource

    def cpu():
        own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                      resource.RUSAGE_CHILDREN))
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    start = cpu()
    yield
    with open(os.path.join(out, f"cpu_{os.getpid()}.txt"), "a") as f:
        f.write(f"{item.nodeid}\t{cpu() - start:.3f}\n")


@pytest.fixture(autouse=True)
def _config_left_as_found():
    """Every test leaves astjax's configuration as it found it: a flag left changed
    (a `config.update` without its restore) would silently change every later test in
    the same worker, so the leaking test errors here, naming the flags, and they are
    put back."""
    module = sys.modules.get("astjax.config")
    before = dict(module.config.values) if module is not None else None
    meshes = sys.modules.get("astjax.sharding_impls")
    contexts = meshes.context_meshes[0] if meshes is not None else 0
    yield
    if meshes is not None and meshes.context_meshes[0] != contexts:   # jit runs on it
        meshes.context_meshes[0] = contexts
        meshes._current.__dict__.pop("context", None)
        pytest.fail("the test left a `set_mesh` in place (a plain setter, or a context "
                    "not left)", pytrace=False)
    if before is None:
        return
    after = module.config.values
    changed = {k: (before[k], after.get(k)) for k in before if after.get(k) != before[k]}
    for name, (old, _) in changed.items():
        module.config.update(name, old)
    if changed:
        pytest.fail(f"the test left configuration flags changed (old, new): {changed}",
                    pytrace=False)


def _with_flag(name, value):
    """A fixture body: the config flag `name` set to `value` (restored afterwards)."""
    import astjax
    old = astjax.config.read(name)
    astjax.config.update(name, value)
    yield
    astjax.config.update(name, old)


@pytest.fixture
def x64():
    """Run the test with 64-bit types enabled (restored afterwards)."""
    yield from _with_flag("jax_enable_x64", True)


@pytest.fixture
def gspmd():
    """Lower partitioned programs with GSPMD (`jax_use_shardy_partitioner=False`)."""
    yield from _with_flag("jax_use_shardy_partitioner", False)


@pytest.fixture(scope="session")
def compile_ffi_kernels(tmp_path_factory):
    """`compile(source, name)`: C++ `source` built against jaxlib's `ffi.h` into a
    shared library, loaded with ctypes (the test is skipped without a C++ compiler)."""
    import ctypes
    import shutil
    import subprocess
    from astjax import ffi

    def compile(source, name):
        cxx = shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
        if cxx is None:
            pytest.skip("no C++ compiler (g++, c++, clang++) on this machine")
        d = tmp_path_factory.mktemp(name)
        (d / f"{name}.cc").write_text(source)
        subprocess.run([cxx, "-std=c++17", "-O1", "-shared", "-fPIC", "-w",
                        f"-I{ffi.include_dir()}", str(d / f"{name}.cc"), "-o",
                        str(d / f"lib{name}.so")], check=True, capture_output=True, timeout=300)
        return ctypes.cdll.LoadLibrary(str(d / f"lib{name}.so"))
    return compile
