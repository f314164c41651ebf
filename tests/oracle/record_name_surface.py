"""Record JAX 0.10.2's public name surface: for every public module of the `jax`
package (no `_` in its dotted name, importable here), the names `hasattr` finds --
`dir()` without a leading underscore, plus the deprecated names its module
`__getattr__` still serves (its `_deprecations` entries that do not raise).
tests/test_name_surface.py compares astjax's modules with it.

    .jaxenv/bin/python tests/oracle/record_name_surface.py   # -> name_surface.json

Every module is imported first, so a package's names include its submodules, as
`dir(jax.X)` shows them once a program has imported everything."""
import importlib
import json
import os
import pkgutil
import warnings

import jax

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "name_surface.json")


def public_modules():
    """The dotted names of jax's public modules that import here."""
    names = ["jax"] + [m.name for m in pkgutil.walk_packages(jax.__path__, "jax.",
                                                             onerror=lambda _: None)
                       if not any(p.startswith("_") for p in m.name.split("."))]
    mods = {}
    for name in names:
        try:
            mods[name] = importlib.import_module(name)
        except Exception:   # (optional dependencies: tensorstore, tensorflow, ...)
            pass
    return mods


def surface(mod):
    """The public names `hasattr(mod, name)` is true for."""
    names = {n for n in dir(mod) if not n.startswith("_")}
    for n in getattr(mod, "_deprecations", None) or {}:
        try:
            getattr(mod, n)
        except AttributeError:
            continue
        names.add(n)
    return sorted(names)


def main():
    assert jax.__version__ == "0.10.2", jax.__version__
    warnings.simplefilter("ignore")
    mods = public_modules()
    data = {"jax_version": jax.__version__,
            "modules": {name: surface(mod) for name, mod in sorted(mods.items())}}
    with open(OUT, "w") as f:   # (one module a line)
        f.write('{"jax_version": "%s", "modules": {\n' % jax.__version__)
        f.write(",\n".join(f"{json.dumps(m)}: {json.dumps(n)}"
                           for m, n in data["modules"].items()))
        f.write("}}\n")
    print(f"wrote {OUT}: {len(mods)} modules")


if __name__ == "__main__":
    main()
