#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, server mode)
# against examples/conformance-server over Streamable HTTP on 127.0.0.1.
#
#   npm run build && scripts/conformance.sh
#       suite 0.1.16, --suite all: the handshake-era protocol (2025-11-25)
#   CONFORMANCE_VERSION=0.2.0-alpha.12 CONFORMANCE_SPEC_VERSION=2026-07-28 scripts/conformance.sh
#       suite 0.2.0-alpha.12, --suite all --spec-version 2026-07-28: the stateless protocol
#       (every scenario that applies to 2026-07-28, including the draft ones)
#   CONFORMANCE_VERSION=0.2.0-alpha.12 scripts/conformance.sh
#       suite 0.2.0-alpha.12, --suite all: every scenario at the revision it was written for,
#       the extensions' (tasks-*) included
#
# The suite needs Node >= 22. When the `node` on PATH is older, Node 22 is installed from
# the npm registry (the `node-<platform>-<arch>` package, a plain binary with no install
# script), so nothing but the npm registry has to be reachable. Node 22 and each suite
# version are cached under .conformance/ (git-ignored), every suite version in a directory
# of its own (.conformance/suite-<version>), so several versions coexist; an install is
# repeated only when its version changes. The server itself runs on the `node` on PATH, the
# runtime the project supports.
#
# Environment:
#   CONFORMANCE_VERSION       suite version (default below; "latest" resolves on each install)
#   CONFORMANCE_SPEC_VERSION  pass --spec-version: run the scenarios of that protocol revision
#                             at its wire (e.g. 2026-07-28; needs a 0.2.0 suite). Unset: the
#                             suite's own default (0.1.x: 2025-11-25 over the handshake)
#   CONFORMANCE_REQUIREMENTS  pass --requirements <revision> instead of --suite/--spec-version:
#                             the scenarios that revision requires, frozen at its release, decide
#                             the exit code; the suite also runs unscored ones (extensions,
#                             pending), whose failures are listed too
#   CONFORMANCE_NODE_VERSION  Node version for the suite when the system one is too old (default 22)
#   CONFORMANCE_SUITE         all | active | pending | draft (default all). With a 0.2.0 suite,
#                             `active` leaves out the scenarios new in 2026-07-28 (they are
#                             `draft`), so `all` is what --spec-version 2026-07-28 needs
#   CONFORMANCE_SCENARIO      run this one scenario instead of a suite
#   CONFORMANCE_ENTRY         main (default): the server on listen({ transport: 'http' }); fetch: the
#                             same server through server.fetchHandler(), behind a bridge from
#                             node:http to Node's own Request and Response (examples/conformance-server/src/fetch.ts)
#   CONFORMANCE_RUNTIME       node (default): the entries above on Node; bun, deno or workers: the
#                             server bundled by `typemcp build --target <runtime>` (built here) and
#                             served by Bun.serve, Deno.serve or workerd (`wrangler dev --local`),
#                             the runtimes of test-support/runtimes (installed by npm test's pretest)
#   CONFORMANCE_EXPECTED_FAILURES  a YAML baseline for --expected-failures (the exit code then
#                             says whether the results differ from it)
#   CONFORMANCE_CACHE         cache directory (default <repo>/.conformance)
#   CONFORMANCE_PORT          port for the server (default 0: a free one)
#   CONFORMANCE_VERBOSE=1     print the suite's output unfiltered
#   CONFORMANCE_NO_SKIP       a regular expression of scenario names (e.g. ^sep-2640-): a check
#                             of theirs that was SKIPPED fails the run, as does no check of theirs
#                             having run at all
#
# Logs and results of a run go to .conformance/run-<version>[-<spec version>]/.
# Exit code: the suite's (0 when every check of every scenario passed).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${CONFORMANCE_CACHE:-$ROOT/.conformance}"
SUITE_VERSION="${CONFORMANCE_VERSION:-0.1.16}"
NODE_VERSION="${CONFORMANCE_NODE_VERSION:-22}"
SPEC_VERSION="${CONFORMANCE_SPEC_VERSION:-}"
REQUIREMENTS="${CONFORMANCE_REQUIREMENTS:-}"
SUITE="${CONFORMANCE_SUITE:-all}"
SCENARIO="${CONFORMANCE_SCENARIO:-}"
EXPECTED_FAILURES="${CONFORMANCE_EXPECTED_FAILURES:-}"
PORT="${CONFORMANCE_PORT:-0}"
ENTRY="${CONFORMANCE_ENTRY:-main}"
RUNTIME="${CONFORMANCE_RUNTIME:-node}"
[[ "$ENTRY" == main || "$ENTRY" == fetch ]] || { printf 'conformance.sh: CONFORMANCE_ENTRY is main or fetch, not %s\n' "$ENTRY" >&2; exit 2; }
[[ "$RUNTIME" =~ ^(node|bun|deno|workers)$ ]] || { printf 'conformance.sh: CONFORMANCE_RUNTIME is node, bun, deno or workers, not %s\n' "$RUNTIME" >&2; exit 2; }
SERVER_JS="$ROOT/examples/conformance-server/dist/$ENTRY.js"
RUNTIMES_BIN="$ROOT/test-support/runtimes/node_modules/.bin"
# One directory per suite version, protocol revision and runtime, so the runs of .ci/run keep their logs.
RUN_DIR="$CACHE/run-$SUITE_VERSION${REQUIREMENTS:+-requirements-$REQUIREMENTS}${SPEC_VERSION:+-$SPEC_VERSION}${CONFORMANCE_ENTRY:+-$ENTRY}${CONFORMANCE_RUNTIME:+-$RUNTIME}"
SERVER_LOG="$RUN_DIR/server.log"
SUITE_LOG="$RUN_DIR/suite.log"
RESULTS="$RUN_DIR/results"

