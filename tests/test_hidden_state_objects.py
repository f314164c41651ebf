"""Objects whose state the object watch must see, or must not guess (issue 12, round 7's
"seen, not fixed"): a method keeps a counter and computes a staged value from the trip's
staged values, called once per trip of a loop over a static range. A body staged once
(`scan`) would call it once. Python (= JAX, which traces the Python loop) calls it on
every trip, so astjax must too, or give a located error:

- a user class with `__slots__` (its methods are converted: `object_effects.snapshot`
  watches slots as it watches `__dict__`);
- library classes (not converted; `call_tape`): one whose `__getstate__` returns None,
  one whose `__getstate__` raises, a slotted one and a plain one (no `__setstate__`:
  the draw is undone through their attributes), and a subclass of a C type holding its
  state below Python (`collections.deque`: no state Python can see or put back, so the
  loop runs as Python does);
- a slotted library object whose method is pure keeps its `scan`.
"""
import importlib
import sys
import textwrap

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import errors


class Slotted:
    __slots__ = ("count",)

    def __init__(self):
        self.count = 0

    def scale(self, x):
        self.count += 1
        return x * self.count


LIBRARY = textwrap.dedent('''
    import collections

    class NoState:
        def __init__(self):
            self.count = 0
        def __getstate__(self):
            return None
        def scale(self, x):
            self.count += 1
            return x * self.count

    class Unpicklable:
        def __init__(self):
            self.count = 0
        def __getstate__(self):
            raise TypeError("cannot pickle")
        def scale(self, x):
            self.count += 1
            return x * self.count

    class Slotted:
        __slots__ = ("count",)
        def __init__(self):
            self.count = 0
        def scale(self, x):
            self.count += 1
            return x * self.count

    class Plain:
        def __init__(self):
            self.count = 0
        def scale(self, x):
            self.count += 1
            return x * self.count

    class Counted(collections.deque):
        def scale(self, x):
            self.append(1)
            return x * len(self)

    class Pure:
        __slots__ = ("w",)
        def __init__(self):
            self.w = 2.0
        def scale(self, x):
            return x * self.w
''')


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    """A module installed where library code lives (a `site-packages` directory): its
    functions are not converted."""
    root = tmp_path_factory.mktemp("lib") / "site-packages"
    root.mkdir()
    (root / "hidden_state_lib.py").write_text(LIBRARY)
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("hidden_state_lib")
    finally:
        sys.path.remove(str(root))
        sys.modules.pop("hidden_state_lib", None)


def _loop(obj, n=4):
    def f(x):
        acc = x * 0.0
        for i in range(n):
            acc = acc + obj.scale(x)
        return acc
    return f


def _count(obj):
    return len(obj) if hasattr(obj, "maxlen") else obj.count


def _check(make):
    """jit of the loop gives Python's value and leaves the object as Python does."""
    x = np.float32(1.5)
    obj = make()
    want = _loop(obj)(x)
    want_count = _count(obj)
    obj = make()
    got = astjax.jit(_loop(obj))(x)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert _count(obj) == want_count == 4


def test_user_class_with_slots():
    _check(Slotted)


@pytest.mark.parametrize("name", ["NoState", "Unpicklable", "Slotted", "Plain", "Counted"])
def test_library_object_with_a_counter(lib, name):
    _check(getattr(lib, name))


def test_pure_library_method_keeps_the_scan(lib):
    f = _loop(lib.Pure())
    assert "scan" in str(astjax.make_jaxpr(f)(1.0))
    np.testing.assert_allclose(astjax.jit(f)(np.float32(1.5)), 12.0)


def test_opaque_state_with_a_staged_trip_count_is_located(lib):
    obj = lib.NoState()

    def f(x, n):
        acc = x * 0.0
        for i in range(n):
            acc = acc + obj.scale(x)
        return acc
    with pytest.raises(errors.ConcretizationError) as e:
        astjax.jit(f)(np.float32(1.5), 3)
    assert "test_hidden_state_objects.py" in str(e.value)


def test_grad_and_vmap_of_the_unrolled_loop(lib):
    obj = lib.NoState()
    g = astjax.grad(_loop(obj))(np.float32(1.5))
    assert float(g) == 1 + 2 + 3 + 4
    obj = lib.Plain()
    v = astjax.vmap(_loop(obj))(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(v, [10.0, 20.0])
