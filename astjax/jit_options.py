"""`jit`'s keyword options beyond staging: `device=`, `backend=`, `compiler_options=`
and `keep_unused=`, read as JAX 0.10.2 reads them.

- `device=` / `backend=` (deprecated in JAX, with its DeprecationWarning): the program
  runs on that device (the first of the backend's), every argument is moved there,
  committed or not, and the results are committed to it. Giving both, or either with
  `in_shardings` / `out_shardings`, is JAX's ValueError when `jit` is called; an
  unknown backend is JAX's RuntimeError at the first call.
- `compiler_options=`: (name, value) pairs handed to XLA's compile as JAX hands them
  (`codegen.runtime.set_compiler_options`), for a one-device program and for a
  partitioned one (`in_shardings` / `out_shardings`, or arguments laid out over
  several devices: `codegen.spmd`) alike; they are part of the key of `jit`'s cache
  and of the compile cache. An unknown name or a bad value is XLA's own
  INVALID_ARGUMENT error. Only a top-level `jit` may carry them: a nested one is JAX's
  ValueError.
- `keep_unused=`: astjax's programs keep every argument already; as JAX's, without it an
  unused donated argument is neither donated nor named in the "not usable" warning
  (`api._used_donations`).

`abstracted_axes` is not a parameter of JAX 0.10.2's `jit` (a TypeError there as here).
"""
from __future__ import annotations

from typing import Any, NamedTuple

from . import user_warnings
from .codegen import runtime
from .errors import ArgumentValueError, JAXValueError, caller_location

JIT_KEYWORDS = ("keep_unused", "device", "backend", "compiler_options")
_KNOWN_PLATFORMS = ("cpu", "gpu", "cuda", "rocm", "tpu")
_DEPRECATED = ('backend and device argument on jit is deprecated. You can use '
               '`jax.device_put(..., jax.local_devices(backend="cpu")[0])` on the inputs '
               'to the jitted function to get the same behavior.')


class JitOptions(NamedTuple):
    """The options of one `jit`: `device` (a Device or None), `backend` (a platform
    name or None) and `compiler_options` (a tuple of (name, value) pairs)."""
    device: Any
    backend: Any
    compiler_options: tuple

    def key(self):
        """A hashable form, part of the key of `jit`'s shared per-function state."""
        return ("jit_options", getattr(self.device, "id", None), self.backend,
                tuple((k, repr(v)) for k, v in self.compiler_options))


def parse(options: dict, in_shardings, out_shardings) -> JitOptions | None:
    """Validate `jit`'s keyword `options`; None when none of them changes anything."""
    bad = sorted(set(options) - set(JIT_KEYWORDS))
    if bad:
        raise TypeError(f"jit() got an unexpected keyword argument {bad[0]!r}")
    device, backend = options.get("device"), options.get("backend")
    compiler_options = options.get("compiler_options")
    if device is not None or backend is not None:
        user_warnings.warn(_DEPRECATED, DeprecationWarning)
        if device is not None and backend is not None:
            raise ArgumentValueError("can't specify both a device and a backend for jit, "
                                     f"got {device=} and {backend=}", loc=caller_location())
        for what, given in (("in_shardings", in_shardings), ("out_shardings", out_shardings)):
            if given is not None:
                raise ArgumentValueError("If backend or device is specified on jit, then "
                                         f"{what} should not be specified.",
                                         loc=caller_location())
    if compiler_options is not None and not isinstance(compiler_options, dict):
        raise TypeError(f"compiler_options must be a dict, got {type(compiler_options)}")
    if device is None and backend is None and not compiler_options:
        return None
    return JitOptions(device, backend, tuple((compiler_options or {}).items()))


def run_device(opts: JitOptions | None):
    """The device a call runs on: `device=`, the first device of `backend=`, or None
    (JAX's placement rule)."""
    if opts is None or (opts.device is None and opts.backend is None):
        return None
    if opts.device is not None:
        return opts.device
    found = runtime.global_devices()
    name = {"gpu": "cuda"}.get(opts.backend, opts.backend)
    out = [d for d in found if d.platform == name or (name == "cuda" and d.platform == "gpu")]
    if out:
        return out[0]
    platforms = sorted({d.platform for d in found})
    if opts.backend not in _KNOWN_PLATFORMS:
        raise RuntimeError(f"Unknown backend {opts.backend}. Available backends are "
                           f"{platforms}")
    raise RuntimeError(f"Unknown backend: '{opts.backend}' requested, but no platforms that "
                       f"are instances of {opts.backend} are present. Platforms present "
                       f"are: " + ",".join(platforms))


def to_device(leaves, dev):
    """The argument leaves with every Array moved to `dev`, committed ones included
    (what `device=` does to a committed argument elsewhere, as in JAX)."""
    return [runtime.device_put(x, dev) if isinstance(x, runtime.CommittedArray)
            and x.device != dev else x for x in leaves]


def check_nested(opts: JitOptions | None, fun) -> None:
    """JAX's ValueError for `compiler_options` on a `jit` called inside another one."""
    if opts is not None and opts.compiler_options:
        loc = caller_location()
        where = f"{loc.file}:{loc.line}:{loc.col}" if loc.file else "unknown"
        raise JAXValueError(
            "`compiler_options` can only be passed to top-level `jax.jit`. Got "
            f"compiler_options={dict(opts.compiler_options)} specified on a nested jit "
            f"with name: {getattr(fun, '__name__', 'fn')} and source info: {where}",
            loc=loc)
