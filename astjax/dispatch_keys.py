"""jit's dispatch keys: a cheap, hashable signature of a call's arguments for the
per-function executable cache (`api.Jitted`), the entries that cache holds (`Entry`:
one compiled signature), and the output rebuilders an entry keeps (including the
host-side float0 results a compiled program cannot return).

A signature is built without flattening through the pytree registry: builtin
containers, astjax Arrays, NumPy arrays and Python scalars have a fast form; anything
else raises `NoFastPath` and the call takes the full path (`tree_util.tree_flatten`).
"""
from __future__ import annotations

import copy
import functools

import numpy as np

from . import core, dtypes, tree_util
from .codegen import cpp_jit, runtime, sharded, stablehlo
from .errors import DTypeError

_Array, _Committed = runtime.Array, runtime.CommittedArray
_GlobalArray = sharded.GlobalArray
_config_values = dtypes.config._values


class NoFastPath(Exception):
    """The arguments have no fast signature: take the full dispatch path."""


def numpy_key(args):
    """The fast-path key `_signature` makes for positional NumPy arguments."""
    return (_config_values["jax_enable_x64"], *[(a.shape, a.dtype) for a in args])


KWARGS = object()  # marks where keyword arguments start in a fast-path key
STATIC = object()  # tags a static argument's value in a fast-path key


def tree_sig(x, leaves):
    """A cheap, hashable signature of one argument for the dispatch cache, appending
    its leaves to `leaves` in `tree_util.tree_flatten` order. Per leaf: the interned
    aval's id for an Array (with its device if committed), (shape, dtype) for a NumPy
    array, the aval's parts and the sharding for a GlobalArray, the type for a Python
    scalar; containers: (type, *children) for tuples and lists, (dict, keys,
    *children) for dicts. Anything else (namedtuples, registered nodes, NumPy
    scalars, ...) raises NoFastPath and takes the full path (`Jitted._entry`)."""
    t = type(x)
    if t is _Array:
        leaves.append(x)
        return id(x.aval)
    if t is dict:
        try:
            keys = tuple(sorted(x))
        except TypeError:
            raise NoFastPath from None
        sig, children = [dict, keys], map(x.__getitem__, keys)
    elif t is tuple or t is list:
        sig, children = [t], x
    elif t is _Committed:   # (its device too: the entry runs there)
        leaves.append(x)
        return (id(x.aval), x.device)
    elif t is np.ndarray:
        leaves.append(x)
        return (x.shape, x.dtype)
    elif t is _GlobalArray:       # a partitioned program's argument: its layout too
        leaves.append(x)
        a = x.aval
        return (_GlobalArray, a.shape, a.dtype, a.weak_type, x._sharding)
    elif t is float or t is int or t is bool or t is complex:
        leaves.append(x)
        return t
    elif x is None:
        return None
    else:
        raise NoFastPath
    # a container's children, in this frame; Array children (a large parameter dict's
    # leaves) without a call each
    append, add_leaf = sig.append, leaves.append
    for c in children:
        if type(c) is _Array:
            add_leaf(c)
            append(id(c.aval))
        else:
            append(tree_sig(c, leaves))
    return tuple(sig)


cpp_flatten = runtime.cpp_pytrees.flatten
TREE_PLANS_PER_STRUCTURE = 8   # signatures kept per argument structure (oldest dropped)
TREE_STRUCTURES = 1024         # structures kept per function (all dropped past it)


def has_dict(x):
    """Whether a tree of tuples and lists holds a dict."""
    t = type(x)
    return t is dict or ((t is tuple or t is list) and any(map(has_dict, x)))


