#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance) in its `client`
# mode against @typemcp/client: the suite starts a scenario's server and runs
# packages/client/test/conformance/client.ts (on the `node` on PATH, through the repository's
# TypeScript hook) with that server's URL.
#
#   scripts/conformance-client.sh
#       every client scenario that is not auth/*, of suites 0.1.16 and 0.2.0-alpha.12, in each
#       protocol revision the scenario lists (the handshake revisions over initialize,
#       2026-07-28 without a handshake); an extension's scenario once, at its own revision
#
# The suite needs Node >= 22: installed from the npm registry when the `node` on PATH is older
# (scripts/lib/npm-tools.sh), cached under .conformance/ with each suite version, as
# scripts/conformance.sh does.
#
# Environment:
#   CONFORMANCE_CLIENT_VERSIONS  the suite versions, space-separated (default "0.1.16 0.2.0-alpha.12")
#   CONFORMANCE_SCENARIO         run this one scenario only
#   CONFORMANCE_CACHE            cache directory (default <repo>/.conformance)
#   CONFORMANCE_VERBOSE=1        print every check, not only the failed ones
#
# A scenario passes when the suite exits 0, no check failed, and at least one check ran (a
# run whose every check was SKIPPED proves nothing). Scenarios that cannot pass are listed in
# KNOWN_FAILURES below, each with why: a run that misses only those exits 0; any other
# failure, or one of them passing, exits 1.
# Logs and results go to .conformance/client-<version>/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${CONFORMANCE_CACHE:-$ROOT/.conformance}"
VERSIONS="${CONFORMANCE_CLIENT_VERSIONS:-0.1.16 0.2.0-alpha.12}"
ONLY="${CONFORMANCE_SCENARIO:-}"
CLIENT="$ROOT/packages/client/test/conformance/client.ts"

# scenario@revision (or scenario@extension): why it cannot pass. The Skills extension's four
# client scenarios skip every check unless the client loads skills (a host's job: deciding a
# skill is needed, fetching and verifying its files); @typemcp/client lists skills
# (`request('skills/list')`) but loads none.
declare -A KNOWN_FAILURES=(
  [sep-2640-client-no-prefetch@extension]="no check runs: the client loads no skill (the Skills extension's host side)"
  [sep-2640-client-verify-digest@extension]="no check runs: the client loads no skill, so it verifies no digest"
  [sep-2640-client-verify-size@extension]="no check runs: the client loads no skill, so it verifies no size"
  [sep-2640-client-verify-frontmatter@extension]="no check runs: the client loads no skill, so it compares no frontmatter"
)

export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
log() { printf '== %s\n' "$*" >&2; }
die() { printf 'conformance-client.sh: %s\n' "$*" >&2; exit 2; }

command -v node >/dev/null || die "node is not on PATH"
# shellcheck source=lib/npm-tools.sh
source "$ROOT/scripts/lib/npm-tools.sh"
SUITE_NODE="$(node22 "$CACHE/node" 22)"
CLIENT_COMMAND="$(command -v node) -r $ROOT/test-support/runTs.js $CLIENT"

unexpected=()
passed=0
for version in $VERSIONS; do
  SUITE_DIR="$CACHE/suite-$version"
  PATH="$(dirname "$SUITE_NODE"):$PATH" install_into "$SUITE_DIR" "@modelcontextprotocol/conformance@$version"
  SUITE_PKG="$SUITE_DIR/node_modules/@modelcontextprotocol/conformance"
  SUITE_BIN="$SUITE_PKG/$("$SUITE_NODE" -p 'require(process.argv[1]).bin.conformance' "$SUITE_PKG/package.json")"
  RUN_DIR="$CACHE/client-$version"
  rm -rf "$RUN_DIR"
  mkdir -p "$RUN_DIR"
  # "  - name [rev,rev]" under "Client scenarios"; a 0.1.x suite lists names only (its revision is 2025-11-25).
  runs="$("$SUITE_NODE" "$SUITE_BIN" list 2>/dev/null | awk '
    /^[A-Z].*scenarios/ { client = ($0 ~ /^Client scenarios/) ; next }
    client && /^  - / {
      name = $2; revs = ($3 == "" ? "[2025-11-25]" : $3)
      if (name ~ /^auth\//) next
      gsub(/[\[\]]/, "", revs); n = split(revs, r, ",")
      for (i = 1; i <= n; i++) print name "@" r[i]
    }')"
  [[ -n "$runs" ]] || die "suite $version lists no client scenario"
  for run in $runs; do
    scenario="${run%@*}"
    revision="${run#*@}"
    [[ -z "$ONLY" || "$ONLY" == "$scenario" ]] || continue
    args=(client --command "$CLIENT_COMMAND" --scenario "$scenario" -o "$RUN_DIR/results")
    [[ "$revision" == extension ]] || args+=(--spec-version "$revision")
    log "suite $version: $scenario at $revision"
    status=0
    "$SUITE_NODE" "$SUITE_BIN" "${args[@]}" >"$RUN_DIR/$scenario@$revision.log" 2>&1 || status=$?
    failed="$(grep -E 'FAILURE|OVERALL: FAILED|EXITED WITH ERROR' "$RUN_DIR/$scenario@$revision.log" | sed 's/\x1b\[[0-9;]*m//g' || true)"
    if grep -q 'Passed: 0/0' "$RUN_DIR/$scenario@$revision.log"; then failed="${failed:+$failed$'\n'}no check ran (every one SKIPPED)"; fi
    if [[ "${CONFORMANCE_VERBOSE:-}" == 1 ]]; then sed 's/\x1b\[[0-9;]*m//g' "$RUN_DIR/$scenario@$revision.log" | grep -E '^\S+ \[' || true; fi
    known="${KNOWN_FAILURES[$scenario@$revision]:-}"
    if [[ $status -ne 0 || -n "$failed" ]]; then
      if [[ -n "$known" ]]; then
        log "  fails, as known: $known"
      else
        printf '%s\n' "$failed" >&2
        unexpected+=("$version $scenario@$revision (log: ${RUN_DIR#"$ROOT"/}/$scenario@$revision.log)")
      fi
    elif [[ -n "$known" ]]; then
      unexpected+=("$version $scenario@$revision passes: remove it from KNOWN_FAILURES")
    else
      passed=$((passed + 1))
    fi
  done
done

log "$passed scenario runs passed"
if (( ${#unexpected[@]} > 0 )); then
  printf 'Unexpected:\n' >&2
  printf '  %s\n' "${unexpected[@]}" >&2
  exit 1
fi
