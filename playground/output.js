// The output pane: what worker.js sends ([stream, text] chunks, in the order written) is
// cut into lines and put on the page once per animation frame, however fast it comes, so
// that a flood of output cannot keep the page from answering. The worker sends no more
// than MAX_LINES lines of text; past them a last line says how many were written.

export const MAX_LINES = 5000

export class Output {
  constructor(pre) {
    this.pre = pre
    this.reset()
  }

  reset() {
    this.pre.textContent = ""
    this.lines = []        // the lines shown: [{text, stream, node}]
    this.pending = []      // lines not yet on the page: [{text, stream}]
    this.partial = null    // the line being written: {text, stream}
    this.partialNode = null
    this.total = 0         // the lines written, as the worker counts them
    this.note = null
    this.frame = 0
  }

  // Chunks from the worker; total is its count of the lines written so far.
  add(chunks, total) {
    for (const [stream, text] of chunks) this.absorb(stream, text)
    this.total = Math.max(this.total, total)
    if (!this.frame) this.frame = requestAnimationFrame(() => this.render())
  }

  absorb(stream, text) {
    // a stream's unfinished line ends where the other stream writes (input()'s prompt
    // before the traceback of its EOFError)
    if (this.partial && this.partial.stream !== stream) {
      this.pending.push(this.partial)
      this.partial = null
    }
    const parts = text.split("\n")
    const last = parts.pop()
    for (const part of parts) {
      this.pending.push({stream, text: (this.partial ? this.partial.text : "") + part})
      this.partial = null
    }
    if (last) this.partial = {stream, text: (this.partial ? this.partial.text : "") + last}
  }

  // A line of the page's own (a message), after what is there.
  show(text, stream = "stderr") {
    this.finish()
    this.pending.push({text, stream})
    this.render()
  }

  // Everything received put on the page now (the run has ended; total: the count of
  // lines written, if known).
  finish(total = 0) {
    this.total = Math.max(this.total, total)
    if (this.partial) this.pending.push(this.partial)
    this.partial = null
    this.render()
  }

  render() {
    if (this.frame) cancelAnimationFrame(this.frame)
    this.frame = 0
    const fragment = document.createDocumentFragment()
    for (const line of this.pending) {
      const node = document.createElement("span")
      if (line.stream === "stderr") node.className = "stderr"
      node.textContent = line.text + "\n"
      fragment.appendChild(node)
      this.lines.push({...line, node})
    }
    this.pending = []
    if (this.partialNode) this.partialNode.remove()
    this.partialNode = null
    this.pre.appendChild(fragment)
    if (this.partial) {
      this.partialNode = document.createElement("span")
      if (this.partial.stream === "stderr") this.partialNode.className = "stderr"
      this.partialNode.textContent = this.partial.text
      this.pre.appendChild(this.partialNode)
    }
    if (this.total > MAX_LINES) {
      // after the last line that was sent (no more come), before the page's messages
      if (!this.note) {
        this.note = document.createElement("span")
        this.note.className = "note"
        this.note.id = "truncated"
        this.pre.appendChild(this.note)
      }
      this.note.textContent = `(output truncated after ${MAX_LINES.toLocaleString("en")} ` +
        `lines, of ${this.total.toLocaleString("en")} lines written)\n`
    }
    if (this.lines.length && window.pep671FirstOutputMs === undefined) {
      window.pep671FirstOutputMs = performance.now()
    }
  }
}
