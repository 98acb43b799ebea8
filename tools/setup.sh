#!/usr/bin/env bash
# Installs everything ttl-bazel needs on Debian 12 (idempotent), from Debian's
# archive, PyPI and the npm registry alone:
#   Debian packages: Bazel 4.2.3 (bazel-bootstrap) with Debian's rules_java and
#   platforms, the RISC-V GCC for device kernels, the C and C++ runtime headers
#   the hardware check compiles TT-Metal's kernel API with (libstdc++-12-dev,
#   picolibc-riscv64-unknown-elf), nginx (remote-cache tests),
#   Python 3 with venv, Node.js and npm (when node or npm is missing); then the
#   Python environment .venv from requirements.lock (the package and the dev
#   tools) and the test lock (torch and hypothesis, for the tests); the
#   reference simulator's environment .venv-sim from the sim lock (tt-lang-sim
#   and torch, for the differential tests); BuildGrid's environment
#   .venv-buildgrid from requirements-buildgrid.lock (the gRPC remote-cache
#   test); where a Python 3.12 exists, .venv-ttnn from requirements-ttnn.lock
#   (ttnn, for the ttnn descriptor check); and the pinned npm dev tools
#   (buildifier) into node_modules (npm ci).
# torch: each of the test and sim groups has two hash-locked files. Where pip
# can find PyTorch's CPU build (torch==2.13.0+cpu: a wheel in pip's configured
# find-links or indexes, or the index named by TTL_TORCH_INDEX_URL, for instance
# https://download.pytorch.org/whl/cpu), setup installs requirements-<group>-cpu.lock
# (no CUDA libraries); otherwise requirements-<group>.lock, PyPI's torch 2.13.0
# with its CUDA libraries (about 2.6 GB to download; the tests run on the CPU).
# TTL_TORCH=cpu or TTL_TORCH=pypi forces one of the two.
# Works as root or as a user with sudo. On another OS it prints what to install.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEBIAN_PACKAGES=(
  bazel-bootstrap
  bazel-rules-java
  bazel-platforms
  gcc-riscv64-unknown-elf
  libstdc++-12-dev
  picolibc-riscv64-unknown-elf
  nginx
  python3
  python3-venv
  git
  ca-certificates
)

not_debian_12() {
  cat >&2 <<MSG
tools/setup.sh supports Debian 12 (bookworm) only; this system is: ${1}.
Install the equivalents yourself, then run the README's commands:
  - Bazel 4.2.3 with rules_java and platforms available offline
    (Debian: bazel-bootstrap bazel-rules-java bazel-platforms), or Bazel 7+ using MODULE.bazel
  - a RISC-V bare-metal C++ compiler targeting rv32im/ilp32
    (Debian: gcc-riscv64-unknown-elf; or set TTL_DEVICE_CXX to your compiler)
  - for the hardware check (TT-Metal's kernel API): GCC 12's libstdc++ headers and
    picolibc for RISC-V (Debian: libstdc++-12-dev picolibc-riscv64-unknown-elf)
  - nginx (only for the remote-cache test)
  - Python 3.11+ with venv, then:
      python3 -m venv .venv
      .venv/bin/pip install --require-hashes -r requirements.lock
      .venv/bin/pip install --require-hashes -r requirements-test.lock
      .venv/bin/pip install --no-deps --no-build-isolation -e .
    (requirements-test.lock pins torch 2.13.0 for Linux x86_64, CPython 3.11;
    elsewhere install torch==2.13.0 and hypothesis==6.170.17 for your platform)
      python3 -m venv .venv-sim
      .venv-sim/bin/pip install --require-hashes -r requirements-sim.lock
    (the reference simulator tt-lang-sim, for tests/differential; same torch note)
      python3 -m venv .venv-buildgrid
      .venv-buildgrid/bin/pip install --require-hashes -r requirements-buildgrid.lock
    (BuildGrid, for the gRPC remote-cache test; wheels for Linux x86_64, CPython 3.11)
  - optionally, with a Python 3.12: python3.12 -m venv .venv-ttnn, then
      .venv-ttnn/bin/pip install --no-deps --require-hashes -r requirements-ttnn.lock
    (ttnn 0.81.1, for the ttnn descriptor check; without it that check reports
    that it did not run)
  - Node.js and npm, then: npm ci   (buildifier, pinned in package-lock.json)
MSG
  exit 1
}

check_os() {
  if [[ ! -r /etc/os-release ]]; then
    not_debian_12 "$(uname -s) (no /etc/os-release)"
  fi
  # shellcheck disable=SC1091
  . /etc/os-release
  if [[ "${ID:-}" != "debian" || "${VERSION_ID:-}" != "12" ]]; then
    not_debian_12 "${PRETTY_NAME:-${ID:-unknown}}"
  fi
}

as_root() {
  if [[ "$(id -u)" -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    echo "tools/setup.sh: installing Debian packages needs root; run it as root or install sudo." >&2
    exit 1
  fi
}

install_debian_packages() {
  local missing=()
  local wanted=("${DEBIAN_PACKAGES[@]}")
  # Node.js runs the pinned buildifier (npm package); any node and npm will do.
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    wanted+=(nodejs npm)
  fi
  for package in "${wanted[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$package")
    fi
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "setup: Debian packages already installed"
    return
  fi
  echo "setup: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Chooses, once per run, which torch build this machine installs (TORCH_BUILD):
# PyTorch's CPU build (the requirements-<group>-cpu.lock files) when pip finds
# torch==2.13.0+cpu with its locked hash, else PyPI's (requirements-<group>.lock).
# TTL_TORCH (cpu or pypi) skips the probe.
TORCH_BUILD=""
choose_torch_build() {
  [[ -n "$TORCH_BUILD" ]] && return
  case "${TTL_TORCH:-auto}" in
    cpu | pypi) TORCH_BUILD="$TTL_TORCH" ;;
    auto)
      if cpu_torch_at_hand; then TORCH_BUILD=cpu; else TORCH_BUILD=pypi; fi
      ;;
    *)
      echo "tools/setup.sh: TTL_TORCH=${TTL_TORCH} is not one of cpu, pypi or auto" >&2
      exit 1
      ;;
  esac
  if [[ "$TORCH_BUILD" == cpu ]]; then
    echo "setup: torch: PyTorch's CPU build (torch==2.13.0+cpu)"
  else
    echo "setup: torch: PyPI's torch 2.13.0 (with its CUDA libraries, about 2.6 GB;" \
      "TTL_TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu selects the CPU build)"
  fi
}

