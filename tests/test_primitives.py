"""Every primitive in `core.primitives`, table-driven:

(a) `abstract_eval` gives the shape and dtype of the NumPy reference (`impl`);
(b) the StableHLO lowering, compiled and run by XLA (`runtime.eager_apply`), equals
    the NumPy reference on random inputs of several shapes and dtypes (rtol 1e-5
    for f32, exact for ints and bools);
(c) every primitive has a lowering or is marked unsupported in `Primitive.unsupported`.

Elementwise primitives get their cases from their family (dtypes are probed with
`abstract_eval`); the others have hand-written cases in `SPECIAL`. A primitive with
neither fails `test_every_primitive_has_cases`: add it to `SPECIAL`, or to
`NO_CASES` with the test file that covers it.
"""
from __future__ import annotations

import numpy as np
import pytest

import astjax  # noqa: F401  (registers primitives, the runtime)
from astjax import core, dtypes
from astjax.random.impls import threefry_prng_impl
from astjax.codegen import runtime
from astjax.errors import AstjaxError, DTypeError, RuntimeDTypeError, ShapeError
from astjax.primitives import elementwise as ew, ops
from astjax.primitives.gather import GatherDimensionNumbers as GDN, GatherScatterMode as M
from astjax.primitives.scatter import ScatterDimensionNumbers as SDN
from astjax.primitives.reductions import dot_dims

f32, f16, bf16, c64 = np.float32, np.float16, dtypes.bfloat16, np.complex64
i8, i16, i32, u8, u32, b1 = np.int8, np.int16, np.int32, np.uint8, np.uint32, np.bool_
DTYPES = [f32, f16, bf16, c64, i32, i8, u8, u32, b1]
SHAPES = [(2, 3), (), (4,), (1, 3, 2), (0, 3)]

# Primitives whose cases live elsewhere: they take jaxprs or need a named-axis
# environment (no NumPy reference outside one).
NO_CASES: dict[str, str] = {
    "dim_as_value": "a symbolic dimension as a value, only inside a shape-polymorphic export: tests/test_shape_poly.py",
    "platform_index": "the lowering platform's branch of lax.platform_dependent, only staged: tests/test_export_platforms.py",
    **{n: "control flow: tests/test_control_flow.py" for n in ("cond", "while", "scan")},
    "custom_linear_solve": "takes jaxprs: tests/test_custom_solves.py (vs JAX's stored values)",
    "ffi_call": "calls a named XLA FFI target: tests/test_ffi.py (jaxlib's LAPACK kernels vs JAX's stored values, a compiled C++ kernel vs NumPy)",
    **{n: "tokens have no value: tests/test_ffi_kernels.py (printed jaxprs vs JAX's, the "
          "order of compiled kernels' side effects)" for n in ("create_token", "after_all")},
    **{n: "takes a jaxpr: tests/test_ad_rules.py" for n in (
        "custom_jvp_call", "custom_vjp_call", "custom_lin", "remat2")},
    "custom_vmap_call": "takes a jaxpr and the user's vmap rule: tests/test_top_names.py "
                        "(custom_vmap / sequential_vmap vs JAX's stored values)",
    **{n: "named-axis collective: tests/test_vmap.py" for n in (
        "psum", "pmax", "pmin", "axis_index", "all_gather", "ppermute", "all_to_all",
        "reduce_scatter")},
    "pvary": "named-axis type cast (lax.pcast): tests/test_shard_map_vma.py",
    "psum_invariant": "lax.psum inside a check_vma shard_map body: tests/test_vma_reverse.py",
    "all_gather_invariant": "named-axis collective (all_gather(to='invarying')): "
                            "tests/test_all_gather_to.py",
    "all_gather_reduced": "named-axis collective (all_gather(to='reduced')): "
                          "tests/test_vma_reverse.py",
    "unreduced_reduce_scatter": "named-axis collective (psum_scatter of an unreduced "
                                "value): tests/test_vma_reduce_scatter.py",
    **{n: "named-axis collective: tests/test_collectives_p2p.py" for n in (
        "pbroadcast", "psend", "precv", "ragged_all_to_all")},
    **{n: "calls back into Python: tests/test_callbacks.py" for n in (
        "pure_callback", "io_callback", "debug_callback")},
    "debug_print": "calls back into Python: tests/test_debug_print.py",
    "conv_general_dilated": "tests/test_convolution.py (vs its NumPy reference)",
    **{n: "tests/test_windowed.py (vs the NumPy references)" for n in (
        "reduce_window_sum", "reduce_window_max", "reduce_window_min", "select_and_gather_add",
        "select_and_scatter_add")},
    **{n: "takes jaxprs: tests/test_lax_rest.py (XLA and the NumPy reference vs JAX's "
          "stored values)" for n in ("reduce_window", "select_and_scatter")},
    "device_put": "takes devices: tests/test_lax_rest.py (staged device_put vs JAX's jaxprs)",
    **{n: "partitioned programs: tests/test_sharded_jit.py, tests/test_shard_map.py (vs JAX)"
       for n in ("sharding_constraint", "shard_map")},
    "fft": "tests/test_fft.py (vs numpy.fft)",
    "random_gamma": "its impl runs its lowering (no NumPy copy of XLA's bits): "
                    "tests/test_scaled_and_dtypes.py (samples, vmap, jvp vs JAX's stored "
                    "values), tests/test_gamma_grad.py (derivatives vs JAX and the CDF)",
    "composite": "takes a jaxpr: tests/test_lax_more.py (values, lowering vs JAX's)",
    "compute_on": "takes a jaxpr (compute_on2): tests/test_host_memory_more.py (jaxpr, "
                  "module, values, grad, vmap vs JAX's)",
    **{n: "takes jaxprs (custom_vjp's optimize_remat=True): tests/test_optimize_remat.py "
          "(values, derivatives, vmap, kernel runs vs JAX's stored results)"
       for n in ("remat_opt", "closed_call")},
    "call": "takes an open jaxpr (JAX's call_p, astjax stages none): "
            "tests/test_sparse_bcoo.py (values, jit, grad, vmap)",
    "jit": "takes a jaxpr (an inner jit): tests/test_jit_call.py (printed jaxprs, StableHLO, "
           "values, jvp/grad/vmap vs JAX's stored results)",
    "linear_call": "takes jaxprs and the user's transpose: tests/test_linear_call.py (values, "
                   "transposes, grad, vmap vs JAX's stored values)",
    "threefry2x32": "tests/test_extend_random.py (Random123's known answer, JAX's bits, vmap)",
    "random_split": "tests/test_prng_ops2.py (printed jaxprs, vmapped key data vs JAX's)",
    "random_fold_in": "tests/test_prng_ops2.py (printed jaxprs, vmapped key data vs JAX's)",
    "random_bits": "tests/test_prng_ops2.py (printed jaxprs, vmapped bits vs JAX's)",
    "random_seed": "tests/test_prng_ops.py (printed jaxprs, key data vs JAX's stored values "
                   "for three implementations, eager bind, nested vmap, source)",
    **{n: "tests/test_lax_primitive_objects.py (bind with JAX's params vs JAX's stored "
          "values)" for n in ("split", "stack", "unstack", "tile", "top_k", "approx_top_k")},
    "scaled_dot": "float8 operands and scales: tests/test_dot_algorithm.py (XLA and the "
                  "NumPy reference vs JAX's stored values)",
    **{n: "mutable references, discharged before lowering: tests/test_refs.py (values "
          "and printed jaxprs vs JAX's, the NumPy reference interpreter)"
       for n in ("new_ref", "empty_ref", "free_ref", "freeze", "get", "swap", "addupdate")},
    "call_exported": "runs an exported module: tests/test_export.py, "
                     "tests/test_export_jax_artifacts.py (JAX's artifacts vs its stored values)",
    **{n: "XLA's generators, no NumPy reference: tests/test_lax_more.py (bits vs JAX's "
          "stored values)" for n in ("rng_bit_generator", "rng_uniform")},
    **{n: "LAPACK custom calls: tests/test_linalg_lapack.py (vs JAX's stored values)"
       for n in ("lu", "qr", "eigh", "svd", "eig", "schur", "geqrf", "householder_product",
                 "hessenberg")},
    **{n: "LAPACK custom calls: tests/test_linalg_more.py (vs JAX's stored values and "
          "finite differences)" for n in ("tridiagonal", "tridiagonal_solve", "ormqr")},
    **{n: "tests/test_special_inc.py (vs JAX's stored values and SciPy)"
       for n in ("igamma", "igammac", "betainc", "igamma_grad_a")},
    **{n: "tests/test_special_more.py (vs JAX's stored values, SciPy, and impl vs lowering)"
       for n in ("zeta", "bessel_i0e", "bessel_i1e")},
}


