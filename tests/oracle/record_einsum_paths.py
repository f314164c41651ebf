"""`jnp.einsum_path` in JAX 0.10.2 (opt_einsum 3.4's `contract_path`): the path and
the printed report for 3 to 16 operands under every `optimize` choice astjax has,
the dynamic-programming 'dp' and 'auto-hq' included (the exhaustive ones only up to
6 operands, 'branch-2' up to 8: beyond, they take minutes in opt_einsum too), and `jnp.einsum`'s values in those orders. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_einsum_paths.py` writes einsum_paths.json."""
import json
from pathlib import Path

SIZES = {"a": 3, "b": 4, "c": 2, "d": 5, "e": 6, "f": 3, "g": 4, "h": 2}


def _chain(letters, dims):
    terms = [a + b for a, b in zip(letters, letters[1:])]
    return ",".join(terms), [(dims[k], dims[k + 1]) for k in range(len(terms))]


def _net12():
    terms = "ab,bc,cd,da,ae,bf,cg,dh,ef,fg,gh,he".split(",")
    return ",".join(terms) + "->", [tuple(SIZES[c] for c in t) for t in terms]


CHAIN16 = _chain("abcdefghijklmnopq", [3, 8, 2, 9, 4, 6, 2, 7, 5, 3, 6, 4, 8, 2, 5, 3, 7])
CHAIN10 = _chain("abcdefghijk", [3, 8, 2, 9, 4, 6, 2, 7, 5, 3, 6])
# name -> (subscripts, operand shapes)
CASES = {
    "chain3": ("ij,jk,kl", [(2, 3), (3, 100), (100, 5)]),
    "chain7": ("ab,bc,cd,de,ef,fg,gh->ah", [(4, 9), (9, 2), (2, 8), (8, 3), (3, 7), (7, 5),
                                            (5, 6)]),
    "net8": ("abc,cde,efg,gha,bdf,ij,jk,kh->ik", [(3, 4, 5), (5, 2, 6), (6, 3, 4), (4, 7, 3),
                                                  (4, 2, 3), (5, 6), (6, 2), (2, 7)]),
    "chain10": (CHAIN10[0] + "->ak", CHAIN10[1]),
    "net12": _net12(),
    "star14": (",".join("z" + c for c in "abcdefghijklmn") + "->z",
               [(3, k + 2) for k in range(14)]),
    "chain16": CHAIN16,
    "ellipsis": ("...ij,...jk,...kl,kl->...il", [(2, 3, 4), (2, 4, 5), (1, 5, 6), (5, 6)]),
    "hadamard": ("ij,ij,jk,kl,lm,mi->", [(3, 4), (3, 4), (4, 5), (5, 2), (2, 6), (6, 3)]),
    "outer5": ("a,b,c,d,ab", [(2,), (3,), (4,), (5,), (2, 3)]),
    # two connected groups, an operand summed to a scalar alone (w) and one partly (pq)
    "parts8": ("ab,bc,cd,xy,yz,q,pq,w->ad", [(3, 4), (4, 5), (5, 2), (2, 3), (3, 4), (6,),
                                               (2, 6), (3,)]),
}
OPTIONS = ["auto", "greedy", "eager", "optimal", "branch-all", "branch-2", "branch-1", True,
           False, "dp", "dynamic-programming", "auto-hq"]


def runs():
    """(case, optimize) pairs recorded."""
    for name, (_, shapes) in CASES.items():
        for opt in OPTIONS:
            n = len(shapes)
            if (opt in ("optimal", "branch-all", True) and n > 6) or (opt == "branch-2"
                                                                      and n > 8):
                continue
            yield name, opt


def key(name, opt):
    return f"{name}/{opt}"


# jnp.einsum's values (float32) for the cases and choices below: computed in the order
# of the path, so astjax's agree with JAX's to a few units in the last place
VALUE_RUNS = [("chain7", "auto"), ("chain7", False), ("net8", "greedy"), ("star14", "auto"),
              ("hadamard", True), ("net8", "dp"), ("parts8", "auto-hq")]


def operands(name):
    """Deterministic float32 operands of case `name`."""
    import numpy as np
    r = np.random.RandomState(sum(map(ord, name)))
    return [r.uniform(-1, 1, s).astype(np.float32) for s in CASES[name][1]]


def main():
    import numpy as np
    import jax
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2", jax.__version__
    out = {}
    for name, opt in runs():
        sub, shapes = CASES[name]
        path, info = jnp.einsum_path(sub, *[np.zeros(s, np.float32) for s in shapes],
                                     optimize=opt)
        out[key(name, opt)] = {"path": [list(map(int, p)) for p in path], "report": repr(info)}
    for name, opt in VALUE_RUNS:
        v = np.asarray(jnp.einsum(CASES[name][0], *operands(name), optimize=opt))
        out["value:" + key(name, opt)] = {"shape": list(v.shape), "values": v.ravel().tolist()}
    Path(__file__).with_name("einsum_paths.json").write_text(json.dumps(out, indent=0) + "\n")


if __name__ == "__main__":
    main()