# The lock of GROUP (test or sim) for the chosen torch build.
torch_lock() {
  if [[ "$TORCH_BUILD" == cpu ]]; then
    echo "requirements-$1-cpu.lock"
  else
    echo "requirements-$1.lock"
  fi
}

# Succeeds when pip (.venv's, with pip's configuration and TTL_TORCH_INDEX_URL)
# finds the wheel that requirements-test-cpu.lock pins for torch, with its hash.
cpu_torch_at_hand() {
  local probe
  probe="$(mktemp -d)"
  # The torch entry of the CPU lock: its line and the continuation lines after it.
  awk '/^torch==/ {on = 1} on {print} on && !/\\$/ {exit}' \
    "$ROOT/requirements-test-cpu.lock" >"$probe/torch.txt"
  local found=0
  # .venv's pip: Debian's python3 may have no pip module (python3-pip is not needed).
  if "$ROOT/.venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps \
    --retries 1 --timeout 20 --require-hashes --dest "$probe/wheel" \
    "${TORCH_INDEX_ARGS[@]}" -r "$probe/torch.txt" >/dev/null 2>&1; then
    found=1
  fi
  rm -rf "$probe"
  [[ "$found" -eq 1 ]]
}

TORCH_INDEX_ARGS=()
if [[ -n "${TTL_TORCH_INDEX_URL:-}" ]]; then
  TORCH_INDEX_ARGS=(--extra-index-url "$TTL_TORCH_INDEX_URL")
fi

# The stamp of an environment made from FILES...: their names and contents.
lock_stamp() {
  local file
  for file in "$@"; do
    echo "$file $(sha256sum "$ROOT/$file" | cut -d' ' -f1)"
  done | sha256sum | cut -d' ' -f1
}

# True when VENV/bin/PROBE exists and VENV's stamp says it was made from FILES...
venv_made_from() {
  local venv="$1" probe="$2"
  shift 2
  [[ -x "$venv/bin/$probe" && -f "$venv/.setup.sha256" &&
    "$(cat "$venv/.setup.sha256")" == "$(lock_stamp "$@")" ]]
}

# True when VENV was made from either torch lock of GROUP (and FILES...), so an
# installed environment is kept without probing for torch.
torch_venv_current() {
  local venv="$1" group="$2"
  shift 2
  venv_made_from "$venv" python "requirements-$group-cpu.lock" "$@" ||
    venv_made_from "$venv" python "requirements-$group.lock" "$@"
}

