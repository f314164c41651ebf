"""`jax.experimental.hijax` mutable hi types with quasi-dynamic data (flax's hijax
Variables): a minimal `Cell` type -- a Python object holding a pytree, read and written
by two `HiPrimitive`s, its qdd the tree's structure and leaf types -- passed to `jit`,
`eval_shape` and `grad`. Expected values are real JAX 0.10.2's (the same program run
with `import jax`)."""
import dataclasses

import numpy as np

import astjax as jax
import astjax.numpy as jnp
from astjax.compat import experimental as jexp
from astjax.compat.experimental import hijax as hjx


@dataclasses.dataclass(frozen=True)
class State:
    leaf_avals: tuple
    treedef: object

    def to_tangent_qdd(self):
        return State(tuple(a.to_tangent_aval() for a in self.leaf_avals), self.treedef)

    def normalize(self):
        return State(tuple(a.normalize() for a in self.leaf_avals), self.treedef)


class CellTy(hjx.MutableHiType):
    has_qdd = True

    def __hash__(self):
        return hash(CellTy)

    def __eq__(self, other):
        return isinstance(other, CellTy)

    def str_short(self, short_dtypes=False, **_):
        return "CellTy"

    def lo_ty_qdd(self, st):
        return [t for a in st.leaf_avals for t in a.lo_ty()]

    def new_from_loval(self, st, *vals):
        return Cell._new(jax.tree.unflatten(st.treedef, vals))

    def read_loval(self, st, cell):
        leaves, treedef = jax.tree.flatten(cell_get(cell))
        return leaves

    def update_from_loval(self, st, cell, *vals):
        cell_set(cell, jax.tree.unflatten(st.treedef, vals))

    def to_tangent_aval(self):
        return CellTy()


class Cell:
    @classmethod
    def _new(cls, val):
        c = object.__new__(cls)
        c._val = val
        return c

    def cur_qdd(self):
        leaves, treedef = jax.tree.flatten(self._val)
        return State(tuple(map(jax.typeof, leaves)), treedef)


hjx.register_hitype(Cell, lambda c: CellTy())


class CellGet(hjx.HiPrimitive):
    multiple_results = True

    def abstract_eval(self, ty, *, avals):
        return avals, set()

    def to_lojax(self, cell, *, avals):
        return jax.tree.leaves(cell._val)

    def jvp(self, primals, tangents, *, avals):
        raise NotImplementedError


class CellSet(hjx.HiPrimitive):
    multiple_results = True

    def abstract_eval(self, aval_mqdd, *leaf_avals, treedef):
        aval_mqdd.mutable_qdd.update(State(tuple(leaf_avals), treedef))
        return [], set()

    def to_lojax(self, cell, *leaves, treedef):
        cell._val = jax.tree.unflatten(treedef, leaves)
        return []

    def jvp(self, primals, tangents, *, treedef):
        raise NotImplementedError


cell_get_p, cell_set_p = CellGet("cell_get"), CellSet("cell_set")


def cell_get(c):
    st = jexp.cur_qdd(c)
    return jax.tree.unflatten(st.treedef, cell_get_p.bind(c, avals=st.leaf_avals))


def cell_set(c, v):
    leaves, treedef = jax.tree.flatten(v)
    cell_set_p.bind(c, *leaves, treedef=treedef)


def _val(c):
    return jax.tree.map(lambda a: (jnp.asarray(a).dtype.name, np.asarray(a).tolist()), c._val)


def test_cur_qdd_is_the_values_own():
    c = Cell._new({"a": jnp.float32(1.0)})
    st = jexp.cur_qdd(c)
    assert st.leaf_avals == (jax.typeof(jnp.float32(1.0)),)
    assert jax.typeof(c) == CellTy()


def test_jit_stores_the_final_state_back_and_restages_on_a_new_qdd():
    c = Cell._new({"a": jnp.float32(1.0)})

    @jax.jit
    def f(c, x):
        v = cell_get(c)
        cell_set(c, {"a": v["a"] + x, "b": x * 2})   # the structure changes
        return v["a"] * 10

    assert float(f(c, jnp.float32(3.0))) == 10.0
    assert _val(c) == {"a": ("float32", 4.0), "b": ("float32", 6.0)}
    assert float(f(c, jnp.float32(1.0))) == 40.0
    assert _val(c) == {"a": ("float32", 5.0), "b": ("float32", 2.0)}


def test_jit_same_object_twice_is_two_values_as_in_jax():
    c = Cell._new(jnp.int32(5))

    @jax.jit
    def g(p, q):
        cell_set(p, cell_get(p) + 1)
        return cell_get(q)

    assert int(g(c, c)) == 5      # JAX: q does not see p's write, and q is stored last
    assert _val(c) == ("int32", 5)


