"""`astjax.explain` / `python -m astjax explain`: the views and their line links, the
StableHLO's per-op MLIR locations (`lower(...).as_text(debug_info=True)`), and the
page in a real browser (headless Chromium driven over WebDriver: a click on a source
line highlights the equations, derivative lines and StableHLO ops staged from it).

The browser test needs Debian's chromium and chromium-driver; `.ci/run` installs them
and sets ASTJAX_BROWSER_TESTS=required, so in CI it cannot be skipped."""
import inspect
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import core
from astjax.codegen import runtime
from astjax.errors import ArgumentTypeError
from astjax.explain import derivative_lines, explain, explain_views, write_explain

import webdriver


def loop_branch(x, n):
    s = 0.0
    for i in range(3):
        if x[i] > 0:
            s = s + jnp.sin(x[i])
        else:
            s = s - x[i]
    return s * 2.0


FIRST = inspect.getsourcelines(loop_branch)[1]
SIN_LINE, SUB_LINE, LOOP_LINE, IF_LINE = FIRST + 4, FIRST + 6, FIRST + 2, FIRST + 3


def _lines(view, n):
    return [ln.text.strip() for ln in view if ln.origin == n]


def _op_names(texts):
    """The StableHLO op names on these lines (location aliases and region ends skipped)."""
    return [m.group(1) for m in (re.search(r'^%[\w:#]+ = "stablehlo\.(\w+)"', t)
                                 for t in texts) if m]


def test_views_link_lines():
    v = explain_views(loop_branch, np.ones(3, np.float32), 1)
    assert v["name"] == "loop_branch" and v["file"] == __file__
    assert [ln.origin for ln in v["source"]] == list(range(FIRST, FIRST + 8))
    assert _lines(v["jaxpr"], SIN_LINE)[0] == "u:f32[] = sin s"
    assert any(t.startswith("d:f32[] = scan[length=3") for t in _lines(v["jaxpr"], LOOP_LINE))
    assert _lines(v["jaxpr"], SUB_LINE)[-1] == "p:f32[] = sub o l"
    assert any("jnp.sin" in t for t in _lines(v["converted"], SIN_LINE))
    assert "branch_out = lax.cos(x_i)" in _lines(v["derivative"], SIN_LINE)
    assert "branch_out_1 = -ct_s" in _lines(v["derivative"], SUB_LINE)
    assert any(t.startswith("func.func public @main") for t in (ln.text.strip() for ln in v["hlo"]))
    assert any(c.startswith("flops: ") for c in v["cost"])
    # StableHLO ops link to the line of the equation they were lowered from
    def ops(n):
        return _op_names(_lines(v["hlo"], n))
    assert ops(SIN_LINE) == ["sine", "convert", "add"] * 3   # (the weak `s` made f32)
    assert ops(SUB_LINE) == ["convert", "subtract"] * 3
    assert ops(IF_LINE).count("case") == 3 and "compare" in ops(IF_LINE)
    case_end = [t for t in _lines(v["hlo"], IF_LINE) if t.startswith("})")]
    assert len(case_end) == 3 and all(re.search(r"loc\(#loc\d+\)$", t) for t in case_end)


def _located(x):
    return astjax.jit(loop_branch).lower(x, 1)


def test_debug_info_text_compiles_with_metadata():
    x = np.array([1.0, -2.0, 3.0], np.float32)
    lowered = _located(x)
    plain, text = lowered.as_text(), lowered.as_text(debug_info=True)
    assert "loc(" not in plain
    sin = re.search(rf'^#(loc\d+) = loc\("sin"\("{re.escape(__file__)}":{SIN_LINE}:', text, re.M)
    assert sin, text
    assert re.search(r'"stablehlo\.sine"\(%\d+\) : \(tensor<f32>\) -> tensor<f32> '
                     rf'loc\(#{sin.group(1)}\)$', text, re.M)
    # still a valid module: XLA compiles it, computes the same, and keeps the locations
    # as the ops' metadata
    exe = runtime.Executable(text, [core.ShapedArray((3,), np.float32),
                                    core.ShapedArray((), np.int32)],
                             [core.ShapedArray((), np.float32)])
    [got] = exe(x, np.int32(1))
    assert float(got) == float(astjax.jit(loop_branch)(x, 1))
    assert 'op_name="sin"' in exe.as_text()


