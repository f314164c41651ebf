"""A third family of constructs jitted numerical code uses (`CONSTRUCTS3`, each a
default-off feature switch of the same name; `run.py --enable constructs3` turns on all):

- `enum_zip`: `for i, (a, b) in enumerate(zip(arrays, scalars)):` with a staged `if`
  on the pair and the index in the body;
- `container_loop`: a dict / list of arrays written in a loop over a static or staged
  range (`d["u"] = ...`, `acc[0] = ...`), keys made by f-strings in a static loop
  (`d[f"k{i}"] = ...`), `lst.append` then `sum(lst)`;
- `static_checks`: `assert` on shapes and dtypes with an f-string message, `raise` of
  an f-string error under a shape test that does not hold, `isinstance` of the
  arguments (`isinstance(p, dict)`, `isinstance(x, jnp.ndarray)`);
- `closure_carry`: a function defined before a loop reading a name the loop rebinds
  (Python's late binding: each call sees the current value), called every trip;
- `while_true`: `while True:` with a counter `break` and a staged `break`;
- `ifexp_args`: conditional expressions nested in call arguments, staged and static
  (`helper(a if t > 0 else b, scale=0.3 if x.ndim == 1 else 0.5)`);
- `del_loop_tmp`: a loop temporary deleted at the end of each trip, the loop's range
  static or staged;
- `global_nonlocal`: a nested function declaring a module global it reads and a
  `nonlocal` it writes, called in a loop;
- `scope_with`: `with astjax.named_scope(...)` and two context managers in one `with`;
- `cond_comp`: comprehensions with static conditions over arrays (`a.ndim == 1`,
  `a.shape[0] > 2`) feeding `sum()` / `max()` / `min()`, the builtins over staged
  scalars.

The reference runs the same text with NumPy, `astjax.named_scope` a no-op context."""
from __future__ import annotations

from .nodes import Block, Line

CONSTRUCTS3 = ("enum_zip", "container_loop", "static_checks", "closure_carry", "while_true",
               "ifexp_args", "del_loop_tmp", "global_nonlocal", "scope_with", "cond_comp")

_SHARED3 = '''
GC3 = 0.6


class CM3:
    def __init__(self, k):
        self.k = k

    def __enter__(self):
        return self.k * 0.5

    def __exit__(self, *exc):
        return False


'''

PRELUDE3 = {
    "jax": "import contextlib\nimport astjax\n" + _SHARED3,
    "ref": ("import contextlib\n\n\nclass astjax:\n"
            "    named_scope = staticmethod(lambda name: contextlib.nullcontext())\n\n"
            + _SHARED3),
}


