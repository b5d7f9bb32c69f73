"""The pipeline's stages, by name, in the order a pipeline runs them."""

from validation.stages.base import Stage, StageContext, StageOutcome
from validation.stages.build import build
from validation.stages.checkout import checkout
from validation.stages.deploy import deploy
from validation.stages.iac import iac
from validation.stages.lint import lint
from validation.stages.migrate import migrate
from validation.stages.test import run_tests

STAGE_FUNCTIONS: dict[str, Stage] = {
    "checkout": checkout,
    "lint": lint,
    "build": build,
    "migrate": migrate,
    "test": run_tests,
    "deploy": deploy,
    "iac": iac,
}

__all__ = ["STAGE_FUNCTIONS", "Stage", "StageContext", "StageOutcome"]
