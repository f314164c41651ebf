"""Python state and output a staged body reaches through unconverted code, beyond
`tests/test_object_effects.py` (`frontend/call_tape.py`, `frontend/object_effects.py`;
issue 12, the object watch's gaps): stateful calls whose results or arguments hold
staged values, functions returning objects (`uuid.uuid4()`), in-place draws
(`rng.shuffle`), output (`print`, loggers) and user generator functions. Each program
is compared with plain Python (`jnp` bound to NumPy) -- which is JAX's answer too
where JAX accepts the program, since JAX runs these calls while tracing -- or is a
located error."""
import dataclasses
import io
import itertools
import logging
import random
import statistics
import types
import uuid

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import errors
from test_object_effects import X, _at, _check_like_python, _python

RNG = random.Random(0)


def _reseed():
    RNG.seed(3)


# ------------------------------------------- stateful results holding staged values

def choice_of_staged_values(x):
    acc = x * 0.0
    for i in range(4):
        a = jnp.sin(x) + 1.0
        b = x * 10.0
        acc = acc + RNG.choice([a, b])        # picks one of the trip's staged values
    return acc


def choice_and_gauss(x):
    acc = x * 0.0
    for i in range(3):                        # `gauss` keeps its second value on RNG
        acc = acc + RNG.choice([x, x * 10.0]) + RNG.gauss(0.0, 1.0)
    return acc


def gauss_of_a_staged_mean(x):
    acc = x * 0.0
    for i in range(3):
        acc = acc + RNG.gauss(x, 1.0)         # a staged value computed with a draw
    return acc


def shuffle_of_staged_values(x):
    for i in range(3):
        items = [x, x * 2.0, x * 3.0]
        RNG.shuffle(items)                    # the draw is in the list's order
        x = items[0] * 0.5 + 1.0
    return x


def shuffle_of_a_python_list(x):
    items = [1.0, 2.0, 3.0, 4.0]
    for i in range(3):
        RNG.shuffle(items)
        x = x * 0.5 + items[0]
    return x


def next_of_an_iterator_of_staged_values(x):
    it = iter([x, x * 2.0, x * 3.0])
    acc = x * 0.0
    for i in range(3):
        acc = acc + next(it)
    return acc


def _weighted(v):
    return sum(w * v for w in (1.0, 2.0))


def generator_expression_made_before_the_loop(x):
    g = (v for v in [1.0, 2.0, 3.0, 4.0])
    for i in range(3):                        # reads one item of `g` per trip
        x = x * 0.5 + sum(itertools.islice(g, 1)) + _weighted(x)
    return x


@pytest.mark.parametrize("fn", [choice_of_staged_values, choice_and_gauss,
                                gauss_of_a_staged_mean, shuffle_of_staged_values,
                                shuffle_of_a_python_list,
                                next_of_an_iterator_of_staged_values,
                                generator_expression_made_before_the_loop])
def test_stateful_call_with_staged_values_runs_on_every_trip(fn):
    # was: the scan reused the first trip's pick / draw / order on every trip (silent:
    # choice 40 where Python gives 32), or a replayed `gauss` lost its cached value
    _check_like_python(fn, _reseed, rtol=1e-5)
    assert "scan" not in str(astjax.make_jaxpr(fn)(X))


def generator_expressions_made_in_the_trip(x):
    for i in range(3):
        x = x * 0.5 + _weighted(x) + sum(v * x for v in (0.5, 0.25))
    return x


def test_generator_expressions_the_trip_makes_still_scan():
    assert "scan" in str(astjax.make_jaxpr(generator_expressions_made_in_the_trip)(X))
    _check_like_python(generator_expressions_made_in_the_trip)


def zscore_of_a_staged_value(x):
    dist = statistics.NormalDist(1.0, 2.0)
    for i in range(5):
        x = dist.zscore(x) + 1.0              # a method that moves no state
    return x


def test_method_computing_from_staged_values_without_a_draw_still_scans():
    assert "scan" in str(astjax.make_jaxpr(zscore_of_a_staged_value)(X))
    _check_like_python(zscore_of_a_staged_value)


def choice_in_a_staged_range(x, n):
    for i in range(n):
        x = x + RNG.choice([x, x * 2.0])
    return x


def choice_in_a_staged_branch(x):
    if jnp.sum(x) > 0:
        x = RNG.choice([x, x * 2.0])
    return x


def gauss_in_a_staged_branch(x):
    if jnp.sum(x) > 0:
        x = RNG.gauss(x, 1.0)
    return x


def shuffle_in_a_staged_branch(x):
    if jnp.sum(x) > 0:
        items = [1.0, 2.0]
        RNG.shuffle(items)                    # may keep the order: still a draw
        x = x + items[0]
    return x


def numpy_shuffle_in_a_staged_branch(x):
    a = np.arange(4.0)
    if jnp.sum(x) > 0:
        np.random.shuffle(a)
        x = x + 1.0
    return x + a[0]