def add_tree_plan(trees, args, entry):
    """Record `entry` in `trees` (treedef -> [(x64, avals, entry), ...]) for positional
    arguments that are builtin containers (tuples, lists, dicts, None) of plain Arrays
    only -- a parameter tree --, flattened by jaxlib's C++ registry (the leaf order of
    `tree_util`). `api.Jitted.__call__` finds it again by the treedef and compares the
    leaves' avals as one list (identity first, as the interned avals are): no
    per-call key tuple, no hashing of its parts. Returns whether it was recorded."""
    try:
        leaves, treedef = cpp_flatten(args)
    except Exception:  # noqa: BLE001 -- e.g. unsortable dict keys: the general path
        return False
    avals = [a.aval for a in leaves if type(a) is _Array]
    if len(avals) != len(leaves):
        return False
    x64 = _config_values["jax_enable_x64"]
    if len(trees) >= TREE_STRUCTURES and treedef not in trees:
        trees.clear()   # (as `Jitted._remember` clears its table: the slow path refills)
    plans = trees.setdefault(treedef, [])
    plans[:] = [p for p in plans if p[0] != x64 or p[1] != avals][
        -(TREE_PLANS_PER_STRUCTURE - 1):]
    plans.append((x64, avals, entry))
    return True


def unflattener(out_tree):
    """leaves -> results, specialised for the common output trees; other trees of
    tuples, lists, dicts and None by jaxlib's C++ unflatten (a 900-leaf dict: about
    a third of the Python one's time)."""
    if out_tree.node_type is None:
        return _first
    if out_tree.node_type in (tuple, list) and all(c.node_type is None
                                                   for c in out_tree.children):
        return tuple if out_tree.node_type is tuple else list
    return (cpp_jit.cpp_unflattener(out_tree)
            or functools.partial(tree_util.tree_unflatten, out_tree))


def _first(outs):
    """The only result of a one-leaf output tree."""
    return outs[0]


def without_float0_outputs(closed):
    """(`closed` without its float0 outputs -- and the float0 consts only those used --,
    [(position, aval)] of the outputs removed). XLA has no float0 element type; as in
    JAX, such results (the gradients of integer inputs under `allow_int`) are zeros made
    on the host (`with_float0_outputs`), never computed by the program."""
    jaxpr = closed.jaxpr
    removed = [(i, v.aval) for i, v in enumerate(jaxpr.outvars)
               if v.aval.dtype == dtypes.float0]
    if not removed:
        return closed, []
    outvars = [v for v in jaxpr.outvars if v.aval.dtype != dtypes.float0]
    used = {id(x) for e in jaxpr.eqns for x in e.invars} | {id(v) for v in outvars}
    keep = [i for i, v in enumerate(jaxpr.constvars)
            if v.aval.dtype != dtypes.float0 or id(v) in used]
    program = core.Jaxpr([jaxpr.constvars[i] for i in keep], jaxpr.invars, outvars, jaxpr.eqns)
    return core.ClosedJaxpr(program, [closed.consts[i] for i in keep]), removed


def without_float0_inputs(closed):
    """(`closed` without its float0 inputs, their positions among the arguments).
    A float0 value carries no data: as JAX does, `jit` takes it on the host and passes
    it through. Equations whose results are all float0 (a reshape or slice of such an
    input) compute nothing and go too -- their results, like every float0 output, are
    host zeros (`without_float0_outputs`); converted to a numeric dtype one is zeros; any
    other operation that makes data of one is a located `DTypeError`, a TypeError as
    JAX's."""
    jaxpr = closed.jaxpr
    drop = [i for i, v in enumerate(jaxpr.invars) if v.aval.dtype == dtypes.float0]
    if not drop:
        return closed, ()
    eqns, constvars, consts = [], list(jaxpr.constvars), list(closed.consts)
    for e in jaxpr.eqns:
        if not core.has_effects(e) and all(v.aval.dtype == dtypes.float0 for v in e.outvars):
            continue
        x = e.invars[0] if e.invars else None
        if (e.primitive.name == "convert_element_type" and isinstance(x, core.Var)
                and x.aval.dtype == dtypes.float0):
            # a float0 converted to a numeric dtype is zeros of it, as in JAX
            out = e.outvars[0].aval
            z = core.Var(out.update(weak_type=False))
            constvars.append(z)
            consts.append(np.zeros(out.shape, out.dtype))
            e = e.replace(invars=[z])
        eqns.append(e)
    used = {id(x): e for e in eqns for x in e.invars}
    for i in drop:
        eqn = used.get(id(jaxpr.invars[i]))
        if eqn is not None:
            raise DTypeError(f"`{eqn.primitive.name}` of a float0 array: float0 values "
                             "support no operation (they are the tangents of integer "
                             "and bool values)", loc=eqn.source_info,
                             hint="make a zeros array of a numeric dtype instead")
    invars = [v for i, v in enumerate(jaxpr.invars) if i not in drop]
    live = set(used) | {id(v) for v in jaxpr.outvars}
    keep = [i for i, v in enumerate(constvars)
            if v.aval.dtype != dtypes.float0 or id(v) in live]
    program = core.Jaxpr([constvars[i] for i in keep], invars, jaxpr.outvars, eqns)
    return core.ClosedJaxpr(program, [consts[i] for i in keep]), tuple(drop)


