"""`jax._src.util` and `jax._src.api` as served by astjax (astjax/compat/_src)."""
import pytest

from astjax.compat._src import api, util


def test_safe_map_zip():
    assert util.safe_map(lambda a, b: a + b, [1, 2], (3, 4)) == [4, 6]
    assert util.safe_zip([1, 2], "ab") == [(1, "a"), (2, "b")]
    with pytest.raises(AssertionError):
        util.safe_map(lambda a, b: a, [1], [1, 2])
    with pytest.raises(AssertionError):
        util.safe_zip([1], [1, 2])


def test_small_helpers():
    assert util.unzip2([(1, "a"), (2, "b")]) == ((1, 2), ("a", "b"))
    assert util.unzip3([(1, 2, 3)]) == ((1,), (2,), (3,))
    assert util.split_list(range(6), [1, 2]) == [[0], [1, 2], [3, 4, 5]]
    assert util.concatenate([[1], [2, 3]]) == [1, 2, 3]
    assert util.prod([2, 3, 4]) == 24 and util.prod([]) == 1
    assert util.tuple_insert((1, 3), 1, 2) == (1, 2, 3)
    assert util.tuple_delete((1, 2, 3), 1) == (1, 3)
    calls = []

    @util.cache()
    def sq(x):
        calls.append(x)
        return x * x

    assert sq(3) == sq(3) == 9 and calls == [3]


def test_api_transformations():
    assert float(api.grad(lambda x: x * x)(3.0)) == 6.0
    assert float(api.jit(lambda x: x + 1)(1.0)) == 2.0
    primal, tangent = api.jvp(lambda x: x * x, (2.0,), (1.0,))
    assert (float(primal), float(tangent)) == (4.0, 4.0)


def test_served_as_jax(tmp_path):
    import subprocess
    import sys
    prog = tmp_path / "p.py"
    prog.write_text("from jax._src import api\nfrom jax._src.util import safe_map\n"
                    "print(api.grad(lambda x: x * x)(3.), safe_map(abs, [-1]))\n")
    out = subprocess.run([sys.executable, "-m", "astjax", "run", str(prog)],
                         capture_output=True, text=True, check=True).stdout
    assert out.split() == ["6.0", "[1]"]