def test_eval_shape_leaves_the_value_unchanged():
    c = Cell._new(jnp.zeros((2,), jnp.float32))

    def h(c):
        cell_set(c, cell_get(c) + 1)
        return cell_get(c).sum()

    assert jax.eval_shape(h, c).shape == ()
    assert _val(c) == ("float32", [0.0, 0.0])


def test_grad_non_differentiated_argument_is_stored_back():
    c = Cell._new(jnp.float32(2.0))

    def loss(x, c):
        cell_set(c, jax.lax.stop_gradient(x * 2))
        return x ** 2 + cell_get(c)

    assert float(jax.grad(loss)(jnp.float32(3.0), c)) == 6.0
    assert _val(c) == ("float32", 6.0)
    (v, aux), g = jax.value_and_grad(lambda x, c: (loss(x, c), x), has_aux=True)(
        jnp.float32(1.0), c)
    assert (float(v), float(aux), float(g)) == (3.0, 1.0, 2.0)
    assert _val(c) == ("float32", 2.0)


def test_grad_with_respect_to_a_mutable_value_reaches_the_types_jvp_rule():
    # (JAX's: cell_get's jvp rule, which raises NotImplementedError)
    c = Cell._new(jnp.float32(2.0))
    for g in (jax.grad(lambda c: cell_get(c)), jax.jit(jax.grad(lambda c: cell_get(c)))):
        try:
            g(c)
        except NotImplementedError:
            pass
        else:
            raise AssertionError("no error")
    assert _val(c) == ("float32", 2.0)


class _PassingGet(CellGet):
    def jvp(self, primals, tangents, *, avals):   # (a rule that lets it pass)
        return [], []


def test_grad_with_respect_to_a_mutable_value_past_its_rule_is_a_located_error():
    c = Cell._new(jnp.float32(2.0))
    get = _PassingGet("passing_get")
    try:
        jax.grad(lambda c: get.bind(c, avals=jexp.cur_qdd(c).leaf_avals)[0])(c)
    except TypeError as e:
        assert "mutable hi value" in str(e)
    else:
        raise AssertionError("no error")


def test_writing_a_differentiated_value_reaches_the_types_jvp_rule():
    # (JAX: cell_set's jvp rule raises; flax's and Box's: "did you forget
    # jax.lax.stop_gradient?")
    c = Cell._new(jnp.float32(0.0))

    def loss(x):
        cell_set(c, x * 3)
        return x ** 2

    for t in (jax.grad, lambda f: lambda x: jax.jvp(f, (x,), (x,)),
              lambda f: lambda x: jax.vjp(f, x)):
        try:
            t(loss)(jnp.float32(2.0))
        except NotImplementedError:
            pass
        else:
            raise AssertionError("no error")
        assert _val(c) == ("float32", 0.0)


# ----------------------------------------------- values a function closes over
# (JAX passes them in as implicit arguments: read at every call, stored back after)


def test_jit_reads_a_closed_over_value_at_every_call():
    c = Cell._new(jnp.float32(1.0))

    @jax.jit
    def f(x):
        return x + cell_get(c)

    assert float(f(jnp.float32(1.0))) == 2.0
    cell_set(c, jnp.float32(5.0))
    assert float(f(jnp.float32(1.0))) == 6.0     # not the first call's 1.0


def _jitted_adder(c):
    """A jitted `x -> x` adding `x` to the closed-over cell `c`."""
    @jax.jit
    def add(x):
        cell_set(c, cell_get(c) + x)
        return x
    return add


def test_jit_stores_a_closed_over_value_back():
    c = Cell._new(jnp.float32(5.0))
    g = _jitted_adder(c)
    g(jnp.float32(1.0))
    assert _val(c) == ("float32", 6.0)
    g(jnp.float32(1.0))
    assert _val(c) == ("float32", 7.0)


def test_scan_carries_a_closed_over_value_its_body_writes():
    c = Cell._new(jnp.float32(7.0))

    def body(carry, _):
        cell_set(c, cell_get(c) + 1.0)
        return carry + 1, None

    carry, _ = jax.lax.scan(body, jnp.int32(0), None, length=3)
    assert int(carry) == 3
    assert _val(c) == ("float32", 10.0)

    @jax.jit
    def inside(x):   # the same inside jit (there, the jitted call's argument)
        jax.lax.scan(body, jnp.int32(0), None, length=2)
        return x

    inside(jnp.float32(0.0))
    assert _val(c) == ("float32", 12.0)


