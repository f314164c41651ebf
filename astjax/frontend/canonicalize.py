"""Canonicalization before staging: `break`, `continue`, `return` inside loops and
branches, and loop `else` clauses, become boolean flags (AutoGraph's converters),
so the staged IR is plain structured control flow that AD can differentiate.

- `return e` inside control flow -> `ag__do_return = True; ag__retval = e`, the
  rest of each enclosing block guarded by `if not ag__do_return:`, loops stopped
  by an extra test, and one final `return ag__retval`;
- `break` -> `ag__break_N = True`, rest guarded, loop test extended;
- `continue` -> `ag__cont_N = True` reset at the top of each iteration, rest guarded;
- `while/for ... else: E` -> `if not ag__break_N: E` after the loop;
- `match s: case P: B ...` -> the `match` setting `ag__case_N` to the number of the
  case that matched, then `if ag__case_N == 0: B ...` (`Canonicalizer.matches`); a
  `match` of literal patterns only is the `if s == 1: ... elif ...` chain it means;
- a `while` whose test binds a name (`while (k := k + 1) < n:`) -> the test is
  evaluated into `ag__wtest_N` before the loop and again at the end of each trip
  (after `continue`'s guards, before `break`'s and `return`'s), and the loop tests
  `ag__wtest_N`: the binding is then loop state like any other assignment (a test
  function returns only the truth value, so its bindings would be lost).
For loops record their extra tests in `node.ag_extra_test` (flag names; a `while`
folds them into its test and records them in `node.ag_exit_flags`), and every
loop its own break/continue flags in `node.ag_flags`. Each guard `if not flag:` the
canonicalizer creates records its flag in `node.ag_guard`: its (empty) else branch is
the path that already jumped, which the definedness check of a staged guard relies on
(a name the guarded rest assigns is never read on that path; see `control_flow`).
"""
from __future__ import annotations

import copy

import gast

from ..util import Namer
from .templates import locate, replace, replace_expr


