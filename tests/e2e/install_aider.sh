#!/usr/bin/env bash
# Install the pinned Aider into its own virtual environment in a cache outside
# the clone and print the path of its `aider` binary on stdout (the only stdout line).
#
# The version is pinned HERE and only here; tests/e2e/test_aider.py reads
# this line to find the same cache directory.
AIDER_VERSION=0.86.2

set -euo pipefail

cache_root="${AGENTCTL_E2E_CACHE:-$HOME/.cache/agentctl-e2e}"
prefix="$cache_root/aider-$AIDER_VERSION"
bin="$prefix/venv/bin/aider"

works() {
    [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1
}

if works; then
    echo "install_aider.sh: reusing $prefix" >&2
    echo "$bin"
    exit 0
fi

python="${AGENTCTL_E2E_PYTHON:-python3}"
if ! "$python" -m venv --help >/dev/null 2>&1; then
    echo "install_aider.sh: '$python -m venv' not available; cannot install Aider" >&2
    exit 1
fi

echo "install_aider.sh: installing aider-chat==$AIDER_VERSION into $prefix" >&2
# A venv cannot be moved once made: build it in place; a half-made one fails `works` and is redone.
rm -rf "$prefix"
"$python" -m venv "$prefix/venv"
"$prefix/venv/bin/pip" install -q --disable-pip-version-check --no-input \
    "aider-chat==$AIDER_VERSION" >&2

if ! works; then
    echo "install_aider.sh: installed, but '$bin --version' fails" >&2
    exit 1
fi
echo "install_aider.sh: installed $("$bin" --version 2>/dev/null)" >&2
echo "$bin"
