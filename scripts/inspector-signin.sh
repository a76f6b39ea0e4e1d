#!/usr/bin/env bash
# The official MCP Inspector's web UI (@modelcontextprotocol/inspector, Node >= 22) signs in to
# examples/09-signin through its own OAuth flow, in headless Chromium, as a user would: the
# Inspector launched with the example's URL over Streamable HTTP, Connect, the 401, discovery,
# its client registration, the example's login (alice) and consent pages, the callback, then
# the tool list (the tools of the granted scope: list_notes) and list_notes called as alice
# (scripts/lib/inspector-signin.js).
#
#   npm run build && scripts/inspector-signin.sh
#
# Environment:
#   INSPECTOR_VERSION   default below (the one scripts/inspector.sh runs)
#   INSPECTOR_CACHE     cache directory (default <repo>/.conformance, shared with conformance.sh)
# Logs go to .conformance/run-inspector-<version>-signin/. Exit code: 0 when every check passed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${INSPECTOR_CACHE:-$ROOT/.conformance}"
VERSION="${INSPECTOR_VERSION:-2.12.0}"
RUN_DIR="$CACHE/run-inspector-$VERSION-signin"

export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
log() { printf '== %s\n' "$*" >&2; }
die() { printf 'inspector-signin.sh: %s\n' "$*" >&2; exit 2; }

PIDS=()
WORK=""
stop() { # stop PID: TERM, up to 5 s, then KILL
  kill -TERM "$1" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() {
  for pid in "${PIDS[@]}"; do stop "$pid"; done
  PIDS=()
  if [[ -n "$WORK" ]]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

node -e 'require.resolve("playwright-core")' 2>/dev/null || die "playwright-core is missing: run \`npm ci\` first"
mkdir -p "$CACHE"
rm -rf "$RUN_DIR"
mkdir -p "$RUN_DIR"
# shellcheck source=lib/npm-tools.sh
source "$ROOT/scripts/lib/npm-tools.sh"
# shellcheck source=lib/signin-example.sh
source "$ROOT/scripts/lib/signin-example.sh"
NODE22="$(node22 "$CACHE/node")"
PATH="$(dirname "$NODE22"):$PATH" install_into "$CACHE/inspector-$VERSION" "@modelcontextprotocol/inspector@$VERSION"
LAUNCHER="$CACHE/inspector-$VERSION/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
[[ -f "$LAUNCHER" ]] || die "no launcher at $LAUNCHER"
log "inspector $VERSION on node $("$NODE22" --version); server on node $(node --version)"
start=$SECONDS

start_signin_example "$RUN_DIR/server.log"
PIDS+=("$SIGNIN_PID")
log "example $SIGNIN_PID at $SIGNIN_URL"

# The Inspector keeps client registrations and tokens under HOME: a fresh one, so that it signs
# in anew. Its web port is fixed at launch (CLIENT_PORT): a free one, and its OAuth callback
# follows it. The MCP Apps ports are left to the system; secrets stay in memory; no browser of its own.
WORK="$(mktemp -d)"
INSPECTOR_PORT="$(free_port)"
TOKEN="$(node -p 'require("node:crypto").randomBytes(32).toString("hex")')"
: > "$RUN_DIR/inspector.log"
HOME="$WORK" CLIENT_PORT="$INSPECTOR_PORT" MCP_SANDBOX_PORT=0 MCP_APP_ORIGIN_PORT=0 MCP_AUTO_OPEN_ENABLED=false \
  MCP_INSPECTOR_SECRET_STORE=memory MCP_INSPECTOR_API_TOKEN="$TOKEN" \
  "$NODE22" "$LAUNCHER" --web --transport http --server-url "$SIGNIN_URL" >>"$RUN_DIR/inspector.log" 2>&1 &
INSPECTOR_PID=$!
PIDS+=("$INSPECTOR_PID")
INSPECTOR_URL=""
for _ in $(seq 300); do
  kill -0 "$INSPECTOR_PID" 2>/dev/null || { cat "$RUN_DIR/inspector.log" >&2; die "the Inspector exited during startup"; }
  if grep -q 'is up and running at' "$RUN_DIR/inspector.log"; then
    INSPECTOR_URL="http://127.0.0.1:$INSPECTOR_PORT/?MCP_INSPECTOR_API_TOKEN=$TOKEN"
    break
  fi
  sleep 0.1
done
[[ -n "$INSPECTOR_URL" ]] || { cat "$RUN_DIR/inspector.log" >&2; die "the Inspector's web UI did not start within 30 s"; }
log "inspector web UI $INSPECTOR_PID at http://127.0.0.1:$INSPECTOR_PORT"

status=0
node "$ROOT/scripts/lib/inspector-signin.js" "$INSPECTOR_URL" "$SIGNIN_URL" alice "$RUN_DIR" || status=1
cleanup
if (( status != 0 )); then
  log "the Inspector's log: ${RUN_DIR#"$ROOT"/}/inspector.log; the example's: ${RUN_DIR#"$ROOT"/}/server.log"
  exit 1
fi
log "the Inspector $VERSION signed in to examples/09-signin and listed its tools, in $((SECONDS - start)) s"
