"""The examples in JAX 0.10.2's own docstrings, run under JAX and under astjax:

    nice -n 5 /path/to/jax-env/bin/python tests/fuzz/doc_examples.py \\
        --astjax-python .venv/bin/python [--only jax.numpy.sinc,...] [--out DIR] [-v]

The driver runs in an environment with the real `jax` installed (the oracle; it also
needs astjax importable for nothing but the astjax side's interpreter path). It reads
the `>>>` examples of every public name of the modules in `MODULES` from JAX's installed
source (never copied into this repository), then runs each docstring's examples in
order, once under JAX and once under astjax (`import jax` meaning astjax,
`astjax.install_as_jax`), each side in its own process, with `jax`, `jnp`, `lax` and
`np` bound as JAX's doctest namespace binds them. An example's printed output under
astjax must equal JAX's own printed output in the same run (not the docstring's text,
which may be stale); an example JAX itself fails is not compared. Prints the counts and
every disagreement (name, example, JAX's output, astjax's)."""
from __future__ import annotations

import argparse
import contextlib
import doctest
import importlib
import inspect
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

MODULES = ["jax", "jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.lax",
           "jax.lax.linalg", "jax.random", "jax.nn", "jax.nn.initializers",
           "jax.scipy.special", "jax.scipy.linalg", "jax.scipy.signal", "jax.scipy.stats",
           "jax.scipy.integrate", "jax.scipy.fft", "jax.scipy.ndimage",
           "jax.scipy.interpolate", "jax.scipy.optimize", "jax.tree_util", "jax.tree",
           "jax.dtypes", "jax.debug", "jax.image", "jax.flatten_util", "jax.ad_checkpoint",
           "jax.custom_derivatives", "jax.sharding", "jax.experimental",
           "jax.example_libraries.optimizers", "jax.example_libraries.stax",
           "jax.ops", "jax.errors", "jax.custom_batching", "jax.api_util", "jax.export",
           "jax.profiler", "jax.ref", "jax.experimental.checkify",
           "jax.experimental.multihost_utils", "jax.scipy.cluster.vq",
           "jax.scipy.spatial.transform"]
# each distribution of jax.scipy.stats (norm, poisson, ...) is a module of its own
_STATS_DISTRIBUTIONS = ["bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2",
                        "dirichlet", "expon", "gamma", "gennorm", "geom", "gumbel_l",
                        "gumbel_r", "laplace", "logistic", "multinomial",
                        "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "t",
                        "truncnorm", "uniform", "vonmises", "wrapcauchy"]
MODULES += [f"jax.scipy.stats.{d}" for d in _STATS_DISTRIBUTIONS]
_SKIP = {"jax.debug.breakpoint"}   # (waits for input)
_PER_DOCSTRING_SECONDS = 60


def _members(mod_name, mod):
    """(qualified name, object) of each public name of `mod`, and of each public method
    or property of a class JAX defines there (`jax.Array.at`, `jax.custom_jvp.defjvp`)."""
    for attr in sorted(dir(mod)):
        if attr.startswith("_"):
            continue
        obj = getattr(mod, attr, None)
        if obj is None or inspect.ismodule(obj) and not obj.__name__.startswith("jax"):
            continue
        yield f"{mod_name}.{attr}", obj
        if inspect.isclass(obj) and obj.__module__.startswith("jax"):
            for meth, raw in sorted(vars(obj).items()):
                if not meth.startswith("_") and (callable(raw) or isinstance(
                        raw, (property, staticmethod, classmethod))) and not isinstance(
                        raw, obj):   # (not an enum's member)
                    yield f"{mod_name}.{attr}.{meth}", getattr(obj, meth, None)


def collect(only=None):
    """[(qualified name, [(source, want), ...])] from JAX's installed docstrings."""
    parser, seen, out = doctest.DocTestParser(), set(), []
    for mod_name in MODULES:
        try:
            mod = importlib.import_module(mod_name)
        except ImportError:
            continue
        for name, obj in _members(mod_name, mod):
            doc = inspect.getdoc(obj) if obj is not None else None
            if not doc or ">>>" not in doc or name in _SKIP or (only and name not in only):
                continue
            key = id(obj.fget) if isinstance(obj, property) else id(obj)
            if key in seen and not only:
                continue
            seen.add(key)
            try:
                examples = parser.get_examples(doc, name)
            except ValueError:
                continue
            if examples:
                out.append((name, [(e.source, e.want) for e in examples]))
    return out


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def run_side(cases):
    """Run each docstring's examples in a fresh namespace -> {name: [output, ...]}:
    each output is what the example printed (with doctest's display of an expression's
    value) or `!ExceptionClass`."""
    import numpy as np

    import jax
    import jax.numpy as jnp
    from jax import lax
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGALRM, _alarm)
    results = {}
    for name, examples in cases:
        ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "__name__": "__doctest__"}
        outs = []
        signal.alarm(_PER_DOCSTRING_SECONDS)
        try:
            for source, _ in examples:
                buf = io.StringIO()
                try:
                    with contextlib.redirect_stdout(buf):
                        code = compile(source, f"<{name}>", "single")
                        exec(code, ns)
                    outs.append(buf.getvalue())
                except _Timeout:
                    outs.append("!Timeout")
                    break
                except BaseException as e:   # (the example's own error is its output)
                    outs.append(f"!{type(e).__name__}")
        except _Timeout:
            outs.append("!Timeout")
        finally:
            signal.alarm(0)
        results[name] = outs
    return results


