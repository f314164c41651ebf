#!/usr/bin/env bash
# The full suite: every case of the tables the CI tier samples (tests/tiers.py), plus
# the gamma family from every PRNG implementation (tests/test_prng_impls_more.py).
# Run it before a session closes and after changing the rules those tables cover:
#   tests/run_full.sh [pytest arguments]      (several times CI's time)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
ASTJAX_TESTS=full ASTJAX_PRNG_ALL=1 exec "$PY" -m pytest -n 2 tests "$@"
