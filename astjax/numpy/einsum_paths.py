"""The contraction order of an einsum, as JAX finds it: `jnp.einsum_path`.

JAX 0.10.2 hands `einsum_path` to opt_einsum 3.4's `contract_path`; this module
computes the same paths and the same printed report without that package:

- `optimize='auto'` (the default) picks by the number of operands, as opt_einsum's
  `auto`: an exhaustive depth-first search ('optimal') up to 4, branch and bound
  over every candidate ('branch-all') for 5-6, over the 2 cheapest per step
  ('branch-2') for 7-8 and the cheapest ('branch-1') for 9-14, then 'greedy';
- 'greedy' (also 'eager', 'opportunistic'): Hadamard products first, then the pair
  that removes the most memory, then outer products smallest first;
- 'dp' ('dynamic-programming'): the cheapest order without outer products, built
  over subsets of operands under a growing cost cap; 'auto-hq' is 'optimal' up to
  5 operands and 'dp' up to 16 (beyond, opt_einsum's random greedy trials: not here);
- True is 'optimal', False contracts left to right, a list is the path itself.

Each search is opt_einsum's, down to its tie-breaking (candidates ordered by cost,
then position), and its cache of pairwise results keyed by the two operands' index
sets alone, so equal inputs give equal paths. `PathInfo` prints opt_einsum's report
(FLOP counts, the BLAS kind of each pairwise step, the remaining terms).
"""
from __future__ import annotations

import bisect
import functools
import heapq
import itertools
from collections import Counter, defaultdict
from decimal import Decimal

import numpy as np

from .. import core
from ..errors import ArgumentValueError, NotImplementedInAstjaxError, UnknownPathOptimizerError

__all__ = ["einsum_path", "PathInfo", "contraction_path"]


def _size(indices, sizes):
    n = 1
    for i in indices:
        n *= sizes[i]
    return n


def _flops(indices, inner, terms, sizes):
    """opt_einsum's FLOP estimate: the contraction's index space times the number
    of terms less one (at least 1), plus one when an index is summed."""
    return _size(indices, sizes) * (max(1, terms - 1) + int(bool(inner)))


def _ssa_to_linear(ssa_path):
    """A path of single-assignment ids (each result a new id) as positions in the
    shrinking operand list (each result appended last)."""
    n = sum(map(len, ssa_path)) - len(ssa_path) + 1
    ids, path, ssa = list(range(n)), [], n
    for step in ssa_path:
        con = sorted(bisect.bisect_left(ids, s) for s in step)
        for j in reversed(con):
            ids.pop(j)
        ids.append(ssa)
        path.append(tuple(con))
        ssa += 1
    return path


def _pair(inputs, output, remaining, i, j, sizes):
    """The indices of inputs[i] * inputs[j]'s result and the step's FLOPs."""
    k1, k2 = inputs[i], inputs[j]
    either = k1 | k2
    keep = frozenset.union(output, *(inputs[r] for r in remaining - {i, j}))
    return either & keep, _flops(either, bool((k1 & k2) - keep), 2, sizes)


def _optimal(inputs, output, sizes):
    """Every order, depth first, pruned by the best total found so far."""
    best = {"flops": float("inf"), "path": (tuple(range(len(inputs))),)}
    cache = {}

    def step(path, remaining, inputs, flops):
        if len(remaining) == 1:
            best["flops"], best["path"] = flops, path
            return
        for i, j in itertools.combinations(remaining, 2):
            i, j = min(i, j), max(i, j)
            key = (inputs[i], inputs[j])
            if key not in cache:
                cache[key] = _pair(inputs, output, remaining, i, j, sizes)
            k12, f12 = cache[key]
            if flops + f12 >= best["flops"]:
                continue
            step(path + ((i, j),), remaining - {i, j} | {len(inputs)}, inputs + (k12,),
                 flops + f12)

    step((), set(range(len(inputs))), tuple(inputs), 0)
    return _ssa_to_linear(best["path"])


