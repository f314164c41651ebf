#!/bin/sh
# A long differential API-fuzzing run against JAX 0.10.2, in chunks of 1000 seeds at low
# priority: tests/fuzz/api_long.sh FIRST LAST [PYTHON]  (PYTHON: an interpreter with both
# jax==0.10.2 and astjax installed; default the worktree's .jaxenv). Mismatches go to
# api_fuzz_FIRST_LAST.jsonl (one JSON line each, with a repro), summaries to stdout.
set -e
first=${1:-0}; last=${2:-10000}
here=$(cd "$(dirname "$0")/../.." && pwd)
py=${3:-$here/.jaxenv/bin/python}
out=api_fuzz_${first}_${last}.jsonl
s=$first
while [ "$s" -lt "$last" ]; do
    e=$((s + 1000)); [ "$e" -gt "$last" ] && e=$last
    nice -n 5 "$py" "$here/tests/fuzz/api_run.py" --seeds "$s:$e" --out "$out"
    s=$e
done
