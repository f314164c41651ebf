"""`jit`'s `static_argnums` / `static_argnames` / `donate_argnums`, read against the
jitted function's signature as JAX 0.10.2 reads them: positions completed from names
and names from positions, and JAX's TypeError / ValueError, located, for an entry that
is not an int or names no parameter."""
from __future__ import annotations

import inspect

from .errors import ArgumentTypeError, ArgumentValueError, caller_location, function_name

__all__ = ["argnums", "argnames", "positional_params", "check_argnums", "normalize_static",
           "normalize_donate"]


def argnums(value, what):
    """`static_argnums` / `donate_argnums` as a tuple of ints (JAX: TypeError for a
    non-integer entry)."""
    nums = (value,) if isinstance(value, int) else value
    try:
        nums = tuple(nums or ())
    except TypeError:
        nums = None
    if nums is None or not all(isinstance(i, int) for i in nums):
        raise ArgumentTypeError(f"{what} must be an int or a sequence of ints, got {value!r}",
                                hint=f"e.g. {what}=1 or {what}=(0, 2); name arguments with "
                                     "static_argnames='n'", loc=caller_location())
    return nums


def argnames(value, what):
    """`static_argnames` / `donate_argnames` as a tuple of strings (JAX: TypeError for a
    value that is neither a string nor an iterable of strings)."""
    if isinstance(value, str):
        return (value,)
    try:
        names = tuple(value or ())
    except TypeError:
        names = None
    if names is None or not all(isinstance(n, str) for n in names):
        raise ArgumentTypeError(f"{what} must be a string or a sequence of strings, got "
                                f"{value!r}", hint=f"e.g. {what}='n' or {what}=('n', 'm'); "
                                f"name positions with {what[:-5]}nums=1",
                                loc=caller_location())
    return names


def positional_params(fun):
    """(names of the parameters that can be passed positionally or None when the
    signature is unknown, whether there is *args, names of every parameter, whether
    there is **kwargs)."""
    try:
        params = inspect.signature(fun).parameters.values()
    except (TypeError, ValueError):
        return None, True, (), True
    P = inspect.Parameter
    pos = [p.name for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    names = [p.name for p in params if p.kind in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)]
    return (pos, any(p.kind is P.VAR_POSITIONAL for p in params), names,
            any(p.kind is P.VAR_KEYWORD for p in params))


def check_argnums(fun, nums, what, pos, var_args):
    """Positional indices must name a parameter (JAX: ValueError at `jit`)."""
    if pos is None or var_args:
        return nums
    bad = [i for i in nums if not -len(pos) <= i < len(pos)]
    if bad:
        raise ArgumentValueError(
            f"jitted function {function_name(fun)} has {what}={tuple(nums)}, but only accepts "
            f"{len(pos)} positional argument{'s' if len(pos) != 1 else ''}",
            hint=f"its positional parameters are {tuple(pos)}; index them from 0",
            loc=caller_location())
    return tuple(i % len(pos) for i in nums)


def normalize_static(fun, static_argnums, static_argnames):
    """(static positions, static names), each completed from the other through the
    signature; a located error for indices or names the signature does not have."""
    return _complete(fun, argnums(static_argnums, "static_argnums"),
                     argnames(static_argnames, "static_argnames"), "static")


def _complete(fun, nums, names, what):
    """`_argnums` / `_argnames` of one kind (`what`: static or donate) checked against the
    signature and each completed from the other."""
    pos, var_args, all_names, var_kw = positional_params(fun)
    nums = check_argnums(fun, nums, f"{what}_argnums", pos, var_args)
    if pos is not None and not var_kw:
        bad = sorted(set(names) - set(all_names))
        if bad:
            raise ArgumentValueError(
                f"jitted function {function_name(fun)} has invalid argnames {bad} in "
                f"{what}_argnames: the function does not take these arguments",
                hint=f"its parameters are {tuple(all_names)}", loc=caller_location())
    if nums and names:   # both given: JAX completes neither from the signature (flax's
        return frozenset(nums), frozenset(names)   # wrappers name other parameters)
    params = pos or []
    nums = set(nums) | {params.index(n) for n in names if n in params}
    names = set(names) | {params[i] for i in nums if 0 <= i < len(params)}
    return frozenset(nums), frozenset(names)


def normalize_donate(fun, donate_argnums, donate_argnames, static_names):
    """(donated positions, donated names): `donate_argnums` and `donate_argnames`, each
    completed from the other through the signature and checked as the static ones are
    (an argument passed by keyword is donated by its name, as in JAX); a located
    ValueError (JAX's) for an argument both static and donated."""
    nums, names = _complete(fun, argnums(donate_argnums, "donate_argnums"),
                            argnames(donate_argnames, "donate_argnames"), "donate")
    both = sorted(set(names) & set(static_names))
    if both:
        raise ArgumentValueError(
            f"static_argnames and donate_argnames cannot intersect: {both} appear in both",
            hint="a static argument is a Python value, not a buffer: donate only dynamic "
                 "(array) arguments", loc=caller_location())
    return tuple(sorted(nums)), frozenset(names)
