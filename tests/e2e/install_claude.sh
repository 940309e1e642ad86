#!/usr/bin/env bash
# Install the pinned Claude Code CLI into a cache outside the clone and print
# the path of its `claude` binary on stdout (the only stdout line).
#
# The version is pinned HERE and only here; tests/e2e/test_claude_code.py reads
# this line to find the same cache directory.
CLAUDE_CODE_VERSION=2.1.332

set -euo pipefail

cache_root="${AGENTCTL_E2E_CACHE:-$HOME/.cache/agentctl-e2e}"
prefix="$cache_root/claude-$CLAUDE_CODE_VERSION"
bin="$prefix/node_modules/.bin/claude"

works() {
    [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1
}

if works; then
    echo "install_claude.sh: reusing $prefix" >&2
    echo "$bin"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "install_claude.sh: npm not found; cannot install Claude Code" >&2
    exit 1
fi

echo "install_claude.sh: installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION into $prefix" >&2
tmp="$prefix.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
printf '{"name":"agentctl-e2e-claude","private":true}\n' >"$tmp/package.json"
npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >&2
rm -rf "$prefix"
mv "$tmp" "$prefix"
trap - EXIT

if ! works; then
    echo "install_claude.sh: installed, but '$bin --version' fails" >&2
    exit 1
fi
echo "install_claude.sh: installed $("$bin" --version 2>/dev/null)" >&2
echo "$bin"
