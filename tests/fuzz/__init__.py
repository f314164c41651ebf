"""In-project differential fuzzer (issue 12): gen, checks, reduce, run."""
