"""Mechanism tests for issue 14's first-call cost of source conversion (the front end:
parse, ast -> gast, converters, gast -> ast, `compile`, and the position table of the
converted code). Each pins *what work* a first call does -- tables built, trees
translated -- never a time."""
import linecache
import os
import tempfile

import pytest

import astjax
import astjax.numpy as jnp
from astjax import errors


def _long_source(n):
    lines = ["def f(x):", "    a0 = x * 1.5"]
    for i in range(1, n + 1):
        lines.append(f"    a{i} = jnp.sin(a{i - 1}) * 0.5 + a{max(0, i - 2)}")
    lines.append(f"    return a{n}")
    return "\n".join(lines) + "\n"


def _from_file(src, tag):
    """`f` defined in a real file (the converter reads the source through linecache)."""
    path = os.path.join(tempfile.mkdtemp(prefix="astjax_conv_"), f"{tag}.py")
    with open(path, "w") as fh:
        fh.write(src)
    linecache.checkcache(path)
    ns = {"jnp": jnp}
    exec(compile(src, path, "exec"), ns)
    return ns["f"], path


@pytest.fixture
def counted(monkeypatch):
    """Counts of the front end's expensive steps while the test runs (outermost calls)."""
    counts = {"tables": 0}
    depth = [0]
    for mod, name, key in ((errors, "_positions", "tables"),):
        orig = getattr(mod, name)

        def wrapper(*a, _orig=orig, _key=key, **k):
            counts[_key] += depth[0] == 0
            depth[0] += 1
            try:
                return _orig(*a, **k)
            finally:
                depth[0] -= 1
        monkeypatch.setattr(mod, name, wrapper)
    return counts


def test_first_call_builds_no_position_table(counted):
    """Staging records each operation's location as (code, instruction); the converted
    code's position table (one entry per code unit) is built only when a location is
    read -- an error, a printed location -- not on a first call that raises nothing."""
    f, _ = _from_file(_long_source(30), "no_table")
    x = jnp.ones(3)
    astjax.jit(f)(x).block_until_ready()
    astjax.grad(lambda x: f(x).sum())(x)
    astjax.make_jaxpr(astjax.vmap(f))(jnp.ones((2, 3)))
    assert counted["tables"] == 0, counted


def _eqn_infos(closed):
    return [e.source_info for e in closed.jaxpr.eqns]


def test_deferred_locations_are_the_code_positions():
    """Every staged equation's line and columns, read after staging, are the
    positions of the user's expression: `jnp.sin(...)` at column 9 of its line, the
    `* 0.5` and `+` around it."""
    f, path = _from_file(_long_source(3), "positions")
    infos = _eqn_infos(astjax.make_jaxpr(f)(jnp.ones(3)))
    got = [(i.file, i.line, i.col, i.end_col) for i in infos]
    text = linecache.getlines(path)
    want = [(path, 2, 9, 16)]   # a0 = x * 1.5
    for line in (3, 4, 5):
        src = text[line - 1]
        sin = src.index("jnp.sin")
        want += [(path, line, sin, src.index(")") + 1),                      # sin
                 (path, line, sin, src.index("0.5") + 3),                    # * 0.5
                 (path, line, sin, len(src.rstrip()))]                       # + a_j
    assert got == want


def test_replace_keeps_the_location_deferred_and_equal():
    f, path = _from_file(_long_source(2), "replace")
    info = _eqn_infos(astjax.make_jaxpr(f)(jnp.ones(3)))[1]
    named = info.replace(name="a1", phase="forward")
    assert named._code is not None and info._code is not None   # neither resolved
    assert (named.name, named.phase, named.file) == ("a1", "forward", path)
    assert (named.line, named.col, named.end_col) == (info.line, info.col, info.end_col) \
        == (3, 9, 20)
    moved = info.replace(line=7)
    assert (moved.line, moved.col, moved.file) == (7, 9, path)
    assert type(moved) is errors.SourceInfo


def test_errors_still_point_at_the_operation():
    src = "def f(x):\n    y = x * 2\n    z = y.reshape(7)\n    return z\n"
    f, path = _from_file(src, "located")
    with pytest.raises(astjax.errors.AstjaxError) as e:
        astjax.jit(f)(jnp.ones(3))
    assert (e.value.loc.file, e.value.loc.line, e.value.loc.col) == (path, 3, 8)
    assert f"{path}:3:9" in str(e.value)