def _branch(inputs, output, sizes, nbranch, cutoff=4):
    """Depth first over the `nbranch` candidates that remove the most memory at each
    step (all with None), pruned by the best (FLOPs, largest intermediate) so far and
    by a cutoff on FLOPs relative to the best progress at the same depth."""
    best = {"flops": float("inf"), "size": float("inf"), "path": None}
    progress = defaultdict(lambda: float("inf"))
    size_of = {k: _size(k, sizes) for k in inputs}
    cache = {}

    def step(path, inputs, remaining, flops, size):
        if len(remaining) == 1:
            best.update(size=size, flops=flops, path=path)
            return

        def assess(k1, k2, i, j):
            if (k1, k2) not in cache:
                cache[k1, k2] = _pair(inputs, output, remaining, i, j, sizes)
            k12, f12 = cache[k1, k2]
            if k12 not in size_of:
                size_of[k12] = _size(k12, sizes)
            new_flops, new_size = flops + f12, max(size, size_of[k12])
            if not (new_flops, new_size) < (best["flops"], best["size"]):
                return None
            if new_flops < progress[len(inputs)]:
                progress[len(inputs)] = new_flops
            elif new_flops > cutoff * progress[len(inputs)]:
                return None
            cost = size_of[k12] - size_of[inputs[i]] - size_of[inputs[j]]
            return cost, f12, new_flops, new_size, (i, j), k12

        candidates = []
        for outer in (False, True):   # outer products only when nothing else is left
            for i, j in itertools.combinations(remaining, 2):
                i, j = min(i, j), max(i, j)
                k1, k2 = inputs[i], inputs[j]
                if not outer and k1.isdisjoint(k2):
                    continue
                c = assess(k1, k2, i, j)
                if c:
                    heapq.heappush(candidates, c)
            if candidates:
                break
        taken = 0
        while (nbranch is None or taken < nbranch) and candidates:
            _, _, new_flops, new_size, (i, j), k12 = heapq.heappop(candidates)
            step(path + ((i, j),), inputs + (k12,), (remaining - {i, j}) | {len(inputs)},
                 new_flops, new_size)
            taken += 1

    step((), tuple(inputs), set(range(len(inputs))), 0, 0)
    return _ssa_to_linear(best["path"])


def _greedy_candidate(output, sizes, ids, footprints, shared, k1, k2):
    either, two = k1 | k2, k1 & k2
    k12 = (either & output) | (two & shared[3]) | ((either - two) & shared[2])
    cost = _size(k12, sizes) - footprints[k1] - footprints[k2]
    id1, id2 = ids[k1], ids[k2]
    if id1 > id2:
        k1, id1, k2, id2 = k2, id2, k1, id1
    return (cost, id2, id1), k1, k2, k12


def _recount(dim_keys, shared, dims):
    for d in dims:
        n = len(dim_keys[d])
        for count in (2, 3):
            (shared[count].add if n >= count else shared[count].discard)(d)


def _greedy(inputs, output, sizes):
    """Repeated operands first, then the pair whose result frees the most memory
    (ties: the lower ids), then what is left pairwise by the smallest result."""
    if len(inputs) == 1:
        return [(0,)]
    output = frozenset(output) | frozenset.intersection(*inputs)
    ids, counter, ssa_path = {}, itertools.count(len(inputs)), []
    for ssa_id, key in enumerate(inputs):
        if key in ids:
            ssa_path.append((ids[key], ssa_id))
            ids[key] = next(counter)
        else:
            ids[key] = ssa_id
    dim_keys = defaultdict(set)
    for key in ids:
        for d in key - output:
            dim_keys[d].add(key)
    shared = {c: {d for d, ks in dim_keys.items() if len(ks) >= c} - output for c in (2, 3)}
    footprints = {key: _size(key, sizes) for key in ids}
    queue = []
    for d, keys in dim_keys.items():
        ordered = sorted(keys, key=ids.__getitem__)
        for i, k1 in enumerate(ordered[:-1]):
            heapq.heappush(queue, min(_greedy_candidate(output, sizes, ids, footprints,
                                                        shared, k1, k2)
                                      for k2 in ordered[1 + i:]))
    while queue:
        _, k1, k2, k12 = heapq.heappop(queue)
        if k1 not in ids or k2 not in ids:
            continue   # a pair of which one operand is gone
        id1, id2 = ids.pop(k1), ids.pop(k2)
        for d in k1 - output:
            dim_keys[d].remove(k1)
        for d in k2 - output:
            dim_keys[d].remove(k2)
        ssa_path.append((id1, id2))
        if k12 in ids:
            ssa_path.append((ids[k12], next(counter)))
        else:
            for d in k12 - output:
                dim_keys[d].add(k12)
        ids[k12] = next(counter)
        _recount(dim_keys, shared, k1 | (k2 - output))
        footprints[k12] = _size(k12, sizes)
        others = {k for d in k12 for k in dim_keys[d]}
        others.discard(k12)
        if others:
            heapq.heappush(queue, min(_greedy_candidate(output, sizes, ids, footprints, shared,
                                                        k12, k2) for k2 in others))
    final = [(_size(key & output, sizes), ssa_id, key) for key, ssa_id in ids.items()]
    heapq.heapify(final)
    _, id1, k1 = heapq.heappop(final)
    while final:
        _, id2, k2 = heapq.heappop(final)
        ssa_path.append((min(id1, id2), max(id1, id2)))
        k12 = (k1 | k2) & output
        _, id1, k1 = heapq.heappushpop(final, (_size(k12, sizes), next(counter), k12))
    return _ssa_to_linear(ssa_path)


