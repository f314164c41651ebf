"""State a loop body changes in a nested object (`self.stats.n += 1`,
`self.opt.state["count"] += 1`, a list inside an attribute), reached through a bound
method, a method of an argument or a counter shared by two owners. JAX unrolls the
Python loop while tracing, so the effect happens on every trip; astjax must see the
change (`object_effects.snapshot` follows bound methods and walks far enough) and unroll
too, never stage the body once as a `scan`. Values: JAX 0.10.2 (the same programs run
with `import jax`), stored as literals below."""
import dataclasses

import pytest

import astjax


class Stats:
    def __init__(self):
        self.n = 0


class Model:
    def __init__(self):
        self.stats = Stats()

    def step(self, x):
        self.stats.n += 1
        return x + self.stats.n


class Opt:
    def __init__(self):
        self.state = {"count": 0}


class Trainer:
    def __init__(self):
        self.opt = Opt()

    def step(self, x):
        self.opt.state["count"] += 1
        return x + self.opt.state["count"]


class Box:
    def __init__(self):
        self.items = []


class Recorder:
    def __init__(self):
        self.box = Box()

    def step(self, x):
        self.box.items.append(1)
        return x + len(self.box.items)


class Slotted:
    __slots__ = ("inner",)

    def __init__(self):
        self.inner = Stats()

    def step(self, x):
        self.inner.n += 2
        return x + self.inner.n


@dataclasses.dataclass
class WithStats:
    stats: Stats = dataclasses.field(default_factory=Stats)

    def step(self, x):
        self.stats.n += 3
        return x + self.stats.n


class Bumper:
    def __init__(self):
        self.stats = Stats()

    def bump(self):
        self.stats.n += 1


class Wrapper:
    def __init__(self):
        self.m = Bumper()

    def step(self, x):
        self.m.bump()
        return x + self.m.stats.n


class Shared:
    def __init__(self, c):
        self.c = c

    def step(self, x):
        self.c.n += 1
        return x + self.c.n


def _bound_method_loop(step):
    def run(x):
        for _ in range(20):
            x = step(x)
        return x
    return run


# (class, count read afterwards, JAX's result from 1.0, JAX's count afterwards)
CASES = [
    (Model, lambda o: o.stats.n, 211.0, 20),
    (Trainer, lambda o: o.opt.state["count"], 211.0, 20),
    (Recorder, lambda o: len(o.box.items), 211.0, 20),
    (Slotted, lambda o: o.inner.n, 421.0, 40),
    (WithStats, lambda o: o.stats.n, 631.0, 60),
    (Wrapper, lambda o: o.m.stats.n, 211.0, 20),
]


@pytest.mark.parametrize("cls, count, want, want_count", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_bound_method_in_a_closure(cls, count, want, want_count):
    """`step = obj.step` read by the loop: the object behind the bound method."""
    o = cls()
    assert float(astjax.jit(_bound_method_loop(o.step))(1.0)) == want
    assert count(o) == want_count


class Runner:
    def __init__(self):
        self.t = Trainer()
        self.w = Wrapper()

    def run(self, x):
        for _ in range(20):
            x = self.t.step(x)
            x = self.w.step(x)
        return x


def test_nested_owner_of_a_jitted_method():
    """`self.t.step(x)`: the state three attributes below `self` (was one trip: 41.0)."""
    r = Runner()
    assert float(astjax.jit(r.run)(1.0)) == 421.0
    assert (r.t.opt.state["count"], r.w.m.stats.n) == (20, 20)


def test_counter_shared_by_two_owners():
    c = Stats()
    a, b = Shared(c), Shared(c)
    assert float(astjax.jit(_bound_method_loop(lambda x: b.step(a.step(x))))(1.0)) == 821.0
    assert c.n == 40


def test_function_attribute_counts_calls():
    """A user function kept in a container, changing its own attribute."""
    def tick(x):
        tick.calls += 1
        return x + tick.calls
    tick.calls = 0
    table = {"f": tick}

    def run(x):
        for _ in range(20):
            x = table["f"](x)
        return x
    assert float(astjax.jit(run)(1.0)) == 211.0
    assert tick.calls == 20


def test_pure_nested_method_still_one_scan():
    """Reading nested state without changing it keeps the loop one `scan`."""
    m = Model()
    m.stats.n = 2

    def run(x):
        for _ in range(20):
            x = x * 0.5 + m.stats.n
        return x
    jaxpr = str(astjax.make_jaxpr(run)(1.0))
    assert "scan" in jaxpr
