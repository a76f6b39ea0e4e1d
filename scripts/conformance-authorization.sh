#!/usr/bin/env bash
# The official MCP conformance suite's authorization-server mode (`conformance authorization`)
# against the sign-in of examples/09-signin (@typemcp/auth's signIn plugin), both scenarios:
# - authorization-server-metadata-endpoint: RFC 8414 metadata at the issuer's well-known URL
#   (status, content type, the required fields, S256, the issuer equal to the URL it was
#   fetched for, client_id_metadata_document_supported);
# - authorization-code-grant: a full authorization code grant with PKCE and the RFC 8707
#   resource, by a public client registered here by DCR: the suite prints the authorization
#   URL, headless Chromium signs in as alice and approves (scripts/lib/conformance-authorize.js),
#   the suite checks the redirect (code, state, iss) and exchanges the code (200, JSON, no-store).
#
#   npm run build && scripts/conformance-authorization.sh
#
# The issuer passed as --url is the one the example's protected resource metadata names, as a
# client discovers it. The suite's exit code ignores SKIPPED and WARNING checks (the code grant
# is SKIPPED without --client-id), so passing means here: every check of both scenarios in
# their checks.json is SUCCESS, and the three expected checks are among them.
#
# Environment:
#   CONFORMANCE_VERSION   suite version (default below)
#   CONFORMANCE_CACHE     cache directory (default <repo>/.conformance, shared with conformance.sh)
# Logs and results go to .conformance/run-<version>-authorization/. Exit code: 0 when it passed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${CONFORMANCE_CACHE:-$ROOT/.conformance}"
SUITE_VERSION="${CONFORMANCE_VERSION:-0.2.0-alpha.12}"
RUN_DIR="$CACHE/run-$SUITE_VERSION-authorization"
SERVER_LOG="$RUN_DIR/server.log"
SUITE_LOG="$RUN_DIR/suite.log"
RESULTS="$RUN_DIR/results"
# The suite waits 5 minutes for the browser; nothing here needs more than this.
LIMIT_SEC=90

export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
log() { printf '== %s\n' "$*" >&2; }
die() { printf 'conformance-authorization.sh: %s\n' "$*" >&2; exit 2; }

