"""cuSOLVER, cuBLAS, cuSPARSE and jaxlib's own CUDA kernels through XLA's custom
calls: the CUDA lowerings of the linear-algebra primitives, as JAX 0.10.2 emits them.

On CPU the factorization lowerings call LAPACK (primitives/lapack.py); lowered for
"cuda" (`export(..., platforms=["cuda"])`, `lower(lowering_platforms=("cuda",))`, or
running on a GPU), `lapack.lapack_call` hands the same call to `lapack_as_gpu` here,
which names the CUDA kernel JAX uses for that routine and translates its attributes:
getrf, geqrf, orgqr/ungqr, ormqr/unmqr, potrf, syevd/heevd, sytrd/hetrd -> the
`cusolver_*_ffi` kernels; geev and geqp3 -> jaxlib's hybrid kernels (MAGMA or LAPACK
on the host: `cuhybrid_eig_*`, `cuhybrid_geqp3`; eig without left eigenvectors takes
cuSOLVER's geev when the plugin's cuSOLVER is 11.7.1 or newer, as JAX). Where the CUDA call differs in shape
the primitive's lowering calls its function here: `svd` (cuSOLVER's Jacobi SVD up to
1024 rows and columns, else gesvd), `tridiagonal_solve` (cuSPARSE gtsv2, or the Thomas
recurrence for m <= 2), `symmetric_product` (syrk), `cholesky_update`,
`lu_pivots_to_permutation`.
gees (schur) and gehrd (hessenberg) have no CUDA kernel: JAX's NotImplementedError.

Every call has JAX's form (`jax._src.lax.linalg._linalg_ffi_lowering`): attributes in
`mhlo.backend_config` (api version 1, empty `backend_config`), column-major layouts
for the operands and results of the largest rank, and, for the batch-partitionable
kernels, `mhlo.frontend_attributes = {num_batch_dims}` and, with Shardy, the
`sdy.sharding_rule` that lets the partitioner split the batch dimensions. The kernels
are registered with XLA (`register_targets`) from the CUDA plugin's modules when it is
installed; without it lowering still works (nothing runs).

Lowered for "rocm", every kernel is JAX's ROCm one: the same call with the `hip`
prefix (`hipsolver_getrf_ffi`, `hipsparse_gtsv2_ffi`, `hiphybrid_eig_real`,
`hip_lu_pivots_to_permutation`; `kernel_name`), registered from the ROCm plugin's
modules. Where JAX's ROCm lowering differs: the divide-and-conquer SVD is hipSOLVER's
gesdd (CUDA refuses it), eig always takes the hybrid kernel, and `symmetric_product` /
`cholesky_update` have no ROCm kernel (the platform-independent lowering, as JAX).
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..config import config
from ..core import ShapedArray
from ..errors import NotImplementedInAstjaxError
from . import lapack
from .base import GPU_PLATFORMS, lax_ops, lower_inline

__all__ = ["GPU_PLATFORMS", "kernel_name", "register_targets", "gpu_call", "lapack_as_gpu", "unpack_conjugate_pairs", "eigh", "svd",
           "tridiagonal_solve", "symmetric_product", "cholesky_update",
           "lu_pivots_to_permutation"]

_REGISTERED = []


def kernel_name(platform, target):
    """CUDA kernel `target`'s name on `platform`: ROCm's has the `hip` prefix where
    CUDA's has `cu` (cusolver_*, cusparse_*, cuhybrid_*, cu_*), as JAX names them."""
    if platform == "rocm" and target.startswith("cu"):
        return "hip" + target[2:]
    return target


def register_targets():
    """Register the GPU plugins' solver, linalg and sparse kernels with XLA (once;
    nothing for a plugin that is not installed)."""
    if _REGISTERED:
        return
    from jaxlib import gpu_linalg, gpu_solver, gpu_sparse, xla_client
    for module in (gpu_linalg, gpu_solver, gpu_sparse):
        for platform, entries in module.registrations().items():
            for name, capsule, api_version in entries:
                xla_client.register_custom_call_target(name, capsule, platform, api_version)
        for name in getattr(module, "batch_partitionable_targets", lambda: [])():
            xla_client.register_custom_call_as_batch_partitionable(name)
    gpu_solver.initialize_hybrid_kernels()
    _REGISTERED.append(True)


def _attr(v):
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, np.uint8):
        return f"{int(v)} : ui8"
    if isinstance(v, str):
        return f'"{v}"'
    return f"{int(v)} : i64"


