"""A shared collection of small functions covering arithmetic, every control-flow
shape, containers, calls and closures. Written with plain NumPy so that running
them in Python on NumPy values is the reference; every transform's tests run them.

Each entry: `Case(name, fn, args, static_argnums)`; `args` are NumPy values.
`DIFFERENTIABLE` names the cases whose output is a smooth function of float args.
"""
from __future__ import annotations

import collections
from typing import NamedTuple

import numpy as np


class Case(NamedTuple):
    name: str
    fn: object
    args: tuple
    static_argnums: tuple = ()


f32 = np.float32
X = np.array([0.5, -1.25, 2.0], f32)
M = np.arange(12, dtype=f32).reshape(4, 3) / 7.0


# ---- arithmetic ---------------------------------------------------------------
def identity(x):
    return x


def constant(x):
    return 3.0


def negation(x):
    return -x


def const_left(x):
    return 2.0 * x - 1.0 / (x * x + 1.0)


def same_var(a):
    return a * a + a / (a * a + 1.0) - (a - a)


def nested_expr(x, y):
    return np.sin(x * y + np.cos(x)) / (1.0 + np.exp(-y))


def overwrite(x):
    x = x + 1.0
    x *= 2.0
    x -= 0.5
    x = np.tanh(x)
    return x


def generated_looking_names(x):
    d = x * 2.0
    da = d + x
    tmp = np.sin(da)
    cond = tmp * d
    ct_x = cond + 1.0
    return ct_x


# ---- branches -----------------------------------------------------------------
def if_else(x):
    if x > 0:
        y = x * 2.0
    else:
        y = -x
    return y


def if_no_else(x):
    y = x
    if x > 1.0:
        y = y * 3.0
    return y


def elif_chain(x):
    if x < -1.0:
        r = x * x
    elif x < 0.0:
        r = -x
    elif x < 1.0:
        r = x + 10.0
    else:
        r = np.sqrt(x)
    return r


def deep_nesting(x, y):
    z = x
    if x > 0:
        if y > 0:
            z = z + y
            if x > y:
                z = z * 2.0
        else:
            z = z - y
    else:
        z = z * y
    return z


def local_in_branch(x):
    if x > 0:
        t = x * 2.0
        y = t + 1.0
    else:
        y = x
    return y


def static_test(x, flag):
    if flag:
        return x + 1.0
    return x - 1.0


def ternary(x):
    return x * 2.0 if x > 0 else x * -3.0


def bool_ops(x, y):
    if (x > 0 and y > 0) or not (x > -1.0):
        return x + y
    return x - y


def chained_compare(x):
    if -1.0 < x < 1.0:
        return x * 10.0
    return x


def seeds_neg(x, neg):
    return -x if neg else x


# ---- loops --------------------------------------------------------------------
def range_static(x):
    for i in range(5):
        x = np.sin(x) * 0.5 + x * 0.1
    return x


def range_staged(x, n):
    acc = x
    for i in range(n):
        acc = acc * 1.5 + i
    return acc


def iterate_rows(m):
    total = 0.0
    for row in m:
        total = total + np.sum(row * row)
    return total


def enumerate_zip(x):
    ws = [1.0, 2.0, 3.0]
    bs = [0.5, -0.5, 0.25]
    for i, (w, b) in enumerate(zip(ws, bs)):
        x = x * w + b * i
    return x


def nested_loops(x):
    for i in range(3):
        for j in range(2):
            x = x + (i + 1) * (j + 1) * 0.1
        x = x * 0.9
    return x


def serial_loops(x):
    for i in range(3):
        x = x + 1.0
    for j in range(4):
        x = x * 0.5
    return x


def loop_in_if(x):
    if x > 0:
        for i in range(3):
            x = x * 2.0
    else:
        for i in range(2):
            x = x - 1.0
    return x


def if_in_loop(x):
    for i in range(6):
        if x > 2.0:
            x = x * 0.5
        else:
            x = x + 1.0
    return x


def while_data_dependent(x):
    n = 0
    while x < 100.0:
        x = x * 1.7 + 1.0
        n += 1
    return x, n


