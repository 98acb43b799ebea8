#!/usr/bin/env bash
# Runs every test: the Bazel suites (offline) and the pytest suites in .venv.
# Run tools/setup.sh once first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [[ ! -x .venv/bin/python ]]; then
  echo "tools/test.sh: no .venv; run tools/setup.sh first" >&2
  exit 1
fi

echo "== bazel test //..."
bazel test //... "$@"

echo "== pytest"
# Exit code 5 means "no tests collected": that is a failure, never a pass.
set +e
.venv/bin/python -m pytest -q tests
status=$?
set -e
if [[ $status -eq 5 ]]; then
  echo "tools/test.sh: pytest collected no tests" >&2
  exit 1
fi
exit $status
