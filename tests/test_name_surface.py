"""astjax's public name surface against JAX 0.10.2's (issue 13): a library probing
`hasattr(jax.X, name)` (optax, flax, equinox, chex and haiku all do) must take JAX
0.10.2's branch, so a module served as `jax.X` has no public name JAX 0.10.2's `jax.X`
lacks -- except the ones listed below, each with its reason.

JAX's names are data (tests/oracle/name_surface.json, recorded by
tests/oracle/record_name_surface.py: `dir()` of every public `jax` module plus the
deprecated names its `__getattr__` still serves). astjax's side is what the `jax` alias
serves (`astjax.jax_alias`): the `jax` module it builds, and for `jax.X` the compat or
astjax module `_target_name` picks. Two kinds of extra are allowed without a list, as
they are not names an API offers: a module or a non-astjax object the implementation
module imports (`np`, `annotations`, `functools`, `typing.Any`), and an implementation
submodule of an astjax package (`astjax.numpy.ufuncs`: which of them a program has
imported decides what `dir()` shows). Everything else astjax defines is either JAX's
name or an entry of ALLOWED.
"""
import __future__
import importlib
import json
import os
import pkgutil
import types

import pytest

import astjax
from astjax import jax_alias
from astjax.errors import AstjaxError

ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle",
                      "name_surface.json")

# what a served module may need, as JAX's does (jax.experimental.array_serialization's
# `serialization` / `tensorstore_impl`: tensorstore); without it the module is not served
OPTIONAL_DEPENDENCIES = {"tensorstore"}

REASONS = {
    "error": "an astjax error class the module raises, imported into it at module level "
             "(each is also the builtin class JAX raises there)",
    "module": "an astjax module the implementation imports under its own name (`core`, "
              "`lax`, `tree_util`); transitional, as `helper`",
    "helper": "an astjax-internal helper the module imports or defines without an "
              "underscore; transitional: its module's owner moves it behind one",
}