def zero_trip_for(x):
    for i in range(0):
        x = x + 1.0
    return x


def zero_trip_while(x):
    while x > 1e9:
        x = x * 0.5
    return x


def index_after_loop(x):
    i = 0
    for i in range(4):
        x = x + i
    return x * i


def break_loop(x):
    for i in range(10):
        if x > 5.0:
            break
        x = x + 1.0
    return x


def break_inner_only(x):
    for i in range(3):
        for j in range(10):
            if x > (i + 1) * 3.0:
                break
            x = x + 1.0
        x = x + 0.5
    return x


def continue_nested(x):
    for i in range(6):
        if i % 2 == 0:
            if x > 0:
                continue
        x = x + 1.0
    return x


def continue_staged(x):
    for i in range(6):
        if x > 3.0:
            x = x - 0.25
            continue
        x = x + 1.0
    return x


def return_in_loop(x):
    for i in range(10):
        if x > 5.0:
            return x * 100.0
        x = x + 1.0
    return x


def return_in_branch(x):
    if x > 0:
        return x * 2.0
    y = x * x
    return y + 1.0


def for_else(x):
    for i in range(4):
        if x > 10.0:
            break
        x = x * 2.0
    else:
        x = x - 1000.0
    return x


def while_else(x):
    while x < 10.0:
        x = x + 3.0
        if x > 8.5:
            break
    else:
        x = -x
    return x


def list_append_stack(x):
    hs = []
    for t in range(5):
        x = np.tanh(x * 1.1 + 0.2)
        hs.append(x)
    return np.stack(hs)


def list_append_sum(x):
    parts = []
    for t in range(4):
        parts.append(x * t)
    return sum(parts)


def indexed_update(x):
    h = np.zeros_like(x, shape=(5,))
    for t in range(4):
        h = _set(h, t + 1, h[t] * 0.5 + x)
    return h


def _set(h, i, v):
    """h.at[i].set(v), written so the NumPy reference works too."""
    if isinstance(h, np.ndarray):
        h = h.copy()
        h[i] = v
        return h
    return h.at[i].set(v)


# ---- data and calls -----------------------------------------------------------
Point = collections.namedtuple("Point", ["x", "y"])


def tuple_io(p):
    a, b = p
    return (a + b, a * b), {"sum": a + b}


def dict_carry(x):
    state = {"x": x, "v": x * 0.0}
    for i in range(3):
        state = {"x": state["x"] + state["v"], "v": state["v"] + 1.0}
    return state["x"]


def namedtuple_io(x):
    p = Point(x, x * 2.0)
    for i in range(2):
        p = Point(p.y, p.x + p.y)
    return p


def _helper(x, k):
    if x > 0:
        return x * k
    return x / k


def helper_calls(x):
    for i in range(3):
        x = _helper(x, 2.0) - 0.5
    return x


def closures(x):
    scale = 3.0

    def inner(y):
        return y * scale + x

    g = lambda z: inner(z) * 2.0  # noqa: E731
    return g(x) + inner(1.0)


def function_argument(x):
    def apply(f, v):
        return f(v)
    return apply(np.sin, x) + apply(lambda v: v * v, x)


def _fact(n):
    return 1 if n <= 1 else n * _fact(n - 1)


def static_recursion(x):
    return x * _fact(5)


