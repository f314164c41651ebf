"""Minimal repros of what the differential fuzzer (tests/fuzz) found, one per root
cause (issue 12, R1...), and the converter's invariant: converted code never reads a
local of a generated function before assigning it."""
import ast
import symtable

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.frontend.converter import converted_source


# ---------------------------------------------------------------- R1
def _r1_dead_store(x, s):
    if s > 0:
        s = s * 2.0               # s is not used after the if
    return x


def _r1_two_returns(x):
    if x.shape[0] > 5:
        return x
    if x.shape[0] > 1:
        return 2.0 * x
    return -x


def _r1_continue_and_return(x):
    for i in range(3):
        if jnp.sum(x) > 100.0:
            return x
        if i == 1:
            continue
        x = x * 2.0
    return x


def _r1_dead_store_static(x):
    y = x
    if x.shape[0] > 1:
        y = y + 1.0               # y dead after the if, read before assigned
    return x * 3.0


def test_r1_branch_reads_name_it_assigns_dead_after_if():
    x = jnp.ones(3)
    np.testing.assert_allclose(astjax.jit(_r1_dead_store)(x, 0.5), np.ones(3))
    np.testing.assert_allclose(astjax.jit(_r1_dead_store)(x, -0.5), np.ones(3))


def test_r1_two_early_returns():
    np.testing.assert_allclose(astjax.jit(_r1_two_returns)(jnp.ones(3)), 2.0 * np.ones(3))
    np.testing.assert_allclose(astjax.jit(_r1_two_returns)(jnp.ones(1)), -np.ones(1))


def test_r1_continue_and_return_in_one_loop():
    np.testing.assert_allclose(astjax.jit(_r1_continue_and_return)(jnp.ones(2)), 4.0 * np.ones(2))


def test_r1_static_test_dead_store():
    np.testing.assert_allclose(astjax.jit(_r1_dead_store_static)(jnp.ones(2)), 3.0 * np.ones(2))


# ---------------------------------------------------------------- R2
def _r2_lambda_in_loop(x, y):
    g = lambda z: z + y           # noqa: E731
    for i in range(3):
        y = g(y)                  # g sees the current y
    return y


def _r2_lambda_after_if(x, s):
    g = lambda z: z + s           # noqa: E731
    if jnp.sum(x) > 0:
        s = 10 * s                # s is live after the if only through g
    return g(x)


def _r2_def_with_early_return(x, y):
    def g(z):
        return z + y
    for i in range(3):
        if jnp.sum(y) > 100.0:
            return y
        y = g(y)
    return y


def _r2_nonlocal_in_scanned_loop(x, b):
    for i in range(2):
        def bump():
            nonlocal b
            b = jnp.tanh(b) * 0.5 + 0.1
        bump()
    return x * b


def _r2_nonlocal_called_in_while(x, b):
    def bump():
        nonlocal b
        b = b * 0.5 + 0.1
    k = 0
    while k < 3:
        k += 1
        bump()
    return x * b


@pytest.mark.parametrize("fn, args", [
    (_r2_lambda_in_loop, (np.ones(2), np.array([0.5, 0.25]))),
    (_r2_lambda_after_if, (np.ones(2), 1.0)),
    (_r2_lambda_after_if, (-np.ones(2), 1.0)),
    (_r2_def_with_early_return, (np.ones(2), np.array([0.5, 0.25]))),
    (_r2_nonlocal_in_scanned_loop, (np.ones(2), 0.3)),
    (_r2_nonlocal_called_in_while, (np.ones(2), 0.3)),
])
def test_r2_closures_see_current_values(fn, args):
    np.testing.assert_allclose(astjax.jit(fn)(*args), fn(*args), rtol=1e-6)


def test_r2_nonlocal_write_by_another_closure_is_seen():
    def make():
        scale = 1.0

        def set_scale(x):
            nonlocal scale
            scale = x.sum()

        @astjax.jit
        def f(x):
            set_scale(x)
            return x * scale
        return f
    np.testing.assert_allclose(make()(jnp.ones(3)), 3.0 * np.ones(3))


