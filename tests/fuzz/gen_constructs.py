"""The generator's statements for Python constructs real numerical code uses beyond
plain control flow (`gen.CONSTRUCTS`, each a default-off feature switch of the same
name; `run.py --enable NAME,...`):

- `comprehension`: list / dict / generator comprehensions over static ranges, over an
  array's rows and over lists, with `if` filters, nested, and `sum` / `max` of them;
- `nested_loops`: a loop in a loop whose `break` / `continue` leaves the inner loop
  only, an early `return` from a `while` or from the inner `for`;
- `try_stmt`: `try` / `finally`, `try` / `except` / `else` around straight and staged
  code, a static `IndexError` caught, `break` / `continue` in a handler or `finally`;
- `with_stmt`: `with contextlib.nullcontext(v) as w:` and a user context manager;
- `star_unpack`: `a, *b = (u, v, t)` and `h, *m, t = array` (rows);
- `dyn_slice`: `x[i:i + 2]` in a loop over a static range (the index a Python int) and
  `lax.dynamic_slice(x, (i % 2,), (2,))` with a staged index;
- `assert_del`: `assert` of static conditions, `del` of a name later rebound;
- `helper_kwonly`: helpers with keyword-only and default arguments;
- `lax_bodies`: `lax.cond` / `lax.scan` / `lax.fori_loop` whose bodies are Python with
  staged `if` / `for` / `while`;
- `class_methods`: a small pytree class holding arrays, its methods (one with a staged
  `if`), objects rebound in loops and staged branches;
- `recursion`: a recursive helper with a static depth and a staged `if` per level;
- `walrus`: `:=` in a `while` test and in an `if` test;
- `containers`: `isinstance` / `len` / `range(len(...))` on Python lists and dicts;
- `aug_subscript`: `lst[0] += v`, `d["w"] *= c` on Python containers of arrays.

The reference spells what NumPy lacks in Python (`lax` is a class of plain loops,
`register_pytree_node_class` a no-op) and writes augmented subscripts functionally
(NumPy's `+=` would write through to the array the list holds)."""
from __future__ import annotations

from .nodes import Block, Line

CONSTRUCTS = ("comprehension", "nested_loops", "try_stmt", "with_stmt", "star_unpack",
              "dyn_slice", "assert_del", "helper_kwonly", "lax_bodies", "class_methods",
              "recursion", "walrus", "containers", "aug_subscript")

_SHARED = '''

class CM:
    def __init__(self, k):
        self.k = k

    def __enter__(self):
        return self.k

    def __exit__(self, *exc):
        return False


@tree_util.register_pytree_node_class
class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def mix(self, t=0.5):
        return self.a * t + self.b * (1 - t)

    def step(self, v):
        return Pair(jnp.tanh(self.a + v), self.b * 0.9)

    def bump(self, v):
        if jnp.sum(self.a) > v:
            return Pair(self.a * 0.5, self.b + v)
        return Pair(self.a + v, self.b)

    def tree_flatten(self):
        return (self.a, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


def rec(z, d):
    if d == 0:
        return z
    if jnp.sum(z) > 0.2:
        z = z * 0.8
    return rec(jnp.sin(z) * 0.9 + 0.05, d - 1)


def kw(z, *, scale=0.5, shift=0.1):
    return jnp.tanh(z * scale + shift)


def kw2(z, w=0.3, *, k=2):
    return z * w + jnp.sin(z) * (0.1 * k)


'''

PRELUDE = {
    "jax": "import contextlib\nfrom astjax import lax, tree_util\n" + _SHARED,
    "ref": ("import contextlib\n\n\nclass tree_util:\n"
            "    register_pytree_node_class = staticmethod(lambda c: c)\n\n\n"
            "class lax:\n"
            "    @staticmethod\n    def cond(p, t, f, *ops):\n"
            "        return t(*ops) if p else f(*ops)\n\n"
            "    @staticmethod\n    def fori_loop(lo, hi, body, v):\n"
            "        for i in range(lo, hi):\n            v = body(i, v)\n        return v\n\n"
            "    @staticmethod\n    def scan(f, c, xs):\n        ys = []\n"
            "        for r in xs:\n            c, y = f(c, r)\n            ys.append(y)\n"
            "        return c, jnp.stack(ys)\n\n"
            "    @staticmethod\n    def dynamic_slice(a, start, size):\n"
            "        return a[start[0]:start[0] + size[0]]\n" + _SHARED),
}


