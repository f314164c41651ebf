"""Every primitive's batch rule, at every valid in_axes, against a Python loop of
unbatched calls (table-driven; several primitives of a family share one case)."""
import itertools

import numpy as np
import pytest

import astjax
from astjax import core, lax
from astjax.random.impls import threefry_prng_impl
from astjax.primitives import arithmetic
from astjax.primitives.elementwise import BINARY, UNARY

B = 3  # batch size: differs from every per-example dim below
RNG = np.random.default_rng(0)


def make(spec):
    kind, shape = spec[0], spec[1]
    if kind == "f32":
        return RNG.uniform(0.2, 0.8, shape).astype(np.float32)
    if kind == "sf32":  # signed
        return RNG.uniform(-2, 2, shape).astype(np.float32)
    if kind == "i32":
        lo, hi = spec[2] if len(spec) > 2 else (1, 6)
        return RNG.integers(lo, hi, shape).astype(np.int32)
    if kind == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if kind == "u32":
        return RNG.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)
    if kind == "c64":
        return (RNG.uniform(-1, 1, shape) + 1j * RNG.uniform(-1, 1, shape)).astype(np.complex64)
    if kind == "spd":  # symmetric positive definite
        a = RNG.uniform(-1, 1, shape).astype(np.float32)
        return (a @ a.T + shape[0] * np.eye(shape[0])).astype(np.float32)
    if kind == "tril":
        a = RNG.uniform(-1, 1, shape).astype(np.float32)
        return (np.tril(a) + 3 * np.eye(shape[0])).astype(np.float32)
    raise ValueError(kind)


def axes_options(specs, limit=10):
    opts = [[None] + list(range(len(s[1]) + 1)) for s in specs]
    combos = [c for c in itertools.product(*opts) if any(a is not None for a in c)]
    if len(combos) <= limit:
        return combos
    keep = {tuple(0 for _ in specs), tuple(len(s[1]) for s in specs)}
    for i, s in enumerate(specs):  # each argument mapped alone, first and last axis
        for a in (0, len(s[1])):
            keep.add(tuple(a if j == i else None for j in range(len(specs))))
    rest = [c for c in combos if c not in keep]
    idx = np.random.default_rng(1).choice(len(rest), max(0, limit - len(keep)), replace=False)
    return sorted(keep, key=str) + [rest[i] for i in sorted(idx)]


def check(f, specs, axes_list=None, rtol=2e-5, atol=2e-5, neg_axes=True):
    lanes = [[make(s) for s in specs] for _ in range(B)]
    ref_f = astjax.jit(f)
    refs = [ref_f(*lanes[b]) for b in range(B)]
    for axes in (axes_list or axes_options(specs)):
        args = [lanes[0][i] if a is None else np.stack([lanes[b][i] for b in range(B)], a)
                for i, a in enumerate(axes)]
        if neg_axes:  # also spell the last axis negatively
            axes = tuple(a - args[i].ndim if (a is not None and a == args[i].ndim - 1 and a > 0)
                         else a for i, a in enumerate(axes))
        out = astjax.vmap(f, in_axes=axes)(*args)
        out_leaves = astjax.tree_util.tree_leaves(out)
        for b in range(B):
            lane_args = [lanes[0][i] if a is None else lanes[b][i] for i, a in enumerate(axes)]
            ref = refs[b] if all(a is not None for a in axes) else ref_f(*lane_args)
            for o, r in zip(out_leaves, astjax.tree_util.tree_leaves(ref)):
                o, r = np.asarray(o)[b], np.asarray(r)
                assert o.shape == r.shape and o.dtype == r.dtype, (axes, o.shape, r.shape)
                np.testing.assert_allclose(o, r, rtol=rtol, atol=atol, err_msg=str(axes))


F = ("f32", (2, 4))
S = ("sf32", (2, 4))
I = ("i32", (2, 4))
P = ("bool", (2, 4))
F0, I0, P0 = ("f32", ()), ("i32", ()), ("bool", ())

_FLOAT_UNARY = [n for n, p in UNARY.items()
                if n not in ("not", "population_count", "clz", "real", "imag", "conj",
                             "integer_pow", "round", "acosh")]


