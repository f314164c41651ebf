"""Cases for the rarer names of `jax.sharding` (`AbstractDevice`, `use_abstract_mesh`,
`make_single_device_sharding`), `jax.stages.Wrapped`, `jax.extend.backend` /
`lowering` / `mlir` and `jax.interpreters.xla.apply_primitive`, with a recorder of what JAX prints or raises (see
README.md): `/work/jaxref/bin/python tests/oracle/record_more_names.py` writes
more_names.json. Each case takes the `jax` module and returns a string."""
import functools
import json
import sys
from pathlib import Path


def _err(thunk):
    """'Class: message' of what `thunk` raises: the builtin class it derives from
    (astjax's errors are also JAX's builtin class) and the message without astjax's
    location and hint lines."""
    try:
        thunk()
    except Exception as e:  # noqa: BLE001 - the recorded outcome is the class and message
        builtin = next(c for c in type(e).__mro__ if c.__module__ in ("builtins", "dataclasses"))
        return f"{builtin.__name__}: {getattr(e, 'message', None) or e}"
    return "no error"


def _device(j):
    return j.sharding.AbstractDevice(device_kind="cpu", num_cores=None, platform="cpu")


def _abstract(j, sizes, names, explicit=True, device=True):
    s = j.sharding
    types = (s.AxisType.Explicit if explicit else s.AxisType.Auto,) * len(names)
    return s.AbstractMesh(sizes, names, types, abstract_device=_device(j) if device else None)


def _inside(j, mesh, abstract):
    """get_abstract_mesh() / get_mesh() inside use_abstract_mesh under `mesh`."""
    s = j.sharding
    with j.set_mesh(mesh):
        with s.use_abstract_mesh(abstract):
            seen = s.get_abstract_mesh()
            names = s.get_mesh().axis_names
        after = s.get_abstract_mesh()
    return f"{seen!r} | {names} | {after.axis_names}"


def _nested(j):
    s = j.sharding
    outer, inner = _abstract(j, (2, 2), ("a", "b")), _abstract(j, (4,), ("c",), explicit=False)
    with s.use_abstract_mesh(outer):
        with s.use_abstract_mesh(inner):
            seen = s.get_abstract_mesh()
        back = s.get_abstract_mesh()
    return f"{seen!r} | {back!r} | {s.get_abstract_mesh()!r}"


def _double(x):
    return x * 2


class _Stager:
    """Something with the three methods of `jax.stages.Wrapped` (a structural match)."""

    def __call__(self, x):
        return x

    def trace(self, x):
        return x

    def lower(self, x):
        return x


def _wrapped(j):
    w = j.stages.Wrapped
    return str([isinstance(obj, w) for obj in (
        j.jit(_double), _double, j.grad(_double), j.jit(_double).trace(1.0), _Stager(),
        j.jit(_double, static_argnums=0))])


def _affine_primitive(j):
    """A library-style primitive: impl `xla.apply_primitive`, a `lower_fun` lowering."""
    p = j.extend.core.Primitive("affine_more_names")
    p.def_impl(functools.partial(j.interpreters.xla.apply_primitive, p))
    p.def_abstract_eval(lambda a: a)
    j.interpreters.mlir.register_lowering(
        p, j.interpreters.mlir.lower_fun(lambda x: x * 2.0 + 1.0, multiple_results=False))
    return p


def _apply_primitive(j):
    import numpy as np
    p, x = _affine_primitive(j), np.arange(3, dtype=np.float32)
    eager = p.bind(x)
    staged = j.jit(lambda v: p.bind(v) - 1.0)(x)
    direct = j.interpreters.xla.apply_primitive(j.lax.mul_p, x, np.float32(3))
    return str([np.asarray(eager).tolist(), np.asarray(staged).tolist(),
                np.asarray(direct).tolist(), str(np.asarray(direct).dtype)])


def _builder_rule(j):
    """A lowering rule written with `jax.extend.mlir`'s op builders (x * x + x)."""
    import numpy as np
    hlo = j.extend.mlir.dialects.stablehlo
    p = j.extend.core.Primitive("square_plus_more_names")
    p.def_impl(functools.partial(j.interpreters.xla.apply_primitive, p))
    p.def_abstract_eval(lambda a: a)
    j.interpreters.mlir.register_lowering(
        p, lambda ctx, x: [hlo.AddOp(hlo.MulOp(x, x).result, x).result])
    x = np.array([1.0, -2.0, 3.0], np.float32)
    return str([np.asarray(p.bind(x)).tolist(), np.asarray(j.jit(p.bind)(x)).tolist(),
                isinstance(j.extend.mlir.ir.F32Type.get(context=j.extend.mlir.ir.Context()),
                           j.extend.mlir.ir.Type)])


