"""How an exercise runner hears its lab and its card: the lab's events, and one card message per click."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from panel.viewable import Viewer
from param.parameterized import batch_call_watchers

from labs.timed import TimedModel

_Handler = TypeVar("_Handler", bound=Callable[..., Any])


def one_card_message(handler: _Handler) -> _Handler:
    """Have what ``handler`` changes on the runner's card reach the page in one message.

    A click can change the card several times as the runner works through it (Lock empties and sets
    the field, ticks the step, then gives the verdict); the lesson text sends every card each time
    one changes. Batched, the card's watchers run once, with the last value of each field, when the
    outermost handler returns: the page draws the fields in their order (``CARD_FIELDS``) from one
    message, so a field emptied and unlocked in one click is empty once it can be typed in.

    Parameters
    ----------
    handler : callable
        A method of :class:`~app.course.exercise.ExerciseRunner` that the page or the lab calls.

    Returns
    -------
    callable
        The same method, batched.
    """

    @functools.wraps(handler)
    def batched(self: Any, *args: Any, **kwargs: Any) -> Any:
        with batch_call_watchers(self.card):
            return handler(self, *args, **kwargs)

    return batched  # type: ignore[return-value]


def watch_lab(lab: Viewer, on_event: Callable[..., None]) -> tuple[Viewer, TimedModel]:
    """Have ``on_event("changed" | "reset" | "played")`` called for ``lab``'s model, Reset and Play.

    Parameters
    ----------
    lab : LabView
        The lab an exercise drives (built when one of its exercises starts, on a lesson page).
    on_event : callable
        Called with what happened (a model change also passes its events).

    Returns
    -------
    (LabView, TimedModel)
        The lab and its model.
    """
    lab.model.param.watch(functools.partial(on_event, "changed"), ["t", *lab.model.controls])
    lab.on_reset(functools.partial(on_event, "reset"))
    lab.on_play(functools.partial(on_event, "played"))
    return lab, lab.model