def unary_float(x):
    return tuple(getattr(lax, n)(x) for n in _FLOAT_UNARY) + (
        lax.acosh(lax.add(x, 1.5)), lax.round(x), lax.round(x, 1), lax.integer_pow(x, 3),
        lax.integer_pow(x, -2))


def unary_int(x):
    return (lax.bitwise_not(x), lax.population_count(x), lax.clz(x), lax.neg(x), lax.abs(x),
            lax.square(x))


def accuracy_and_order(x, y):
    """`accuracy=` carried through vmap; the total-order comparisons (lax.*_to_p)."""
    hi, tol = lax.AccuracyMode.HIGHEST, lax.Tolerance(atol=1e-5)
    return (lax.sin(x, accuracy=hi), lax.exp(x, accuracy=tol), lax.tanh(x, accuracy=hi),
            lax.square(x), lax.eq_to_p.bind(x, y), lax.le_to_p.bind(x, y),
            lax.lt_to_p.bind(x, y))


def restructure(x, y):
    """split / stack / unstack / tile (primitives/restructure.py), with an unbatched
    operand beside a batched one in `stack`; top_k and approx_top_k along either axis."""
    return (*lax.split(x, (1, 3), axis=1), lax.stack([x, y], axis=1), *lax.unstack(x, axis=1),
            lax.tile(x, (2, 3)), lax.stack([x, np.ones((2, 4), np.float32)], axis=0),
            *lax.top_k(x, 2), *lax.top_k(y, 1, axis=0), *lax.approx_max_k(x, 2),
            *lax.approx_min_k(y, 1, reduction_dimension=0))


def unary_complex(z):
    return lax.real(z), lax.imag(z), lax.conj(z), lax.abs(z), lax.exp(z)


_FLOAT_BIN = ["add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2", "nextafter",
              "eq", "ne", "lt", "le", "gt", "ge"]
_INT_BIN = ["add", "sub", "mul", "div", "rem", "max", "min", "shift_left",
            "shift_right_arithmetic", "shift_right_logical", "eq", "lt"]


def binary_float(x, y):
    return tuple(getattr(lax, n)(x, y) for n in _FLOAT_BIN) + (
        arithmetic.add_any(x, y), lax.complex(x, y), lax.polygamma(lax.round(lax.abs(x)) + 1.0, lax.abs(y) + 0.5))


def binary_int(x, y):
    return tuple(getattr(lax, n)(x, y) for n in _INT_BIN) + (
        lax.bitwise_and(x, y), lax.bitwise_or(x, y), lax.bitwise_xor(x, y))


def binary_bool(p, q):
    return lax.bitwise_and(p, q), lax.bitwise_or(p, q), lax.bitwise_xor(p, q), lax.bitwise_not(p)


def reductions(x):
    return (lax.reduce_sum(x, (1,)), lax.reduce_prod(x, (0,)), lax.reduce_max(x, (0, 1)),
            lax.reduce_min(x, (1,)), lax.argmax(x, 1, np.int32), lax.argmin(x, 0, np.int32),
            lax.cumsum(x, 1), lax.cumprod(x, 0, reverse=True), lax.cummax(x, 1),
            lax.cummin(x, 0), lax.cumlogsumexp(x, 1, reverse=True))


def bool_reductions(p):
    return lax.reduce_and(p, (1,)), lax.reduce_or(p, (0, 1)), lax.reduce_xor(p, (0,))


def bits(x, i, j):
    """The bit-level primitives and the barrier (primitives/bits.py, barriers.py)."""
    a, b = lax.optimization_barrier((x, i))
    lax.dce_sink((a, j))
    return (lax.mulhi(i, j), lax.reduce_xor(i, (1,)), lax.reduce_precision(a, 5, 10), b,
            lax.reduce(x, 1.0, lambda u, v: u * v, (1,)))