export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'conformance.sh: %s\n' "$*" >&2; exit 2; }

# ---- cleanup: never leave the server behind ---------------------------------------------
SERVER_PID=""
SUITE_PID=""
stop() { # stop PID: TERM, up to 5 s, then KILL
  local pid="$1"
  # A server started in a process group of its own (wrangler and its workerd) is stopped as a group.
  if [[ "$pid" == "$SERVER_PID" && -n "${SERVER_GROUP:-}" ]]; then pid="-$pid"; fi
  kill -TERM -- "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do
    kill -0 -- "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "$pid" 2>/dev/null || true
  wait "${pid#-}" 2>/dev/null || true
}
cleanup() {
  if [[ -n "$SUITE_PID" ]]; then stop "$SUITE_PID"; fi
  if [[ -n "$SERVER_PID" ]]; then stop "$SERVER_PID"; fi
  SUITE_PID=""
  SERVER_PID=""
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

command -v node >/dev/null || die "node is not on PATH"
command -v npm >/dev/null || die "npm is not on PATH"
[[ -f "$SERVER_JS" ]] || die "$SERVER_JS is missing: run \`npm run build\` first"
if [[ "$RUNTIME" != node ]]; then
  [[ -x "$RUNTIMES_BIN/bun" && -x "$RUNTIMES_BIN/deno" && -x "$RUNTIMES_BIN/wrangler" ]] || die "the runtimes are missing: run \`node scripts/test-services.js --install\`"
  log "bundling the server for $RUNTIME (typemcp build --target $RUNTIME)"
  (cd "$ROOT/examples/conformance-server" && npm run -s "bundle:$RUNTIME" >&2)
fi
[[ -z "$REQUIREMENTS" || ( -z "$SPEC_VERSION" && -z "$SCENARIO" ) ]] ||
  die "CONFORMANCE_REQUIREMENTS cannot be combined with CONFORMANCE_SPEC_VERSION or CONFORMANCE_SCENARIO: a requirement set fixes which scenarios run"
if [[ -n "$EXPECTED_FAILURES" ]]; then
  [[ -f "$EXPECTED_FAILURES" ]] || die "CONFORMANCE_EXPECTED_FAILURES: no file $EXPECTED_FAILURES"
  EXPECTED_FAILURES="$(cd "$(dirname "$EXPECTED_FAILURES")" && pwd)/$(basename "$EXPECTED_FAILURES")"
fi
mkdir -p "$CACHE" "$RUN_DIR"

# ---- cached installs from the npm registry: install_into, node22 ---------------------------
# shellcheck source=lib/npm-tools.sh
source "$ROOT/scripts/lib/npm-tools.sh"
SUITE_NODE="$(node22 "$CACHE/node" "$NODE_VERSION")"
(( $(node_major "$SUITE_NODE") >= 22 )) || die "$SUITE_NODE is $("$SUITE_NODE" --version), the suite needs Node >= 22"

# npm itself runs on the Node first on PATH: Node 22 here, so the suite's engines field is met.
# Each version in its own directory, so that switching between them reinstalls nothing.
SUITE_DIR="$CACHE/suite-$SUITE_VERSION"
PATH="$(dirname "$SUITE_NODE"):$PATH" install_into "$SUITE_DIR" "@modelcontextprotocol/conformance@$SUITE_VERSION"
SUITE_PKG="$SUITE_DIR/node_modules/@modelcontextprotocol/conformance"
SUITE_BIN="$SUITE_PKG/$("$SUITE_NODE" -p 'require(process.argv[1]).bin.conformance' "$SUITE_PKG/package.json")"
log "suite $("$SUITE_NODE" -p 'require(process.argv[1]).version' "$SUITE_PKG/package.json") on node $("$SUITE_NODE" --version); server on $RUNTIME"

# ---- start the server on a free port -------------------------------------------------------
: > "$SERVER_LOG"
BUNDLE="$ROOT/examples/conformance-server/dist/bundle/$RUNTIME"
SERVER_GROUP=""
case "$RUNTIME" in
  node) PORT="$PORT" node "$SERVER_JS" >>"$SERVER_LOG" 2>&1 & ;;
  bun) PORT="$PORT" "$RUNTIMES_BIN/bun" "$BUNDLE/server.mjs" >>"$SERVER_LOG" 2>&1 & ;;
  deno) PORT="$PORT" DENO_DIR="$CACHE/deno" DENO_NO_UPDATE_CHECK=1 NO_COLOR=1 "$RUNTIMES_BIN/deno" run --no-prompt --allow-net=127.0.0.1 --allow-env "$BUNDLE/server.mjs" >>"$SERVER_LOG" 2>&1 & ;;
  workers)
    # wrangler takes the port it is given (and needs Node 22: the one of test-support/runtimes).
    if [[ "$PORT" == 0 ]]; then PORT="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"; fi
    SERVER_GROUP=1
    (cd "$BUNDLE" && CI=true WRANGLER_SEND_METRICS=false WRANGLER_HIDE_BANNER=true CLOUDFLARE_CF_FETCH_ENABLED=false XDG_CONFIG_HOME="$CACHE/wrangler" HOME="$CACHE/wrangler" NO_COLOR=1 exec setsid "$RUNTIMES_BIN/node" \
      "$ROOT/test-support/runtimes/node_modules/wrangler/bin/wrangler.js" dev --local --ip 127.0.0.1 --port "$PORT" --inspector-port 0 \
      --var "MCP_REQUEST_STATE_SECRET:conformance-run-secret-$RANDOM$RANDOM$RANDOM" --show-interactive-dev-session=false) >>"$SERVER_LOG" 2>&1 &
    ;;