def _factor_name(i):
    """Shardy's printed name of factor i: i, j, ..., z, then z_1, z_2, ..."""
    return chr(ord("i") + i) if i < 18 else f"z_{i - 17}"


def _sharding_rule(nb, in_avals, out_avals):
    """JAX's `sdy.sharding_rule` of a batch-partitionable kernel: the leading `nb`
    dimensions of every value are shared batch factors, every other dimension its
    own factor (numbered in order of appearance)."""
    sizes, batch = [], []

    def dims(a):
        out = []
        rest = a.ndim - nb
        if nb and rest >= 0:
            for j in range(nb):
                if j == len(batch):
                    batch.append(len(sizes))
                    sizes.append(a.shape[j])
                out.append(batch[j])
        for d in a.shape[a.ndim - rest if nb and rest >= 0 else 0:]:
            out.append(len(sizes))
            sizes.append(d)
        return "[" + ", ".join(_factor_name(f) for f in out) + "]"
    lhs = ", ".join(dims(a) for a in in_avals)
    rhs = ", ".join(dims(a) for a in out_avals)
    factors = ", ".join(f"{_factor_name(i)}={s}" for i, s in enumerate(sizes))
    return f"#sdy.op_sharding_rule<({lhs})->({rhs}) {{{factors}}}, custom>"


def _layout(a, rank, column_major):
    if column_major and a.ndim == rank and rank >= 2:
        return lapack.layout_attr([rank - 2, rank - 1] + list(range(rank - 3, -1, -1)))
    return lapack.layout_attr(range(a.ndim - 1, -1, -1))


def gpu_call(ctx, target, operands, in_avals, out_avals, *, aliases=None, column_major=True,
             non_batch=2, partitionable=True, **attrs):
    """Emit a call of CUDA kernel `target` (its ROCm twin when lowering for "rocm":
    `kernel_name`) in JAX's form; returns the result SSA names. Attributes: bool, str, np.uint8 (`ui8`) or int (`i64`). `non_batch`: the
    trailing dimensions of the largest operand that are not batch; `partitionable`:
    the kernel loops over the batch (frontend attribute and sharding rule)."""
    register_targets()
    target = kernel_name(ctx.platform, target)
    rank = max(a.ndim for a in in_avals)
    config_ = ", ".join(f"{k} = {_attr(v)}" for k, v in sorted(attrs.items()))
    call = {"call_target_name": f'"{target}"',
            "backend_config": '""',
            "mhlo.backend_config": "{" + config_ + "}",
            "operand_layouts": "[" + ", ".join(_layout(a, rank, column_major)
                                               for a in in_avals) + "]",
            "result_layouts": "[" + ", ".join(_layout(a, rank, column_major)
                                              for a in out_avals) + "]"}
    if aliases:
        call["output_operand_aliases"] = lapack.alias_attr(aliases, len(out_avals) == 1)
    if partitionable:
        nb = rank - non_batch
        call["mhlo.frontend_attributes"] = f'{{num_batch_dims = "{nb}"}}'
        if config.read("jax_use_shardy_partitioner"):
            call["sdy.sharding_rule"] = _sharding_rule(nb, in_avals, out_avals)
    return ctx.mb.op("stablehlo.custom_call", list(operands), list(out_avals), call)


def _magma():
    return str(config.read("jax_gpu_use_magma"))


def _lower(attrs):
    return {"lower": attrs["uplo"] == "L"}


# LAPACK routine -> (the CUDA kernel, its attributes from LAPACK's), as JAX picks them
_KERNELS = {
    "getrf": ("cusolver_getrf_ffi", lambda a: {}),
    "geqrf": ("cusolver_geqrf_ffi", lambda a: {}),
    "orgqr": ("cusolver_orgqr_ffi", lambda a: {}),
    "ungqr": ("cusolver_orgqr_ffi", lambda a: {}),
    "ormqr": ("cusolver_ormqr_ffi", lambda a: a),
    "unmqr": ("cusolver_ormqr_ffi", lambda a: a),
    "potrf": ("cusolver_potrf_ffi", _lower),
    "sytrd": ("cusolver_sytrd_ffi", _lower),
    "hetrd": ("cusolver_sytrd_ffi", _lower),
    "geqp3": ("cuhybrid_geqp3", lambda a: {"magma": _magma()}),
    "geev": (None, lambda a: {"magma": _magma(), "left": a["compute_left"] == "V",
                              "right": a["compute_right"] == "V"}),
}
# the LAPACK routines of primitives JAX lowers on CPU only
_CPU_ONLY = {"gees": "schur", "gehrd": "hessenberg"}