# module: {reason: "names"}. A new extra fails the test; an entry that is no longer an
# extra fails it too (remove it here).
ALLOWED = {
    "jax.ad_checkpoint": {
        "helper": "saved_residuals",
    },
    "jax.api_util": {
        "helper": "DebugInfo WrappedFun",
        "module": "core tree_util",
    },
    "jax.custom_batching": {
        "error": "ArgumentTypeError StructureError",
        "helper": "as_callable bind custom_vmap_call_p leaf_aval stage_flat",
        "module": "core lax tree_util",
    },
    "jax.debug": {
        "error": "ArgumentTypeError ArgumentValueError",
        "helper": "USER_CODE bind_debug_print caller_location debug_callback_p flat_host_call",
        "module": "core effects runtime tree_util",
    },
    "jax.errors": {
        "error": ("AmbiguousTruthValueError ArgumentError ArgumentIndexError ArgumentTypeError"
                  " ArgumentValueError ArgumentZeroDivisionError ArityError AstjaxError AxisError"
                  " AxisNameError BackendUnimplementedError ConcretizationError DTypeError"
                  " DerivativeNotImplementedError DerivativeValueError DifferentiationError"
                  " DifferentiationTypeError EscapedTracerError FfiKernelArgumentError"
                  " FfiKernelError FfiTargetError InternalError JAXAttributeError JAXValueError"
                  " LoopCarryError MissingNameError NoSourceWarning NotImplementedInAstjaxError"
                  " ReductionError RuntimeDTypeError ScalarOverflowError ShapeError ShapeValueError"
                  " ShardingTypeError SideEffectWarning SourceChangedError SourceNotFoundError"
                  " StagedSliceError StructureError UnboundLocalVariableError UndefinedRuleError"
                  " UndefinedVariableError UnknownOptionError UnknownPathOptimizerError UnsupportedSyntaxError"),
        "helper": ("DuplicateSpecError EMPTY_NAME_STACK IndivisibleError SourceInfo UNKNOWN"
                  " USER_CODE WeakIdMap caller_location check_callable check_signature def_location"
                  " format_location function_name located_builtin_error raised_location"
                  " user_location warn_at"),
    },
    "jax.example_libraries.optimizers": {
        "module": "tree_util",
    },
    "jax.experimental.checkify": {
        "helper": ("DivisionByZeroError ErrorInterpreter FailedCheckError JaxException NaNError"
                  " OOBError Out Primitive Site check_p library_jit stage_callable"),
        "module": "ad batching core dtypes jnp random tree_util",
    },
    "jax.experimental.hijax": {
        "helper": "typeof",
    },
    "jax.extend.backend": {
        "error": "AstjaxError",
        "helper": "UnknownBackendError",
        "module": "runtime",
    },
    "jax.extend.core": {
        "helper": ("Eqn ShapedArray Trace call eager_arguments eager_input eager_staging"
                  " eager_transform in_eager_transform lower_fun"),
        "error": "NotImplementedInAstjaxError",
        "module": "core tree_util",
    },
    "jax.extend.random": {
        "error": "DTypeError",
        "helper": "PRNGImpl PRNGKeyArray PRNGSpec resolve_impl vmap",
        "module": "core dtypes jnp lax",
    },
    "jax.extend.source_info_util": {
        "module": "errors",
        "helper": "excluded_paths user_frame",
    },
    "jax.extend.xla": {
        "error": "ArgumentTypeError",
        "module": "runtime",
    },
    "jax.ffi": {
        "error": "ArgumentValueError JAXTypeError JAXValueError",
        "helper": ("FrozenDict HashableArray Token VMAP_METHODS aval_to_ir_type create_token_p"
                  " custom_call ffi_call_p ir_attribute jit register_targets staged_token"),
        "module": "core",
    },
    "jax.flatten_util": {
        "module": "dtypes jnp",
        "helper": "tree_flatten tree_unflatten",
    },
    "jax.image": {
        "error": "ArgumentValueError",
        "module": "jnp",
    },
    "jax.interpreters.ad": {
        "helper": "RuleView carries_tangent",
        "module": "core lax",
    },
    "jax.interpreters.batching": {
        "helper": "AxisData RuleView moveaxis not_mapped",
        "module": "core lax",
    },
    "jax.interpreters.mlir": {
        "error": "AstjaxError NotImplementedInAstjaxError",
        "helper": ("UnknownPlatformError custom_call lower_fun_with_builders lower_with_builders"
                  " lowering_from"),
        "module": "core",
    },
    "jax.interpreters.partial_eval": {
        "helper": "ShapedArray",
        "module": "core dtypes",
    },
    "jax.interpreters.pxla": {
        "helper": "ResourceEnv warn",
    },
    "jax.interpreters.xla": {
        "module": "core runtime",
    },
    "jax.monitoring": {
        "helper": "BACKEND_COMPILE_EVENT",
        "module": "runtime",
    },
    "jax.nn": {
        "error": "ArgumentValueError MissingNameError",
        "helper": ("Array GluSizeError asarray_operand canonicalize_axis check_arraylike library_jit"
                  " promote_args_inexact static_int where"),
        "module": "core dtypes jnp lax",
    },
    "jax.nn.initializers": {
        "helper": "Array",
        "module": "dtypes lax",
    },
    "jax.numpy": {
        "error": ("ArgumentError ArgumentTypeError ArgumentValueError ArgumentZeroDivisionError"
                  " AxisError AxisNameError ConcretizationError NotImplementedInAstjaxError"
                  " ReductionError ShapeError ShapeValueError"),
        "helper": ("Array Tracer asarray_operand broadcast_to_shape canonical_dim"
                  " canonicalize_axes canonicalize_axis check_python_ints contraction_path flatten"
                  " full_bool is_symbolic_dim jax_array_protocol layouts_of operator_index"
                  " out_sharding_arg placed_like promote_args promote_args_inexact promote_dtypes"
                  " promote_dtypes_inexact promote_operands promote_shapes result static_int"
                  " symbolic_quotient take_static typed_like typeof with_device with_out_sharding"),
        "module": "core dtypes lax user_warnings",
    },
    "jax.numpy.linalg": {
        "helper": ("EigResult EighResult QRResult SVDResult SlogdetResult asarray_operand bind"
                  " canonicalize_axes cholesky_p library_jit promote_args_inexact where"),
        "error": "MissingNameError ShapeError ShapeValueError",
        "module": "core dtypes lax uf",
    },
    "jax.ops": {
        "error": "ConcretizationError",
        "helper": "caller_location",
        "module": "core jnp",
    },
    "jax.profiler": {
        "error": "AstjaxError",
        "helper": "ProfilerStateError ServerError get_backend",
        "module": "runtime",
    },
    "jax.scipy.cluster.vq": {
        "error": "ArgumentValueError",
        "helper": "check_arraylike promote_dtypes_inexact",
        "module": "jnp",
    },
    "jax.scipy.fft": {
        "error": "ArgumentValueError AstjaxError",
        "helper": ("UnsupportedDctTypeError canonicalize_axes canonicalize_axis check_arraylike"
                  " promote_dtypes_inexact"),
        "module": "jnp lax",
    },
    "jax.scipy.interpolate": {
        "error": "ArgumentValueError AstjaxError",
        "helper": ("BoundsErrorUnsupported check_arraylike promote_dtypes_inexact"
                  " register_pytree_node"),
        "module": "jnp",
    },
    "jax.scipy.linalg": {
        "error": "ArgumentValueError NotImplementedInAstjaxError ShapeValueError",
        "helper": "asarray_operand bind promote_dtypes_inexact triangular_solve_p",
        "module": "core dtypes lax",
    },
    "jax.scipy.ndimage": {
        "error": "ArgumentValueError AstjaxError",
        "helper": "UnsupportedInterpolationError",
        "module": "jnp lax",
    },
    "jax.scipy.optimize": {
        "error": "ArgumentTypeError ArgumentValueError",
        "module": "jnp",
        "helper": "minimize_bfgs minimize_lbfgs",
    },
    "jax.scipy.signal": {
        "error": "ArgumentValueError",
        "helper": ("UnsupportedSignalOptionError canonicalize_axis check_arraylike"
                  " promote_dtypes_inexact vmap"),
        "module": "jnp lax",
    },
    "jax.scipy.sparse.linalg": {
        "error": "ArgumentTypeError ArgumentValueError",
        "helper": "Partial tree_leaves tree_map tree_structure",
        "module": "jnp lax",
    },
    "jax.scipy.spatial.transform": {
        "error": "ArgumentTypeError ArgumentValueError",
        "module": "jnp jrandom",
    },
    "jax.scipy.special": {
        "error": "ArgumentValueError DTypeError MissingNameError NotImplementedInAstjaxError",
        "helper": "asarray_operand canonicalize_axes config library_jit promote_args_inexact where",
        "module": "core jnp lax",
    },
    "jax.scipy.stats.bernoulli": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.beta": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.betabinom": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.binom": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.cauchy": {
        "module": "jnp",
        "helper": "promote",
    },
    "jax.scipy.stats.chi2": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.dirichlet": {
        "module": "jnp special",
    },
    "jax.scipy.stats.expon": {
        "module": "jnp",
        "helper": "promote standardize",
    },
    "jax.scipy.stats.gamma": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.gennorm": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.geom": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.gumbel_l": {
        "module": "jnp",
        "helper": "promote standardize",
    },
    "jax.scipy.stats.gumbel_r": {
        "module": "jnp",
        "helper": "promote standardize",
    },
    "jax.scipy.stats.laplace": {
        "module": "jnp",
        "helper": "promote",
    },
    "jax.scipy.stats.logistic": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.multinomial": {
        "module": "jnp special",
    },
    "jax.scipy.stats.multivariate_normal": {
        "helper": "cholesky solve_triangular",
        "module": "jnp",
    },
    "jax.scipy.stats.nbinom": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.norm": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.pareto": {
        "module": "jnp",
        "helper": "promote",
    },
    "jax.scipy.stats.poisson": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.t": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.uniform": {
        "module": "jnp",
        "helper": "promote",
    },
    "jax.scipy.stats.vonmises": {
        "module": "jnp special",
        "helper": "promote",
    },
    "jax.scipy.stats.wrapcauchy": {
        "module": "jnp",
        "helper": "promote",
    },
    "jax.sharding": {
        "error": "ArgumentTypeError ArgumentValueError ShardingTypeError",
        "helper": ("DuplicateSpecError IndivisibleError axis_index_table caller_location"
                  " current_assignment current_auto_axes current_manual_mesh hlo_sharding"
                  " lowering_assignment manual_abstract_mesh manual_axes manual_groups"
                  " named_from_tiles sdy_mesh_decls sdy_sharding"),
    },
    "jax.stages": {
        "error": "ArgumentTypeError ArgumentValueError JAXValueError NotImplementedInAstjaxError",
        "helper": ("ShapeDtypeStruct UnknownBackendError abstract_arguments abstract_layouts_entry"
                  " argument_types caller_location canonical_shape has_layouts"
                  " incompatible_context leaf_aval leaf_names out_structs remember_staging result_types"
                  " staged_as typed_staging"),
        "module": "compile_cache core dtypes runtime stablehlo tree_util",
    },
    "jax.test_util": {
        "helper": "EPS check_close config jvp linearize numerical_jvp tree_map tree_reduce vjp",
        "module": "dtypes",
    },
    "jax.tree_util": {
        "error": "ArgumentValueError",
        "helper": ("PyTreeRegistry build_tree flatten_for_staging is_staging_leaf_type"
                  " register_staging_leaf staging_leaves treedef_paths"),
    },
    "jax.typing": {
        "helper": "Array SupportsDType TYPE_CHECKING",
    },
}


