"""Record what real JAX does with each bad-input case, so JAX is not needed at test time.

Run with a Python that has JAX installed (the reference is jax 0.10.2):

    /work/jaxref/bin/python tests/bad_inputs/_record_jax.py [case.py ...]

Each case is run in this one process with its `astjax` imports rewritten to `jax`
(`import astjax` -> `import jax as astjax`, `from astjax import X` -> `from jax import X`).
The outcome is written into the case as a `# jax:` line just after its `# expect:`
line: `ok` (with the value of the tagged line when it is an expression, e.g.
`ok [0.0, 1.0]`), `<builtin class> (<JAX class>): <first line of the message>`,
`warning <class>: ...`, or `hang`. Existing `# jax:` lines are replaced.
"""
import ast
import builtins
import re
import signal
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).parent


def translate(text):
    text = re.sub(r"^import astjax\.(\w+) as", r"import jax.\1 as", text, flags=re.M)
    text = re.sub(r"^import astjax$", "import jax as astjax", text, flags=re.M)
    text = re.sub(r"^from astjax((?:\.\w+)*) import", lambda m: f"from jax{m.group(1)} import",
                  text, flags=re.M)
    return text


def _result_module(text):
    """The module with a top-level tagged expression statement stored in `__result__`."""
    lines = text.splitlines()
    tree = ast.parse(text)
    for i, node in enumerate(tree.body):
        if (isinstance(node, ast.Expr) and lines[node.lineno - 1].rstrip().endswith("# error")):
            target = ast.copy_location(ast.Name("__result__", ast.Store()), node)
            tree.body[i] = ast.copy_location(ast.Assign(targets=[target], value=node.value), node)
    return ast.fix_missing_locations(tree)


def _builtin_base(exc):
    for k in type(exc).__mro__:
        if getattr(builtins, k.__name__, None) is k:
            return k.__name__
    return "Exception"


def _show(v):
    import numpy as np
    try:
        if hasattr(v, "shape") and hasattr(v, "dtype"):
            return f"{np.asarray(v).tolist()!r:.120} {v.dtype}"
    except Exception:  # noqa: BLE001 -- a value that cannot be shown
        pass
    return f"{v!r:.120}".replace("\n", " ")


class _Hang(Exception):
    pass


def _alarm(*_):
    raise _Hang


def outcome(path):
    text = translate(path.read_text())
    code = compile(_result_module(text), str(path), "exec")
    env = {"__name__": "__bad_input__", "__file__": str(path)}
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(60)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(code, env)
    except _Hang:
        return "hang"
    except Exception as e:  # noqa: BLE001 -- the outcome being recorded
        msg = (str(e).strip().splitlines() or [""])[0]
        return f"{_builtin_base(e)} ({type(e).__name__}): {msg[:160]}"
    finally:
        signal.alarm(0)
        import jax
        jax.config.update("jax_enable_x64", False)  # a case may switch it on
    mine = [w for w in caught if w.filename == str(path)]
    if mine:
        return f"warning {mine[0].category.__name__}: {str(mine[0].message).splitlines()[0][:160]}"
    return "ok" + (f" {_show(env['__result__'])}" if "__result__" in env else "")


def record(path):
    result = outcome(path)
    lines = path.read_text().splitlines(keepends=True)
    lines = [ln for ln in lines if not ln.startswith("# jax:")]
    at = next(i for i, ln in enumerate(lines) if ln.startswith("# expect:")) + 1
    lines.insert(at, f"# jax: {result}\n")
    path.write_text("".join(lines))
    return result


def main(argv):
    paths = [Path(a) for a in argv] or sorted(p for p in HERE.glob("*.py")
                                                if not p.name.startswith("_"))
    for p in paths:
        print(f"{p.stem}: {record(p)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