def lapack_as_gpu(ctx, routine, operands, in_avals, out_avals, aliases, attrs):
    """LAPACK `routine`'s call (as `lapack.lapack_call` gets it) made with the CUDA
    kernel JAX uses instead; the same results."""
    if routine not in _KERNELS:
        name = _CPU_ONLY.get(routine, routine)
        raise NotImplementedInAstjaxError(
            f"MLIR translation rule for primitive '{name}' not found for platform "
            f"{ctx.platform}", hint=f"{name} has a LAPACK (CPU) lowering only, as in JAX")
    target, translate = _KERNELS[routine]
    if routine == "geev" and attrs["compute_left"] == "N" and ctx.platform == "cuda" \
            and _have_geev():
        return _geev(ctx, operands[0], in_avals[0], attrs["compute_right"] == "V")
    if routine == "geev":
        kind = "comp" if dtypes.issubdtype(in_avals[0].dtype, np.complexfloating) else "real"
        target = f"cuhybrid_eig_{kind}"
    return gpu_call(ctx, target, operands, in_avals, out_avals, aliases=aliases,
                    **translate(attrs))


_GEEV = []


def _have_geev():
    """Whether the CUDA plugin's cuSOLVER has geev (11.7.1 or newer), as JAX asks
    (`jax._src.lib.cuda_versions`); False without the plugin."""
    if not _GEEV:
        try:
            from jaxlib.plugin_support import import_from_plugin
            versions = import_from_plugin("cuda", "_versions")
            _GEEV.append(bool(versions) and versions.cusolver_get_version() >= 11701)
        except Exception:  # noqa: BLE001  (no plugin, no driver: the hybrid kernel)
            _GEEV.append(False)
    return _GEEV[0]


def unpack_conjugate_pairs(w, v):
    """Complex eigenvectors from the real ones cuSOLVER's (and LAPACK's) geev packs: a
    conjugate pair w_j, w_j+1 shares columns j (real part) and j+1 (imaginary part)."""
    L = lax_ops()
    shape = core.get_aval(v).shape
    nd, n = len(shape), shape[-1]
    if n == 0:
        return L.complex(v, L.full_like(v, 0))
    is_real = L.eq(L.imag(w), L.full_like(L.imag(w), 0))
    count = L.cumsum(L.convert_element_type(L.bitwise_not(is_real), np.int32), nd - 2)
    start = L.eq(L.rem(count, L.full_like(count, 2)), L.full_like(count, 1))
    zero = np.zeros((), core.get_aval(v).dtype)
    keep = [(0, 0, 0)] * (nd - 1)
    left = L.pad(v, zero, keep + [(-1, 1, 0)])
    right = L.pad(v, zero, keep + [(1, -1, 0)])
    dims = tuple(range(nd - 2)) + (nd - 1,)
    is_real = L.broadcast_in_dim(is_real, shape, dims)
    start = L.broadcast_in_dim(start, shape, dims)
    re = L.select(L.bitwise_or(is_real, start), v, right)
    im = L.select(is_real, L.full_like(v, 0), L.select(start, left, L.neg(v)))
    return L.complex(re, im)


def _geev(ctx, a, aval, right):
    """cuSOLVER's geev (right eigenvectors only), in the CPU call's results: (w's real
    and imaginary parts,) vl (unused), vr, info."""
    n, batch = aval.shape[-1], aval.shape[:-2]
    real = not dtypes.issubdtype(aval.dtype, np.complexfloating)
    cdt = np.dtype(np.result_type(aval.dtype, np.complex64))
    w_aval, info = ShapedArray(batch + (n,), cdt), ShapedArray(batch, np.dtype(np.int32))
    _, w, _, vr, status = gpu_call(ctx, "cusolver_geev_ffi", [a], [aval],
                                   [aval, w_aval, aval, aval, info], left=False, right=right)
    if not real:
        return [w, vr, vr, status]
    vr, = lower_inline(ctx, lambda w, v: [unpack_conjugate_pairs(w, v)], [w_aval, aval], [w, vr])
    part = w_aval.update(dtype=aval.dtype)
    return [ctx.op1("stablehlo.real", [w], part), ctx.op1("stablehlo.imag", [w], part), vr, vr,
            status]


