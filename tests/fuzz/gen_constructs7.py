"""A seventh family of Python constructs (`CONSTRUCTS7`, each a default-off feature switch
of the same name; `run.py --enable constructs7` turns on all):

- `gen_yield`: a generator function defined in `f` (`yield` in a loop over a static
  range, `yield from` a tuple or another generator) consumed by a `for` (also under
  `enumerate`), by `sum` or by `list`, its items arrays;
- `try_loop`: `try` / `finally` (or `try` / `except` / `else`) around a staged loop: a
  `for` over the dynamic `range(n)`, a `while` with a staged test and a counter;
- `del_branch`: `del` inside branches: a dict item or a list item deleted under a static
  test and read back with `.get` / `len`, a name deleted then rebound in a staged branch,
  a name deleted and rebound on some trips of a loop over a static range;
- `fstring_key`: f-strings of static values: dict keys `d[f"k{i}"]` written in a loop
  and read back in a generator expression, a static test on an f-string of shapes;
- `match_seq`: `match` on a list of arrays with sequence patterns (`case [first,
  *rest]:`) and guards, on `x.shape`, on a loop index with or-patterns, on a mapping with
  a class pattern (`{"c": float(c)}`);
- `unpack_display`: `*` and `**` in displays and calls (`[*lst, v]`, `(*lst, e)`,
  `{**d, "k": v}`, `jnp.maximum(*pair)`, `helper(*args, **kw)`);
- `iter_builtins`: `reversed`, `map`, `filter`, `sorted` of dict items, `enumerate(...,
  start=1)` and `zip(*pairs)` feeding a loop over arrays;
- `exc_var`: `except ... as e` reading `e.args[0]` after a static `raise` (in straight
  code or on some trips of a loop over a static range).

None needs a prelude: the reference runs the same text with NumPy."""
from __future__ import annotations

from .nodes import Block, Line

CONSTRUCTS7 = ("gen_yield", "try_loop", "del_branch", "fstring_key", "match_seq",
               "unpack_display", "iter_builtins", "exc_var")


