"""A second family of constructs real numerical code uses (`CONSTRUCTS2`, each a
default-off feature switch of the same name; `run.py --enable constructs2` turns on all):

- `match_stmt`: `match` on the pytree argument's structure (`case {"w": w, "b": b}:` /
  `case (w, b):`), on a static loop index with a guard (`case 1 if x.ndim == 1:`) whose
  bodies hold staged `if`s and the loop's `break` / `continue` / `return`, and on a
  shape (`case (3,):`);
- `chained_cmp`: chained comparisons of staged values in an `if` test and in a `while`
  test (`-2.0 < jnp.sum(v) < 4.0`);
- `lambda_default`: lambdas whose defaults bind a loop variable or a staged value when
  they are made (`lambda z, k=i: ...`, `lambda z, c=t: ...` with `t` rebound after);
- `aug_attr`: augmented assignment to an attribute of a plain object (`o.v += ...`,
  `o.v *= c`) in a loop over a static range or under a static test;
- `nonlocal_loop`: a function defined in a loop body writing a `nonlocal` name under a
  staged test, called in the same trip;
- `star_rows`: a `for` over an array's rows unpacking each with a star
  (`for h, *rest in jnp.stack([...])`).

The reference spells `o.v += e` as `o.v = o.v + (e)`: NumPy's `+=` writes through to
the array the attribute shares with another name, where a jax array is immutable."""
from __future__ import annotations

from .nodes import Block, Line

CONSTRUCTS2 = ("match_stmt", "chained_cmp", "lambda_default", "aug_attr", "nonlocal_loop",
               "star_rows")

PRELUDE2 = '''

class Box:
    def __init__(self, v):
        self.v = v


'''