def _jax_names():
    with open(ORACLE) as f:
        data = json.load(f)
    assert data["jax_version"] == jax_alias.JAX_API_VERSION
    return data["modules"]


def _served():
    """{jax module name: the module the alias serves for it}, every one imported."""
    names = {"jax." + m for m in jax_alias.PUBLIC_MODULES}
    import astjax.compat as compat
    names |= {"jax." + m.name[len("astjax.compat."):]
              for m in pkgutil.walk_packages(compat.__path__, "astjax.compat.")
              if not any(p.startswith("_") for p in m.name.split("."))}
    served = {"jax": jax_alias._jax_module()}
    for name in sorted(names):
        try:
            served[name] = importlib.import_module(jax_alias._target_name(name))
        except ModuleNotFoundError as e:   # (JAX's too needs it: not in the oracle then)
            if e.name not in OPTIONAL_DEPENDENCIES:
                raise
    return served


def _unlisted_kind(mod, name, value) -> bool:
    """An import of a module or non-astjax object, or an astjax package's submodule."""
    if isinstance(value, types.ModuleType):
        return not value.__name__.startswith("astjax") or \
            value.__name__ == f"{mod.__name__}.{name}"
    if isinstance(value, __future__._Feature):
        return True
    home = getattr(value, "__module__", None)
    return isinstance(home, str) and not home.startswith("astjax")