# ---------------------------------------------------------------- invariant
def _reads_before_assign(text):
    """(function, name) pairs where a generated function reads one of its locals
    before any assignment to it, in source order (converted bodies are straight-line:
    every branch and loop inside them is a call of another generated function)."""
    tree = ast.parse(text)
    fns = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            fns.setdefault((node.name, node.lineno), node)
    bad = []

    def visit(table):
        for child in table.get_children():
            visit(child)
        if table.get_type() != "function" or not table.get_name().startswith("ag__fn_"):
            return
        local = {s.get_name() for s in table.get_symbols()
                 if s.is_local() and not s.is_parameter() and s.is_assigned()
                 and s.is_referenced()}
        node = fns[(table.get_name(), table.get_lineno())]
        seen = set()

        def walk(n):
            if isinstance(n, (ast.FunctionDef, ast.Lambda)) and n is not node:
                if isinstance(n, ast.FunctionDef):
                    seen.add(n.name)
                return
            if isinstance(n, ast.Assign):   # value first, then targets
                walk(n.value)
                for t in n.targets:
                    walk(t)
                return
            if isinstance(n, ast.Name) and n.id in local:
                if isinstance(n.ctx, ast.Load) and n.id not in seen:
                    bad.append((table.get_name(), n.id))
                seen.add(n.id)
            for c in ast.iter_child_nodes(n):
                walk(c)
        for stmt in node.body:
            walk(stmt)
    visit(symtable.symtable(text, "<converted>", "exec"))
    return bad


@pytest.mark.parametrize("fn", [_r1_dead_store, _r1_two_returns, _r1_continue_and_return,
                                _r1_dead_store_static, _r2_lambda_in_loop,
                                _r2_lambda_after_if, _r2_nonlocal_called_in_while])
def test_converted_code_reads_no_local_before_assigning(fn):
    assert _reads_before_assign(converted_source(fn)) == []


def test_fuzz_programs_convert_without_reads_before_assign():
    from fuzz.checks import load
    from fuzz.gen import generate
    for seed in range(40):
        mod = load(generate(seed).render("jax"), "inv")
        assert _reads_before_assign(converted_source(mod.f)) == [], seed


# ---------------------------------------------------------------- found by the fuzzer,
# root cause outside the front end (fixed by the modules' owners after issue 11's moves)
def _r11_break(x):
    for i in range(2):
        if i > 0:
            break
        x = jnp.tanh(x)
    return jnp.sum(x)


def test_r11_printed_grad_of_loop_with_break_runs_eagerly(x64):
    x = np.array([0.1, 0.2])
    g = astjax.source_function(astjax.grad(_r11_break), x)
    np.testing.assert_allclose(g(x), 1.0 - np.tanh(x) ** 2, rtol=1e-12)


def test_r9_grad_of_at_multiply_wrt_update():
    gx, gv = astjax.grad(lambda x, v: jnp.sum(x.at[1].multiply(v)), argnums=(0, 1))(
        jnp.ones(3), 2.0)
    np.testing.assert_allclose(gx, [1.0, 2.0, 1.0])
    np.testing.assert_allclose(gv, 1.0)


def test_r8_numpy_scalar_update_value(x64):
    np.testing.assert_allclose(jnp.ones(2).at[0].set(np.float64(0.5)), [0.5, 1.0])


def _r3_return_in_branch(x, s):
    if s > 0.0:
        if s > 100.0:
            return x
        j = x * 2.0
    else:
        j = x * 3.0
    return x + j                  # Python: j is defined on every path that gets here


def test_r3_no_false_undefined_variable_after_return_in_branch():
    for s in (0.5, -0.5, 500.0):
        np.testing.assert_allclose(astjax.jit(_r3_return_in_branch)(jnp.ones(2), s),
                                   _r3_return_in_branch(np.ones(2), s))


def _r3_continue_in_branch(x):
    acc = x
    for i in range(3):
        if jnp.sum(acc) > 1.0:
            if jnp.sum(acc) > 4.0:
                continue
            t = acc * 2.0         # t: undefined only on the path that continued
        else:
            t = acc
        acc = acc + t * 0.1
    return acc


def _r3_break_in_branch(x):
    acc = x
    for v in [1.0, 2.0, 3.0]:     # unrolled: t starts undefined in every iteration
        if jnp.sum(acc) > 1.0:
            if jnp.sum(acc) > 3.0:
                break
            t = acc * v
        else:
            t = acc
        acc = acc + t
    return acc