SERVER_PID=""
SUITE_PID=""
stop() { # stop PID: TERM, up to 5 s, then KILL
  kill -TERM "$1" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() {
  if [[ -n "$SUITE_PID" ]]; then stop "$SUITE_PID"; fi
  if [[ -n "$SERVER_PID" ]]; then stop "$SERVER_PID"; fi
  SUITE_PID="" SERVER_PID=""
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

node -e 'require.resolve("playwright-core")' 2>/dev/null || die "playwright-core is missing: run \`npm ci\` first"
mkdir -p "$CACHE" "$RUN_DIR"

# shellcheck source=lib/npm-tools.sh
source "$ROOT/scripts/lib/npm-tools.sh"
SUITE_NODE="$(node22 "$CACHE/node")"
SUITE_DIR="$CACHE/suite-$SUITE_VERSION"
PATH="$(dirname "$SUITE_NODE"):$PATH" install_into "$SUITE_DIR" "@modelcontextprotocol/conformance@$SUITE_VERSION"
SUITE_PKG="$SUITE_DIR/node_modules/@modelcontextprotocol/conformance"
SUITE_BIN="$SUITE_PKG/$("$SUITE_NODE" -p 'require(process.argv[1]).bin.conformance' "$SUITE_PKG/package.json")"
log "suite $("$SUITE_NODE" -p 'require(process.argv[1]).version' "$SUITE_PKG/package.json") on node $("$SUITE_NODE" --version); server on node $(node --version)"

# shellcheck source=lib/signin-example.sh
source "$ROOT/scripts/lib/signin-example.sh"
start_signin_example "$SERVER_LOG"
SERVER_PID="$SIGNIN_PID"
MCP_URL="$SIGNIN_URL"

# The issuer as a client finds it, through the resource's metadata (RFC 9728), then its endpoints (RFC 8414).
read -r RESOURCE ISSUER AUTHORIZE REGISTER < <(node -e '
  const json = (url) => fetch(url).then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${url}: HTTP ${r.status}`))));
  const mcp = new URL(process.argv[1]);
  (async () => {
    const resource = await json(`${mcp.origin}/.well-known/oauth-protected-resource${mcp.pathname}`);
    const issuer = resource.authorization_servers[0];
    const server = await json(`${issuer}/.well-known/oauth-authorization-server`);
    console.log(resource.resource, issuer, server.authorization_endpoint, server.registration_endpoint);
  })().catch((e) => { console.error(e.message); process.exit(1); });
' "$MCP_URL") || die "no metadata for $MCP_URL"
[[ "$RESOURCE" == "$MCP_URL" ]] || die "the protected resource metadata names $RESOURCE, not $MCP_URL"
log "example $SERVER_PID at $MCP_URL; issuer $ISSUER"

# ---- a public client, registered by DCR for the suite's callback -----------------------------
CALLBACK_PORT="$(free_port)"
CALLBACK="http://127.0.0.1:$CALLBACK_PORT/callback"
CLIENT_ID="$(node -e '
  fetch(process.argv[1], {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "MCP conformance suite", redirect_uris: [process.argv[2]], token_endpoint_auth_method: "none", grant_types: ["authorization_code"], response_types: ["code"] }),
  }).then(async (r) => { const body = await r.json(); if (r.status !== 201) throw new Error(`HTTP ${r.status} ${JSON.stringify(body)}`); console.log(body.client_id); })
    .catch((e) => { console.error(`registration: ${e.message}`); process.exit(1); });
' "$REGISTER" "$CALLBACK")" || die "DCR at $REGISTER failed"
log "registered client $CLIENT_ID for $CALLBACK"

# ---- the suite, with the browser answering its authorization request ---------------------------
rm -rf "$RESULTS" "$RUN_DIR/browser"
# Both scenarios in one run, no --scenario: the code grant takes its endpoints from the metadata
# scenario's result, so on its own it fails ("Invalid authorization server metadata").
args=(authorization --url "$ISSUER" --client-id "$CLIENT_ID" --resource "$RESOURCE" --port "$CALLBACK_PORT" --output-dir "$RESULTS")
log "conformance ${args[*]}"
start=$SECONDS
"$SUITE_NODE" "$SUITE_BIN" "${args[@]}" >"$SUITE_LOG" 2>&1 &
SUITE_PID=$!

status=0
if ! node "$ROOT/scripts/lib/conformance-authorize.js" "$SUITE_LOG" "$AUTHORIZE" "$CALLBACK" alice "$RUN_DIR/browser"; then
  status=1
else
  while kill -0 "$SUITE_PID" 2>/dev/null && (( SECONDS - start < LIMIT_SEC )); do sleep 0.2; done
  if kill -0 "$SUITE_PID" 2>/dev/null; then
    log "the suite was still running after $LIMIT_SEC s"
    status=1
  else
    wait "$SUITE_PID" || status=$?
    SUITE_PID=""
  fi
fi
cleanup
grep -v -e '^$' -e '^Results saved to' -e '^Waiting up to' "$SUITE_LOG" || true

# ---- what passed means: every check SUCCESS, the three expected present -----------------------
"$SUITE_NODE" -e '
  const fs = require("node:fs"), path = require("node:path");
  const dir = process.argv[1];
  const expected = {
    "authorization-server-metadata-endpoint": ["authorization-server-metadata", "authorization-server-metadata-cimd"],
    "authorization-code-grant": ["authorization-code-grant"],
  };
  const problems = [];
  let passed = 0;
  for (const [scenario, ids] of Object.entries(expected)) {
    const runs = fs.existsSync(dir) ? fs.readdirSync(dir).filter((run) => run.startsWith(`authorization-server-${scenario}-`)) : [];
    if (runs.length !== 1) { problems.push(`${scenario}: ${runs.length} result directories, expected 1`); continue; }
    const checks = JSON.parse(fs.readFileSync(path.join(dir, runs[0], "checks.json"), "utf8"));
    for (const c of checks) {
      if (c.status === "SUCCESS") passed++;
      else problems.push(`${scenario} / ${c.id}: ${c.status}: ${c.errorMessage ?? c.description}`);
    }
    for (const id of ids) if (!checks.some((c) => c.id === id)) problems.push(`${scenario}: no check ${id}`);
  }
  if (problems.length > 0) { console.log(`\nNot passed (${problems.length}):\n  ${problems.join("\n  ")}`); process.exit(1); }
  console.log(`\nauthorization: ${passed} checks of 2 scenarios, all SUCCESS`);
' "$RESULTS" || status=1

log "suite output: ${SUITE_LOG#"$ROOT"/}; checks: ${RESULTS#"$ROOT"/}/*/checks.json; server log: ${SERVER_LOG#"$ROOT"/}; in $((SECONDS - start)) s"
exit "$status"
