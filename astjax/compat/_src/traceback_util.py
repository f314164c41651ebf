"""`jax._src.traceback_util`: which frames to hide from user-facing tracebacks.
astjax keeps every frame (its errors point at the user's line themselves), so the
registrations are recorded and `api_boundary` returns the function unchanged."""
from __future__ import annotations

_exclude_paths: list[str] = []


def register_exclusion(path: str) -> None:
    """Record a path whose frames a traceback filter would hide."""
    _exclude_paths.append(path)


def include_frame(f) -> bool:
    """Would a traceback filter show frame `f`?"""
    return not any(f.f_code.co_filename.startswith(p) for p in _exclude_paths)


def api_boundary(fun=None, *, repro_api_name=None, repro_user_func=False):
    """Mark `fun` as a public entry point (usable with or without arguments)."""
    if fun is None:
        return lambda f: f
    return fun
