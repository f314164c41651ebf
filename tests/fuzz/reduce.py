"""Delta reducer: remove statements (and `elif`/`else` parts, or a block's header
keeping its first body) of a failing program while the reference still runs and the
failure keeps its signature. Greedy one-at-a-time removal to a fixpoint (ddmin at
granularity 1), which on these programs reaches a few lines."""
from __future__ import annotations

import copy

from .checks import run_program
from .gen import Block


def _same(prog, check, sig):
    case = run_program(prog, (check,))
    r = case.results.get(check)
    return r is not None and r[0] in ("wrong", "crash") and r[1] == sig


def _paths(prog):
    """Every statement as a path [(block index, part index), ..., index]."""
    out = []

    def walk(body, prefix):
        for i, st in enumerate(body):
            out.append(prefix + [i])
            if isinstance(st, Block):
                for k, (_, sub) in enumerate(st.parts):
                    walk(sub, prefix + [(i, k)])
    walk(prog.body, [])
    return out


def _apply(prog, path, kind, k):
    new = copy.deepcopy(prog)
    body = new.body
    for (i, kk) in path[:-1]:
        body = body[i].parts[kk][1]
    i = path[-1]
    st = body[i]
    if kind == "drop":
        if body is new.body and i == len(body) - 1:
            return None        # keep the final return
        del body[i]
    elif kind == "part":
        del st.parts[k]
    elif kind == "inline":
        body[i:i + 1] = st.parts[0][1]
    return new


def reduce(prog, check, sig, max_trials=300):
    trials = 0
    changed = True
    while changed and trials < max_trials:
        changed = False
        for path in _paths(prog):
            body = prog.body
            for (i, k) in path[:-1]:
                body = body[i].parts[k][1]
            st = body[path[-1]]
            kinds = [("drop", None)]
            if isinstance(st, Block):
                kinds += [("part", k) for k in range(len(st.parts) - 1, 0, -1)]
                kinds.append(("inline", None))
            for kind, k in kinds:
                cand = _apply(prog, path, kind, k)
                if cand is None:
                    continue
                trials += 1
                if _same(cand, check, sig):
                    prog, changed = cand, True
                    break
                if trials >= max_trials:
                    return prog
            if changed:
                break
    return prog
