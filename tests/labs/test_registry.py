"""Labs as plug-ins: every registration resolves, and the app builds its routes and index from them."""

from __future__ import annotations

from app.course.catalog import lab_kinds
from app.course.progress import ProgressStore
from app.site.pages.index import course_list
from app.site.server import routes
from labs.registry import registrations
from labs.timed import TimedModel
from labs.ui.lab_view import LabView
from labs.ui.playback import clipped


def test_every_registered_lab_resolves_to_a_model_and_a_view():
    labs = registrations()
    assert [lab.slug for lab in labs][:2] == ["queue", "roofline"]
    assert len({lab.slug for lab in labs}) == len(labs)
    for lab in labs:
        assert issubclass(lab.model_class(), TimedModel)
        assert issubclass(lab.view_class(), LabView)
        assert lab.title.endswith("lab")
        for quantity in lab.units:
            assert hasattr(lab.model_class(), quantity), f"{lab.slug}: no quantity {quantity!r} on the model"


def test_routes_and_index_come_from_the_registrations():
    served = routes()
    listing = course_list(ProgressStore())
    for lab in registrations():
        assert f"/{lab.slug}" in served and "/lab" in served
        assert f'<a href="./lab?id={lab.slug}">{lab.title}</a>' in listing
        assert lab.slug in lab_kinds() and lab_kinds()[lab.slug].title == lab.title


def test_bars_are_clipped_at_t_as_the_player_draws_them():
    bars = {"start": [0.0, 2.0, 5.0], "end": [2.0, 4.0, 6.0], "row": ["a", "b", "b"], "label": ["x", "y", "z"]}
    assert clipped(bars, 3.0) == {
        "start": [0.0, 2.0, 5.0],
        "end": [2.0, 3.0, 5.0],  # done, under way, not started (zero width)
        "row": ["a", "b", "b"],
        "label": ["x", "y", ""],
        "edge": [1.0, 1.0, 0.0],  # a bar not started has no outline either: it would mark its start
    }
    assert clipped(bars, 10.0)["end"] == [2.0, 4.0, 6.0]


def test_each_view_takes_its_title_from_the_registration():
    for lab in registrations():
        assert lab.view_class().title == lab.title
