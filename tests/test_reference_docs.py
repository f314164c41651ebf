"""The API reference (docs/reference/, issue 17 item 4) is generated from the
docstrings by docs/gen_reference.py and must be up to date: regenerated into a
temporary folder it equals the committed pages, it is quick to regenerate, and its
coverage marks agree with the modules and with JAX's recorded names."""
import importlib
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "docs"))
import gen_reference  # noqa: E402


def test_reference_is_up_to_date(tmp_path):
    files = gen_reference.render()
    gen_reference.write(str(tmp_path), files)
    assert gen_reference.stale(gen_reference.OUT, files) == [], \
        "docs/reference is stale: run python docs/gen_reference.py"
    assert sorted(os.listdir(tmp_path)) == sorted(os.listdir(gen_reference.OUT))


def test_regenerating_in_a_fresh_process_finds_nothing_stale():
    # a fresh process: importing astjax plus rendering every page (timing lives in
    # benchmarks/, never in a test)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "docs", "gen_reference.py"),
                        "--check"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_stale_page_is_detected(tmp_path):
    files = gen_reference.render()
    gen_reference.write(str(tmp_path), files)
    page = tmp_path / "astjax.nn.md"
    page.write_text(page.read_text().replace("### `relu`", "### `relu_`"))
    (tmp_path / "old.md").write_text("gone\n")
    assert gen_reference.stale(str(tmp_path), files) == ["old.md", "astjax.nn.md"]


def test_marks_follow_the_modules():
    recorded = gen_reference.jax_names()
    with open(os.path.join(ROOT, "docs", "jax_names.json")) as f:
        assert json.load(f)["jax_version"] == "0.10.2"
    have, missing, extra = gen_reference.coverage("jax.nn", recorded["jax.nn"])
    nn = importlib.import_module("astjax.nn")
    assert "relu" in have and all(hasattr(nn, n) for n in have)
    page = gen_reference.page("jax.nn", recorded["jax.nn"])
    assert "### `relu`\n\n*function* · **JAX**" in page
    assert "relu(x: 'ArrayLike') -> 'Array'" in page        # the signature, typed
    # every module's missing names (jax.nn has none left): absent, and listed on its page
    for jax_module in gen_reference.MODULES:
        if jax_module not in recorded:
            continue
        _, missing, _ = gen_reference.coverage(jax_module, recorded[jax_module])
        mod = importlib.import_module(gen_reference.MODULES[jax_module])
        assert not any(n in vars(mod) for n in missing), jax_module
        if missing:
            mpage = gen_reference.page(jax_module, recorded[jax_module])
            assert all(f"| `{n}` |" in mpage for n in missing), jax_module
    root = gen_reference.page("jax", recorded["jax"])
    assert "### `source`\n\n*function* · **astjax only**" in root
    assert "```pycon\n>>> import astjax, astjax.numpy as jnp" in root  # doctests fenced
    assert " at 0x" not in "".join(gen_reference.render().values())   # deterministic


def test_relative_links_resolve():
    import glob
    import re
    pages = [os.path.join(ROOT, "README.md"), *glob.glob(os.path.join(ROOT, "docs", "*.md")),
             *glob.glob(os.path.join(ROOT, "docs", "reference", "*.md"))]
    broken = []
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r"\]\(([^)#\s]+)(#[^)]*)?\)", text):
            if "://" not in m.group(1) and not os.path.exists(
                    os.path.join(os.path.dirname(page), m.group(1))):
                broken.append(f"{os.path.relpath(page, ROOT)}: {m.group(1)}")
    assert len(pages) > 30 and not broken, broken
