"""A memo around Beam's `get_function_args_defaults`, which inspects a DoFn method's signature.

Beam builds a `DoFnSignature` for every ParDo several times (when the ParDo is made, when the graph is
translated, when each bundle processor starts), and each time `userstate.get_dofn_specs` inspects every
method of the DoFn, most of them `DoFn`'s own (~35 per DoFn): ~16,000 `inspect.signature` calls for one
tiny build-corpus, ~0.3-0.5 CPU s of its ~3 s. The answer (the positional parameters and their defaults)
depends only on the function: its code object, its `__defaults__` (and `__kwdefaults__`, which Beam 2.77
leaves out, in case a later Beam does not) and whether it is bound, so it is kept per function and checked
against those, by identity, on every hit.
Functions whose signature comes from elsewhere (`__wrapped__`, `__signature__`), builtins, partials and any
other callable go to Beam's helper uncached; each hit returns new lists, as Beam's helper does.
"""

from __future__ import annotations

import types
import weakref
from collections.abc import Callable
from typing import Any

ArgsDefaults = tuple[list[str], list[Any]]

def _signature_source(func: types.FunctionType) -> tuple[types.CodeType, tuple | None, dict | None] | None:
    """What `inspect.signature` reads of a plain function, or None where it may look further."""
    if "__wrapped__" in func.__dict__ or "__signature__" in func.__dict__:
        return None
    return func.__code__, func.__defaults__, func.__kwdefaults__


def memoized(inspect_args: Callable[[Any], ArgsDefaults]) -> Callable[[Any], ArgsDefaults]:
    """`inspect_args` (Beam's `get_function_args_defaults`), answered from the memo for plain functions and
    methods bound to an object."""
    # Per kind of callable (a plain function, a bound method), a function -> (its code, defaults, keyword-only
    # defaults, then the answer's args and defaults). Weak keys: the memo keeps no DoFn class alive.
    memos = {False: weakref.WeakKeyDictionary(), True: weakref.WeakKeyDictionary()}

    def get_function_args_defaults(f: Any) -> ArgsDefaults:
        bound = type(f) is types.MethodType
        func = f.__func__ if bound else f
        source = _signature_source(func) if type(func) is types.FunctionType else None
        if source is None:
            return inspect_args(f)
        memo = memos[bound]
        hit = memo.get(func)
        if hit is not None and hit[0] is source[0] and hit[1] is source[1] and hit[2] is source[2]:
            return list(hit[3]), list(hit[4])
        args, defaults = inspect_args(f)
        memo[func] = (*source, tuple(args), tuple(defaults))
        return list(args), list(defaults)

    get_function_args_defaults.__wrapped_helper__ = inspect_args  # type: ignore[attr-defined]
    get_function_args_defaults.__doc__ = inspect_args.__doc__
    return get_function_args_defaults


def install() -> None:
    """Put the memo in front of `apache_beam.transforms.core.get_function_args_defaults` (once per process).

    `core.get_function_arguments`, through which `DoFnSignature` and `get_dofn_specs` inspect methods, looks
    the helper up in its module at each call, so it uses the memo from then on. A Beam without the helper is
    left as it is.
    """
    from apache_beam.transforms import core

    helper = getattr(core, "get_function_args_defaults", None)
    if helper is not None and not hasattr(helper, "__wrapped_helper__"):
        core.get_function_args_defaults = memoized(helper)
