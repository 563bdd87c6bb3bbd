"""param copies a class's Parameter for an object the first time ``obj.param[name]`` is read (stock param, Panel).

``param.parameterized._instantiated_parameter`` gives an initialised object its own shallow copy of
a ``per_instance`` Parameter (the default) at the first read through ``obj.param[name]``, whether or
not the object ever changes that Parameter. Panel reads Parameters this way while it builds a
component's model (``JSComponent._get_properties`` and friends), so each component copies most of
its Parameters. This script builds 50 small ``JSComponent`` objects into a document and counts the
copies (``obj._param__private.params``), times one object's copies, and shows that param's public
``obj.param.objects('existing')`` reads the same Parameters without copying.

Run: python lean_params.py. Prints copies made and their cost.
"""

import os
import statistics
import time

import param
from bokeh.document import Document
from panel.custom import JSComponent
from param.parameterized import _instantiate_param_obj


class Field(JSComponent):
    """A custom component with a few Parameters of its own."""

    label = param.String(default="x")
    value = param.Number(default=0.0, bounds=(0, 10))
    step = param.Number(default=0.1)
    locked = param.Boolean(default=False)
    choices = param.List(default=["a", "b"])
    _esm = "export function render({ model }) { return document.createElement('div') }"


def differs(copy: param.Parameter, original: param.Parameter) -> bool:
    """Whether a copy's slots (other than its owner and watchers) differ from the class's Parameter."""
    slots = set(getattr(type(original), "_all_slots_", ())) - {"owner", "watchers"}
    return any(getattr(copy, slot, None) != getattr(original, slot, None) for slot in slots)


def main() -> None:
    """Build 50 fields, count the Parameter copies, and time making one object's copies."""
    fields = [Field(value=i % 10) for i in range(50)]
    doc = Document()
    for field in fields:
        doc.add_root(field.get_root(doc))
    copies = [len(field._param__private.params) for field in fields]
    changed = sum(differs(p, Field.param[name]) for field in fields for name, p in field._param__private.params.items())
    total = len(Field.param.objects("existing"))
    own = [Field.param[name] for name in fields[0]._param__private.params]
    rounds = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(100):
            for parameter in own:
                _instantiate_param_obj(parameter, fields[0])
        rounds.append((time.perf_counter() - start) * 1000 / 100)
    print(f"Field has {total} Parameters; after building its model each object holds {min(copies)}-{max(copies)} "
          f"own copies ({sum(copies)} for 50 objects); copies that differ from the class's: {changed}")
    print(f"making one object's {len(own)} copies: {statistics.median(rounds):.3f} ms "
          f"(load average {os.getloadavg()[0]:.1f})")
    fresh = Field()
    existing = fresh.param.objects("existing")
    print(f"a fresh Field read through param.objects('existing'): {len(existing)} Parameters, "
          f"copies made: {len(fresh._param__private.params)}")


if __name__ == "__main__":
    main()
