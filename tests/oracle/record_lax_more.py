"""Cases for the `jax.lax` names added for issue 13 (reduce, associative_scan, the
convolution helpers, split/stack/tile & co., mulhi, reduce_precision, reduce_xor,
optimization_barrier, rng_bit_generator, ragged_dot, approx_max_k) and a recorder of
JAX's values and gradients (see README.md).

`CASES` maps a name to (function, inputs, options): the function takes the `lax`
module, the `numpy` module of the library under test and the inputs (NumPy arrays,
float32 unless stated); options say whether its float outputs are differentiated
(`grad`: the gradient of the sum of every float output with respect to every float
input is stored too) and whether it is vmapped in the test (`vmap`). Run with JAX
0.10.2: `/work/jaxref/bin/python tests/oracle/record_lax_more.py` writes
lax_more.json."""
import json
import sys
from pathlib import Path

import numpy as np

_R = np.random.RandomState(13)
F = lambda *s: _R.randn(*s).astype(np.float32)  # noqa: E731
CASES = {}


def case(*args, grad=False, vmap=True):
    def register(fn):
        CASES[fn.__name__] = (fn, args, dict(grad=grad, vmap=vmap))
        return fn
    return register


# ---- lax.reduce: monoids and general computations
@case(F(3, 4), grad=True)
def reduce_add_monoid(lax, jnp, x):
    return lax.reduce(x, np.float32(0), lax.add, (0,))


@case(F(2, 3, 4), grad=True)
def reduce_max_monoid(lax, jnp, x):
    return lax.reduce(x, -np.inf, lax.max, (0, 2))


@case(F(5, 3), grad=True)
def reduce_general_product(lax, jnp, x):
    return lax.reduce(x, 1.0, lambda a, b: a * b, (0,))


@case(F(7, 2), grad=True)
def reduce_general_logaddexp(lax, jnp, x):
    return lax.reduce(x, -np.inf, jnp.logaddexp, (0,))


@case(np.array([3., 7., 1., 8., 2.], np.float32), vmap=False)
def reduce_variadic_argmax(lax, jnp, v):
    def comp(a, b):
        (av, ai), (bv, bi) = a, b
        take = av >= bv
        return jnp.where(take, av, bv), jnp.where(take, ai, bi)
    return lax.reduce((v, jnp.arange(5)), (-np.inf, 0), comp, (0,))


@case(np.arange(12, dtype=np.int32).reshape(3, 4))
def reduce_xor_monoid(lax, jnp, x):
    return lax.reduce(x, np.int32(0), lax.bitwise_xor, (1,))


# ---- associative_scan
@case(F(9), grad=True)
def assoc_scan_add(lax, jnp, x):
    return lax.associative_scan(lax.add, x)


@case(F(2, 6, 3), grad=True)
def assoc_scan_mul_axis_reverse(lax, jnp, x):
    return lax.associative_scan(lax.mul, x, reverse=True, axis=1)


@case(F(5), F(5), grad=True)
def assoc_scan_affine_pytree(lax, jnp, a, b):
    # composition of x -> a x + b maps: a linear recurrence
    def fn(f, g):
        return g[0] * f[0], g[0] * f[1] + g[1]
    return lax.associative_scan(fn, (a, b))


@case(F(4, 2, 2))
def assoc_scan_matmul(lax, jnp, m):
    return lax.associative_scan(jnp.matmul, m)


# ---- convolution helpers
@case(F(2, 3, 5, 6), grad=True)
def conv_patches_same(lax, jnp, x):
    return lax.conv_general_dilated_patches(x, (2, 3), (1, 2), "SAME")


@case(F(2, 5, 6, 3), grad=True)
def conv_patches_nhwc_dilated(lax, jnp, x):
    return lax.conv_general_dilated_patches(x, (3, 2), (2, 1), [(1, 0), (0, 1)],
                                            rhs_dilation=(1, 2),
                                            dimension_numbers=("NHWC", "OIWH", "CNHW"))


@case(F(2, 3, 5, 6), F(4, 18, 5, 3), grad=True)
def conv_local(lax, jnp, x, w):
    return lax.conv_general_dilated_local(x, w, (1, 2), "SAME", (2, 3))


@case(F(2, 5, 6, 3), F(2, 5, 4, 18), grad=True)
def conv_local_layouts(lax, jnp, x, w):
    return lax.conv_general_dilated_local(x, w, (2, 1), [(1, 0), (0, 1)], (3, 2),
                                          rhs_dilation=(1, 2),
                                          dimension_numbers=("NHWC", "HWOI", "NHWC"))


# ---- shape conveniences
@case(F(3, 7), grad=True)
def split_stack_unstack(lax, jnp, x):
    a, b, c = lax.split(x, (2, 0, 5), axis=1)
    rows = lax.unstack(x, axis=0)
    return a, b, c, lax.stack(rows, axis=1), lax.stack([x, 2 * x], axis=-1)


@case(F(2, 3), grad=True)
def tile_collapse_broadcast(lax, jnp, x):
    return (lax.tile(x, (2, 3)), lax.collapse(lax.tile(x, (2, 1)), 0),
            lax.broadcast_to_rank(x, 4), lax.broadcast_like(x[0], x))


@case(F(3, 4, 2), np.array([0, -1, 5], np.int32), np.array([1, 2, 3], np.int32), grad=True)
def index_take(lax, jnp, x, i, j):
    return lax.index_take(x, (i, j), (0, 1))


