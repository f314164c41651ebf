"""LAPACK through XLA's custom calls: what the factorization primitives'
lowerings (astjax/primitives/factorizations.py) share.

jaxlib ships LAPACK kernels as typed-FFI custom-call targets
(`lapack_{s,d,c,z}<routine>_ffi`). `register_targets()` hands them to XLA once per
process (`jaxlib.cpu._lapack`'s capsules, API version 1 = typed FFI), the first
time a module that calls one is lowered. `lapack_call` emits one call in the form
the kernels expect:

- `api_version = 4` and the kernel's attributes as a dictionary in
  `backend_config` (characters as `ui8`, e.g. mode = 'V' -> `86 : ui8`);
- operands and results of the largest rank in column-major matrix layout with the
  batch dimensions outermost; lower-rank ones (pivots, taus, info) row-major.
  Leading dimensions are batch: the kernels loop over them.

Then small StableHLO builders the lowerings need around the call (constants, iota
masks for triangles, slices and pads, the NaN-on-failure select).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..core import ShapedArray
from ..errors import NotImplementedInAstjaxError

__all__ = ["LAPACK_DTYPES", "register_targets", "target", "lapack_call", "info_aval", "nan_of", "nan_unless",
           "slice_minor", "const_like", "cpu_only", "layout_attr", "alias_attr"]

_REGISTERED = []
LAPACK_DTYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64),
                 np.dtype(np.complex128))
_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
           np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}


def register_targets():
    """Register jaxlib's LAPACK FFI kernels with XLA's CPU backend (once)."""
    if _REGISTERED:
        return
    from jaxlib import xla_client
    from jaxlib.cpu import _lapack
    _lapack.initialize()
    for name, capsule in _lapack.registrations().items():
        xla_client.register_custom_call_target(name, capsule, "cpu",
                                               int(name.endswith("_ffi")))
    _REGISTERED.append(True)


def target(routine, dtype):
    """The FFI target of `routine` (e.g. "getrf") for `dtype`: lapack_sgetrf_ffi."""
    try:
        return f"lapack_{_PREFIX[np.dtype(dtype)]}{routine}_ffi"
    except KeyError:
        raise NotImplementedInAstjaxError(
            f"LAPACK {routine} supports float32, float64, complex64 and complex128, "
            f"got {dtype}") from None


# the primitives (by their LAPACK routine) JAX lowers for CPU, GPU and TPU only: on
# another platform, JAX's error (its svd there is the TPU algorithm, which needs eigh)
_NO_GENERIC = {"syevd": "eigh", "heevd": "eigh", "gesdd": "eigh", "gesvd": "eigh",
               "geev": "eig", "gees": "schur", "gehrd": "hessenberg", "sytrd": "tridiagonal",
               "hetrd": "tridiagonal", "geqp3": "geqp3"}


# the routines JAX calls by XLA's own names on such a platform (its generic lowerings
# of geqrf and householder_product)
_GENERIC_CALLS = {"geqrf": "Qr", "orgqr": "ProductOfElementaryHouseholderReflectors",
                  "ungqr": "ProductOfElementaryHouseholderReflectors"}


def generic_platform(ctx) -> bool:
    """Whether `ctx` lowers for a platform JAX has no kernels for (a name it does not
    know): JAX lowers its platform-independent rules there."""
    return ctx.platform not in (None, "cpu", "cuda", "rocm", "tpu")


def cpu_only(ctx, what):
    if ctx.platform not in ("cpu", None):
        raise NotImplementedInAstjaxError(
            f"{what} runs through LAPACK custom calls, available on CPU only "
            f"(platform {ctx.platform})")


def layout_attr(dims) -> str:
    """A custom call's layout attribute: the minor-to-major dimension order `dims`."""
    dims = list(dims)
    if not dims:
        return "dense<> : tensor<0xindex>"
    return f"dense<[{', '.join(str(int(d)) for d in dims)}]> : tensor<{len(dims)}xindex>"


def alias_attr(aliases, single) -> str:
    """`output_operand_aliases` of a custom call: operand index -> the result written
    into it (`single`: the call has one result, named implicitly)."""
    return "[" + ", ".join(
        f"#stablehlo.output_operand_alias<output_tuple_indices = [{'' if single else o}], "
        f"operand_index = {i}, operand_tuple_indices = []>"
        for i, o in sorted(aliases.items())) + "]"


def _layout(rank, matrix):
    dims = [rank - 2, rank - 1] + list(range(rank - 3, -1, -1)) if matrix and rank >= 2 \
        else list(range(rank - 1, -1, -1))
    return layout_attr(dims)


def _attr_value(v):
    if isinstance(v, str):
        return f"{ord(v)} : ui8"
    if isinstance(v, bool):
        return "true" if v else "false"
    return f"{int(v)} : i32"


