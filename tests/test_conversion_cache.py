"""The converted twin of a function belongs to that function's file and namespace:
code objects compare equal across files (CPython does not compare filenames), so
two files defining the same function at the same line must not share a conversion
(found by the bad-input corpus: an error located in the other file)."""
import runpy

import numpy as np
import pytest

from astjax import errors

SOURCE = '''
import numpy as np
import astjax
from astjax import lax

def f(x, y):
    return lax.add(x, y)

def run(y):
    return astjax.jit(f)(np.ones(2, np.float32), y)
'''


def test_same_function_text_in_two_files(tmp_path):
    (tmp_path / "a.py").write_text(SOURCE)
    (tmp_path / "b.py").write_text(SOURCE)
    a = runpy.run_path(str(tmp_path / "a.py"))
    b = runpy.run_path(str(tmp_path / "b.py"))
    assert a["f"].__code__ == b["f"].__code__          # the reason for the bug
    with pytest.raises(errors.DTypeError) as ea:
        a["run"](np.ones(2, np.int32))
    with pytest.raises(errors.ShapeError) as eb:
        b["run"](np.ones((2, 2), np.float32))
    assert ea.value.loc.file == str(tmp_path / "a.py")
    assert eb.value.loc.file == str(tmp_path / "b.py")


def test_same_code_in_two_namespaces(tmp_path):
    # one file run twice (two module namespaces): each run converts against its own
    # globals, where `scale` differs
    (tmp_path / "m.py").write_text(
        "import astjax\nscale = SCALE\n\ndef g(x):\n    return x * scale\n\n"
        "def run():\n    return float(astjax.jit(g)(2.0))\n")
    one = runpy.run_path(str(tmp_path / "m.py"), init_globals={"SCALE": 3.0})
    two = runpy.run_path(str(tmp_path / "m.py"), init_globals={"SCALE": 5.0})
    assert one["run"]() == 6.0 and two["run"]() == 10.0
