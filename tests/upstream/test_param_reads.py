"""app.upstream.param_reads: bound Parameters read without param's per-read call; unbound ones as param reads them."""

from __future__ import annotations

import copy
import gc
import pickle
from collections.abc import Iterator

import param
import pytest
from param.parameterized import Parameter, Undefined

from app import upstream
from app.upstream import param_reads
from labs.queue.model import QueueModel
from tests.page_documents import PAGE_PATHS, shapes_without_and_with


@pytest.fixture
def params_own() -> Iterator:
    """``use(False)`` gives param its own ``__getattribute__`` back; the fix is installed again after the test."""

    def use(fixed: bool) -> None:
        (param_reads.install if fixed else param_reads.uninstall)()

    yield use
    param_reads.install()


def is_twin(parameter: Parameter) -> bool:
    """Whether ``parameter`` is an instance of an unbound twin (param's reads) rather than of its own class."""
    return param_reads._UNBOUND_TWIN in type(parameter).__dict__


def param_classes() -> list[type]:
    """param's own concrete Parameter classes that can be made with no argument."""
    found = []
    for cls in param_reads.parameter_classes():
        if cls.__module__.startswith("param.") and not cls.__name__.startswith("_"):
            try:
                cls()
            except Exception:  # a class that needs an argument, or an abstract one
                continue
            found.append(cls)
    return found


def slots(parameter: Parameter) -> dict[str, str]:
    """Every slot of ``parameter`` as read from outside (``repr`` of each value), ``owner`` and ``name`` left out."""
    return {
        slot: repr(getattr(parameter, slot))
        for slot in type(parameter)._all_slots_
        if slot not in ("owner", "name") and hasattr(parameter, slot)
    }


def test_the_fix_is_installed_here():
    assert upstream.is_installed("param_reads")
    assert "__getattribute__" not in Parameter.__dict__


def test_every_bound_parameter_of_every_class_is_of_its_own_class_and_read_by_python():
    classes = param.parameterized.descendents(param.Parameterized)
    parameters = [p for cls in classes for p in cls.param.objects(instance=False).values()]
    assert len(parameters) > 1000  # the app's, Panel's and param's own
    assert [p for p in parameters if is_twin(p)] == []
    assert {type(p).__getattribute__ for p in parameters} == {object.__getattribute__}


@pytest.mark.parametrize("cls", param_classes(), ids=lambda cls: cls.__name__)
def test_a_parameter_made_anew_reads_its_slots_as_params_own_method_does(cls, params_own):
    fixed = cls()
    assert is_twin(fixed) and isinstance(fixed, cls) and type(fixed).__name__ == cls.__name__
    read = slots(fixed)
    params_own(False)
    own = cls()
    assert not is_twin(own)
    assert read == slots(own)
    assert Undefined not in [getattr(fixed, slot) for slot in type(fixed)._all_slots_ if hasattr(fixed, slot)]


def test_a_class_defined_now_inherits_and_validates_as_before():
    class Base(param.Parameterized):
        rate = param.Number(default=0.5, bounds=(0, 1), doc="A rate.")
        label = param.String(default="a", regex=r"^[a-z]+$")

    class Derived(Base):
        rate = param.Number(default=0.75)

    rate = Derived.param.rate
    assert type(rate) is param.Number and not is_twin(rate)
    assert (rate.bounds, rate.doc, rate.default, rate.allow_None) == ((0, 1), "A rate.", 0.75, False)
    with pytest.raises(ValueError, match="must be at most 1, not 2"):
        Derived(rate=2)
    with pytest.raises(ValueError, match="does not match regex"):
        Derived(label="A1")
    assert Derived(rate=0.25).rate == 0.25


def test_copies_and_pickles_of_a_bound_parameter_are_of_its_own_class():
    rate = QueueModel.param.arrival_rate
    duplicate = copy.copy(rate)
    assert duplicate.bounds == rate.bounds  # the first read once named: back to its own class
    assert type(duplicate) is type(rate) and not is_twin(duplicate)
    restored = pickle.loads(pickle.dumps(rate))
    assert type(restored) is type(rate) and restored.bounds == rate.bounds
    model = pickle.loads(pickle.dumps(QueueModel(arrival_rate=2.0)))
    assert model.arrival_rate == 2.0


def test_a_parameter_made_before_install_and_still_unbound_reads_its_defaults(params_own):
    params_own(False)
    loose = param.Number()
    assert not is_twin(loose)
    params_own(True)
    assert is_twin(loose)
    assert loose.bounds is None and loose.allow_None is False and loose.inclusive_bounds == (True, True)


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_is_the_same_document_with_the_fix(path, params_own):
    own, fixed = shapes_without_and_with(path, params_own)
    assert fixed == own


def test_it_does_not_apply_where_a_parameter_class_reads_its_attributes_its_own_way():
    class Traced(param.Number):
        __slots__ = ()

        def __getattribute__(self, key):
            return object.__getattribute__(self, key)

    try:
        assert param_reads.applies().endswith("Traced has a __getattribute__ of its own")
    finally:
        del Traced
        gc.collect()
    assert param_reads.applies() == ""
