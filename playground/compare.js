// The Compare view: the user's code beside the same program in stock Python 3.13, which
// has no `=>` and writes a default computed at the call as `x=None` and `if x is None:
// x = EXPR` at the top of the body. That version is made in the worker by the reverse of
// the migration tool's rewrite (tools/lbdefaults/rewrite.py: to_sentinel_idiom, shipped
// as lib/lbdefaults.zip); then both programs run, each in a worker of its own, and their
// outputs are shown side by side with the lines that differ marked (or, with "dis of
// both", the bytecode of their functions). Both run on the page's interpreter: code
// without `=>` compiles there to the bytecode of upstream 3.13.

import {MAX_LINES} from "./output.js"

// What the worker runs to make the stock version: JSON with the code and the lines of it
// that the rewrite changed, or the reason it cannot be made.
const REWRITE = `
import difflib, json, sys
sys.path.insert(0, "/lib/lbdefaults.zip")
from lbdefaults.rewrite import RewriteError, to_sentinel_idiom
with open("/main.py", encoding="utf-8") as f:
    source = f.read()
try:
    stock = to_sentinel_idiom(source, "/main.py")
except RewriteError as error:
    print(json.dumps({"error": str(error)}))
else:
    old, new = source.splitlines(), stock.text.splitlines()
    changed = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            changed.extend(range(j1, j2))
    print(json.dumps({"code": stock.text, "rewritten": stock.rewritten, "changed": changed}))
`

// The lines of a run's output ([stream, text] chunks in the order written): {text, stream}.
export function outputLines(chunks) {
  const lines = []
  let line = null
  for (const [stream, text] of chunks) {
    const parts = text.split("\n")
    parts.forEach((part, i) => {
      line ??= {text: "", stream}
      line.text += part
      if (stream === "stderr") line.stream = "stderr"
      if (i < parts.length - 1) {
        lines.push(line)
        line = null
      }
    })
  }
  if (line && line.text) lines.push(line)
  return lines
}

// pre gets lines, each a span; those whose index is in marked get the class mark.
function fill(pre, lines, marked = new Set(), mark = "differs") {
  pre.textContent = ""
  lines.forEach(({text, stream}, i) => {
    const span = document.createElement("span")
    span.textContent = text + "\n"
    if (stream === "stderr") span.classList.add("stderr")
    if (marked.has(i)) span.classList.add(mark)
    pre.appendChild(span)
  })
}

export class Compare {
  // panel: the #compare section; env: {module, stdlib, lib (a promise of the zip's bytes),
  // showCode (the SHOW script of the dis button), timeLimit(), status (an element)}.
  constructor(panel, env) {
    this.panel = panel
    this.env = env
    this.$ = (id) => panel.querySelector(`#${id}`)
    this.current = null     // ends the step in progress: current({code})
    this.stopped = false
    this.running = false
    this.mode = "output"
  }

  // Runs args in a new worker with code as /main.py: {chunks, lines, code}; code is
  // "stopped" or "limit" when Stop or the time limit ended it.
  step(code, args, lib = {}) {
    const {module, stdlib, timeLimit} = this.env
    return new Promise((resolve) => {
      const worker = new Worker("worker.js", {type: "module"})
      const out = {chunks: [], lines: 0}
      let timer = 0
      const end = (result) => {
        clearTimeout(timer)
        worker.terminate()
        this.current = null
        resolve({...out, ...result})
      }
      this.current = end
      worker.onmessage = ({data}) => {
        if (data.kind === "output") {
          out.chunks.push(...data.chunks)
          out.lines = data.lines
        } else end({code: data.code, lines: data.lines})
      }
      worker.onerror = (event) => end({code: -1, chunks: [["stderr", String(event.message)]]})
      const seconds = timeLimit()
      if (seconds) timer = setTimeout(() => end({code: "limit"}), seconds * 1000)
      worker.postMessage({module: module(), stdlib: stdlib(), code, args, lib,
                          maxLines: MAX_LINES})
    })
  }

  stop() {
    this.stopped = true
    if (this.current) this.current({code: "stopped"})
  }