def _portable_artifact(j):
    """serialize_portable_artifact / deserialize_portable_artifact round trip."""
    import numpy as np
    text = j.jit(lambda v: v + 1.0).lower(np.float32(1)).as_text()
    m = j.extend.mlir
    blob = m.serialize_portable_artifact(text, "1.0.0")
    with m.ir.Context():
        back = m.deserialize_portable_artifact(blob)
    return str([type(blob).__name__, type(back).__name__, "stablehlo.add" in str(back)])


def _backend(j):
    b = j.extend.backend
    return str([b.get_backend().platform, list(b.backends()), b.get_backend("cpu") is b.get_backend(),
                b.get_backend(b.get_backend()) is b.get_backend(),
                b.get_default_device() == j.devices()[0], b.backend_xla_version()])


def _mesh(j, shape, names):
    return j.make_mesh(shape, names, devices=j.devices()[:4])


CASES = [
    ("device_repr", lambda j: repr(_device(j))),
    ("device_eq", lambda j: str((_device(j) == j.sharding.AbstractDevice("cpu", None, "cpu"),
                                 hash(_device(j)) == hash(j.sharding.AbstractDevice("cpu", None, "cpu")),
                                 _device(j) == j.sharding.AbstractDevice("tpu", 1, "tpu")))),
    ("device_frozen", lambda j: _err(lambda: setattr(_device(j), "platform", "gpu"))),
    ("abstract_repr", lambda j: repr(_abstract(j, (2, 2), ("x", "y")))),
    ("abstract_no_device", lambda j: repr(_abstract(j, (4,), ("x",), device=False))),
    ("abstract_device_attr", lambda j: repr(_abstract(j, (2,), ("x",)).abstract_device)),
    ("mesh_abstract_device", lambda j: repr(_mesh(j, (2, 2), ("x", "y")).abstract_mesh.abstract_device)),
    ("mesh_abstract_eq", lambda j: str(_mesh(j, (4,), ("x",)).abstract_mesh
                                       == _abstract(j, (4,), ("x",)))),
    ("outside", lambda j: repr(j.sharding.get_abstract_mesh())),
    ("use_outside", lambda j: _nested(j)),
    ("use_inside_mesh", lambda j: _inside(j, _mesh(j, (2, 2), ("x", "y")),
                                          _abstract(j, (4,), ("z",), explicit=False))),
    ("use_empty_inside_mesh", lambda j: _inside(j, _mesh(j, (4,), ("x",)),
                                                j.sharding.AbstractMesh((), ()))),
    ("use_size_change", lambda j: _err(lambda: _inside(j, _mesh(j, (2, 2), ("x", "y")),
                                                       _abstract(j, (2,), ("x",))))),
    ("use_concrete", lambda j: _err(lambda: j.sharding.use_abstract_mesh(_mesh(j, (4,), ("x",))))),
    ("use_restored_after_error", lambda j: (_err(lambda: _inside(
        j, _mesh(j, (4,), ("x",)), _abstract(j, (2,), ("x",)))) and
        repr(j.sharding.get_abstract_mesh()))),
    ("single_device", lambda j: repr(j.sharding.make_single_device_sharding(j.devices()[1]))),
    ("single_device_kind", lambda j: repr(j.sharding.make_single_device_sharding(
        j.devices()[0], memory_kind="device"))),
    ("single_device_positional", lambda j: _err(
        lambda: j.sharding.make_single_device_sharding(j.devices()[0], "device"))),
    ("wrapped_isinstance", _wrapped),
    ("wrapped_instantiate", lambda j: _err(j.stages.Wrapped)),
    ("wrapped_subclass", lambda j: str(issubclass(_Stager, j.stages.Wrapped))),
    ("apply_primitive", _apply_primitive),
    ("backend", _backend),
    ("mlir_builder_rule", _builder_rule),
    ("portable_artifact", _portable_artifact),
    ("backend_gpu", lambda j: _err(lambda: j.extend.backend.get_backend("gpu"))),
    ("backend_bogus", lambda j: _err(lambda: j.extend.backend.get_backend("bogus"))),
    ("lowering_context", lambda j: str(j.extend.lowering.LoweringRuleContext.__name__)),
    ("single_device_put", lambda j: str(j.device_put(
        j.numpy.arange(3), j.sharding.make_single_device_sharding(j.devices()[2])).devices())),
]


def main():
    import jax
    import jax.extend.backend  # noqa: F401  (jax.extend does not import them itself)
    import jax.extend.lowering  # noqa: F401
    import jax.extend.mlir.dialects.stablehlo  # noqa: F401
    import jax.extend.mlir.ir  # noqa: F401
    import jax.interpreters.xla  # noqa: F401
    out = {name: case(jax) for name, case in CASES}
    path = Path(__file__).with_suffix("").parent / "more_names.json"
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(out)} cases to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