def _surface(jax_name, mod):
    """The public names `hasattr` finds on the served module."""
    names = {n for n in dir(mod) if not n.startswith("_")}
    if jax_name == "jax":   # submodules the alias imports on first attribute access
        names |= {m.split(".")[0] for m in jax_alias.PUBLIC_MODULES}
    return names


def extras():
    """{jax module: sorted names astjax serves and JAX 0.10.2 lacks}, unlisted kinds
    left out."""
    jax_names, out = _jax_names(), {}
    for jax_name, mod in _served().items():
        theirs = set(jax_names.get(jax_name, ()))
        extra = [n for n in sorted(_surface(jax_name, mod) - theirs)
                 if not _unlisted_kind(mod, n, getattr(mod, n, None))]
        if extra:
            out[jax_name] = extra
    return out


def _allowed():
    return {m: {n: r for r, names in by.items() for n in names.split()}
            for m, by in ALLOWED.items()}


def test_every_served_module_is_one_jax_has():
    missing = sorted(set(_served()) - set(_jax_names()))
    assert not missing, f"astjax serves modules JAX 0.10.2 does not have: {missing}"


def test_no_public_name_jax_lacks():
    allowed = _allowed()
    new = {m: [n for n in names if n not in allowed.get(m, {})]
           for m, names in extras().items()}
    new = {m: n for m, n in new.items() if n}
    assert not new, (
        "public names JAX 0.10.2 lacks (a library's hasattr probe takes another branch): "
        f"make them private, or list them in ALLOWED with a reason: {new}")