CASES = [
    Case("identity", identity, (X,)),
    Case("constant", constant, (X,)),
    Case("negation", negation, (X,)),
    Case("const_left", const_left, (X,)),
    Case("same_var", same_var, (X,)),
    Case("nested_expr", nested_expr, (X, X[::-1].copy())),
    Case("overwrite", overwrite, (X,)),
    Case("generated_looking_names", generated_looking_names, (X,)),
    Case("if_else_pos", if_else, (f32(1.5),)),
    Case("if_else_neg", if_else, (f32(-1.5),)),
    Case("if_no_else", if_no_else, (f32(2.0),)),
    Case("elif_chain_a", elif_chain, (f32(-2.0),)),
    Case("elif_chain_b", elif_chain, (f32(-0.5),)),
    Case("elif_chain_c", elif_chain, (f32(0.5),)),
    Case("elif_chain_d", elif_chain, (f32(4.0),)),
    Case("deep_nesting", deep_nesting, (f32(2.0), f32(1.0))),
    Case("deep_nesting_b", deep_nesting, (f32(2.0), f32(-1.0))),
    Case("local_in_branch", local_in_branch, (f32(1.0),)),
    Case("static_test", static_test, (X, True), (1,)),
    Case("ternary", ternary, (f32(-2.0),)),
    Case("bool_ops", bool_ops, (f32(0.5), f32(-0.5))),
    Case("chained_compare", chained_compare, (f32(0.25),)),
    Case("seeds_neg", seeds_neg, (f32(1.0), True)),
    Case("range_static", range_static, (X,)),
    Case("range_staged", range_staged, (f32(1.0), np.int32(5))),
    Case("iterate_rows", iterate_rows, (M,)),
    Case("enumerate_zip", enumerate_zip, (X,)),
    Case("nested_loops", nested_loops, (X,)),
    Case("serial_loops", serial_loops, (X,)),
    Case("loop_in_if", loop_in_if, (f32(1.0),)),
    Case("loop_in_if_neg", loop_in_if, (f32(-1.0),)),
    Case("if_in_loop", if_in_loop, (f32(0.5),)),
    Case("while_data_dependent", while_data_dependent, (f32(1.5),)),
    Case("zero_trip_for", zero_trip_for, (X,)),
    Case("zero_trip_while", zero_trip_while, (f32(3.0),)),
    Case("index_after_loop", index_after_loop, (X,)),
    Case("break_loop", break_loop, (f32(1.3),)),
    Case("break_loop_early", break_loop, (f32(7.0),)),
    Case("break_inner_only", break_inner_only, (f32(0.1),)),
    Case("continue_nested", continue_nested, (f32(1.1),)),
    Case("continue_staged", continue_staged, (f32(1.1),)),
    Case("return_in_loop", return_in_loop, (f32(1.3),)),
    Case("return_in_loop_early", return_in_loop, (f32(7.0),)),
    Case("return_in_branch", return_in_branch, (f32(-2.0),)),
    Case("return_in_branch_b", return_in_branch, (f32(2.0),)),
    Case("for_else", for_else, (f32(1.0),)),
    Case("for_else_break", for_else, (f32(3.0),)),
    Case("while_else", while_else, (f32(1.2),)),
    Case("while_else_break", while_else, (f32(5.2),)),
    Case("list_append_stack", list_append_stack, (X,)),
    Case("list_append_sum", list_append_sum, (X,)),
    Case("indexed_update", indexed_update, (f32(1.0),)),
    Case("tuple_io", tuple_io, ((X, X * 2),)),
    Case("dict_carry", dict_carry, (X,)),
    Case("namedtuple_io", namedtuple_io, (f32(1.0),)),
    Case("helper_calls", helper_calls, (f32(0.5),)),
    Case("closures", closures, (X,)),
    Case("function_argument", function_argument, (X,)),
    Case("static_recursion", static_recursion, (X,)),
]

# Cases whose outputs are smooth in their float inputs near their arguments (for
# derivative tests; arguments sit away from the kinks of piecewise functions):
# everything except integer outputs and constant functions.
NON_DIFFERENTIABLE = {"constant", "while_data_dependent", "index_after_loop"}
DIFFERENTIABLE = [c for c in CASES if c.name not in NON_DIFFERENTIABLE]


def break_last_statement(x):
    for i in range(100):
        x = x * 1.1
        if x > 50.0:
            break
    return x


def return_last_statement(x):
    for i in range(100):
        x = x * 1.1
        if x > 50.0:
            return x * 2.0
    return -x


CASES += [
    Case("break_last_statement", break_last_statement, (f32(1.3),)),
    Case("return_last_statement", return_last_statement, (f32(1.3),)),
]
DIFFERENTIABLE = [c for c in CASES if c.name not in NON_DIFFERENTIABLE]
