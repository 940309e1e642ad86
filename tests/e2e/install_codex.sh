#!/usr/bin/env bash
# Install the pinned OpenAI Codex CLI into a cache outside the clone and print
# the path of its `codex` binary on stdout (the only stdout line).
#
# The version is pinned HERE and only here; tests/e2e/test_codex.py reads this
# line to find the same cache directory.
CODEX_VERSION=0.171.0

set -euo pipefail

cache_root="${AGENTCTL_E2E_CACHE:-$HOME/.cache/agentctl-e2e}"
prefix="$cache_root/codex-$CODEX_VERSION"
bin="$prefix/node_modules/.bin/codex"

works() {
    [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1
}

if works; then
    echo "install_codex.sh: reusing $prefix" >&2
    echo "$bin"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "install_codex.sh: npm not found; cannot install Codex" >&2
    exit 1
fi

echo "install_codex.sh: installing @openai/codex@$CODEX_VERSION into $prefix" >&2
tmp="$prefix.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
printf '{"name":"agentctl-e2e-codex","private":true}\n' >"$tmp/package.json"
# The package's native binary comes as an optional dependency for this platform.
npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error \
    "@openai/codex@$CODEX_VERSION" >&2
rm -rf "$prefix"
mv "$tmp" "$prefix"
trap - EXIT

if ! works; then
    echo "install_codex.sh: installed, but '$bin --version' fails" >&2
    exit 1
fi
echo "install_codex.sh: installed $("$bin" --version 2>/dev/null)" >&2
echo "$bin"