def _r3_loop_variable_after_return(x, s):
    if s > 0.0:
        if s > 100.0:
            return x
        for i in range(2):
            x = x * 2.0
    else:
        i = 5
    return x + i                  # i: assigned by a loop in the guarded rest


@pytest.mark.parametrize("fn, args", [
    (_r3_continue_in_branch, (np.ones(2),)),
    (_r3_continue_in_branch, (np.full(2, 3.0),)),
    (_r3_continue_in_branch, (np.full(2, 0.8),)),
    (_r3_break_in_branch, (np.ones(2),)),
    (_r3_break_in_branch, (np.full(2, 0.2),)),
    (_r3_break_in_branch, (np.full(2, 0.6),)),
    (_r3_loop_variable_after_return, (np.ones(2), 0.5)),
    (_r3_loop_variable_after_return, (np.ones(2), 500.0)),
    (_r3_loop_variable_after_return, (np.ones(2), -1.0)),
])
def test_r3_names_assigned_after_a_jump_in_a_staged_branch(fn, args):
    np.testing.assert_allclose(astjax.jit(fn)(*args), fn(*args), rtol=1e-6)


def _r3_carried_after_break(x):
    for v in [1.0, 2.0]:          # unrolled; Python raises NameError if it breaks at once
        if jnp.sum(x) > v:
            break
        t = x * v
    return t


def test_r3_name_read_after_the_loop_stays_strict():
    # the break flag ends the iteration, not the function: `t` is read after the loop,
    # so on the path that broke out at once it is undefined -- a located error
    with pytest.raises(astjax.errors.UndefinedVariableError, match="'t'") as e:
        astjax.jit(_r3_carried_after_break)(jnp.ones(2))
    assert "test_reliability.py" in str(e.value)


def _r3_return_in_unrolled_loop_after_staged_return(x):
    if jnp.sum(x) > 5.0:
        return x                  # the return flag is staged before the loop
    for v in [1.0, 2.0]:          # unrolled with a staged exit test from its first trip
        if jnp.sum(x) > v:
            return x * v
        t = x * v
    return t


def _r3_break_in_unrolled_loop_after_staged_return(x):
    if jnp.sum(x) > 5.0:
        return x
    for v in [1.0, 2.0]:
        if jnp.sum(x) > 4.0 * v:
            return x
        if jnp.sum(x) > v:
            break
        t = x * v
    return t                      # Python: NameError when the first trip breaks


@pytest.mark.parametrize("x", [np.ones(2), np.full(2, 0.2), np.full(2, 4.0)])
def test_r3_unrolled_loop_stopped_by_a_staged_flag(x):
    np.testing.assert_allclose(
        astjax.jit(_r3_return_in_unrolled_loop_after_staged_return)(x),
        _r3_return_in_unrolled_loop_after_staged_return(x))


def test_r3_unrolled_loop_name_read_after_break_is_located():
    with pytest.raises(astjax.errors.UndefinedVariableError, match="'t'") as e:
        astjax.jit(_r3_break_in_unrolled_loop_after_staged_return)(jnp.ones(2))
    assert "test_reliability.py" in str(e.value)


def _r3_static_return_in_staged_branch(x):
    if jnp.sum(x) > 0.3:
        if x.shape[0] > 2:        # static: this branch has returned before `a` exists
            return x * 0.5
        a = x * 2.0
    else:
        a = x * 3.0
    for v in [1.0, 2.0]:
        a = a * 0.9 + v
    return x + a


@pytest.mark.parametrize("x", [np.ones(3), -np.ones(3), np.ones(2), -np.ones(2)])
def test_r3_branch_that_returned_statically(x):
    np.testing.assert_allclose(astjax.jit(_r3_static_return_in_staged_branch)(x),
                               _r3_static_return_in_staged_branch(x), rtol=1e-6)


# ------------------------------------------- a staged `return` inside two loops
def _return_in_nested_loops(x):
    for i in range(3):
        for j in range(2):
            if x[j] > i:
                return x * i
        x = x + 1.0
    return x


