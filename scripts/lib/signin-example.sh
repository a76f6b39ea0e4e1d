# Shared by the scripts that sign in to examples/09-signin from outside (the conformance
# suite's authorization mode, the Inspector's web UI). Source it after defining log() and die()
# and setting ROOT.

# free_port: a port of 127.0.0.1 free now.
free_port() { node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }

# start_signin_example LOG: starts `node examples/09-signin/dist/main.js` on a free port (its
# origin names the port, so it is chosen first), with a secret of this run's own. Sets
# SIGNIN_PID and SIGNIN_URL (the MCP endpoint it printed); the caller stops SIGNIN_PID.
start_signin_example() {
  local log="$1" js="$ROOT/examples/09-signin/dist/main.js" port
  [[ -f "$js" ]] || die "$js is missing: run \`npm run build\` first"
  port="$(free_port)"
  : > "$log"
  PORT="$port" SIGNIN_SECRET="run secret $RANDOM$RANDOM$RANDOM$RANDOM $(date +%s%N)" node "$js" >>"$log" 2>&1 &
  SIGNIN_PID=$!
  SIGNIN_URL=""
  for _ in $(seq 300); do
    kill -0 "$SIGNIN_PID" 2>/dev/null || { cat "$log" >&2; die "examples/09-signin exited during startup"; }
    SIGNIN_URL="$(sed -n 's/.*serving MCP at \([^ ,]*\),.*/\1/p' "$log" | head -n 1)"
    [[ -n "$SIGNIN_URL" ]] && return 0
    sleep 0.1
  done
  cat "$log" >&2
  die "examples/09-signin printed no URL within 30 s"
}
