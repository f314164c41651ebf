"""Cases for the parameters of jaxpr equations as custom interpreters read them
(`eqn.primitive.name`, `eqn.params["precision"]`, ...), and a recorder of JAX's (see
README.md).

Every case is a function of the library's (`jax`, `jnp`, `lax`) modules returning
`make_jaxpr(f)(*args)` of one everyday call; `describe` turns its top-level equations
into JSON: each equation's primitive name and its params, simple values kept (ints,
floats, strings, None, tuples, dtypes as `dtype:NAME`, enums as `enum:Class.NAME`,
named tuples as their class and [field, value] pairs in order) and other objects only named (`<Jaxpr>`,
`<ClosedJaxpr>`, `<callable>`, `<opaque>`: the test compares those by kind only).

Run with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_jaxpr_params.py`
writes jaxpr_params.json."""
import enum
import json
from pathlib import Path

import numpy as np

_R = np.random.RandomState(19)
M = _R.randn(3, 4).astype(np.float32)
N = _R.randn(4, 5).astype(np.float32)
V = _R.randn(4).astype(np.float32)
B3 = _R.randn(2, 3, 4).astype(np.float32)
C3 = _R.randn(2, 4, 5).astype(np.float32)
IMG = _R.randn(1, 2, 6, 6).astype(np.float32)
KER = _R.randn(3, 2, 3, 3).astype(np.float32)
IDX = np.array([2, 0, 1], np.int32)
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def simple(v):
    """A param value as JSON: simple values kept, JAX's own objects named by kind."""
    if isinstance(v, enum.Enum):
        return f"enum:{type(v).__name__}.{v.name}"
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        return f"dtype:{np.dtype(v).name}"
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return {type(v).__name__: [[f, simple(getattr(v, f))] for f in v._fields]}
    if isinstance(v, tuple):
        return [simple(x) for x in v]
    if isinstance(v, list):
        return {"list": [simple(x) for x in v]}
    if isinstance(v, (set, frozenset)):
        return {"set": sorted(map(repr, v))}
    name = type(v).__name__
    if name in ("Jaxpr", "ClosedJaxpr"):
        return f"<{name}>"
    return "<opaque>"


def describe(closed):
    """The top-level equations of a ClosedJaxpr: [[primitive name, {param: value}]], an
    inner `jit`'s equations described as a third element (interpreters recurse there)."""
    jaxpr = getattr(closed, "jaxpr", closed)
    out = []
    for eqn in jaxpr.eqns:
        row = [eqn.primitive.name, {k: simple(v) for k, v in sorted(eqn.params.items())}]
        if eqn.primitive.name == "jit":
            row.append(describe(eqn.params["jaxpr"]))
        out.append(row)
    return out


# ---- contractions and convolutions ----
@case
def dot_matrix(jax, jnp, lax):
    return jax.make_jaxpr(jnp.dot)(M, N)


@case
def dot_vector(jax, jnp, lax):
    return jax.make_jaxpr(jnp.dot)(V, V)


@case
def matmul_batched(jax, jnp, lax):
    return jax.make_jaxpr(jnp.matmul)(B3, C3)


@case
def matmul_operator(jax, jnp, lax):
    def f(a, b):
        return a @ b
    return jax.make_jaxpr(f)(M, N)


@case
def einsum_contract(jax, jnp, lax):
    def f(a, b):
        return jnp.einsum("bij,bjk->bik", a, b)
    return jax.make_jaxpr(f)(B3, C3)


@case
def lax_dot(jax, jnp, lax):
    return jax.make_jaxpr(lax.dot)(M, N)


@case
def lax_dot_general_precision(jax, jnp, lax):
    def f(a, b):
        return lax.dot_general(a, b, (((1,), (0,)), ((), ())),
                               precision=lax.Precision.HIGHEST)
    return jax.make_jaxpr(f)(M, N)


@case
def lax_dot_general_preferred(jax, jnp, lax):
    def f(a, b):
        return lax.dot_general(a, b, (((1,), (0,)), ((), ())),
                               preferred_element_type=jnp.float32)
    return jax.make_jaxpr(f)(M, N)


