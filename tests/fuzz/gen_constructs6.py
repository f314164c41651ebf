"""A sixth family of Python constructs (`CONSTRUCTS6`, each a default-off feature switch
of the same name; `run.py --enable constructs6` turns on all):

- `swallow_with`: `with` of a user context manager whose `__exit__` swallows a
  `ValueError` raised under a static test in the body (the statements after the `raise`
  do not run), in straight code or per trip of a loop over a static range, with staged
  `if`s before the `raise`;
- `raise_branch`: `try` / `except` / `else` / `finally` around array code with a
  `raise` in a static branch of the body (the handler or the `else` part runs), a staged
  `if` inside the body, sometimes in a loop whose handler `continue`s;
- `closure_list`: a nested function mutating a list or a dict of the enclosing scope
  (`acc.append(...)`, `d["s"] = ...`), called per trip of a loop over a static range,
  the container read after the loop;
- `aug_obj_sub`: augmented assignment to a subscript of a user object's attribute
  (`o.items[i % 2] += ...`, `o.d["w"] *= c`) in a loop over a static range or under a
  static test.

The reference runs the same text with NumPy and spells `o.items[k] += e` as
`o.items[k] = o.items[k] + (e)`: NumPy's `+=` writes through to an array the list
shares with another name, where a jax array is immutable."""
from __future__ import annotations

from .nodes import Block, Line

CONSTRUCTS6 = ("swallow_with", "raise_branch", "closure_list", "aug_obj_sub")

PRELUDE6 = '''

class Sw6:
    def __init__(self, k):
        self.k = k
        self.log = []

    def __enter__(self):
        self.log.append(self.k)
        return self

    def __exit__(self, et, ev, tb):
        self.log.append(et is not None)
        return et is not None and issubclass(et, ValueError)


class Bag6:
    def __init__(self, *items):
        self.items = list(items)
        self.d = {"w": items[0]}


'''


class Constructs6Mixin:
    """`Generator`'s `s_<construct>` methods for `CONSTRUCTS6` (module docstring)."""

    def _start6(self, env, depth, nested=True):
        if nested and depth >= self.max_depth:
            return None
        self.uses_constructs6 = True
        return self.target_array(env, new_ok=False)[0]

    def _static(self, env):
        return self.test(env, staged=False, strict=True)

    def _staged_if(self, env, v):
        a = self.arr_atom(env)
        return Block([[f"if {self.test(env, staged=True)}:", [Line(f"{v} = jnp.sin({v}) * 0.8")]],
                      ["else:", [Line(f"{v} = {v} * 0.6 + {a} * 0.2")]]])

    def s_swallow_with(self, env, depth):
        v = self._start6(env, depth)
        if v is None:
            return None
        cm, i = self.fresh("cm"), self.fresh("i")
        a = self.arr_atom(env)
        if self.rng.random() < 0.5:
            body = [Line(f"{v} = jnp.tanh({v} * {self.const()})"), self._staged_if(env, v),
                    Block([[f"if {self._static(env)}:", [Line('raise ValueError("skip")')]]]),
                    Line(f"{v} = {v} * 0.5 + {a} * 0.3")]
            return [Block([[f"with Sw6({self.const()}) as {cm}:", body]]),
                    Line(f"{v} = {v} + len({cm}.log) * 0.1")]
        body = [self._staged_if(env, v),
                Block([[f"if {i} == {self.rng.randint(0, 2)}:", [Line(f"raise ValueError({i})")]]]),
                Line(f"{v} = {v} * 0.9 + {i} * 0.1")]
        return [Block([[f"for {i} in range({self.rng.randint(1, 3)}):",
                        [Block([[f"with Sw6({i}) as {cm}:", body]]),
                         Line(f"{v} = {v} + {cm}.log[-1] * 0.2")]]])]

    def s_raise_branch(self, env, depth):
        v = self._start6(env, depth)
        if v is None:
            return None
        i = self.fresh("i")
        exc = self.rng.choice(["ValueError", "IndexError"])
        body = [Line(f"{v} = {self.arr_expr(env)}"), self._staged_if(env, v)]
        loop = self.rng.random() < 0.4
        test = f"{i} % 2 == 1" if loop else self._static(env)
        body += [Block([[f"if {test}:", [Line(f'raise {exc}("r")')]]]),
                 Line(f"{v} = jnp.cos({v}) * {self.const()}")]
        handler = [Line(f"{v} = {v} * 0.3 + {self.sc_atom(env)} * 0.1")]
        if loop and self.rng.random() < 0.5:
            handler.append(Line("continue"))
        parts = [["try:", body], [f"except {exc}:", handler]]
        if self.rng.random() < 0.6:
            parts.append(["else:", [Line(f"{v} = jnp.sin({v})")]])
        if self.rng.random() < 0.6:
            parts.append(["finally:", [Line(f"{v} = {v} + 0.1")]])
        stmt = Block(parts)
        if loop:
            return [Block([[f"for {i} in range({self.rng.randint(1, 4)}):",
                            [stmt, Line(f"{v} = {v} * 0.95")]]])]
        return [stmt]

    def s_closure_list(self, env, depth):
        v = self._start6(env, depth)
        if v is None:
            return None
        g, u, i, acc = self.fresh("g"), self.fresh("u"), self.fresh("i"), self.fresh("acc")
        r = self.rng.randint(0, 3)
        c = self.const()
        if self.rng.random() < 0.5:
            return [Line(f"{acc} = []"),
                    Block([[f"def {g}({u}, k=0.5):",
                            [Line(f"{acc}.append(jnp.tanh({u} * k) * {c})")]]]),
                    Block([[f"for {i} in range({r}):",
                            [Line(f"{g}({v}, {i} * 0.2 + 0.1)"), self._staged_if(env, v)]]]),
                    Line(f"{v} = {v} * 0.5 + sum({acc}) * 0.2 + len({acc}) * 0.05")]
        return [Line(f'{acc} = {{"s": {v} * 0.5}}'),
                Block([[f"def {g}({u}):",
                        [Line(f'{acc}["s"] = {acc}["s"] * {c} + jnp.sin({u}) * 0.3')]]]),
                Block([[f"for {i} in range({r}):",
                        [Line(f"{g}({v})"), Line(f'{v} = {v} * 0.7 + {acc}["s"] * 0.2')]]]),
                Line(f'{v} = {v} + {acc}["s"] * 0.1')]

    def s_aug_obj_sub(self, env, depth):
        v = self._start6(env, depth)
        if v is None:
            return None
        o, i = self.fresh("o"), self.fresh("i")
        a, c = self.arr_atom(env), self.const()

        def aug(target, op, e):
            return Line(f"{target} {op}= {e}", f"{target} = {target} {op} ({e})")
        first = [Line(f"{o} = Bag6({v}, {a} * 0.5)")]
        upd = [aug(f"{o}.items[{i} % 2]", "+", f"jnp.sin({v}) * {c}"),
               aug(f'{o}.d["w"]', "*", "0.9")]
        if self.rng.random() < 0.5:
            loop = [Block([[f"for {i} in range({self.rng.randint(0, 3)}):", upd]])]
        else:
            upd[0] = aug(f"{o}.items[0]", "+", f"jnp.sin({v}) * {c}")
            loop = [Block([[f"if {self._static(env)}:", upd]])]
        return first + loop + [Line(f'{v} = {o}.items[0] * 0.5 + {o}.items[1] * 0.3 '
                                    f'+ {o}.d["w"] * 0.2')]