def structural(x):
    return (lax.broadcast_in_dim(x, (3, 2, 5, 4), (1, 3)),
            lax.broadcast_in_dim(lax.reshape(x, (8, 1)), (8, 6), (0, 1)),
            lax.reshape(x, (4, 2)), lax.reshape(x, (8,)), lax.transpose(x, (1, 0)),
            lax.squeeze(lax.expand_dims(x, (0, 3)), (0,)), lax.expand_dims(x, (1,)),
            lax.rev(x, (1,)), lax.slice(x, (0, 1), (2, 4)), lax.slice(x, (0, 0), (2, 4), (1, 2)),
            lax.pad(x, np.float32(-1), ((1, 0, 0), (0, 2, 1))),
            lax.convert_element_type(x, np.int32), lax.bitcast_convert_type(x, np.int32),
            lax.bitcast_convert_type(x, np.uint8), lax.copy_p(x),
            lax.add(x, lax.convert_element_type(lax.broadcasted_iota(np.int32, (2, 4), 1),
                                                np.float32)))


def concat_pad(x, y, v):
    return lax.concatenate([x, y, x], 1), lax.pad(x, v, ((0, 1, 0), (2, 0, 1)))


def select_clamp(p, x, y, lo):
    return (lax.select(p, x, y), lax.clamp(lo, x, np.float32(0.5)), lax.clamp(x, y, x))


def select_scalar(p, x, y):
    return lax.select(p, x, y), lax.select_n(lax.convert_element_type(p, np.int32), x, y)


def select_n3(w, x, y):
    return lax.select_n(w, x, y, lax.neg(x))


def dynamic_slices(x, i, j):
    return (lax.dynamic_slice(x, (i, j), (2, 2)), lax.dynamic_slice(x, (np.int32(1), j), (1, 3)),
            lax.dynamic_update_slice(x, lax.full((1, 2), np.float32(9.0)), (i, j)))


def dus(x, u, i):
    return lax.dynamic_update_slice(x, u, (i, np.int32(1)))


def dots(x, y, v):
    return (lax.dot_general(x, y, (((1,), (1,)), ((), ()))),    # (2,4)x(3,4)->(2,3)
            lax.dot_general(x, v, (((1,), (0,)), ((), ()))),    # matvec
            lax.dot_general(v, v, (((0,), (0,)), ((), ()))),    # inner
            lax.dot_general(v, v, (((), ()), ((), ()))),        # outer
            lax.dot_general(x, x, (((1,), (1,)), ((0,), (0,)))))  # batch dims


def gathers(x, idx):
    import astjax.numpy as jnp
    return x[idx], x[:, idx], jnp.take(x, idx, axis=1)


def scatters(x, idx, u):
    dn = lax.ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    return (x.at[idx].set(u), x.at[idx].add(u), x.at[idx].mul(u), x.at[idx].min(u),
            x.at[idx].max(u), lax.scatter_sub(x, lax.reshape(idx, (1,)), u, dn))


def sorts(x, y):
    return lax.sort(x, 1), lax.sort((x, y), 0, num_keys=1)


def key_boundary(data):
    from astjax.primitives import prng_keys as pk
    keys = core.bind(pk.random_wrap_p, data, impl=threefry_prng_impl)
    return keys, core.bind(pk.random_unwrap_p, keys)


def edtype_boundary(data):
    from astjax.primitives import edtypes as ed
    from test_extended_dtypes import mx   # (float32 data, cotangents combined by max)
    e = core.bind(ed.to_edtype_p, data, edtype=mx)
    return e, core.bind(ed.from_edtype_p, e, dtype=np.dtype(np.float32), edtype=mx)


def gammas(keys, a):
    from astjax.primitives.random_gamma import random_gamma
    return random_gamma(keys, a + 0.3), random_gamma(keys, a, log_space=True)


def random123(k, x, y):
    """The Random123 hashes (primitives/random123.py): scalar key words, batched or not,
    broadcast against the counters."""
    from astjax.primitives import random123 as r123
    k0 = k[0, 0]
    return (*r123.threefry4x32_p.bind(k0, k0, k0, k0, x, y, x, y),
            *r123.philox2x32_p.bind(k0, x, y), *r123.philox4x32_p.bind(k0, k0, x, y, y, x))


