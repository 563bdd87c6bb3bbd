"""The kinds of step and of prediction an exercise is made of, each one object, in one registry each.

See :mod:`app.course.kinds.base` for what a kind does, and ``docs/architecture.md`` ("Adding a step
kind", "Adding a prediction kind") for how to add one.
"""

from app.course.kinds.base import (
    PREDICTION_KINDS,
    STEP_KINDS,
    Place,
    PredictionKind,
    StepFacts,
    StepKind,
    prediction_kind,
    register_prediction_kind,
    register_step_kind,
    step_kind,
    unregister_prediction_kind,
    unregister_step_kind,
)
from app.course.kinds.predictions import ChoicePrediction, NumberPrediction
from app.course.kinds.steps import PredictStep, ResetStep, RunStep, SetStep, same, shown_setting

for _kind in (ResetStep(), PredictStep(), SetStep(), RunStep()):
    register_step_kind(_kind)
for _kind in (NumberPrediction(), ChoicePrediction()):
    register_prediction_kind(_kind)

__all__ = [
    "PREDICTION_KINDS",
    "STEP_KINDS",
    "Place",
    "PredictionKind",
    "StepFacts",
    "StepKind",
    "prediction_kind",
    "register_prediction_kind",
    "register_step_kind",
    "same",
    "shown_setting",
    "step_kind",
    "unregister_prediction_kind",
    "unregister_step_kind",
]