def _return_in_sequential_loops(x):
    for i in range(3):
        x = x * 0.5
        if jnp.sum(x) > 10.0:
            return x
    for j in range(2):
        x = x + 1.0
        if jnp.sum(x) > 3.0:
            return x * 2.0
    return x


def _return_in_nested_while_loops(x):
    i = 0
    while i < 3:
        j = 0
        while j < 2:
            if x[j] > i:
                return x * i
            j += 1
        i += 1
    return x


@pytest.mark.parametrize("fn", [_return_in_nested_loops, _return_in_sequential_loops,
                                _return_in_nested_while_loops])
@pytest.mark.parametrize("x", [[0.5, 2.0], [-1.0, -2.0], [1.5, 0.2], [5.0, 6.0]])
def test_staged_return_inside_two_loops(fn, x):
    x = np.array(x)
    np.testing.assert_allclose(astjax.jit(fn)(x), fn(x))
    g = astjax.grad(lambda v: jnp.sum(fn(v) ** 2))(x)
    np.testing.assert_allclose(g, 2.0 * fn(x) * (fn(x + 1e-7) - fn(x - 1e-7)) / 2e-7,
                               rtol=1e-4, atol=1e-6)


def test_r11_dynamic_slice_start_indices_of_mixed_int_types(x64):
    # jax.lax raises TypeError here; astjax promotes (value-preserving) instead of
    # handing XLA a program it rejects with a raw error
    y = np.arange(6.0).reshape(2, 3)
    i = jnp.asarray(1, jnp.int64)
    f = lambda y, i: astjax.lax.dynamic_slice(y, (np.int32(0), i), (2, 1))   # noqa: E731
    g = lambda y, i: astjax.lax.dynamic_update_slice(y, jnp.zeros((2, 1)), (i, np.int16(2)))  # noqa: E731
    for h in (f, astjax.jit(f)):
        np.testing.assert_array_equal(h(y, i), y[:, 1:2])
    for h in (g, astjax.jit(g)):
        np.testing.assert_array_equal(h(y, i), np.where(np.arange(3) == 2, 0.0, y))


# ---------------------------------------------------------------- R4
def _r4_and(a, b):
    return a and b


def _r4_or(a, b):
    return a or b


def _r4_chain(x, y):
    return (x > 0.0) and (y < 1.0) or x * 3.0


@pytest.mark.parametrize("a, b", [(0.0, 2.0), (2.0, 0.0), (3.0, 5.0), (0.0, 0.0), (-1.5, 4.0)])
def test_r4_and_or_on_staged_scalars_keep_python_values(a, b):
    assert float(astjax.jit(_r4_and)(a, b)) == _r4_and(a, b)
    assert float(astjax.jit(_r4_or)(a, b)) == _r4_or(a, b)
    assert float(astjax.vmap(_r4_and)(jnp.array([a]), jnp.array([b]))[0]) == _r4_and(a, b)


@pytest.mark.parametrize("x, y", [(1.0, 0.5), (1.0, 2.0), (-1.0, 0.5)])
def test_r4_chained_and_or(x, y):
    assert float(astjax.jit(_r4_chain)(x, y)) == float(_r4_chain(x, y))
    # the gradient follows the operand Python's value is
    assert float(astjax.grad(_r4_chain)(x, y)) == (0.0 if (x > 0 and y < 1) else 3.0)


@pytest.mark.parametrize("fn", [_r4_and, _r4_or])
def test_r4_and_or_on_arrays_raise_a_located_value_error(fn):
    with pytest.raises(astjax.errors.AmbiguousTruthValueError, match="ambiguous") as e:
        astjax.jit(fn)(jnp.ones(3), jnp.ones(3))
    assert isinstance(e.value, ValueError) and "test_reliability.py" in str(e.value)
    with pytest.raises(astjax.errors.AmbiguousTruthValueError) as e:
        astjax.jit(fn)(1.0, jnp.ones(3))
    assert "test_reliability.py" in str(e.value)


# ---------------------------------------------------------------- R5
def _r5_isinstance(x):
    return x * 2.0 if isinstance(x, jnp.ndarray) else x


def _r5_set_of_sums(x):
    return len({x.sum(), x.sum()}) * x


