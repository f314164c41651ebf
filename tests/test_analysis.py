"""The AST analyses (activity, reaching definitions, liveness) and the
canonicalization of jumps, on small functions."""
import ast
import textwrap

import gast

from astjax.frontend import canonicalize
from astjax.frontend.analysis import activity, liveness, reaching_definitions


def parse(src):
    return gast.parse(textwrap.dedent(src)).body[0]


def test_activity_read_and_modified():
    fn = parse("""
        def f(x, y):
            z = x + y
            w = [v * z for v in range(3)]
            g = lambda q: q + x
            lst.append(z)
            return w
    """)
    activity.resolve(fn)
    body = fn.body
    assert body[0].ag_read == {"x", "y"} and body[0].ag_modified == {"z"}
    assert body[1].ag_read == {"z", "range"} and body[1].ag_modified == {"w"}   # v is local
    assert body[2].ag_read == {"x"} and body[2].ag_modified == {"g"}            # q is local
    assert activity.mutated(body[3]) == {"lst"}


def test_reaching_definitions_definitely_and_maybe():
    fn = parse("""
        def f(x):
            if x:
                y = 1
            else:
                y = 2
                z = 3
            for i in range(3):
                w = i
            return y
    """)
    reaching_definitions.resolve(fn)
    ret = fn.body[-1]
    definitely, maybe = ret.ag_defined_in
    assert {"x", "y"} <= definitely
    assert "z" not in definitely and "z" in maybe
    assert "w" not in definitely and "w" in maybe


def test_liveness_through_branches_and_loops():
    fn = parse("""
        def f(x, n):
            a = x
            b = x * 2
            if n:
                a = a + 1
                t = a * 3
            while a < 10:
                a = a + b
            return a
    """)
    liveness.resolve(fn)
    assign_a, assign_b, if_, while_, ret = fn.body
    assert if_.ag_live_out == {"a", "b"}            # t is dead after the if
    assert while_.ag_live_in == {"a", "b"}
    assert while_.ag_live_out == {"a"}
    assert "x" in assign_a.ag_live_out and "b" not in assign_a.ag_live_out
    assert if_.body[0].ag_live_out == {"a", "b"}


def canon(src):
    fn = parse(src)
    fn = canonicalize.canonicalize(fn)
    return ast.unparse(gast.gast_to_ast(gast.Module(body=[fn], type_ignores=[])))


def test_break_becomes_flag_and_guard():
    out = canon("""
        def f(x):
            for i in range(3):
                if x > 1:
                    break
                x = x + 1
            return x
    """)
    assert "\n            break" not in out and " break\n" not in out
    assert "ag__break_1 = True" in out and "if not ag__break_1:" in out


def test_return_in_loop_becomes_flag():
    out = canon("""
        def f(x):
            while x < 3:
                if x > 1:
                    return x
                x = x + 1
            return -x
    """)
    assert [l.strip() for l in out.splitlines() if l.strip().startswith("return")] == ["return ag__retval"]
    assert "not ag__do_return and x < 3" in out


def test_continue_and_loop_else():
    out = canon("""
        def f(x):
            for i in range(3):
                if i == 1:
                    continue
                x = x + i
            else:
                x = -x
            return x
    """)
    assert " continue\n" not in out and "ag__cont_1 = False" in out and "if not ag__cont_1:" in out
    assert "else:" not in out and out.index("x = -x") > out.index("x = x + i")
