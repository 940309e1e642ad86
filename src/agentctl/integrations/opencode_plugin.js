// agentctl plugin for OpenCode -- written by `agentctl install opencode`; `agentctl uninstall opencode` removes it.
// It hands each event to `agentctl hook opencode EVENT` (JSON on stdin) and applies the answer:
//   tool.execute.before  write/edit/patch: deny a write a P0 `deny-write:` rule forbids (the Error's text is the reason)
//   tool.execute.after   write/edit/patch: log the edited files; bash: sync the files log with git
//   experimental.session.compacting      the resume block goes into the compaction prompt's context
//   event session.compacted              counts the compaction; the next request gets a fresh resume block
//   experimental.chat.system.transform   the resume block as a system message (fetched at the first request of
//                                        this process and after each compaction, then reused unchanged; not in
//                                        the summariser's request, whose prompt has the fresh state)
// Node built-ins only; agentctl is run with an argument list, never through a shell, and for a bounded time:
// `agentctl` on PATH, else the command `agentctl install opencode` recorded below (an absolute path).
// The plugin never reads the rules itself: when agentctl gives no verdict, a write is denied unless the rules
// file plainly holds no P0 rule (each line blank, a comment, or P1|/P2|), the one test that cannot disagree.
import { spawn } from "node:child_process"
import fs from "node:fs"
import path from "node:path"

const EDIT_TOOLS = new Set(["write", "edit", "multiedit", "patch", "apply_patch"])
const SHELL_TOOLS = new Set(["bash", "shell"])
const ROOT_VARS = ["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR"]
const TIMEOUT_MS = { "tool-execute-before": 10000 }
const DEFAULT_TIMEOUT_MS = 20000
const MAX_ANSWER = 1 << 20
const RECORDED = [] // the agentctl command as `agentctl install opencode` ran it (argv, absolute paths)

/** Run `agentctl hook opencode EVENT`: by `agentctl` on PATH, else by the recorded command. Never throws. */
async function runHook(directory, event, payload) {
  const first = await runOnce(["agentctl"], directory, event, payload)
  if (first.ok || RECORDED.length === 0) return first
  const again = await runOnce(RECORDED, directory, event, payload)
  return again.ok ? again : { ...again, problem: `${first.problem}; then ${again.problem}` }
}

/** Run `ARGV... hook opencode EVENT` with `payload` on stdin: {ok, answer, problem}. Never throws. */
function runOnce(argv, directory, event, payload) {
  const command = argv[0]
  return new Promise((resolve) => {
    const limit = TIMEOUT_MS[event] ?? DEFAULT_TIMEOUT_MS
    let body
    try {
      body = JSON.stringify({ ...payload, cwd: directory, hook_event_name: event })
    } catch (err) {
      resolve({ ok: false, answer: null, problem: `the ${event} payload is not JSON: ${err && err.message}` })
      return
    }
    const env = { ...process.env }
    for (const name of ROOT_VARS) delete env[name]
    let child
    try {
      child = spawn(command, [...argv.slice(1), "hook", "opencode", event], { cwd: directory, env, stdio: ["pipe", "pipe", "ignore"] })
    } catch (err) {
      resolve({ ok: false, answer: null, problem: `cannot run ${command}: ${err && err.message}` })
      return
    }
    let out = ""
    let done = false
    const finish = (result) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve(result)
    }
    const timer = setTimeout(() => {
      try { child.kill("SIGKILL") } catch {}
      finish({ ok: false, answer: null, problem: `${command} hook opencode ${event} timed out after ${limit / 1000}s` })
    }, limit)
    child.on("error", (err) => finish({ ok: false, answer: null, problem: `cannot run ${command}: ${err && err.message}` }))
    child.stdout.on("data", (chunk) => { if (out.length < MAX_ANSWER) out += chunk })
    child.on("close", (code) => {
      if (code !== 0) return finish({ ok: false, answer: null, problem: `${command} hook opencode ${event} exited ${code}` })
      const text = out.trim()
      if (!text) return finish({ ok: true, answer: null, problem: "" })
      try {
        const answer = JSON.parse(text)
        finish({ ok: true, answer: answer && typeof answer === "object" ? answer : null, problem: "" })
      } catch {
        finish({ ok: false, answer: null, problem: `${command} hook opencode ${event} printed no JSON` })
      }
    })
    child.stdin.on("error", () => {})
    child.stdin.end(body)
  })
}

