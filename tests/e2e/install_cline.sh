#!/usr/bin/env bash
# Install the pinned Cline CLI into a cache outside the clone and print the
# path of its `cline` binary on stdout (the only stdout line).
#
# The version is pinned HERE and only here; tests/e2e/test_cline.py reads
# this line to find the same cache directory.
CLINE_VERSION=3.0.65

set -euo pipefail

cache_root="${AGENTCTL_E2E_CACHE:-$HOME/.cache/agentctl-e2e}"
prefix="$cache_root/cline-$CLINE_VERSION"
bin="$prefix/node_modules/.bin/cline"

works() {
    [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1
}

if works; then
    echo "install_cline.sh: reusing $prefix" >&2
    echo "$bin"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "install_cline.sh: npm not found; cannot install Cline" >&2
    exit 1
fi

echo "install_cline.sh: installing cline@$CLINE_VERSION into $prefix" >&2
tmp="$prefix.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
printf '{"name":"agentctl-e2e-cline","private":true}\n' >"$tmp/package.json"
npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error "cline@$CLINE_VERSION" >&2
rm -rf "$prefix"
mv "$tmp" "$prefix"
trap - EXIT

if ! works; then
    echo "install_cline.sh: installed, but '$bin --version' fails" >&2
    exit 1
fi
echo "install_cline.sh: installed $("$bin" --version 2>/dev/null)" >&2
echo "$bin"
