"""Every Python binding form counts as an assignment in the front end's analyses
(issue 12): a name bound inside a staged `if`/`while`/`for` body by `import ... as`,
`from m import x as`, `with ... as`, `:=`, `for`, `def`, `except ... as`, `del` or a
`match` capture, then read after the statement, gives Python's value -- or, where the
name is unbound on the path Python takes, a located NameError (JAX could not stage
these programs at all: their tests are staged)."""
import contextlib

import gast
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import errors
from astjax.frontend.analysis import activity


@contextlib.contextmanager
def _cm(v):
    yield v


def if_import(x):
    if x.sum() > 0:
        import math as G
        y = x * 2
    else:
        import math as G
        y = x * 3
    return y + G.pi


def if_from_import(x):
    if x.sum() > 0:
        from math import pi as G
        y = x * 2
    else:
        from math import e as G
        y = x * 3
    return y + G


def if_with(x):
    if x.sum() > 0:
        with _cm(x * 2) as G:
            y = G + 1
    else:
        with _cm(x * 3) as G:
            y = G - 1
    return y + G


def if_walrus(x):
    if x.sum() > 0:
        y = (G := x * 2) + 1
    else:
        y = (G := x * 3) - 1
    return y + G


def if_comprehension_walrus(x):
    G = 0.0
    if x.sum() > 0:
        y = [(G := v) for v in (1.0, 2.0)][0]
    else:
        y = 0.5
    return x + G + y


def if_for_target(x):
    G = x * 0
    if x.sum() > 0:
        for G in range(3):
            x = x + G
    else:
        G = 5
    return x + G


def if_def(x):
    G = None
    if x.shape[0] > 1:   # a static test: each path defines its own function
        def G(v):
            return v * 2
    y = x * 3
    if x.sum() > 0:
        y = G(x)
    return y


def if_match(x):
    if x.sum() > 0:
        match (1, x * 2):
            case (1, G):
                y = G
    else:
        G = x * 3
        y = x
    return y + G


def if_del_rebind(x):
    G = x
    if x.sum() > 0:
        y = G * 2
        del G
        G = y
    else:
        y = x
    return y + G


def while_import(x):
    while x.sum() < 10:
        import math as G
        x = x + G.e
    return x + G.pi


def while_from_import(x):
    G = 0.0
    while x.sum() < 10:
        from math import e as G
        x = x + G
    return x + G


def for_import(x):
    for i in range(3):
        from math import pi as G
        x = x + G * i
    return x + G


def for_walrus(x):
    G = x
    for i in range(3):
        x = x + (G := x * 0.5)
    return x + G


def while_with(x):
    G = x
    while x.sum() < 10:
        with _cm(x * 2) as G:
            x = x + 1
    return x + G


def for_def(x):
    for i in range(2):
        def G(v, i=i):
            return v + i
        x = G(x)
    return G(x)


def for_except(x):
    for i in range(3):
        try:
            raise ValueError()
        except ValueError as G:
            x = x + 1
    return x


VALUED = [if_import, if_from_import, if_with, if_walrus, if_comprehension_walrus,
          if_for_target, if_def, if_match, if_del_rebind, while_import, while_from_import,
          for_import, for_walrus, while_with, for_def, for_except]


@pytest.mark.parametrize("fn", VALUED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [[1.0, 2.0], [-3.0, 1.0]])
def test_binding_form_read_after(fn, x):
    want = fn(np.asarray(x))
    got = astjax.jit(fn)(jnp.asarray(x, jnp.float32))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32), rtol=1e-6)


def if_except_read(x):
    y = x
    if x.sum() > 0:
        try:
            raise ValueError()
        except ValueError as G:
            y = x + 1
    return y + G   # Python: UnboundLocalError (the handler deletes G)


@pytest.mark.parametrize("fn, line", [(if_except_read, "return y + G")],
                         ids=lambda v: getattr(v, "__name__", "line"))
def test_unbound_after_is_a_located_name_error(fn, line):
    """Python raises UnboundLocalError; astjax a located NameError, never a raw one from
    inside a generated function (the corpus has the static-test and `del` forms:
    tests/bad_inputs/name_except_as_read_after.py, name_del_in_staged_if_read_after.py)."""
    with pytest.raises(NameError):
        fn(np.ones(2))
    with pytest.raises(errors.UndefinedVariableError) as info:
        astjax.jit(fn)(jnp.ones(2))
    assert isinstance(info.value, NameError)
    assert info.value.loc.file == __file__
    import linecache
    assert linecache.getline(__file__, info.value.loc.line).strip().startswith(line.split("#")[0]
                                                                               .strip())


_FORMS = """
def f(x):
    import a.b as I1, c.d
    from e import g as I2, h
    with x as W:
        pass
    (N := 1)
    [(C := v) for v in x]
    for T in x:
        pass
    def D(): pass
    class K(Base): pass
    try:
        pass
    except E as X:
        pass
    del Z
    match x:
        case [1, *R, M] if M:
            pass
        case {'a': A, **Q}:
            pass
        case P(a=B) as S:
            pass
"""


def test_activity_counts_every_binding_form():
    fn = gast.parse(_FORMS).body[0]
    mod = activity.modified(fn.body)
    assert mod == {"I1", "c", "I2", "h", "W", "N", "C", "T", "D", "K", "X", "Z", "R", "M",
                   "A", "Q", "B", "S"}
    read = activity.read(fn.body)
    assert {"x", "Base", "E", "P"} <= read and "v" not in read
    assert activity.unbound(fn.body) == {"X", "Z"}


def test_binding_sites_are_located():
    fn = gast.parse(_FORMS).body[0]
    sites = activity.binding_sites(fn.body, {"I2", "X", "M", "K", "C"})
    assert {n: s.lineno for n, s in sites.items()} == {"I2": 4, "C": 8, "K": 12, "X": 15,
                                                       "M": 19}