def test_r5_isinstance_of_array_holds_for_staged_values():
    x = jnp.ones(2)
    assert isinstance(x, astjax.Array) and isinstance(x, jnp.ndarray)
    assert not isinstance(np.ones(2), astjax.Array) and not isinstance(1.0, jnp.ndarray)
    for t in (astjax.jit, astjax.vmap):
        np.testing.assert_allclose(t(_r5_isinstance)(x), [2.0, 2.0])
    assert float(astjax.grad(lambda v: jnp.sum(_r5_isinstance(v)))(1.0)) == 2.0


def test_r5_staged_values_are_unhashable():
    # JAX: TypeError; hashing by identity gave a set of 2 equal sums
    with pytest.raises(TypeError, match="unhashable") as e:
        astjax.jit(_r5_set_of_sums)(jnp.ones(2))
    assert isinstance(e.value, astjax.errors.AstjaxError) and "test_reliability.py" in str(e.value)


# ------------------------------------------- containers changed in a staged branch
def _append_in_branches(x):
    out = []
    alias = out
    if x.sum() > 0:
        out.append(x * 2.0)
    else:
        out.append(x * 3.0)
    return alias[0] + len(out)    # the caller's list itself changed, once


def _setitem_in_one_branch(x):
    d = {"k": x, "n": [x]}
    if x.sum() > 0:
        d["k"] = x * 2.0
        d["n"][0] = -x
    return d["k"] + d["n"][0]


class _Box:
    pass


def _attribute_in_branch(x):
    o = _Box()
    o.v = x
    if x.sum() > 0:
        o.v = x * 2.0             # the line the error must name
    return o.v


def _changed_and_rebound(x):
    out = [x]
    if x.sum() > 0:
        out.append(x)
    else:
        out = [x, x * 2.0]
    return out[1]


@pytest.mark.parametrize("fn", [_append_in_branches, _setitem_in_one_branch])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_lists_and_dicts_changed_in_a_staged_branch(fn, sign):
    x = sign * np.ones(2)
    np.testing.assert_allclose(astjax.jit(fn)(x), fn(x))


def _next_in_branch(x):
    it = iter([x * 5.0, x * 7.0])
    if x.sum() > 0:
        x = next(it)              # Python advances `it` on this path only
    return x + next(it)


def test_python_effect_in_a_staged_branch_names_its_line():
    with pytest.raises(astjax.errors.ConcretizationError, match="next") as e:
        astjax.jit(_next_in_branch)(jnp.ones(2))
    line = _next_in_branch.__code__.co_firstlineno + 3
    assert f"test_reliability.py:{line}:" in str(e.value)


def test_attribute_set_in_a_staged_branch_names_its_line():
    with pytest.raises(astjax.errors.ConcretizationError, match="o.v") as e:
        astjax.jit(_attribute_in_branch)(jnp.ones(2))
    line = _attribute_in_branch.__code__.co_firstlineno + 4
    assert f"test_reliability.py:{line}:" in str(e.value)


def test_list_changed_in_one_branch_and_rebound_in_the_other():
    with pytest.raises(astjax.errors.AstjaxError, match="changed in place in one branch"):
        astjax.jit(_changed_and_rebound)(jnp.ones(2))


# ---------------------------------------------------------------- R17
def _r17_dict_index(x):
    d = {0: 1.0, 2: 3.0}
    acc = x
    for i in range(3):
        acc = acc + (d[i] if i in d else 100.0)
    return acc


def _r17_next_in_loop(x):
    d = {0: x, 2: x * 3.0}
    it = iter([x * 5.0, x * 7.0, x * 11.0])
    out = []
    for i in range(3):
        out.append(d[i] if i in d else next(it))
    return out[0] + out[1] + out[2]


def _r17_next_per_trip(x):
    it = iter([x * 5.0, x * 7.0, x * 11.0])
    acc = x
    for i in range(3):
        acc = acc + next(it)
    return acc


def _r17_next_in_staged_loop(x, n):
    it = iter([x * 5.0, x * 7.0, x * 11.0])
    acc = x
    for i in range(n):
        acc = acc + next(it)
    return acc


@pytest.mark.parametrize("fn", [_r17_dict_index, _r17_next_in_loop, _r17_next_per_trip])
def test_r17_loop_index_or_effect_at_python_level_unrolls(fn):
    assert float(astjax.jit(fn)(1.0)) == fn(1.0)


