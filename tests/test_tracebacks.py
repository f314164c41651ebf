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
    # the outermost boundary leaves the user's frames only, as JAX's
    internal = [f for f in frames if f.filename.startswith(ASTJAX_DIR)]
    assert not internal, [f"{f.filename}:{f.lineno}" for f in internal]
    assert all(f.filename == __file__ for f in frames)


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


# ---- a user's own exception leaving an astjax entry point (JAX's api_boundary) -----

class _UserError(ValueError):
    pass


def _refuse(x):
    raise _UserError("the user's function refuses")


def _calls_refuse(x):
    return _refuse(x) + 1.0


def _scan_body(c, x):
    return _refuse(c), x


_ENTRY_POINTS = {
    "jit": lambda x: astjax.jit(_calls_refuse)(x),
    "grad": lambda x: astjax.grad(_calls_refuse)(x),
    "value_and_grad": lambda x: astjax.value_and_grad(_calls_refuse)(x),
    "jacrev": lambda x: astjax.jacrev(_calls_refuse)(x),
    "vmap": lambda x: astjax.vmap(_calls_refuse)(jnp.ones(2)),
    "jit of grad": lambda x: astjax.jit(astjax.grad(_calls_refuse))(x),
    "make_jaxpr": lambda x: astjax.make_jaxpr(_calls_refuse)(x),
    "eval_shape": lambda x: astjax.eval_shape(_calls_refuse, x),
    "lower": lambda x: astjax.jit(_calls_refuse).lower(x),
    "jvp": lambda x: astjax.jvp(_calls_refuse, (x,), (x,)),
    "vjp": lambda x: astjax.vjp(_calls_refuse, x),
    "linearize": lambda x: astjax.linearize(_calls_refuse, x),
    "checkpoint": lambda x: astjax.checkpoint(_calls_refuse)(x),
    "pmap": lambda x: astjax.pmap(_calls_refuse)(jnp.ones(1)),
    "lax.scan": lambda x: astjax.lax.scan(_scan_body, x, jnp.ones(3)),
    "lax.cond": lambda x: astjax.lax.cond(True, _calls_refuse, _calls_refuse, x),
    "lax.while_loop": lambda x: astjax.lax.while_loop(lambda c: c < 3, _calls_refuse, x),
    "lax.fori_loop": lambda x: astjax.lax.fori_loop(0, 3, lambda i, c: _calls_refuse(c), x),
    "lax.map": lambda x: astjax.lax.map(_calls_refuse, jnp.ones(3)),
}


@pytest.mark.parametrize("entry", sorted(_ENTRY_POINTS))
def test_a_users_exception_keeps_only_the_users_frames(entry):
    """As JAX's api_boundary: the traceback of the user's exception is the user's frames
    (no astjax frame, not even the entry point's), the exception itself unchanged, with
    JAX's one note."""
    with pytest.raises(_UserError) as info:
        _ENTRY_POINTS[entry](jnp.float32(1.0))
    frames = _frames(info.value)
    assert [f.filename for f in frames if f.filename != __file__] == [], \
        [f"{f.filename}:{f.lineno}" for f in frames]
    assert frames[-1].name == "_refuse"
    assert info.value.__notes__ == ["--------------------\n" + traceback_util._SIMPLIFIED]
    assert info.value.__cause__ is None


def test_a_users_exception_unfiltered_when_off_and_its_cause_under_remove_frames():
    old = astjax.config.read("jax_traceback_filtering")
    try:
        astjax.config.update("jax_traceback_filtering", "off")
        with pytest.raises(_UserError) as info:
            astjax.jit(_calls_refuse)(1.0)
        assert any(f.filename.startswith(ASTJAX_DIR) for f in _frames(info.value))
        assert not getattr(info.value, "__notes__", None)
        astjax.config.update("jax_traceback_filtering", "remove_frames")
        with pytest.raises(_UserError) as info:
            astjax.grad(_calls_refuse)(1.0)
        assert isinstance(info.value.__cause__, traceback_util.UnfilteredStackTrace)
        assert not any(f.filename.startswith(ASTJAX_DIR) for f in _frames(info.value))
    finally:
        astjax.config.update("jax_traceback_filtering", old)


def test_astjax_errors_keep_their_located_message_and_no_note():
    e = _raise(astjax.grad(lambda x: _user(x).sum()))
    assert str(e).startswith(f"{__file__}:") and not getattr(e, "__notes__", None)
    assert e.__cause__ is None and e.__suppress_context__