def test_derivative_lines_follow_blocks():
    text = "\n".join([
        "def g(x):",
        "    # ---- forward ----",
        "    # line 4: if x > 0:",
        "    if x > 0:",
        "        # line 5: y = x",
        "        y = x",
        "    else:",
        "        # other.py:9: y = 0",
        "        y = 0",
        "    return y",
    ])
    got = [ln.origin for ln in derivative_lines(text, "/a/user.py")]
    assert got == [None, None, 4, 4, 5, 5, 4, None, None, 4]


def test_no_derivative_for_vector_output():
    v = explain_views(lambda x: x * 2.0, np.ones(3, np.float32))
    assert "does not return a real scalar" in v["derivative"][0].text


def test_page_is_self_contained(tmp_path):
    page = explain(loop_branch, np.ones(3, np.float32), 1)
    assert "<script" in page and "<style" in page
    assert not re.search(r"(src|href)=\"(https?:)?//", page)
    assert f'data-line="{SIN_LINE}"' in page and "${" not in page


def dense(w, x):
    y = x @ w
    z = jnp.tanh(y)
    return jnp.sum(z * z)


def newton(x):
    y = x
    while jnp.max(jnp.abs(y * y - x)) > 1e-3:
        y = 0.5 * (y + x / y)
    return y


def test_estimated_cost_per_line():
    """Per user line, from the StableHLO ops' shapes: the dot 2*M*N*K, tanh 8
    transcendentals, `z * z` 8 + the sum's 7 additions; for this module the sum over
    lines is exactly XLA's whole-module analysis. A `while` body is per iteration."""
    first = inspect.getsourcelines(dense)[1]
    v = explain_views(dense, np.ones((3, 2), np.float32), np.ones((4, 3), np.float32))
    got = {n - first: (c.flops, c.transcendentals, c.per_iteration)
           for n, c in v["line_cost"].items()}
    assert got == {1: (2 * 4 * 2 * 3, 0, False), 2: (0, 8, False), 3: (8 + 7, 0, False)}
    assert "flops: 63" in v["cost"] and "transcendentals: 8" in v["cost"]
    assert any("(sum: 63 flops + 8 transc.)" in c for c in v["cost"])
    assert str(v["line_cost"][first + 1]) == "48 flops"

    first = inspect.getsourcelines(newton)[1]
    v = explain_views(newton, np.full(5, 2.0, np.float32))
    got = {n - first: (c.flops, c.per_iteration) for n, c in v["line_cost"].items()}
    # y*y, -x, abs: 5 each; max: 4 combinations; > : 1 | 0.5*(y + x/y): 5 each
    assert got == {2: (5 + 5 + 5 + 4 + 1, True), 3: (15, True)}
    assert str(v["line_cost"][first + 3]) == "15 flops /iter"


def test_estimated_cost_of_combiners_and_convolutions():
    """Reductions count their combiner's ops per combined element (argmax: 9 ops x 5),
    reduce_window per window element beyond the first, a convolution 2 flops per
    multiply-add of its unpadded kernel."""
    from astjax.explain import Line, line_costs

    def one_line_costs(fn, *args):
        text = str(astjax.jit(fn).lower(*args))   # the emitted text explain reads
        [c] = line_costs([Line(t, 1) for t in text.splitlines()]).values()
        return c.flops, c.transcendentals

    assert one_line_costs(jnp.argmax, np.zeros(6, np.float32)) == (45, 0)
    assert one_line_costs(_pool, np.zeros((4, 4), np.float32)) == (9 * 3, 0)
    assert one_line_costs(_conv, np.zeros((1, 2, 5, 5), np.float32),
                          np.zeros((3, 2, 3, 3), np.float32)) == (2 * 75 * 18, 0)
    assert one_line_costs(jnp.exp, np.zeros((2, 3), np.float32)) == (0, 6)
    # a LAPACK call is not estimated, and says so
    text = str(astjax.jit(jnp.linalg.cholesky).lower(np.eye(3, dtype=np.float32)))
    costs = line_costs([Line(t, 1) for t in text.splitlines()])
    assert "library call (not estimated)" in str(costs[1])


def _pool(x):
    return astjax.lax.reduce_window(x, 0.0, astjax.lax.add, (2, 2), (1, 1), "VALID")