@pytest.mark.parametrize("fn, args, text", [
    (choice_in_a_staged_range, (X, 3), "for i in"),
    (choice_in_a_staged_branch, (X,), "if jnp"),
    (gauss_in_a_staged_branch, (X,), "if jnp"),
    (shuffle_in_a_staged_branch, (X,), "if jnp"),
    (numpy_shuffle_in_a_staged_branch, (X,), "if jnp"),
])
def test_draw_with_staged_values_where_trips_or_paths_are_staged_is_located(fn, args, text):
    # a staged trip count or both paths of a staged `if` cannot repeat Python's draws;
    # the shuffles returned None, so they ran on both paths unnoticed
    for seed in range(4):     # (a shuffle of two items keeps their order half the time)
        RNG.seed(seed)
        with pytest.raises(errors.ConcretizationError) as e:
            astjax.jit(fn)(*args)
        assert isinstance(e.value, TypeError) and "whose state Python keeps" in str(e.value)
        assert e.value.loc.line == _at(fn, text)[0]


BAG = types.SimpleNamespace(total=0.0)


def _add_to_bag(v):
    BAG.total = BAG.total * 0.5 + v


def library_attribute_bag_changed_through_a_helper(x):
    BAG.total = 0.0
    for i in range(3):
        _add_to_bag(x * i)
    return BAG.total


def test_library_attribute_bag_is_still_watched():
    # objects of library classes with methods (a Random, a logger) are the call tape's;
    # a `SimpleNamespace` (no methods) is the user's state: the loop unrolls
    _check_like_python(library_attribute_bag_changed_through_a_helper)


# --------------------------------------------------- values compared on a second trip

def uuid_per_trip(x):
    out = jnp.zeros(3)
    for i in range(3):
        out = out.at[i].set(uuid.uuid4().int % 1048573 + 0.0 * x[0])
    return out


def test_function_returning_a_new_object_is_called_on_every_trip():
    # was: `uuid4()` returns an object, not a number: the trial's was reused by a scan
    out = np.asarray(astjax.jit(uuid_per_trip)(X))
    assert len(set(out.tolist())) == 3, out
    assert "scan" not in str(astjax.make_jaxpr(uuid_per_trip)(X))


def uuid_from_a_name(x):
    for i in range(4):
        x = x * 0.5 + uuid.uuid5(uuid.NAMESPACE_DNS, "astjax").int % 7
    return x


def test_function_returning_an_equal_object_on_every_trip_still_scans():
    assert "scan" in str(astjax.make_jaxpr(uuid_from_a_name)(X))
    np.testing.assert_allclose(astjax.jit(uuid_from_a_name)(X), _python(uuid_from_a_name)(X),
                               rtol=1e-6)


@astjax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class State:
    w: object
    scale: float = dataclasses.field(default=2.0, metadata=dict(static=True))


def library_function_returning_a_pytree_in_a_loop(x):
    st = State(x)
    for i in range(4):
        st = dataclasses.replace(st, w=jnp.tanh(st.w) * st.scale)   # (unconverted)
    return st.w


SINK = io.StringIO()


def library_function_returning_a_pytree_in_an_unrolled_loop(x):
    st = State(x)
    for i in range(4):
        st = dataclasses.replace(st, w=jnp.tanh(st.w) * st.scale)
        print(i, file=SINK)                                         # (unrolls the loop)
    return st.w


def test_library_function_returning_a_pytree_of_staged_values_is_not_a_value():
    # a frozen dataclass has value equality, but holds the trip's staged values: not a
    # value to compare on a second trip, nor to replay in the unrolled loop
    assert "scan" in str(astjax.make_jaxpr(library_function_returning_a_pytree_in_a_loop)(X))
    _check_like_python(library_function_returning_a_pytree_in_a_loop)
    _check_like_python(library_function_returning_a_pytree_in_an_unrolled_loop)


# --------------------------------------------------------------------------- output

def print_in_a_range_loop(x):
    for i in range(3):
        print("trip", i)
        x = x * 0.5 + 1.0
    return x


def print_in_a_staged_while(x):
    while jnp.sum(x) < 10.0:
        print("trip")
        x = x * 2.0
    return x


def print_in_a_staged_branch_in_a_range_loop(x):
    for i in range(3):
        if jnp.sum(x) > 0:
            print("positive", i)
            x = x + 1.0
    return x


def print_in_a_staged_while_in_a_range_loop(x):
    for i in range(2):
        while jnp.sum(x) < 10.0 * (i + 1):
            print("inner", i)
            x = x * 2.0
    return x


def print_caught_by_the_user(x):
    for i in range(2):
        try:
            print("trip", i)
        except Exception:   # noqa: BLE001
            pass
        x = x + 1.0
    return x