@case(F(2, 3, 4), F(2, 4, 5), grad=True)
def batch_matmul(lax, jnp, a, b):
    return lax.batch_matmul(a, b)


@case(F(5), np.array([[1], [1], [4]], np.int32), F(3), grad=True)
def scatter_sub(lax, jnp, x, i, u):
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    return lax.scatter_sub(x, i, u, dn)


@case(F(3, 8), grad=True)
def approx_top_k(lax, jnp, x):
    return (tuple(lax.approx_max_k(x, 3)), tuple(lax.approx_min_k(x, 2)),
            tuple(lax.approx_max_k(x, 2, reduction_dimension=0)))


# not vmapped here: the unaggregated size depends on the operand's rank, which vmap
# raises (JAX's vmap of a rank-1 call returns 128 entries per row, not 1024:
# tests/test_lax_primitive_objects.py checks that)
@case(F(2, 3000), F(5000), vmap=False)
def approx_top_k_unaggregated(lax, jnp, x, y):
    return (tuple(lax.approx_max_k(x, 10, aggregate_to_topk=False)),
            tuple(lax.approx_min_k(y, 1, aggregate_to_topk=False)),
            tuple(lax.approx_max_k(y, 3, recall_target=0.5, aggregate_to_topk=False,
                                   reduction_input_size_override=40000)))


# ---- bit-level primitives
@case(np.array([3, -5, 7, 2**31 - 1, -2**31], np.int32),
      np.array([9, 11, -13, 2**31 - 1, 3], np.int32))
def mulhi_int32(lax, jnp, x, y):
    return lax.mulhi(x, y)


@case(np.array([2**32 - 1, 5, 2**31], np.uint32), np.array([2**32 - 1, 7, 4], np.uint32))
def mulhi_uint32(lax, jnp, x, y):
    return lax.mulhi(x, y)


@case(np.array([1.0001, 3.14159, 1e30, -1e-30, 65519., 0.1], np.float32), grad=True)
def reduce_precision_f16_bf16(lax, jnp, x):
    return (lax.reduce_precision(x, 5, 10), lax.reduce_precision(x, 8, 7),
            lax.reduce_precision(3 * x, 4, 3))


@case(np.array([[1, 2, 3], [4, 5, 6]], np.int32), np.array([[True, False], [True, True]]))
def reduce_xor(lax, jnp, x, b):
    return lax.reduce_xor(x, (1,)), lax.reduce_xor(x, (0, 1)), lax.reduce_xor(b, (0,))


@case(F(4), F(4), grad=True)
def optimization_barrier(lax, jnp, x, y):
    s, t = lax.optimization_barrier((jnp.sin(x), y * x))
    return s * t + lax.optimization_barrier(x)


# ---- XLA's generators (bits must equal JAX's)
@case(np.array([1, 2, 3, 4], np.uint32), vmap=False)
def rng_bit_generator(lax, jnp, key):
    out = []
    for alg in (lax.RandomAlgorithm.RNG_DEFAULT, lax.RandomAlgorithm.RNG_THREE_FRY,
                lax.RandomAlgorithm.RNG_PHILOX):
        out += list(lax.rng_bit_generator(key, (2, 3), algorithm=alg))
    out += list(lax.rng_bit_generator(key, (5,), np.uint8))
    return tuple(out)


# ---- ragged dot
@case(F(7, 3), F(3, 3, 4), np.array([2, 0, 4], np.int32), grad=True)
def ragged_dot(lax, jnp, lhs, rhs, gs):
    return lax.ragged_dot(lhs, rhs, gs)


@case(F(5, 6), F(6, 4), np.array([1, 3, 2], np.int32))  # JAX: no rhs gradient in this mode
def ragged_dot_contracting(lax, jnp, lhs, rhs, gs):
    dn = lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], [])
    return lax.ragged_dot_general(lhs, rhs, gs, dn)


@case(F(2, 5, 3), F(2, 3, 2, 4), np.array([[1, 3], [4, 1]], np.int32), grad=True)
def ragged_dot_batched_groups(lax, jnp, lhs, rhs, gs):
    dn = lax.RaggedDotDimensionNumbers((([2], [1]), ([0], [0])), [1], [2])
    return lax.ragged_dot_general(lhs, rhs, gs, dn)


def float_inputs(args):
    return [i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f"]


def encode(tree_leaves):
    return [{"dtype": str(np.asarray(y).dtype), "shape": list(np.shape(y)),
             "v": np.asarray(y).astype(np.float64).ravel().tolist()} for y in tree_leaves]


def record(path):
    import jax
    import jax.numpy as jnp
    from jax import lax
    out = {}
    for name, (fn, args, opt) in CASES.items():
        res = jax.tree_util.tree_leaves(fn(lax, jnp, *args))
        entry = {"out": encode(res)}
        if opt["grad"]:
            wrt = float_inputs(args)

            def total(*xs):
                leaves = jax.tree_util.tree_leaves(fn(lax, jnp, *xs))
                return sum(jnp.sum(y) for y in leaves if jnp.issubdtype(y.dtype, jnp.floating))
            entry["grad"] = encode(jax.grad(total, argnums=tuple(wrt))(*args))
        out[name] = entry
    Path(path).write_text(json.dumps(out))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("lax_more.json"))