class Constructs3Mixin:
    """`Generator`'s `s_<construct>` methods for `CONSTRUCTS3` (module docstring)."""

    def _uses3(self):
        self.uses_constructs3 = True

    def _bound(self, staged_ok=True):
        return self.rng.choice(["3", "2", "1, 3"] + (["n", "n"] if staged_ok else []))

    def s_enum_zip(self, env, depth):
        if depth >= self.max_depth:
            return None
        self._uses3()
        v, _ = self.target_array(env, new_ok=False)
        i, a, b = self.fresh("i"), self.fresh("a"), self.fresh("b")
        arrs = ", ".join(self.arr_atom(env) for _ in range(self.rng.randint(2, 3)))
        scs = ", ".join([self.sc_atom(env), self.const(), self.sc_atom(env)])
        e = self.body_env(env, loop="for", atoms=[i])
        e.arrays.append(a)
        e.scalars.append(b)
        body, _ = self.block(e, depth + 1, n=1)
        return [Block([[f"for {i}, ({a}, {b}) in enumerate(zip([{arrs}], [{scs}])):", body + [
            Block([[f"if {b} > {self.const()}:", [Line(f"{v} = {v} * 0.5 + {a} * 0.3 + {i} * 0.1")]],
                   ["else:", [Line(f"{v} = jnp.tanh({v} + {b} * {a})")]]])]]])]

    def s_container_loop(self, env, depth):
        if depth >= self.max_depth:
            return None
        self._uses3()
        v, _ = self.target_array(env, new_ok=False)
        t = self.rng.choice(env.scalars)
        c, i = self.fresh("c"), self.fresh("i")
        form = self.rng.choice(["dict", "list", "fkeys", "append"])
        if form == "dict":
            body = [Line(f'{c}["u"] = jnp.tanh({c}["u"] * 0.9 + {c}["w"] * 0.1)'),
                    Line(f'{c}["w"] = {c}["w"] * 0.5 + jnp.sum({c}["u"]) * 0.1')]
            if self.rng.random() < 0.5:
                body.insert(1, Block([[f'if {c}["w"] > {self.const()}:',
                                       [Line(f'{c}["u"] = {c}["u"] * 0.5')]]]))
            return [Line(f'{c} = {{"u": {v}, "w": {t}}}'),
                    Block([[f"for {i} in range({self._bound()}):", body]]),
                    Line(f'{v}, {t} = {c}["u"], {c}["w"]')]
        if form == "list":
            return [Line(f"{c} = [{v}, {self.arr_atom(env)}]"),
                    Block([[f"for {i} in range({self._bound()}):",
                            [Line(f"{c}[0] = jnp.sin({c}[0]) * 0.5 + {c}[1] * 0.3"),
                             Line(f"{c}[1] = {c}[1] * 0.9")]]]),
                    Line(f"{v} = {c}[0] + {c}[-1] * 0.1")]
        if form == "fkeys":
            k = self.fresh("k")
            return [Line(f"{c} = {{}}"),
                    Block([[f"for {i} in range({self.rng.randint(1, 3)}):",
                            [Line(f'{c}[f"k{{{i}}}"] = jnp.tanh({v} * ({i} + 1) * {self.const()})')]]]),
                    Block([[f"for {k} in sorted({c}):", [Line(f"{v} = {v} * 0.7 + {c}[{k}] * 0.2")]]])]
        return [Line(f"{c} = []"),
                Block([[f"for {i} in range({self.rng.randint(1, 3)}):",
                        [Line(f"{c}.append(jnp.sin({v} + {i} * 0.2) * {self.const()})"),
                         Line(f"{v} = {v} * 0.9")]]]),
                Line(f"{v} = {v} + sum({c}) * 0.3")]

    def s_static_checks(self, env, depth):
        self._uses3()
        v, _ = self.target_array(env, new_ok=False)
        form = self.rng.choice(["assert", "raise", "isinstance_p", "isinstance_x"])
        if form == "assert":
            return [Line(f'assert {v}.shape == x.shape and {v}.ndim == 1, '
                         f'f"{v} has shape {{{v}.shape}}"'),
                    Line(f"{v} = {v} * 0.9")]
        if form == "raise":
            return [Block([[f"if {v}.shape[0] != 3 or {v}.ndim > 1:",
                            [Line(f'raise ValueError(f"bad {v}: {{{v}.shape}} {{len(p)}}")')]]]),
                    Line(f"{v} = jnp.tanh({v})")]
        if form == "isinstance_p":
            w = self.fresh("w")
            return [Block([["if isinstance(p, dict):", [Line(f'{w} = p["w"]')]],
                           ["elif isinstance(p, (tuple, list)):", [Line(f"{w} = p[0]")]],
                           ["else:", [Line(f'raise TypeError(f"p is a {{type(p).__name__}}")')]]]),
                    Line(f"{v} = {v} * 0.5 + {w} * 0.5")]
        return [Line(f"{v} = {v} * 0.5 if isinstance({v}, jnp.ndarray) else {v} + 1.0")]

    def s_closure_carry(self, env, depth):
        if depth >= self.max_depth:
            return None
        self._uses3()
        v, _ = self.target_array(env, new_ok=False)
        t = self.rng.choice(env.scalars)
        g, i = self.fresh("g"), self.fresh("i")
        body = [Line(f"{t} = jnp.tanh({t} * 0.5 + {self.const()})"),
                Line(f"{v} = {g}({v})")]
        if self.rng.random() < 0.4:
            body.insert(1, Block([[f"if {self.test(env, staged=True)}:",
                                   [Line(f"{t} = {t} * 0.5")]]]))
        return [Block([[f"def {g}(z):", [Line(f"return jnp.sin(z) * {t} + z * 0.5")]]]),
                Block([[f"for {i} in range({self._bound()}):", body]])]

    def s_while_true(self, env, depth):
        if depth >= self.max_depth:
            return None
        self._uses3()
        v, _ = self.target_array(env, new_ok=False)
        k = self.fresh("k")
        e = self.body_env(env, loop="while")
        body, _ = self.block(e, depth + 1, n=1)
        # (the counter's `break` first: the body may `continue`)
        head = [Line(f"{k} += 1"), Block([[f"if {k} > {self.rng.randint(1, 3)}:", [Line("break")]]])]
        tail = [Line(f"{v} = jnp.tanh({v} * 1.1 + 0.05)")]
        if self.rng.random() < 0.5:
            tail.append(Block([[f"if {self.test(env, staged=True)}:", [Line("break")]]]))
        return [Line(f"{k} = 0"), Block([["while True:", head + body + tail]])]

    def s_ifexp_args(self, env, depth):
        self._uses3()
        a, b = self.arr_atom(env), self.arr_atom(env)
        s = self.sc_atom(env)
        staged = f"{s} > {self.const()}"
        static = self.rng.choice(["x.ndim == 1", "x.shape[0] > 2", "len(p) == 2"])
        call = self.rng.choice([
            f"helper({a} if {staged} else {b}, scale=0.3 if {static} else 0.5)",
            f"helper({a}, {self.const()} if {static} else 0.1, shift=({s} if {staged} else -{s}))",
            f"jnp.where({a} > 0, {a} if {static} else {b}, ({b} if {staged} else {a}) * 0.5)",
            f"helper(helper({a}, shift={s} if {static} else 0.2) if {staged} else {b})"])
        return self._new_array(env, lambda v: [Line(f"{v} = {call}")])

    def s_del_loop_tmp(self, env, depth):
        if depth >= self.max_depth:
            return None
        self._uses3()
        v, _ = self.target_array(env, new_ok=False)
        i, tmp = self.fresh("i"), self.fresh("tmp")
        body = [Line(f"{tmp} = jnp.sin({v} + {i} * 0.1) * {self.const()}"),
                Line(f"{v} = {v} * 0.5 + {tmp} * 0.5")]
        if self.rng.random() < 0.4:
            body.append(Block([[f"if {self.test(env, staged=True)}:",
                                [Line(f"{v} = {v} + {tmp} * 0.1")]]]))
        body.append(Line(f"del {tmp}"))
        return [Block([[f"for {i} in range({self._bound()}):", body]])]

    def s_global_nonlocal(self, env, depth):
        if depth >= self.max_depth:
            return None
        self._uses3()
        v, _ = self.target_array(env, new_ok=False)
        t = self.rng.choice(env.scalars)
        g, i = self.fresh("gn"), self.fresh("i")
        return [Block([[f"def {g}(z):", [Line("global GC3"), Line(f"nonlocal {t}"),
                                         Line(f"{t} = {t} * GC3 + z * 0.2"),
                                         Line(f"return {t}")]]]),
                Block([[f"for {i} in range({self._bound()}):",
                        [Line(f"{v} = jnp.tanh({v} + {g}({self.sc_atom(env)}) * 0.3)")]]])]

    def s_scope_with(self, env, depth):
        if depth >= self.max_depth:
            return None
        self._uses3()
        e = self.body_env(env)
        w = None
        if self.rng.random() < 0.5:
            header = f'with astjax.named_scope("blk{self.count}"):'
        else:
            w, u = self.fresh("w"), self.fresh("u")
            header = (f"with CM3({self.sc_atom(env)}) as {w}, "
                      f"contextlib.nullcontext({self.arr_atom(env)}) as {u}:")
            e.scalars.append(w)
            e.arrays.append(u)
        body, _ = self.block(e, depth + 1)
        self._keep_defined(env, e)
        return [Block([[header, body]])]

    def s_cond_comp(self, env, depth):
        self._uses3()
        arrs = ", ".join(self.arr_atom(env) for _ in range(self.rng.randint(2, 3)))
        r = self.fresh("r")
        form = self.rng.choice(["sum", "max", "min", "rows"])
        if form == "sum":
            return self._new_array(env, lambda v: [Line(
                f"{v} = sum(jnp.tanh({r}) for {r} in [{arrs}] if {r}.ndim == 1) * 0.3")])
        t = self.rng.choice(env.scalars)
        if form == "rows":
            a = self.arr_atom(env)
            return [Line(f"{t} = {t} * 0.5 + sum({r} * 0.2 for {r} in {a} if {a}.shape[0] > 2)")]
        fn = form
        return [Line(f"{t} = jnp.tanh({t} + {fn}(jnp.sum({r}) * 0.1 for {r} in [{arrs}] "
                     f"if {r}.shape[0] > 2))")]