class Constructs2Mixin:
    """`Generator`'s `s_<construct>` methods for `CONSTRUCTS2` (module docstring)."""

    def _uses2(self):
        self.uses_constructs2 = True

    def s_match_stmt(self, env, depth):
        if depth >= self.max_depth:
            return None
        self._uses2()
        v, _ = self.target_array(env, new_ok=False)
        form = self.rng.choice(["structure", "index", "shape"])
        if form == "structure":
            w, b = self.fresh("w"), self.fresh("b")
            e1 = self.body_env(env)
            e1.arrays.append(w)
            e1.scalars.append(b)
            body1, _ = self.block(e1, depth + 1, n=self.rng.randint(1, 2))
            e2 = self.body_env(env)
            e2.arrays.append(w)
            body2, _ = self.block(e2, depth + 1, n=1)
            cases = [Block([[f'case {{"w": {w}, "b": {b}}}:',
                             body1 + [Line(f"{v} = {v} * 0.5 + {w} * jnp.tanh({b})")]]]),
                     Block([[f"case ({w}, {b}):",
                             body2 + [Line(f"{v} = jnp.sin({v}) * 0.5 + {w} * 0.3")]]])]
            if self.rng.random() < 0.5:
                cases.append(Block([["case _:", [Line(f"{v} = {v} * 0.7")]]]))
            return [Block([["match p:", cases]])]
        if form == "shape":
            e = self.body_env(env)
            body, _ = self.block(e, depth + 1, n=1)
            return [Block([["match x.shape:", [
                Block([["case (3,):", body + [Line(f"{v} = jnp.tanh({v} + 0.2)")]]]),
                Block([["case _:", [Line(f"{v} = {v} * 0.0")]]])]]])]
        # (a static trip count: with `range(n)` the index is staged and `case 0:`
        # compares it -- JAX's TracerBoolConversionError as in any staged `==` test)
        i = self.fresh("i")
        cases = []
        for head in ("case 0:", "case 1 if x.ndim == 1:", "case _:"):
            e = self.body_env(env, loop="for", atoms=[i])
            body, _ = self.block(e, depth + 2, n=self.rng.randint(1, 2))
            cases.append(Block([[head, body + [Line(f"{v} = jnp.tanh({v} * 0.9 + {i} * 0.1)")]]]))
        bound = self.rng.choice(["3", "2", "1, 3"])
        return [Block([[f"for {i} in range({bound}):", [Block([[f"match {i} % 3:", cases]])]]])]

    def s_chained_cmp(self, env, depth):
        if depth >= self.max_depth:
            return None
        self._uses2()
        v, _ = self.target_array(env, new_ok=False)
        if self.rng.random() < 0.5:
            e = self.body_env(env)
            body, _ = self.block(e, depth + 1, n=1)
            lo, hi = sorted([float(self.const()), float(self.const())])
            test = f"{lo} < {self.sc_atom(env)} <= {hi + 0.5}"
            if self.rng.random() < 0.3:
                test = f"{self.sc_atom(env)} > {lo} > -1.0"
            return [Block([[f"if {test}:", body + [Line(f"{v} = {v} * 0.5 + 0.2")]],
                           ["else:", [Line(f"{v} = jnp.tanh({v})")]]])]
        k = self.fresh("k")
        e = self.body_env(env, loop="while")
        body, _ = self.block(e, depth + 1, n=1)
        return [Line(f"{k} = 0"),
                Block([[f"while 0 <= {k} < {self.rng.randint(1, 3)} and -2.0 < jnp.sum({v}) < 4.0:",
                        [Line(f"{k} += 1")] + body + [Line(f"{v} = {v} * 1.3 + 0.1")]]])]

    def s_lambda_default(self, env, depth):
        self._uses2()
        v, _ = self.target_array(env, new_ok=False)
        fs, i = self.fresh("fs"), self.fresh("i")
        if self.rng.random() < 0.5:
            return [Line(f"{fs} = [lambda z, k={i}: jnp.tanh(z * (k + 1) * {self.const()}) "
                         f"for {i} in range(3)]"),
                    Line(f"{v} = {fs}[0]({v}) * 0.5 + {fs}[2]({self.arr_atom(env)}) * 0.3")]
        t = self.rng.choice(env.scalars)
        return [Line(f"{fs} = lambda z, c={t}: z * jnp.tanh(c) + 0.1"),
                Line(f"{t} = {t} * 0.5 + 0.3"),
                Line(f"{v} = {fs}({v}) * 0.5 + {t} * 0.2")]

    def s_aug_attr(self, env, depth):
        if depth >= self.max_depth:
            return None
        self._uses2()
        v, _ = self.target_array(env, new_ok=False)
        o, i = self.fresh("o"), self.fresh("i")
        s = self.sc_atom(env)
        ops = [(f"{o}.v += {s} * 0.1", f"{o}.v = {o}.v + ({s} * 0.1)"),
               (f"{o}.v *= 0.9", f"{o}.v = {o}.v * (0.9)"),
               (f"{o}.v -= jnp.sin({o}.v) * 0.2", f"{o}.v = {o}.v - (jnp.sin({o}.v) * 0.2)")]
        body = [Line(*op) for op in self.rng.sample(ops, 2)]
        # (static tests and trip counts only: an attribute store under a staged test is
        # a located ConcretizationError by design -- JAX's TracerBoolConversionError)
        if self.rng.random() < 0.5:
            test = self.rng.choice(["x.shape[0] > 2", "x.ndim == 1", "len(p) == 2"])
            stmt = Block([[f"if {test}:", body]])
        else:
            stmt = Block([[f"for {i} in range({self.rng.choice(['3', '2', '1, 3'])}):", body]])
        return [Line(f"{o} = Box({self.arr_atom(env)})"), stmt, Line(f"{v} = {o}.v")]

    def s_nonlocal_loop(self, env, depth):
        if depth >= self.max_depth:
            return None
        self._uses2()
        v, _ = self.target_array(env, new_ok=False)
        t = self.rng.choice(env.scalars)
        i, bump = self.fresh("i"), self.fresh("bump")
        bound = self.rng.choice(["2", "n", "1, 3"])
        return [Block([[f"for {i} in range({bound}):", [
            Block([[f"def {bump}(z):", [
                Line(f"nonlocal {t}"),
                Block([[f"if z > {self.const()}:", [Line(f"{t} = {t} * 0.5 + z * 0.2")]]]),
                Line(f"return {t}")]]]),
            Line(f"{v} = jnp.tanh({v} + {bump}({self.sc_atom(env)}) * 0.1)")]]])]

    def s_star_rows(self, env, depth):
        self._uses2()
        v, _ = self.target_array(env, new_ok=False)
        t = self.rng.choice(env.scalars)
        h, rest = self.fresh("h"), self.fresh("rest")
        rows = ", ".join([v, self.arr_atom(env), self.arr_expr(env)])
        return [Block([[f"for {h}, *{rest} in jnp.stack([{rows}]):",
                        [Line(f"{t} = jnp.tanh({t} * 0.5 + {h} * 0.3 + {rest}[-1] * 0.2)")]]])]
