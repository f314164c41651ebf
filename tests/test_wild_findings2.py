"""Checks from the second pass of public JAX programs (tests/wild/run.py, `programs.json`).

The runner's comparison is tested here: it decides what "agree" means for every program
in the table, so a weakness in it hides a difference silently."""
from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "wild_run", Path(__file__).resolve().parent / "wild" / "run.py")
_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_run)


def test_a_line_without_numbers_is_compared_with_its_spacing():
    # Pmap_Cookbook.ipynb prints a Rule 30 board as '*' and ' ': a board shifted by one
    # cell is a different result, though it has the same characters
    jax_out = "          *         \n         ***        \n"
    shifted = "           *        \n          ***       \n"
    problems, _ = _run.compare(jax_out, shifted, 1e-5, 1e-6, [])
    assert len(problems) == 2
    assert _run.compare(jax_out, jax_out.replace("\n", "  \n"), 1e-5, 1e-6, []) == ([], 0.0)


def test_numbers_in_padded_columns_still_compare_by_value():
    # NumPy pads an array's columns to its longest number: one more digit moves the rest
    jax_out = "[0.5       1.25      2.       ]\n"
    got = "[0.50000006 1.25       2.        ]\n"
    problems, worst = _run.compare(jax_out, got, 1e-5, 1e-6, [])
    assert problems == [] and 0 < worst < 1e-6
    problems, _ = _run.compare(jax_out, "[0.5  1.26  2. ]\n", 1e-5, 1e-6, [])
    assert len(problems) == 1 and "1.26" in problems[0]
