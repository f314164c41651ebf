"""The small helpers several layers share instead of repeating them: `util.pushed` (the
one push / pop context behind the stacks of what is current while staging) and
`core.all_eqns` (every equation of a jaxpr, nested ones included)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import core, lax, name_stack, util


def test_pushed_pops_however_the_block_is_left():
    stack = [1]
    with util.pushed(stack, 2) as got:
        assert stack == [1, 2] and got is None   # (as the generator contexts gave)
        with util.pushed(stack, 3):
            assert stack == [1, 2, 3]
        assert stack == [1, 2]
    with pytest.raises(KeyError):
        with util.pushed(stack, 4):
            raise KeyError("x")
    assert stack == [1]


def test_the_staging_contexts_push_and_pop_their_stacks():
    info = core.current_source_info()
    before = list(name_stack.current.infos)
    with core.source_info_context(info):
        assert name_stack.current.infos == before + [info]
        with core.extend_axis_env("i", 3):
            assert core.axis_frame().name == "i" and core.axis_frame().size == 3
            assert core.innermost_axis_name() == "i"
        assert core.innermost_axis_name() is None
    assert name_stack.current.infos == before
    with pytest.raises(ValueError):
        with core.current_user_trace(None):
            raise ValueError
    assert core._state.user_traces == []


def _nested(x):
    def body(c, y):
        return lax.cond(y > 0, jnp.sin, jnp.cos, c) + y, c
    c, ys = lax.scan(body, x[0], x)
    return c * 2.0 + ys.sum()


def test_all_eqns_walks_nested_jaxprs_depth_first():
    closed = astjax.make_jaxpr(_nested)(np.ones(3, np.float32))
    names = [e.primitive.name for e in core.all_eqns(closed)]
    assert names == [e.primitive.name for e in core.all_eqns(closed.jaxpr)]
    top = [e.primitive.name for e in closed.jaxpr.eqns]
    assert "scan" in top and "cond" not in top
    scan_at = names.index("scan")
    # the scan's body follows the scan itself, the cond's branches follow the cond
    assert names.index("cond") > scan_at and names.index("sin") > names.index("cond")
    assert {"sin", "cos"} <= set(names) and len(names) > len(top)


def test_map_sub_jaxprs_runs_a_pass_on_every_body_of_an_equation():
    closed = astjax.make_jaxpr(_nested)(np.ones(3, np.float32))
    scan, = [e for e in closed.jaxpr.eqns if e.primitive.name == "scan"]
    seen = []

    def rename(jaxpr):
        seen.append(jaxpr)
        return jaxpr
    out = core.map_sub_jaxprs(rename, scan.params)
    assert seen == [scan.params["jaxpr"].jaxpr]
    assert type(out["jaxpr"]) is core.ClosedJaxpr and out["jaxpr"] is not scan.params["jaxpr"]
    assert out["jaxpr"].jaxpr is scan.params["jaxpr"].jaxpr
    assert list(out["jaxpr"].consts) == list(scan.params["jaxpr"].consts)
    assert {k: v for k, v in out.items() if k != "jaxpr"} == \
        {k: v for k, v in scan.params.items() if k != "jaxpr"}
    cond, = [e for e in core.all_eqns(closed) if e.primitive.name == "cond"]
    seen.clear()
    branches = core.map_sub_jaxprs(rename, cond.params)["branches"]
    assert type(branches) is tuple and len(branches) == 2
    assert seen == [b.jaxpr for b in cond.params["branches"]]
    plain = {"axes": (0,)}
    assert core.map_sub_jaxprs(rename, plain) is plain


def test_dot_general_and_conv_share_the_bilinear_rules():
    from astjax.primitives.convolution import conv_general_dilated_p
    from astjax.primitives.reductions import dot_general_p
    for p in (dot_general_p, conv_general_dilated_p):
        assert p.jvp.__qualname__ == "bilinear.<locals>.jvp" and p.linear
        both = [core.UndefinedPrimal(core.ShapedArray((2, 2), np.float32))] * 2
        with pytest.raises(AssertionError, match=f"{p.name} of two linear values"):
            p.transpose(jnp.ones((2, 2)), *both)
    x, w = np.ones((1, 1, 4), np.float32), np.arange(3.0, dtype=np.float32).reshape(1, 1, 3)

    def conv(x, w):
        return jnp.sum(lax.conv_general_dilated(x, w, (1,), "VALID") ** 2)
    gx, gw = astjax.grad(conv, argnums=(0, 1))(x, w)
    out = 3.0   # every output is 0 + 1 + 2
    np.testing.assert_allclose(gw, 2 * out * 2 * np.ones((1, 1, 3)))   # two outputs
    np.testing.assert_allclose(gx, 2 * out * np.array([[[0, 1, 3, 2]]]))
    _, t = astjax.jvp(lambda a, b: a @ b, (np.eye(2, dtype=np.float32),) * 2,
                      (np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)))
    np.testing.assert_allclose(t, np.ones((2, 2)))