esac
SERVER_PID=$!

URL=""
for _ in $(seq 600); do
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$SERVER_LOG" >&2; die "the server exited during startup"; }
  URL="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$SERVER_LOG" | head -n 1 || true)"
  if [[ "$RUNTIME" == workers ]] && grep -q 'Ready on http://127\.0\.0\.1:' "$SERVER_LOG"; then URL="http://127.0.0.1:$PORT/mcp"; fi
  [[ -n "$URL" ]] && break
  sleep 0.1
done
[[ -n "$URL" ]] || { cat "$SERVER_LOG" >&2; die "the server printed no URL within 60 s"; }

# Any HTTP answer (a GET without a session is refused) means it is serving.
answering=""
for _ in $(seq 100); do
  if node -e 'fetch(process.argv[1], { headers: { accept: "text/event-stream" } }).then((r) => { r.body?.cancel(); process.exit(0); }, () => process.exit(1))' "$URL"; then
    answering=1
    break
  fi
  sleep 0.1
done
[[ -n "$answering" ]] || { cat "$SERVER_LOG" >&2; die "the server does not answer at $URL"; }
log "server $SERVER_PID answering at $URL"

# ---- run the suite ---------------------------------------------------------------------------
rm -rf "$RESULTS"
args=(server --url "$URL" --output-dir "$RESULTS")
if [[ -n "$SCENARIO" ]]; then
  args+=(--scenario "$SCENARIO")
