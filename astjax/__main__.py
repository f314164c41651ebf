"""`python -m astjax`: the command line.

    python -m astjax run SCRIPT [ARGS...]     run a program written against `jax`
    python -m astjax run -m MODULE [ARGS...]  the same for a module (e.g. -m pytest)
    python -m astjax jaxpr FILE:FUNC SPEC...  the staged program (jaxpr)
    python -m astjax source FILE:FUNC SPEC... [--grad [--argnums 0,1]] [--vmap AXES]
                                              the staged / transformed program as Python
    python -m astjax hlo FILE:FUNC SPEC... [--optimized] [--debug-info]
                                              StableHLO / XLA's optimized HLO (with the
                                              user's source locations)
    python -m astjax cost FILE:FUNC SPEC...   XLA's cost and memory analysis
    python -m astjax explain FILE:FUNC SPEC... -o report.html
                                              one HTML page: source, converted code,
                                              jaxpr, derivative and StableHLO, linked

SPEC is an argument in jaxpr syntax (`f32[3,4]`, `i32[]`) or a JSON pytree of them
(see astjax/cli.py).

`run` installs the `jax` alias (`astjax.install_as_jax`) and then runs the program
as `python SCRIPT` / `python -m MODULE` would: `sys.argv` is the program's, and
`__name__ == "__main__"`.
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys

from .cli import UsageError, one_line, run_inspect
from .jax_alias import install_as_jax

EXAMPLES = """examples:
  python -m astjax run train.py --epochs 3
  python -m astjax run -m pytest --pyargs optax -x
  python -m astjax jaxpr model.py:loss 'f32[3,2]' 'f32[2]'
  python -m astjax source model.py:loss 'f32[3,2]' 'f32[2]' --grad --argnums 0
  python -m astjax explain model.py:loss 'f32[3,2]' 'f32[2]' -o loss.html
  python -m astjax hlo mypkg.layers:dense '{"w": "f32[4,4]", "b": "f32[4]"}' 'f32[8,4]'
  python -m astjax hlo model.py:loss 'f32[3,2]' 'f32[2]' --debug-info
"""


def _parser():
    p = argparse.ArgumentParser(prog="python -m astjax", description=__doc__.split("\n")[0],
                                epilog=EXAMPLES,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a program written against jax on astjax",
                         epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("-m", dest="module", metavar="MODULE",
                     help="run a library module as a script (as python -m)")
    run.add_argument("target", nargs="?", metavar="SCRIPT", help="the program to run")
    run.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments")
    helps = {"jaxpr": "print the staged program (jaxpr)",
             "source": "print the staged or transformed program as Python",
             "hlo": "print the StableHLO module (or XLA's optimized HLO)",
             "cost": "print XLA's cost and memory analysis",
             "explain": "write one HTML page linking source, converted code, jaxpr, "
                        "derivative and StableHLO"}
    for name, text in helps.items():
        c = sub.add_parser(name, help=text, description=text, epilog=EXAMPLES,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        c.add_argument("target", metavar="FILE:FUNC", help="a .py file or module, and a function")
        c.add_argument("args", nargs="*", metavar="SPEC", help="argument specs: f32[3,4], i32[], JSON")
        if name != "explain":
            c.add_argument("--grad", action="store_true", help="of grad(FUNC)")
            c.add_argument("--argnums", default="", help="grad's argnums, e.g. 0,1")
            c.add_argument("--vmap", default=None, metavar="AXES",
                           help="of vmap(FUNC, in_axes=AXES), e.g. 0,None")
        if name == "explain":
            c.add_argument("-o", "--output", default="explain.html", metavar="HTML",
                           help="the page to write (default: explain.html)")
            c.add_argument("--argnums", default="", help="the derivative's argnums, e.g. 0,1")
        if name == "hlo":
            c.add_argument("--optimized", action="store_true",
                           help="XLA's optimized HLO instead of StableHLO")
            c.add_argument("--debug-info", action="store_true",
                           help="with source locations: every StableHLO op ends in "
                                "loc(#locN) naming its primitive and FILE:LINE:COL; with "
                                "--optimized, the ops' metadata names FILE and LINE")
    return p


def _inspect(ns):
    try:
        print(run_inspect(ns.command, ns))
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has gone; nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except UsageError as e:
        print(f"astjax: error: {e}", file=sys.stderr)
        sys.exit(2)
    except Exception as e:  # a located astjax error, or the user's code failing
        print(f"astjax: error: {one_line(e)}", file=sys.stderr)
        sys.exit(2)


def _run(ns, parser):
    if (ns.module is None) == (ns.target is None):
        parser.error("run: give SCRIPT or -m MODULE")
    install_as_jax()
    if ns.module is not None:
        args = ([ns.target] if ns.target is not None else []) + ns.args
        sys.argv = [ns.module] + args
        runpy.run_module(ns.module, run_name="__main__", alter_sys=True)
    else:
        if not os.path.isfile(ns.target):
            parser.error(f"run: no such file: {ns.target}")
        sys.argv = [ns.target] + ns.args
        runpy.run_path(ns.target, run_name="__main__")


def main(argv=None):
    parser = _parser()
    # everything after the script or module belongs to the program, flags included
    argv = list(sys.argv[1:] if argv is None else argv)
    ns = parser.parse_args(argv[:_split_point(argv)])
    if ns.command == "run":
        ns.args = argv[_split_point(argv):]
        _run(ns, parser)
    else:
        _inspect(ns)


def _split_point(argv):
    """Index after `run SCRIPT` or `run -m MODULE` (the program's own args follow)."""
    if len(argv) >= 2 and argv[0] == "run":
        if argv[1] == "-m":
            return min(3, len(argv))
        return 2
    return len(argv)


if __name__ == "__main__":
    main()