def _components(kept, output):
    """The operands of `kept` grouped by the summed indices they share (each group
    contracts without an outer product), each group found from its lowest member as
    a Python set (the group's set iteration order is the search's order)."""
    summed = frozenset().union(*kept) - output
    left, groups = set(range(len(kept))), []
    while left:
        group, todo = set(), [left.pop()]
        while todo:
            j = todo.pop()
            group.add(j)
            linked = {k for k in left if summed & kept[j] & kept[k]}
            todo.extend(linked)
            left -= linked
        groups.append(frozenset(group))
    return groups


def _tree_to_path(tree, n):
    """A contraction tree (nested tuples; ints are input positions, a 1-tuple a
    single-operand reduction) as a linear path, children before parents, left first."""
    ssa_path, counter = [], itertools.count(n)

    def visit(node):
        if isinstance(node, int):
            return node
        ids = [visit(child) for child in node]
        ssa_path.append(tuple(ids))
        return next(counter)

    visit(tree)
    return _ssa_to_linear(ssa_path)


def _dynamic_programming(inputs, output, sizes):
    """opt_einsum's 'dp': the cheapest order without outer products, by subsets of
    growing size, under a cap on the summed index-space sizes raised by the smallest
    index size until the whole group is reached; indices on one operand only are
    summed first, groups sharing no summed index are joined last, smallest first."""
    counts = Counter(itertools.chain(*inputs, output))
    lone = {c for c, k in counts.items() if k == 1}
    kept, leaves, done = [], [], []
    for j, term in enumerate(inputs):
        rest = term - lone
        if term and not rest:
            done.append((j,))
        else:
            kept.append(rest)
            leaves.append((j,) if rest != term else j)
    parts, part_sizes = list(done), [1] * len(done)
    for group in (_components(kept, output) if kept else ()):
        everyone = sum(1 << j for j in group)
        best = [None, {1 << j: (kept[j], 0, leaves[j]) for j in group}]
        best += [{} for _ in range(len(group) - 1)]
        indices = frozenset().union(*(kept[j] for j in group))
        cap = _size(indices & output, sizes)
        factor = max(min((sizes[c] for c in indices), default=2), 2)
        while not best[-1]:
            for n in range(2, len(group) + 1):
                for m in range(1, n // 2 + 1):
                    for s1, (k1, cost1, tree1) in best[m].items():
                        for s2, (k2, cost2, tree2) in best[n - m].items():
                            if s1 & s2 or (m == n - m and s1 >= s2):
                                continue
                            shared = (k1 & k2) - output
                            if not shared:
                                continue
                            both = k1 | k2
                            cost = cost1 + cost2 + _size(both, sizes)
                            s = s1 | s2
                            if cost > cap or (s in best[n] and cost >= best[n][s][1]):
                                continue
                            others = frozenset().union(*(kept[j] for j in group
                                                         if not s >> j & 1))
                            best[n][s] = (both - (shared - others), cost, (tree1, tree2))
            cap *= factor
        legs, _, tree = best[-1][everyone]
        parts.append(tree)
        part_sizes.append(_size(legs, sizes))
    order = sorted(range(len(parts)), key=part_sizes.__getitem__)
    tree = functools.reduce(lambda a, b: (a, b), [parts[k] for k in order])
    return _tree_to_path(tree, len(inputs))


def _auto_hq(inputs, output, sizes):
    n = len(inputs)
    if n <= 5:
        return _optimal(inputs, output, sizes)
    if n <= 16:
        return _dynamic_programming(inputs, output, sizes)
    # (opt_einsum's 128 randomized greedy trials: their draws follow the iteration
    # order of sets of index letters, so JAX's path changes with the process's string
    # hash seed -- no one path to reproduce)
    raise NotImplementedInAstjaxError(
        "einsum path optimizer 'auto-hq' beyond 16 operands (opt_einsum's 128 random "
        "greedy trials, whose path under JAX depends on the process's hash seed) is not "
        "implemented", hint="use 'dp', 'greedy' or 'auto'")


def _auto(inputs, output, sizes):
    n = len(inputs)
    if n <= 4:
        return _optimal(inputs, output, sizes)
    if n <= 14:
        return _branch(inputs, output, sizes, None if n <= 6 else 2 if n <= 8 else 1)
    return _greedy(inputs, output, sizes)


_SEARCHES = {
    "auto": _auto, "optimal": _optimal, "greedy": _greedy, "eager": _greedy,
    "opportunistic": _greedy,
    "branch-all": lambda i, o, s: _branch(i, o, s, None),
    "branch-2": lambda i, o, s: _branch(i, o, s, 2),
    "branch-1": lambda i, o, s: _branch(i, o, s, 1),
    "dp": _dynamic_programming, "dynamic-programming": _dynamic_programming,
    "auto-hq": _auto_hq,
}


def _parse(subscripts, shapes):
    """(input terms, output term) with ellipses spelled out as opt_einsum does (unused
    letters from the end of the run it draws from) and the implicit output sorted."""
    s = subscripts.replace(" ", "")
    if ("-" in s or ">" in s) and (s.count("-") > 1 or s.count(">") > 1 or s.count("->") != 1):
        raise ArgumentValueError("Subscripts can only contain one '->'.")
    if "." in s:
        used = s.replace(".", "").replace(",", "").replace("->", "")
        free = "".join(itertools.islice((c for c in _symbols() if c not in used),
                                        max(len(x) for x in shapes)))
        ins, _, out = s.partition("->")
        terms, longest = ins.split(","), 0
        for k, term in enumerate(terms):
            if "." not in term:
                continue
            if term.count(".") != 3 or term.count("...") != 1:
                raise ArgumentValueError("Invalid Ellipses.")
            n = 0 if shapes[k] == () else max(len(shapes[k]), 1) - (len(term) - 3)
            if n < 0:
                raise ArgumentValueError("Ellipses lengths do not match.")
            longest = max(longest, n)
            terms[k] = term.replace("...", free[-n:] if n else "")
        s = ",".join(terms)
        ell = free[-longest:] if longest else ""
        if "->" in subscripts.replace(" ", ""):
            s += "->" + out.replace("...", ell)
        else:
            implicit = _implicit_output(s)
            s += "->" + ell + "".join(sorted(set(implicit) - set(ell)))
    ins, arrow, out = s.partition("->")
    if not arrow:
        out = _implicit_output(ins)
    for c in out:
        if out.count(c) != 1:
            raise ArgumentValueError(f"Output character '{c}' appeared more than once in the "
                                     "output.")
        if c not in ins:
            raise ArgumentValueError(f"Output character '{c}' did not appear in the input")
    terms = ins.split(",")
    if len(terms) != len(shapes):
        raise ArgumentValueError(f"Number of einsum subscripts, {len(terms)}, must be equal "
                                 f"to the number of operands, {len(shapes)}.")
    return terms, out


def _implicit_output(ins):
    flat = ins.replace(",", "")
    return "".join(c for c in sorted(set(flat)) if flat.count(c) == 1)


def _symbols():
    """The letters opt_einsum names indices with: a-z, A-Z, then from chr(192) on
    (skipping surrogates)."""
    yield from "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    i = 52
    while True:
        yield chr(i + 140) if i < 55296 else chr(i + 2048)
        i += 1


def _can_blas(inputs, result, removed, shapes):
    """The BLAS kind opt_einsum names a pairwise step by, or False."""
    if len(inputs) != 2:
        return False
    left, right = inputs
    for c in set(left + right):
        nl, nr = left.count(c), right.count(c)
        if nl > 1 or nr > 1 or nl + nr > 2 or nl + nr - 1 == int(c in result):
            return False
    for c in removed:
        if shapes[0][left.find(c)] != shapes[1][right.find(c)]:
            return False
    if not removed:
        return "OUTER/EINSUM"
    rs = len(removed)
    if left == right:
        return "DOT"
    if set(left) == set(right):
        return "DOT/EINSUM"
    if left[-rs:] == right[:rs] or left[:rs] == right[-rs:] or left[-rs:] == right[-rs:] \
            or left[:rs] == right[:rs]:
        return "GEMM"
    if not set(left) - removed or not set(right) - removed:
        return "GEMV/EINSUM"
    return "TDOT"


class PathInfo:
    """What `einsum_path` found, printed as opt_einsum's report (JAX returns
    opt_einsum's object): the naive and optimized FLOP counts and scaling, the
    largest intermediate, and per step its scaling, BLAS kind, the contraction and
    the terms remaining."""

    def __init__(self, contraction_list, input_subscripts, output_subscript, indices, path,
                 scale_list, naive_cost, opt_cost, size_list, size_dict):
        self.contraction_list = contraction_list
        self.input_subscripts = input_subscripts
        self.output_subscript = output_subscript
        self.path = path
        self.indices = indices
        self.scale_list = scale_list
        self.naive_cost = Decimal(naive_cost)
        self.opt_cost = Decimal(opt_cost)
        self.speedup = self.naive_cost / max(self.opt_cost, Decimal(1))
        self.size_list = size_list
        self.size_dict = size_dict
        self.shapes = [tuple(size_dict[k] for k in ks) for ks in input_subscripts.split(",")]
        self.eq = f"{input_subscripts}->{output_subscript}"
        self.largest_intermediate = Decimal(max(size_list, default=1))

    def __repr__(self):
        lines = [f"  Complete contraction:  {self.eq}\n",
                 f"         Naive scaling:  {len(self.indices)}\n",
                 f"     Optimized scaling:  {max(self.scale_list, default=0)}\n",
                 f"      Naive FLOP count:  {self.naive_cost:.3e}\n",
                 f"  Optimized FLOP count:  {self.opt_cost:.3e}\n",
                 f"   Theoretical speedup:  {self.speedup:.3e}\n",
                 f"  Largest intermediate:  {self.largest_intermediate:.3e} elements\n",
                 "-" * 80 + "\n",
                 "{:>6} {:>11} {:>22} {:>37}\n".format("scaling", "BLAS", "current",
                                                       "remaining"),
                 "-" * 80]
        for n, (_, _, einsum_str, remaining, blas) in enumerate(self.contraction_list):
            rest = ",".join(remaining) + "->" + self.output_subscript if remaining is not None \
                else "..."
            width = max(0, 56 - max(22, len(einsum_str)))
            lines.append("\n{:>4} {:>14} {:>22}    {:>{}}".format(
                self.scale_list[n], blas, einsum_str, rest, width))
        return "".join(lines)


def contraction_path(subscripts, shapes, optimize="auto"):
    """(path, PathInfo) for operands of `shapes`: opt_einsum's `contract_path` with
    BLAS kinds and no memory limit, as JAX calls it."""
    if optimize is True or optimize is None:
        optimize = "auto"
    shapes = [tuple(int(d) for d in s) for s in shapes]
    terms, out = _parse(subscripts, shapes)
    input_subscripts = ",".join(terms)
    input_sets = [frozenset(t) for t in terms]
    output_set = frozenset(out)
    indices = frozenset("".join(terms))
    sizes = {}
    for k, term in enumerate(terms):
        if len(shapes[k]) != len(term):
            raise ArgumentValueError(f"Einstein sum subscript '{term}' does not contain the "
                                     f"correct number of indices for operand {k}.")
        for c, d in zip(term, shapes[k]):
            if c in sizes and sizes[c] != 1 and d not in (1, sizes[c]):
                raise ArgumentValueError(f"Size of label '{c}' for operand {k} ({sizes[c]}) "
                                         f"does not match previous terms ({d}).")
            if c not in sizes or sizes[c] == 1:
                sizes[c] = d
    n = len(terms)
    naive = _flops(indices, sum(len(x) for x in input_sets) - len(indices) > 0, n, sizes)
    if optimize is False:
        path = [tuple(range(n))] if n <= 2 else [(0, 1)] * (n - 1)
    elif not isinstance(optimize, str):
        path = [tuple(step) for step in optimize]
    elif n <= 2:
        path = [tuple(range(n))]
    else:
        key = optimize.lower()
        if key not in _SEARCHES:
            raise UnknownPathOptimizerError(
                f"Path optimizer '{optimize}' not found, valid options are "
                f"{set(_SEARCHES)}.")
        path = _SEARCHES[key](input_sets, output_set, sizes)
    steps, scales, sizes_out, costs = [], [], [], []
    terms, shapes = list(terms), list(shapes)
    for k, step in enumerate(path):
        step = tuple(sorted(step, reverse=True))
        remaining = list(input_sets)
        taken = [remaining.pop(i) for i in step]
        space = frozenset.union(*taken)
        result = output_set.union(*remaining) & space
        removed = space - result
        input_sets = remaining + [result]
        costs.append(_flops(space, bool(removed), len(step), sizes))
        scales.append(len(space))
        sizes_out.append(_size(result, sizes))
        tmp_terms = [terms.pop(i) for i in step]
        tmp_shapes = [shapes.pop(i) for i in step]
        blas = _can_blas(tmp_terms, "".join(result), removed, tmp_shapes)
        if k == len(path) - 1:
            res = out
        else:   # tensordot's order of the result's indices
            joined = "".join(tmp_terms)
            res = "".join(sorted(result, key=joined.find))
        terms.append(res)
        shapes.append(tuple(max(s[t.find(c)] for s, t in zip(tmp_shapes, tmp_terms)
                                if t.find(c) >= 0) for c in res))
        steps.append((step, removed, ",".join(tmp_terms) + "->" + res,
                      tuple(terms) if len(terms) <= 20 else None, blas))
    info = PathInfo(steps, input_subscripts, out, indices, path, scales, naive, sum(costs),
                    sizes_out, sizes)
    return path, info


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """The contraction order JAX's `jnp.einsum` would use, and its report.

    Args:
      subscripts: the einsum spec, e.g. 'ij,jk,kl->il'.
      operands: arrays (only their shapes are used; staged values too).
      optimize: 'auto' (default), 'optimal', 'greedy' ('eager', 'opportunistic'),
        'branch-all' / 'branch-2' / 'branch-1', 'dp' ('dynamic-programming'),
        'auto-hq', True ('optimal'), False (left to right), or an explicit path (a
        list of tuples of positions).
    Returns:
      `(path, info)`: the list of contraction tuples, and a `PathInfo` that prints
      opt_einsum's report.
    Differs from JAX: 'auto-hq' beyond 16 operands (opt_einsum's random greedy
    trials) is not implemented (NotImplementedError); the interleaved
    `(array, axes, ...)` form is not accepted.
    """
    if not isinstance(subscripts, str):
        raise NotImplementedInAstjaxError(
            "einsum_path: the interleaved (operand, axes, ...) form is not implemented",
            hint="pass a subscripts string first")
    shapes = [core.get_aval(o).shape if isinstance(o, core.Tracer) or hasattr(o, "aval")
              else np.shape(o) for o in operands]
    if isinstance(optimize, bool):   # (JAX's: True is 'optimal', not opt_einsum's 'auto')
        optimize = "optimal" if optimize else False
    return contraction_path(subscripts, shapes, optimize)