class ConstructsMixin:
    """`Generator`'s `s_<construct>` methods (see the module docstring)."""

    @staticmethod
    def _keep_defined(env, inner):
        """What a block that always runs to its end (`with`, a `try` that raises
        nothing) defined: defined after it."""
        for kind in ("arrays", "scalars"):
            for n in getattr(inner, kind):
                if n not in getattr(env, kind):
                    getattr(env, kind).append(n)

    def _new_array(self, env, line_fn):
        v, new = self.target_array(env)
        out = line_fn(v)
        if new:
            env.arrays.append(v)
        return out

    # ---------------------------------------------------------------- comprehension
    def s_comprehension(self, env, depth):
        self.uses_constructs = True
        a, c = self.arr_atom(env), self.const()
        i = self.fresh("i")
        form = self.rng.choice(["stack", "stack_if", "rows", "dict", "nested", "max",
                                "list_sum", "gen_atoms"])
        if form in ("stack", "stack_if"):
            filt = f" if {i} % 2 == 0" if form == "stack_if" else ""
            k = self.rng.choice(["range(3)", "range(1, 4)", "range(4)"])
            return self._new_array(env, lambda v: [Line(
                f"{v} = jnp.stack([jnp.sin({a} * {c} + {i} * 0.1) for {i} in {k}{filt}])"
                f".sum(axis=0) * 0.3")])
        if form == "rows":
            t, new = self.target_scalar(env)
            out = [Line(f"{t} = jnp.tanh(sum(r * {c} for r in {a}) + {self.sc_atom(env)})")]
            if new:
                env.scalars.append(t)
            return out
        if form == "dict":
            d = self.fresh("d")
            return self._new_array(env, lambda v: [
                Line(f"{d} = {{{i}: jnp.tanh({a} * ({i} + {c})) for {i} in range(3)}}"),
                Line(f"{v} = {d}[0] * 0.5 + sum({d}.values()) * 0.2")])
        if form == "nested":
            return self._new_array(env, lambda v: [Line(
                f"{v} = jnp.stack([sum(r * w for w in ({c}, {self.const()})) "
                f"for r in {a}]) * 0.5")])
        if form == "max":
            t = self.rng.choice(env.scalars)
            return [Line(f"{t} = {t} * max(0.1 * {i} for {i} in range(4) if {i} != 2)"
                         f" + min([{c}, {self.const()}])")]
        if form == "list_sum":
            b = self.arr_atom(env)
            return self._new_array(env, lambda v: [Line(
                f"{v} = sum([{a}, {b} * {c}, jnp.sin({a})]) * 0.3")])
        at = env.atoms[-1] if env.atoms else c
        return self._new_array(env, lambda v: [Line(
            f"{v} = {a} * 0.5 + sum(jnp.sin({a} + {at} * 0.1 * {i}) for {i} in range(2)) * 0.2")])

    # ---------------------------------------------------------------- nested loops
    def s_nested_loops(self, env, depth):
        if depth >= self.max_depth - 1:
            return None
        self.uses_constructs = True
        i, j = self.fresh("i"), self.fresh("j")
        outer_kind = self.rng.choice(["for", "while"])
        inner_kind = self.rng.choice(["for", "for_dyn", "rows", "while"])
        e_out = self.body_env(env, loop="for", atoms=[i] if outer_kind == "for" else [])
        e_in = self.body_env(e_out, loop="for", atoms=[j] if inner_kind != "while" else [])
        v, _ = self.target_array(env, new_ok=False)
        inner = [Line(f"{v} = jnp.tanh({v} * 0.9 + {self.sc_atom(e_in)} * 0.2)")]
        jump = self.rng.choice(["break", "continue", "return", "none"])
        if jump == "return":
            self.returned = True
            inner.insert(0, Block([[f"if {self.test(e_in)}:",
                                    [Line(f"return {self.arr_expr(e_in)}")]]]))
        elif jump != "none":
            inner.insert(self.rng.randint(0, 1), Block([[f"if {self.test(e_in)}:",
                                                         [Line(jump)]]]))
        extra, _ = self.block(e_in, depth + 2, n=1)
        inner += extra
        pre = []
        if inner_kind == "for":
            header = f"for {j} in range({self.rng.choice(['2', '3', '1, 3'])}):"
        elif inner_kind == "for_dyn":
            header = f"for {j} in range(n):"
        elif inner_kind == "rows":
            header = f"for {j} in {self.arr_atom(env)}:"
        else:
            kk = self.fresh("k")
            pre = [Line(f"{kk} = 0")]
            header = f"while {kk} < {self.rng.randint(1, 3)}:"
            inner = [Line(f"{kk} += 1")] + inner
        parts = [[header, inner]]
        if self.rng.random() < 0.3:
            parts.append(["else:", [Line(f"{v} = {v} * 0.8 + 0.1")]])
        after = [Line(f"{v} = jnp.sin({v}) * 0.5 + {self.sc_atom(e_out)} * 0.1")]
        body = pre + [Block(parts)] + after
        if outer_kind == "for":
            return [Block([[f"for {i} in range({self.rng.choice(['2', '3', 'n'])}):", body]])]
        k = self.fresh("k")
        return [Line(f"{k} = 0"),
                Block([[f"while {k} < {self.rng.randint(1, 3)}:", [Line(f"{k} += 1")] + body]])]

    # ---------------------------------------------------------------- try / with
    def s_try_stmt(self, env, depth):
        if depth >= self.max_depth:
            return None
        self.uses_constructs = True
        form = self.rng.choice(["finally", "except", "except_else", "index", "loop_jump"])
        if form == "index":
            lst, t = self.fresh("lst"), self.fresh("a")
            k = self.rng.randint(0, 3)
            out = [Line(f"{lst} = [{self.arr_atom(env)}, {self.arr_atom(env)}]"),
                   Block([["try:", [Line(f"{t} = {lst}[{k}] * 0.5")]],
                          ["except IndexError:", [Line(f"{t} = {lst}[0] * 0.3")]]])]
            env.arrays.append(t)
            return out
        if form == "loop_jump":
            lst, i = self.fresh("lst"), self.fresh("i")
            v, _ = self.target_array(env, new_ok=False)
            jump = self.rng.choice(["break", "continue"])
            where = self.rng.choice(["except", "finally"])
            body = [Line(f"{v} = {v} * 0.9 + {lst}[{i}] * 0.1")]
            if where == "except":
                parts = [["try:", body], ["except IndexError:", [Line(jump)]]]
            else:
                parts = [["try:", body],
                         ["finally:", [Block([[f"if {i} == 1:", [Line(jump)]]])]]]
            trips = self.rng.randint(2, 4) if where == "except" else self.rng.randint(2, 3)
            return [Line(f"{lst} = [{self.arr_atom(env)}, {self.arr_atom(env)}, 0.5]"),
                    Block([[f"for {i} in range({trips}):",
                            [Block(parts), Line(f"{v} = jnp.tanh({v} + 0.1)")]]])]
        e = self.body_env(env)
        body, _ = self.block(e, depth + 1)
        v, _ = self.target_array(env, new_ok=False)
        tail = [Line(f"{v} = {v} * 0.5 + {self.sc_atom(env)} * 0.1")]
        if form == "finally":
            parts = [["try:", body], ["finally:", tail]]
        elif form == "except":
            parts = [["try:", body], ["except (ValueError, ZeroDivisionError):", tail]]
        else:
            parts = [["try:", body], ["except KeyError:", [Line("pass")]], ["else:", tail]]
        # no exception is raised: what the body defines is defined after it
        self._keep_defined(env, e)
        return [Block(parts)]

    def s_with_stmt(self, env, depth):
        if depth >= self.max_depth:
            return None
        self.uses_constructs = True
        w = self.fresh("w")
        if self.rng.random() < 0.5:
            header = f"with contextlib.nullcontext({self.arr_expr(env)}) as {w}:"
            e = self.body_env(env)
            e.arrays.append(w)
        else:
            header = f"with CM({self.sc_atom(env)}) as {w}:"
            e = self.body_env(env)
            e.scalars.append(w)
        body, _ = self.block(e, depth + 1)
        self._keep_defined(env, e)
        return [Block([[header, body]])]

    # ---------------------------------------------------------------- unpacking, slices
    def s_star_unpack(self, env, depth):
        self.uses_constructs = True
        h, m = self.fresh("h"), self.fresh("m")
        if self.rng.random() < 0.5:
            t, new = self.target_scalar(env)
            if new:
                env.scalars.append(t)
            return [Line(f"{h}, *{m}, {t} = {self.arr_atom(env)}"),
                    Line(f"{t} = jnp.tanh({h} * 0.3 + sum({m}) * 0.2 + {t} * 0.5)")]
        return self._new_array(env, lambda v: [
            Line(f"{h}, *{m} = ({self.arr_expr(env)}, {self.arr_atom(env)}, {self.sc_atom(env)})"),
            Line(f"{v} = {h} * 0.5 + {m}[0] * 0.3 + {m}[-1] * 0.2")])

    def s_dyn_slice(self, env, depth):
        self.uses_constructs = True
        i = self.fresh("i")
        t = self.rng.choice(env.scalars)
        a = self.arr_atom(env)
        if self.rng.random() < 0.5:
            return [Block([[f"for {i} in range(2):",
                            [Line(f"{t} = {t} * 0.5 + jnp.sum({a}[{i}:{i} + 2]) * 0.3")]]])]
        bound = self.rng.choice(["3", "n", "1, 4"])
        return [Block([[f"for {i} in range({bound}):",
                        [Line(f"{t} = {t} * 0.5 + jnp.sum(lax.dynamic_slice({a}, ({i} % 2,), "
                              f"(2,))) * 0.3")]]])]

    def s_assert_del(self, env, depth):
        self.uses_constructs = True
        if self.rng.random() < 0.4:
            return [Line(f"assert {self.rng.choice(['x.shape[0] == 3', 'x.ndim == 1', 'len(p) == 2'])}"
                         f", 'shape'")]
        tmp = self.fresh("tmp")
        v, _ = self.target_array(env, new_ok=False)
        out = [Line(f"{tmp} = {self.arr_expr(env)}"), Line(f"{v} = {v} * 0.5 + {tmp} * 0.5"),
               Line(f"del {tmp}")]
        if v != "x" and self.rng.random() < 0.5:
            rest = env.child(arrays=[a for a in env.arrays if a != v])
            out += [Line(f"del {v}"), Line(f"{v} = {self.arr_expr(rest)}")]
        return out

    # ---------------------------------------------------------------- calls
    def s_helper_kwonly(self, env, depth):
        self.uses_constructs = True
        a, s, c = self.arr_atom(env), self.sc_atom(env), self.const()
        call = self.rng.choice([f"kw({a})", f"kw({a}, scale={s})", f"kw({a}, shift={c}, scale=0.3)",
                                f"kw2({a})", f"kw2({a}, {s})", f"kw2({a}, k=3)",
                                f"kw2({a}, w={c}, k=1)"])
        return self._new_array(env, lambda v: [Line(f"{v} = {call}")])

    def s_lax_bodies(self, env, depth):
        self.uses_constructs = True
        form = self.rng.choice(["cond", "fori", "scan"])
        fn = self.fresh("fb")
        v, _ = self.target_array(env, new_ok=False)
        if form == "cond":
            fn2 = self.fresh("fb")
            return [Block([[f"def {fn}(z):", [
                        Block([[f"if jnp.sum(z) > {self.const()}:", [Line("z = z * 0.5")]]]),
                        Block([["for j in range(2):", [Line("z = jnp.sin(z) + j * 0.1")]]]),
                        Line("return z")]]]),
                    Block([[f"def {fn2}(z):", [Line(f"return jnp.tanh(z * {self.const()})")]]]),
                    Line(f"{v} = lax.cond({self.sc_atom(env)} > {self.const()}, {fn}, {fn2}, "
                         f"{v})")]
        if form == "fori":
            k = self.rng.randint(1, 3)
            return [Block([[f"def {fn}(i, z):", [
                        Block([[f"if z[0] > {self.const()}:", [Line("z = z * 0.9")]],
                               ["else:", [Line("z = z + 0.1 * i")]]]),
                        Line("m = 0"),
                        Block([["while m < 2 and jnp.sum(z) < 3.0:",
                                [Line("m += 1"), Line("z = jnp.tanh(z + 0.2)")]]]),
                        Line("return z")]]]),
                    Line(f"{v} = lax.fori_loop(0, {k}, {fn}, {v})")]
        t = self.rng.choice(env.scalars)
        ys = self.fresh("ys")
        return [Block([[f"def {fn}(c, r):", [
                    Block([["if r > c:", [Line("c = c * 0.5 + r * 0.5")]],
                           ["else:", [Line("c = jnp.tanh(c)")]]]),
                    Block([["for j in range(2):", [Line("c = jnp.tanh(c + j * 0.1)")]]]),
                    Line("return c, c * r")]]]),
                Line(f"{t}, {ys} = lax.scan({fn}, {t}, {v})"),
                Line(f"{v} = {v} * 0.5 + {ys} * 0.5")]

    def s_closures(self, env, depth):
        """(default off, not in `CONSTRUCTS`: `--enable closures`) functions closing over
        a loop variable: a `lax.fori_loop` body with `jnp.where` on its carry and a bound
        from a shape, lambdas of a comprehension (Python's late binding: every one sees
        the last value), a helper defined in a loop over a staged or static range."""
        self.uses_constructs = True
        form = self.rng.choice(["fori_shape", "late_binding", "def_in_loop"])
        v, _ = self.target_array(env, new_ok=False)
        i, fn = self.fresh("i"), self.fresh("fc")
        if form == "fori_shape":
            a = self.arr_atom(env)
            return [Block([[f"for {i} in range(2):", [
                Block([[f"def {fn}(j, z):", [Line(
                    f"return jnp.where(z > {self.const()}, z * 0.9, z + 0.05 * j) + {i} * 0.01")]]]),
                Line(f"{v} = lax.fori_loop(0, {a}.shape[0] - 1, {fn}, {v})")]]])]
        if form == "late_binding":
            return [Line(f"{fn} = [lambda z: jnp.sin(z) * ({i} + 1) * 0.3 for {i} in range(3)]"),
                    Line(f"{v} = {v} * 0.5 + {fn}[0]({v}) * 0.2 + {fn}[-1]("
                         f"{self.arr_atom(env)}) * 0.1")]
        bound = self.rng.choice(["2", "n"])
        return [Block([[f"for {i} in range({bound}):", [
            Block([[f"def {fn}(z):", [Line(f"return jnp.tanh(z + {i} * 0.1) * {self.const()}")]]]),
            Line(f"{v} = {fn}({v}) + {v} * 0.5")]]])]

    def s_class_methods(self, env, depth):
        self.uses_constructs = True
        o = self.fresh("o")
        out = [Line(f"{o} = Pair({self.arr_atom(env)}, {self.arr_expr(env)})")]
        form = self.rng.choice(["step", "loop", "loop_dyn", "branch", "bump"])
        if form == "step":
            out.append(Line(f"{o} = {o}.step({self.sc_atom(env)})"))
        elif form in ("loop", "loop_dyn"):
            i = self.fresh("i")
            out.append(Block([[f"for {i} in range({'3' if form == 'loop' else 'n'}):",
                               [Line(f"{o} = {o}.step({self.sc_atom(env)} * 0.5)")]]]))
        elif form == "branch":
            out.append(Block([[f"if {self.test(env, staged=True)}:",
                               [Line(f"{o} = {o}.step({self.sc_atom(env)})")]]]))
        else:
            out.append(Line(f"{o} = {o}.bump({self.const()})"))
        return self._new_array(env, lambda v: out + [Line(
            f"{v} = {o}.mix({self.rng.choice(['', 't=0.2', '0.7'])})")])

    def s_recursion(self, env, depth):
        self.uses_constructs = True
        a = self.arr_atom(env)
        return self._new_array(env, lambda v: [Line(f"{v} = rec({a}, {self.rng.randint(0, 3)})")])

    # ---------------------------------------------------------------- walrus, containers
    def s_walrus(self, env, depth):
        if depth >= self.max_depth:
            return None
        self.uses_constructs = True
        v, _ = self.target_array(env, new_ok=False)
        if self.rng.random() < 0.5:
            t, value = self.fresh("t"), self.sc_expr(env)
            e = self.body_env(env)
            e.scalars.append(t)
            body, _ = self.block(e, depth + 1, n=1)
            env.scalars.append(t)
            return [Block([[f"if ({t} := {value}) > {self.const()}:",
                            body + [Line(f"{v} = {v} * 0.5 + {t} * 0.2")]]])]
        k = self.fresh("k")
        test = f"({k} := {k} + 1) < {self.rng.randint(1, 4)}"
        if self.rng.random() < 0.4:
            # (parenthesized: `k < 2 and a or b` is `(k < 2 and a) or b`, which the
            # counter does not bound -- seed 4701152 looped forever in Python too)
            test += f" and ({self.test(env, staged=True)})"
        e = self.body_env(env, loop="while")
        body, _ = self.block(e, depth + 1, n=1)
        return [Line(f"{k} = 0"),
                Block([[f"while {test}:", body + [Line(f"{v} = jnp.tanh({v} + {k} * 0.1)")]]])]

    def s_containers(self, env, depth):
        self.uses_constructs = True
        lst, i = self.fresh("lst"), self.fresh("i")
        v, _ = self.target_array(env, new_ok=False)
        items = ", ".join(self.arr_atom(env) for _ in range(self.rng.randint(1, 3)))
        test = self.rng.choice([f"isinstance({lst}, list) and len({lst}) > 1",
                                "isinstance(p, dict)", f"isinstance({lst}[0], tuple)",
                                f"len({lst}) == 2 or isinstance(p, tuple)"])
        return [Line(f"{lst} = [{items}]"),
                Block([[f"for {i} in range(len({lst})):",
                        [Line(f"{v} = {v} * 0.7 + {lst}[{i}] * 0.2")]]]),
                Block([[f"if {test}:", [Line(f"{v} = jnp.tanh({v} + 0.1)")]]])]

    def s_aug_subscript(self, env, depth):
        self.uses_constructs = True
        c, v = self.fresh("c"), self.rng.choice([a for a in env.arrays])
        t = self.rng.choice(env.scalars)
        i = self.fresh("i")
        if self.rng.random() < 0.5:
            ops = [(f"{c}[0] += jnp.sin({c}[1]) * 0.1", f"{c}[0] = {c}[0] + jnp.sin({c}[1]) * 0.1"),
                   (f"{c}[-1] *= {self.const()}", None), (f"{c}[1] -= {c}[0] * 0.1", None)]
            init = f"{c} = [{v}, {self.arr_atom(env)}]"
            use = f"{c}[0] * 0.5 + {c}[1] * 0.5"
        else:
            ops = [(f'{c}["u"] *= 0.9', None), (f'{c}["w"] += jnp.sum({c}["u"]) * 0.1', None),
                   (f'{c}["u"] -= {c}["w"] * 0.1', None)]
            init = f'{c} = {{"u": {v}, "w": {t}}}'
            use = f'{c}["u"] * jnp.tanh({c}["w"])'
        body = []
        for jax, ref in self.rng.sample(ops, 2):
            if ref is None:   # `a[k] op= b` -> `a[k] = a[k] op (b)`
                lhs, op, rhs = jax.partition("= ")[0][:-2], jax.split()[1], jax.partition("= ")[2]
                ref = f"{lhs} = {lhs} {op[0]} ({rhs})"
            body.append(Line(jax, ref))
        bound = self.rng.choice(["2", "n", "3"])
        if bound != "n":   # a staged index of a Python list: JAX's error too
            ops.append((f"{c}[{i} % 2] += 0.05", None))
        return self._new_array(env, lambda w: [Line(init),
                                               Block([[f"for {i} in range({bound}):", body]]),
                                               Line(f"{w} = {use}")])
