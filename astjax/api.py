"""The public transformations: `jit` / `function`, `make_jaxpr`, `typeof` and
`eval_shape`; the runtime entry points (`device_put`, `devices`, ...) live in
`devices_api` and are re-exported here. Autodiff and batching add theirs in `ad_api`
and `batching_api`."""
from __future__ import annotations

import functools
import sys
import types
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any, overload

import numpy as np

from . import core, dtypes, tree_util, util
from . import sharding_impls as _sharding
from .codegen import compile_cache, cpp_jit, runtime, sharded as _sharded, spmd as _spmd
from .codegen import explicit as _explicit, stablehlo
from .codegen import host_memory as _host_memory, host_sharded as _host_sharded
from .codegen.xla_errors import raise_if_ran as _raise_if_ran
from . import jit_options as _jit_options
from .jit_arguments import (normalize_donate as _normalize_donate,
                            normalize_static as _normalize_static,
                            positional_params as _positional_params)
from .errors import (AstjaxError, ArgumentError, ArgumentTypeError, ArgumentValueError,
                     JaxRuntimeError as _JaxRuntimeError, caller_location, check_callable,
                     check_signature, function_name, NotImplementedInAstjaxError)
from .primitives import compute_on as _compute_on, jit_call as _jit_call, vma as _vma
from .extend.core import in_eager_transform as _in_eager_transform
from .dispatch_keys import (KWARGS as _KWARGS, STATIC as _STATIC, Entry as _Entry,
                            NoFastPath as _NoFastPath, add_tree_plan as _add_tree_plan,
                            cpp_flatten as _cpp_flatten, numpy_key as _numpy_key,
                            tree_sig as _tree_sig, has_dict as _has_dict)
from .staging import (StagedCallable, arg_hints, as_callable, donated_leaves, leaf_aval,
                      array_signature, kept_staging, python_scalar, stage_flat, stage_once,
                      wrapped_signature)
from .stages import (ShapeDtypeStruct, Lowered, Traced, abstract_arguments, remember_staging,
                     staged_as)
from .stages import abstract_layouts_entry as _abstract_layouts, has_layouts as _has_layouts
from .stages import argument_types as _argument_types, result_types as _result_types
from .stages import out_structs as _out_structs, typed_staging as _typed_staging
from .transforms.ad import inline as _inline
from .transforms.dce import dce_closed
from .transforms.discharge import discharge_closed, outside_refs as _outside_refs
from . import ad_frames as _ad_frames, eager_outputs as _eager_outputs, op_by_op as _op_by_op
from . import jit_refs as _jit_refs, jit_tokens as _jit_tokens, hi_values as _hi
from .jit_ordered import OrderedEntry as _OrderedEntry, has_ordered_effects as _has_ordered_effects
from .traceback_util import (at_boundary as _at_boundary, boundary as _boundary,
                             entry_point as _entry_point, user_traceback)

_Array, _Committed = runtime.Array, runtime.CommittedArray
_new_object = object.__new__
_GlobalArray = _sharded.GlobalArray
_config_values = dtypes.config._values
from .config import config as _config  # noqa: E402
from .config import jit_call_hook as _jit_call_hook  # noqa: E402
from .sharding_impls import context_meshes as _context_meshes  # noqa: E402


_state = core._state  # thread-local; `_state.builders` is non-empty while staging
from .trace_state import staging_threads as _staging_threads  # noqa: E402
_compute_top = _compute_on.top_level   # [0]: the compute_on block's type (None: none)


_CPP = object()  # the key of a function's jaxlib PjitFunction in its `_fast` table
_TREE = object()  # `_fast[_TREE]`: treedef -> signatures of Array trees (add_tree_plan)
_MISS = object()  # the PjitFunction's cache-miss callable (cpp_jit.WeakMiss)
_CONTEXT = object()  # `_signature`'s tag of set_mesh's mesh
_cpp_available, _cpp_results, _MissError = cpp_jit.available, cpp_jit.results, cpp_jit.MissError
_ArrayImpl, _REAL_JAX_CONFIG, _modules = cpp_jit.ArrayImpl, cpp_jit.REAL_JAX_CONFIG, sys.modules
_ndarray = np.ndarray


