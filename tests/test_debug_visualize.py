"""jax.debug.visualize_array_sharding / visualize_sharding (astjax/debug.py)."""
import sys
import types

import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.sharding import Mesh, NamedSharding, PartitionSpec as P


def _fake_rich(monkeypatch):
    """A minimal `rich` recording the rows of the one table printed."""
    printed = []

    class Table:
        def __init__(self, **kwargs):
            self.rows = []

        def add_column(self, **kwargs):
            pass

        def add_row(self, *cells):
            self.rows.append(cells)

    class Console:
        def __init__(self, **kwargs):
            pass

        def print(self, table):
            printed.append(table.rows)

    mods = {name: types.ModuleType(name) for name in
            ("rich", "rich.box", "rich.console", "rich.table")}
    mods["rich.box"].SQUARE = object()
    mods["rich.console"].Console = Console
    mods["rich.table"].Table = Table
    for name, mod in mods.items():
        monkeypatch.setitem(sys.modules, name, mod)
        if "." in name:
            setattr(mods["rich"], name.split(".")[1], mod)
    return printed


def test_needs_rich(monkeypatch):
    monkeypatch.setitem(sys.modules, "rich", None)
    with pytest.raises(ValueError, match="requires `rich`"):
        jax.debug.visualize_array_sharding(jnp.ones(3))


def test_single_device(monkeypatch):
    printed = _fake_rich(monkeypatch)
    jax.debug.visualize_array_sharding(jnp.ones((4, 2)))
    assert printed == [[("CPU 0",)]]


def test_named_sharding_grid(monkeypatch):
    printed = _fake_rich(monkeypatch)
    devices = jax.devices()
    mesh = Mesh(devices[:1], ("a",))
    jax.debug.visualize_sharding((4, 2), NamedSharding(mesh, P("a", None)))
    assert printed == [[("CPU 0",)]]


def test_rank_checked(monkeypatch):
    _fake_rich(monkeypatch)
    with pytest.raises(ValueError, match="1 and 2 dimensions"):
        jax.debug.visualize_array_sharding(jnp.ones((2, 2, 2)))
