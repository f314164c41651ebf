"""Helpers shared by tests/test_sparse_*.py: random sparse inputs and a digest of each case's
result (a BCOO's shape, layout, index flags, dtypes and stored buffers; a dense
array's shape, dtype and values), so that a test compares astjax's stored values with
real JAX 0.10.2's. Run `cd tests; ENV/bin/python test_sparse_oracle.py MODULE jax` in an
environment with real JAX to print the oracle's digests of `MODULE.cases`."""
import hashlib
import importlib
import sys

import numpy as np


def rand(rng, shape, density=0.4):
    """Small integers (exact in float32) at about `density` of the positions."""
    x = rng.randint(1, 9, size=shape).astype(np.float32)
    return x * (rng.rand(*shape) < density)


def close(got, want):
    """Values equal to float32 rounding."""
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)


def describe(r, sparse):
    """A text of everything observable of a result."""
    if isinstance(r, sparse.BCOO):
        return repr((r.shape, r.nse, r.n_batch, r.n_dense, r.indices_sorted,
                     r.unique_indices, str(r.dtype), str(r.indices.dtype),
                     r.data.shape, r.indices.shape, np.asarray(r.data).tolist(),
                     np.asarray(r.indices).tolist()))
    if isinstance(r, (tuple, list)):
        return "(" + ", ".join(describe(x, sparse) for x in r) + ")"
    r = np.asarray(r)
    return repr((r.shape, str(r.dtype), r.tolist()))


def digest(r, sparse):
    """The first 12 hex digits of `describe`'s sha1."""
    return hashlib.sha1(describe(r, sparse).encode()).hexdigest()[:12]


def digests(cases, jax, sparse, jnp):
    """`{name: digest}` of each case (`name: ErrorClass` where it raises)."""
    out = {}
    for name, f in cases(jax, sparse, jnp).items():
        try:
            out[name] = digest(f(), sparse)
        except Exception as e:  # noqa: BLE001 -- the oracle records which error
            builtin = [c for c in type(e).__mro__ if c.__module__ == "builtins"][0]
            out[name] = builtin.__name__
    return out


def test_digest_tells_layouts_and_flags_apart():
    import astjax.numpy as jnp
    from astjax.compat.experimental import sparse
    x = jnp.array([[0., 1.], [2., 0.]])
    a = sparse.BCOO.fromdense(x)
    b = sparse.BCOO.fromdense(x, n_batch=1)
    c = sparse.BCOO((a.data, a.indices), shape=a.shape)   # the same buffers, no flags
    assert len({digest(a, sparse), digest(b, sparse), digest(c, sparse),
                digest(x, sparse)}) == 4


if __name__ == "__main__":
    module = importlib.import_module(sys.argv[1])
    if sys.argv[2] == "jax":
        import jax
        import jax.numpy as jnp
        from jax.experimental import sparse
    else:
        import astjax as jax
        import astjax.numpy as jnp
        from astjax.compat.experimental import sparse
    for k, v in digests(module.cases, jax, sparse, jnp).items():
        print(f"    {k!r}: {v!r},")