class Jitted(StagedCallable):
    """`astjax.jit(f)`: stage f from its source, compile per input signature."""

    def __init__(self, fun, static_argnums=(), static_argnames=(), donate_argnums=(),
                 in_shardings=None, out_shardings=None, options=None, inline=False,
                 donate_argnames=(), keep_unused=False, eager=None):
        check_callable(fun, "jit")
        self._keep_unused = keep_unused   # an unused donated argument donated all the same
        self._inline = inline   # inline=True: an inner call inlines (else one `jit` equation)
        self._options = options   # jit_options.JitOptions: device, backend, compiler options
        # sharded jit (codegen/spmd.py): None when neither is given
        self._shardings = _spmd.check_jit_shardings(in_shardings, out_shardings)
        self.fun = fun
        # made by an eager transformation (`grad(f)(x)` outside `jit`) for its program
        # (`eager`, else while one stages): JAX runs those op by op, so closed-over
        # values stay its parameters (nothing folded); a state of its own, not a `jit`'s
        self._eager = _in_eager_transform() if eager is None else eager
        # shared by every jit of the same function and options (compile_cache.shared_state)
        self._share_key = ("jit", _options_key(static_argnums), _options_key(static_argnames),
                           _options_key(donate_argnums), self._shardings) + (
            (options.key(),) if options is not None else ()) + (
            (_options_key(donate_argnames),) if donate_argnames else ()) + (
            ("keep_unused",) if keep_unused else ()) + (("eager",) if self._eager else ())
        (self.static_argnums, self.static_argnames, (self.donate_argnums, self._donate_names),
         self._cache, self._fast) = compile_cache.shared_state(fun, self._share_key, lambda: self._new_state(
            fun, static_argnums, static_argnames, donate_argnums, donate_argnames))
        self._has_statics = bool(self.static_argnums or self.static_argnames)
        self._plain = options is None and not self._has_statics   # __call__'s fast paths
        util.wraps_function(self, fun)

    @staticmethod
    def _new_state(fun, static_argnums, static_argnames, donate_argnums, donate_argnames=()):
        statics = _normalize_static(fun, static_argnums, static_argnames)
        donate = _normalize_donate(fun, donate_argnums, donate_argnames, statics[1])
        # _cache: full key -> _Entry; _fast: (x64, *per-argument signature) -> _Entry
        return (*statics, donate, {}, {})

    def __get__(self, obj, objtype=None):  # jit as a method decorator
        return self if obj is None else functools.partial(self, obj)

    def __repr__(self):   # JAX's text (libraries read it: chex's `is_traceable`)
        return f"<PjitFunction of {self.fun!r}>"

    __signature__ = property(wrapped_signature)

    def _split(self, args, kwargs):
        dyn_args, statics = [], []
        for i, a in enumerate(args):
            if i in self.static_argnums:
                statics.append((i, a))
            else:
                dyn_args.append(a)
        dyn_kwargs = {}
        for k, v in kwargs.items():
            if k in self.static_argnames:
                statics.append((k, v))
            else:
                dyn_kwargs[k] = v
        return dyn_args, dyn_kwargs, tuple(statics)

    def _rebuild(self, statics):
        """A function of the dynamic arguments only, with the statics put back."""
        fun = self.fun
        pos = [(i, v) for i, v in statics if isinstance(i, int)]
        kw = {k: v for k, v in statics if isinstance(k, str)}

        if not statics:
            return fun

        def with_statics(*dyn, **dyn_kw):
            args = list(dyn)
            for i, v in sorted(pos):
                args.insert(i, v)
            return _call_user(fun, args, {**dyn_kw, **kw})
        with_statics.__wrapped__ = fun
        return with_statics

    def _entry(self, args, kwargs, refuse_late=False, cached_only=False):
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        leaves, in_tree = tree_util.flatten_for_staging((tuple(dyn_args), dyn_kwargs))
        avals = tuple(leaf_aval(x) for x in leaves)
        # GlobalArray arguments' shardings (and set_mesh's mesh: a partitioned program)
        layouts = _spmd.call_layouts(self.fun, self._options, dyn_args, dyn_kwargs, leaves)
        try:
            key = (statics, in_tree, (avals, layouts) if any(layouts) else avals,
                   dtypes.config.x64_enabled, *_host_memory.kinds_key(leaves, self._shardings),
                   *_compute_on.program_key())
            entry = self._cache.get(key)
        except TypeError:
            raise ArgumentValueError("Non-hashable static arguments are not supported: got "
                + ", ".join(f"{k if isinstance(k, str) else f'argument {k}'} of type "
                            f"{type(v).__name__}" for k, v in statics if not util.hashable(v)),
                hint="pass a hashable value (a tuple instead of a list, a frozenset, a "
                     "Python scalar) as a static argument, or make the argument dynamic",
                loc=caller_location()) from None
        if entry is None and cached_only:   # (`eager_outputs`: a call's entry, if kept)
            return None, leaves
        if entry is None:
            # a call that does not fit the signature has a new key too: checked here, not
            # on every call (binding costs tens of microseconds)
            check_signature(self.fun, args, kwargs, "jit")
            with _explicit.staging(leaves):   # jax.typeof(x).sharding on Explicit axes
                closed, out_tree = self._stage(dyn_args, dyn_kwargs, statics, in_tree, avals)
            closed = _compute_on.in_block(closed)   # (staged in a compute_on block)
            donated = _used_donations(closed, self._donated(dyn_args, dyn_kwargs, statics),
                                      self._keep_unused)
            name = getattr(self.fun, "__name__", "fn")
            options = (self._options.compiler_options if self._options is not None else ()) + (
                _op_by_op.compile_options(closed) if self._eager else ())   # (16-bit rounding)
            # (an eager transformation's program keeps its constants parameters)
            with stablehlo.constants_as_parameters(self._eager):
                if _host_memory.involved(self._shardings, leaves, closed):   # memory kinds
                    entry = _host_memory.jit_entry(closed, out_tree, name, self._shardings,
                                                   dyn_args, leaves, donated, caller_location(),
                                                   options)
                elif _spmd.partitioned(self._shardings, layouts, closed):   # (or set_mesh)
                    entry = _spmd.jit_entry(closed, out_tree, name, self._shardings, dyn_args,
                                            leaves, donated, caller_location(), options,
                                            staged=staged_as(closed), refuse_late=refuse_late,
                                            fun=None if statics else self.fun,
                                            dyn_kwargs=dyn_kwargs)
                elif _outside_refs(closed):   # a Ref argument, or one the function closes over
                    entry = _jit_refs.RefEntry(closed, out_tree, name, options)
                elif _jit_tokens.at_boundary(closed):   # token arguments or results
                    entry = _jit_tokens.TokenEntry(closed, out_tree, name, donated, options)
                else:
                    run_on = _jit_options.run_device(self._options) or runtime.default_device()
                    entry = (_OrderedEntry if _has_ordered_effects(closed) else _Entry)(
                        closed, out_tree, name, donated, options,
                        platform=stablehlo.platform_name(run_on))
            entry.in_tree = in_tree
            if not getattr(entry, "refused", False):   # (`trace`: raised when lowered)
                self._cache[key] = entry
        return entry, leaves

    def _stage(self, dyn_args, dyn_kwargs, statics, in_tree, avals, discharge=True, dce=True):
        fun = self._rebuild(statics)
        hints = arg_hints(self.fun, dyn_args, dyn_kwargs) if not statics else None
        key = (statics, in_tree, tuple(avals), dtypes.config.x64_enabled)   # (as _entry's)
        # (hijax Variables it closes over: `hi_values.CapturedHiError`, for the caller)
        with _hi.watched():
            closed, out_tree = (kept_staging(self._staging(), key)   # (an inner call staged it)
                                or stage_flat(fun, in_tree, list(avals), hints))
        # references -> values (outside ones: `ref.RefEntry` at the call; make_jaxpr's kept)
        program = discharge_closed(closed, keep_outside=True) if discharge else closed
        if dce:   # (make_jaxpr shows every equation staged, as JAX's every one traced)
            program = dce_closed(program)
            remember_staging(program, closed)   # (what `jit(f).trace(x).jaxpr` shows)
        return program, out_tree

    def stage(self, *args, **kwargs):
        """(ClosedJaxpr, out_tree) for these arguments (staged, not compiled)."""
        entry, _ = self._entry(args, kwargs)
        return entry.closed, entry.out_tree

    @_boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Fast paths, for arguments whose signature was seen before: one or two plain Arrays (keyed
        # on their interned avals' ids), positional NumPy arrays (jaxlib's C++ dispatch), trees of
        # Arrays without dicts (keyed by jaxlib's C++ flatten) and any other signature `_signature`
        # can key. A key whose leaves are all plain Arrays runs in this frame; every Python-level
        # step costs ~0.05-0.1 us against a ~5 us dispatch, so the common cases are written out.
        try:   # (an API boundary: a user's exception leaves it filtered, traceback_util)
            if _staging_threads and _state.builders:   # (the dict first: see trace_state)
                return self.stage_inline(*args, **kwargs)
            if _jit_call_hook[0] is not None:  # astjax.config_api: disable_jit, debug_nans, ...
                return _jit_call_hook[0](self, args, kwargs)
            entry = None   # (under set_mesh only `_signature`'s keys, which hold its mesh)
            if self._plain and not kwargs and not _context_meshes[0] and not _compute_top[0]:
                n = len(args)
                host = False   # positional NumPy arrays in native byte order (jaxlib reads
                # a byte-swapped array's bytes as native ones): jaxlib's C++ dispatch
                if n == 2:
                    a, b = args
                    ta = type(a)
                    if ta is _Array:
                        if type(b) is _Array:
                            entry = self._fast.get(
                                (_config_values["jax_enable_x64"], id(a.aval), id(b.aval)))
                            if entry is None:
                                return self._call_slow(args, kwargs)
                            bufs = [a._buf, b._buf]
                    elif ta is _ndarray and type(b) is _ndarray:
                        # (one `isnative` when both share a dtype object: NumPy's builtin
                        # descriptors are singletons, so they usually do)
                        host = (da := a.dtype).isnative and (b.dtype is da or b.dtype.isnative)
                elif n == 1:
                    a, = args
                    ta = type(a)
                    if ta is _Array:
                        entry = self._fast.get((_config_values["jax_enable_x64"], id(a.aval)))
                        if entry is None:
                            return self._call_slow(args, kwargs)
                        bufs = [a._buf]
                    else:
                        host = ta is _ndarray and a.dtype.isnative
                elif n and type(args[0]) is _ndarray:
                    host = all(type(a) is _ndarray and a.dtype.isnative for a in args)
                if host:
                    cpp = self._fast.get(_CPP)
                    if cpp is not None and _REAL_JAX_CONFIG not in _modules:
                        try:
                            out = cpp(*args)
                        except Exception as e:  # noqa: BLE001 -- see `_cpp_fallback`
                            out = e
                        if type(out) is _ArrayImpl:
                            # `Array(out, out.aval)` without its `__init__` frame (every
                            # slot set here; test_perf_dispatch checks they stay in step)
                            res = _new_object(_Array)
                            res._buf, res.aval, res._npy = out, out.aval, None
                            return res
                        return self._cpp_fallback(out, args)
                    return self._call_numpy(_numpy_key(args), args)
                trees = self._fast.get(_TREE) if entry is None else None
                if trees is not None:
                    # a tree of Arrays (parameters) without dicts, once this function has
                    # met one: flattened in C++ (jaxlib sorts dict keys slowly), found by
                    # its treedef, then its leaves' avals compared as one list
                    try:
                        leaves, tdef = _cpp_flatten(args)
                    except Exception:  # noqa: BLE001 -- e.g. unsortable dict keys
                        tdef = None
                    plans = trees.get(tdef)
                    if plans is not None:
                        avals = [a.aval for a in leaves if type(a) is _Array]
                        x64 = _config_values["jax_enable_x64"]
                        for plan in plans:
                            if plan[1] == avals and plan[0] == x64:
                                entry = plan[2]   # (every leaf a plain Array: no `run` checks)
                                bufs = [a._buf for a in leaves]
                                break
            elif self._options is not None:   # (placed on its device, compiled with its options)
                return self._call_slow(args, kwargs)
            if entry is None:
                leaves = []
                try:
                    entry = self._fast.get(self._signature(args, kwargs, leaves))
                except (_NoFastPath, TypeError):  # TypeError: an unhashable static argument
                    entry = None
                if entry is None:
                    return self._call_slow(args, kwargs)
                if type(entry) is not _Entry or not entry.arrays:
                    try:
                        return entry.run(leaves)
                    except _JaxRuntimeError as e:   # e.g. an argument on another device
                        _raise_if_ran(e, getattr(entry, "text", ""))   # (never run twice)
                        return self._call_slow(args, kwargs)
                bufs = [a._buf for a in leaves]   # (plain Arrays only: `_Entry.for_arrays`)
            if entry.const_bufs:
                bufs = entry.const_bufs + bufs
            try:
                if entry.many:   # (hundreds of results: see Executable._call_many)
                    return entry.unflatten(entry.call_buffers(bufs))
                outs = entry.exe.execute_sharded(bufs).consume_with_handlers(entry.handlers)
            except _JaxRuntimeError as e:   # e.g. an argument on another device
                _raise_if_ran(e, entry.text)
                return self._call_slow(args, kwargs)
            if entry.single:
                return entry.wrap(outs[0], entry.out_aval0)
            return entry.unflatten(list(map(entry.wrap, outs, entry.out_avals)))
        except Exception as e:
            _at_boundary(e)
            raise

    def _cpp_fallback(self, out, args):
        """What jaxlib's C++ dispatch gave that is not one jaxlib array: several
        results (wrapped as Arrays); astjax's own error from a cache miss (`MissError`,
        re-raised as it is); another exception (arguments jaxlib refuses): the Python
        path."""
        if type(out) is _MissError:
            err = out.error
            if isinstance(err, AstjaxError):
                raise err.with_traceback(user_traceback(err))
            raise err
        if isinstance(out, Exception):
            nkey = _numpy_key(args)
            if isinstance(out, (_JaxRuntimeError, ValueError)) and nkey in self._fast:
                _raise_if_ran(out, self._fast[nkey].text)   # (the program ran: no retry)
            return self._call_numpy(nkey, args)
        return _cpp_results(out)

    def _call_numpy(self, nkey, args):
        """A call on positional NumPy arrays (`nkey`: the key `_signature` makes for
        them, one (shape, dtype) per argument) without the C++ dispatch; it sets up
        that dispatch (codegen/cpp_jit.py) once a signature is known."""
        miss = self._fast.get(_MISS)
        if miss is not None and miss.target() is None:
            miss.target = weakref.ref(self)   # the wrapper that set it up is gone
        entry = self._fast.get(nkey)
        if entry is not None:
            return entry.unflatten(entry.executable.call_numpy(
                entry.const_bufs, args, entry.in_avals))
        out = self._call_slow(args, {})
        if (_CPP not in self._fast and nkey in self._fast and not self.donate_argnums
                and not self._donate_names                and _cpp_available()):
            miss = self._fast[_MISS] = cpp_jit.WeakMiss(self)
            self._fast[_CPP] = cpp_jit.make(getattr(self.fun, "__name__", "fn"), miss)
        return out

    def _cpp_miss(self, *args, **kwargs):
        """jaxlib's PjitFunction met a new signature: run in Python, and hand it the
        executable to run itself next time (when the signature allows)."""
        try:
            nkey = _numpy_key(args)
            out = self._call_numpy(nkey, args)
        except Exception as e:
            raise _MissError(e) from None
        entry = self._fast.get(nkey)
        fast = None
        if entry is not None and entry.executable is not None and not kwargs:
            fast = cpp_jit.fastpath(entry.executable, entry.const_bufs, args, out)
        if fast is None:   # jaxlib would call back on every such call: Python alone
            self._fast[_CPP] = None
        return out, fast, False

    def _signature(self, args, kwargs, leaves):
        """The fast-path cache key of a call; appends the dynamic leaves to `leaves`
        in the order `_entry` flattens them (positional, then keywords by name)."""
        key = [_config_values["jax_enable_x64"]]
        if _context_meshes[0]:   # (set_mesh: the program runs on its mesh)
            key += [_CONTEXT, _sharding.context_mesh()]
        if _compute_on.top_level[0]:   # (a compute_on block: programs of its own)
            key += _compute_on.program_key()
        if not self._has_statics:
            for a in args:   # (a loop, not a comprehension: no frame of its own)
                key.append(_tree_sig(a, leaves))
            if kwargs:
                key.append(_KWARGS)
                for k in sorted(kwargs):
                    key.append(k)
                    key.append(_tree_sig(kwargs[k], leaves))
            return tuple(key)
        nums, names = self.static_argnums, self.static_argnames
        for i, a in enumerate(args):
            key.append((_STATIC, a) if i in nums else _tree_sig(a, leaves))
        if kwargs:
            key.append(_KWARGS)
            for k in sorted(kwargs):
                v = kwargs[k]
                key.append(k)
                key.append((_STATIC, v) if k in names else _tree_sig(v, leaves))
        return tuple(key)

    def run_compiled(self, args, kwargs, hosts=False):
        """Call, compiled even under `disable_jit`: an eager transform's own program
        (`grad(f)(x)`), whose function is the transform, which would call this again. A
        result that is an argument passed through is that argument (`eager_outputs`;
        `hosts`: a NumPy or Python one too, `vmap`'s)."""
        out = (self._call_slow(args, kwargs) if _config.read("jax_disable_jit")
               else self(*args, **kwargs))
        return _eager_outputs.handed_back(self, args, kwargs, out, hosts)

    def _call_slow(self, args, kwargs):
        if core.current_builder() is not None:
            return self.stage_inline(*args, **kwargs)
        caps = self.__dict__.get("_hi_caps", ())
        if caps or _hi.has_mutable((args, kwargs)):   # hijax Variables: stored back
            return self._call_hi(args, kwargs, caps)
        try:
            entry, leaves = self._entry(args, kwargs)
            if entry.executable is None:
                entry.compile()
            if isinstance(entry, _Entry):   # (a partitioned program places itself)
                names = (functools.partial(_positional_names, self.fun, len(args))
                         if not kwargs and len(leaves) == len(args) else None)
                dev = _jit_options.run_device(self._options)
                out = (entry.placed_on(dev).run(_jit_options.to_device(leaves, dev))
                       if dev is not None else entry.run_placed(leaves, names,
                                                                function_name(self.fun)))
            else:
                out = entry.run(leaves)
        except _hi.CapturedHiError as e:   # it closes over hijax Variables: passed in
            if self is _hi_jit:
                raise
            return self._call_hi(args, kwargs, tuple(e.objs))
        except AstjaxError as e:
            raise e.with_traceback(user_traceback(e)) from None
        self._remember(args, kwargs, entry)
        return out

    def _call_hi(self, args, kwargs, caps):
        """A call with hijax Variables among the arguments, or `caps` it closes over (kept,
        with ones met first here): staged on their arrays, final states stored back."""
        self._hi_caps = caps
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        while True:
            low, cap = _hi.Lowering((tuple(dyn_args), dyn_kwargs)), _hi.Lowering(list(caps))
            try:
                out, finals = _hi_jit(self._rebuild(statics), low.tree, cap.tree,
                                      _hi.Idents(caps))
                break
            except _hi.CapturedHiError as e:
                if all(any(o is c for c in caps) for o in e.objs):
                    raise e.with_traceback(user_traceback(e)) from None
                caps = self._hi_caps = (*caps, *e.objs)
        low.write_back(finals[:len(low.objs)])
        cap.write_back(finals[len(low.objs):])
        return out

    def _remember(self, args, kwargs, entry):
        """Add this call's signature to the fast-path cache, when it has one."""
        leaves = []
        try:
            key = self._signature(args, kwargs, leaves)
            hash(key)
        except (_NoFastPath, TypeError):
            return
        if any((type(a) is _Array or type(a) is _Committed)
               and not runtime.is_interned(a.aval) for a in leaves):
            return  # ids of non-interned avals could be reused: never key on them
        if type(entry) is not _Entry:
            if key[1:2] != (_CONTEXT,) and not any(type(a) is _GlobalArray for a in leaves):
                # a partitioned program is found by its arguments' layouts: only keys
                # with a GlobalArray's (the fast paths take keys of Arrays to an _Entry)
                return
        else:
            dev, committed = runtime.placement(leaves)
            if committed:   # (the key holds the committed arguments' device)
                entry = entry.placed_on(dev)
        if getattr(entry, "float0_in", False):
            return  # the fast paths pass every argument to the executable
        if len(self._fast) > 4096:
            self._fast.clear()
        if type(entry) is _Entry and entry.device is None and all(
                type(a) is _Array for a in leaves):
            entry = entry.for_arrays()
        self._fast[key] = entry
        if not (kwargs or self._has_statics or key[1:2] == (_CONTEXT,) or _has_dict(args)):
            trees = self._fast.get(_TREE)   # (set_mesh's keys: only `_signature`'s path)
            if trees is None:
                trees = {}
            if _add_tree_plan(trees, args, entry):
                self._fast[_TREE] = trees

    def stage_inline(self, *args, **kwargs):
        _jit_options.check_nested(self._options, self.fun)
        check_signature(self.fun, args, kwargs, "jit")
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        fun = self._rebuild(statics)
        if _config_values["jax_disable_jit"]:   # JAX runs the Python function, as eagerly
            return _call_user(fun, dyn_args, dyn_kwargs)
        if _hi.has_mutable((dyn_args, dyn_kwargs)):   # (changed in place, as staged)
            return _call_user(fun, dyn_args, dyn_kwargs)
        if self._shardings:   # inside another program: the layouts become constraints
            return _spmd.constrain_inline(fun, self._shardings, dyn_args, dyn_kwargs)
        sig = array_signature(dyn_args, dyn_kwargs, refs=True)   # (a Ref: one operand)
        if sig is None:
            return _call_user(fun, dyn_args, dyn_kwargs)
        leaves, in_tree, avals = sig   # staged once, as JAX does (the same key as _entry's)
        key = (statics, in_tree, avals, dtypes.config.x64_enabled, *_vma.inputs_key(leaves),
               *_explicit.types_key(leaves), *_ad_frames.tangents_key(leaves))
        cache, stage = self._current_cache(), _vma.with_inputs(leaves, stage_flat)
        hints = None if statics else arg_hints(fun, dyn_args, dyn_kwargs)
        eager = cache.get(key)   # (an eager call's staging serves it too)
        staging = self._staging()

        def make():   # (one closing over hijax Variables is not kept: run inline)
            with _hi.watched():
                return stage(fun, in_tree, list(avals), hints)
        try:   # (its inputs carry the tangents of the values passed: `inputs_as_given`)
            with _ad_frames.inputs_as_given():
                closed, out_tree = stage_once(
                    staging, key, make, shared=staging, eager=lambda: (
                        eager.closed, eager.out_tree) if type(eager) is _Entry else None)
        except _hi.CapturedHiError:
            return _call_user(fun, dyn_args, dyn_kwargs)
        donated = set(self._donated(dyn_args, dyn_kwargs, statics))
        outs = [python_scalar(o) for o in _jit_call.call(
            closed, leaves, fun, self._inline, _inline, [i in donated for i in range(len(leaves))],
            keep_unused=self._keep_unused, compiler_options_kvs=(
                self._options.compiler_options if self._options is not None else ()))]
        return tree_util.tree_unflatten(out_tree, outs)

    def _donated(self, dyn_args, dyn_kwargs, statics):
        """The flat indices of this call's donated leaves, by position or by name."""
        return donated_leaves(self.donate_argnums, dyn_args, statics, dyn_kwargs,
                              self._donate_names)

    def _current_cache(self):
        """The `_cache` a fresh `jit(fun)` would find now (another once a global `fun` reads
        is rebound: `compile_cache.shared_state`): an inner call never inlines stale."""
        if type(self.fun) is not types.FunctionType:
            return self._cache
        return compile_cache.shared_state(self.fun, self._share_key, lambda: (
            self.static_argnums, self.static_argnames,
            (self.donate_argnums, self._donate_names), {}, {}))[3]

    def _staging(self):
        """The stagings of inner calls, shared by the jits of `fun` whatever their
        `donate_argnums`: donation flags the call, not its body (JAX's jits of one
        function with different donations share one jaxpr)."""
        if type(self.fun) is not types.FunctionType:
            return self._cache
        key = ("jit staging", *self._share_key[1:3], *self._share_key[4:])
        return compile_cache.shared_state(self.fun, key, dict)

    def _aot(self, cls, args, kwargs):
        """The ahead-of-time stage `cls` (`stages.Traced` / `Lowered`) of this
        signature, sharing the per-signature cache with calls."""
        args, kwargs = abstract_arguments((args, kwargs))
        try:   # (ShapeDtypeStructs with shardings: a partitioned program, stages.py)
            entry, leaves = ((_abstract_layouts(self, args, kwargs), ()) if _has_layouts(
                (args, kwargs)) else self._entry(args, kwargs, cls is Traced))
            if cls is Lowered:
                entry.text   # (lowered now: what the platform refuses raises here, as JAX)
                entry = _host_sharded.committed_view(entry, leaves, _Entry)   # (JAX's text)
        except AstjaxError as e:
            raise e.with_traceback(user_traceback(e)) from None
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        if _jit_options.run_device(self._options) is not None:   # device=, backend=
            entry = entry.compile().placed_on(_jit_options.run_device(self._options))
        types = _argument_types(self.fun, tree_util.flatten_for_staging(   # (out_info's)
            (tuple(dyn_args), dyn_kwargs))[0])
        return cls(entry, getattr(self.fun, "__name__", "<unnamed function>"),
                   self.donate_argnums, self._donated(dyn_args, dyn_kwargs, statics),
                   types if any(t is not None for t in types) or _typed_consts(entry) else None)

    @_entry_point
    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """`Lowered`: the StableHLO module for these arguments (arrays or
        ShapeDtypeStructs); `.compile()` it for the executable."""
        return self._aot(Lowered, args, kwargs)

    @_entry_point
    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        """`Traced`: the staged jaxpr for these arguments; `.lower()` is the next
        stage."""
        return self._aot(Traced, args, kwargs)


# JAX's name for the type of `jit(f)`: libraries test it (chex's `is_traceable`)
Jitted.__name__ = Jitted.__qualname__ = "PjitFunction"
PjitFunction = Jitted


def _options_key(v):   # a jit option as part of a shared-state key (lists made tuples)
    return tuple(v) if isinstance(v, list) else v


def _positional_names(fun, n):
    """The names of `fun`'s first `n` positional parameters (None if unknown)."""
    pos, var_args, _, _ = _positional_params(fun)
    return pos[:n] if pos is not None and (len(pos) >= n or not var_args) else None


def _call_user(fun, args, kwargs):
    return as_callable(fun)(*args, **kwargs)


def _used_donations(closed, donated, keep_unused):
    """The donated leaves `closed` reads: JAX prunes an unused argument (unless
    `keep_unused`), which then is neither donated nor named in its "Some donated buffers
    were not usable" warning."""
    invars = closed.jaxpr.invars
    if keep_unused or not donated:
        return donated
    used = {id(v) for e in closed.jaxpr.eqns for v in e.invars}
    used.update(id(v) for v in closed.jaxpr.outvars)
    return tuple(i for i in donated if i >= len(invars) or id(invars[i]) in used)


# a jitted call with hijax Variables among its arguments: `fun` (static) on their arrays
_hi_jit = Jitted(_hi.run_lowered, static_argnums=(0, 3))


@overload
def jit(fun: Callable[..., Any], in_shardings: Any = None, out_shardings: Any = None, *,
        static_argnums: int | Sequence[int] = (), static_argnames: str | Iterable[str] = (),
        donate_argnums: int | Sequence[int] = (), donate_argnames: str | Iterable[str] = (),
        inline: bool = False, **options: Any) -> Jitted: ...
@overload
def jit(fun: None = None, in_shardings: Any = None, out_shardings: Any = None, *,
        static_argnums: int | Sequence[int] = (), static_argnames: str | Iterable[str] = (),
        donate_argnums: int | Sequence[int] = (), donate_argnames: str | Iterable[str] = (),
        inline: bool = False, **options: Any) -> Callable[[Callable[..., Any]], Jitted]: ...
def jit(fun: Callable[..., Any] | None = None, in_shardings: Any = None,
        out_shardings: Any = None, *, static_argnums: int | Sequence[int] = (),
        static_argnames: str | Iterable[str] = (), donate_argnums: int | Sequence[int] = (),
        donate_argnames: str | Iterable[str] = (), inline: bool = False,
        **options: Any) -> Jitted | Callable[[Callable[..., Any]], Jitted]:
    """Stage `fun` from its source and compile it with XLA per input signature.
    `in_shardings` / `out_shardings` (pytree prefixes of the positional arguments /
    the results; None = XLA chooses) make it a partitioned program over their mesh
    (`codegen/spmd.py`).

    Unlike JAX (which traces), astjax rewrites `fun`'s source, so Python `if`/`for`
    on array values work under jit; `fun` must be defined in a file (not a lambda
    or a REPL/doctest `def`). `astjax.source(fun, *args)` shows the generated code.

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.jit(jnp.sin)(0.0)
        Array(0., dtype=float32, weak_type=True)
    """
    if fun is None:
        return functools.partial(jit, in_shardings=in_shardings, out_shardings=out_shardings,
                                 static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                                 inline=inline, **options)
    opts = _jit_options.parse(options, in_shardings, out_shardings)   # device=, backend=, ...
    if (getattr(fun, "_jit_is_identity", False) and not (static_argnums or static_argnames)
            and in_shardings is None and out_shardings is None and opts is None):
        return fun  # a pmap is compiled already: jit(pmap(f)) is pmap(f)
    return Jitted(fun, static_argnums, static_argnames, donate_argnums, in_shardings,
                  out_shardings, opts, inline, donate_argnames,
                  bool(options.get("keep_unused", False)))


function = jit


def make_jaxpr(fun: Callable[..., Any], static_argnums: int | Sequence[int] = (),
               axis_env: Sequence[tuple[Any, int]] | None = None,
               return_shape: bool = False,
               static_argnames: str | Iterable[str] = ()) -> Callable[..., Any]:
    """`make_jaxpr(f)(*args)` -> the ClosedJaxpr astjax stages for these arguments: every
    equation (none removed as dead) and, for `jit(f)`, one `jit` equation, as JAX's.
    `axis_env` (JAX's pmapped axis sizes): only None or empty is supported."""
    if axis_env:
        raise NotImplementedInAstjaxError(
            "make_jaxpr(axis_env=...) with named axes is not supported",
            hint="stage the function inside the pmap / shard_map that binds the axes")
    if isinstance(fun, Jitted) and not (static_argnums or static_argnames):
        static_argnums, static_argnames = fun.static_argnums, fun.static_argnames
    j = fun if isinstance(fun, Jitted) and (fun._shardings, fun._options) != (None, None) \
        else Jitted(fun, static_argnums, static_argnames)   # (layouts, options: the body)

    @functools.wraps(fun)
    @_entry_point
    def make(*args, **kwargs):
        args, kwargs = abstract_arguments((args, kwargs))
        try:
            check_signature(j.fun, args, kwargs, "make_jaxpr")
            dyn_args, dyn_kwargs, statics = j._split(args, kwargs)
            leaves, in_tree = tree_util.flatten_for_staging((tuple(dyn_args), dyn_kwargs))
            avals = [leaf_aval(x) for x in leaves]
            types = _argument_types(j.fun, leaves)   # (ShapeDtypeStructs', set_mesh's)
            with _typed_staging(leaves, types):   # layouts on Explicit axes, as in jit
                closed, out_tree = j._stage(dyn_args, dyn_kwargs, statics, in_tree, avals,
                                            discharge=False, dce=False)
            closed = _explicit.with_types(closed, leaves, types)
        except AstjaxError as e:
            raise e.with_traceback(user_traceback(e)) from None
        if not return_shape:
            return closed
        # JAX's `jit(f).trace(...).out_info`: weak types, results typed over Explicit axes
        outs = _result_types(closed, types) if any(t is not None for t in types) or (
            isinstance(closed, _explicit.TypedClosedJaxpr)) else [None] * len(
            closed.jaxpr.outvars)   # (typed arguments or closed-over arrays)
        return closed, _out_structs(closed, out_tree, outs)
    return make


def _typed_consts(entry) -> bool:
    """Whether the program of a `jit` entry closes over arrays laid out over an
    Explicit mesh (its results are typed from them as from typed arguments)."""
    closed = getattr(entry, "staged", None) or getattr(entry, "closed", None)
    return closed is not None and bool(_explicit.const_types(closed.jaxpr.constvars,
                                                             closed.consts))


def typeof(x: Any) -> core.ShapedArray:
    """The abstract value of `x` -- shape, dtype and weak type -- as `jax.typeof`
    (an Array, a staged value, a NumPy array or a Python scalar); for an array laid
    out over Explicit mesh axes, and a value computed from such arrays inside `jit`,
    also its `.sharding` (sharding in types, `codegen/explicit.py`); a hijax value's
    registered type (`jax.experimental.hijax.register_hitype`)."""
    try:
        return _explicit.typeof(x, core.get_aval(x))
    except TypeError as e:
        hi = _hi.hi_type(x)
        if hi is not None:
            return hi
        if isinstance(e, AstjaxError):    # (one of a shard_map body's earlier operations)
            raise
        raise ArgumentTypeError(f"typeof: {e}", loc=caller_location()) from None


@_entry_point
def eval_shape(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes of `fun(*args, **kwargs)` as ShapeDtypeStructs (of a `jit`
    given `out_shardings`, its `.trace(...).out_info`, laid out as asked, as JAX's). It
    only stages (nothing is lowered, compiled or put on a device), so it works inside a
    jitted function and on closures over staged values."""
    if isinstance(fun, Jitted) and fun._shardings and fun._shardings[1] is not None:
        return fun.trace(*args, **kwargs).out_info
    if _hi.has_mutable((args, kwargs)):   # hijax Variables: staged on their arrays
        return eval_shape(functools.partial(_hi.run_lowered, fun),
                          _hi.Lowering((args, kwargs)).tree)[0]
    try:
        return _eval_shape(fun, args, kwargs)
    except _hi.CapturedHiError as e:   # (or hijax Variables it closes over)
        caps = tuple(e.objs)
        return eval_shape(functools.partial(_hi.run_lowered, fun, nodes=_hi.Lowering(
            list(caps)).tree, cap_objs=_hi.Idents(caps)), (args, kwargs))[0]


def _eval_shape(fun, args, kwargs):
    j = Jitted(fun)
    args, kwargs = abstract_arguments((args, kwargs))
    try:
        check_signature(fun, args, kwargs, "eval_shape")
        leaves, in_tree = tree_util.flatten_for_staging((tuple(args), kwargs))
        avals = [leaf_aval(x) for x in leaves]
        types = _argument_types(fun, leaves)   # (ShapeDtypeStructs' layouts, set_mesh's)
        with _typed_staging(leaves, types):   # layouts on Explicit axes, as in jit
            closed, out_tree = j._stage(list(args), kwargs, (), in_tree, avals)
        outs = _result_types(closed, types)
    except AstjaxError as e:
        raise e.with_traceback(user_traceback(e)) from None
    return _out_structs(closed, out_tree, outs)


from .devices_api import (block_until_ready, default_backend, device_count,  # noqa: E402,F401
                          device_get, device_put, devices, local_device_count, local_devices,
                          make_mesh, process_count, process_index)
