"""Which PJRT client this process runs on: a GPU PJRT plugin when one is installed
and finds a GPU -- CUDA's (`pip install 'astjax[cuda12]'`), else ROCm's
(`'astjax[rocm7]'`) --, else the CPU (ASTJAX_NUM_CPU_DEVICES devices);
`ASTJAX_PLATFORM=cpu` (or config `jax_platforms`) forces the CPU, `=cuda` / `=rocm`
(`=gpu`: either) makes a missing GPU an error. In a multi-process job
(`astjax.distributed`) the client is made with the job's distributed client, node id
and node count. A plugin is loaded the way JAX's `jax_plugins.xla_cuda1x` /
`xla_rocm7` load it, without importing those packages (their `__init__` imports
jax): the library, the GPU client options (ROCm's with its platform name), and the
plugin extension's custom-call and custom-type handlers, through which the kernels
astjax registers with XLA (cuSOLVER / hipSOLVER, `primitives/cusolver.py`) reach the
plugin. `codegen.runtime` owns the client made here.
"""
from __future__ import annotations

import functools
import os

from jaxlib import xla_client as xc

from astjax.config import config

# (python module under `nvidia.`, libraries in its lib/), as the plugin preloads them
_NVIDIA_LIBS = (
    ("cuda_runtime", ("libcudart.so.12",)), ("cu13", ("libcudart.so.13",)),
    ("cuda_nvrtc", ("libnvrtc.so.12",)), ("cu13", ("libnvrtc.so.13",)),
    ("cublas", ("libcublas.so.12", "libcublasLt.so.12")),
    ("cu13", ("libcublas.so.13", "libcublasLt.so.13")),
    ("nccl", ("libnccl.so.2",)),
    ("cuda_cupti", ("libcupti.so.12",)), ("cu13", ("libcupti.so.13",)),
    ("cusparse", ("libcusparse.so.12",)), ("cu13", ("libcusparse.so.12",)),
    ("cusolver", ("libcusolver.so.11",)), ("cu13", ("libcusolver.so.12",)),
    ("cufft", ("libcufft.so.11",)), ("cu13", ("libcufft.so.12",)),
    ("nvshmem", ("libnvshmem_host.so.3",)),
    ("cudnn", ("libcudnn.so.9",)),
)
# platform -> (packages under `jax_plugins`, plugin library, extension module, XLA's name)
_GPU_PLUGINS = {
    "cuda": (("xla_cuda13", "xla_cuda12"), "xla_cuda_plugin.so", "cuda_plugin_extension", "CUDA"),
    "rocm": (("xla_rocm7",), "xla_rocm_plugin.so", "rocm_plugin_extension", "ROCM"),
}
_EXTRAS = {"cuda": "astjax[cuda12]' (or cuda13)", "rocm": "astjax[rocm7]'"}
platform_log: list = []   # why a GPU was (not) used, for astjax.default_backend() users


def _requested_platforms():
    want = config.read("jax_platforms") or os.environ.get("ASTJAX_PLATFORM") or ""
    return [p.strip().lower() for p in str(want).split(",") if p.strip()]


def find_plugin(platform):
    """Path of `platform`'s ('cuda' or 'rocm') PJRT plugin library, or None (no
    import of jax_plugins.*)."""
    import importlib.util
    packages, library = _GPU_PLUGINS[platform][:2]
    for name in packages:
        try:
            spec = importlib.util.find_spec(f"jax_plugins.{name}")
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            continue
        for d in spec.submodule_search_locations:
            path = os.path.join(d, library)
            if os.path.exists(path):
                return path
    return None


def find_cuda_plugin():
    """Path of the CUDA PJRT plugin library, or None."""
    return find_plugin("cuda")


def register_extension(platform, c_api):
    """Route the custom calls and custom types registered with XLA for `platform` to
    the plugin loaded as `c_api`, through the plugin extension's handlers (as JAX's
    plugin packages do); False when the extension module is not installed."""
    from jaxlib.plugin_support import import_from_plugin
    _, _, module, xla_name = _GPU_PLUGINS[platform]
    ext = import_from_plugin(platform, module)
    if ext is None:
        platform_log.append(f"{module} is not installed: GPU custom calls cannot run")
        return False
    xc.register_custom_type_handler(xla_name, functools.partial(ext.register_custom_type,
                                                                c_api))
    xc.register_custom_call_handler(xla_name, functools.partial(
        ext.register_custom_call_target, c_api))
    for name, value in ext.ffi_types().items():
        xc.register_custom_type(name, value, platform=xla_name)
    for name, value in ext.ffi_handlers().items():
        xc.register_custom_call_target(name, value, platform=xla_name, api_version=1)
    return True


def _preload_nvidia_libraries():
    import ctypes
    import importlib.util
    for module, libs in _NVIDIA_LIBS:
        try:
            spec = importlib.util.find_spec(f"nvidia.{module}")
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            continue
        for lib in libs:
            for d in spec.submodule_search_locations:
                path = os.path.join(d, "lib", lib)
                if os.path.exists(path):
                    try:
                        ctypes.cdll.LoadLibrary(path)
                    except OSError:
                        pass
                    break


