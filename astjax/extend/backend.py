"""`astjax.extend.backend` (JAX's `jax.extend.backend`): the PJRT client astjax runs
on, for libraries that ask for it by platform name (`get_backend("cpu")`), list the
clients (`backends()`), or want the device results go to (`get_default_device()`).

astjax starts one client per process (codegen/runtime.py picks its platform), so
`backends()` has one entry; asking for any other platform is JAX's RuntimeError."""
from __future__ import annotations

from ..codegen import runtime
from ..errors import AstjaxError

__all__ = ["get_backend", "backends", "get_default_device", "backend_xla_version",
           "UnknownBackendError"]

# platform aliases JAX resolves to whichever of their members is present
_ALIASES = {"gpu": ("cuda", "rocm", "oneapi")}


class UnknownBackendError(AstjaxError, RuntimeError):
    """A platform this process has no client for (JAX's RuntimeError)."""
    default_hint = "use one of the available backends, or start the process on that platform"


def backends() -> dict:
    """{platform name: client} of the clients this process has (one: astjax's)."""
    client = runtime.client()
    return {client.platform: client}


def get_backend(platform=None):
    """The client of `platform` ('cpu', 'cuda', 'gpu', ...; None: the default one); a
    client passed in is returned as it is."""
    if platform is not None and not isinstance(platform, str):
        return platform
    present = backends()
    if platform is None:
        return runtime.client()
    if platform in _ALIASES:
        found = [p for p in _ALIASES[platform] if p in present]
        if not found:
            raise UnknownBackendError(
                f"Unknown backend: '{platform}' requested, but no platforms that are "
                f"instances of {platform} are present. Platforms present are: "
                + ",".join(present))
        platform = found[0]
    if platform not in present:
        raise UnknownBackendError(
            f"Unknown backend {platform}. Available backends are {list(present)}")
    return present[platform]


def get_default_device():
    """The device computations without committed operands run on (the first device,
    or the one `jax_default_device` names)."""
    return runtime.default_device()


def backend_xla_version(platform=None):
    """The XLA version a PJRT plugin client reports, or None (the built-in CPU client
    reports none)."""
    return getattr(get_backend(platform), "xla_version", None)