/** The state folder agentctl would use from `directory` (AGENTCTL_STATE_DIR, else .agent-state up to the git root). */
function stateDir(directory) {
  if (process.env.AGENTCTL_STATE_DIR) return path.resolve(directory, process.env.AGENTCTL_STATE_DIR)
  let here = path.resolve(directory)
  for (;;) {
    const candidate = path.join(here, ".agent-state")
    try {
      fs.lstatSync(candidate) // there, even as a dangling link: agentctl would use (or refuse) it
      return candidate
    } catch {}
    if (fs.existsSync(path.join(here, ".git"))) return null
    const up = path.dirname(here)
    if (up === here) return null
    here = up
  }
}

// A line no P0 rule can come from, however agentctl reads it: blank, a comment, or a P1 or P2 rule
// (the same padding agentctl strips: spaces, tabs, CR, a byte-order mark). Every other line may be a P0
// rule, or a line agentctl cannot read and may take as one: then the write is denied.
const PAD = /^[ \t\r\ufeff]+|[ \t\r\ufeff]+$/g
const NOT_P0 = /^(?:#|[ \t]*[pP][12][ \t]*\|)/

/** When agentctl gave no verdict: could a P0 rule forbid this write? (true when that cannot be told) */
function mayBeDenied(directory) {
  const dir = stateDir(directory)
  if (!dir) return false
  let text
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(fs.readFileSync(path.join(dir, "services", "constraints", "status")))
  } catch (err) {
    return !(err && err.code === "ENOENT")
  }
  return text.split("\n").some((line) => {
    const bare = line.replace(PAD, "")
    return bare !== "" && !NOT_P0.test(bare)
  })
}

// The one export: OpenCode calls every function a plugin module exports as a plugin.
export const AgentctlPlugin = async ({ directory }) => {
  const blocks = new Map() // sessionID -> the resume block this process gives that session's requests
  const why = new Map() // sessionID -> "compact" once a compaction is waiting for its fresh block
  const children = new Set() // sessions a parent session started (task tool): they get the brief form
  const summarising = new Set() // the session's next request is the summariser's: the state is in its prompt
  const call = (event, payload) => runHook(directory, event, payload)
  return {
    "tool.execute.before": async (input, output) => {
      if (!EDIT_TOOLS.has(input.tool)) return
      const r = await call("tool-execute-before", { input, output: { args: output.args } })
      const decision = r.ok && r.answer ? r.answer.decision : undefined
      if (decision === "allow") return
      if (decision === "deny") throw new Error(String(r.answer.reason))
      if (!mayBeDenied(directory)) return
      throw new Error(`agentctl could not check this ${input.tool} against the project's P0 deny-write rules ` +
        `(${r.problem || "no verdict"}); the edit was not made. Run \`agentctl doctor\`, then try again`)
    },
    "tool.execute.after": async (input, output) => {
      if (!EDIT_TOOLS.has(input.tool) && !SHELL_TOOLS.has(input.tool)) return
      await call("tool-execute-after", { input, output: { title: output.title, metadata: output.metadata } })
    },
    "experimental.session.compacting": async (input, output) => {
      const r = await call("session-compacting", { input })
      const text = r.ok && r.answer ? r.answer.context : undefined
      if (typeof text === "string" && text && Array.isArray(output.context)) {
      output.context.push(text)
      summarising.add(input.sessionID)
    }
    },
    "experimental.chat.system.transform": async (input, output) => {
      const sid = input.sessionID
      if (!sid || !Array.isArray(output.system)) return
    if (summarising.delete(sid)) return // one request only, even if the compaction then fails
      if (!blocks.has(sid)) {
        const source = why.get(sid) ?? (children.has(sid) ? "subagent" : "start")
        const r = await call("system-transform", { input: { sessionID: sid }, source })
        const text = r.ok && r.answer ? r.answer.system : undefined
        if (typeof text !== "string" || !text) return // asked again at the next request
        blocks.set(sid, text)
        why.delete(sid)
      }
      output.system.push(blocks.get(sid))
    },
    event: async ({ event }) => {
      const props = (event && event.properties) || {}
      if (event && event.type === "session.compacted" && props.sessionID) {
        why.set(props.sessionID, "compact")
        blocks.delete(props.sessionID)
        await call("session-compacted", { event })
      } else if (event && event.type === "session.created" && props.info && props.info.parentID) {
        children.add(props.info.id || props.sessionID)
      }
    },
  }
}
