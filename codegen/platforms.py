"""Which PJRT client this process runs on: the CUDA PJRT plugin when it is installed
and finds a GPU (`pip install 'astjax[cuda12]'`), else the CPU (ASTJAX_NUM_CPU_DEVICES
devices); `ASTJAX_PLATFORM=cpu` (or config `jax_platforms`) forces the CPU, `=cuda`
makes a missing GPU an error. In a multi-process job (`astjax.distributed`) the client
is made with the job's distributed client, node id and node count. The plugin is
loaded the way JAX's `jax_plugins.xla_cuda1x` loads it, without importing that
package (its `__init__` imports jax). `codegen.runtime` owns the client made here.
"""
from __future__ import annotations

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
_CUDA_PLUGINS = ("xla_cuda13", "xla_cuda12")
platform_log: list = []   # why the GPU was (not) used, for astjax.default_backend() users


def _requested_platforms():
    want = config.read("jax_platforms") or os.environ.get("ASTJAX_PLATFORM") or ""
    return [p.strip().lower() for p in str(want).split(",") if p.strip()]


def find_cuda_plugin():
    """Path of the CUDA PJRT plugin library, or None (no import of jax_plugins.*)."""
    import importlib.util
    for name in _CUDA_PLUGINS:
        try:
            spec = importlib.util.find_spec(f"jax_plugins.{name}")
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            continue
        for d in spec.submodule_search_locations:
            path = os.path.join(d, "xla_cuda_plugin.so")
            if os.path.exists(path):
                return path
    return None


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


def _make_gpu_client():
    path = find_cuda_plugin()
    if path is None:
        platform_log.append("no CUDA PJRT plugin installed (pip install 'astjax[cuda12]')")
        return None
    try:
        _preload_nvidia_libraries()
        if not xc.pjrt_plugin_loaded("cuda"):   # jax may have loaded it in this process
            xc.load_pjrt_plugin_dynamically("cuda", path)
        if not xc.pjrt_plugin_initialized("cuda"):
            xc.initialize_pjrt_plugin("cuda")
        c = xc.make_c_api_client("cuda", *gpu_client_options())
    except Exception as e:  # no driver, no device, version mismatch: fall back to CPU
        platform_log.append(f"CUDA plugin {path} failed to start: {e}")
        return None
    if not c.local_devices():
        platform_log.append(f"CUDA plugin {path} found no GPU")
        return None
    platform_log.append(f"using the CUDA plugin {path}: {c.local_devices()}")
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


def gpu_client_options():
    """(options, distributed client) the CUDA plugin's client is made with: jaxlib's
    GPU options and, in a multi-process job, node id, number of nodes and visible
    devices (as JAX makes it; NCCL's communicators are set up through the client)."""
    options = dict(xc.generate_pjrt_gpu_plugin_options())
    if not _distributed:
        return options, None
    options.update(node_id=_distributed["node_id"], num_nodes=_distributed["num_nodes"])
    if _distributed["visible_devices"]:
        options["visible_devices"] = [int(i) for i in _distributed["visible_devices"]]
    return options, _distributed["distributed_client"]


def check_platform_available():
    """A RuntimeError naming the missing piece when the requested platform (config
    `jax_platforms` / ASTJAX_PLATFORM) is the GPU and no CUDA PJRT plugin is installed."""
    want = _requested_platforms()
    if want and all(p in ("cuda", "gpu") for p in want) and find_cuda_plugin() is None:
        raise RuntimeError("the GPU was requested (ASTJAX_PLATFORM / jax_platforms = "
                           f"{','.join(want)}), but no CUDA PJRT plugin is installed: "
                           "pip install 'astjax[cuda12]' (or cuda13)")


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
    for p in want or ["cuda", "cpu"]:
        if p in ("cuda", "gpu"):
            c = _make_gpu_client()
            if c is not None:
                return c
            if want and p == want[-1]:
                raise RuntimeError("ASTJAX_PLATFORM asks for the GPU, but it is not usable: "
                                   + "; ".join(platform_log))
        elif p == "cpu":
            return _make_cpu_client()
        else:
            raise RuntimeError(f"unknown platform {p!r} in ASTJAX_PLATFORM / jax_platforms "
                               "(known: cpu, cuda)")
    return _make_cpu_client()
