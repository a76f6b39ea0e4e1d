#!/usr/bin/env bash
# Lists the skills of examples/05-skills with the official MCP Inspector's command line
# (@modelcontextprotocol/inspector, Node >= 22), as a user would: over Streamable HTTP and
# over stdio, in the handshake era (the Inspector's default) and in 2026-07-28, and checks
# every skill with the Inspector's own SEP-2640 verification (--verify).
#
#   npm run build && scripts/inspector-skills.sh
#
# Environment:
#   INSPECTOR_VERSION   default below
#   INSPECTOR_CACHE     cache directory (default <repo>/.conformance, shared with conformance.sh)
# Exit code: 0 when every listing has exactly the example's skills and every check passed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${INSPECTOR_CACHE:-$ROOT/.conformance}"
VERSION="${INSPECTOR_VERSION:-2.12.0}"
SERVER_JS="$ROOT/examples/05-skills/dist/main.js"
EXPECTED='["refunds","partial-refunds","git-workflow","pdf-processing","release-checklist","on-call"]'

export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
log() { printf '== %s\n' "$*" >&2; }
die() { printf 'inspector-skills.sh: %s\n' "$*" >&2; exit 2; }

SERVER_PID=""
WORK=""
cleanup() {
  if [[ -n "$SERVER_PID" ]]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  if [[ -n "$WORK" ]]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT

[[ -f "$SERVER_JS" ]] || die "$SERVER_JS is missing: run \`npm run build\` first"
mkdir -p "$CACHE"
# shellcheck source=lib/npm-tools.sh
source "$ROOT/scripts/lib/npm-tools.sh"
NODE22="$(node22 "$CACHE/node")"
PATH="$(dirname "$NODE22"):$PATH" install_into "$CACHE/inspector-$VERSION" "@modelcontextprotocol/inspector@$VERSION"
LAUNCHER="$CACHE/inspector-$VERSION/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
[[ -f "$LAUNCHER" ]] || die "no launcher at $LAUNCHER"
log "inspector $VERSION on node $("$NODE22" --version); server on node $(node --version)"

# The Inspector keeps its state under HOME: a directory of this run's own.
WORK="$(mktemp -d)"
inspector() { HOME="$WORK" "$NODE22" "$LAUNCHER" --cli -q "$@"; }

# names JSON: the frontmatter names of a skills/list result, in order.
names() { node -e 'let t="";process.stdin.on("data",(d)=>t+=d).on("end",()=>console.log(JSON.stringify(JSON.parse(t).skills.map((s)=>s.frontmatter.name))))'; }

expect_skills() { # expect_skills WHAT ARGS...: skills/list must name exactly the example's skills
  local what="$1"; shift
  local got
  got="$(inspector --method skills/list "$@" | names)"
  [[ "$got" == "$EXPECTED" ]] || die "$what: the Inspector listed $got, expected $EXPECTED"
  log "$what: the Inspector lists $got"
}

: > "$WORK/server.log"
PORT=0 node "$SERVER_JS" 2>"$WORK/server.log" &
SERVER_PID=$!
URL=""
for _ in $(seq 300); do
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; die "the server exited during startup"; }
  URL="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$WORK/server.log" | head -n 1 || true)"
  [[ -n "$URL" ]] && break
  sleep 0.1
done
[[ -n "$URL" ]] || die "the server printed no URL within 30 s"

expect_skills "Streamable HTTP, 2025-11-25 handshake" "$URL"
expect_skills "Streamable HTTP, 2026-07-28" --protocol-era modern "$URL"
expect_skills "stdio, 2025-11-25 handshake" -- node "$SERVER_JS" --stdio
expect_skills "stdio, 2026-07-28" --protocol-era modern -- node "$SERVER_JS" --stdio

# --verify reads every listed file and checks it against its entry (size, digest, frontmatter).
inspector --method skills/list --verify "$URL" > "$WORK/verify.jsonl" 2> "$WORK/verify.err" || {
  cat "$WORK/verify.jsonl" "$WORK/verify.err" >&2
  die "the Inspector's --verify found a problem"
}
verified="$(grep -c '"outcome":"verified"' "$WORK/verify.jsonl" || true)"
[[ "$verified" == 5 ]] || { cat "$WORK/verify.jsonl" >&2; die "--verify verified $verified skills, expected the 5 with manifests (the sixth is dynamic)"; }
log "--verify: the 5 skills with manifests verified file by file (size, digest, frontmatter); on-call is dynamic"