def _conj_transpose(ctx, v, aval):
    """The conjugate transpose of v's trailing matrices."""
    nd = aval.ndim
    out = aval.update(shape=aval.shape[:-2] + aval.shape[:-3:-1])
    vt = ctx.op1("stablehlo.transpose", [v], out, {
        "permutation": ctx.i64(list(range(nd - 2)) + [nd - 1, nd - 2])})
    if not dtypes.issubdtype(aval.dtype, np.complexfloating):
        return vt, out
    part = out.update(dtype=np.dtype(np.finfo(aval.dtype).dtype))
    re = ctx.op1("stablehlo.real", [vt], part)
    im = ctx.op1("stablehlo.negate", [ctx.op1("stablehlo.imag", [vt], part)], part)
    return ctx.op1("stablehlo.complex", [re, im], out), out


def eigh(ctx, a, out_avals, lower, jacobi):
    """cuSOLVER's symmetric eigensolver (`out_avals`: [v, w, info]) with JAX's
    `algorithm` attribute: 0 for the default (`jacobi` None: no implementation
    asked for), 2 for Jacobi (syevj), 1 otherwise (syevd)."""
    code = 0 if jacobi is None else 2 if jacobi else 1
    return gpu_call(ctx, "cusolver_syevd_ffi", [a], out_avals[:1], out_avals, aliases={0: 0},
                    lower=bool(lower), algorithm=np.uint8(code))


def svd(ctx, a, out_avals, full, uv, algorithm="DEFAULT", given=None):
    """The SVD JAX computes on CUDA where the CPU calls LAPACK's gesdd (`out_avals`:
    gesdd's, [a, s, u, vt, info]), by `algorithm` (an `SvdAlgorithm` name; None for
    `given`, what the caller passed, when it is none): JACOBI is gesvdj (its batched
    kernel has no economy mode below 33 rows or columns, so a reduced u, vt is sliced
    from the full ones), POLAR gesvdp, QR the QR-based gesvd (on the transpose when
    m < n), DIVIDE_AND_CONQUER hipSOLVER's gesdd on ROCm (refused on CUDA, as JAX);
    DEFAULT is Jacobi up to 1024 rows and columns, else gesvd.
    -> [a, s, u, vt, info]; u and vt only when `uv`."""
    aval, s_aval, u_aval, vt_aval, info = out_avals
    m, n = aval.shape[-2:]
    k, batch = min(m, n), aval.shape[:-2]
    if algorithm == "DIVIDE_AND_CONQUER" and ctx.platform == "rocm":   # hipSOLVER's gesdd
        if not uv:
            u_aval = vt_aval = ShapedArray((), aval.dtype)
        return gpu_call(ctx, "cusolver_gesdd_ffi", [a], [aval],
                        [aval, s_aval, u_aval, vt_aval, info], aliases={0: 0},
                        full_matrices=full, compute_uv=uv, transposed=False)
    if algorithm == "DIVIDE_AND_CONQUER":
        raise NotImplementedInAstjaxError(
            "Divide-and-conquer SVD (SvdAlgorithm.DIVIDE_AND_CONQUER) is only supported on "
            "AMD (ROCm) GPUs, not on NVIDIA CUDA.", hint="JAX 0.10.2 refuses it too")
    if algorithm not in ("DEFAULT", "QR", "JACOBI", "POLAR"):
        raise NotImplementedInAstjaxError(f"Unsupported SVD algorithm on GPU: {given!r}",
                                          hint="pass a jax.lax.linalg.SvdAlgorithm")
    if algorithm == "DEFAULT":
        algorithm = "JACOBI" if m <= 1024 and n <= 1024 else "GESVD"
    if algorithm in ("JACOBI", "POLAR"):
        econ = not full and (algorithm == "POLAR" or (m > 32 and n > 32))
        ju = aval.update(shape=batch + (m, k if econ else m))
        jv = aval.update(shape=batch + (n, k if econ else n))
        kernel = "cusolver_gesvdj_ffi" if algorithm == "JACOBI" else "cusolver_gesvdp_ffi"
        res = gpu_call(ctx, kernel, [a], [aval], [aval, s_aval, ju, jv, info],
                       aliases={0: 0}, full_matrices=not econ, compute_uv=uv)
        if uv:
            res[3], jvt = _conj_transpose(ctx, res[3], jv)
            if not full and not econ:
                res[2], _ = lapack.slice_minor(ctx, res[2], ju, m, k)
                res[3], _ = lapack.slice_minor(ctx, res[3], jvt, k, n)
        return res
    transposed = m < n
    if not uv:
        u_aval = vt_aval = ShapedArray((), aval.dtype)
    outs = [aval, s_aval, vt_aval, u_aval, info] if transposed else \
        [aval, s_aval, u_aval, vt_aval, info]
    res = gpu_call(ctx, "cusolver_gesvd_ffi", [a], [aval], outs, aliases={0: 0},
                   column_major=not transposed, full_matrices=full,
                   compute_uv=uv, transposed=transposed)
    if transposed:
        res[2], res[3] = res[3], res[2]
    return res


