"""What each failing stage looks like from the outside: symptoms only, never a cause."""

from __future__ import annotations

SYMPTOMS: dict[str, tuple[str, ...]] = {
    "checkout": (
        "the release pipeline fails at its very first step, before any tool runs",
        "CI rejects every commit on main at the very first sanity check",
    ),
    "lint": (
        "the release pipeline stops during static checks and nothing ships",
        "CI has been red at the static-analysis step since the last merge",
    ),
    "build": (
        "service images stopped building; the release pipeline fails while installing dependencies",
        "the build step fails for every commit on main",
    ),
    "migrate": (
        "the release job fails while preparing the database schema",
        "fresh environments cannot be provisioned: schema setup fails",
    ),
    "test": (
        "the test suite went red on main and blocks every release",
        "CI reports failing tests on main although the feature work was reviewed",
    ),
    "deploy": (
        "the staging deploy comes up but the end-to-end smoke call fails",
        "after deploy, the cross-service call used by the nightly job no longer succeeds",
    ),
    "iac": (
        "infrastructure validation blocks the release at the last step",
        "the Terraform plan step of the release fails",
    ),
}

IMPACTS = (
    "is waiting on a fix promised for today",
    "escalated through their account manager",
    "reports that yesterday's reports never arrived",
    "has paused their rollout until the pipeline is green",
)

TRIAGE: dict[str, str] = {
    "checkout": "Read the checkout stage's output: which files does it reject, and since which commit?",
    "lint": "Read each linter's finding in the lint stage and decide which ones are real problems.",
    "build": "Read the resolver's output in the build stage and compare it with each service's requirements.",
    "migrate": "Apply the migrations one by one to a fresh database and find the first statement that fails.",
    "test": "Run the failing tests alone and compare what they expect with what the code returns.",
    "deploy": "Start the services as the deploy stage does and read their logs around the failed call.",
    "iac": "Compare what the Terraform configuration declares with what it is given and grants.",
}
