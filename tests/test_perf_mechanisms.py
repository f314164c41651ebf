"""Mechanism tests for issue 14 (speed): each pins *why* a workload is fast -- the
equations emitted, the number of passes run, cache hits, the memory kept -- never a
time. One section per row of the issue's table."""
import numpy as np

import astjax
import astjax.numpy as jnp


def _eqns(closed):
    """Every equation of a closed jaxpr, sub-jaxprs included (depth first)."""
    out = []

    def walk(jaxpr):
        for e in jaxpr.eqns:
            out.append(e)
            for v in e.params.values():
                for sub in (v if isinstance(v, (tuple, list)) else (v,)):
                    inner = getattr(sub, "jaxpr", sub)
                    if hasattr(inner, "eqns"):
                        walk(inner)
    walk(closed.jaxpr)
    return out


def _names(closed):
    return [e.primitive.name for e in _eqns(closed)]


# ------------------------------------------------------------------ 1. matmul (GPT row)

def _dense(x, w):
    return jnp.tanh(x @ w).sum()


def test_matmul_of_batched_activation_and_2d_weight_is_one_plain_dot():
    x = np.ones((8, 16, 32), np.float32)
    w = np.ones((32, 24), np.float32)
    closed = astjax.make_jaxpr(jnp.matmul)(x, w)
    names = _names(closed)
    assert names == ["dot_general"], names
    (contract, batch), = [e.params["dimension_numbers"] for e in _eqns(closed)]
    assert batch == ((), ()) and contract == ((2,), (0,))


def test_matmul_weight_gradient_has_no_broadcast_and_no_batch_dims():
    x = np.ones((8, 16, 32), np.float32)
    w = np.ones((32, 24), np.float32)
    closed = astjax.make_jaxpr(astjax.grad(_dense, argnums=(0, 1)))(x, w)
    names = _names(closed)
    assert "broadcast_in_dim" not in names or all(
        e.params["shape"] != (8, 32, 24) for e in _eqns(closed)
        if e.primitive.name == "broadcast_in_dim"), names
    dots = [e for e in _eqns(closed) if e.primitive.name == "dot_general"]
    assert len(dots) == 3
    assert all(e.params["dimension_numbers"][1] == ((), ()) for e in dots)
    # the weight gradient contracts the batch and sequence axes in one dot
    assert any(e.params["dimension_numbers"][0] == ((0, 1), (0, 1)) for e in dots)
    assert "reduce_sum" not in names


def test_matmul_one_sided_batch_axes_match_numpy():
    rng = np.random.default_rng(0)
    for sa, sb in [((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)), ((6, 1, 2, 3), (5, 3, 4)),
                   ((6, 5, 2, 3), (1, 3, 4)), ((1, 5, 2, 3), (6, 1, 3, 4)),
                   ((4, 1, 5, 2, 3), (1, 6, 1, 3, 4)), ((5, 2, 3), (3,))]:
        a = rng.standard_normal(sa).astype(np.float32)
        b = rng.standard_normal(sb).astype(np.float32)
        out = astjax.jit(jnp.matmul)(a, b)
        assert out.shape == np.matmul(a, b).shape
        np.testing.assert_allclose(np.asarray(out), np.matmul(a, b), rtol=1e-5, atol=1e-5)
        names = _names(astjax.make_jaxpr(jnp.matmul)(a, b))
        assert "broadcast_in_dim" not in names and names.count("dot_general") == 1
