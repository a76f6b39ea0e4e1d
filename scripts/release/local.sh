#!/usr/bin/env bash
# Publishes every package of this repository into a real local npm registry (verdaccio), in
# dependency order, so the packages can be installed as from the public registry before they
# are there:
#
#   npm run release:local            publishes, then keeps the registry running until Ctrl+C and
#                                    prints how to use it (npm create typemcp@latest … --registry …);
#                                    it listens on 127.0.0.1:4873 (--port N, RELEASE_PORT) and keeps
#                                    its storage in .conformance/registry (--storage dir,
#                                    RELEASE_STORAGE), so projects made from it still install after
#                                    Ctrl+C and the next start; --no-publish serves that storage as it
#                                    is, --clean removes it (options: scripts/release/registry.js)
#   npm run release:local -- --check publishes, then, as a user in a folder outside the repository
#                                    with only that registry configured: npm create typemcp@latest
#                                    my-server, npm install, npm test, npm run build, and the
#                                    official SDK client served over stdio and HTTP; then stops
#
# verdaccio 6.8.0 (with node-fetch held at 2.7.0, for Node 20) is installed in a folder of its
# own under .conformance/ (git-ignored), so its dependencies touch nothing of the workspace.
# Third-party packages come through it from the registry npm is configured with.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${RELEASE_CACHE:-$ROOT/.conformance}"
VERDACCIO_VERSION=6.8.0
OPTIONS="$(node "$ROOT/scripts/release/registry.js" options "$@")" || exit 2
eval "$OPTIONS"
if [[ "$MODE" == help ]]; then printf '%s' "$USAGE"; exit 0; fi
if [[ "$MODE" == clean ]]; then rm -rf "$STORAGE"; printf 'release-local: removed %s\n' "$STORAGE" >&2; exit 0; fi
CHECK=""
[[ "$MODE" == check ]] && CHECK=1

