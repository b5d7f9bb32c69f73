"""The Docker backend: the engine seam, the local base image, and the pipeline run in containers."""

from validation.docker.engine import BASE_IMAGE, EngineUnavailable, bootstrap, client

__all__ = ["BASE_IMAGE", "EngineUnavailable", "bootstrap", "client"]
