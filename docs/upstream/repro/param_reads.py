"""Every read of a bound Parameter's attribute goes through a Python ``__getattribute__`` (stock param).

``param.parameterized.Parameter.__getattribute__`` exists for Parameters not yet bound to a class
(``name`` still None): a slot left ``Undefined`` reads as its ``_slot_defaults`` value. Once a
Parameter is bound, param has filled its slots and the method only passes each read through, but
it is still a Python-level call for every read: ``name`` and ``default`` on each ``obj.value``,
bounds on each check, ``constant`` and ``instantiate`` on each object made. This script
(1) times a slot read on a bound Parameter against the same read without the method, and
(2) profiles building a small Panel page and reports the method's calls and own time.

Run: python param_reads.py. Prints both.
"""

import cProfile
import os
import pstats
import statistics
import time

import panel as pn
import param
from bokeh.document import Document

FIRST_LINE = param.Parameter.__getattribute__.__code__.co_firstlineno


class Settings(param.Parameterized):
    """One bound Parameter to read."""

    x = param.Number(default=1.0, bounds=(0, 10))


class Slotted:
    """A plain object with one slot: what a read costs without a Python ``__getattribute__``."""

    __slots__ = ("bounds",)

    def __init__(self) -> None:
        self.bounds = (0, 10)


def per_read_ns(read) -> float:
    """Median ns per call of ``read`` over 7 rounds of 200,000."""
    rounds = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(200_000):
            read()
        rounds.append((time.perf_counter() - start) / 200_000 * 1e9)
    return statistics.median(rounds)


def page() -> pn.template.BootstrapTemplate:
    """A template with 30 widgets."""
    widgets = [pn.widgets.FloatSlider(name=f"s{i}", start=0, end=10) for i in range(15)]
    widgets += [pn.widgets.TextInput(name=f"t{i}") for i in range(15)]
    return pn.template.BootstrapTemplate(title="t", main=[pn.Column(*widgets)])


def main() -> None:
    """Time one read both ways, then profile a page build."""
    p, q = Settings.param.x, Slotted()
    through_param = per_read_ns(lambda: p.bounds)
    plain = per_read_ns(lambda: q.bounds)
    print(f"p.bounds on a bound Parameter: {through_param:.0f} ns; the same read on a plain slotted object: "
          f"{plain:.0f} ns (both include the lambda call; load average {os.getloadavg()[0]:.1f})")

    page().server_doc(Document())  # warm-up
    profile = cProfile.Profile()
    profile.enable()
    page().server_doc(Document())
    profile.disable()
    stats = pstats.Stats(profile)
    total = stats.total_tt
    for (filename, _line, function), (_cc, calls, own, _cum, _callers) in stats.stats.items():
        if function == "__getattribute__" and _line == FIRST_LINE and filename.endswith("param/parameterized.py"):
            print(f"building a 30-widget BootstrapTemplate page under cProfile: {calls:,} calls to "
                  f"Parameter.__getattribute__, {own * 1000:.1f} ms own time of {total * 1000:.0f} ms "
                  f"({own / total:.1%})")


if __name__ == "__main__":
    main()