export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
log() { printf '== %s\n' "$*" >&2; }
die() { printf 'release-local: %s\n' "$*" >&2; exit 2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/typemcp-release-XXXXXX")"
VERDACCIO_PID=""
cleanup() {
  if [[ -n "$VERDACCIO_PID" ]]; then kill -TERM "$VERDACCIO_PID" 2>/dev/null || true; wait "$VERDACCIO_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- verdaccio, in its own folder ------------------------------------------------------------
DIR="$CACHE/verdaccio-$VERDACCIO_VERSION"
WANT="verdaccio@$VERDACCIO_VERSION node-fetch@2.7.0"
if [[ ! -f "$DIR/.installed" || "$(cat "$DIR/.installed")" != "$WANT" ]]; then
  log "installing verdaccio $VERDACCIO_VERSION into ${DIR#"$ROOT"/}"
  rm -rf "$DIR" && mkdir -p "$DIR"
  printf '{ "private": true, "overrides": { "node-fetch": "2.7.0" } }\n' > "$DIR/package.json"
  npm install --prefix "$DIR" --no-package-lock --workspaces=false --no-audit --no-fund --loglevel=error "verdaccio@$VERDACCIO_VERSION" >&2
  printf '%s' "$WANT" > "$DIR/.installed"
fi

# --check: a throwaway registry on a free port. Otherwise: a stable port and a storage that
# outlives this run (the packages of this tree are published into it again on each start).
if [[ -n "$CHECK" ]]; then
  DATA="$WORK"
  [[ "$PORT" == 0 ]] && PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
else
  DATA="$STORAGE"
  curl -sf "http://127.0.0.1:$PORT/-/ping" >/dev/null 2>&1 && die "a registry already answers on 127.0.0.1:$PORT (an earlier release:local?): stop it, or pass --port N"
  if [[ -n "$PUBLISH" ]]; then rm -rf "$DATA/storage/@typemcp" "$DATA/storage/create-typemcp"; fi
fi
REGISTRY="http://127.0.0.1:$PORT/"
UPSTREAM="$(npm config get registry)"
mkdir -p "$DATA/storage"
node "$ROOT/scripts/release/registry.js" config "$DATA" "$PORT" "$UPSTREAM" > "$DATA/config.yaml"
node "$DIR/node_modules/verdaccio/bin/verdaccio" --config "$DATA/config.yaml" > "$DATA/verdaccio.log" 2>&1 &
VERDACCIO_PID=$!
for _ in $(seq 150); do
  curl -sf "${REGISTRY}-/ping" >/dev/null 2>&1 && break
  kill -0 "$VERDACCIO_PID" 2>/dev/null || { cat "$DATA/verdaccio.log" >&2; die "verdaccio exited during startup"; }
  sleep 0.2
done
curl -sf "${REGISTRY}-/ping" >/dev/null || die "verdaccio does not answer at $REGISTRY"
KEPT=""
[[ -z "$CHECK" ]] && KEPT="; storage kept in ${DATA#"$ROOT"/}"
log "verdaccio $VERDACCIO_VERSION at $REGISTRY (third-party packages from $UPSTREAM$KEPT)"

if [[ -z "$CHECK" && -z "$PUBLISH" ]]; then
  log "serving the packages published before, at $REGISTRY until Ctrl+C (npm run release:local -- --clean removes them)"
  wait "$VERDACCIO_PID"
  exit 0
fi

# A publisher account (made on the first run, signed into on later ones with a kept storage),
# and an npm configuration that knows only this registry.
ACCOUNT='{"name":"release","password":"release-local"}'
token() { node -e 'let t="";process.stdin.on("data",(d)=>t+=d).on("end",()=>{try{console.log(JSON.parse(t).token??"")}catch{console.log("")}})'; }
TOKEN="$(curl -s -X PUT -H 'content-type: application/json' -d "$ACCOUNT" "${REGISTRY}-/user/org.couchdb.user:release" | token)"
[[ -n "$TOKEN" ]] || TOKEN="$(curl -s -X PUT -u release:release-local -H 'content-type: application/json' -d "$ACCOUNT" "${REGISTRY}-/user/org.couchdb.user:release" | token)"
[[ -n "$TOKEN" && "$TOKEN" != undefined ]] || die "could not create a publisher on $REGISTRY"
NPMRC="$WORK/npmrc"
printf 'registry=%s\n//127.0.0.1:%s/:_authToken=%s\n' "$REGISTRY" "$PORT" "$TOKEN" > "$NPMRC"

# ---- publish, in dependency order ------------------------------------------------------------
log "building"
(cd "$ROOT" && npm run build >/dev/null)
for dir in $(node -e 'console.log(require(process.argv[1]).PUBLISHED.join(" "))' "$ROOT/scripts/release/packages.js"); do
  name="$(node -p 'require(process.argv[1]).name + "@" + require(process.argv[1]).version' "$ROOT/packages/$dir/package.json")"
  (cd "$ROOT/packages/$dir" && npm publish --userconfig "$NPMRC" --registry "$REGISTRY" --loglevel=error >/dev/null 2>"$WORK/publish.log") || { cat "$WORK/publish.log" >&2; die "publishing $name failed"; }
  log "published $name"
done

if [[ -z "$CHECK" ]]; then
  log "the packages are at $REGISTRY until Ctrl+C; they stay in ${DATA#"$ROOT"/} for the next start"
  log "(npm run release:local -- --no-publish serves them again as they are; -- --clean removes them). Try them as a user would:"
  log "  npm create typemcp@latest my-server --registry $REGISTRY && cd my-server && npm install"
  log "  (the project's .npmrc keeps @typemcp:registry=$REGISTRY, so npm install @typemcp/auth works too)"
  wait "$VERDACCIO_PID"
  exit 0
fi

# ---- as a user: a new project from the registry alone ----------------------------------------
USER_DIR="$WORK/user"
mkdir -p "$USER_DIR"
printf 'registry=%s\n' "$REGISTRY" > "$USER_DIR/.npmrc"
# The user's commands see nothing of this repository or of the npm running this script: a home
# of their own, whose only npm setting is the local registry.
mkdir -p "$WORK/home"
cp "$USER_DIR/.npmrc" "$WORK/home/.npmrc"
user() { (cd "$1" && shift && env -i PATH="$PATH" HOME="$WORK/home" TMPDIR="${TMPDIR:-/tmp}" npm_config_cache="$WORK/npm-cache" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false "$@"); }
log "npm create typemcp@latest my-server (from $REGISTRY)"
user "$USER_DIR" npm create typemcp@latest my-server -- --transport stdio >"$WORK/create.log" 2>&1 || { cat "$WORK/create.log" >&2; die "npm create typemcp failed"; }
PROJECT="$USER_DIR/my-server"
for step in "npm install" "npm test" "npm run build"; do
  log "$step (in the new project)"
  user "$PROJECT" $step >"$WORK/step.log" 2>&1 || { cat "$WORK/step.log" >&2; die "$step failed in the new project"; }
done
grep -q '"resolved": "http://127.0.0.1:'"$PORT"'/@typemcp/core/' "$PROJECT/package-lock.json" || die "the project's @typemcp/core did not come from the local registry"
log "the official SDK client, over stdio and HTTP, against the built project"
node "$ROOT/scripts/release/check-served.js" "$PROJECT"
log "release path checked: publish, create, install, test, build, serve"