def gammas_philox(keys, a):
    """random_gamma of philox2x32 keys (one uint32 word): each key split and drawn by the
    implementation's functions."""
    from astjax.primitives.random_gamma import random_gamma
    from astjax.random.impls import philox2x32_prng_impl
    return random_gamma(keys, a + 0.3, impl=philox2x32_prng_impl)


CASES = [
    ("unary_float", unary_float, [F]),
    ("unary_int", unary_int, [I]),
    ("unary_complex", unary_complex, [("c64", (2, 4))]),
    ("binary_float", binary_float, [F, F]),
    ("binary_float_scalar_right", binary_float, [F, F0]),
    ("binary_float_scalar_left", binary_float, [F0, F]),
    ("binary_float_scalars", binary_float, [F0, F0]),
    ("binary_int", binary_int, [I, I]),
    ("binary_int_scalar", binary_int, [I, I0]),
    ("binary_bool", binary_bool, [P, P]),
    ("accuracy_and_order", accuracy_and_order, [F, F]),
    ("restructure", restructure, [F, F]),
    ("reductions", reductions, [F]),
    ("bool_reductions", bool_reductions, [P]),
    ("bits", bits, [F, I, I]),
    ("structural", structural, [F]),
    ("concat_pad", concat_pad, [F, ("f32", (2, 3)), F0]),
    ("select_clamp", select_clamp, [P, F, F, F0]),
    ("select_scalar_pred", select_scalar, [P0, F, F]),
    ("select_n3", select_n3, [("i32", (2, 4), (0, 3)), F, F]),
    ("dynamic_slices", dynamic_slices, [("sf32", (4, 5)), ("i32", (), (0, 4)),
                                        ("i32", (), (-1, 5))]),
    ("dynamic_update_slice", dus, [("sf32", (4, 5)), ("sf32", (2, 3)), ("i32", (), (0, 4))]),
    ("dot_general", dots, [F, ("f32", (5, 4)), ("f32", (4,))]),
    ("gather", gathers, [("sf32", (4, 5)), ("i32", (2,), (0, 4))]),
    ("scatter", scatters, [("sf32", (4, 5)), ("i32", (), (0, 4)), ("sf32", (5,))]),
    ("sort", sorts, [S, S]),
    # typed keys' data (uint32[..., 2]): batched on any axis, even after the data's
    ("key_boundary", key_boundary, [("u32", (3, 2))]),
    ("edtype_boundary", edtype_boundary, [F]),
    # one key per row of alpha: the key's axes lead alpha's
    ("random_gamma", gammas, [("u32", (3, 2)), ("f32", (3, 2))]),
    ("random_gamma_philox", gammas_philox, [("u32", (3, 1)), ("f32", (3, 2))]),
    ("random123", random123, [("u32", (3, 2)), ("u32", (3, 4)), ("u32", (3, 4))]),
]


@pytest.mark.parametrize("name,f,specs", CASES, ids=[c[0] for c in CASES])
def test_rule(name, f, specs):
    check(f, specs)


def test_linalg():
    if "cholesky" not in core.primitives:
        pytest.skip("no linalg primitives")
    from astjax.primitives import linalg as la

    def f(a, t, b):
        c = core.bind(la.cholesky_p, a, lower=True)
        s = core.bind(la.triangular_solve_p, t, b, left_side=True, lower=True)
        return c, s
    check(f, [("spd", (3, 3)), ("tril", (3, 3)), ("f32", (3, 2))], rtol=1e-4, atol=1e-4)


def test_every_primitive_has_a_batch_rule():
    import astjax.transforms.batching  # noqa: F401
    missing = [n for n, p in core.primitives.items()
               if p.batch is None and "batch" not in p.unsupported]
    assert not missing, f"primitives without a batch rule: {missing}"


