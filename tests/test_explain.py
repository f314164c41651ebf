"""`astjax.explain` / `python -m astjax explain`: the views and their line links, and
the page in a real browser (headless Chromium driven over WebDriver: a click on a
source line highlights the equations and derivative lines staged from it).

The browser test needs Debian's chromium and chromium-driver; `.ci/run` installs them
and sets ASTJAX_BROWSER_TESTS=required, so in CI it cannot be skipped."""
import inspect
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import astjax.numpy as jnp
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
SIN_LINE, SUB_LINE, LOOP_LINE = FIRST + 4, FIRST + 6, FIRST + 2


def _lines(view, n):
    return [ln.text.strip() for ln in view if ln.origin == n]


def test_views_link_lines():
    v = explain_views(loop_branch, np.ones(3, np.float32), 1)
    assert v["name"] == "loop_branch" and v["file"] == __file__
    assert [ln.origin for ln in v["source"]] == list(range(FIRST, FIRST + 8))
    assert _lines(v["jaxpr"], SIN_LINE)[0] == "s:f32[] = sin q"
    assert any(t.startswith("c:f32[] = scan[length=3") for t in _lines(v["jaxpr"], LOOP_LINE))
    assert _lines(v["jaxpr"], SUB_LINE)[-1] == "n:f32[] = sub m j"
    assert any("jnp.sin" in t for t in _lines(v["converted"], SIN_LINE))
    assert "branch_out = lax.cos(x_i)" in _lines(v["derivative"], SIN_LINE)
    assert "branch_out_1 = -ct_s" in _lines(v["derivative"], SUB_LINE)
    assert any(t.startswith("func.func public @main") for t in (ln.text.strip() for ln in v["hlo"]))
    assert any(c.startswith("flops: ") for c in v["cost"])


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
        assert lit == ["s:f32[] = sin q",
                       "t:f32[] = convert_element_type[new_dtype=float32 weak_type=False] r",
                       "u:f32[] = add t s"]
        dlit = b.run("return Array.from(document.querySelectorAll('#derivative .hl'))"
                     ".map(e => e.textContent.trim())")
        assert "branch_out = lax.cos(x_i)" in dlit and "branch_out_1 = -ct_s" not in dlit
        assert b.run("return window.astjaxExplain.selected()") == str(SIN_LINE)
        # a derived line selects its source line; clicking it again clears
        b.click(b.find(f'#derivative .ln[data-line="{SUB_LINE}"]'))
        assert b.run("return document.querySelector('#source .hl').textContent").strip() \
            .endswith("s = s - x[i]")
        b.click(b.find(f'#source .ln[data-line="{SUB_LINE}"]'))
        assert b.run("return document.querySelectorAll('.hl').length") == 0
        b.screenshot(str(tmp_path / "shot.png"))
        assert (tmp_path / "shot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