def test_grad_stores_a_closed_over_value_back():
    c = Cell._new(jnp.float32(0.0))

    def loss(x):
        cell_set(c, jax.lax.stop_gradient(x * 3))
        return x ** 2 + cell_get(c)

    assert float(jax.grad(loss)(jnp.float32(4.0))) == 8.0
    assert _val(c) == ("float32", 12.0)
    assert float(jax.grad(loss)(jnp.float32(2.0))) == 4.0
    assert _val(c) == ("float32", 6.0)


def test_grad_inside_jit_of_a_value_the_jitted_function_was_passed():
    c = Cell._new(jnp.int32(0))

    @jax.jit
    def step(c, x):
        def loss(x):
            cell_set(c, cell_get(c) + 1)    # (flax: a BatchStat / count in the model)
            return (x * x).sum()
        return jax.grad(loss)(x)

    g = step(c, jnp.ones((2,), jnp.float32))
    assert np.asarray(g).tolist() == [2.0, 2.0]
    assert _val(c) == ("int32", 1)


def test_eval_shape_of_a_function_writing_a_closed_over_value_leaves_it():
    c = Cell._new(jnp.float32(1.0))

    def f(x):
        cell_set(c, cell_get(c) + x)
        return x * cell_get(c)

    assert jax.eval_shape(f, jnp.float32(2.0)).shape == ()
    assert _val(c) == ("float32", 1.0)


def test_nested_jit_of_a_closed_over_value():
    c = Cell._new(jnp.float32(1.0))
    inner = _jitted_adder(c)

    @jax.jit
    def outer(x):
        return inner(x) * 2

    assert float(outer(jnp.float32(1.0))) == 2.0
    assert _val(c) == ("float32", 2.0)
    outer(jnp.float32(1.0))
    assert _val(c) == ("float32", 3.0)     # (not the first staging's, kept)

    d = Cell._new(jnp.float32(1.0))
    inner_r = jax.jit(lambda x: x + cell_get(d))
    outer_r = jax.jit(lambda x: inner_r(x) * 2)
    assert float(outer_r(jnp.float32(1.0))) == 4.0
    cell_set(d, jnp.float32(10.0))
    assert float(outer_r(jnp.float32(1.0))) == 22.0


def test_control_flow_bodies_reading_a_closed_over_value_are_not_kept():
    c = Cell._new(jnp.float32(1.0))

    def body(carry, _):
        return carry + cell_get(c), None

    assert float(jax.lax.scan(body, jnp.float32(0.0), None, length=2)[0]) == 2.0
    cell_set(c, jnp.float32(2.0))    # eager scan: its body staged again
    assert float(jax.lax.scan(body, jnp.float32(0.0), None, length=2)[0]) == 4.0

    def loss(x):
        return x * cell_get(c)

    outer = jax.jit(lambda x: jax.grad(loss)(x))
    assert float(outer(jnp.float32(1.0))) == 2.0
    cell_set(c, jnp.float32(5.0))
    assert float(outer(jnp.float32(1.0))) == 5.0

    def twice(x):   # one body in two scans of one program, the value written between
        x = jax.lax.scan(body, x, None, length=1)[0]
        cell_set(c, cell_get(c) + 1.0)
        return jax.lax.scan(body, x, None, length=1)[0]

    cell_set(c, jnp.float32(1.0))
    assert float(jax.jit(twice)(jnp.float32(0.0))) == 3.0
    assert _val(c) == ("float32", 2.0)


def test_cond_and_while_loop_carry_a_closed_over_value_their_bodies_write():
    c = Cell._new(jnp.float32(1.0))

    def add(x):
        cell_set(c, cell_get(c) + x)
        return x

    def f(x):
        return jax.lax.cond(x > 0, add, lambda x: x, x)

    assert float(jax.jit(f)(jnp.float32(2.0))) == 2.0
    assert _val(c) == ("float32", 3.0)
    jax.jit(f)(jnp.float32(-1.0))     # the other branch: unchanged
    assert _val(c) == ("float32", 3.0)

    def w(x):
        def body(i):
            cell_set(c, cell_get(c) + 1.0)
            return i + 1
        return jax.lax.while_loop(lambda i: i < 3, body, x)

    assert int(jax.jit(w)(jnp.int32(0))) == 3
    assert _val(c) == ("float32", 6.0)
    assert int(w(jnp.int32(1))) == 3      # eager
    assert _val(c) == ("float32", 8.0)


# ------------------------------------------------------------------------ vmap
# (JAX: a closed-over value written an unbatched value stays unbatched)


def _counting(c):
    """`x -> x * (the cell's value after adding 1 to it)`."""
    def body(x):
        cell_set(c, cell_get(c) + 1.0)
        return x * cell_get(c)
    return body