@pytest.mark.parametrize("fn, lines", [
    (print_in_a_range_loop, ["trip 0", "trip 1", "trip 2"]),
    (print_in_a_staged_while, ["trip"]),     # JAX's while_loop: once, at trace time
    (print_in_a_staged_branch_in_a_range_loop, ["positive 0", "positive 1", "positive 2"]),
    (print_in_a_staged_while_in_a_range_loop, ["inner 0", "inner 1"]),
    (print_caught_by_the_user, ["trip 0", "trip 1"]),
])
def test_print_happens_as_under_jax(fn, lines, capsys):
    # was: a scanned body printed once; JAX traces a Python loop trip by trip, and a
    # staged loop body or branch once
    out = astjax.jit(fn)(X)
    assert capsys.readouterr().out.split("\n")[:-1] == lines
    np.testing.assert_allclose(out, _python(fn)(X), rtol=1e-6)


LOGGER = logging.getLogger("astjax.tests.python_effects")


def log_in_a_staged_branch(x):
    if jnp.sum(x) > 0:
        LOGGER.warning("positive")
        x = x * 2.0
    else:
        logging.warning("not positive")
    return x


def log_in_a_range_loop(x):
    for i in range(3):
        LOGGER.warning("trip %d", i)
        x = x * 0.5
    return x


def debug_log_in_a_range_loop(x):
    for i in range(3):
        LOGGER.debug("trip %d", i)            # below the level: writes nothing
        x = x * 0.5
    return x


def test_logging_below_the_level_keeps_the_scan(caplog):
    with caplog.at_level(logging.WARNING):
        assert "scan" in str(astjax.make_jaxpr(debug_log_in_a_range_loop)(X))
    with caplog.at_level(logging.DEBUG, logger=LOGGER.name):
        assert "scan" not in str(astjax.make_jaxpr(debug_log_in_a_range_loop)(X))
    assert [r.getMessage() for r in caplog.records] == ["trip 0", "trip 1", "trip 2"]


@pytest.mark.parametrize("fn, messages", [
    # JAX traces both branches: each logs once, at trace time
    (log_in_a_staged_branch, ["positive", "not positive"]),
    (log_in_a_range_loop, ["trip 0", "trip 1", "trip 2"]),
])
def test_logging_happens_as_under_jax(fn, messages, caplog):
    # was: a located ConcretizationError (the logger's cache dict changed in a branch)
    with caplog.at_level(logging.WARNING):
        out = astjax.jit(fn)(X)
    assert [r.getMessage() for r in caplog.records] == messages
    for x in (X, -X):
        np.testing.assert_allclose(astjax.jit(fn)(x), _python(fn)(x), rtol=1e-6)
    np.testing.assert_allclose(out, _python(fn)(X), rtol=1e-6)


# ------------------------------------------------------------------------ generators

def pairs(x, n):
    for k in range(n):
        yield x * k, k


def generator_in_a_for(x):
    acc = x * 0.0
    for v, k in pairs(x, 3):
        acc = acc + v * k
    return acc


def nested_generator(x):
    scale = 2.0

    def terms():
        for k in range(3):
            yield jnp.sin(x) * k * scale
    return sum(terms()) + x


def generator_read_by_next_in_a_loop(x):
    g = pairs(x, 5)
    acc = x
    for i in range(3):
        v, k = next(g)
        acc = acc * 0.5 + v
    return acc


@pytest.mark.parametrize("fn", [generator_in_a_for, nested_generator,
                                generator_read_by_next_in_a_loop])
def test_user_generator_runs_as_python(fn):
    # was: UnsupportedSyntaxError at the `yield`; JAX runs a generator while tracing
    _check_like_python(fn)


def generator_with_a_staged_test(x):
    def positive():
        if jnp.sum(x) > 0:                    # plain Python, as under JAX
            yield x
    return sum(positive())


def test_staged_test_in_a_generator_is_jax_error():
    with pytest.raises(errors.TracerBoolConversionError) as e:
        astjax.jit(generator_with_a_staged_test)(X)
    assert isinstance(e.value, TypeError)


# -------------------------------------- the fuzz generator's default-off `pystate_staged`

@pytest.mark.parametrize("seed", [38, 175, 26, 102, 1405])
def test_fuzz_program_with_python_state_meeting_staged_values(seed):
    # `python tests/fuzz/run.py --seeds A:B --enable pystate,pystate_staged`: one seed per
    # form -- shuffle (38), print (175), a generator function (26), gauss of a staged
    # mean (102), choice among staged values (1405)
    from fuzz.checks import run_program
    from fuzz.gen import generate
    prog = generate(seed, enabled=("pystate", "pystate_staged"))
    assert prog.uses_pystate_staged
    case = run_program(prog)
    assert case.status is None, (seed, case.status)
    bad = case.failures()
    assert not bad, "\n".join(f"seed {seed} {c}: {r[2][:400]}" for c, r in bad.items())
