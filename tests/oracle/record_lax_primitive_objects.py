"""Cases for the `jax.lax` primitive objects added for issue 13 (`square_p`, `split_p`,
`stack_p`, `unstack_p`, `tile_p`, `eq_to_p`, `le_to_p`, `lt_to_p`, `top_k_p`,
`scatter_sub_p`, `approx_top_k_p`): each bound with
JAX's parameter names, its printed jaxpr, its derivative and its batched form, and a
recorder of JAX's results (see README.md).

Every case is a function of the library's (`jax`, `lax`) modules returning a JSON-able
value (arrays as {"dtype", "value"}, lists of them, or text). Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_lax_primitive_objects.py` writes
lax_primitive_objects.json."""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from record_dot_algorithm import array  # noqa: E402

_R = np.random.RandomState(7)
X = _R.randn(3, 4).astype(np.float32)
Y = _R.randn(3, 4).astype(np.float32)
I = np.arange(-3, 5, dtype=np.int32).reshape(2, 4)
Z = (X[0] + 1j * Y[0]).astype(np.complex64)
# IEEE's total order: -0 < +0, -NaN < -inf, +inf < +NaN, a NaN equals itself
SPECIAL_A = np.array([-0.0, 0.0, np.nan, -np.nan, 1.0, -np.inf, np.inf, 2.0], np.float32)
SPECIAL_B = np.array([0.0, -0.0, np.nan, np.nan, 1.0, np.inf, np.nan, -0.0], np.float32)
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def arrays(xs):
    return [array(x) for x in xs]


@case
def square_bind(jax, lax):
    return arrays([lax.square_p.bind(X), lax.square_p.bind(I), lax.square_p.bind(Z),
                   jax.jit(lax.square)(X), jax.jit(lax.square)(I)])


@case
def square_grad_vmap(jax, lax):
    return arrays([jax.grad(lambda x: lax.square(x).sum())(X),
                   jax.vmap(lax.square, in_axes=1)(X),
                   jax.jvp(lax.square, (X,), (Y,))[1]])


@case
def split_bind(jax, lax):
    return arrays(lax.split_p.bind(X, sizes=(1, 0, 3), axis=1)
                  + jax.jit(lambda x: lax.split(x, (2, 1), axis=0))(X))


@case
def stack_unstack_bind(jax, lax):
    return arrays([lax.stack_p.bind(X, Y, axis=1), lax.stack_p.bind(X, Y, X, axis=2),
                   *lax.unstack_p.bind(X, axis=1), *jax.jit(lambda x: lax.unstack(x, 0))(X)])


@case
def tile_bind(jax, lax):
    return arrays([lax.tile_p.bind(X, reps=(2, 1)), lax.tile_p.bind(I, reps=(1, 3)),
                   jax.jit(lambda x: lax.tile(x, (2, 2)))(X), lax.tile(X[0], (0,))])


@case
def restructure_grads(jax, lax):
    def f(x, y):
        a, b = lax.split(x, (1, 3), axis=1)
        rows = lax.unstack(y, axis=0)
        s = lax.stack([x * 2.0, y], axis=0)
        t = lax.tile(x, (2, 3))
        return (jax.numpy.sum(jax.numpy.sin(a)) + jax.numpy.sum(b * b) + jax.numpy.sum(
            rows[1] ** 3) + jax.numpy.sum(jax.numpy.cos(s)) + jax.numpy.sum(t * t * t))
    return arrays(jax.grad(f, argnums=(0, 1))(X, Y))


@case
def restructure_vmap(jax, lax):
    return arrays([jax.vmap(lambda r: lax.split(r, (1, 3))[1])(X),
                   jax.vmap(lambda r: lax.tile(r, (3,)), in_axes=1)(X),
                   jax.vmap(lambda r: lax.unstack(r)[2])(X),
                   jax.vmap(lambda r, s: lax.stack([r, s], 0), in_axes=(1, None))(X, Y[0, :3])])


@case
def total_order_bind(jax, lax):
    out = []
    for p in (lax.eq_to_p, lax.le_to_p, lax.lt_to_p):
        out += [p.bind(SPECIAL_A, SPECIAL_B), jax.jit(lambda a, b: p.bind(a, b))(SPECIAL_A, SPECIAL_B),
                p.bind(I[0], I[1]), jax.vmap(lambda a, b: p.bind(a, b))(X, Y)]
    return arrays(out)


@case
def printed_jaxprs(jax, lax):
    mk = jax.make_jaxpr
    return [str(mk(lambda x: lax.square(x))(X)),
            str(mk(lambda x: lax.split(x, (1, 3), axis=1))(X)),
            str(mk(lambda x, y: lax.stack([x, y], axis=1))(X, Y)),
            str(mk(lambda x: lax.unstack(x, axis=0))(X)),
            str(mk(lambda x: lax.tile(x, (2, 1)))(X)),
            str(mk(lambda a, b: (lax.eq_to_p.bind(a, b), lax.le_to_p.bind(a, b),
                                 lax.lt_to_p.bind(a, b)))(X, Y))]