@case
def lax_dot_general_int(jax, jnp, lax):
    def f(a, b):
        return lax.dot_general(a, b, (((1,), (0,)), ((), ())))
    return jax.make_jaxpr(f)(M.astype(np.int32), N.astype(np.int32))


@case
def tensordot(jax, jnp, lax):
    def f(a, b):
        return jnp.tensordot(a, b, axes=1)
    return jax.make_jaxpr(f)(M, N)


@case
def conv_nchw(jax, jnp, lax):
    def f(x, k):
        return lax.conv_general_dilated(x, k, (1, 1), "SAME")
    return jax.make_jaxpr(f)(IMG, KER)


@case
def conv_strided_dilated(jax, jnp, lax):
    def f(x, k):
        return lax.conv_general_dilated(x, k, (2, 1), ((1, 1), (0, 0)),
                                        lhs_dilation=(1, 1), rhs_dilation=(1, 2))
    return jax.make_jaxpr(f)(IMG, KER)


@case
def conv_nhwc(jax, jnp, lax):
    def f(x, k):
        return lax.conv_general_dilated(x, k, (1, 1), "VALID",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jax.make_jaxpr(f)(IMG.transpose(0, 2, 3, 1), KER.transpose(2, 3, 1, 0))


@case
def lax_conv(jax, jnp, lax):
    def f(x, k):
        return lax.conv(x, k, (1, 1), "VALID")
    return jax.make_jaxpr(f)(IMG, KER)


@case
def jnp_convolve(jax, jnp, lax):
    return jax.make_jaxpr(jnp.convolve)(V, V[:3])


# ---- reductions ----
@case
def sum_axis(jax, jnp, lax):
    def f(x):
        return jnp.sum(x, axis=1)
    return jax.make_jaxpr(f)(M)


@case
def sum_all(jax, jnp, lax):
    return jax.make_jaxpr(jnp.sum)(M)


@case
def sum_method(jax, jnp, lax):
    def f(x):
        return x.sum(0)
    return jax.make_jaxpr(f)(M)


@case
def max_axis(jax, jnp, lax):
    def f(x):
        return jnp.max(x, axis=0)
    return jax.make_jaxpr(f)(M)


@case
def min_all(jax, jnp, lax):
    return jax.make_jaxpr(jnp.min)(M)


@case
def prod_axis(jax, jnp, lax):
    def f(x):
        return jnp.prod(x, axis=1)
    return jax.make_jaxpr(f)(M)


@case
def any_axis(jax, jnp, lax):
    def f(x):
        return jnp.any(x > 0, axis=1)
    return jax.make_jaxpr(f)(M)


@case
def all_bool(jax, jnp, lax):
    def f(x):
        return jnp.all(x > 0)
    return jax.make_jaxpr(f)(M)


@case
def mean_axis(jax, jnp, lax):
    def f(x):
        return jnp.mean(x, axis=0)
    return jax.make_jaxpr(f)(M)


@case
def lax_reduce_sum(jax, jnp, lax):
    def f(x):
        return lax.reduce_sum(x, (0, 1))
    return jax.make_jaxpr(f)(M)


@case
def lax_reduce_max(jax, jnp, lax):
    def f(x):
        return lax.reduce_max(x, (1,))
    return jax.make_jaxpr(f)(M)


@case
def argmax_axis(jax, jnp, lax):
    def f(x):
        return jnp.argmax(x, axis=1)
    return jax.make_jaxpr(f)(M)


@case
def argmin_flat(jax, jnp, lax):
    return jax.make_jaxpr(jnp.argmin)(M)


@case
def lax_argmax(jax, jnp, lax):
    def f(x):
        return lax.argmax(x, 0, jnp.int32)
    return jax.make_jaxpr(f)(M)


# ---- cumulative, sort ----
@case
def cumsum_axis(jax, jnp, lax):
    def f(x):
        return jnp.cumsum(x, axis=1)
    return jax.make_jaxpr(f)(M)


@case
def lax_cumsum_reverse(jax, jnp, lax):
    def f(x):
        return lax.cumsum(x, axis=0, reverse=True)
    return jax.make_jaxpr(f)(M)


@case
def lax_cummax(jax, jnp, lax):
    def f(x):
        return lax.cummax(x, axis=1)
    return jax.make_jaxpr(f)(M)


@case
def lax_cumprod(jax, jnp, lax):
    def f(x):
        return lax.cumprod(x, axis=1)
    return jax.make_jaxpr(f)(M)


@case
def sort_axis(jax, jnp, lax):
    def f(x):
        return jnp.sort(x, axis=0)
    return jax.make_jaxpr(f)(M)


@case
def argsort(jax, jnp, lax):
    return jax.make_jaxpr(jnp.argsort)(V)


@case
def lax_sort(jax, jnp, lax):
    def f(x):
        return lax.sort(x, dimension=1)
    return jax.make_jaxpr(f)(M)


@case
def lax_sort_key_val(jax, jnp, lax):
    def f(x, y):
        return lax.sort_key_val(x, y)
    return jax.make_jaxpr(f)(V, V)


@case
def top_k(jax, jnp, lax):
    def f(x):
        return lax.top_k(x, 2)
    return jax.make_jaxpr(f)(V)


# ---- indexing: gather, scatter, slices ----
@case
def index_int(jax, jnp, lax):
    def f(x):
        return x[1]
    return jax.make_jaxpr(f)(M)


@case
def index_slice(jax, jnp, lax):
    def f(x):
        return x[1:3, ::2]
    return jax.make_jaxpr(f)(M)


@case
def index_array(jax, jnp, lax):
    def f(x, i):
        return x[i]
    return jax.make_jaxpr(f)(M, IDX)


@case
def index_dynamic(jax, jnp, lax):
    def f(x, i):
        return x[i, 1]
    return jax.make_jaxpr(f)(M, np.int32(1))


@case
def at_set(jax, jnp, lax):
    def f(x, i):
        return x.at[i].set(0.0)
    return jax.make_jaxpr(f)(M, IDX)


@case
def at_add(jax, jnp, lax):
    def f(x, i):
        return x.at[i].add(1.0)
    return jax.make_jaxpr(f)(V, IDX)


@case
def at_mul_static(jax, jnp, lax):
    def f(x):
        return x.at[1].multiply(2.0)
    return jax.make_jaxpr(f)(V)


@case
def take_along_axis(jax, jnp, lax):
    def f(x, i):
        return jnp.take_along_axis(x, i[:, None], axis=1)
    return jax.make_jaxpr(f)(M, IDX)


@case
def dynamic_slice(jax, jnp, lax):
    def f(x, i):
        return lax.dynamic_slice(x, (i, 0), (2, 2))
    return jax.make_jaxpr(f)(M, np.int32(1))


@case
def dynamic_update_slice(jax, jnp, lax):
    def f(x, u, i):
        return lax.dynamic_update_slice(x, u, (i, 0))
    return jax.make_jaxpr(f)(M, M[:2, :2], np.int32(1))


@case
def lax_slice(jax, jnp, lax):
    def f(x):
        return lax.slice(x, (0, 1), (2, 4), (1, 2))
    return jax.make_jaxpr(f)(M)


@case
def lax_index_in_dim(jax, jnp, lax):
    def f(x):
        return lax.index_in_dim(x, 1, axis=1, keepdims=False)
    return jax.make_jaxpr(f)(M)


# ---- structure ----
@case
def concatenate(jax, jnp, lax):
    def f(x, y):
        return jnp.concatenate([x, y], axis=0)
    return jax.make_jaxpr(f)(M, M)


@case
def stack(jax, jnp, lax):
    def f(x, y):
        return jnp.stack([x, y])
    return jax.make_jaxpr(f)(V, V)


@case
def pad_constant(jax, jnp, lax):
    def f(x):
        return jnp.pad(x, ((1, 0), (2, 1)))
    return jax.make_jaxpr(f)(M)


@case
def lax_pad_interior(jax, jnp, lax):
    def f(x):
        return lax.pad(x, 0.0, ((1, 0, 1), (0, 2, 0)))
    return jax.make_jaxpr(f)(M)


@case
def transpose(jax, jnp, lax):
    def f(x):
        return x.T
    return jax.make_jaxpr(f)(M)


@case
def lax_transpose(jax, jnp, lax):
    def f(x):
        return lax.transpose(x, (2, 0, 1))
    return jax.make_jaxpr(f)(B3)


@case
def broadcast_to(jax, jnp, lax):
    def f(x):
        return jnp.broadcast_to(x, (3, 4))
    return jax.make_jaxpr(f)(V)


@case
def broadcast_add(jax, jnp, lax):
    def f(x, y):
        return x + y
    return jax.make_jaxpr(f)(M, V)


@case
def lax_broadcast_in_dim(jax, jnp, lax):
    def f(x):
        return lax.broadcast_in_dim(x, (2, 4, 3), (1,))
    return jax.make_jaxpr(f)(V)


@case
def reshape(jax, jnp, lax):
    def f(x):
        return x.reshape(2, 6)
    return jax.make_jaxpr(f)(M)


@case
def lax_reshape_dims(jax, jnp, lax):
    def f(x):
        return lax.reshape(x, (4, 3), dimensions=(1, 0))
    return jax.make_jaxpr(f)(M)


@case
def squeeze_expand(jax, jnp, lax):
    def f(x):
        return jnp.squeeze(jnp.expand_dims(x, 0), 0)
    return jax.make_jaxpr(f)(M)


@case
def rev(jax, jnp, lax):
    def f(x):
        return jnp.flip(x, 1)
    return jax.make_jaxpr(f)(M)


@case
def split(jax, jnp, lax):
    def f(x):
        return jnp.split(x, 2, axis=1)
    return jax.make_jaxpr(f)(M)


@case
def lax_split(jax, jnp, lax):
    def f(x):
        return lax.split(x, (1, 3), axis=1)
    return jax.make_jaxpr(f)(M)


# ---- elementwise, types ----
@case
def astype(jax, jnp, lax):
    def f(x):
        return x.astype(jnp.int32)
    return jax.make_jaxpr(f)(M)


@case
def convert_element_type(jax, jnp, lax):
    def f(x):
        return lax.convert_element_type(x, jnp.float16)
    return jax.make_jaxpr(f)(M)


@case
def bitcast(jax, jnp, lax):
    def f(x):
        return lax.bitcast_convert_type(x, jnp.int32)
    return jax.make_jaxpr(f)(M)


@case
def where(jax, jnp, lax):
    def f(x):
        return jnp.where(x > 0, x, 0.0)
    return jax.make_jaxpr(f)(M)


@case
def select_n(jax, jnp, lax):
    def f(p, x, y):
        return lax.select_n(p, x, y)
    return jax.make_jaxpr(f)(M > 0, M, M)


@case
def iota(jax, jnp, lax):
    def f(x):
        return x + jnp.arange(4, dtype=jnp.float32)
    return jax.make_jaxpr(f)(V)


@case
def lax_iota(jax, jnp, lax):
    def f():
        return lax.broadcasted_iota(jnp.int32, (3, 4), 1)
    return jax.make_jaxpr(f)()


@case
def integer_pow(jax, jnp, lax):
    def f(x):
        return x ** 3
    return jax.make_jaxpr(f)(M)


@case
def square(jax, jnp, lax):
    return jax.make_jaxpr(jnp.square)(M)


@case
def pow_float(jax, jnp, lax):
    def f(x):
        return x ** 2.5
    return jax.make_jaxpr(f)(M)


@case
def clip(jax, jnp, lax):
    def f(x):
        return jnp.clip(x, -1.0, 1.0)
    return jax.make_jaxpr(f)(M)


@case
def lax_clamp(jax, jnp, lax):
    def f(x):
        return lax.clamp(-1.0, x, 1.0)
    return jax.make_jaxpr(f)(M)


@case
def unary_math(jax, jnp, lax):
    def f(x):
        return jnp.tanh(jnp.exp(x)) + jnp.log1p(jnp.abs(x)) + jnp.sqrt(jnp.abs(x))
    return jax.make_jaxpr(f)(M)


@case
def compare_ops(jax, jnp, lax):
    def f(x, y):
        return (x < y) & (x != 0.0)
    return jax.make_jaxpr(f)(M, M)


@case
def multiply(jax, jnp, lax):
    def f(x, y):
        return x * y * 2.0
    return jax.make_jaxpr(f)(M, M)


@case
def lax_mul(jax, jnp, lax):
    return jax.make_jaxpr(lax.mul)(M, M)


@case
def maximum(jax, jnp, lax):
    return jax.make_jaxpr(jnp.maximum)(M, M)


@case
def reduce_precision(jax, jnp, lax):
    def f(x):
        return lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10)
    return jax.make_jaxpr(f)(M)


