"""What makes `astjax.numpy` an Array API namespace (standard version 2024.12, the
one `jax.numpy` declares), beyond the functions themselves:

- `__array_api_version__` and `__array_namespace_info__()` (capabilities, default
  device, devices, default dtypes and the dtypes by kind, following `jax_enable_x64`);
- `from_dlpack`: an array from any object with `__dlpack__` (NumPy arrays, other
  libraries' tensors, astjax arrays), on the default device or `device=`; astjax's
  own `Array.__dlpack__` / `__dlpack_device__` are in `array_methods`.

`Array.__array_namespace__()` returns `astjax.numpy` (array_methods.py).
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..api import device_put, devices
from ..codegen.runtime import Array
from ..errors import ArgumentValueError, TracerArrayConversionError
from .operands import asarray

__all__ = ["__array_api_version__", "__array_namespace_info__", "from_dlpack"]

__array_api_version__ = "2024.12"

_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_WIDE = ("int64", "uint64", "float64", "complex128")   # only with jax_enable_x64
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


def check_api_version(api_version):
    """A ValueError unless `api_version` is None or the version astjax implements."""
    if api_version is not None and api_version != __array_api_version__:
        raise ArgumentValueError(f"api_version={api_version!r} is not available; available "
                                 f"versions are: [{__array_api_version__!r}]")


class ArrayNamespaceInfo:
    """The Array API's inspection object of `astjax.numpy`
    (`jnp.__array_namespace_info__()`)."""

    def capabilities(self):
        """What the namespace supports: no data-dependent output shapes (boolean
        indexing, `nonzero` without `size=`) under `jit`, 64 dimensions at most."""
        return {"boolean indexing": False, "data-dependent shapes": False,
                "max dimensions": 64}

    def default_device(self):
        """None: arrays go to the default device (`jax.default_device`)."""
        return None

    def devices(self):
        """The devices arrays may be put on (None first: the default one)."""
        return [None, *devices()]

    def default_dtypes(self, *, device=None):
        """The default dtypes per kind (64-bit ones when `jax_enable_x64` is on)."""
        wide = dtypes.config.x64_enabled
        return {"real floating": np.dtype("float64" if wide else "float32"),
                "complex floating": np.dtype("complex128" if wide else "complex64"),
                "integral": np.dtype("int64" if wide else "int32"),
                "indexing": np.dtype("int64" if wide else "int32")}

    def dtypes(self, *, device=None, kind=None):
        """The dtypes of `kind` (a kind name, a tuple of them, or None: all), by
        name; 64-bit ones only when `jax_enable_x64` is on."""
        kinds = (kind,) if isinstance(kind, str) else (tuple(kind) if kind else None)
        names = []
        for k in kinds or ("bool", "numeric"):
            if k not in _KINDS:
                raise ArgumentValueError(f"unknown dtype kind {k!r}",
                                         hint="one of " + ", ".join(map(repr, _KINDS)))
            names += [n for n in _KINDS[k] if n not in names]
        wide = dtypes.config.x64_enabled
        return {n: np.dtype(n) for n in names if wide or n not in _WIDE}


def __array_namespace_info__():
    """The Array API's inspection object of this namespace."""
    return ArrayNamespaceInfo()


def from_dlpack(x, /, *, device=None, copy=None):
    """An array holding the data of `x`, any object with `__dlpack__` (a NumPy array,
    another library's tensor, an astjax Array), on the default device or on `device`.
    `copy` is accepted: astjax arrays are immutable, so the result never aliases
    memory the producer may still change."""
    if isinstance(x, core.Tracer):
        raise TracerArrayConversionError("from_dlpack of a staged value: it has no data "
                                         "while the function is staged")
    if isinstance(x, Array):
        out = asarray(x, copy=bool(copy))
    else:
        if not hasattr(x, "__dlpack__"):
            raise ArgumentValueError(f"from_dlpack needs an object with __dlpack__, got "
                                     f"{type(x).__name__}")
        out = asarray(np.from_dlpack(x))
    return out if device is None else device_put(out, device)
