#!/usr/bin/env bash
# Installs what the tests, benchmarks and `npm start` need, idempotently, from npm, Debian's
# apt and the machine's local Python package index only. Safe to run again: each part checks
# a marker first and returns at once when already done.
#   scripts/setup.sh [apt] [code-server] [python] [ruff] [model] [trinity] [ray]   (no argument = all)
# trinity and ray need ../shared (upstream code, test-only stand-ins); without it they are skipped.
#
# What takes minutes to build (the venvs, llama.cpp, code-server) is built once per machine in a
# folder outside the clone, one subfolder per recipe (a hash of the part's code in this script,
# the inputs it names and the Python/Node versions), and each clone's .cache/<name> (.vscode-test/code-server) is a link
# to it: a fresh clone of an unchanged recipe sets up in seconds, a changed recipe builds anew.
#   AGENTRL_SETUP_CACHE=DIR   that folder (default ${XDG_CACHE_HOME:-~/.cache}/agentrl-studio);
#   AGENTRL_SETUP_CACHE=      (empty) builds inside the clone, as a folder of its own.
# A clone that already has a folder (or its own link) there keeps it. After apt, the parts build
# in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
parts=("$@"); [ ${#parts[@]} -eq 0 ] && parts=(apt code-server python ruff model trinity ray)
export DEBIAN_FRONTEND=noninteractive
CACHE="${AGENTRL_SETUP_CACHE-${XDG_CACHE_HOME:-$HOME/.cache}/agentrl-studio}"
SHARED="${AGENTRL_SHARED_DIR:-$ROOT/../shared}"
PY_VERSION=$(python3 --version 2>&1)
NODE_VERSION=$(node --version)

want() { local p; for p in "${parts[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }

# place LINK RECIPE...: sets DIR to the folder to build into. LINK (a path in the clone) becomes a
# link to the machine's build of RECIPE (strings and files, hashed); a folder at LINK (or a link
# elsewhere) is kept and built in, as is LINK itself with an empty AGENTRL_SETUP_CACHE. The
# caller holds the build's lock (lock_dir) while it builds: two clones build it once.
place() {
  local link=$1; shift
  mkdir -p "$(dirname "$link")"
  DIR=$link
  [ -n "$CACHE" ] || return 0
  if [ -e "$link" ] || [ -L "$link" ]; then
    case "$(readlink "$link" || true)" in "$CACHE"/*) ;; *) return 0 ;; esac
  fi
  local key item
  # the recipe: the calling part's own code (an edit elsewhere in this script rebuilds nothing)
  key=$(for item in "$(declare -f "${FUNCNAME[1]}")" "$@"; do
    if [ -f "$item" ]; then sha256sum "$item" | cut -c1-64; else printf '%s\n' "$item"; fi
  done | sha256sum | cut -c1-16)
  DIR="$CACHE/$(basename "$link")-$key"
  mkdir -p "$DIR"
  ln -sfn "$DIR" "$link"
}
# Only the machine's builds are shared between clones; a clone's own folder needs no lock.
lock_dir() {
  case "$DIR" in "$CACHE"/*) [ -n "$CACHE" ] && { exec {LOCK_FD}>"$DIR.lock"; flock "$LOCK_FD"; } ;; esac
  return 0
}

if want apt; then
  need=()
  for p in chromium ripgrep libkrb5-dev build-essential pkg-config python3-venv unzip; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
      echo "setup: missing apt packages: ${need[*]} (run as root, or: sudo apt-get install ${need[*]})" >&2
      exit 1
    fi
    echo "setup: apt-get install ${need[*]}"
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
fi

part_code_server() {
  if [ -n "${CODE_SERVER_PREFIX:-}" ]; then
    DIR=$CODE_SERVER_PREFIX; mkdir -p "$DIR"
  else
    place "$ROOT/.vscode-test/code-server" "${CODE_SERVER_VERSION:-4.100.3}" "$NODE_VERSION" "$ROOT/scripts/install-code-server.sh"
  fi
  lock_dir
  bash scripts/install-code-server.sh "$DIR" "${CODE_SERVER_VERSION:-4.100.3}"
}

part_python() {
  # A project-local venv for tests that need Python packages (tensorboardX, debugpy, openai...).
  # The runner we ship uses only the standard library; this venv is for tests and benches.
  local REQ="$ROOT/scripts/python-requirements.txt"
  place "$ROOT/.cache/venv" "$PY_VERSION" "$REQ"
  local VENV=$DIR stamp="$DIR/.requirements-ok"
  lock_dir
  if [ ! -f "$stamp" ] || ! cmp -s "$REQ" "$stamp"; then
    echo "setup: python venv at $VENV"
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    # --retries 0 --timeout 2: the public index is unreachable here; the local index answers.
    "$VENV/bin/pip" install -q --retries 0 --timeout 2 -r "$REQ"
    cp "$REQ" "$stamp"
  fi
  # The debugger runner's pytest suite runs in a venv of pytest alone, so that the runner under
  # test sees the standard library and nothing else it could come to rely on.
  place "$ROOT/.cache/pytest-venv" "$PY_VERSION" pytest
  local PV=$DIR
  lock_dir
  if [ ! -f "$PV/.agentrl-ok" ]; then
    echo "setup: pytest venv at $PV"
    [ -x "$PV/bin/python" ] || python3 -m venv "$PV"
    "$PV/bin/pip" install -q --retries 0 --timeout 2 pytest
    touch "$PV/.agentrl-ok"
  fi
}

part_ruff() {
  # The lint tier's ruff alone, at the pin of python-requirements.txt, in a venv of its own: a
  # machine that only lints installs a few MB, not the test venv (torch, TensorFlow).
  local PIN
  PIN=$(grep -E '^ruff==' "$ROOT/scripts/python-requirements.txt")
  place "$ROOT/.cache/ruff-venv" "$PY_VERSION" "$PIN"
  local V=$DIR
  lock_dir
  if [ "$(cat "$V/.agentrl-ok" 2>/dev/null)" != "$PIN" ]; then
    echo "setup: $PIN at $V"
    [ -x "$V/bin/python" ] || python3 -m venv "$V"
    "$V/bin/pip" install -q --retries 0 --timeout 2 "$PIN"
    echo "$PIN" > "$V/.agentrl-ok"
  fi
}

part_model() {
  # llama.cpp for the tiny fixture model server (scripts/model-server.mjs): CPU build only,
  # in a git-ignored folder of its own so `npm ci` stays light and nothing reaches the VSIX.
  local PKGS="node-llama-cpp@3.22.1 @node-llama-cpp/linux-x64@3.22.1"
  place "$ROOT/.cache/model-server" "$PKGS" "$NODE_VERSION"
  local stamp="$DIR/.installed"
  lock_dir
  if [ "$(cat "$stamp" 2>/dev/null)" != "$PKGS" ]; then
    echo "setup: node-llama-cpp (CPU) into $DIR"
    mkdir -p "$DIR"
    [ -f "$DIR/package.json" ] || echo '{"name":"agentrl-model-server","private":true}' > "$DIR/package.json"
    # --omit=optional: only the linux-x64 CPU binary named here, not every platform's (and CUDA) build.
    # shellcheck disable=SC2086 # PKGS is a list
    (cd "$DIR" && npm install --omit=optional --no-audit --no-fund --loglevel=error $PKGS >/dev/null)
    echo "$PKGS" > "$stamp"
  fi
}

part_trinity() {
  # Trinity-RFT's own code (workflows, rewards, serve-mode proxy, buffer writers) for tests
  # against the real thing: upstream's recipe in ../shared/upstream builds the venv.
  local RECIPE="$SHARED/upstream/make-trinity-venv.sh"
  if [ ! -f "$RECIPE" ]; then
    echo "setup: no $SHARED/upstream: the tests that run Trinity's own code will be skipped"
    return 0
  fi
  place "$ROOT/.cache/trinity-venv" "$PY_VERSION" "$RECIPE"
  local TV=$DIR
  lock_dir
  if [ ! -f "$TV/.agentrl-ok" ]; then
    echo "setup: trinity-rft venv at $TV (a few minutes the first time)"
    bash "$RECIPE" "$TV"
    # gguf: transformers reads the fixture model's tokenizer from its .gguf (the debugger's
    # token lengths and messages->experience for Trinity's multi-turn workflows).
    "$TV/bin/pip" install -q --retries 0 --timeout 2 gguf
    touch "$TV/.agentrl-ok"
  fi
}

part_ray() {
  # A real Ray (dashboard with Jobs + State APIs) for the cluster tests (test/harness/ray-cluster.ts).
  # The telemetry packages Ray's dashboard wants are not installable here: tests put the
  # test-only stand-in ../shared/fixtures/ray on PYTHONPATH, so without ../shared this is skipped.
  [ -d "$SHARED/fixtures/ray" ] || return 0
  place "$ROOT/.cache/ray-venv" "$PY_VERSION"
  local RV=$DIR
  lock_dir
  if [ ! -f "$RV/.agentrl-ok" ]; then
    echo "setup: ray venv at $RV"
    [ -x "$RV/bin/python" ] || python3 -m venv "$RV"
    "$RV/bin/pip" install -q --retries 0 --timeout 5 ray aiohttp prometheus_client \
      smart_open virtualenv grpcio requests pydantic py-spy opentelemetry-api opentelemetry-proto debugpy
    local SP
    SP=$("$RV/bin/python" -c 'import site; print(site.getsitepackages()[0])')
    if [ ! -d "$SP/aiohttp_cors" ]; then
      local tmp
      tmp=$(mktemp -d)
      (cd "$tmp" && { apt-get download python3-aiohttp-cors >/dev/null 2>&1 || { apt-get update -qq && apt-get download python3-aiohttp-cors >/dev/null; }; } && dpkg -x python3-aiohttp-cors_*.deb root)
      cp -r "$tmp"/root/usr/lib/python3/dist-packages/aiohttp_cors* "$SP/"
      rm -rf "$tmp"
    fi
    touch "$RV/.agentrl-ok"
  fi
}

# The parts are independent of each other: each builds in the background, its output kept and
# printed whole when it ends; any failing part fails the setup (after all have ended).
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=()
names=()
for p in code-server python ruff model trinity ray; do
  want "$p" || continue
  ( set -euo pipefail; "part_${p//-/_}" ) >"$logs/$p" 2>&1 &
  pids+=($!); names+=("$p")
done
status=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    cat "$logs/${names[$i]}"
  else
    cat "$logs/${names[$i]}"
    echo "setup: ${names[$i]} failed" >&2
    status=1
  fi
done
exit $status
