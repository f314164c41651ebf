import os
import sys

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# pmap tests run on 4 CPU devices; the runtime reads this when its client starts.
os.environ.setdefault("ASTJAX_NUM_CPU_DEVICES", "4")
sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture
def x64():
    """Run the test with 64-bit types enabled (restored afterwards)."""
    import astjax
    old = astjax.config.read("jax_enable_x64")
    astjax.config.update("jax_enable_x64", True)
    yield
    astjax.config.update("jax_enable_x64", old)