def _conv(x, k):
    return astjax.lax.conv_general_dilated(x, k, (1, 1), "SAME")


def test_page_shows_line_costs():
    page = explain(dense, np.ones((3, 2), np.float32), np.ones((4, 3), np.float32))
    first = inspect.getsourcelines(dense)[1]
    assert f'data-line="{first + 1}" data-cost="48 flops"' in page
    assert f'data-line="{first + 2}" data-cost="8 transc."' in page
    assert "estimated cost per line" in page


def test_rejects_non_function():
    with pytest.raises(ArgumentTypeError):
        explain(len, [1])


def test_cli_writes_page(tmp_path):
    out = tmp_path / "page.html"
    r = subprocess.run([sys.executable, "-m", "astjax", "explain",
                        f"{__file__}:loop_branch", "f32[3]", "i32[]", "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert out.read_text().count('class="ln src"') == 8


def halve_until_small(x):
    n = 0
    while jnp.sum(x * x) > 1.0:
        x = x / 2.0
        n = n + 1
    return x, n


def test_debug_info_on_loops_is_valid_mlir():
    x = np.array([3.0, 4.0], np.float32)
    text = astjax.jit(halve_until_small).lower(x).as_text(debug_info=True)
    while_end = [t for t in text.splitlines() if t.lstrip().startswith("})")]
    assert while_end and all(re.search(r"loc\(#loc\d+\)$", t) for t in while_end)
    exe = runtime.Executable(text, [core.ShapedArray((2,), np.float32)],
                             [core.ShapedArray((2,), np.float32), core.ShapedArray((), np.int32)])
    got = exe(x)
    want = astjax.jit(halve_until_small)(x)
    np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(want[0]))
    assert int(got[1]) == int(want[1]) == 3


def _browser_or_skip():
    if webdriver.available():
        return
    if os.environ.get("ASTJAX_BROWSER_TESTS") == "required":
        pytest.fail("ASTJAX_BROWSER_TESTS=required but chromium/chromedriver are missing")
    pytest.skip("needs Debian's chromium and chromium-driver (CI installs them)")


def test_click_highlights_in_browser(tmp_path):
    _browser_or_skip()
    path = write_explain(str(tmp_path / "page.html"), loop_branch,
                         np.ones(3, np.float32), 1)
    with webdriver.Browser() as b:
        b.open("file://" + path)
        b.click(b.find(f'#source .ln[data-line="{SIN_LINE}"]'))
        lit = b.run("return Array.from(document.querySelectorAll('#jaxpr .hl'))"
                    ".map(e => e.textContent.trim())")
        assert lit == ["u:f32[] = sin s",
                       "v:f32[] = convert_element_type[new_dtype=float32 weak_type=False] t",
                       "w:f32[] = add v u"]
        dlit = b.run("return Array.from(document.querySelectorAll('#derivative .hl'))"
                     ".map(e => e.textContent.trim())")
        assert "branch_out = lax.cos(x_i)" in dlit and "branch_out_1 = -ct_s" not in dlit
        hlit = b.run("return Array.from(document.querySelectorAll('#hlo .hl'))"
                     ".map(e => e.textContent.trim())")
        assert _op_names(hlit) == ["sine", "convert", "add"] * 3
        assert b.run("return document.getElementById('hlo').parentNode"
                     ".querySelector('.count').textContent") == f"12 lines from line {SIN_LINE}"
        assert b.run("return window.astjaxExplain.selected()") == str(SIN_LINE)
        # the estimated cost is drawn beside the source line (not part of its text)
        shown = b.run("return getComputedStyle(document.querySelector("
                      f"'#source .ln[data-line=\"{SIN_LINE}\"]'), '::after').content")
        assert shown == '"3 flops + 3 transc."', shown
        # a derived line selects its source line; clicking it again clears
        b.click(b.find(f'#derivative .ln[data-line="{SUB_LINE}"]'))
        assert b.run("return document.querySelector('#source .hl').textContent").strip() \
            .endswith("s = s - x[i]")
        b.click(b.find(f'#source .ln[data-line="{SUB_LINE}"]'))
        assert b.run("return document.querySelectorAll('.hl').length") == 0
        b.screenshot(str(tmp_path / "shot.png"))
        assert (tmp_path / "shot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