class Case:
    def __init__(self, args, params=None, tol=None, ident=""):
        self.args, self.params, self.tol, self.ident = list(args), dict(params or {}), tol, ident

# ------------------------------------------------------------------ value makers


def _rng(seed):
    return np.random.default_rng(seed)


def rand(shape, dtype, seed=0, lo=-3.0, hi=3.0, full_range=False, specials=False):
    r = _rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return r.random(shape) < 0.5
    if dtypes.issubdtype(dtype, np.complexfloating):
        return (r.uniform(lo, hi, shape) + 1j * r.uniform(lo, hi, shape)).astype(dtype)
    if dtypes.is_float(dtype):
        v = r.uniform(lo, hi, shape).astype(dtype)
        if specials and v.size >= 4:
            flat = v.reshape(-1)
            flat[:4] = [np.nan, -0.0, 0.0, np.inf][: flat.size]
            r.shuffle(flat)
        return v
    info = np.iinfo(dtype)
    if full_range:
        return r.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    return r.integers(max(info.min, -5), 6, shape).astype(dtype)


def ints(values, dtype=i32):
    return np.asarray(values, dtype)

# ------------------------------------------------------------ elementwise cases


_UNARY_RANGE = {"log": (0.1, 4), "sqrt": (0.1, 4), "rsqrt": (0.1, 4), "log1p": (-0.9, 3),
                "acosh": (1.1, 4), "atanh": (-0.95, 0.95), "asin": (-0.95, 0.95),
                "acos": (-0.95, 0.95), "erf_inv": (-0.95, 0.95), "lgamma": (0.1, 5),
                "digamma": (0.1, 5), "tan": (-1.2, 1.2)}
_LOOSE = {"lgamma", "digamma", "erf_inv", "erf", "erfc", "cbrt", "pow", "tan", "acosh",
          "atanh", "asinh", "acos", "asin", "logistic", "expm1", "log1p", "exp2"}
_BITS = {"population_count", "clz", "not", "and", "or", "xor", "shift_left",
         "shift_right_arithmetic", "shift_right_logical"}


def _accepts(p, *avals, **params):
    try:
        p.abstract_eval(*avals, **params)
        return True
    except (DTypeError, ShapeError, RuntimeDTypeError):  # (eq_to of complex: XLA's refusal)
        return False


def _unary_cases(name, p):
    out = []
    k = 0
    for dt in DTYPES:
        if not _accepts(p, core.ShapedArray((2,), dt), **({"y": 2} if name == "integer_pow" else {})):
            continue
        lo, hi = _UNARY_RANGE.get(name, (-3.0, 3.0))
        for j in range(2):
            shape = SHAPES[(k + j) % len(SHAPES)]
            x = rand(shape, dt, seed=k + j, lo=lo, hi=hi, full_range=name in _BITS)
            out.append(Case([x], ident=f"{np.dtype(dt).name}{list(shape)}"))
        k += 1
    if name == "round":
        out = [Case(c.args, {"rounding_method": m}, ident=c.ident + f"-m{m}")
               for c in out for m in (0, 1)]
    if name == "integer_pow":
        out = [Case(c.args, {"y": y}, ident=c.ident + f"-y{y}") for c in out
               for y in (0, 1, 2, 3, -2) if y >= 0 or dtypes.is_inexact(c.args[0].dtype)]
    return out


