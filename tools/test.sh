#!/usr/bin/env bash
# Runs every check and every test: the code checks (ruff, mypy, import-linter,
# buildifier, the locks against PyPI), the Bazel suites (offline) and the pytest suites in .venv.
# Run tools/setup.sh once first. Arguments are passed to `bazel test`.
# Every step runs even when an earlier check failed; the exit status is
# non-zero if any step failed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [[ ! -x .venv/bin/python ]]; then
  echo "tools/test.sh: no .venv; run tools/setup.sh first" >&2
  exit 1
fi
if [[ ! -x node_modules/.bin/buildifier ]]; then
  echo "tools/test.sh: no node_modules/.bin/buildifier; run tools/setup.sh first" >&2
  exit 1
fi

failed=()

# check NAME COMMAND...: runs one check, records its failure, never stops the run.
check() {
  local name="$1"
  shift
  echo "== $name"
  if ! "$@"; then
    echo "tools/test.sh: FAILED: $name" >&2
    failed+=("$name")
  fi
}

# Every Starlark file the repository has (tracked, or new and not ignored).
starlark_files() {
  git ls-files -z --cached --others --exclude-standard -- \
    '*BUILD' '*BUILD.bazel' '*.bzl' '*WORKSPACE' '*WORKSPACE.bazel' '*MODULE.bazel' '*.star' |
    while IFS= read -r -d '' file; do
      [[ -f "$file" ]] && printf '%s\0' "$file"
    done
}

buildifier_check() {
  # Lint settings (warnings turned off, and why) are in .buildifier.json.
  starlark_files | xargs -0 node_modules/.bin/buildifier -mode=check -lint=warn
}

check "ruff check" .venv/bin/ruff check .
check "ruff format --check" .venv/bin/ruff format --check .
check "mypy" .venv/bin/mypy
check "lint-imports" .venv/bin/lint-imports
check "buildifier" buildifier_check
# Every hash-locked requirement installs from PyPI alone (asks PyPI; no pip config).
check "locks install from PyPI" .venv/bin/python tools/check_locks.py

echo "== bazel test //..."
if ! bazel test //... "$@"; then
  failed+=("bazel test")
fi

echo "== pytest"
# Exit code 5 means "no tests collected": that is a failure, never a pass.
set +e
.venv/bin/python -m pytest -q tests
status=$?
set -e
if [[ $status -eq 5 ]]; then
  echo "tools/test.sh: pytest collected no tests" >&2
  failed+=("pytest (no tests collected)")
elif [[ $status -ne 0 ]]; then
  failed+=("pytest")
fi

# On success nothing follows pytest's summary line (CI reads the closing lines).
if [[ ${#failed[@]} -gt 0 ]]; then
  printf 'tools/test.sh: failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
