import functools

import apache_beam as beam
from apache_beam.coders import VarIntCoder
from apache_beam.transforms import core, userstate

from kcorpus.pipeline import signature_cache

BEAM_HELPER = getattr(core.get_function_args_defaults, "__wrapped_helper__", core.get_function_args_defaults)


def counting(helper=BEAM_HELPER):
    """Beam's helper, counting the callables it is asked about."""
    calls = []

    def inspect_args(f):
        calls.append(f)
        return helper(f)

    return inspect_args, calls


class Spans(beam.DoFn):
    def process(self, element, timestamp=beam.DoFn.TimestampParam, *rest, limit=3, **extra):
        yield element

    def setup(self):
        pass

    @classmethod
    def build(cls, size, unit="char"):
        return cls()

    @staticmethod
    def width(text, tab=4):
        return len(text)


class Counted(beam.DoFn):
    COUNT = userstate.ReadModifyWriteStateSpec("count", VarIntCoder())

    def process(self, element, count=beam.DoFn.StateParam(COUNT)):  # noqa: B008 (how Beam declares state)
        yield element


def plain(a, b=1, *args, c, d=2, **kwargs):
    return a


def test_the_memo_answers_as_beams_helper_for_every_kind_of_callable():
    memo = signature_cache.memoized(BEAM_HELPER)
    spans = Spans()

    @functools.wraps(plain)
    def wrapper(*args, **kwargs):
        return plain(*args, **kwargs)

    callables = [
        plain,
        lambda x, y=2: x,
        spans.process,
        spans.setup,
        Spans.process,
        Spans.build,
        spans.width,
        Counted().process,
        beam.DoFn().start_bundle,
        wrapper,
        functools.partial(plain, 1),
        len,
        str.upper,
    ]
    for f in callables:
        expected = BEAM_HELPER(f)
        assert memo(f) == expected, f
        assert memo(f) == expected, f  # a hit answers the same


def test_a_function_is_inspected_once_and_each_answer_is_a_new_list():
    inspect_args, calls = counting()
    memo = signature_cache.memoized(inspect_args)

    class Fn(beam.DoFn):
        def process(self, element, side=None):
            yield element

    first = memo(Fn().process)
    first[0].clear()  # a caller changing its answer does not change the next one
    first[1].append("mutated")
    second = memo(Fn().process)  # another instance, the same function
    assert second == (["element", "side"], [None])
    assert len(calls) == 1
    assert memo(Fn.process) == (["self", "element", "side"], [None])  # unbound: another entry
    assert len(calls) == 2


def test_new_defaults_or_code_are_inspected_again():
    inspect_args, calls = counting()
    memo = signature_cache.memoized(inspect_args)

    def f(a, b=1):
        return a

    assert memo(f) == (["a", "b"], [1])
    f.__defaults__ = (beam.DoFn.TimestampParam,)
    assert memo(f) == (["a", "b"], [beam.DoFn.TimestampParam])
    f.__code__ = (lambda x, y, z=0: x).__code__
    f.__defaults__ = (0,)
    assert memo(f) == (["x", "y", "z"], [0])
    assert len(calls) == 3


def test_wrapped_functions_and_other_callables_always_go_to_beams_helper():
    inspect_args, calls = counting()
    memo = signature_cache.memoized(inspect_args)

    def inner(a, b=1):
        return a

    @functools.wraps(inner)
    def outer(*args, **kwargs):
        return inner(*args, **kwargs)

    for f in (outer, outer, functools.partial(inner, 1), functools.partial(inner, 1), len, len):
        memo(f)
    assert len(calls) == 6


def test_install_wraps_beams_helper_once_and_state_is_still_found():
    signature_cache.install()
    installed = core.get_function_args_defaults
    signature_cache.install()
    assert core.get_function_args_defaults is installed
    assert installed.__wrapped_helper__ is BEAM_HELPER
    for _ in range(2):  # the second time from the memo
        assert userstate.is_stateful_dofn(Counted())
        assert not userstate.is_stateful_dofn(Spans())
        state_specs, timer_specs = userstate.get_dofn_specs(Counted())
        assert [s.name for s in state_specs] == ["count"] and not timer_specs


def test_new_keyword_only_defaults_are_inspected_again():
    inspect_args, calls = counting()
    memo = signature_cache.memoized(inspect_args)

    def f(a, *, b=1):
        return a

    memo(f)
    f.__kwdefaults__ = {"b": 2}
    memo(f)
    assert len(calls) == 2
