"""A fifth family of Python constructs (`CONSTRUCTS5`, each a default-off feature switch
of the same name; `run.py --enable constructs5` turns on all):

- `late_closure`: a nested function (or lambda) reading a name `f` binds only after the
  `def` -- in a static or staged `if` taking either branch, or per trip of a loop --
  called after the binding (also on a later trip than the binding's); sometimes it
  rebinds the name with `nonlocal`;
- `genexp_reduce`: generator expressions consumed by `sum`, `max`, `any` and `all`,
  over static tuples, `range` and array shapes;
- `walrus_comp`: `:=` inside a comprehension's element or filter, binding a name of
  `f` that is read after the comprehension;
- `star_target`: starred assignment targets (`a, *rest = ...`, `*init, last = ...`),
  also as a `for` target.

None needs a prelude: the reference runs the same text with NumPy."""
from __future__ import annotations

from .nodes import Block, Line

CONSTRUCTS5 = ("late_closure", "genexp_reduce", "walrus_comp", "star_target")


class Constructs5Mixin:
    """`Generator`'s `s_<construct>` methods for `CONSTRUCTS5` (module docstring)."""

    def _start5(self, env, depth, nested=True):
        if nested and depth >= self.max_depth:
            return None
        return self.target_array(env, new_ok=False)[0]

    def s_late_closure(self, env, depth):
        v = self._start5(env, depth)
        if v is None:
            return None
        g, c, u, i = self.fresh("g"), self.fresh("c"), self.fresh("u"), self.fresh("i")
        form = self.rng.choice(["plain", "lambda", "if", "loop", "later_trip", "nonlocal"])
        if form == "lambda":
            fun = Line(f"{g} = lambda {u}: jnp.tanh({u} * {c}) + {c} * 0.1")
        elif form == "nonlocal":
            fun = Block([[f"def {g}({u}):", [Line(f"nonlocal {c}"), Line(f"{c} = {c} * 0.9"),
                                             Line(f"return jnp.sin({u}) * {c}")]]])
        else:
            fun = Block([[f"def {g}({u}):", [Line(f"return jnp.tanh({u} * {c}) + {c} * 0.1")]]])
        if form == "if":
            bind = [Block([[f"if {self.test(env)}:", [Line(f"{c} = {self.sc_atom(env)} * 0.5")]],
                           ["else:", [Line(f"{c} = {self.const()}")]]]),
                    Line(f"{v} = {g}({v})")]
        elif form == "loop":
            bind = [Block([[f"for {i} in range({self.rng.choice(['1', '2', '3', 'n'])}):",
                            [Line(f"{c} = {i} * 0.2 + {self.const()}"),
                             Line(f"{v} = {g}({v})")]]])]
        elif form == "later_trip":   # trip i > 0 calls g, which reads trip i - 1's binding
            bind = [Block([[f"for {i} in range({self.rng.choice(['2', '3'])}):",
                            [Block([[f"if {i} > 0:", [Line(f"{v} = {g}({v})")]]]),
                             Line(f"{c} = {i} * 0.3 + {self.sc_atom(env)} * 0.1")]]])]
        else:
            bind = [Line(f"{c} = {self.sc_atom(env)} * 0.3 + {self.const()}"),
                    Line(f"{v} = {g}({v})")]
            if self.rng.random() < 0.4:
                bind.append(Line(f"{v} = {g}({v} * 0.5)"))
        return [fun] + bind

    def s_genexp_reduce(self, env, depth):
        v = self._start5(env, depth, nested=False)
        a = self.arr_atom(env)
        k = self.fresh("k")
        form = self.rng.choice(["sum", "sum_range", "max", "any", "all"])
        if form == "sum":
            return [Line(f"{v} = {v} * 0.5 + sum(jnp.tanh({a} * {k}) for {k} in "
                         f"({self.const()}, {self.const()}))")]
        if form == "sum_range":
            return [Line(f"{v} = sum({v} * ({k} + 1) * 0.2 for {k} in range("
                         f"{self.rng.randint(1, 3)}) if {k} != 1)")]
        if form == "max":
            return [Line(f"{v} = {v} * max(float({k}) * 0.3 for {k} in range(1, 4))")]
        fn = self.rng.choice(["any", "all"])
        return [Block([[f"if {fn}({k} > 2 for {k} in {v}.shape):",
                        [Line(f"{v} = jnp.sin({v})")]],
                       ["else:", [Line(f"{v} = {v} * 0.7")]]])]

    def s_walrus_comp(self, env, depth):
        v = self._start5(env, depth, nested=False)
        t, k, ys = self.fresh("t"), self.fresh("k"), self.fresh("ys")
        if self.rng.random() < 0.5:
            return [Line(f"{ys} = [({t} := jnp.sin({v} * ({k} + 1) * 0.3)) * 0.5 "
                         f"for {k} in range({self.rng.randint(1, 3)})]"),
                    Line(f"{v} = {ys}[-1] + {t} * 0.1")]
        return [Line(f"{ys} = [{t} for {k} in range(4) if ({t} := {k} * 0.25) > 0.3]"),
                Line(f"{v} = {v} * {t} + len({ys}) * 0.1")]

    def s_star_target(self, env, depth):
        v = self._start5(env, depth, nested=False)
        a, b = self.arr_atom(env), self.arr_atom(env)
        h, rest, w = self.fresh("h"), self.fresh("rest"), self.fresh("w")
        form = self.rng.choice(["head", "tail", "for"])
        if form == "head":
            return [Line(f"{h}, *{rest} = [{v}, {a} * 0.5, {b}]"),
                    Line(f"{v} = {h} * 0.5 + sum({rest}) * 0.25")]
        if form == "tail":
            return [Line(f"*{rest}, {h} = ({a}, {v} * 0.3)"),
                    Line(f"{v} = jnp.tanh({h}) + len({rest}) * 0.1 + {rest}[0] * 0.2")]
        return [Block([[f"for {h}, *{rest} in [({v}, {a}), ({b}, {v}, {a})]:",
                        [Line(f"{w} = {h} * 0.5 + len({rest}) * 0.1"),
                         Line(f"{v} = jnp.sin({w}) + {rest}[-1] * 0.2")]]])]
