#!/usr/bin/env bash
# Install the pinned OpenCode CLI into a cache outside the clone and print the
# path of its `opencode` binary on stdout (the only stdout line).
#
# The version is pinned HERE and only here; tests/e2e/test_opencode.py reads
# this line to find the same cache directory.  Beside the CLI it installs
# @opencode-ai/plugin at the same version into plugin-seed/: OpenCode installs
# that package into every config folder at each start, which without network
# stalls for about 70 s; the test seeds each folder from this copy instead.
OPENCODE_VERSION=1.18.33

set -euo pipefail

cache_root="${AGENTCTL_E2E_CACHE:-$HOME/.cache/agentctl-e2e}"
prefix="$cache_root/opencode-$OPENCODE_VERSION"
bin="$prefix/node_modules/.bin/opencode"
seed="$prefix/plugin-seed"

works() {
    [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1 && [ -d "$seed/node_modules/@opencode-ai/plugin" ]
}

if works; then
    echo "install_opencode.sh: reusing $prefix" >&2
    echo "$bin"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "install_opencode.sh: npm not found; cannot install OpenCode" >&2
    exit 1
fi

echo "install_opencode.sh: installing opencode-ai@$OPENCODE_VERSION into $prefix" >&2
tmp="$prefix.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp/plugin-seed"
trap 'rm -rf "$tmp"' EXIT
printf '{"name":"agentctl-e2e-opencode","private":true}\n' >"$tmp/package.json"
npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error "opencode-ai@$OPENCODE_VERSION" >&2
printf '{"name":"agentctl-e2e-opencode-plugin-seed","private":true}\n' >"$tmp/plugin-seed/package.json"
npm install --prefix "$tmp/plugin-seed" --no-audit --no-fund --loglevel=error \
    "@opencode-ai/plugin@$OPENCODE_VERSION" >&2
rm -rf "$prefix"
mv "$tmp" "$prefix"
trap - EXIT

if ! works; then
    echo "install_opencode.sh: installed, but '$bin --version' fails" >&2
    exit 1
fi
echo "install_opencode.sh: installed $("$bin" --version 2>/dev/null)" >&2
echo "$bin"
