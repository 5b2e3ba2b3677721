# Shared by packaging/check (the dev build, in CI) and packaging/release (a release build): how
# each package is made from one mcpcheck binary. Sourced, not run; expects ROOT, CACHE, VERSION.

say() { echo "packaging: $*" >&2; }

# This machine's npm platform name (@mcpcheck/<os>-<cpu>).
npm_platform() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo linux-x64 ;;
    Linux-aarch64) echo linux-arm64 ;;
    Darwin-x86_64) echo darwin-x64 ;;
    Darwin-arm64) echo darwin-arm64 ;;
    *) say "no npm platform package for $(uname -s)-$(uname -m)"; return 1 ;;
  esac
}

# maturin (and uv, to try the wheel with uvx), in a virtual environment of their own.
maturin_env() {
  if [[ ! -x $CACHE/maturin/bin/maturin ]]; then
    python3 -m venv "$CACHE/maturin"
    "$CACHE/maturin/bin/pip" install --quiet --disable-pip-version-check 'maturin>=1.7,<2' uv
  fi
}

# wheel PROFILE OUT: the PyPI wheel (bindings = "bin"), built by cargo with that profile.
wheel() {
  maturin_env
  "$CACHE/maturin/bin/maturin" build --quiet --locked --profile "$1" --strip --out "$2" 2>&1 \
    | grep -v '^\s*$' | tail -n 1 >&2
}

# npm_packages BINARY OUT: this platform's package carrying the binary, and the launcher.
npm_packages() {
  local binary=$1 out=$2 platform stage
  platform=$(npm_platform)
  stage=$out/stage/$platform
  mkdir -p "$stage/bin" "$out"
  strip -o "$stage/bin/mcpcheck" "$binary" 2>/dev/null || cp "$binary" "$stage/bin/mcpcheck"
  sed -e "s/@VERSION@/$VERSION/g" -e "s/@PLATFORM@/$platform/g" \
    -e "s/@OS@/${platform%-*}/g" -e "s/@CPU@/${platform#*-}/g" \
    "$ROOT/packaging/npm/platform/package.json.in" > "$stage/package.json"
  cp "$ROOT/packaging/npm/platform/README.md" "$stage/README.md"
  cp "$ROOT/LICENSE" "$stage/LICENSE"
  (cd "$stage" && npm pack --silent --pack-destination "$out" >/dev/null)
  # The launcher is packed from a copy, with the licence beside it (one LICENSE, at the root).
  rm -rf "$out/stage/launcher" && cp -r "$ROOT/packaging/npm/mcpcheck" "$out/stage/launcher"
  cp "$ROOT/LICENSE" "$out/stage/launcher/LICENSE"
  (cd "$out/stage/launcher" && npm pack --silent --pack-destination "$out" >/dev/null)
}

# archive BINARY OUT: the release archive `cargo binstall` downloads (see the binstall metadata in
# Cargo.toml): mcpcheck-<target>.tar.gz holding mcpcheck-<target>/mcpcheck, with the README and
# the LICENSE beside it.
archive() {
  local binary=$1 out=$2 target
  target=$(rustc -vV | sed -n 's/^host: //p')
  mkdir -p "$out/mcpcheck-$target"
  strip -o "$out/mcpcheck-$target/mcpcheck" "$binary" 2>/dev/null || cp "$binary" "$out/mcpcheck-$target/mcpcheck"
  cp "$ROOT/README.md" "$ROOT/LICENSE" "$out/mcpcheck-$target/"
  tar -czf "$out/mcpcheck-$target.tar.gz" -C "$out" "mcpcheck-$target"
  rm -rf "${out:?}/mcpcheck-$target"
  echo "$out/mcpcheck-$target.tar.gz"
}
