#!/usr/bin/env bash
# Install the pinned Gemini CLI into a cache outside the clone and print
# the path of its `gemini` binary on stdout (the only stdout line).
#
# The version is pinned HERE and only here; tests/e2e/test_gemini_cli.py reads
# this line to find the same cache directory.
GEMINI_CLI_VERSION=0.61.0

set -euo pipefail

cache_root="${AGENTCTL_E2E_CACHE:-$HOME/.cache/agentctl-e2e}"
prefix="$cache_root/gemini-$GEMINI_CLI_VERSION"
bin="$prefix/node_modules/.bin/gemini"

works() {
    [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1
}

if works; then
    echo "install_gemini.sh: reusing $prefix" >&2
    echo "$bin"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "install_gemini.sh: npm not found; cannot install Gemini CLI" >&2
    exit 1
fi

echo "install_gemini.sh: installing @google/gemini-cli@$GEMINI_CLI_VERSION into $prefix" >&2
tmp="$prefix.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
printf '{"name":"agentctl-e2e-gemini","private":true}\n' >"$tmp/package.json"
npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error \
    "@google/gemini-cli@$GEMINI_CLI_VERSION" >&2
rm -rf "$prefix"
mv "$tmp" "$prefix"
trap - EXIT

if ! works; then
    echo "install_gemini.sh: installed, but '$bin --version' fails" >&2
    exit 1
fi
echo "install_gemini.sh: installed $("$bin" --version 2>/dev/null)" >&2
echo "$bin"