def _binary_args(name, dt, shape, seed):
    if name == "pow":
        return rand(shape, dt, seed, 0.1, 3), rand(shape, dt, seed + 1, -2, 2)
    if name.startswith("shift"):
        bits = np.dtype(dt).itemsize * 8
        y = _rng(seed).integers(0, bits + 3, shape)
        if dtypes.issubdtype(dt, np.signedinteger):
            y = np.where(_rng(seed + 2).random(shape) < 0.1, -1, y)
        return rand(shape, dt, seed, full_range=True), y.astype(dt)
    if name in ("eq", "ne", "lt", "le", "gt", "ge", "max", "min"):
        x = rand(shape, dt, seed, specials=True)
        y = rand(shape, dt, seed + 1, specials=True)
        if x.size:  # some ties
            y.reshape(-1)[::3] = x.reshape(-1)[::3]
        return x, y
    return rand(shape, dt, seed, full_range=name in _BITS), rand(shape, dt, seed + 1,
                                                                 full_range=name in _BITS)


def _binary_cases(name, p):
    out = []
    k = 0
    for dt in DTYPES:
        a = core.ShapedArray((2,), dt)
        if not _accepts(p, a, a):
            continue
        for j, (sx, sy) in enumerate([((2, 3), (2, 3)), ((), (4,)), ((3, 1), ())]):
            if j == 2 and k % 2:
                sx, sy = (0, 2), (0, 2)
            x, _ = _binary_args(name, dt, sx, 10 * k + j)
            _, y = _binary_args(name, dt, sy, 10 * k + j)
            out.append(Case([x, y], ident=f"{np.dtype(dt).name}{list(sx)}{list(sy)}"))
        k += 1
    return out

# -------------------------------------------------------------------- special


def _reducer_cases(name):
    p = core.primitives[name]
    out = []
    for dt in [f32, i32, u8, b1, c64, f16]:
        if not _accepts(p, core.ShapedArray((2, 3), dt), axes=(0,)):
            continue
        for shape, axes in [((2, 3), (0,)), ((2, 3), (1,)), ((3, 4, 2), (0, 2)), ((5,), (0,)),
                            ((2, 0), (1,))]:
            x = rand(shape, dt, seed=len(out), lo=-1.5, hi=1.5, specials=name in (
                "reduce_max", "reduce_min") and dt == f32)
            out.append(Case([x], {"axes": axes}, tol=(1e-4, 1e-5) if dt != f16 else (1e-2, 1e-2),
                            ident=f"{np.dtype(dt).name}{list(shape)}{list(axes)}"))
    return out


def _arg_cases(name):
    out = []
    for dt in [f32, i32, u8, b1, bf16]:
        for shape, ax in [((3, 4), 0), ((3, 4), 1), ((6,), 0), ((2, 3, 4), 2)]:
            x = rand(shape, dt, seed=len(out), specials=True)
            if dt != b1 and x.size:
                x.reshape(-1)[1::4] = x.reshape(-1)[0]  # ties
            out.append(Case([x], {"axes": (ax,), "index_dtype": np.dtype(i32)},
                            ident=f"{np.dtype(dt).name}{list(shape)}ax{ax}"))
    x = np.array([[1.0, np.nan, 3.0, np.nan], [np.nan, 0, 5, 5]], f32)
    out.append(Case([x], {"axes": (1,), "index_dtype": np.dtype(i8)}, ident="nans-i8"))
    return out


def _cum_cases(name):
    dts = {"cumsum": [f32, i32, u8], "cumprod": [f32, i32], "cummax": [f32, i32, b1, bf16],
           "cummin": [f32, u8, b1], "cumlogsumexp": [f32]}[name]
    out = []
    for dt in dts:
        for shape, axis in [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), 1), ((0, 3), 0)]:
            for rev in (False, True):
                x = rand(shape, dt, seed=len(out), lo=-1.5, hi=1.5,
                         specials=name in ("cummax", "cummin"))
                if name == "cumlogsumexp" and x.size > 2:
                    x.reshape(-1)[1] = -np.inf
                out.append(Case([x], {"axis": axis, "reverse": rev}, tol=(1e-5, 1e-5),
                                ident=f"{np.dtype(dt).name}{list(shape)}ax{axis}r{int(rev)}"))
    return out


def _sort_cases():
    out = []
    keys = np.array([3.0, -0.0, np.nan, 0.0, -1.0, np.inf, -np.inf, 3.0, -np.nan, 2.0], f32)
    for dt in [f32, i32, u8, b1, bf16]:
        for shape, dim in [((10,), 0), ((2, 5), 1), ((5, 2), 0)]:
            x = keys.reshape(shape).astype(dt) if dt in (f32, bf16) else rand(shape, dt, len(out))
            out.append(Case([x], {"dimension": dim, "is_stable": True, "num_keys": 1},
                            ident=f"{np.dtype(dt).name}{list(shape)}d{dim}"))
    k = rand((4, 6), i32, 1)
    v = rand((4, 6), f32, 2)
    w = rand((4, 6), u8, 3)
    out.append(Case([k, v], {"dimension": 1, "is_stable": True, "num_keys": 1}, ident="kv"))
    out.append(Case([k, w, v], {"dimension": 0, "is_stable": True, "num_keys": 2}, ident="2keys"))
    out.append(Case([keys.reshape(2, 5), rand((2, 5), i32, 4)],
                    {"dimension": 1, "is_stable": True, "num_keys": 2}, ident="2keys-nan"))
    uniq = _rng(5).permutation(24).astype(f32).reshape(4, 6)
    out.append(Case([uniq, k], {"dimension": 1, "is_stable": False, "num_keys": 1},
                    ident="unstable"))
    cx = np.array([1 + 2j, 1 - 1j, -3 + 0j, 1 + 0j, np.nan + 0j, -3 - 1j], c64)
    out.append(Case([cx], {"dimension": 0, "is_stable": True, "num_keys": 1}, ident="complex"))
    return out