def with_float0_outputs(unflatten, removed):
    """`unflatten` for a program whose float0 outputs `removed` (from
    `without_float0_outputs`) are put back as host zeros, as JAX returns them."""
    def rebuild(outs):
        outs = list(outs)
        for i, aval in removed:
            outs.insert(i, dtypes._float0_zeros(aval.shape))
        return unflatten(outs)
    return rebuild


class Entry:
    """One compiled signature of `jit` (`api.Jitted`): executable, consts on device,
    output tree."""
    __slots__ = ("closed", "program", "executable", "consts", "out_tree", "_text",
                 "const_bufs", "in_avals", "unflatten", "call_buffers", "exe", "handlers",
                 "out_avals", "out_aval0", "single", "in_tree", "float0_in", "placed",
                 "wrap", "device", "compiler_options", "many", "arrays", "arrays_view",
                 "platform", "lower_args")

    def __init__(self, closed, out_tree, name, donated=(), compiler_options=(),
                 platform="cpu"):
        self.closed = closed   # what `stage` / make_jaxpr show; `program` is compiled
        self.out_tree = out_tree
        self.program, float0_outs = without_float0_outputs(closed)
        # float0 arguments carry no data: the program never sees them (`run` drops them)
        self.program, self.float0_in = without_float0_inputs(self.program)
        # (closed-over values: constants of the module, as JAX's, not parameters)
        self.program, embedded = stablehlo.embedded_constants(self.program, runtime.ONE_DEVICE)
        closed = self.program
        jaxpr = closed.jaxpr
        nconst = len(jaxpr.constvars)
        self.platform = platform   # what the module is lowered for (`for_platform`)
        self.lower_args = dict(
            name=f"jit_{name}", donated={i + nconst for i in donated},
            result_names=stablehlo.result_names(out_tree, [i for i, _ in float0_outs]),
            embedded=embedded)
        self._text = None   # lowered when first needed (`text`), as JAX lowers
        self.executable = None
        self.consts = [c if isinstance(c, runtime.Array) else runtime.device_put(np.asarray(c))
                       for c in closed.consts]
        self.const_bufs = [c._buf for c in self.consts]
        self.in_avals = [v.aval for v in jaxpr.invars]
        self.unflatten = unflattener(out_tree)
        if float0_outs:   # host zeros put back among the program's results
            self.unflatten = with_float0_outputs(self.unflatten, float0_outs)
        self.single = out_tree.node_type is None and not float0_outs
        self.call_buffers = self.exe = self.handlers = self.out_avals = self.out_aval0 = None
        self.in_tree, self.many = None, False  # in_tree: set by Jitted._entry
        self.placed = {}     # device -> this entry there, for committed arguments
        self.wrap, self.device = _Array, None   # results uncommitted, on the default device
        self.compiler_options = compiler_options   # jit(compiler_options=)'s pairs
        # arrays: this object is reached only by signatures whose leaves are all plain
        # Arrays (`for_arrays`), so `Jitted.__call__` runs it without `run`'s checks
        self.arrays, self.arrays_view = False, None

    def for_platform(self, platform):
        """This entry lowered for `platform` instead (`Traced.lower(lowering_platforms=)`):
        a copy with its own module text and no executable yet."""
        if platform == self.platform:
            return self
        other = copy.copy(self)
        other.platform, other.executable, other.placed = platform, None, {}
        other._text = None
        return other

    @property
    def text(self):
        """The StableHLO module for `platform`, lowered on first use: staging (`trace`,
        an export for another platform) does not lower for this one, so a lowering
        this platform refuses (eigh's Jacobi on CPU) fails only when it is needed."""
        if self._text is None:
            self._text = stablehlo.lower_module(self.program.jaxpr, platform=self.platform,
                                                **self.lower_args)
        return self._text

    def compile(self):
        if self.executable is None:
            jaxpr = self.program.jaxpr
            self.executable = runtime.Executable(
                self.text, [v.aval for v in jaxpr.constvars + jaxpr.invars],
                [a.aval for a in jaxpr.outvars], compiler_options=self.compiler_options)
            ex = self.executable
            self.call_buffers = ex.call_buffers
            # what Jitted.__call__'s fast path needs, without a call into Executable
            self.exe, self.handlers, self.out_avals = ex.exe, ex.handlers, ex.out_avals
            self.out_aval0 = ex.out_avals[0] if ex.out_avals else None
            self.many = ex.many
        return self

    def run(self, leaves):
        """Run on flat argument leaves (Arrays or host values of this signature)."""
        put, dev = runtime.put_host, self.device
        if dev is not None:   # (placed on a committed device: uncommitted Arrays go there)
            leaves = runtime.on_device(leaves, dev)
        if self.float0_in:
            leaves = [x for i, x in enumerate(leaves) if i not in self.float0_in]
        bufs = [x._buf if type(x) is _Array or type(x) is _Committed else put(x, aval, dev)
                for x, aval in zip(leaves, self.in_avals)]
        if self.const_bufs:
            bufs = self.const_bufs + bufs
        return self.unflatten(self.call_buffers(bufs))

    def run_placed(self, leaves, names, what):
        """`run`, on the device JAX's placement rule picks (`runtime.placement`): the
        committed arguments' device (results committed), else the default one."""
        dev, committed = runtime.placement(leaves, names, what)
        if committed:
            return self.placed_on(dev).run(leaves)
        return self.run(runtime.on_device(leaves, dev))

    def placed_on(self, dev):
        """This entry run on `dev` with committed results (made once per device: the
        executable there and the consts copied there)."""
        view = self.placed.get(dev)
        if view is None:
            ex = self.executable
            if ex.device is not dev:
                ex = runtime.Executable(self.text, ex.in_avals, ex.out_avals, dev,
                                        compiler_options=self.compiler_options)
            ex = ex.committed()
            view = self.placed[dev] = copy.copy(self)
            view.executable, view.call_buffers, view.exe = ex, ex.call_buffers, ex.exe
            view.handlers, view.wrap, view.device, view.placed = ex.handlers, ex.wrap, dev, {}
            view.consts = runtime.on_device(self.consts, dev)
            view.const_bufs = [c._buf for c in view.consts]
            view.arrays, view.arrays_view = False, None
        return view

    def for_arrays(self):
        """This entry (on the default device) as the fast-path table keeps it for a
        signature whose leaves are all plain Arrays: a copy sharing the executable,
        marked `arrays`, made once."""
        view = self.arrays_view
        if view is None:   # (the view holds no reference back: no cycle to collect)
            view = self.arrays_view = copy.copy(self)
            view.arrays = True
            view.arrays_view = None
        return view
