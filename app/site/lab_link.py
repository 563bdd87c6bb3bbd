"""A lab's settings in its link: ``/queue?arrival_rate=3`` opens the queue lab with λ = 3, and Share says so.

Share used to give the plain ``/queue`` whatever the student had set. Now the link carries every
control that differs from the lab's defaults, written as its field shows it, and a lab page opened
from such a link applies each one through the model's own ``apply``, as if typed: a value the lab
refuses is named in the page's alert with the reason, and the rest of the link still applies.
Only the lab's own controls are read; any other query parameter is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import urlencode

from labs.timed import InvalidInput, TimedModel

MAX_SETTING_TEXT = 2000
"""The longest value a link may give one control (a timeline's layer list is the longest there is)."""

_ON_OFF = {True: "on", False: "off"}


def setting_text(model: TimedModel, name: str) -> str:
    """A control's value as its field (or its checkbox, or its list) shows it, which ``apply`` reads back.

    Parameters
    ----------
    model : TimedModel
        The lab's model.
    name : str
        One of its controls.

    Returns
    -------
    str
        ``"3"``, ``"never"``, ``"on"``, ``"bucket 3"``, a preset's name, a layer list...
    """
    value = getattr(model, name)
    if isinstance(value, bool):
        return _ON_OFF[value]
    if name in getattr(model, "numbered_choices", {}):
        return model.choice_text(name)
    return model.shown_value(name)


def link_settings(model: TimedModel) -> dict[str, str]:
    """The controls that differ from a fresh model's, each as text, in the order a link applies them.

    A model whose layers match one of its presets is written by the preset's name (the layers follow
    from it); edited layers, which read as the preset "Custom", are written as the layer list.
    """
    fresh = type(model)()
    custom = getattr(model, "CUSTOM", None)
    texts = {name: setting_text(model, name) for name in model.controls}
    changed = {name: text for name, text in texts.items() if text != setting_text(fresh, name)}
    if "preset" in model.controls:
        if model.preset == custom:
            changed.pop("preset", None)  # "Custom" names edited layers: the layer list says them
        else:
            changed.pop("layers", None)  # the preset's own layers follow from its name
    return {name: changed[name] for name in applying_order(model) if name in changed}


def applying_order(model: TimedModel) -> list[str]:
    """The model's controls in the order a link applies them: a preset first, which sets the layers."""
    return [name for name in ("preset",) if name in model.controls] + [n for n in model.controls if n != "preset"]


def with_settings(path: str, model: TimedModel) -> str:
    """``path`` (``queue``, ``embed/queue``, ``lab?id=queue``) with the model's settings added to its query."""
    settings = link_settings(model)
    if not path or not settings:
        return path
    return f"{path}{'&' if '?' in path else '?'}{urlencode(settings)}"


def apply_link_settings(model: TimedModel, args: Mapping[str, Sequence[bytes | str]]) -> list[str]:
    """Apply the settings a link gives (the session's query arguments), each as if typed into its control.

    Parameters
    ----------
    model : TimedModel
        The lab's fresh model.
    args : mapping of str to sequence of bytes or str
        ``pn.state.session_args``: every query parameter, each with its values (the first counts).

    Returns
    -------
    list of str
        Why each refused value was not applied, as the lab says it; empty when all applied.
    """
    refusals = []
    for name in applying_order(model):
        values = args.get(name)
        if not values:
            continue
        raw = values[0]
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        label = model.param[name].label or name
        if len(text) > MAX_SETTING_TEXT:
            refusals.append(f"{label}: the link's value is longer than {MAX_SETTING_TEXT} characters; not used.")
            continue
        try:
            model.apply(name, text)
        except InvalidInput as refusal:
            refusals.append(str(refusal))
    return refusals
