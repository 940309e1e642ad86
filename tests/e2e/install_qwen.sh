#!/usr/bin/env bash
# Install the pinned Qwen Code CLI into a cache outside the clone and print
# the path of its `qwen` binary on stdout (the only stdout line).
#
# The version is pinned HERE and only here; tests/e2e/test_qwen_code.py reads
# this line to find the same cache directory.
QWEN_CODE_VERSION=0.24.4

set -euo pipefail

cache_root="${AGENTCTL_E2E_CACHE:-$HOME/.cache/agentctl-e2e}"
prefix="$cache_root/qwen-$QWEN_CODE_VERSION"
bin="$prefix/node_modules/.bin/qwen"

works() {
    [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1
}

if works; then
    echo "install_qwen.sh: reusing $prefix" >&2
    echo "$bin"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "install_qwen.sh: npm not found; cannot install Qwen Code" >&2
    exit 1
fi

echo "install_qwen.sh: installing @qwen-code/qwen-code@$QWEN_CODE_VERSION into $prefix" >&2
tmp="$prefix.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
printf '{"name":"agentctl-e2e-qwen","private":true}\n' >"$tmp/package.json"
npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error \
    "@qwen-code/qwen-code@$QWEN_CODE_VERSION" >&2
rm -rf "$prefix"
mv "$tmp" "$prefix"
trap - EXIT

if ! works; then
    echo "install_qwen.sh: installed, but '$bin --version' fails" >&2
    exit 1
fi
echo "install_qwen.sh: installed $("$bin" --version 2>/dev/null)" >&2
echo "$bin"