def _gather_cases():
    out = []
    x = rand((5, 4), f32, 0)
    dn_rows = GDN(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    for mode in (M.CLIP, M.FILL_OR_DROP, M.PROMISE_IN_BOUNDS):
        for idx in (ints([[0], [4], [2]]), ints([[5], [-1], [1], [9]])):
            fv = np.nan if mode == M.FILL_OR_DROP else None
            out.append(Case([x, idx], dict(dimension_numbers=dn_rows, slice_sizes=(1, 4),
                                           mode=mode, fill_value=fv),
                            ident=f"rows-{mode.name}-{len(idx)}"))
    out.append(Case([x, ints([[2], [0]])], dict(
        dimension_numbers=GDN(offset_dims=(0,), collapsed_slice_dims=(0,), start_index_map=(0,)),
        slice_sizes=(1, 4), mode=M.CLIP), ident="offset-first"))
    y = rand((4, 5), i32, 1)
    pts = ints(_rng(2).integers(-1, 6, (2, 3, 2)))
    for mode in (M.CLIP, M.FILL_OR_DROP):
        out.append(Case([y, pts], dict(
            dimension_numbers=GDN(offset_dims=(), collapsed_slice_dims=(0, 1),
                                  start_index_map=(0, 1)),
            slice_sizes=(1, 1), mode=mode, fill_value=-7 if mode == M.FILL_OR_DROP else None),
            ident=f"points-{mode.name}"))
    out.append(Case([y, ints([[1, 0], [3, 2]])], dict(
        dimension_numbers=GDN(offset_dims=(), collapsed_slice_dims=(0, 1),
                              start_index_map=(1, 0)),
        slice_sizes=(1, 1), mode=M.CLIP), ident="permuted-map"))
    z = rand((6, 7), f32, 3)
    win = ints([[0, 0], [5, 1], [2, 6], [-1, 3]])
    for mode in (M.CLIP, M.FILL_OR_DROP):
        out.append(Case([z, win], dict(
            dimension_numbers=GDN(offset_dims=(1, 2), collapsed_slice_dims=(),
                                  start_index_map=(0, 1)),
            slice_sizes=(2, 3), mode=mode), ident=f"windows-{mode.name}"))
    b = rand((3, 5, 4), f32, 4)
    bidx = ints(_rng(5).integers(0, 5, (3, 2, 1)))
    out.append(Case([b, bidx], dict(
        dimension_numbers=GDN(offset_dims=(2,), collapsed_slice_dims=(1,), start_index_map=(1,),
                              operand_batching_dims=(0,), start_indices_batching_dims=(0,)),
        slice_sizes=(1, 1, 4), mode=M.FILL_OR_DROP), ident="batching"))
    b2 = rand((4, 3), f32, 6)
    bidx2 = ints(_rng(7).integers(-1, 4, (2, 3, 1)))
    out.append(Case([b2, bidx2], dict(
        dimension_numbers=GDN(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,),
                              operand_batching_dims=(1,), start_indices_batching_dims=(1,)),
        slice_sizes=(1, 1), mode=M.FILL_OR_DROP), ident="batching-mid"))
    for dt, idt in [(b1, u8), (bf16, i8), (u8, i16), (i32, u32)]:
        v = rand((5, 4), dt, 8)
        idx = np.array([[0], [4], [2], [7]], idt)
        out.append(Case([v, idx], dict(dimension_numbers=dn_rows, slice_sizes=(1, 4),
                                       mode=M.FILL_OR_DROP), ident=f"{np.dtype(dt).name}-"
                                                                   f"{np.dtype(idt).name}"))
    out.append(Case([x, ints([1, 2])], dict(
        dimension_numbers=GDN(offset_dims=(), collapsed_slice_dims=(0, 1),
                              start_index_map=(0, 1)),
        slice_sizes=(1, 1), mode=M.CLIP), ident="scalar-out"))
    for c in out:
        fv = c.params.get("fill_value")
        if c.params["mode"] == M.FILL_OR_DROP and fv is None:
            from astjax.primitives.gather import default_fill_value
            c.params["fill_value"] = default_fill_value(c.args[0].dtype)
        c.params.setdefault("fill_value", None)
        c.params.update(indices_are_sorted=False, unique_indices=False)
    return out


def _scatter_cases(name):
    dup_ok = name != "scatter"
    out = []
    x = rand((5, 4), f32, 0)
    rows = SDN(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
    idx = ints([[0], [3], [0], [4]]) if dup_ok else ints([[0], [3], [1], [4]])
    for mode in (M.FILL_OR_DROP, M.CLIP, M.PROMISE_IN_BOUNDS):
        out.append(Case([x, idx, rand((4, 4), f32, 1)], dict(dimension_numbers=rows, mode=mode),
                        ident=f"rows-{mode.name}"))
    oob = ints([[1], [7], [-1], [3]])
    out.append(Case([x, oob, rand((4, 4), f32, 2)], dict(dimension_numbers=rows,
                                                         mode=M.FILL_OR_DROP), ident="rows-oob"))
    clip = ints([[1], [7]])  # clamps to 4: unique
    out.append(Case([x, clip, rand((2, 4), f32, 3)], dict(dimension_numbers=rows, mode=M.CLIP),
                    ident="rows-clip"))
    y = rand((4, 5), i32, 4)
    pts = ints([[0, 0], [3, 4], [1, 2], [5, 0], [0, -1], [2, 2]])
    if dup_ok:
        pts = np.concatenate([pts, ints([[1, 2], [3, 4]])])
    out.append(Case([y, pts, rand((len(pts),), i32, 5)], dict(dimension_numbers=SDN(
        update_window_dims=(), inserted_window_dims=(0, 1), scatter_dims_to_operand_dims=(0, 1)),
        mode=M.FILL_OR_DROP), ident="points"))
    z = rand((6, 7), f32, 6)
    win = ints([[0, 0], [5, 1], [3, 4], [-1, 3]])
    for mode in (M.FILL_OR_DROP, M.CLIP):
        w = win if mode == M.FILL_OR_DROP or dup_ok else ints([[0, 0], [3, 4]])
        out.append(Case([z, w, rand((len(w), 2, 3), f32, 7)], dict(dimension_numbers=SDN(
            update_window_dims=(1, 2), inserted_window_dims=(), scatter_dims_to_operand_dims=(0, 1)),
            mode=mode), ident=f"windows-{mode.name}"))
    b = rand((3, 5, 4), f32, 8)
    bidx = ints([[[1], [4]], [[0], [2]], [[3], [3 if dup_ok else 1]]])
    out.append(Case([b, bidx, rand((3, 2, 4), f32, 9)], dict(dimension_numbers=SDN(
        update_window_dims=(2,), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,),
        operand_batching_dims=(0,), scatter_indices_batching_dims=(0,)), mode=M.FILL_OR_DROP),
        ident="batching"))
    for dt in (u8, i32) if name == "scatter-sub" else (b1, u8, i32):  # (no bool subtraction)
        v = rand((5, 4), dt, 10)
        out.append(Case([v, idx, rand((4, 4), dt, 11)], dict(dimension_numbers=rows,
                                                             mode=M.FILL_OR_DROP),
                        ident=np.dtype(dt).name))
    for c in out:
        c.params.update(indices_are_sorted=False, unique_indices=False, update_jaxpr=None,
                        update_consts=())
        c.tol = (1e-5, 1e-5)
    return out


