"""`python -m astjax`: the command line.

    python -m astjax run SCRIPT [ARGS...]     run a program written against `jax`
    python -m astjax run -m MODULE [ARGS...]  the same for a module (e.g. -m pytest)

`run` installs the `jax` alias (`astjax.install_as_jax`) and then runs the program
as `python SCRIPT` / `python -m MODULE` would: `sys.argv` is the program's, and
`__name__ == "__main__"`.
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys

EXAMPLES = """examples:
  python -m astjax run train.py --epochs 3
  python -m astjax run -m pytest --pyargs optax -x
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
    return p


def _run(ns, parser):
    from .jax_alias import install_as_jax
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
    ns.args = argv[_split_point(argv):]
    if ns.command == "run":
        _run(ns, parser)


def _split_point(argv):
    """Index after `run SCRIPT` or `run -m MODULE` (the program's own args follow)."""
    if len(argv) >= 2 and argv[0] == "run":
        if argv[1] == "-m":
            return min(3, len(argv))
        return 2
    return len(argv)


if __name__ == "__main__":
    main()
