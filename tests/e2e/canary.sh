#!/usr/bin/env bash
# The canary: run the end-to-end tests against the NEWEST version of each agent on the registries,
# each installed into its own cache (never the pinned one, so CI is untouched), and report which
# agent broke at which version. Exit 0 when every agent's tests passed, 1 when one failed.
#
#   bash tests/e2e/canary.sh                 # every agent
#   bash tests/e2e/canary.sh claude codex    # some of them
#
# A pass means the pin in tests/e2e/install_AGENT.sh can be bumped to the version printed.
# Needs npm (and pip for Aider) with access to the registries; the venv's python runs pytest.
set -uo pipefail
cd "$(dirname "$0")/../.."
PY="${PYTHON:-.venv/bin/python}"
CACHE="${AGENTCTL_CANARY_CACHE:-$HOME/.cache/agentctl-canary}"
export AGENTCTL_E2E_CACHE="$CACHE"

# agent | install script | version variable | registry package | binary override | test file
AGENTS="claude|install_claude.sh|CLAUDE_CODE_VERSION|npm:@anthropic-ai/claude-code|AGENTCTL_CLAUDE_BIN|test_claude_code.py test_claude_mcp.py
codex|install_codex.sh|CODEX_VERSION|npm:@openai/codex|AGENTCTL_CODEX_BIN|test_codex.py
gemini|install_gemini.sh|GEMINI_CLI_VERSION|npm:@google/gemini-cli|AGENTCTL_GEMINI_BIN|test_gemini_cli.py
qwen|install_qwen.sh|QWEN_CODE_VERSION|npm:@qwen-code/qwen-code|AGENTCTL_QWEN_BIN|test_qwen_code.py
opencode|install_opencode.sh|OPENCODE_VERSION|npm:opencode-ai|AGENTCTL_OPENCODE_BIN|test_opencode.py
cline|install_cline.sh|CLINE_VERSION|npm:cline|AGENTCTL_CLINE_BIN|test_cline.py
aider|install_aider.sh|AIDER_VERSION|pypi:aider-chat|AGENTCTL_AIDER_BIN|test_aider.py"

newest() {  # the newest version of a registry package, or nothing
    case "$1" in
        npm:*) npm view "${1#npm:}" version 2>/dev/null | tail -1 ;;
        pypi:*) "$PY" -m pip index versions "${1#pypi:}" 2>/dev/null | sed -n 's/^[^(]*(\([^)]*\)).*/\1/p' | head -1 ;;
    esac
}

wanted=" $* "
failed=0
report=""
while IFS='|' read -r agent script var package override tests; do
    if [ $# -gt 0 ] && [[ "$wanted" != *" $agent "* ]]; then
        continue
    fi
    pinned=$(sed -n "s/^$var=//p" "tests/e2e/$script")
    version=$(newest "$package")
    if [ -z "$version" ]; then
        report+="$agent: the registry gave no version of ${package#*:} (pinned $pinned): not tried"$'\n'
        failed=1
        continue
    fi
    tmp=$(mktemp)
    sed "s/^$var=.*/$var=$version/" "tests/e2e/$script" >"$tmp"  # the same install, at the newest version
    if ! bin=$(bash "$tmp" 2>"$tmp.log" | tail -1) || [ -z "$bin" ]; then
        report+="$agent $version (pinned $pinned): INSTALL FAILED ($(tail -1 "$tmp.log"))"$'\n'
        failed=1
        rm -f "$tmp" "$tmp.log"
        continue
    fi
    rm -f "$tmp" "$tmp.log"
    args=()
    for t in $tests; do args+=("tests/e2e/$t"); done
    log="$CACHE/$agent-$version.pytest.log"
    if env "$override=$bin" "$PY" -m pytest -q -p no:cacheprovider -rs "${args[@]}" >"$log" 2>&1; then
        if grep -q " skipped" "$log" && ! grep -q " passed" "$log"; then
            report+="$agent $version (pinned $pinned): SKIPPED (see $log)"$'\n'
            failed=1
        else
            report+="$agent $version (pinned $pinned): passed$([ "$version" != "$pinned" ] && echo "; the pin can move to $version")"$'\n'
        fi
    else
        report+="$agent $version (pinned $pinned): BROKE: $(grep -E '^(FAILED|ERROR)' "$log" | head -3 | tr '\n' ' ') (log: $log)"$'\n'
        failed=1
    fi
done <<<"$AGENTS"
printf '%s' "$report"
exit "$failed"