def _normalize(text):
    return " ".join(text.split())


def compare(cases, ref, got, verbose=False):
    """(compared, agreeing, [(name, source, JAX's output, astjax's)])."""
    n = ok = 0
    diffs = []
    for name, examples in cases:
        r, g = ref.get(name, []), got.get(name, [])
        for i, (source, _) in enumerate(examples):
            if i >= len(r) or r[i].startswith("!"):
                break   # JAX fails here: the rest of this docstring is not compared
            n += 1
            gi = g[i] if i < len(g) else "!missing"
            if _normalize(gi) == _normalize(r[i]):
                ok += 1
            else:
                diffs.append((name, source.strip(), r[i].strip(), gi.strip()))
                break   # (later examples depend on this one)
    return n, ok, diffs


def _run_worker(python, side, cases, out_dir):
    """Run `cases` on `side` in a fresh `python` process -> {name: [output, ...]}, or
    None (its error written to stderr)."""
    cases_path = os.path.join(out_dir, f"cases_{side}.json")
    with open(cases_path, "w") as f:
        json.dump(cases, f)
    proc = subprocess.run([python, os.path.abspath(__file__), "--side", side,
                           "--cases", cases_path], capture_output=True, text=True,
                          cwd=tempfile.gettempdir())
    if proc.returncode:
        sys.stderr.write(proc.stderr[-4000:])
        return None
    return json.loads(proc.stdout[proc.stdout.index("{"):])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--astjax-python", default=None,
                   help="the interpreter with astjax installed (default: this one)")
    p.add_argument("--only", default="", help="comma-separated qualified names")
    p.add_argument("--out", default=None, help="directory for the JSON results")
    p.add_argument("--reuse-jax", default=None, metavar="DIR",
                   help="take JAX's side from an earlier run's DIR/jax.json; JAX runs only "
                        "the docstrings it lacks")
    p.add_argument("--side", choices=["jax", "astjax"], help=argparse.SUPPRESS)
    p.add_argument("--cases", help=argparse.SUPPRESS)
    p.add_argument("-v", action="store_true", help="print every disagreement in full")
    a = p.parse_args(argv)
    if a.side:   # a worker: run the cases file, print JSON
        with open(a.cases) as f:
            cases = json.load(f)
        if a.side == "astjax":
            import astjax
            astjax.install_as_jax()
        json.dump(run_side(cases), sys.stdout)
        return 0
    only = set(filter(None, a.only.split(",")))
    cases = collect(only)
    out_dir = a.out or tempfile.mkdtemp(prefix="doc_examples_")
    os.makedirs(out_dir, exist_ok=True)
    stored = {}
    if a.reuse_jax:
        with open(os.path.join(a.reuse_jax, "jax.json")) as f:
            stored = json.load(f)
    results = {}
    for side, python in (("jax", sys.executable), ("astjax", a.astjax_python or sys.executable)):
        # JAX's side runs only the docstrings the stored run lacks
        todo = [c for c in cases if c[0] not in stored] if side == "jax" else cases
        results[side] = dict(stored) if side == "jax" else {}
        if todo:
            got = _run_worker(python, side, todo, out_dir)
            if got is None:
                return 1
            results[side].update(got)
        with open(os.path.join(out_dir, f"{side}.json"), "w") as f:
            json.dump(results[side], f)
    n, ok, diffs = compare(cases, results["jax"], results["astjax"], a.v)
    print(f"{len(cases)} docstrings, {n} examples compared, {ok} agree, "
          f"{len(diffs)} docstrings differ")
    for name, source, want, got in diffs:
        if a.v:
            print(f"--- {name}\n>>> {source}\nJAX:    {want}\nastjax: {got}")
        else:
            print(f"{name}: {source.splitlines()[0][:70]!r}: JAX {want[:60]!r} "
                  f"astjax {got[:60]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
