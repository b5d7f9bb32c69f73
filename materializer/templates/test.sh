#!/usr/bin/env bash
# Hidden verifier entry point: grades the agent's workspace and writes the reward where Harbor reads it.
set -uo pipefail
tests_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
workspace="${FAULTSMITH_WORKSPACE:-/app}"
logs="${FAULTSMITH_VERIFIER_LOGS:-/logs/verifier}"
mkdir -p "$logs"
faultsmith verify "$tests_dir" --workspace "$workspace" --json > "$logs/result.json"
python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["reward"])' "$logs/result.json" > "$logs/reward.txt"
cat "$logs/reward.txt"