def test_vmap_stores_a_closed_over_value_back():
    c = Cell._new(jnp.float32(1.0))
    f = jax.jit(lambda x: jax.vmap(_counting(c))(x))
    assert np.asarray(f(jnp.ones(2))).tolist() == [2.0, 2.0]
    assert _val(c) == ("float32", 2.0)
    assert np.asarray(f(jnp.ones(2))).tolist() == [3.0, 3.0]
    v = jax.vmap(_counting(c))    # eager
    assert np.asarray(v(jnp.ones(2))).tolist() == [4.0, 4.0]
    cell_set(c, jnp.float32(10.0))
    assert np.asarray(v(jnp.ones(2))).tolist() == [11.0, 11.0]
    assert _val(c) == ("float32", 11.0)
    d = Cell._new(jnp.float32(0.0))
    assert jax.vmap(jax.vmap(_counting(d)))(jnp.ones((2, 3))).shape == (2, 3)
    assert _val(d) == ("float32", 1.0)


def test_vmap_of_an_unmapped_argument_and_under_grad():
    c = Cell._new(jnp.float32(1.0))

    def body(c, x):
        cell_set(c, cell_get(c) + 1.0)
        return x * 2

    out = jax.vmap(body, in_axes=(None, 0))(c, jnp.ones(2))
    assert np.asarray(out).tolist() == [2.0, 2.0]
    assert _val(c) == ("float32", 2.0)

    def loss(x):
        cell_set(c, cell_get(c) + 1.0)
        return x ** 2

    assert np.asarray(jax.vmap(jax.grad(loss))(jnp.arange(3.0))).tolist() == [0.0, 2.0, 4.0]
    assert _val(c) == ("float32", 3.0)
    g = jax.grad(lambda x: jax.vmap(loss)(x).sum())(jnp.arange(3.0))
    assert np.asarray(g).tolist() == [0.0, 2.0, 4.0]
    assert _val(c) == ("float32", 4.0)


def test_vmap_hands_back_an_unmapped_value_it_returns():
    c = Cell._new(jnp.float32(1.0))

    def body(c, x):
        cell_set(c, cell_get(c) + 1.0)
        return c, x * 2

    c2, y = jax.vmap(body, in_axes=(None, 0), out_axes=(None, 0))(c, jnp.ones(2))
    assert c2 is c and np.asarray(y).tolist() == [2.0, 2.0]
    assert _val(c) == ("float32", 2.0)
    c3, _ = jax.vmap(lambda x: (c, x), out_axes=(None, 0))(jnp.ones(2))
    assert c3 is c


def test_vmap_writing_a_batched_value_is_jaxs_not_implemented_error():
    c = Cell._new(jnp.float32(1.0))

    def body(x):
        cell_set(c, cell_get(c) + x)
        return x

    try:   # (JAX: "Batching rule for 'cell_set' not implemented")
        jax.vmap(body)(jnp.ones(2))
    except NotImplementedError as e:
        assert "batched value" in str(e)
    else:
        raise AssertionError("no error")
    assert _val(c) == ("float32", 1.0)


# --------------------------------------------------------- jvp / vjp / linearize
# (the final states leave as JAX's effects do: stored back after the forward pass)


def _adding(c):
    """`x -> x * (the cell's value after adding x to it, not differentiated)`."""
    def f(x):
        cell_set(c, cell_get(c) + jax.lax.stop_gradient(x))
        return x * cell_get(c)
    return f


def test_jvp_stores_a_closed_over_value_back():
    c = Cell._new(jnp.float32(0.0))
    p, t = jax.jvp(_adding(c), (jnp.float32(2.0),), (jnp.float32(1.0),))
    assert (float(p), float(t), _val(c)) == (4.0, 2.0, ("float32", 2.0))
    j = jax.jit(lambda x: jax.jvp(_adding(c), (x,), (jnp.float32(1.0),)))
    assert [float(v) for v in j(jnp.float32(1.0))] == [3.0, 3.0]
    assert [float(v) for v in j(jnp.float32(1.0))] == [4.0, 4.0]
    assert _val(c) == ("float32", 4.0)
    (p, t, aux) = jax.jvp(lambda x: (_adding(c)(x), x + 1), (jnp.float32(1.0),),
                          (jnp.float32(1.0),), has_aux=True)
    assert (float(p), float(aux), _val(c)) == (5.0, 2.0, ("float32", 5.0))


