"""Mutable hi values (flax's hijax Variables) through `vmap`, `checkpoint`, `custom_jvp`,
`jvp` / `vjp` and loops under `grad`: the cases flax's nnx transforms reach. The `Cell`
type of `test_hijax_qdd` stands in for flax's `HijaxVariable`; `Var` adds what flax's
adds (an `aval` forwarded to its contents, `__jax_array__`, a hi primitive making new
ones). Expected values are real JAX 0.10.2's where JAX runs the program (flax's programs
in each test's comment), else Python's."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.compat.experimental import hijax as hjx
from test_hijax_qdd import Cell, CellTy, _val, cell_get, cell_set


class Var(Cell):
    """A cell that, as flax's HijaxVariable, forwards `aval` to its contents and
    converts to them (`__jax_array__`)."""

    @property
    def aval(self):
        return jax.typeof(self._val)

    def __jax_array__(self):
        return cell_get(self)


class VarTy(CellTy):
    def __hash__(self):
        return hash(VarTy)

    def __eq__(self, other):
        return isinstance(other, VarTy)

    def new_from_loval(self, st, *vals):
        return Var._new(jax.tree.unflatten(st.treedef, vals))


hjx.register_hitype(Var, lambda c: VarTy())


class VarNew(hjx.HiPrimitive):
    """A new `Var` holding the array operand (flax's `new_variable`)."""

    def abstract_eval(self, aval):
        raise NotImplementedError

    def to_lojax(self, x):
        return Var._new(x)


var_new_p = VarNew("var_new")


def _var(x):
    return var_new_p.bind(jnp.asarray(x))


# --------------------------------------------------------------------------- vmap


def test_vmap_passes_an_unmapped_value_that_forwards_aval_as_it_is():
    # flax: nnx.vmap(lambda m, x: m(x), in_axes=(None, 0)) of a module with hijax
    # Variables (JAX: [[1, 1, 1], [1, 1, 1]], the counter 1.0)
    w = Var._new(jnp.ones(3))

    def f(w, x):
        cell_set(w, cell_get(w) + 1.0)
        return x * cell_get(w)

    out = jax.vmap(f, in_axes=(None, 0))(w, jnp.ones((2, 3)))
    assert np.asarray(out).tolist() == [[2.0] * 3] * 2
    assert _val(w) == ("float32", [2.0] * 3)


def test_vmap_raises_a_new_value_it_returns_from_its_arrays():
    # flax's nnx.vmap returns new hijax Variables for the module's state: no staged
    # value may leak into them
    w = Var._new(jnp.ones(3))

    def f(w, x):
        cell_set(w, cell_get(w) + 1.0)
        return _var(cell_get(w) * 2), x * cell_get(w)

    vf = jax.vmap(f, in_axes=(None, 0), out_axes=(None, 0))
    new, y = vf(w, jnp.ones((2, 3)))
    assert type(new) is Var and new is not w
    assert np.asarray(y).tolist() == [[2.0] * 3] * 2
    assert _val(new) == ("float32", [4.0] * 3) and _val(w) == ("float32", [2.0] * 3)

    def g(w, x):
        new, y = vf(w, x)
        return y + cell_get(new)

    assert np.asarray(jax.jit(g)(w, jnp.ones((2, 3)))).tolist() == [[9.0] * 3] * 2
    assert _val(w) == ("float32", [3.0] * 3)
    new, _ = jax.vmap(lambda x: (_var(x), x), out_axes=(0, 0))(jnp.arange(3.0))
    assert _val(new) == ("float32", [0.0, 1.0, 2.0])


def test_vmap_of_a_mapped_value_is_a_located_not_implemented_error():
    w = Var._new(jnp.ones((2, 3)))
    with pytest.raises(NotImplementedError, match="vmap maps"):
        jax.vmap(lambda w: cell_get(w) * 2)(w)
    assert _val(w) == ("float32", [[1.0] * 3] * 2)


# ------------------------------------------------- jvp / vjp / linearize primals


def _primal_transforms():
    return {"jvp": lambda f, c: jax.jvp(f, (c,), (c,)), "vjp": jax.vjp,
            "linearize": jax.linearize}


def test_a_hi_primal_reaches_the_types_jvp_rule():
    # (JAX: NotImplementedError from the rule; flax's: "jvp not implemented for
    # 'get_variable' with QDD")
    c = Cell._new(jnp.float32(2.0))
    for name, t in _primal_transforms().items():
        with pytest.raises(NotImplementedError):
            t(lambda c: cell_get(c) * 2, c)
        with pytest.raises(NotImplementedError):
            t(lambda c: cell_set(c, cell_get(c) * 2), c)
        assert _val(c) == ("float32", 2.0), name


def test_a_hi_primal_past_its_rule_is_a_located_error():
    from test_hijax_qdd import _PassingGet
    get = _PassingGet("passing_get2")
    c = Cell._new(jnp.float32(2.0))
    for name, t in _primal_transforms().items():
        with pytest.raises(TypeError, match=f"{name} primal 0 holds a mutable hi value"):
            t(lambda c: get.bind(c, avals=(jax.typeof(c._val),))[0] * 2, c)


# ------------------------------------------------- loop bodies under grad


def _loops(c, write):
    """Functions of x writing `write(x-derived value)` into `c` in a loop body or branch."""
    def scan(x):
        def body(k, _):
            cell_set(c, cell_get(c) + write(k))
            return k, None
        return jax.lax.scan(body, x, None, length=3)[0]

    def fori(x):
        def body(i, k):
            cell_set(c, cell_get(c) + write(k))
            return k
        return jax.lax.fori_loop(0, 3, body, x)

    def while_(x):
        def body(s):
            cell_set(c, cell_get(c) + write(s[1]))
            return s[0] + 1, s[1]
        return jax.lax.while_loop(lambda s: s[0] < 3, body, (0, x))[1]

    def cond(x):
        def t(x):
            cell_set(c, cell_get(c) + write(x))
            return x
        return jax.lax.cond(x > 0, t, lambda x: x, x)

    return {"scan": scan, "fori_loop": fori, "while_loop": while_, "cond": cond}


def test_writing_a_perturbed_value_in_a_loop_body_reaches_the_types_jvp_rule():
    # (JAX: the rule raises -- flax's: AttributeError: 'Zero' object has no attribute
    # '_raw_value' -- also under jit)
    c = Cell._new(jnp.float32(1.0))
    for name, f in _loops(c, lambda k: k).items():
        for g in (jax.grad(f), jax.jit(jax.grad(f))):
            with pytest.raises(NotImplementedError):
                g(jnp.float32(2.0))
            assert _val(c) == ("float32", 1.0), name


def test_writing_an_unperturbed_value_in_a_loop_body_under_grad():
    c = Cell._new(jnp.float32(1.0))
    for name, f in _loops(c, lambda k: jax.lax.stop_gradient(k) * 0 + 1.0).items():
        before = _val(c)[1]
        assert float(jax.grad(lambda x: f(x) * x)(jnp.float32(2.0))) == 4.0, name
        assert _val(c)[1] == before + (1.0 if name == "cond" else 3.0), name


# ------------------------------------------------------- custom_jvp under vmap


def _custom_counting(c):
    """x -> x * x, adding 1 to the cell: a custom_jvp function."""
    @jax.custom_jvp
    def f(x):
        cell_set(c, cell_get(c) + 1.0)
        return x * x
    f.defjvp(lambda p, t: (f(p[0]), 2 * p[0] * t[0]))
    return f


def test_custom_jvp_closing_over_a_value_under_vmap():
    # (JAX: [0, 1, 4] and the cell 2.0; under vmap(grad): [0, 2, 4], 3.0)
    c = Cell._new(jnp.float32(1.0))
    f = _custom_counting(c)
    assert np.asarray(jax.vmap(f)(jnp.arange(3.0))).tolist() == [0.0, 1.0, 4.0]
    assert _val(c) == ("float32", 2.0)
    assert np.asarray(jax.vmap(jax.grad(f))(jnp.arange(3.0))).tolist() == [0.0, 2.0, 4.0]
    assert _val(c) == ("float32", 3.0)
    assert np.asarray(jax.jit(jax.vmap(f))(jnp.arange(3.0))).tolist() == [0.0, 1.0, 4.0]
    assert _val(c) == ("float32", 4.0)


def test_custom_jvp_output_of_unmapped_operands_is_unmapped_under_vmap():
    # (JAX: [0, 2, 4], 4.0; the derivative 5.0)
    @jax.custom_jvp
    def f(x, y):
        return x * y, y * 2.0
    f.defjvp(lambda p, t: (f(*p), (t[0] * p[1] + p[0] * t[1], 2.0 * t[1])))
    a, b = jax.vmap(f, in_axes=(0, None), out_axes=(0, None))(jnp.arange(3.0), 2.0)
    assert np.asarray(a).tolist() == [0.0, 2.0, 4.0] and float(b) == 4.0
    gy = jax.grad(lambda y: jax.vmap(f, (0, None), (0, None))(jnp.arange(3.0), y)[1] +
                  jax.vmap(f, (0, None))(jnp.arange(3.0), y)[0].sum())(2.0)
    assert float(gy) == 5.0


# -------------------------------------------------------- checkpoint arguments


def test_checkpoint_of_a_value_passed_as_an_argument():
    # (JAX 0.10.2 fails: an AttributeError from the type's rules; astjax runs it as
    # Python does, the final state stored back)
    c = Cell._new(jnp.float32(2.0))

    @jax.checkpoint
    def f(c, x):
        cell_set(c, cell_get(c) + 1.0)
        return x * cell_get(c)

    assert float(f(c, jnp.float32(3.0))) == 9.0 and _val(c) == ("float32", 3.0)
    assert float(jax.jit(f)(c, jnp.float32(3.0))) == 12.0 and _val(c) == ("float32", 4.0)
    assert float(jax.grad(lambda x: f(c, x))(jnp.float32(3.0))) == 5.0
    assert _val(c) == ("float32", 5.0)
    g = jax.checkpoint(lambda x, c: x * cell_get(c), static_argnums=())
    assert float(jax.grad(g)(jnp.float32(3.0), c)) == 5.0 and _val(c) == ("float32", 5.0)
    h = jax.checkpoint(lambda n, c, x: x * cell_get(c) * n, static_argnums=(0,))
    assert float(jax.jit(h, static_argnums=0)(2, c, jnp.float32(1.0))) == 10.0


def test_jnp_functions_convert_a_hi_value_with_jax_array():
    # (flax's FLAX_HIJAX_VARIABLE mode: `jnp.dot(x, self.w)` of a hijax Param; JAX's
    # jitted jnp functions convert it with its `__jax_array__`)
    w = Var._new(jnp.ones((3, 2)))
    assert np.asarray(jnp.dot(jnp.ones(3), w)).tolist() == [3.0, 3.0]
    assert np.asarray(jnp.sin(Var._new(jnp.zeros(2)))).tolist() == [0.0, 0.0]