@case
def round_half(jax, jnp, lax):
    def f(x):
        return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
    return jax.make_jaxpr(f)(M)


@case
def nn_relu_softmax(jax, jnp, lax):
    def f(x):
        return jax.nn.softmax(jax.nn.relu(x), axis=-1)
    return jax.make_jaxpr(f)(M)


# ---- control flow and wrappers ----
@case
def cond(jax, jnp, lax):
    def f(p, x):
        return lax.cond(p, jnp.sin, jnp.cos, x)
    return jax.make_jaxpr(f)(True, V)


@case
def switch(jax, jnp, lax):
    def f(i, x):
        return lax.switch(i, [jnp.sin, jnp.cos, jnp.tan], x)
    return jax.make_jaxpr(f)(np.int32(1), V)


@case
def while_loop(jax, jnp, lax):
    def f(x):
        return lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2.0),
                              (0, x))
    return jax.make_jaxpr(f)(V)


@case
def fori_loop(jax, jnp, lax):
    def f(x):
        return lax.fori_loop(0, 5, lambda i, c: c * 2.0, x)
    return jax.make_jaxpr(f)(V)


@case
def scan(jax, jnp, lax):
    def f(c, xs):
        return lax.scan(lambda c, x: (c + x, c * x), c, xs)
    return jax.make_jaxpr(f)(V, M)