install_python_environment() {
  local venv="$ROOT/.venv"
  if torch_venv_current "$venv" test requirements.lock pyproject.toml; then
    echo "setup: .venv up to date with requirements.lock and the test lock"
    return
  fi
  /usr/bin/python3 -m venv --clear "$venv"
  choose_torch_build # probes with .venv's pip
  local test_lock
  test_lock="$(torch_lock test)"
  echo "setup: creating .venv from requirements.lock and $test_lock"
  local pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
  "${pip[@]}" --require-hashes -r "$ROOT/requirements.lock"
  # torch and hypothesis for the tests; kept out of requirements.lock, from which
  # Bazel builds its own, smaller Python environment.
  "${pip[@]}" --require-hashes "${TORCH_INDEX_ARGS[@]}" -r "$ROOT/$test_lock"
  "${pip[@]}" --no-deps --no-build-isolation -e "$ROOT"
  lock_stamp "$test_lock" requirements.lock pyproject.toml >"$venv/.setup.sha256"
}

# A venv of its own, $ROOT/NAME, from the hash-locked LOCK, rebuilt only when
# LOCK changes or NAME/bin/PROBE is missing. Extra arguments go to pip install.
# These tools are never installed into .venv nor dependencies of ttl.
# The venv's interpreter is $VENV_PYTHON (default: Debian's python3).
install_locked_venv() {
  local name="$1" lock="$2" probe="$3"
  shift 3
  local venv="$ROOT/$name"
  if venv_made_from "$venv" "$probe" "$lock"; then
    echo "setup: $name up to date with $lock"
    return
  fi
  echo "setup: creating $name from $lock"
  "${VENV_PYTHON:-/usr/bin/python3}" -m venv --clear "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes \
    "$@" -r "$ROOT/$lock"
  lock_stamp "$lock" >"$venv/.setup.sha256"
}

# The reference simulator tt-lang-sim (with torch), .venv-sim: the differential
# tests (tests/differential) and the benchmarks run programs under it.
install_sim_environment() {
  if torch_venv_current "$ROOT/.venv-sim" sim; then
    echo "setup: .venv-sim up to date with the sim lock"
    return
  fi
  choose_torch_build
  install_locked_venv .venv-sim "$(torch_lock sim)" python "${TORCH_INDEX_ARGS[@]}"
}

# BuildGrid 0.4.4 (a REAPI server: the gRPC remote-cache test runs `bgd server
# start`), .venv-buildgrid.
install_buildgrid_environment() {
  install_locked_venv .venv-buildgrid requirements-buildgrid.lock bgd --only-binary=:all:
}

# A Python 3.12 interpreter that runs (pyenv's shim may not), or nothing.
find_python312() {
  local candidate
  for candidate in "${TTL_PYTHON312:-}" "$(command -v python3.12 || true)" \
    /usr/bin/python3.12 /usr/local/bin/python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
    if [[ -n "$candidate" && -x "$candidate" ]] &&
      "$candidate" -c 'import sys, venv; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
      echo "$candidate"
      return
    fi
  done
}

# ttnn 0.81.1 in .venv-ttnn, for the ttnn descriptor check (docs/tt-metal.md), where
# Python 3.12 exists. Elsewhere the check says that it did not run.
install_ttnn_environment() {
  local python
  python="$(find_python312)"
  if [[ -z "$python" ]]; then
    echo "setup: no Python 3.12 (set TTL_PYTHON312): the ttnn descriptor check will report that it did not run"
    return
  fi
  VENV_PYTHON="$python" install_locked_venv .venv-ttnn requirements-ttnn.lock python \
    --no-deps --only-binary=:all:
}

install_node_tools() {
  local stamp="$ROOT/node_modules/.package-lock.json.sha256"
  local want
  want="$(sha256sum "$ROOT/package.json" "$ROOT/package-lock.json" | sha256sum | cut -d' ' -f1)"
  if [[ -x "$ROOT/node_modules/.bin/buildifier" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "setup: node_modules up to date with package-lock.json"
    return
  fi
  echo "setup: installing the npm dev tools (buildifier) from package-lock.json"
  (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" >"$stamp"
}

main() {
  check_os
  install_debian_packages
  install_python_environment
  install_sim_environment
  install_buildgrid_environment
  install_ttnn_environment
  install_node_tools
  echo "setup: done (bazel: $(command -v bazel), device compiler: $(command -v riscv64-unknown-elf-g++))"
}

# Sourced (tests/install), it only defines the functions.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  main
fi