  // Makes the stock version of code and runs both (mode "output"), or shows the dis of
  // both (mode "dis"). Resolves when it is done, or stopped.
  async run(code, mode = this.mode) {
    this.mode = mode
    this.stopped = false
    this.running = true
    const t0 = performance.now()
    const summary = this.$("compare-summary"), limit = this.$("compare-limit")
    const stockPre = this.$("stock-code"), late = this.$("compare-late"),
      stock = this.$("compare-stock")
    this.$("compare-mode").textContent = mode === "dis" ? "outputs" : "dis of both"
    this.$("compare-late-title").textContent = mode === "dis" ? "dis, with =>" : "output, with =>"
    this.$("compare-stock-title").textContent =
      mode === "dis" ? "dis, stock 3.13" : "output, stock 3.13"
    limit.hidden = true
    summary.textContent = "making the stock version…"
    for (const pre of [stockPre, late, stock]) pre.textContent = ""
    try {
      const made = await this.step(code, ["-c", REWRITE],
                                   {"lbdefaults.zip": await this.env.lib()})
      if (this.stopped) return this.end(summary, "stopped", t0)
      let result = null
      try {
        result = JSON.parse(outputLines(made.chunks).map((l) => l.text).join("\n").trim()
          .split("\n").pop())
      } catch {
        result = {error: "the rewrite failed: " +
          outputLines(made.chunks).map((l) => l.text).join("\n").trim()}
      }
      if (result.error) {
        limit.textContent = `The stock version cannot be made: ${result.error}. ` +
          "Nothing was run: the comparison would not be of the same program."
        limit.hidden = false
        summary.textContent = "no comparison (below)"
        stockPre.textContent = "(not made)"
        return this.end(summary, "refused", t0)
      }
      fill(stockPre, result.code.replace(/\n$/, "").split("\n").map((text) => ({text})),
           new Set(result.changed), "changed")
      if (!result.rewritten) {
        limit.textContent = "Your code has no late-bound default (=>): in stock 3.13 it " +
          "is the same code."
        limit.hidden = false
      }
      summary.textContent = "running both…"
      const args = mode === "dis" ? ["-c", this.env.showCode, "dis"] : ["/main.py"]
      const ours = await this.step(code, args)
      if (this.stopped) return this.end(summary, "stopped", t0)
      const theirs = await this.step(result.code, args)
      if (this.stopped) return this.end(summary, "stopped", t0)
      const left = outputLines(ours.chunks), right = outputLines(theirs.chunks)
      for (const [run, lines] of [[ours, left], [theirs, right]]) {
        if (run.code === "limit") {
          lines.push({text: `(stopped: the time limit of ${this.env.timeLimit()} s)`,
                      stream: "stderr"})
        } else if (run.lines > MAX_LINES) {
          lines.push({text: `(output truncated after ${MAX_LINES.toLocaleString("en")} ` +
                      `lines, of ${run.lines.toLocaleString("en")} lines written)`})
        }
      }
      const differ = new Set()
      for (let i = 0; i < Math.max(left.length, right.length); i++) {
        if (left[i]?.text !== right[i]?.text) differ.add(i)
      }
      const marked = mode === "dis" ? new Set() : differ
      fill(late, left, marked)
      fill(stock, right, marked)
      const first = Math.min(...differ)
      const exits = ours.code === theirs.code ? "" :
        ` (exit status ${ours.code} with =>, ${theirs.code} stock)`
      summary.textContent = mode === "dis"
        ? `the bytecode of each function: ${left.length} lines with =>, ${right.length} ` +
          "stock (the idiom's check is in the body)"
        : !differ.size && !exits
          ? `same output, ${left.length} line${left.length === 1 ? "" : "s"}, both ways`
          : `the outputs differ${differ.size ? ` from line ${first + 1} (marked)` : ""}${exits}`
      return this.end(summary, differ.size || exits ? "differ" : "same", t0)
    } finally {
      this.running = false
    }
  }

  end(summary, outcome, t0) {
    if (outcome === "stopped") summary.textContent = "stopped"
    this.panel.dataset.outcome = outcome
    this.panel.dataset.compares = String(Number(this.panel.dataset.compares || 0) + 1)
    this.env.status.textContent = outcome === "stopped" ? "(stopped)"
      : `compared in ${Math.round(performance.now() - t0)} ms`
    return outcome
  }
}