def test_r17_python_effect_in_a_loop_with_staged_trips_is_located():
    with pytest.raises(astjax.errors.ConcretizationError, match="next") as e:
        astjax.jit(_r17_next_in_staged_loop)(1.0, 2)
    assert "test_reliability.py" in str(e.value)


def _r17_next_in_staged_while(x):
    it = iter([x * 5.0, x * 7.0, x * 11.0])
    acc = x
    while jnp.sum(acc) < 10.0:
        acc = acc + next(it)
    return acc


def test_r17_python_effect_in_a_staged_while_is_located():
    with pytest.raises(astjax.errors.ConcretizationError, match="next") as e:
        astjax.jit(_r17_next_in_staged_while)(1.0)
    assert "test_reliability.py" in str(e.value)


def _two_names_of_one_list(x):
    a = []
    out = a
    if x.sum() > 0:
        a.append(x)
        out.append(x * 2.0)
    else:
        a.append(-x)
        out.append(x * 3.0)
    return a[0] + a[1] + out[0] + len(a)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_two_names_of_one_list_changed_in_a_staged_branch(sign):
    x = sign * np.ones(2)
    np.testing.assert_allclose(astjax.jit(_two_names_of_one_list)(x), _two_names_of_one_list(x))


def _dict_item_in_scanned_loop(x):
    d = {"a": x}
    alias = d
    for i in range(3):
        d["a"] = d["a"] * 2.0 + i
    return alias["a"]


def _list_item_in_while_loop(x, n):
    lst = [x, 0.0]
    k = 0
    while k < n:              # staged trip count
        lst[0] = lst[0] + 1.0
        k = k + 1
    return lst[0]


def test_containers_changed_in_place_in_staged_loops():
    np.testing.assert_allclose(astjax.jit(_dict_item_in_scanned_loop)(1.0),
                               _dict_item_in_scanned_loop(1.0))
    np.testing.assert_allclose(astjax.jit(_list_item_in_while_loop)(1.0, 3),
                               _list_item_in_while_loop(1.0, 3))


def _attribute_in_loop(x):
    o = _Box()
    o.v = x
    for i in range(3):
        o.v = o.v * 2.0           # a Python effect per trip: the loop is unrolled
    return o.v


def test_attribute_set_in_a_loop_unrolls():
    np.testing.assert_allclose(astjax.jit(_attribute_in_loop)(1.0), 8.0)


def _r2_closure_of_name_first_assigned_in_loop(x):
    """A docstring stays first."""
    k = 0
    while k < 2 and jnp.sum(x) > 0.3:
        k += 1
        t = jnp.sum(x) * 0.5
        g = lambda z: z + t       # noqa: E731 -- t's cell is only assigned in the loop
        x = g(x)
    return x


def test_r2_closure_over_a_name_only_a_loop_body_assigns():
    x = np.ones(2)
    np.testing.assert_allclose(astjax.jit(_r2_closure_of_name_first_assigned_in_loop)(x),
                               _r2_closure_of_name_first_assigned_in_loop(x), rtol=1e-6)
    assert _reads_before_assign(converted_source(_r2_closure_of_name_first_assigned_in_loop)) == []


def _object_made_in_branch(x):
    if x.sum() > 0:
        o = _Box()
        o.v = x * 2.0             # a fresh object: no effect outside the branch
        y = o.v
    else:
        y = x
    return y


def test_attribute_of_an_object_made_in_the_branch():
    for s in (1.0, -1.0):
        np.testing.assert_allclose(astjax.jit(_object_made_in_branch)(s * np.ones(2)),
                                   _object_made_in_branch(s * np.ones(2)))


def _iterator_made_in_branch(x):
    if x.sum() > 0:
        it = iter([x * 5.0, x * 7.0])   # fresh in this branch: next() changes nothing outside
        for i in range(2):
            x = x * 0.5 + next(it)
    return x


def test_next_on_an_iterator_made_in_a_staged_branch():
    for s in (1.0, -1.0):
        np.testing.assert_allclose(astjax.jit(_iterator_made_in_branch)(s * np.ones(2)),
                                   _iterator_made_in_branch(s * np.ones(2)))


