#!/usr/bin/env bash
# Reference solution: applies the recorded repairs to the workspace.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python3 "$here/apply_edits.py" "${FAULTSMITH_WORKSPACE:-/app}" "$here/fix.json"
