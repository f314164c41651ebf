"""Regenerate docs/explain.png (the README's picture of `python -m astjax explain`):
explain tests/test_explain.py's `loop_branch`, pin the `jnp.sin` line, screenshot.

    .venv/bin/python docs/explain_screenshot.py      # needs chromium + chromium-driver
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "tests")))

import webdriver  # noqa: E402
from test_explain import SIN_LINE, loop_branch  # noqa: E402

from astjax.explain import write_explain  # noqa: E402

page = write_explain(os.path.join(HERE, "explain.html"), loop_branch,
                     np.ones(3, np.float32), 1)
with webdriver.Browser(width=1700, height=820) as b:
    b.open("file://" + page)
    b.click(b.find(f'#source .ln[data-line="{SIN_LINE}"]'))
    b.screenshot(os.path.join(HERE, "explain.png"))
os.remove(page)
print("wrote docs/explain.png")