# ---------------------------------------------------------------- R6
def test_r6_source_edited_after_import(tmp_path, monkeypatch):
    """A module edited on disk after its import: astjax must not stage the new text
    (Python runs the imported code). The top-level function is a located
    SourceChangedError; a helper it calls runs as imported (traced, not converted)."""
    import importlib
    import linecache
    import sys
    from astjax.errors import SourceChangedError, SourceNotFoundError
    mod = tmp_path / "r6_edited_mod.py"
    mod.write_text("def g(x):\n    return x * 2\n\n\ndef k(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module("r6_edited_mod")
    try:
        # another size than before: a reload must not take the old .pyc for the new text
        mod.write_text("def g(x):\n    return x * 3.0\n\n\ndef k(x):\n    return x + 1\n")
        linecache.checkcache(str(mod))
        assert float(astjax.jit(m.k)(1.0)) == 2.0  # unchanged function: staged as usual
        with pytest.raises(SourceChangedError) as e:
            astjax.jit(m.g)(1.0)
        assert isinstance(e.value, SourceNotFoundError)
        assert e.value.loc.file == str(mod) and e.value.loc.line == 1 and e.value.hint

        def h(x):
            return m.g(x) + 1.0
        assert float(astjax.jit(h)(1.0)) == 3.0  # the imported x * 2, as Python
        importlib.reload(m)
        assert float(astjax.jit(m.g)(1.0)) == 3.0
    finally:
        sys.modules.pop("r6_edited_mod", None)


# ------------------------------------------- weak types of jnp results from Python scalars
_W = jnp.asarray(2.0)


@pytest.mark.parametrize("expr, weak", [  # weak_type as JAX 0.10.2 gives it
    ("jnp.asarray(1.0)", True), ("jnp.array(1.0)", True), ("jnp.array(1)", True),
    ("jnp.array(True)", False), ("jnp.array(1.0, jnp.float32)", False),
    ("jnp.array([1.0])", False), ("jnp.zeros_like(1.0)", True), ("jnp.ones_like(2)", True),
    ("jnp.full((2,), 1.0)", True), ("jnp.full((2,), 1.0, jnp.float32)", False),
    ("jnp.full_like(1.0, 2.0)", True), ("jnp.zeros_like(1.0, jnp.float32)", False),
    ("jnp.stack([1.0, 2.0])", True), ("jnp.broadcast_to(1.0, (2,))", True),
    ("jnp.tile(1.0, 2)", True), ("jnp.flip(1.0)", True), ("jnp.sum(0.5)", False),
    ("jnp.max(0.5)", False), ("jnp.prod(2.0)", False), ("jnp.sum(_W, axis=())", False),
    ("jnp.sum(jnp.broadcast_to(_W, (3,)), keepdims=True)", False), ("jnp.sin(1.0)", True),
])
def test_weak_type_of_scalar_results(expr, weak):
    assert eval(expr).weak_type is weak


def test_weak_scalar_array_promotes_as_jax():
    assert (jnp.asarray(1.0) + jnp.ones(2, jnp.bfloat16)).dtype == jnp.bfloat16
    assert (jnp.full((2,), 3) * jnp.ones(2, jnp.int8)).dtype == jnp.int8
    with pytest.raises(TypeError, match="negative powers"):  # -1 is not wrapped to uint32
        jnp.ones(2, jnp.uint32) ** jnp.asarray(-1)


# ------------------- fuzz seed 600041: a flag a nested if/else sets on both paths
def _early_return_then_if_else_returns(x):
    if jnp.sum(x) > 0.25:
        return x * 2.0
    if jnp.sum(x) < 0.0:
        return x * 3.0
    else:
        return x * 4.0
    return x  # dead


def test_nested_if_else_both_returning_after_an_early_return():
    """The canonicalizer's `if not ag__do_return:` guard around the rest: its branch
    function must receive `ag__do_return`, which the inner staged if/else reads as its
    initial state (was an UnboundLocalError)."""
    for v, want in ((1.0, 2.0), (-1.0, -3.0), (0.1, 0.4)):
        got = astjax.jit(_early_return_then_if_else_returns)(jnp.full(2, v))
        np.testing.assert_allclose(np.asarray(got), [want, want], rtol=1e-6)