class Constructs7Mixin:
    """`Generator`'s `s_<construct>` methods for `CONSTRUCTS7` (module docstring)."""

    def _start7(self, env, depth):
        if depth >= self.max_depth:
            return None
        return self.target_array(env, new_ok=False)[0]

    def _static7(self, env):
        return self.test(env, staged=False, strict=True)

    def _mix7(self, env, v):
        """A staged `if` on `v` (both branches keep it an f[3])."""
        a = self.arr_atom(env)
        return Block([[f"if {self.test(env, staged=True)}:", [Line(f"{v} = jnp.sin({v}) * 0.8")]],
                      ["else:", [Line(f"{v} = {v} * 0.6 + {a} * 0.2")]]])

    def s_gen_yield(self, env, depth):
        v = self._start7(env, depth)
        if v is None:
            return None
        g, h, u, j, w, i = (self.fresh(b) for b in ("g", "h", "u", "j", "w", "i"))
        a, c, k = self.arr_atom(env), self.const(), self.rng.randint(0, 3)
        body = [Block([[f"for {j} in range(k):",
                        [Line(f"yield jnp.sin({u}) * (0.5 + 0.1 * {j})")]]])]
        out = []
        tail = self.rng.choice(["tuple", "gen", "none"])
        if tail == "tuple":
            body.append(Line(f"yield from ({u} * {c}, jnp.tanh({u} + {a}))"))
        elif tail == "gen":
            out.append(Block([[f"def {h}(z):", [Line("yield z * 0.5"),
                                                Line("yield jnp.cos(z) * 0.3")]]]))
            body.append(Line(f"yield from {h}({u})"))
        out.append(Block([[f"def {g}({u}, k):", body]]))
        form = self.rng.choice(["for", "enumerate", "sum", "list"])
        if form == "for":
            out.append(Block([[f"for {w} in {g}({v}, {k}):",
                               [Line(f"{v} = {v} * 0.7 + {w} * 0.2"), self._mix7(env, v)]]]))
        elif form == "enumerate":
            out.append(Block([[f"for {i}, {w} in enumerate({g}({v}, {k})):",
                               [Line(f"{v} = {v} * 0.7 + {w} * (0.1 + {i} * 0.05)")]]]))
        elif form == "sum":
            out.append(Line(f"{v} = {v} * 0.5 + sum({g}({v}, {k})) * 0.1"))
        else:
            lst = self.fresh("lst")
            out += [Line(f"{lst} = list({g}({v}, {k}))"),
                    Line(f"{v} = {v} * 0.5 + ({lst}[-1] * 0.2 if {lst} else {v} * 0.1)"
                         f" + len({lst}) * 0.05")]
        return out

    def s_try_loop(self, env, depth):
        v = self._start7(env, depth)
        if v is None:
            return None
        i, k = self.fresh("i"), self.fresh("k")
        c = self.const()
        if self.rng.random() < 0.5:
            loop = Block([[f"for {i} in range(n):",
                           [Line(f"{v} = jnp.tanh({v} * {c} + {i} * 0.1)"), self._mix7(env, v)]]])
            pre = []
        else:
            pre = [Line(f"{k} = 0")]
            loop = Block([[f"while {k} < 3 and ({self.test(env, staged=True)}):",
                           [Line(f"{v} = jnp.tanh({v} * {c}) + 0.05"), Line(f"{k} += 1")]]])
        if self.rng.random() < 0.5:
            parts = [["try:", [loop]], ["finally:", [Line(f"{v} = {v} * 0.9 + 0.05")]]]
        else:
            parts = [["try:", [loop]], ["except ValueError:", [Line(f"{v} = {v} * 0.0")]],
                     ["else:", [Line(f"{v} = jnp.sin({v}) * 0.8")]]]
        return pre + [Block(parts)]

    def s_del_branch(self, env, depth):
        v = self._start7(env, depth)
        if v is None:
            return None
        a, c = self.arr_atom(env), self.const()
        form = self.rng.choice(["dict", "list", "name", "loop"])
        if form == "dict":
            d = self.fresh("d")
            return [Line(f'{d} = {{"a": {v} * 0.5, "b": {self.sc_atom(env)} * {c}}}'),
                    Block([[f"if {self._static7(env)}:", [Line(f'del {d}["a"]')]]]),
                    Line(f'{v} = {v} * 0.5 + {d}.get("a", {a} * 0.2) * 0.3 + {d}["b"] * 0.1')]
        if form == "list":
            lst = self.fresh("lst")
            return [Line(f"{lst} = [{v} * 0.5, jnp.sin({a}), {v} * {c}]"),
                    Block([[f"if {self._static7(env)}:",
                            [Line(f"del {lst}[{self.rng.choice(['0', '-1', '1:'])}]")]]]),
                    Line(f"{v} = sum({lst}) * 0.3 + len({lst}) * 0.1")]
        t = self.fresh("t")
        if form == "name":
            return [Line(f"{t} = {v} * {c}"),
                    Block([[f"if {self.test(env, staged=True)}:",
                            [Line(f"del {t}"), Line(f"{t} = jnp.sin({a}) * 0.5")]],
                           ["else:", [Line(f"{t} = {t} + 0.1")]]]),
                    Line(f"{v} = {v} * 0.6 + {t} * 0.3")]
        i = self.fresh("i")
        return [Line(f"{t} = {v} * 0.4"),
                Block([[f"for {i} in range({self.rng.randint(1, 3)}):",
                        [Block([[f"if {i} % 2 == 0:",
                                 [Line(f"del {t}"), Line(f"{t} = jnp.tanh({v} + {i} * 0.1)")]]]),
                         Line(f"{v} = {v} * 0.8 + {t} * 0.2")]]])]

    def s_fstring_key(self, env, depth):
        v = self._start7(env, depth)
        if v is None:
            return None
        d, i, j = self.fresh("d"), self.fresh("i"), self.fresh("j")
        k = self.rng.randint(0, 3)
        if self.rng.random() < 0.6:
            return [Line(f"{d} = {{}}"),
                    Block([[f"for {i} in range({k}):",
                            [Line(f'{d}[f"k{{{i}}}"] = jnp.sin({v}) * (0.2 + {i} * 0.1)')]]]),
                    Line(f'{v} = {v} * 0.5 + sum({d}[f"k{{{j}}}"] for {j} in range({k})) * 0.1'
                         f' + len({d}) * 0.05')]
        tag = self.fresh("tag")
        want = self.rng.choice(["3-1", "2-1", "3-2"])
        return [Line(f'{tag} = f"{{x.shape[0]}}-{{x.ndim}}"'),
                Block([[f'if {tag} == "{want}":', [Line(f"{v} = jnp.tanh({v}) * {self.const()}")]],
                       ["else:", [Line(f"{v} = {v} * 0.5 + len({tag}) * 0.1")]]])]

    def s_match_seq(self, env, depth):
        v = self._start7(env, depth)
        if v is None:
            return None
        a, c = self.arr_atom(env), self.const()
        form = self.rng.choice(["seq", "shape", "index", "mapping"])
        if form == "seq":
            first, rest = self.fresh("first"), self.fresh("rest")
            n = self.rng.randint(1, 3)
            items = ", ".join([f"{v} * {c}", f"jnp.sin({a})", f"{v} + 0.1"][:n])
            return [Block([[f"match [{items}]:",
                            [Block([[f"case [{first}, *{rest}] if len({rest}) >= 1:",
                                     [Line(f"{v} = {first} * 0.5 + {rest}[-1] * 0.3")]],
                                    [f"case [{first}]:", [Line(f"{v} = jnp.tanh({first})")]],
                                    ["case _:", [Line(f"{v} = {v} * 0.1")]]])]]])]
        if form == "shape":
            m = self.fresh("m")
            return [Block([["match x.shape:",
                            [Block([[f"case ({m},) if {m} > {self.rng.randint(1, 4)}:",
                                     [Line(f"{v} = {v} * 0.5 + {m} * 0.1")]],
                                    ["case (2, *_):", [Line(f"{v} = {v} * 0.2")]],
                                    ["case _:", [Line(f"{v} = jnp.sin({v})")]]])]]])]
        if form == "index":
            i = self.fresh("i")
            return [Block([[f"for {i} in range({self.rng.randint(1, 4)}):",
                            [Block([[f"match {i} % 3:",
                                     [Block([["case 0:", [Line(f"{v} = jnp.tanh({v} * {c})")]],
                                             ["case 1 | 2:", [self._mix7(env, v)]]])]]])]]])]
        cc, ww = self.fresh("cc"), self.fresh("ww")
        return [Block([[f'match {{"w": {v}, "c": {c}}}:',
                        [Block([[f'case {{"c": float({cc}), "w": {ww}}} if {cc} > 0:',
                                 [Line(f"{v} = {ww} * {cc} + 0.1")]],
                                [f'case {{"w": {ww}}}:', [Line(f"{v} = jnp.sin({ww})")]]])]]])]

    def s_unpack_display(self, env, depth):
        v = self._start7(env, depth)
        if v is None:
            return None
        a, c = self.arr_atom(env), self.const()
        lst, d = self.fresh("lst"), self.fresh("d")
        form = self.rng.choice(["list", "tuple", "dict", "call"])
        if form == "list":
            return [Line(f"{lst} = [{v} * 0.5, {a}]"),
                    Line(f"{v} = jnp.stack([*{lst}, jnp.sin({v})]).mean(axis=0) * {c}")]
        if form == "tuple":
            t = self.fresh("t")
            return [Line(f"{lst} = [{v}, {a} * {c}]"),
                    Line(f"{t} = (*{lst}, jnp.tanh({v}), *({a} * 0.1,))"),
                    Line(f"{v} = {t}[-2] * 0.5 + {t}[0] * 0.3 + {t}[-1] + len({t}) * 0.01")]
        if form == "dict":
            e = self.fresh("e")
            return [Line(f'{d} = {{"w": {v}, "k": {c}}}'),
                    Line(f'{e} = {{**{d}, "k": {self.sc_atom(env)} * 0.5, **{{"z": {a}}}}}'),
                    Line(f'{v} = {e}["w"] * 0.5 + {e}["k"] * 0.2 + {e}["z"] * 0.1')]
        return [Line(f"{lst} = ({v} * {c}, {a})"),
                Line(f'{d} = {{"scale": {c}}}'),
                Line(f"{v} = jnp.maximum(*{lst}) * 0.5 + helper(*{lst}[:1], **{d}) * 0.5")]

    def s_iter_builtins(self, env, depth):
        v = self._start7(env, depth)
        if v is None:
            return None
        a, c = self.arr_atom(env), self.const()
        w, i, k = self.fresh("w"), self.fresh("i"), self.fresh("k")
        items = f"[{v} * 0.5, {a}, jnp.sin({v}) * {c}]"
        form = self.rng.choice(["reversed", "map", "filter", "sorted", "enumerate", "zip"])
        if form == "reversed":
            head, body = f"for {w} in reversed({items}):", f"{v} = {v} * 0.6 + {w} * 0.3"
        elif form == "map":
            head, body = (f"for {w} in map(jnp.tanh, {items}):", f"{v} = {v} * 0.6 + {w} * 0.3")
        elif form == "filter":
            head = f"for {w} in filter(lambda z: z is not None, [{v} * {c}, None, {a}]):"
            body = f"{v} = {v} * 0.7 + {w} * 0.2"
        elif form == "sorted":
            head = f'for {k}, {w} in sorted({{"b": {a}, "a": {v} * {c}}}.items()):'
            body = f'{v} = {v} * 0.6 + {w} * (0.3 if {k} == "a" else 0.1)'
        elif form == "enumerate":
            head = f"for {i}, {w} in enumerate({items}, start=1):"
            body = f"{v} = {v} * 0.7 + {w} * (0.1 * {i})"
        else:
            head = f"for {i}, {w} in zip(*[({v}, {a}), ({a} * {c}, {v} * 0.5)]):"
            body = f"{v} = {i} * 0.4 + {w} * 0.4"
        return [Block([[head, [Line(body), self._mix7(env, v)]]])]

    def s_exc_var(self, env, depth):
        v = self._start7(env, depth)
        if v is None:
            return None
        e, i = self.fresh("e"), self.fresh("i")
        c = self.const()
        exc = self.rng.choice(["ValueError", "KeyError", "RuntimeError"])
        if self.rng.random() < 0.5:
            return [Block([["try:", [Line(f"{v} = {self.arr_expr(env)}"),
                                     Block([[f"if {self._static7(env)}:",
                                             [Line(f"raise {exc}({c}, 'w')")]]]),
                                     Line(f"{v} = jnp.cos({v}) * 0.5")]],
                           [f"except {exc} as {e}:",
                            [Line(f"{v} = {v} * {e}.args[0] + len({e}.args) * 0.1")]]])]
        return [Block([[f"for {i} in range({self.rng.randint(1, 4)}):",
                        [Block([["try:", [self._mix7(env, v),
                                          Block([[f"if {i} % 2 == 1:",
                                                  [Line(f"raise {exc}({i} * 0.1)")]]]),
                                          Line(f"{v} = {v} * 0.9")]],
                                [f"except {exc} as {e}:",
                                 [Line(f"{v} = {v} * 0.8 + {e}.args[0]")]]])]]])]