def _contains(stmts, kinds, into_loops, expressions=False):
    """Whether a jump of `kinds` occurs in `stmts` (not inside nested functions;
    inside nested loops only if `into_loops`; inside expressions only if `expressions`)."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        if isinstance(n, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            continue
        if not into_loops and isinstance(n, (gast.For, gast.While)):
            # only the loop's else clause belongs to the outer loop
            stack.extend(n.orelse)
            continue
        stack.extend(c for c in gast.iter_child_nodes(n)
                     if expressions or isinstance(c, (gast.stmt, gast.excepthandler)))
    return False


def binds(expr):
    """Whether an expression binds a name in the enclosing scope (`:=`, also inside a
    comprehension, but not inside a lambda)."""
    stack = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.NamedExpr):
            return True
        if not isinstance(n, gast.Lambda):
            stack.extend(gast.iter_child_nodes(n))
    return False


def converted_method(node):
    """Whether a statement of a class body defined in a converted function is a method
    the converters rewrite: a plain `def`, not a generator (which stays plain Python, as
    the rest of the class body). Asked of each nested `def` by the canonicalizer and
    both converters: answered by one walk of its body, kept on the node as
    `ag_converted` (the passes neither add nor remove a `yield`; issue 14)."""
    if not isinstance(node, gast.FunctionDef):
        return False
    d = node.__dict__
    answer = d.get("ag_converted")
    if answer is None:
        answer = d["ag_converted"] = not _contains(
            node.body, (gast.Yield, gast.YieldFrom), True, expressions=True)
    return answer


def _blocks(s):
    """The (node, field) statement lists of an `if`, `with` or `try` that run in the
    enclosing block's flow: a jump in any of them -- a `try`'s handlers, `else` and
    `finally` too -- leaves the same loop or function."""
    if isinstance(s, gast.If):
        return [(s, "body"), (s, "orelse")]
    if isinstance(s, gast.With):
        return [(s, "body")]
    if isinstance(s, gast.Try):
        return [(s, "body")] + [(h, "body") for h in s.handlers] + [
            (s, "orelse"), (s, "finalbody")]
    return []


def _literal(pattern):
    """Whether a `case` pattern only compares (a literal, `None` / `True` / `False`, an
    `|` of those) or is the wildcard `_`: it binds no name."""
    if isinstance(pattern, gast.MatchOr):
        return all(_literal(p) for p in pattern.patterns)
    if isinstance(pattern, gast.MatchAs):
        return pattern.pattern is None and pattern.name is None
    return isinstance(pattern, (gast.MatchValue, gast.MatchSingleton))


def _pattern_test(pattern, subj):
    """The test a `_literal` pattern makes of the name `subj` (None for `_`)."""
    if isinstance(pattern, gast.MatchOr):
        tests = [_pattern_test(p, subj) for p in pattern.patterns]
        return None if None in tests else gast.BoolOp(op=gast.Or(), values=tests)
    if isinstance(pattern, gast.MatchAs):
        return None
    if isinstance(pattern, gast.MatchSingleton):
        return replace_expr("s is v", s=subj, v=gast.Constant(value=pattern.value, kind=None))
    return replace_expr("s == v", s=subj, v=pattern.value)


def _guard(flag, rest, origin):
    """`if not flag: rest`, marked as the guard of `flag` (`ag_guard`)."""
    guard = locate(replace("if not flag:\n    rest", flag=flag, rest=rest), origin)
    guard[0].ag_guard = flag
    return guard


class Canonicalizer:
    def __init__(self):
        self.fresh = Namer("counter", prefix="ag__").fresh   # ag__break_1, ag__cont_2, ...

    # ---- loops: break / continue / else ---------------------------------------
    def loops(self, stmts):
        out = []
        for s in stmts:
            out.extend(self.loop_stmt(s))
        return out

    def loop_stmt(self, s):
        if isinstance(s, gast.ClassDef):
            # the class body runs as plain Python; only its methods are converted
            # (as nested functions are), so only they get flags
            for m in s.body:
                if converted_method(m):
                    m.body = self.function_body(m.body)
            return [s]
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list) and not isinstance(s, gast.FunctionDef):
                setattr(s, field, self.loops(getattr(s, field)))
        if isinstance(s, gast.Try):
            for h in s.handlers:
                h.body = self.loops(h.body)
        if isinstance(s, gast.FunctionDef):
            if converted_method(s):   # (a generator stays plain Python)
                s.body = self.function_body(s.body)
            return [s]
        if not isinstance(s, (gast.While, gast.For)):
            return [s]
        pre, post = [], []
        s.ag_flags = []
        if _contains(s.body, gast.Continue, False):
            flag = self.fresh("cont")
            s.ag_flags.append(flag)
            s.body = locate(replace("flag = False", flag=flag), s) + self.jumps(
                s.body, gast.Continue, flag)
        if isinstance(s, gast.While) and binds(s.test):
            test = self.fresh("wtest")
            pre = locate(replace("t = test", t=test, test=s.test), s.test)
            again = locate(replace("t = test", t=test, test=copy.deepcopy(s.test)), s.test)
            s.body = s.body + again
            s.test = locate(replace_expr("t", t=test), s.test)
        has_break = _contains(s.body, gast.Break, False)
        if has_break:
            flag = self.fresh("break")
            s.ag_flags.append(flag)
            pre = pre + locate(replace("flag = False", flag=flag), s)
            s.body = self.jumps(s.body, gast.Break, flag)
            if isinstance(s, gast.While):
                s.test = locate(replace_expr("not flag and test", flag=flag, test=s.test), s.test)
                s.ag_exit_flags = getattr(s, "ag_exit_flags", []) + [flag]
            else:
                s.ag_extra_test = getattr(s, "ag_extra_test", []) + [flag]
            if s.orelse:
                post = locate(replace("if not flag:\n    orelse", flag=flag, orelse=s.orelse), s)
        elif s.orelse:
            post = s.orelse
        s.orelse = []
        return pre + [s] + post

    def jumps(self, stmts, kind, flag):
        """Replace jumps of `kind` by `flag = True`, guarding what follows."""
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, kind):
                out.extend(locate(replace("flag = True", flag=flag), s))
                return out
            jumps_here = _contains([s], kind, False)
            for block in _blocks(s):
                setattr(block[0], block[1], self.jumps(getattr(block[0], block[1]), kind, flag))
            out.append(s)
            if jumps_here and stmts[i + 1:]:
                rest = self.jumps(stmts[i + 1:], kind, flag)
                out.extend(_guard(flag, rest, stmts[i + 1]))
                return out
        return out

    # ---- match -------------------------------------------------------------------
    def matches(self, stmts):
        """Every `match` of the function's own scope split in two: the `match` itself,
        whose cases only record which one matched (`ag__case_N = k`; the patterns bind
        their names as Python binds them), then an `if`/`elif` chain on that number
        running the case bodies. The chain's tests are Python ints, so only the taken
        body is staged, and the bodies are ordinary blocks for the jumps, analyses and
        converters that follow."""
        out = []
        for s in stmts:
            if isinstance(s, gast.Match):
                out.extend(self._match(s))
                continue
            if not isinstance(s, (gast.FunctionDef, gast.ClassDef)):
                for field in ("body", "orelse", "finalbody"):
                    if isinstance(getattr(s, field, None), list):
                        setattr(s, field, self.matches(getattr(s, field)))
                for h in getattr(s, "handlers", ()):
                    h.body = self.matches(h.body)
            out.append(s)
        return out

    def _match(self, s):
        if all(_literal(c.pattern) for c in s.cases):
            return self._literal_match(s)
        flag = self.fresh("case")
        bodies = []
        for k, case in enumerate(s.cases):
            bodies.append(self.matches(case.body))
            case.body = locate(replace("flag = k", flag=flag, k=gast.Constant(value=k, kind=None)),
                               case.body[0])
        chain = []
        for k in reversed(range(len(bodies))):
            test = replace_expr("flag == k", flag=flag, k=gast.Constant(value=k, kind=None))
            chain = locate([gast.If(test=test, body=bodies[k], orelse=chain)], s.cases[k].pattern)
        return locate(replace("flag = -1", flag=flag), s) + [s] + chain

    def _literal_match(self, s):
        """A `match` whose patterns are literals (`case 1 | 2:`, `case None:`, `case _:`)
        as the `if`/`elif` chain Python's matching is (`==`, `is` for None / True /
        False, the subject evaluated once): on a staged subject, a staged `if` like any."""
        subj = self.fresh("subject")
        chain = []
        for case in reversed(s.cases):
            body = self.matches(case.body)
            test = _pattern_test(case.pattern, subj)
            if case.guard is not None:
                test = case.guard if test is None else gast.BoolOp(
                    op=gast.And(), values=[test, case.guard])
            if test is None:   # `case _:` -- matches everything: what follows is dead
                chain = body
            else:
                chain = locate([gast.If(test=test, body=body, orelse=chain)], case.pattern)
        return locate(replace("subj = subject", subj=subj, subject=s.subject), s) + chain

    # ---- return ------------------------------------------------------------------
    def function_body(self, body):
        body = self.loops(self.matches(body))
        nested = any(_contains([s], gast.Return, True) for s in body
                     if isinstance(s, (gast.If, gast.While, gast.For, gast.With, gast.Try)))
        if not nested:
            return body
        new = self.returns(body)
        head = replace("ag__do_return = False\nag__retval = ag__.UndefinedReturnValue()")
        tail = replace("return ag__retval")
        locate(head, body[0])
        locate(tail, body[-1])
        return head + new + tail

    def returns(self, stmts):
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, gast.Return):
                value = s.value if s.value is not None else gast.Constant(value=None, kind=None)
                out.extend(locate(replace("ag__do_return = True\nag__retval = value", value=value), s))
                return out
            returns_here = _contains([s], gast.Return, True)
            if isinstance(s, gast.If):
                s.body = self.returns(s.body)
                s.orelse = self.returns(s.orelse)
            elif isinstance(s, (gast.While, gast.For)):
                if _contains(s.body, gast.Return, True):
                    s.body = self.returns(s.body)
                    if isinstance(s, gast.While):
                        s.test = locate(replace_expr("not ag__do_return and test", test=s.test), s.test)
                        s.ag_exit_flags = getattr(s, "ag_exit_flags", []) + ["ag__do_return"]
                    else:
                        s.ag_extra_test = getattr(s, "ag_extra_test", []) + ["ag__do_return"]
            elif isinstance(s, (gast.With, gast.Try)):
                for owner, field in _blocks(s):
                    setattr(owner, field, self.returns(getattr(owner, field)))
            out.append(s)
            if returns_here and stmts[i + 1:]:
                rest = self.returns(stmts[i + 1:])
                out.extend(_guard("ag__do_return", rest, stmts[i + 1]))
                return out
        return out


def canonicalize(node, filename=None):
    c = Canonicalizer()
    if isinstance(node, gast.FunctionDef):
        node.body = c.function_body(node.body)
    return node