T = _R.randn(3, 5).astype(np.float32)
T[0, 1] = T[0, 3]            # a tie: the lower index first
TN = T.copy()
TN[1, 2] = np.nan            # NaN: above every number


@case
def top_k_bind(jax, lax):
    return arrays([*lax.top_k_p.bind(T, k=2, axis=1), *lax.top_k_p.bind(T, k=3, axis=0),
                   *jax.jit(lambda a: lax.top_k(a, 3))(TN), *lax.top_k(TN, 2, axis=0),
                   *lax.top_k(np.arange(6, dtype=np.int32).reshape(2, 3) % 4, 2),
                   *lax.top_k(T, 0)])


@case
def top_k_grad_vmap(jax, lax):
    return arrays([jax.grad(lambda a: (lax.top_k(a, 2, axis=0)[0] ** 2).sum())(T),
                   jax.grad(lambda a: jax.numpy.sin(lax.top_k(a, 3)[0]).sum())(T),
                   *jax.vmap(lambda a: lax.top_k(a, 2), in_axes=1)(T),
                   *jax.vmap(lambda a: lax.top_k(a, 1, axis=0))(T.reshape(3, 5, 1))])


@case
def top_k_jaxpr_and_errors(jax, lax):
    def err(f):
        try:
            f()
        except (TypeError, ValueError) as e:
            return [type(e).__mro__[[c.__module__ for c in type(e).__mro__].index("builtins")]
                    .__name__, str(e).split("\n")[0] if not str(e).startswith("/") else None]
        return None
    return [str(jax.make_jaxpr(lambda a: lax.top_k(a, 2, axis=0))(T)),
            type(lax.top_k(T, 1)).__name__,
            err(lambda: lax.top_k(T, 6))[0], err(lambda: lax.top_k(np.float32(1), 1))[0],
            err(lambda: lax.top_k(T + 1j, 1))[0], err(lambda: lax.top_k(T, -1))[0]]


SIDX = np.array([[1], [3], [1]], np.int32)
SU = np.array([0.5, 2.0, 0.25], np.float32)


@case
def scatter_sub_bind(jax, lax):
    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    # (JAX's update_jaxpr param is a jaxpr its wrapper builds: a raw bind with None
    # lowers as an overwrite there, so the case goes through lax.scatter_sub)
    f = lambda x, u: lax.scatter_sub(x, SIDX, u, dn)  # noqa: E731
    return arrays([f(X[0], SU), jax.jit(f)(X[0], SU),
                   lax.scatter_sub(np.arange(4, dtype=np.int8), SIDX[:2],
                                   np.array([100, -100], np.int8), dn),
                   *jax.grad(lambda x, u: jax.numpy.sin(f(x, u)).sum(), argnums=(0, 1))(X[0], SU),
                   jax.vmap(f, in_axes=(0, None))(X, SU)])


@case
def approx_top_k_bind(jax, lax):
    y = _R.randn(2, 3000).astype(np.float32)
    params = dict(k=3, reduction_dimension=-1, recall_target=0.95, is_max_k=True,
                  reduction_input_size_override=-1, aggregate_to_topk=True)
    vmapped = jax.vmap(lambda r: lax.approx_min_k(r, 1, aggregate_to_topk=False))(y)
    return arrays([*lax.approx_top_k_p.bind(T, **params),
                   *lax.approx_top_k_p.bind(T, **dict(params, is_max_k=False,
                                                       reduction_dimension=0)),
                   jax.grad(lambda a: (lax.approx_max_k(a, 2)[0] ** 2).sum())(T),
                   *jax.vmap(lambda a: lax.approx_max_k(a, 2), in_axes=1)(T),
                   np.array(vmapped[0].shape)]) + [
        str(jax.make_jaxpr(lambda a: lax.approx_max_k(a, 2))(T))]


@case
def names(jax, lax):
    return [p.name for p in (lax.square_p, lax.split_p, lax.stack_p, lax.unstack_p, lax.tile_p,
                             lax.eq_to_p, lax.le_to_p, lax.lt_to_p, lax.top_k_p,
                             lax.scatter_sub_p, lax.approx_top_k_p)] + [
        lax.split_p.multiple_results, lax.unstack_p.multiple_results, lax.stack_p.multiple_results]


if __name__ == "__main__":
    import jax
    from jax import lax
    results = {name: fn(jax, lax) for name, fn in CASES.items()}
    out = Path(__file__).with_name("lax_primitive_objects.json")
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(results)} cases to {out}")
