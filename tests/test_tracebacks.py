"""Tracebacks of located errors keep the user's frames and drop astjax's internal
ones (astjax/traceback_util.py); `jax_traceback_filtering = "off"` keeps them all."""
import os
import traceback

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import traceback_util
from astjax.errors import ShapeError

ASTJAX_DIR = os.path.dirname(astjax.__file__)


def _helper(a):
    return a + jnp.ones(4)


def _user(x):
    y = x * 2.0
    return _helper(y)


def _frames(e):
    return traceback.extract_tb(e.__traceback__)


def _raise(fn, shape=(3,)):
    with pytest.raises(ShapeError) as info:
        fn(np.ones(shape, np.float32))
    return info.value


@pytest.mark.parametrize("transform", ["jit", "grad", "vmap", "make_jaxpr"])
def test_innermost_frame_is_the_users_line(transform):
    if transform == "grad":
        fn = astjax.grad(lambda x: _user(x).sum())
    elif transform == "vmap":
        fn = astjax.jit(astjax.vmap(_user))
    else:
        fn = getattr(astjax, transform)(_user)
    frames = _frames(_raise(fn, (2, 3) if transform == "vmap" else (3,)))
    last = frames[-1]
    assert last.filename == __file__ and last.line == "return a + jnp.ones(4)"
    # after the boundary that re-raised, only the user's frames remain
    first_user = next(i for i, f in enumerate(frames[1:], 1) if f.filename == __file__)
    assert all(f.filename == __file__ for f in frames[first_user:])
    internal = [f for f in frames if f.filename.startswith(ASTJAX_DIR)]
    assert 1 <= len(internal) <= 3, [f"{f.filename}:{f.lineno}" for f in internal]


def test_filtering_off_keeps_internal_frames():
    old = astjax.config.read("jax_traceback_filtering")
    astjax.config.update("jax_traceback_filtering", "off")
    try:
        frames = _frames(_raise(astjax.jit(_user)))
    finally:
        astjax.config.update("jax_traceback_filtering", old)
    assert sum(f.filename.startswith(ASTJAX_DIR) for f in frames) > 5


def test_register_exclusion_hides_a_library(tmp_path):
    lib = tmp_path / "mylib.py"
    lib.write_text("def inner(x):\n    raise ValueError('boom')\n")
    ns = {}
    exec(compile(lib.read_text(), str(lib), "exec"), ns)
    try:
        ns["inner"](1)
    except ValueError as e:
        tb = e.__traceback__
    assert traceback.extract_tb(traceback_util.filter_traceback(tb))[-1].filename == str(lib)
    traceback_util.register_exclusion(str(tmp_path))
    try:
        kept = traceback.extract_tb(traceback_util.filter_traceback(tb))
        assert all(f.filename != str(lib) for f in kept)
    finally:
        traceback_util._excluded.remove(str(tmp_path) + os.sep)