def test_allowed_entries_are_current():
    now = extras()
    stale = {m: sorted(n for n in names if n not in now.get(m, ()))
             for m, names in _allowed().items()}
    stale = {m: n for m, n in stale.items() if n}
    assert not stale, f"ALLOWED lists names that are no longer extras: {stale}"
    assert {r for by in ALLOWED.values() for r in by} <= set(REASONS)


def test_astjax_top_level_is_jax_names_plus_its_own():
    """`import astjax as jax`: the exported names are JAX's, and astjax's own API."""
    theirs = set(_jax_names()["jax"])
    assert sorted(set(astjax.__all__) - theirs) == sorted(jax_alias.ASTJAX_ONLY)
    served = jax_alias._jax_module()
    assert not [n for n in jax_alias.ASTJAX_ONLY if hasattr(served, n)]


@pytest.mark.parametrize("name", ["stop_gradient", "ad_api", "staging", "api"])
def test_jax_alias_has_no_astjax_extras(name):
    assert not hasattr(jax_alias._jax_module(), name)


def test_jax_core_is_jax_core_not_the_ir():
    """`import jax; jax.core` (without `import jax.core`) is the served `jax.core`,
    with JAX 0.10.2's names only -- not astjax's IR module."""
    was_installed = "jax" in __import__("sys").modules
    astjax.install_as_jax()
    try:
        import jax
        core = jax.core
        from jax import core as imported
    finally:
        if not was_installed:
            jax_alias.uninstall()
    assert core is imported and core.__name__ == "astjax.compat.core"
    assert not hasattr(core, "Literal") and not hasattr(core, "get_aval")
    assert {n for n in dir(core) if not n.startswith("_")} <= set(_jax_names()["jax.core"])
    assert core.Tracer is astjax.core.Tracer


@pytest.mark.parametrize("module, name", [
    ("astjax.lax", "add_any"), ("astjax.lax", "closure_convert"),
    ("astjax.lax", "join_consts"), ("astjax.lax", "stage_sub"),
    ("astjax.random", "PRNGKeyArray"), ("astjax.random", "KeyTy"),
    ("astjax.numpy", "round_"), ("astjax.numpy", "row_stack"),
    ("astjax.numpy", "issubsctype"), ("astjax.sharding", "use_mesh"),
    ("astjax.compat.experimental", "MutableArray"),
    ("astjax.compat.experimental", "pure_callback"), ("astjax", "stop_gradient")])
def test_names_jax_removed_are_gone(module, name):
    assert not hasattr(importlib.import_module(module), name)


def test_allowed_astjax_names_are_astjax_errors_or_documented():
    for m, by in ALLOWED.items():
        mod = _served()[m]
        for n in by.get("error", "").split():
            value = getattr(mod, n)
            assert isinstance(value, type) and issubclass(value, (AstjaxError, Warning)), n