def _make_gpu_client(platform):
    path = find_plugin(platform)
    if path is None:
        platform_log.append(f"no {platform.upper()} PJRT plugin installed "
                            f"(pip install '{_EXTRAS[platform]})")
        return None
    try:
        if platform == "cuda":
            _preload_nvidia_libraries()
        if not xc.pjrt_plugin_loaded(platform):   # jax may have loaded it in this process
            register_extension(platform, xc.load_pjrt_plugin_dynamically(platform, path))
        if not xc.pjrt_plugin_initialized(platform):
            xc.initialize_pjrt_plugin(platform)
        c = xc.make_c_api_client(platform, *gpu_client_options(platform))
    except Exception as e:  # no driver, no device, version mismatch: fall back to CPU
        platform_log.append(f"{platform.upper()} plugin {path} failed to start: {e}")
        return None
    if not c.local_devices():
        platform_log.append(f"{platform.upper()} plugin {path} found no GPU")
        return None
    platform_log.append(f"using the {platform.upper()} plugin {path}: {c.local_devices()}")
    return c


_distributed: dict = {}   # the multi-process job (configure_distributed)


def configure(*, distributed_client, node_id, num_nodes, collectives,
                          visible_devices=None):
    """Join a multi-process job (`astjax.distributed.initialize`): the client is made
    with the distributed client, this node's id and the number of nodes; the CPU's
    with `collectives` (Gloo), the GPU's with `visible_devices` (this process's
    GPUs, all when None). Only before the client exists."""
    _distributed.clear()
    _distributed.update(distributed_client=distributed_client, node_id=node_id,
                        num_nodes=num_nodes, collectives=collectives,
                        visible_devices=visible_devices)


def gpu_client_options(platform="cuda"):
    """(options, distributed client) a GPU plugin's client is made with: jaxlib's
    GPU options (ROCm's naming its platform, as JAX) and, in a multi-process job,
    node id, number of nodes and visible devices (as JAX makes it; NCCL's / RCCL's
    communicators are set up through the client)."""
    options = dict(xc.generate_pjrt_gpu_plugin_options())
    if platform == "rocm":
        options["platform_name"] = "ROCM"
    if not _distributed:
        return options, None
    options.update(node_id=_distributed["node_id"], num_nodes=_distributed["num_nodes"])
    if _distributed["visible_devices"]:
        options["visible_devices"] = [int(i) for i in _distributed["visible_devices"]]
    return options, _distributed["distributed_client"]


def _gpu_kinds(name):
    return ("cuda", "rocm") if name == "gpu" else (name,) if name in _GPU_PLUGINS else ()


def check_platform_available():
    """A RuntimeError naming the missing piece when the requested platforms (config
    `jax_platforms` / ASTJAX_PLATFORM) are GPUs and no GPU PJRT plugin for them is
    installed."""
    want = _requested_platforms()
    kinds = [k for p in want for k in _gpu_kinds(p)]
    if want and all(_gpu_kinds(p) for p in want) and \
            all(find_plugin(k) is None for k in kinds):
        kinds = list(dict.fromkeys(kinds))
        raise RuntimeError("the GPU was requested (ASTJAX_PLATFORM / jax_platforms = "
                           f"{','.join(want)}), but no "
                           + " or ".join(k.upper() for k in kinds) + " PJRT plugin is "
                           "installed: " + " or ".join(f"pip install '{_EXTRAS[k]}"
                                                       for k in kinds))


def _make_cpu_client():
    n = config.read("jax_num_cpu_devices")
    if n < 0:
        n = int(os.environ.get("ASTJAX_NUM_CPU_DEVICES", "1"))
    if _distributed:
        d = _distributed
        return xc.make_cpu_client(num_devices=n, distributed_client=d["distributed_client"],
                                  node_id=d["node_id"], num_nodes=d["num_nodes"],
                                  collectives=d["collectives"])
    return xc.make_cpu_client(num_devices=n) if n > 1 else xc.make_cpu_client()


def make_client():
    """The default client for the requested platforms (see the module docstring)."""
    want = _requested_platforms()
    for p in want or ["gpu", "cpu"]:
        if _gpu_kinds(p):
            for kind in _gpu_kinds(p):
                c = _make_gpu_client(kind)
                if c is not None:
                    return c
            if want and p == want[-1]:
                raise RuntimeError("ASTJAX_PLATFORM asks for the GPU, but it is not usable: "
                                   + "; ".join(platform_log))
        elif p == "cpu":
            return _make_cpu_client()
        else:
            raise RuntimeError(f"unknown platform {p!r} in ASTJAX_PLATFORM / jax_platforms "
                               "(known: cpu, cuda, rocm, gpu)")
    return _make_cpu_client()