def _thomas(dl, d, du, b):
    """A X = b for the tridiagonal A by the Thomas recurrence (unrolled; JAX's
    generic lowering, used on CUDA for m <= 2 where cuSPARSE's gtsv2 needs m >= 3)."""
    L = lax_ops()
    shape = core.get_aval(b).shape
    nd, m = len(shape), shape[-2]
    row_shape = shape[:-2] + shape[-1:]

    def at(v, i):    # v[..., i] broadcast along a row of b
        return L.broadcast_in_dim(L.index_in_dim(v, i, nd - 2, keepdims=False), row_shape,
                                  tuple(range(nd - 2)))

    def row(i):
        return L.index_in_dim(b, i, nd - 2, keepdims=False)
    cp, dp = L.div(at(du, 0), at(d, 0)), L.div(row(0), at(d, 0))
    cps, dps = [cp], [dp]
    for i in range(1, m):
        den = L.sub(at(d, i), L.mul(at(dl, i), cp))
        cp = L.div(at(du, i), den)
        dp = L.div(L.sub(row(i), L.mul(at(dl, i), dp)), den)
        cps.append(cp)
        dps.append(dp)
    xs = [dps[-1]]
    for i in range(m - 2, -1, -1):
        xs.insert(0, L.sub(dps[i], L.mul(cps[i], xs[0])))
    return L.concatenate([L.expand_dims(x, (nd - 2,)) for x in xs], nd - 2)


def tridiagonal_solve(ctx, dl, d, du, b, perturb_singular):
    """`tridiagonal_solve_p` on CUDA: jaxlib's perturbing kernel, cuSPARSE gtsv2
    (m >= 3) or the Thomas recurrence."""
    b_aval = ctx.avals_in[3]
    if perturb_singular:
        return gpu_call(ctx, "cu_tridiagonal_solve_perturbed", [dl, d, du, b], ctx.avals_in,
                        [b_aval])[0]
    if b_aval.shape[-2] <= 2:
        return lower_inline(ctx, lambda *xs: [_thomas(*xs)], ctx.avals_in,
                            [dl, d, du, b])[0]
    return gpu_call(ctx, "cusparse_gtsv2_ffi", [dl, d, du, b], ctx.avals_in, [b_aval],
                    aliases={3: 0})[0]


def symmetric_product(ctx, a, c, alpha, beta):
    """`symmetric_product_p` on CUDA: cuBLAS syrk, alpha and beta as scalar operands."""
    a_aval, c_aval = ctx.avals_in
    scalar = ShapedArray((), a_aval.dtype)
    alpha = ctx.constant(np.asarray(alpha, a_aval.dtype), scalar)
    beta = ctx.constant(np.asarray(beta, a_aval.dtype), scalar)
    return gpu_call(ctx, "cusolver_syrk_ffi", [a, c, alpha, beta],
                    [a_aval, c_aval, scalar, scalar], [c_aval], aliases={1: 0},
                    column_major=False, partitionable=False, transpose=False)[0]


def cholesky_update(ctx, r, w):
    """`cholesky_update_p` on CUDA: jaxlib's kernel, updating r and w in place."""
    return gpu_call(ctx, "cu_cholesky_update_ffi", [r, w], ctx.avals_in, ctx.avals_in,
                    aliases={0: 0, 1: 1}, column_major=False, partitionable=False)[0]


def lu_pivots_to_permutation(ctx, pivots):
    """`lu_pivots_to_permutation_p` on CUDA: jaxlib's kernel."""
    return gpu_call(ctx, "cu_lu_pivots_to_permutation", [pivots], ctx.avals_in,
                    ctx.avals_out, column_major=False, non_batch=1)[0]
