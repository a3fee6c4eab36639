#!/usr/bin/env bash
# Installs code-server (a real VS Code server + web workbench) from the npm registry on a
# machine that reaches only npm and Debian's apt: its install scripts, which download from
# GitHub, are skipped, and the steps below do their work offline.
# Usage: scripts/install-code-server.sh <prefix-dir> [version]
#   -> <prefix-dir>/node_modules/.bin/code-server      (idempotent: a marker skips re-installs)
# Needs (apt, see scripts/setup.sh): build-essential python3 pkg-config libkrb5-dev ripgrep
set -euo pipefail
PREFIX="${1:?usage: install-code-server.sh <prefix-dir> [version]}"
VER="${2:-4.100.3}"   # 4.100.3 (VS Code 1.100.3) is the last code-server for Node 20
export npm_config_yes=true          # node-pty's postinstall runs `npx node-gyp`; ~/.npmrc has yes=false
mkdir -p "$PREFIX"
PREFIX="$(cd "$PREFIX" && pwd)"
CS="$PREFIX/node_modules/code-server"
if [ -f "$CS/.offline-install-ok" ] && [ "$(cat "$CS/.offline-install-ok")" = "$VER $(node --version)" ]; then
  echo "code-server $VER already installed at $CS"; exit 0
fi
echo "installing code-server $VER into $PREFIX (about a minute)"
rm -rf "$PREFIX/node_modules" "$PREFIX/package-lock.json"
cd "$PREFIX"
[ -f package.json ] || echo '{"name":"code-server-host","private":true}' > package.json
# 1. code-server without its postinstall.sh (root check; rg download from GitHub).
npm install --no-audit --no-fund --ignore-scripts "code-server@$VER"
# argon2: the prebuilt download fails offline, node-pre-gyp falls back to a source build.
npm rebuild argon2
cd "$CS/lib/vscode"
# 2. VS Code's runtime deps (pinned by its npm-shrinkwrap.json), again without scripts.
npm install --no-audit --no-fund --omit=dev --ignore-scripts
# 3. @vscode/ripgrep < 1.17 downloads rg unless bin/ exists: hand it Debian's rg.
if [ -f node_modules/@vscode/ripgrep/lib/postinstall.js ]; then
  mkdir -p node_modules/@vscode/ripgrep/bin
  cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
fi
# 4. now run the install scripts (node-gyp builds: node-pty, @vscode/spdlog, kerberos, ...).
npm rebuild
# 5. the remaining steps of code-server's postinstall.sh.
ln -sfn node_modules node_modules.asar
( cd bin/remote-cli && ln -sfn code-linux.sh code-server )
( cd bin/helpers && ln -sfn browser-linux.sh browser.sh )
( cd extensions && npm install --no-audit --no-fund --omit=dev )
echo "$VER $(node --version)" > "$CS/.offline-install-ok"
XDG_CONFIG_HOME="$PREFIX/.xdg" XDG_DATA_HOME="$PREFIX/.xdg" "$PREFIX/node_modules/.bin/code-server" --version