def _structural_cases():
    r = rand
    S = {}
    conv = []
    vals = np.array([np.nan, np.inf, -np.inf, 300.7, -5.5, 2.5, -0.0, 1e10], f32)
    cvals = np.array([300.7 + 2j, -5.5 - 1j, 2.5, 1j, -0.0 + 0j], c64)
    for src in [f32, i32, u8, b1, f16, bf16, c64, i8]:
        with np.errstate(over="ignore"):
            x = vals.astype(src) if src in (f32, f16, bf16) else (
                cvals if src == c64 else r((2, 3), src, 1))
        for dst in [f32, i32, u8, b1, f16, bf16, c64, i8]:
            conv.append(Case([x], {"new_dtype": np.dtype(dst), "weak_type": False},
                             tol=(1e-3, 1e-3), ident=f"{np.dtype(src).name}->{np.dtype(dst).name}"))
    S["convert_element_type"] = conv
    S["broadcast_in_dim"] = [
        Case([r((3,), f32)], {"shape": (2, 3), "broadcast_dimensions": (1,)}),
        Case([r((3, 1), i32)], {"shape": (3, 4), "broadcast_dimensions": (0, 1)}),
        Case([r((), b1)], {"shape": (2, 2), "broadcast_dimensions": ()}),
        Case([r((2,), u8)], {"shape": (2, 3, 1), "broadcast_dimensions": (0,)})]
    S["reshape"] = [Case([r((2, 3), f32)], {"new_sizes": (3, 2), "dimensions": None}),
                    Case([r((6,), i8)], {"new_sizes": (1, 2, 3), "dimensions": None}),
                    Case([r((), b1)], {"new_sizes": (1,), "dimensions": None})]
    S["transpose"] = [Case([r((2, 3), f32)], {"permutation": (1, 0)}),
                      Case([r((2, 3, 4), i32)], {"permutation": (2, 0, 1)}),
                      Case([r((2, 3, 4), bf16)], {"permutation": (0, 1, 2)})]
    S["squeeze"] = [Case([r((1, 3, 1), f32)], {"dimensions": (0, 2)}),
                    Case([r((1,), i32)], {"dimensions": (0,)})]
    S["rev"] = [Case([r((4,), f32)], {"dimensions": (0,)}),
                Case([r((2, 3, 4), i32)], {"dimensions": (0, 2)}),
                Case([r((2, 3), b1)], {"dimensions": ()})]
    S["concatenate"] = [Case([r((2, 3), f32), r((1, 3), f32, 1)], {"dimension": 0}),
                        Case([r((2, 1), i32), r((2, 3), i32, 1), r((2, 0), i32)], {"dimension": 1}),
                        Case([r((3,), b1)], {"dimension": 0})]
    S["pad"] = [Case([r((3,), f32), np.float32(9)], {"padding_config": ((1, 2, 0),)}),
                Case([r((3, 4), i32), np.int32(-1)], {"padding_config": ((0, 1, 1), (-1, 2, 2))}),
                Case([r((5,), f32), np.float32(0)], {"padding_config": ((-2, -1, 0),)}),
                Case([r((2, 3), u8), np.uint8(7)], {"padding_config": ((1, -1, 2), (0, 0, 0))})]
    S["slice"] = [Case([r((5, 6), f32)], {"start_indices": (1, 0), "limit_indices": (4, 6),
                                          "strides": None}),
                  Case([r((7,), i32)], {"start_indices": (1,), "limit_indices": (7,),
                                        "strides": (3,)}),
                  Case([r((4, 5), b1)], {"start_indices": (0, 2), "limit_indices": (4, 2),
                                         "strides": (2, 1)})]
    S["dynamic_slice"] = [
        Case([r((5, 6), f32), np.int32(1), np.int32(2)], {"slice_sizes": (2, 3)}),
        Case([r((5, 6), i32), np.int32(4), np.int32(-3)], {"slice_sizes": (3, 2)}),
        Case([r((5,), u8), np.int8(9)], {"slice_sizes": (2,)})]
    S["dynamic_update_slice"] = [
        Case([r((5, 6), f32), r((2, 3), f32, 1), np.int32(1), np.int32(2)]),
        Case([r((5, 6), i32), r((3, 2), i32, 1), np.int32(4), np.int32(-3)]),
        Case([r((5,), b1), r((2,), b1, 1), np.int32(9)])]
    S["select_n"] = [Case([r((2, 3), b1), r((2, 3), f32, 1), r((2, 3), f32, 2)]),
                     Case([np.bool_(True), r((4,), i32, 1), r((4,), i32, 2)]),
                     Case([ints([[0, 1, 2], [2, 1, 0]]), r((2, 3), f32, 1), r((2, 3), f32, 2),
                           r((2, 3), f32, 3)]),
                     Case([r((3,), b1), r((3,), f32)])]
    S["clamp"] = [Case([np.float32(-1), r((2, 3), f32), np.float32(1)]),
                  Case([r((4,), i32, 1) - 3, r((4,), i32), r((4,), i32, 2) + 3]),
                  Case([np.float32(0), r((5,), f32, specials=True), np.float32(1)])]
    S["iota"] = [Case([], {"dtype": np.dtype(i32), "shape": (5,), "dimension": 0,
                           "sharding": None}),
                 Case([], {"dtype": np.dtype(f32), "shape": (2, 3), "dimension": 1,
                           "sharding": None}),
                 Case([], {"dtype": np.dtype(u8), "shape": (3, 2), "dimension": 0,
                           "sharding": None})]
    S["copy"] = [Case([r((2, 3), f32)]), Case([r((), i32)])]
    # the typed-key boundary: the identity on key data (tests/test_typed_keys.py prints it)
    S["random_wrap"] = [Case([r((2,), u32, full_range=True)], {"impl": threefry_prng_impl}),
                        Case([r((3, 2), u32, full_range=True)], {"impl": threefry_prng_impl})]
    # a user extended dtype's boundary: the identity on its float32 data
    from test_extended_dtypes import mx
    S["to_edtype"] = [Case([r((3,), f32)], {"edtype": mx}), Case([r((2, 3), f32)], {"edtype": mx})]
    S["from_edtype"] = [Case([r((3,), f32)], {"dtype": np.dtype(np.float32), "edtype": mx})]
    S["random_unwrap"] = [Case([r((2,), u32, full_range=True)]),
                          Case([r((4, 2), u32, full_range=True)])]
    # the Random123 hashes (tests/test_prng_impls_more.py: known answers, JAX's bits):
    # operands of one shape, or scalar key words broadcast against the counters
    for name, n_in in (("threefry4x32", 8), ("philox2x32", 3), ("philox4x32", 6)):
        S[name] = [Case([r((3, 2), u32, full_range=True, seed=i) for i in range(n_in)]),
                   Case([r((), u32, full_range=True, seed=i) for i in range(n_in // 2)]
                        + [r((5,), u32, full_range=True, seed=9 + i)
                           for i in range(n_in - n_in // 2)], ident="scalar_keys")]
    S["bitcast_convert_type"] = [
        Case([r((2, 3), f32)], {"new_dtype": np.dtype(i32)}),
        Case([r((4,), i32, full_range=True)], {"new_dtype": np.dtype(u32)}),
        Case([r((3,), f32)], {"new_dtype": np.dtype(u8)}),
        Case([r((2, 4), u8, full_range=True)], {"new_dtype": np.dtype(i32)}),
        Case([r((5,), i16, full_range=True)], {"new_dtype": np.dtype(f16)})]
    S["dot_general"] = [
        Case([r((2, 3), f32), r((3, 4), f32, 1)], {"dimension_numbers": dot_dims(((1,), (0,))),
                                                    "preferred_element_type": np.dtype(f32)},
             tol=(1e-5, 1e-5)),
        Case([r((5, 2, 3), f32), r((3, 5), f32, 1)], {
            "dimension_numbers": dot_dims(((2,), (0,)), ((0,), (1,))),
            "preferred_element_type": np.dtype(f32)}, tol=(1e-5, 1e-5)),
        Case([r((2, 3), i32), r((4, 3), i32, 1)], {"dimension_numbers": dot_dims(((1,), (1,))),
                                                   "preferred_element_type": np.dtype(i32)}),
        Case([r((3,), i8), r((3,), i8, 1)], {"dimension_numbers": dot_dims(((0,), (0,))),
                                             "preferred_element_type": np.dtype(i32)}),
        Case([r((2, 0), f32), r((0, 3), f32, 1)], {"dimension_numbers": dot_dims(((1,), (0,))),
                                                   "preferred_element_type": np.dtype(f32)})]
    return S


def _linalg_cases():
    r = _rng(3)
    a = r.normal(size=(3, 4, 4)).astype(f32)
    spd = (a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4, dtype=f32)).astype(f32)
    tri = (np.tril(a) + 4 * np.eye(4, dtype=f32)).astype(f32)
    b = r.normal(size=(3, 4, 2)).astype(f32)
    ts = [Case([tri, b if left else np.swapaxes(b, -1, -2)],
               dict(left_side=left, lower=lower, transpose_a=tr, conjugate_a=False,
                    unit_diagonal=unit), tol=(1e-4, 1e-5),
               ident=f"left{int(left)}lower{int(lower)}tr{int(tr)}unit{int(unit)}")
          for left in (True, False) for lower, tr, unit in
          ((True, False, False), (True, True, False), (True, False, True))]
    ts += [Case([np.swapaxes(tri, -1, -2), b], dict(left_side=True, lower=False,
                                                    transpose_a=False, conjugate_a=False,
                                                    unit_diagonal=False), tol=(1e-4, 1e-5),
                ident="upper")]
    return {"cholesky": [Case([spd], {"lower": True}, tol=(1e-4, 1e-5)),
                         Case([spd[0]], {"lower": False}, tol=(1e-4, 1e-5))],
            "triangular_solve": ts,
            "stop_gradient": [Case([rand((2, 3), f32)]), Case([rand((4,), i32)])],
            "symmetric_product": [
                Case([r.normal(size=(4, 3)).astype(f32), spd[0]], dict(alpha=2.0, beta=0.5),
                     tol=(1e-4, 1e-5)),
                Case([r.normal(size=(3, 4, 2)).astype(f32), spd], dict(alpha=1.0, beta=0.0),
                     tol=(1e-4, 1e-5), ident="batched")],
            "cholesky_update": [
                Case([np.linalg.cholesky(spd[0]).T.astype(f32), r.normal(size=4).astype(f32)],
                     {}, tol=(1e-4, 1e-5)),
                Case([np.swapaxes(np.linalg.cholesky(spd), -1, -2).astype(f32),
                      np.concatenate([np.zeros((1, 4)), r.normal(size=(2, 4))]).astype(f32)],
                     {}, tol=(1e-4, 1e-5), ident="batched_zero_w")],
            "lu_pivots_to_permutation": [
                Case([np.array([2, 2, 3, 3], np.int32)], dict(permutation_size=5)),
                Case([np.array([[1, 1, 2], [2, 1, 2]], np.int32)], dict(permutation_size=3),
                     ident="batched"),
                Case([np.zeros((2, 0), np.int32)], dict(permutation_size=3), ident="no_swaps")]}


def _bits_cases():
    """mulhi (extreme products), reduce_precision (rounding, overflow, underflow, NaN),
    optimization_barrier (the identity on several operands) and name (the identity)."""
    ext = {i32: [-2**31, -7, 0, 5, 2**31 - 1], u8: [0, 3, 200, 255, 17],
           np.uint32: [0, 1, 2**32 - 1, 7, 2**31]}
    mulhi = [Case([np.array(v, dt), np.array(v[::-1], dt)], ident=np.dtype(dt).name)
             for dt, v in ext.items()]
    x = np.array([1.0001, 3.14159, 1e30, -1e-30, np.nan, 65520.0, 6e-8, -np.inf], f32)
    rp = [Case([x], dict(exponent_bits=e, mantissa_bits=m), tol=(0, 0), ident=f"e{e}m{m}")
          for e, m in ((5, 10), (8, 7), (4, 3), (8, 23), (3, 0), (11, 52))]
    barrier = [Case([rand((2, 3), f32), rand((4,), i32)]), Case([rand((3,), bf16)])]
    sink = [Case([rand((2, 3), f32)], dict(prevent_mlir_dce=False)),
            Case([rand((4,), i32)], dict(prevent_mlir_dce=True), ident="custom_call")]
    f32s, i32s = core.ShapedArray((), f32), core.ShapedArray((), i32)
    prod = core.stage(lambda a, b: [a * b], [f32s, f32s])
    argmax = core.stage(lambda av, ai, bv, bi: [ops.max(av, bv), ops.select(
        av >= bv, ai, bi)], [f32s, i32s, f32s, i32s])
    general = [Case([rand((3, 4), f32, lo=0.5, hi=1.5), np.float32(1)],
                    dict(jaxpr=prod, dimensions=(0,)), tol=(1e-5, 1e-6)),
               Case([rand((2, 3, 2), f32), np.float32(1)], dict(jaxpr=prod, dimensions=(0, 2)),
                    tol=(1e-5, 1e-6), ident="two_axes"),
               Case([rand((3, 5), f32, seed=1), ints(np.arange(15).reshape(3, 5)),
                     np.float32(-np.inf), np.int32(0)], dict(jaxpr=argmax, dimensions=(1,)),
                    ident="variadic_argmax")]
    name = [Case([rand((2, 3), f32)], dict(name="a")), Case([rand((4,), i32)], dict(name="i"))]
    return {"mulhi": mulhi, "reduce_precision": rp, "optimization_barrier": barrier,
            "dce_sink": sink, "reduce": general, "name": name}


def _special_cases():
    S = _structural_cases()
    S.update(_linalg_cases())
    for n in ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or"):
        S[n] = _reducer_cases(n)
    for n in ("argmax", "argmin"):
        S[n] = _arg_cases(n)
    for n in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"):
        S[n] = _cum_cases(n)
    S["sort"] = _sort_cases()
    S["reduce_xor"] = _reducer_cases("reduce_xor")
    S.update(_bits_cases())
    S["gather"] = _gather_cases()
    for n in ("scatter", "scatter-add", "scatter-sub", "scatter-mul", "scatter-min",
              "scatter-max"):
        S[n] = _scatter_cases(n)
    return S


SPECIAL = _special_cases()


def cases_for(name):
    if name in SPECIAL:
        return SPECIAL[name]
    p = core.primitives[name]
    if name in ew.UNARY:
        return _unary_cases(name, p)
    if name in ew.BINARY:
        return _binary_cases(name, p)
    return []


ALL = [(n, i, c) for n in sorted(core.primitives) for i, c in enumerate(cases_for(n))]
IDS = [f"{n}-{i}-{c.ident}" if c.ident else f"{n}-{i}" for n, i, c in ALL]

# ------------------------------------------------------------------------ checks


def _tol(name, dtype, case):
    dtype = np.dtype(dtype)
    if dtype in (np.dtype(bf16),):
        return 2e-2, 1e-2
    if dtype == np.float16:
        return 2e-3, 1e-3
    if case.tol is not None:
        return case.tol
    if name in _LOOSE:
        return 1e-4, 1e-5
    return 1e-5, 1e-6


def assert_same(got, want, name, case):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != reference {want.shape}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != reference {want.dtype}"
    if dtypes.is_inexact(want.dtype):
        rtol, atol = _tol(name, want.dtype, case)
        wide = np.complex128 if dtypes.issubdtype(want.dtype, np.complexfloating) else np.float64
        np.testing.assert_allclose(got.astype(wide), want.astype(wide), rtol=rtol, atol=atol,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def _outs(p, v):
    return list(v) if p.multiple_results else [v]


@pytest.mark.parametrize("name,i,case", ALL, ids=IDS)
def test_abstract_eval_matches_impl(name, i, case):
    p = core.primitives[name]
    avals = [core.get_aval(a) for a in case.args]
    out = _outs(p, p.abstract_eval(*avals, **case.params))
    ref = _outs(p, p.impl(*case.args, **case.params))
    assert len(out) == len(ref)
    for a, r in zip(out, ref):
        r = np.asarray(r)
        assert a.shape == r.shape, f"abstract_eval shape {a.shape}, impl {r.shape}"
        assert a.dtype == r.dtype, f"abstract_eval dtype {a.dtype}, impl {r.dtype}"


@pytest.mark.parametrize("name,i,case", ALL, ids=IDS)
def test_lowering_matches_impl(name, i, case):
    p = core.primitives[name]
    if "lowering" in p.unsupported:
        pytest.skip(p.unsupported["lowering"])
    ref = _outs(p, p.impl(*case.args, **case.params))
    got = _outs(p, runtime.eager_apply(p, case.args, case.params))
    for g, r in zip(got, ref):
        assert_same(g, r, name, case)


def test_every_primitive_has_cases():
    missing = [n for n in sorted(core.primitives) if not cases_for(n) and n not in NO_CASES]
    assert not missing, (f"primitives without test cases: {missing}; add them to SPECIAL in "
                         "tests/test_primitives.py, or to NO_CASES naming the test that covers them")


def test_every_primitive_has_impl_and_abstract_eval():
    for p in core.primitives.values():
        assert p.abstract_eval is not None, p.name
        assert p.impl is not None or p.name in NO_CASES, p.name


def test_every_primitive_is_lowered_or_marked():
    missing = [p.name for p in core.primitives.values()
               if p.lowering is None and "lowering" not in p.unsupported]
    assert not missing, f"no lowering and not marked unsupported: {missing}"

# ----------------------------------------------------------------- shape errors


_BAD = [
    ("gather", [core.ShapedArray((5, 4), f32), core.ShapedArray((3, 1), f32)],
     dict(dimension_numbers=GDN((1,), (0,), (0,)), slice_sizes=(1, 4))),
    ("gather", [core.ShapedArray((5, 4), f32), core.ShapedArray((3, 2), i32)],
     dict(dimension_numbers=GDN((1,), (0,), (0,)), slice_sizes=(1, 4))),
    ("gather", [core.ShapedArray((5, 4), f32), core.ShapedArray((3, 1), i32)],
     dict(dimension_numbers=GDN((1,), (0,), (0,)), slice_sizes=(2, 4))),
    ("gather", [core.ShapedArray((5, 4), f32), core.ShapedArray((3, 1), i32)],
     dict(dimension_numbers=GDN((1,), (0,), (0,)), slice_sizes=(1, 5))),
    ("scatter-add", [core.ShapedArray((5, 4), f32), core.ShapedArray((3, 1), i32),
                     core.ShapedArray((2, 4), f32)],
     dict(dimension_numbers=SDN((1,), (0,), (0,)))),
    ("scatter", [core.ShapedArray((5, 4), f32), core.ShapedArray((3, 1), i32),
                 core.ShapedArray((3, 4), i32)],
     dict(dimension_numbers=SDN((1,), (0,), (0,)))),
    ("argmax", [core.ShapedArray((0, 3), f32)], dict(axes=(0,), index_dtype=np.dtype(i32))),
    ("argmin", [core.ShapedArray((2, 3), f32)], dict(axes=(0, 1), index_dtype=np.dtype(i32))),
    ("cumsum", [core.ShapedArray((2, 3), f32)], dict(axis=2, reverse=False)),
    # (an int operand passes, as JAX: its lowering raises OverflowError; a bool not)
    ("cumlogsumexp", [core.ShapedArray((2, 3), b1)], dict(axis=0, reverse=False)),
    ("sort", [core.ShapedArray((2, 3), f32), core.ShapedArray((3,), f32)],
     dict(dimension=0, is_stable=True, num_keys=1)),
    ("sort", [core.ShapedArray((2, 3), f32)], dict(dimension=0, is_stable=True, num_keys=2)),
]


@pytest.mark.parametrize("name,avals,params", _BAD, ids=[b[0] for b in _BAD])
def test_bad_shapes_raise_astjax_errors(name, avals, params):
    with pytest.raises(AstjaxError):
        core.primitives[name].abstract_eval(*avals, **params)

# ------------------------------------------------------------------ 64-bit types


def _x64_cases():
    f64, i64, u64, c128 = np.float64, np.int64, np.uint64, np.complex128
    r = rand
    dn_rows = GDN(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    rows = SDN(update_window_dims=(1,), inserted_window_dims=(0,),
               scatter_dims_to_operand_dims=(0,))
    g = dict(dimension_numbers=dn_rows, slice_sizes=(1, 4), indices_are_sorted=False,
             unique_indices=False)
    s = dict(dimension_numbers=rows, indices_are_sorted=False, unique_indices=False,
             update_jaxpr=None, update_consts=())
    idx = np.array([[0], [4], [7], [-1]], i64)
    vals = np.array([np.nan, np.inf, -np.inf, 1e19, -1e19, 2.5, -0.0, 9.3e18], f64)
    return [
        ("gather", Case([r((5, 4), f64), idx], dict(g, mode=M.FILL_OR_DROP, fill_value=np.nan))),
        ("gather", Case([r((5, 4), i64), idx], dict(g, mode=M.CLIP, fill_value=None))),
        ("scatter-add", Case([r((5, 4), f64), idx, r((4, 4), f64, 1)], dict(s, mode=M.FILL_OR_DROP))),
        ("scatter-max", Case([r((5, 4), u64), idx, r((4, 4), u64, 1)], dict(s, mode=M.CLIP))),
        ("sort", Case([vals, r((8,), i64)], dict(dimension=0, is_stable=True, num_keys=1))),
        ("sort", Case([r((3, 4), c128)], dict(dimension=1, is_stable=True, num_keys=1))),
        ("cumsum", Case([r((3, 4), f64)], dict(axis=1, reverse=True))),
        ("cummax", Case([r((3, 4), i64, full_range=True)], dict(axis=0, reverse=False))),
        ("argmax", Case([vals.reshape(2, 4)], dict(axes=(1,), index_dtype=np.dtype(i64)))),
        ("argmin", Case([r((3, 4), u64)], dict(axes=(0,), index_dtype=np.dtype(i64)))),
        ("convert_element_type", Case([vals], dict(new_dtype=np.dtype(i64), weak_type=False))),
        ("convert_element_type", Case([vals], dict(new_dtype=np.dtype(u64), weak_type=False))),
        ("div", Case([r((6,), i64), ints([0, 1, -2, 3, 0, -1], i64)])),
        ("shift_right_arithmetic", Case([r((6,), u64, full_range=True),
                                         np.array([0, 1, 63, 64, 70, 5], u64)])),
        ("reduce_max", Case([r((2, 0), f64)], dict(axes=(1,)))),
        ("reduce_and", Case([r((3, 4), i64, full_range=True)], dict(axes=(0,)))),
        ("mulhi", Case([ints([-2**63, -3, 2**62 + 5, 2**63 - 1, 9], i64),
                        ints([9, 2**63 - 1, -2**63, -3, 2**62 + 5], i64)])),
        ("mulhi", Case([ints([2**64 - 1, 3, 2**63, 1], u64), ints([2**64 - 1, 2**63, 5, 0], u64)])),
        ("reduce_precision", Case([np.array([1.0001, 1e300, -1e-300, np.nan, 65520.0], f64)],
                                  dict(exponent_bits=8, mantissa_bits=7))),
        ("reduce_xor", Case([r((3, 4), u64, full_range=True)], dict(axes=(1,)))),
    ]


X64 = _x64_cases()


@pytest.fixture
def x64_mode():
    from astjax.config import config
    old = config.x64_enabled
    config.update("jax_enable_x64", True)
    yield
    config.update("jax_enable_x64", old)


@pytest.mark.parametrize("name,case", X64, ids=[f"{n}-{i}" for i, (n, _) in enumerate(X64)])
def test_lowering_matches_impl_x64(x64_mode, name, case):
    p = core.primitives[name]
    avals = [core.get_aval(a) for a in case.args]
    out = _outs(p, p.abstract_eval(*avals, **case.params))
    ref = _outs(p, p.impl(*case.args, **case.params))
    got = _outs(p, runtime.eager_apply(p, case.args, case.params))
    for a, g, r in zip(out, got, ref):
        assert (a.shape, a.dtype) == (np.shape(r), np.asarray(r).dtype)
        assert_same(g, r, name, case)
