"""The GPU PJRT plugins, CUDA's and ROCm's, as far as this CPU-only machine can check
them (codegen/platforms.py; no GPU is lent to the project): a requested GPU without a
plugin is a RuntimeError naming the package to install, a plugin that does not load
falls back to the CPU with the reason logged, and the plugin extension's handlers --
through which the kernels registered with XLA (cuSOLVER / hipSOLVER, FFI handlers and
types) reach the loaded plugin, as JAX's plugin packages route them -- receive every
target, including those registered before the plugin was loaded. Each check runs in a
fresh process (XLA's handler tables are process-wide)."""
import json
import os
import subprocess
import sys

import pytest

from astjax.codegen import platforms

_PROBE = (
    "import json, astjax\n"
    "from astjax.codegen import runtime, platforms as pl\n"
    "try:\n"
    "    pl.check_platform_available()\n"
    "    print(json.dumps({'platform': runtime.platform(), 'log': pl.platform_log}))\n"
    "except RuntimeError as e:\n"
    "    print(json.dumps({'error': str(e)}))\n")


def _run(code, env_extra=(), pythonpath=None):
    env = dict(os.environ)
    env.pop("ASTJAX_PLATFORM", None)
    env.update(env_extra)
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


_REQUESTED = {"cuda": ("no CUDA PJRT plugin", "astjax[cuda12]"),
              "rocm": ("no ROCM PJRT plugin", "astjax[rocm7]"),
              "gpu": ("no CUDA or ROCM PJRT plugin", "astjax[rocm7]")}


def test_a_requested_gpu_without_its_plugin_names_the_package():
    if any(platforms.find_plugin(k) for k in ("cuda", "rocm")):
        pytest.skip("a GPU plugin is installed here")
    code = ("import json, os\nfrom astjax.codegen import platforms as pl\nout = {}\n"
            f"for want in {sorted(_REQUESTED)!r}:\n"
            "    os.environ['ASTJAX_PLATFORM'] = want\n"
            "    try:\n        pl.check_platform_available()\n"
            "    except RuntimeError as e:\n        out[want] = str(e)\n"
            "print(json.dumps(out))\n")
    r = _run(code)
    assert sorted(r) == sorted(_REQUESTED)
    for want, (named, install) in _REQUESTED.items():
        assert named in r[want] and install in r[want], r[want]


def test_a_broken_rocm_plugin_falls_back_to_the_cpu(tmp_path):
    d = tmp_path / "jax_plugins" / "xla_rocm7"
    d.mkdir(parents=True)
    (d / "xla_rocm_plugin.so").write_bytes(b"not a shared library")
    if platforms.find_plugin("cuda"):
        pytest.skip("a CUDA plugin is installed here (it is tried first)")
    r = _run(_PROBE, pythonpath=tmp_path)
    assert r["platform"] == "cpu"
    assert any(m.startswith(f"ROCM plugin {d / 'xla_rocm_plugin.so'} failed to start")
               for m in r["log"]), r["log"]


# a stand-in for the plugin package's extension module: records what reaches it
_EXTENSION = '''
seen = []
def register_custom_call_target(c_api, name, fn, platform, api_version, traits):
    seen.append(["call", c_api, name, fn, platform, api_version])
def register_custom_type(c_api, name, type_id):
    seen.append(["type", c_api, name, type_id])
def ffi_handlers():
    return {"plugin_own_ffi": "<handler>"}
def ffi_types():
    return {"plugin_own_type": "<type id>"}
'''

_ROUTE = (
    "import importlib, json, sys\n"
    "from jaxlib import xla_client as xc\n"
    "from astjax.codegen import platforms as pl\n"
    "out = {'missing': pl.register_extension('rocm', '<c_api>'), 'log': list(pl.platform_log)}\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "importlib.invalidate_caches()\n"
    "for kind, package in [('cuda', 'jax_cuda12_plugin'), ('rocm', 'jax_rocm7_plugin')]:\n"
    "    xla = kind.upper()\n"
    "    xc.register_custom_call_target('early_ffi', '<early>', platform=xla, api_version=1)\n"
    "    xc.register_custom_type('early_type', '<early id>', platform=xla)\n"
    "    ok = pl.register_extension(kind, '<c_api>')\n"
    "    xc.register_custom_call_target('late_ffi', '<late>', platform=xla, api_version=1)\n"
    "    ext = importlib.import_module(package + '.' + kind + '_plugin_extension')\n"
    "    out[kind] = {'ok': ok, 'seen': ext.seen}\n"
    "print(json.dumps(out))\n")


def test_the_extension_receives_every_registered_kernel(tmp_path):
    from jaxlib.version import __version__
    if any(platforms.find_plugin(k) for k in ("cuda", "rocm")):
        pytest.skip("a GPU plugin is installed here")
    for kind, package in [("cuda", "jax_cuda12_plugin"), ("rocm", "jax_rocm7_plugin")]:
        pkg = tmp_path / package
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        (pkg / "version.py").write_text(f"__version__ = {__version__!r}\n")
        (pkg / f"{kind}_plugin_extension.py").write_text(_EXTENSION)
    r = _run(_ROUTE.replace("sys.argv[1]", repr(str(tmp_path))))
    assert r["missing"] is False   # no extension module: said so, nothing routed
    assert r["log"] == ["rocm_plugin_extension is not installed: GPU custom calls cannot run"]
    for kind in ("cuda", "rocm"):
        xla = kind.upper()
        assert r[kind]["ok"] is True
        seen = r[kind]["seen"]
        calls = {s[2]: s for s in seen if s[0] == "call"}
        types = {s[2]: s for s in seen if s[0] == "type"}
        assert sorted(calls) == ["early_ffi", "late_ffi", "plugin_own_ffi"]
        assert sorted(types) == ["early_type", "plugin_own_type"]
        assert calls["early_ffi"] == ["call", "<c_api>", "early_ffi", "<early>", xla, 1]
        assert calls["plugin_own_ffi"][3:] == ["<handler>", xla, 1]
        assert all(s[1] == "<c_api>" for s in seen)
