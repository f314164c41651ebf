"""The extension API (`astjax.extend`, `astjax.interpreters`): a primitive defined the
way equinox and other libraries define theirs works eagerly and under `jit`,
`grad`, `vmap` and `astjax.source`."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import NotImplementedInAstjaxError
from astjax.extend.core import Primitive, ShapedArray, mapped_aval, unmapped_aval
from astjax.interpreters import ad, batching, mlir, partial_eval as pe
from astjax.extend import linear_util as lu

scale_p = Primitive("test_scale")


def _scale_impl(x, *, k):
    return x * k


scale_p.def_impl(_scale_impl)
scale_p.def_abstract_eval(lambda x, *, k: ShapedArray(x.shape, x.dtype))
ad.primitive_jvps[scale_p] = lambda primals, tangents, *, k: (
    scale_p.bind(primals[0], k=k), scale_p.bind(ad.instantiate_zeros(tangents[0]), k=k))
ad.primitive_transposes[scale_p] = lambda ct, x, *, k: [scale_p.bind(ct, k=k)]
batching.primitive_batchers[scale_p] = lambda args, dims, *, k: (scale_p.bind(args[0], k=k),
                                                                 dims[0])
mlir.register_lowering(scale_p, mlir.lower_fun(_scale_impl, multiple_results=False))

# equinox's `unvmap_any`: several results, a lowering made from the impl by
# `mlir.lower_fun` (as equinox registers it), an axis batching rule
any_p = Primitive("test_unvmap_any")
any_p.multiple_results = True
any_p.def_impl(lambda x: [jnp.any(x)])
any_p.def_abstract_eval(lambda x: [ShapedArray((), np.bool_)])
mlir.register_lowering(any_p, mlir.lower_fun(lambda x: [jnp.any(x)], multiple_results=True))

# an impl and no lowering: eager calls run, `jit` raises JAX's NotImplementedError
twice_p = Primitive("test_twice_no_lowering")
twice_p.def_impl(lambda x: 2 * x)
twice_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
batching.fancy_primitive_batchers[any_p] = lambda axis, args, dims: (
    any_p.bind(args[0]), [batching.not_mapped])


def _loss(x):
    return jnp.sum(jnp.sin(scale_p.bind(x, k=3.0)))


def test_eager_jit_grad_vmap():
    x = jnp.array([0.1, 0.2, 0.3])
    want = np.sum(np.sin(3 * np.asarray(x)))
    np.testing.assert_allclose(_loss(x), want, rtol=1e-6)
    np.testing.assert_allclose(astjax.jit(_loss)(x), want, rtol=1e-6)
    np.testing.assert_allclose(astjax.grad(_loss)(x), 3 * np.cos(3 * np.asarray(x)), rtol=1e-6)
    xs = jnp.stack([x, 2 * x])
    np.testing.assert_allclose(astjax.vmap(_loss)(xs), [want, np.sum(np.sin(6 * np.asarray(x)))],
                               rtol=1e-6)
    g = astjax.jit(astjax.vmap(astjax.grad(_loss)))(xs)
    np.testing.assert_allclose(g[1], 3 * np.cos(6 * np.asarray(x)), rtol=1e-6)
    assert "test_scale[k=3.0]" in str(astjax.make_jaxpr(_loss)(x))


def test_printed_source_runs():
    x = jnp.array([0.1, 0.2, 0.3])
    src = astjax.source(astjax.grad(_loss), x)
    assert "test_scale.bind(" in src
    f = astjax.source_function(astjax.grad(_loss), x)
    np.testing.assert_allclose(f(x), astjax.grad(_loss)(x), rtol=1e-6)


def test_multiple_results_impl_lowering_and_axis_batcher():
    x = jnp.array([0.0, 1.0])
    assert bool(any_p.bind(x)[0]) and not bool(astjax.jit(lambda v: any_p.bind(v)[0])(x * 0))
    out = astjax.vmap(lambda v: any_p.bind(v)[0])(jnp.array([[0.0, 0.0], [0.0, 1.0]]))
    # unmapped: `any` over the whole batch (what equinox relies on), broadcast by vmap
    np.testing.assert_array_equal(out, [True, True])


def test_no_lowering_under_jit_is_jax_error():
    np.testing.assert_allclose(twice_p.bind(jnp.ones(2)), [2.0, 2.0])

    def f(x):
        return twice_p.bind(x) + 1.0
    with pytest.raises(NotImplementedError) as info:
        astjax.jit(f)(jnp.ones(2))
    assert type(info.value) is NotImplementedError   # JAX's exact class (its docs test it)
    assert str(info.value) == ("MLIR translation rule for primitive 'test_twice_no_lowering' "
                               "not found for platform cpu")
    # located at the equation, by a note
    assert "return twice_p.bind(x) + 1.0" in "\n".join(info.value.__notes__)


def test_rule_tables_are_views():
    assert scale_p in ad.primitive_jvps and scale_p in ad.primitive_transposes
    assert scale_p.linear and batching.primitive_batchers[scale_p] is not None
    assert ad.is_undefined_primal(ad.UndefinedPrimal(ShapedArray((), np.float32)))
    with pytest.raises(KeyError):
        ad.primitive_transposes[any_p]
    assert any(p.name == "sin" for p in ad.primitive_jvps)


def test_jax_mlir_style_rule_runs():
    """A rule written against JAX's MLIR values (here: returning its operand) runs
    (codegen/mlir_builders.py; tests/test_mlir_builders.py has more)."""
    p = Primitive("test_mlir_style")
    p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(p, lambda ctx, x: [x])
    np.testing.assert_allclose(astjax.jit(lambda x: p.bind(x))(jnp.ones(2)), [1.0, 1.0])


def test_avals_and_partial_eval():
    a = ShapedArray((4, 3), np.float32)
    assert mapped_aval(4, 0, a) == ShapedArray((3,), np.float32)
    assert unmapped_aval(5, 1, a) == ShapedArray((4, 5, 3), np.float32)
    f = lu.wrap_init(lambda x, y: [x * y + 1.0])
    jaxpr, out_pvals, consts = pe.trace_to_jaxpr_nounits(
        f, [pe.PartialVal.unknown(ShapedArray((2,), np.float32)), pe.PartialVal.known(2.0)])
    assert len(jaxpr.invars) == 1 and out_pvals[0].get_aval().shape == (2,)


# ---- what haiku reads from jax.extend at import (issue 16)

def test_lu_transformation_runs_the_generator_around_the_function():
    @lu.transformation
    def doubled_inputs_plus(c, *xs):
        out = yield [2 * x for x in xs], {}
        yield out + c

    f = doubled_inputs_plus(lu.wrap_init(lambda a, b, scale: (a - b) * scale,
                                         {"scale": 10}), 1)
    assert f.call_wrapped(3, 1) == (6 - 2) * 10 + 1
    assert isinstance(f, lu.WrappedFun)


def test_trace_context_round_trip_and_refusal():
    from astjax.extend import core as xc

    assert xc.TraceTag() != xc.TraceTag()

    @astjax.jit
    def f(x):
        with xc.take_current_trace() as t:
            with xc.set_current_trace(t):  # re-entering the current context is fine
                same = t == xc.get_opaque_trace_state()
        return x + 1 if same else x

    np.testing.assert_allclose(f(1.0), 2.0)

    class MyTrace(xc.Trace):
        pass

    with pytest.raises(NotImplementedInAstjaxError, match="only a Trace subclass"):
        with xc.set_current_trace(xc.TraceTag()):
            pass
    with pytest.raises(NotImplementedError, match="process_primitive"):
        MyTrace().process_primitive(None, [], {})


def _recording_trace():
    """A library's `Trace` that records each primitive it receives and re-binds it on
    its parent, and its tracer type (haiku's `DotTrace` / `DotTracer`, in small):
    (Boxed, Recorder, the names seen)."""
    from astjax.extend import core as xc
    seen = []

    class Boxed(astjax.core.Tracer):
        def __init__(self, trace, val):
            super().__init__(trace, astjax.typeof(val))
            self.val = val

    class Recorder(xc.Trace):
        def __init__(self, parent):
            super().__init__()
            self.parent = parent

        def process_primitive(self, prim, tracers, params):
            seen.append(str(prim))
            vals = [t.val if isinstance(t, Boxed) else t for t in tracers]
            out = prim.bind_with_trace(self.parent, vals, [astjax.typeof(v) for v in vals],
                                       params)
            return [Boxed(self, o) for o in out] if prim.multiple_results else Boxed(self, out)
    return Boxed, Recorder, seen


def _recorded(f, x):
    """`f(x)` with a library's `Trace` current around `lax.mul(lax.sin(b), b)` and a
    `lax.scan` closing over its result (`b`: x boxed as one of the trace's tracers, as
    haiku's `to_dot` boxes its inputs): the values and the primitives the trace saw."""
    from astjax.extend import core as xc
    Boxed, Recorder, seen = _recording_trace()

    def run(x):
        with xc.take_current_trace() as parent:
            t = Recorder(parent)
            with xc.set_current_trace(t):
                b = Boxed(t, x)
                y = lax.mul(lax.sin(b), b)
                z = lax.scan(lambda c, _: (lax.cos(c) + y, None), b, length=2)[0]
        return y.val, z.val
    return [float(v) for v in f(run)(x)], seen


@pytest.mark.parametrize("how", ["eager", "jit"])
def test_a_library_trace_receives_each_primitive(how):
    """A `Trace` subclass made current with `set_current_trace` gets every `bind`
    (`process_primitive`) and re-binds on its parent with `bind_with_trace`; a body
    staged inside (the scan's, closing over the trace's tracer) reaches it as one
    equation -- haiku's `experimental.to_dot` / `abstract_to_dot`. JAX 0.10.2 gives
    these values and names, eagerly and under `jit`."""
    wrap = (lambda g: g) if how == "eager" else astjax.jit
    values, seen = _recorded(wrap, np.float32(1.0))
    np.testing.assert_allclose(values, [0.8414709568023682, 1.0293704271316528], rtol=1e-6)
    assert seen == ["sin", "mul", "scan"]


def test_jaxpr_eqn_and_drop_var_names():
    from astjax.extend import core as xc

    cj = astjax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0)
    assert all(isinstance(e, xc.JaxprEqn) for e in cj.jaxpr.eqns)
    assert not any(isinstance(v, xc.DropVar) for e in cj.jaxpr.eqns for v in e.outvars)


def test_a_library_trace_receives_a_library_primitive_eagerly():
    """Outside any staging, a library's own primitive goes to the current `Trace` too
    (it ran its impl past it); JAX 0.10.2 records it and gives 6.0."""
    from astjax.extend import core as xc
    Boxed, Recorder, seen = _recording_trace()
    p = Primitive("eqx10_double")
    p.def_impl(lambda x: 2 * x)
    p.def_abstract_eval(lambda x: x)

    with xc.take_current_trace() as parent:
        t = Recorder(parent)
        with xc.set_current_trace(t):
            y = p.bind(Boxed(t, np.float32(3.0)))
    assert float(y.val) == 6.0
    assert seen == ["eqx10_double"]
