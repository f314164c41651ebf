"""A fourth family of constructs jitted numerical code uses (`CONSTRUCTS4`, each a
default-off feature switch of the same name; `run.py --enable constructs4` turns on all):

- `try_finally`: a nested function whose `try` body returns under a staged or static
  test and whose `finally` rebinds a name the later `return` reads (the value returned
  from inside `try` is the one computed before `finally` ran), called once or per trip;
- `class_state`: a user class's methods called in a loop over a static range, reading
  and writing `self` attributes (`o.step(u)`, `o.k = ...`, `o.scaled()`);
- `nt_carry`: a NamedTuple carried through a `for` over a static or staged range, or a
  `while`, rebuilt or `_replace`d each trip and unpacked after;
- `varargs`: a `*args` / `**kwargs` helper called with starred lists, dict splats and
  keywords, module-level or nested in `f`;
- `jit_helper`: `@astjax.jit`-decorated helpers (module-level, with `static_argnums`
  through `functools.partial`, or nested in `f` closing over its values) called in
  loops;
- `lambda_loop`: lambdas made in a loop or a comprehension capturing the loop variable
  by a default argument (`k=i`), or late-bound (every lambda sees the last value);
- `match_guard`: `match` on a tuple of static values with guards and or-patterns, and
  on a NamedTuple with a class pattern;
- `where_mask`: `jnp.where` of an elementwise mask made with `&`, `|`, `~` and
  `jnp.logical_and`, and of a chained comparison on staged scalars (`lo < s < hi`).

The reference runs the same text with NumPy, `jit4` a decorator that returns the
function unchanged."""
from __future__ import annotations

from .nodes import Block, Line

CONSTRUCTS4 = ("try_finally", "class_state", "nt_carry", "varargs", "jit_helper",
               "lambda_loop", "match_guard", "where_mask")

_SHARED4 = '''

class St4(NamedTuple):
    a: object
    b: object


class Acc4:
    def __init__(self, v, k=0.5):
        self.v = v
        self.k = k

    def step(self, u):
        self.v = jnp.tanh(self.v * self.k + u * 0.3)
        return self.v

    def scaled(self):
        return self.v * self.k


def va4(*args, scale=0.5, **kw):
    out = args[0]
    for a in args[1:]:
        out = out + a * 0.3
    return jnp.tanh(out) * scale + kw.get("shift", 0.0)


@jit4
def jh4(u, k):
    return jnp.sin(u) * k + 0.1


@functools.partial(jit4, static_argnums=1)
def jhs4(u, m):
    for j in range(m):
        u = jnp.tanh(u * 0.9 + j * 0.1)
    return u


'''

PRELUDE4 = {
    "jax": "import functools\nfrom typing import NamedTuple\nimport astjax\n\njit4 = astjax.jit\n"
           + _SHARED4,
    "ref": ("import functools\nfrom typing import NamedTuple\n\n\n"
            "def jit4(fun=None, **options):\n"
            "    return fun if fun is not None else (lambda g: g)\n" + _SHARED4),
}