@case
def scan_reverse(jax, jnp, lax):
    def f(c, xs):
        return lax.scan(lambda c, x: (c + x, c), c, xs, reverse=True, unroll=2)
    return jax.make_jaxpr(f)(V, M)


@case
def inner_jit(jax, jnp, lax):
    def f(x):
        return jax.jit(jnp.sin)(x) * 2.0
    return jax.make_jaxpr(f)(V)


@case
def custom_jvp(jax, jnp, lax):
    @jax.custom_jvp
    def g(x):
        return jnp.sin(x)

    @g.defjvp
    def g_jvp(primals, tangents):
        return g(primals[0]), jnp.cos(primals[0]) * tangents[0]

    return jax.make_jaxpr(g)(V)


@case
def custom_vjp(jax, jnp, lax):
    @jax.custom_vjp
    def g(x):
        return jnp.sin(x)

    def fwd(x):
        return jnp.sin(x), x

    def bwd(x, ct):
        return (jnp.cos(x) * ct,)

    g.defvjp(fwd, bwd)
    return jax.make_jaxpr(g)(V)


@case
def checkpoint(jax, jnp, lax):
    def f(x):
        return jax.checkpoint(jnp.sin)(x)
    return jax.make_jaxpr(f)(V)


@case
def stop_gradient(jax, jnp, lax):
    return jax.make_jaxpr(lax.stop_gradient)(V)


# ---- random ----
@case
def random_key_data(jax, jnp, lax):
    def f(seed):
        return jax.random.split(jax.random.PRNGKey(seed))
    return jax.make_jaxpr(f)(np.uint32(0))


@case
def random_bits(jax, jnp, lax):
    def f(k):
        return jax.random.bits(k, (3,))
    return jax.make_jaxpr(f)(np.zeros(2, np.uint32))


@case
def random_normal(jax, jnp, lax):
    def f(k):
        return jax.random.normal(k, (3,))
    return jax.make_jaxpr(f)(np.zeros(2, np.uint32))


@case
def typed_key(jax, jnp, lax):
    def f(seed):
        return jax.random.key_data(jax.random.fold_in(jax.random.key(seed), 3))
    return jax.make_jaxpr(f)(np.uint32(0))


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax import lax
    results = {}
    for name, fn in CASES.items():
        try:
            results[name] = describe(fn(jax, jnp, lax))
        except Exception as e:  # recorded so the test expects the same refusal
            results[name] = {"error": type(e).__name__}
    out = Path(__file__).with_name("jaxpr_params.json")
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(results)} cases to {out}")