def test_vjp_and_linearize_store_a_closed_over_value_back():
    c = Cell._new(jnp.float32(4.0))
    y, pb = jax.vjp(_adding(c), jnp.float32(1.0))
    assert _val(c) == ("float32", 5.0)   # (after the forward pass)
    assert (float(y), float(pb(jnp.float32(1.0))[0])) == (5.0, 5.0)
    k = jax.jit(lambda x: jax.vjp(_adding(c), x)[1](jnp.float32(1.0))[0])
    assert float(k(jnp.float32(1.0))) == 6.0
    assert float(k(jnp.float32(1.0))) == 7.0
    y, pb, aux = jax.vjp(lambda x: (_adding(c)(x), x), jnp.float32(1.0), has_aux=True)
    assert (float(y), float(aux), _val(c)) == (8.0, 1.0, ("float32", 8.0))
    y, lin = jax.linearize(_adding(c), jnp.float32(1.0))
    assert (float(y), float(lin(jnp.float32(1.0)))) == (9.0, 9.0)
    assert _val(c) == ("float32", 9.0)


# ------------------------------------------------------ custom_jvp / custom_vjp
# (JAX runs the rule only, under differentiation: one write per call)


def _custom(c, kind):
    """A custom_jvp / custom_vjp `x -> x * x * (the cell's value after adding 1)`."""
    def f(x):
        cell_set(c, cell_get(c) + 1.0)
        return x * x * cell_get(c)
    if kind == "jvp":
        f = jax.custom_jvp(f)
        f.defjvp(lambda p, t: (f(p[0]), 2 * p[0] * t[0]))
    else:
        f = jax.custom_vjp(f)
        f.defvjp(lambda x: (f(x), x), lambda x, g: (2 * x * g,))
    return f


def test_custom_rules_store_a_closed_over_value_back():
    for kind in ("jvp", "vjp"):
        c = Cell._new(jnp.float32(1.0))
        f = _custom(c, kind)
        assert float(f(jnp.float32(3.0))) == 18.0
        assert float(jax.grad(f)(jnp.float32(3.0))) == 6.0
        assert float(jax.grad(f)(jnp.float32(3.0))) == 6.0
        assert _val(c) == ("float32", 4.0), kind
    c = Cell._new(jnp.float32(1.0))
    t = jax.jvp(_custom(c, "jvp"), (jnp.float32(3.0),), (jnp.float32(3.0),))[1]
    assert (float(t), _val(c)) == (18.0, ("float32", 2.0))


def test_custom_vjp_with_nondiff_arguments_stores_a_closed_over_value_back():
    import functools
    c = Cell._new(jnp.float32(1.0))

    @functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
    def f(k, x):
        cell_set(c, cell_get(c) + k)
        return x * k, x

    f.defvjp(lambda k, x: (f(k, x), x), lambda k, x, g: (g[0] * k + g[1],))
    assert float(jax.grad(lambda x: f(2.0, x)[0] + f(3.0, x)[1])(jnp.float32(1.0))) == 3.0
    assert _val(c) == ("float32", 6.0)
    y, pb = jax.vjp(lambda x: f(2.0, x), jnp.float32(1.0))
    assert float(pb((jnp.float32(1.0), jnp.float32(1.0)))[0]) == 3.0
    assert _val(c) == ("float32", 8.0)


# ------------------------------------------------------------------ checkpoint
# (JAX 0.10.2 raises on these -- "Too many leaves for PyTreeDef" eagerly, a ValueError
# under jit --; astjax carries the value as jit does)


def test_checkpoint_stores_a_closed_over_value_back():
    c = Cell._new(jnp.float32(1.0))

    @jax.checkpoint
    def f(x):
        cell_set(c, cell_get(c) + 1.0)
        return x * x

    assert float(f(jnp.float32(3.0))) == 9.0
    assert _val(c) == ("float32", 2.0)
    assert float(jax.jit(f)(jnp.float32(3.0))) == 9.0
    assert _val(c) == ("float32", 3.0)
    assert float(jax.grad(f)(jnp.float32(3.0))) == 6.0   # (no tangent for the state)


def test_checkpoint_reads_a_closed_over_value_at_every_call():
    c = Cell._new(jnp.float32(2.0))
    g = jax.checkpoint(lambda y: y * cell_get(c))
    f = jax.jit(lambda x: g(x))
    assert float(f(jnp.float32(1.0))) == 2.0
    cell_set(c, jnp.float32(5.0))
    assert float(f(jnp.float32(1.0))) == 5.0     # (not the first program's constant)
    assert float(g(jnp.float32(1.0))) == 5.0
    cell_set(c, jnp.float32(7.0))
    assert float(g(jnp.float32(1.0))) == 7.0
    assert float(jax.grad(g)(jnp.float32(1.0))) == 7.0