def test_cases_cover_the_rules():
    """The table above stages (and so tests) every primitive with a batch rule,
    except those tested in test_vmap.py (control flow, collectives)."""
    seen = set()

    def collect(jaxpr):
        for e in jaxpr.eqns:
            seen.add(e.primitive.name)
            for sub in core.sub_jaxprs(e.params):
                collect(sub.jaxpr if isinstance(sub, core.ClosedJaxpr) else sub)
    for name, f, specs in CASES:
        collect(astjax.make_jaxpr(f)(*[make(s) for s in specs]).jaxpr)
    elsewhere = {"cond", "while", "scan", "psum", "pmax", "pmin", "axis_index", "all_gather",
                 "ppermute", "all_to_all", "reduce_scatter", "cholesky", "triangular_solve",
                 "pvary",   # (lax.pcast) tests/test_shard_map_vma.py
                 # vmap of a shard_map vs JAX's stored values: tests/test_all_gather_to.py
                 "all_gather_invariant",
                 # lax.psum inside a check_vma body (vmap_of_grad): tests/test_vma_reverse.py
                 "psum_invariant",
                 # not batched (JAX's NotImplementedError): tests/test_vma_reverse.py
                 "all_gather_reduced", "unreduced_reduce_scatter",
                 # tests/test_collectives_p2p.py
                 "pbroadcast", "psend", "precv", "ragged_all_to_all",
                 # host callbacks (per vmap_method): tests/test_callbacks.py
                 "pure_callback", "io_callback", "debug_callback", "debug_print",
                 # vmap vs a loop: tests/test_convolution.py, tests/test_windowed.py
                 "conv_general_dilated", "reduce_window_sum", "reduce_window_max",
                 "reduce_window_min", "select_and_gather_add", "select_and_scatter_add",
                 # vmap vs a loop: tests/test_lax_rest.py
                 "reduce_window", "select_and_scatter", "device_put",
                 # vmap vs a loop: tests/test_fft.py, tests/test_linalg_lapack.py
                 "fft", "lu", "qr", "eigh", "svd", "eig", "schur", "geqrf",
                 "householder_product", "hessenberg",
                 # vmap vs per-matrix references: tests/test_linalg_more.py
                 "tridiagonal", "tridiagonal_solve", "ormqr",
                 # vmap vs JAX's stored values / per-matrix results: tests/test_linalg_prims.py
                 "cholesky_update", "lu_pivots_to_permutation", "symmetric_product",
                 # tests/test_special_inc.py
                 "igamma", "igammac", "betainc", "igamma_grad_a",
                 # vmap vs per-example results: tests/test_linear_call.py, test_extend_random.py
                 "linear_call", "threefry2x32",
                 # nested vmap of key(seed) vs the seeds' key data: tests/test_prng_ops.py
                 "random_seed",
                 # vmap of split / fold_in / bits vs JAX's stored values: test_prng_ops2.py
                 "random_split", "random_fold_in", "random_bits",
                 # vmap vs elementwise calls: tests/test_special_more.py
                 "zeta", "bessel_i0e", "bessel_i1e",
                 # vmap over b and the matrix vs JAX's stored values: tests/test_custom_solves.py
                 "custom_linear_solve",
                 # every vmap_method vs per-matrix results and JAX's values: tests/test_ffi.py
                 "ffi_call",
                 # tokens are never batched (vmap of a call with tokens: a located error,
                 # tests/test_ffi_kernels.py)
                 "create_token", "after_all",
                 # the user's vmap rule vs JAX's stored values: tests/test_top_names.py
                 "custom_vmap_call",
                 # vmap of grad / of a checkpoint vs JAX's stored values:
                 # tests/test_optimize_remat.py
                 "remat_opt", "closed_call",
                 # call_p (closed_call's rules on an open jaxpr): tests/test_sparse_bcoo.py
                 "call",
                 # compute_on2 under vmap vs JAX's stored values: tests/test_host_memory_more.py
                 "compute_on",
                 # an inner jit: vmap's jaxpr and values vs JAX's: tests/test_jit_call.py
                 "jit",
                 # batched keys vs JAX's rule: tests/test_lax_more.py
                 "rng_bit_generator",
                 # vmap (both operands, one operand) vs JAX's stored values:
                 # tests/test_dot_algorithm.py
                 "scaled_dot",
                 # vmap of a linearized custom_vjp: JAX's TypeError, tests/test_chain_findings.py
                 "custom_lin"}
    untested = sorted(p.name for p in core.primitives.values() if p.batch is not None
                      if p.name not in seen and p.name not in elsewhere)
    assert len(untested) <= 6, untested
