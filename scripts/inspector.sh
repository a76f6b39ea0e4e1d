#!/usr/bin/env bash
# The official MCP Inspector's command line (@modelcontextprotocol/inspector, Node >= 22)
# against the examples, as a user would run it:
# - examples/05-skills: lists its skills over Streamable HTTP and over stdio, in the handshake
#   era (the Inspector's default) and in 2026-07-28, and checks every skill with the
#   Inspector's own SEP-2640 verification (--verify);
# - examples/06-apps: `tools/list --app-info` reports the app of each UI tool (hasApp, the
#   resource's MIME type and settings, no resource error) to a client that shows apps, in both
#   eras, and no app to one that does not (the text fallback).
#
#   npm run build && scripts/inspector.sh
#
# Environment:
#   INSPECTOR_VERSION   default below
#   INSPECTOR_CACHE     cache directory (default <repo>/.conformance, shared with conformance.sh)
# Exit code: 0 when every check passed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${INSPECTOR_CACHE:-$ROOT/.conformance}"
VERSION="${INSPECTOR_VERSION:-2.12.0}"
SKILLS_JS="$ROOT/examples/05-skills/dist/main.js"
APPS_JS="$ROOT/examples/06-apps/dist/main.js"
EXPECTED='["refunds","partial-refunds","git-workflow","pdf-processing","release-checklist","on-call"]'

export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
log() { printf '== %s\n' "$*" >&2; }
die() { printf 'inspector.sh: %s\n' "$*" >&2; exit 2; }

SERVER_PIDS=()
WORK=""
cleanup() {
  for pid in "${SERVER_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  if [[ -n "$WORK" ]]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT

for js in "$SKILLS_JS" "$APPS_JS" "$ROOT/examples/06-apps/dist/ui/counter.html"; do
  [[ -f "$js" ]] || die "$js is missing: run \`npm run build\` first"
done
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

# serve NAME JS: starts an example over HTTP on a free port of 127.0.0.1; its URL in $URL.
serve() {
  local name="$1" js="$2" log="$WORK/$1.log" pid
  : > "$log"
  PORT=0 node "$js" 2>"$log" &
  pid=$!
  SERVER_PIDS+=("$pid")
  URL=""
  for _ in $(seq 300); do
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "$name exited during startup"; }
    URL="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" | head -n 1 || true)"
    [[ -n "$URL" ]] && return 0
    sleep 0.1
  done
  die "$name printed no URL within 30 s"
}

# ---- skills ---------------------------------------------------------------------------------
serve skills "$SKILLS_JS"

expect_skills "Streamable HTTP, 2025-11-25 handshake" "$URL"
expect_skills "Streamable HTTP, 2026-07-28" --protocol-era modern "$URL"
expect_skills "stdio, 2025-11-25 handshake" -- node "$SKILLS_JS" --stdio
expect_skills "stdio, 2026-07-28" --protocol-era modern -- node "$SKILLS_JS" --stdio

# --verify reads every listed file and checks it against its entry (size, digest, frontmatter).
inspector --method skills/list --verify "$URL" > "$WORK/verify.jsonl" 2> "$WORK/verify.err" || {
  cat "$WORK/verify.jsonl" "$WORK/verify.err" >&2
  die "the Inspector's --verify found a problem"
}
verified="$(grep -c '"outcome":"verified"' "$WORK/verify.jsonl" || true)"
[[ "$verified" == 5 ]] || { cat "$WORK/verify.jsonl" >&2; die "--verify verified $verified skills, expected the 5 with manifests (the sixth is dynamic)"; }
log "--verify: the 5 skills with manifests verified file by file (size, digest, frontmatter); on-call is dynamic"

# ---- apps -----------------------------------------------------------------------------------
serve apps "$APPS_JS"
# app_info [ARGS...]: one line per tool: name hasApp resourceMimeType prefersBorder resourceError
app_info() {
  inspector --method tools/list --app-info "$@" "$URL" |
    node -e 'let t="";process.stdin.on("data",(d)=>t+=d).on("end",()=>{for(const l of t.trim().split("\n")){const a=JSON.parse(l);console.log([a.toolName,a.hasApp,a.resourceMimeType??"-",a.prefersBorder??"-",a.resourceError??"-"].join(" "))}})'
}
WITH_APPS=$'show_counter true text/html;profile=mcp-app true -\nincrement true text/html;profile=mcp-app true -\nreset true text/html;profile=mcp-app true -'
WITHOUT_APPS=$'show_counter false - - -\nincrement false - - -'
for era in legacy modern; do
  got="$(app_info --advertise-apps --protocol-era "$era")"
  [[ "$got" == "$WITH_APPS" ]] || die "apps, $era, a client that shows apps: the Inspector reported"$'\n'"$got"$'\n'"expected"$'\n'"$WITH_APPS"
  log "apps, $era: to a client that shows apps, every UI tool has its app (hasApp, text/html;profile=mcp-app, prefersBorder, no resource error)"
  got="$(app_info --protocol-era "$era")"
  [[ "$got" == "$WITHOUT_APPS" ]] || die "apps, $era, a client without apps: the Inspector reported"$'\n'"$got"$'\n'"expected"$'\n'"$WITHOUT_APPS"
  log "apps, $era: a client that does not show apps gets the text fallback (no app, no app-only tool)"
done
