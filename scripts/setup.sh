#!/usr/bin/env bash
# Installs what the tests, benchmarks and `npm start` need, idempotently, from npm, Debian's
# apt and the machine's local Python package index only. Safe to run again: each part checks
# a marker first and returns at once when already done.
#   scripts/setup.sh [apt] [code-server] [python] [model] [trinity] [ray]   (no argument = all)
# trinity and ray need ../shared (upstream code, test-only stand-ins); without it they are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
parts=("$@"); [ ${#parts[@]} -eq 0 ] && parts=(apt code-server python model trinity ray)
export DEBIAN_FRONTEND=noninteractive

want() { local p; for p in "${parts[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }

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

if want code-server; then
  bash scripts/install-code-server.sh "${CODE_SERVER_PREFIX:-$ROOT/.vscode-test/code-server}" "${CODE_SERVER_VERSION:-4.100.3}"
fi

if want python; then
  # A project-local venv for tests that need Python packages (tensorboardX, debugpy, openai...).
  # The runner we ship uses only the standard library; this venv is for tests and benches.
  VENV="$ROOT/.cache/venv"
  REQ="$ROOT/scripts/python-requirements.txt"
  stamp="$VENV/.requirements-ok"
  if [ ! -f "$stamp" ] || ! cmp -s "$REQ" "$stamp"; then
    echo "setup: python venv at $VENV"
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    # --retries 0 --timeout 2: the public index is unreachable here; the local index answers.
    "$VENV/bin/pip" install -q --retries 0 --timeout 2 -r "$REQ"
    cp "$REQ" "$stamp"
  fi
  # The debugger runner's pytest suite runs in a venv of pytest alone, so that the runner under
  # test sees the standard library and nothing else it could come to rely on.
  PV="$ROOT/.cache/pytest-venv"
  if [ ! -f "$PV/.agentrl-ok" ]; then
    echo "setup: pytest venv at $PV"
    [ -x "$PV/bin/python" ] || python3 -m venv "$PV"
    "$PV/bin/pip" install -q --retries 0 --timeout 2 pytest
    touch "$PV/.agentrl-ok"
  fi
fi

if want model; then
  # llama.cpp for the tiny fixture model server (scripts/model-server.mjs): CPU build only,
  # in a git-ignored folder of its own so `npm ci` stays light and nothing reaches the VSIX.
  DIR="$ROOT/.cache/model-server"
  PKGS="node-llama-cpp@3.22.1 @node-llama-cpp/linux-x64@3.22.1"
  stamp="$DIR/.installed"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$PKGS" ]; then
    echo "setup: node-llama-cpp (CPU) into $DIR"
    mkdir -p "$DIR"
    [ -f "$DIR/package.json" ] || echo '{"name":"agentrl-model-server","private":true}' > "$DIR/package.json"
    # --omit=optional: only the linux-x64 CPU binary named here, not every platform's (and CUDA) build.
    (cd "$DIR" && npm install --omit=optional --no-audit --no-fund --loglevel=error $PKGS >/dev/null)
    echo "$PKGS" > "$stamp"
  fi
fi

SHARED="${AGENTRL_SHARED_DIR:-$ROOT/../shared}"

if want trinity; then
  # Trinity-RFT's own code (workflows, rewards, serve-mode proxy, buffer writers) for tests
  # against the real thing: upstream's recipe in ../shared/upstream builds the venv.
  if [ -x "$SHARED/upstream/make-trinity-venv.sh" ] || [ -f "$SHARED/upstream/make-trinity-venv.sh" ]; then
    TV="$ROOT/.cache/trinity-venv"
    if [ ! -f "$TV/.agentrl-ok" ]; then
      echo "setup: trinity-rft venv at $TV (a few minutes the first time)"
      bash "$SHARED/upstream/make-trinity-venv.sh" "$TV"
      # gguf: transformers reads the fixture model's tokenizer from its .gguf (the debugger's
      # token lengths and messages->experience for Trinity's multi-turn workflows).
      "$TV/bin/pip" install -q --retries 0 --timeout 2 gguf
      touch "$TV/.agentrl-ok"
    fi
  else
    echo "setup: no $SHARED/upstream: the tests that run Trinity's own code will be skipped"
  fi
fi

if want ray; then
  # A real Ray (dashboard with Jobs + State APIs) for the cluster tests (test/harness/ray-cluster.ts).
  # The telemetry packages Ray's dashboard wants are not installable here: tests put the
  # test-only stand-in ../shared/fixtures/ray on PYTHONPATH, so without ../shared this is skipped.
  if [ -d "$SHARED/fixtures/ray" ]; then
    RV="$ROOT/.cache/ray-venv"
    if [ ! -f "$RV/.agentrl-ok" ]; then
      echo "setup: ray venv at $RV"
      [ -x "$RV/bin/python" ] || python3 -m venv "$RV"
      "$RV/bin/pip" install -q --retries 0 --timeout 5 ray aiohttp prometheus_client \
        smart_open virtualenv grpcio requests pydantic py-spy opentelemetry-api opentelemetry-proto
      SP=$("$RV/bin/python" -c 'import site; print(site.getsitepackages()[0])')
      if [ ! -d "$SP/aiohttp_cors" ]; then
        tmp=$(mktemp -d)
        (cd "$tmp" && { apt-get download python3-aiohttp-cors >/dev/null 2>&1 || { apt-get update -qq && apt-get download python3-aiohttp-cors >/dev/null; }; } && dpkg -x python3-aiohttp-cors_*.deb root)
        cp -r "$tmp"/root/usr/lib/python3/dist-packages/aiohttp_cors* "$SP/"
        rm -rf "$tmp"
      fi
      touch "$RV/.agentrl-ok"
    fi
  fi
fi