elif [[ -n "$REQUIREMENTS" ]]; then
  args+=(--requirements "$REQUIREMENTS")
else
  args+=(--suite "$SUITE")
fi
# The suite filters its list by revision; with a 0.2.0 suite --spec-version also picks the
# wire: 2026-07-28 scenarios talk stateless (no initialize, `_meta` and headers per request).
if [[ -n "$SPEC_VERSION" ]]; then args+=(--spec-version "$SPEC_VERSION"); fi
if [[ -n "$EXPECTED_FAILURES" ]]; then args+=(--expected-failures "$EXPECTED_FAILURES"); fi
log "conformance ${args[*]}"

# In the background, so that a signal to this script stops the run at once (see cleanup).
"$SUITE_NODE" "$SUITE_BIN" "${args[@]}" >"$SUITE_LOG" 2>&1 &
SUITE_PID=$!
status=0
wait "$SUITE_PID" || status=$?
SUITE_PID=""

if [[ "${CONFORMANCE_VERBOSE:-}" == 1 ]]; then
  cat "$SUITE_LOG"
else
  grep -v -e '^Running client scenario' -e '^Results saved to' -e '^$' "$SUITE_LOG" || true
fi

# The suite prints only counts per scenario; the checks behind them are in checks.json.
"$SUITE_NODE" -e '
  const fs = require("node:fs"), path = require("node:path");
  const dir = process.argv[1];
  const noSkip = process.argv[2] ? new RegExp(process.argv[2]) : undefined;
  const rows = { FAILURE: [], WARNING: [], SKIPPED: [] };
  let guarded = 0;
  for (const run of fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []) {
    const file = path.join(dir, run, "checks.json");
    if (!fs.existsSync(file)) continue;
    const scenario = run.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
    const guardedScenario = noSkip !== undefined && noSkip.test(scenario);
    for (const c of JSON.parse(fs.readFileSync(file, "utf8"))) {
      if (guardedScenario) guarded++;
      if (c.status === "SKIPPED" && !guardedScenario) continue;
      if (rows[c.status]) rows[c.status].push(`  ${scenario} / ${c.id}: ${c.errorMessage ?? c.description}`);
    }
  }
  const titles = { FAILURE: "Failed", WARNING: "Warning", SKIPPED: "Skipped (not allowed by CONFORMANCE_NO_SKIP)" };
  for (const [status, lines] of Object.entries(rows)) {
    if (lines.length) console.log(`\n${titles[status]} checks (${lines.length}):\n${lines.join("\n")}`);
  }
  if (noSkip !== undefined) {
    if (guarded === 0) { console.log(`\nNo check of a scenario matching ${noSkip} ran`); process.exit(1); }
    if (rows.SKIPPED.length > 0) process.exit(1);
    console.log(`\n${guarded} checks of scenarios matching ${noSkip} ran, none skipped`);
  }
' "$RESULTS" "${CONFORMANCE_NO_SKIP:-}" || status=$((status == 0 ? 1 : status))

log "suite output: ${SUITE_LOG#"$ROOT"/}; checks per scenario: ${RESULTS#"$ROOT"/}/*/checks.json; server log: ${SERVER_LOG#"$ROOT"/}"
log "suite exit code $status"
exit "$status"