class Constructs4Mixin:
    """`Generator`'s `s_<construct>` methods for `CONSTRUCTS4` (module docstring)."""

    def _start4(self, env, depth, scalar=False, nested=True):
        """The construct's target array (and a scalar of `env` with `scalar`), or None
        where a construct with a nested block would nest too deep."""
        if nested and depth >= self.max_depth:
            return None
        self.uses_constructs4 = True
        v, _ = self.target_array(env, new_ok=False)
        return (v, self.rng.choice(env.scalars)) if scalar else v

    def _trips4(self, staged_ok=True):
        return self.rng.choice(["3", "2", "1, 3"] + (["n"] if staged_ok else []))

    def s_try_finally(self, env, depth):
        v = self._start4(env, depth)
        if v is None:
            return None
        g, u, k, i = self.fresh("g"), self.fresh("u"), self.fresh("k"), self.fresh("i")
        test = self.rng.choice([f"jnp.sum({u}) > {self.const()}", f"{u}[0] < 0.0",
                                f"{u}.shape[0] > 2", f"{u}.ndim == 2"])
        fun = Block([[f"def {g}({u}):", [
            Line(f"{k} = 0.5"),
            Block([["try:", [Block([[f"if {test}:", [Line(f"return jnp.tanh({u}) * {k}")]]]),
                             Line(f"{u} = {u} * 0.9")]],
                   ["finally:", [Line(f"{k} = 0.7")]]]),
            Line(f"return jnp.sin({u}) * {k}")]]])
        if self.rng.random() < 0.5:
            return [fun, Line(f"{v} = {g}({v})")]
        return [fun, Block([[f"for {i} in range({self._trips4()}):",
                             [Line(f"{v} = {g}({v} + {i} * 0.1)")]]])]

    def s_class_state(self, env, depth):
        v = self._start4(env, depth)
        if v is None:
            return None
        o, i, w = self.fresh("o"), self.fresh("i"), self.fresh("w")
        body = [Line(f"{w} = {o}.step({self.arr_atom(env)} * 0.5)")]
        if self.rng.random() < 0.5:
            body.append(Line(f"{o}.k = {o}.k * 0.9"))
        if self.rng.random() < 0.4:
            body.append(Block([[f"if {self.test(env, staged=False, strict=True)}:",
                                [Line(f"{o}.v = {o}.v * 0.5 + {w} * 0.5")]]]))
        k = self.rng.choice(["", f", {self.const()}", f", k={self.const()}"])
        # (static trip counts: an attribute store in a loop over a staged range is a
        # located error by design, as in `aug_attr`)
        return [Line(f"{o} = Acc4({self.arr_atom(env)}{k})"),
                Block([[f"for {i} in range({self._trips4(staged_ok=False)}):", body]]),
                Line(f"{v} = {o}.v + {o}.scaled() * 0.1")]

    def s_nt_carry(self, env, depth):
        start = self._start4(env, depth, scalar=True)
        if start is None:
            return None
        v, t = start
        st, i, c = self.fresh("st"), self.fresh("i"), self.fresh("c")
        step = self.rng.choice([
            f"{st} = St4(jnp.tanh({st}.a * 0.9 + {st}.b * 0.1), {st}.b * 0.5 + jnp.sum({st}.a) * 0.1)",
            f"{st} = {st}._replace(a=jnp.sin({st}.a) * 0.8 + {st}.b * 0.2)",
            f"{st} = St4(b=jnp.tanh({st}.b + {st}.a[0] * 0.3), a={st}.a * 0.7)"])
        body = [Line(step)]
        if self.rng.random() < 0.4:
            body.append(Block([[f"if {st}.b > {self.const()}:",
                                [Line(f"{st} = {st}._replace(b={st}.b * 0.5)")]]]))
        if self.rng.random() < 0.7:
            loop = [Block([[f"for {i} in range({self._trips4()}):", body]])]
        else:
            loop = [Line(f"{c} = 0"),
                    Block([[f"while {c} < 3 and {st}.b < 5.0:", body + [Line(f"{c} = {c} + 1")]]])]
        out = (Line(f"{v}, {t} = {st}") if self.rng.random() < 0.5
               else Line(f"{v} = {st}.a + {st}.b * 0.1"))
        return [Line(f"{st} = St4({v}, {t})")] + loop + [out]

    def s_varargs(self, env, depth):
        v = self._start4(env, depth, nested=False)
        a, b = self.arr_atom(env), self.arr_atom(env)
        s = self.sc_atom(env)
        form = self.rng.choice(["splat", "tuple", "nested"])
        if form == "splat":
            return [Line(f'{v} = va4({a}, *[{b}, {v}], scale={self.const()}, **{{"shift": {s}}})')]
        if form == "tuple":
            args, kw = self.fresh("args"), self.fresh("kw")
            return [Line(f"{args} = ({v}, {a})"), Line(f'{kw} = {{"scale": {s}}}'),
                    Line(f"{v} = va4(*{args}, {b}, **{kw})")]
        g, xs, kws, i = self.fresh("g"), self.fresh("xs"), self.fresh("kws"), self.fresh("i")
        return [Block([[f"def {g}(*{xs}, **{kws}):", [
                    Line(f"return sum({xs}) * {kws}.get('k', 0.3) + len({kws}) * 0.1")]]]),
                Block([[f"for {i} in range({self._trips4()}):",
                        [Line(f"{v} = jnp.tanh({g}({v}, {a}, k={s}))")]]])]

    def s_jit_helper(self, env, depth):
        start = self._start4(env, depth, scalar=True)
        if start is None:
            return None
        v, t = start
        i = self.fresh("i")
        form = self.rng.choice(["module", "static", "nested"])
        if form == "module":
            return [Block([[f"for {i} in range({self._trips4()}):",
                            [Line(f"{v} = jh4({v}, {t} * 0.5 + 0.3)")]]])]
        if form == "static":
            return [Block([[f"for {i} in range({self._trips4()}):",
                            [Line(f"{v} = jhs4({v}, {self.rng.choice(['1', '2'])})")]]])]
        g, u = self.fresh("g"), self.fresh("u")
        return [Line(f"@jit4\ndef {g}({u}):\n    return jnp.tanh({u} * 0.8 + {t} * 0.1)"),
                Block([[f"for {i} in range({self._trips4()}):", [Line(f"{v} = {g}({v})")]]])]

    def s_lambda_loop(self, env, depth):
        start = self._start4(env, depth, scalar=True)
        if start is None:
            return None
        v, t = start
        fs, i, h = self.fresh("fs"), self.fresh("i"), self.fresh("h")
        form = self.rng.choice(["comp", "append_default", "append_late"])
        if form == "comp":
            make = [Line(f"{fs} = [lambda u, k={i}: jnp.tanh(u * (k + 1) * 0.3) "
                         f"for {i} in range({self.rng.randint(1, 3)})]")]
        else:
            lam = (f"lambda u, k={i}, c={t}: u * 0.5 + k * c * 0.1" if form == "append_default"
                   else f"lambda u: u * 0.5 + {i} * 0.2")
            make = [Line(f"{fs} = []"),
                    Block([[f"for {i} in range({self.rng.randint(1, 3)}):",
                            [Line(f"{fs}.append({lam})")]]])]
        return make + [Block([[f"for {h} in {fs}:", [Line(f"{v} = jnp.sin({h}({v}))")]]])]

    def s_match_guard(self, env, depth):
        start = self._start4(env, depth, scalar=True)
        if start is None:
            return None
        v, t = start
        if self.rng.random() < 0.5:
            e = self.body_env(env)
            body, _ = self.block(e, depth + 1, n=1)
            return [Block([["match (x.ndim, len(p)):", [
                Block([["case (1, 2) if x.shape[0] > 2:", body + [Line(f"{v} = jnp.tanh({v} * 0.9)")]]]),
                Block([["case (1, _) | (2, _):", [Line(f"{v} = {v} * 0.5")]]]),
                Block([["case _:", [Line(f"{v} = {v} * 0.0")]]])]]])]
        w, b = self.fresh("w"), self.fresh("b")
        guard = self.rng.choice(["", f" if {w}.ndim == 1", f" if {w}.shape[0] == 2"])
        return [Block([[f"match St4({v}, {t}):", [
            Block([[f"case St4(a={w}, b={b}){guard}:", [Line(f"{v} = {w} * 0.5 + jnp.tanh({b}) * 0.3")]]]),
            Block([["case _:", [Line(f"{v} = jnp.sin({v})")]]])]]])]

    def s_where_mask(self, env, depth):
        v = self._start4(env, depth, nested=False)
        a, b = self.arr_atom(env), self.arr_atom(env)
        lo, hi = sorted([self.const(), self.const()], key=float)
        s = self.sc_atom(env)
        mask = self.rng.choice([f"({a} > {lo}) & ({a} < {hi})", f"({a} < {lo}) | ~({b} < {hi})",
                                f"jnp.logical_and({lo} < {a}, {a} <= {hi})",
                                f"~(({a} > {hi}) | ({b} < {lo}))",
                                f"{lo} < {s} < {hi}"])
        return [Line(f"{v} = jnp.where({mask}, {a}, {b} * 0.5)")]