def lapack_call(ctx, routine, operands, in_avals, out_avals, *, target_name=None, aliases=None,
                **attrs):
    """Emit `routine`'s FFI custom call on `operands`; returns the result SSA names.
    Attributes: a str is one character (ui8), an int an i32, a bool a bool.
    `target_name` names a jaxlib CPU kernel that is not a per-dtype LAPACK routine
    (e.g. `tridiagonal_solve_perturbed_ffi`, which dispatches on the dtype itself).
    `aliases` maps an operand's index to the result the kernel overwrites it with
    (getrf's factors in place of the matrix, as JAX declares them): XLA then hands the
    kernel one buffer instead of a copy of the operand per call. Lowered for CUDA,
    the call is made with the cuSOLVER kernel JAX uses (for ROCm hipSOLVER's;
    primitives/cusolver.py)."""
    from . import cusolver
    if ctx.platform in cusolver.GPU_PLATFORMS and target_name is None:   # JAX's GPU kernel
        return cusolver.lapack_as_gpu(ctx, routine, operands, in_avals, out_avals, aliases,
                                      attrs)
    if routine in _GENERIC_CALLS and generic_platform(ctx) and target_name is None:
        return ctx.mb.op("stablehlo.custom_call", list(operands), list(out_avals), {
            "call_target_name": f'"{_GENERIC_CALLS[routine]}"', "backend_config": '""'})
    if routine in _NO_GENERIC and generic_platform(ctx):
        name = _NO_GENERIC[routine]
        raise NotImplementedInAstjaxError(
            f"MLIR translation rule for primitive '{name}' not found for platform "
            f"{ctx.platform}", hint=f"JAX lowers {name} for cpu, cuda, rocm and tpu only")
    cpu_only(ctx, f"LAPACK {routine}")
    register_targets()
    rank = max(a.ndim for a in in_avals)
    config = ", ".join(f"{k} = {_attr_value(v)}" for k, v in sorted(attrs.items()))
    name = target_name or target(routine, in_avals[0].dtype)
    call = {"call_target_name": f'"{name}"',
            "api_version": "4 : i32",
            "backend_config": "{" + config + "}",
            "operand_layouts": "[" + ", ".join(_layout(a.ndim, a.ndim == rank)
                                               for a in in_avals) + "]",
            "result_layouts": "[" + ", ".join(_layout(a.ndim, a.ndim == rank)
                                              for a in out_avals) + "]"}
    if aliases:
        call["output_operand_aliases"] = alias_attr(aliases, len(out_avals) == 1)
    return ctx.mb.op("stablehlo.custom_call", list(operands), list(out_avals), call)


def info_aval(aval):
    """The per-matrix status result (batch dimensions of `aval`)."""
    return ShapedArray(aval.shape[:-2], np.dtype(np.int32))


def const_like(ctx, value, aval):
    """A constant of `aval`'s shape and dtype, all `value`."""
    scalar = ctx.constant(np.asarray(value, aval.dtype), aval.update(shape=()))
    return ctx.broadcast(scalar, aval.update(shape=()), aval)


def nan_of(dtype):
    """The NaN a failed factorization fills `dtype` with: nan + nanj when complex."""
    return complex(np.nan, np.nan) if np.issubdtype(dtype, np.complexfloating) else np.nan


def nan_unless(ctx, ok, ok_aval, x, aval):
    """x where the matrix's `ok` (a bool per batch element) holds, NaN elsewhere (NaN in
    both parts of a complex element, as JAX)."""
    if aval.ndim == ok_aval.ndim and not aval.ndim:
        full = ok
    else:
        full = ctx.op1("stablehlo.broadcast_in_dim", [ok], aval.update(dtype=dtypes.bool_),
                       {"broadcast_dimensions": ctx.i64(range(ok_aval.ndim))})
    nan = const_like(ctx, nan_of(aval.dtype), aval)
    return ctx.op1("stablehlo.select", [full, x, nan], aval)


def info_ok(ctx, info, aval, direction="EQ"):
    """`info <direction> 0` per batch element (a bool array of info's shape)."""
    zero = const_like(ctx, 0, aval)
    return ctx.op1("stablehlo.compare", [info, zero], aval.update(dtype=dtypes.bool_), {
        "comparison_direction": f"#stablehlo<comparison_direction {direction}>"})


def slice_minor(ctx, x, aval, rows, cols):
    """x[..., :rows, :cols]; returns (ssa, aval)."""
    out = aval.update(shape=aval.shape[:-2] + (rows, cols))
    if out.shape == aval.shape:
        return x, aval
    return ctx.op1("stablehlo.slice", [x], out, {
        "start_indices": ctx.i64([0] * aval.ndim),
        "limit_indices": ctx.i64(out.shape),
        "strides": ctx.i64([1] * aval.ndim)}), out
