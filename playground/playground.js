// The pep671 playground: runs python.wasm (CPython 3.13.5 + PEP 671, wasm32-wasi) in
// the page through @bjorn3/browser_wasi_shim. The module is compiled once, here; each
// button runs a new instance of it in worker.js, with the editor's code as the file
// /main.py of an in-memory file system and the stdlib as /lib/python313.zip. Stop
// terminates the worker (and with it a run that does not end).
//
// The editor is CodeMirror 6 (editor.js). A run's traceback or SyntaxError is marked in
// the code, and each `File "/main.py", line N` of the output moves the cursor there. A
// share link holds the code (and the last button pressed) in the URL's fragment,
// deflated by the browser's CompressionStream and base64url-encoded: nothing leaves the
// page. The examples menu is examples.json, made at build time from examples/tour.py
// and the PEP's examples (tools/docs/playground.py).
//
// Output is put on the page once per animation frame and cut after MAX_LINES lines
// (output.js), a run is stopped after the time limit chosen beside Stop, the code is
// kept in localStorage across reloads, and time.sleep waits without spinning a core
// (poll.js). Compare shows the code as stock Python 3.13 writes it, and both runs
// (compare.js). docs/playground.md says what the page does and does not do.

import {createEditor, cursor, diagnostics, getCode, markedErrors, moveTo, setCode, showErrors,
        syntaxReport} from "./editor.js"
import {MAX_LINES, Output} from "./output.js"
import {Compare} from "./compare.js"

const started = performance.now()
const $ = (id) => document.getElementById(id)
const outputPane = $("output")
const status = $("status")
const BUTTONS = ["run", "dis", "signature"]
const buttons = BUTTONS.map($)
const stop = $("stop")
const share = $("share")
const shareLink = $("share-link")
const examples = $("examples")
const limit = $("limit")
const formatButton = $("format")
const notice = $("notice")
const compareButton = $("compare")
const comparePanel = $("compare-panel")
const KEPT = "pep671-playground:code"   // localStorage: the code, kept across reloads

// What the dis and inspect.signature buttons run: the code is executed with its own
// output hidden, then each function it defined is shown, and each method of the classes
// it defined. An error in the code is shown without this script's frame.
const SHOW = `
import contextlib, dis, inspect, io, sys, traceback, types
mode = sys.argv[1]
try:
    with open("/main.py", encoding="utf-8") as f:
        code = compile(f.read(), "/main.py", "exec")
    namespace = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(code, namespace)
except Exception as error:
    traceback.print_exception(type(error), error, error.__traceback__.tb_next)
    sys.exit(1)
def ours(value):
    return isinstance(value, types.FunctionType) and value.__code__.co_filename == "/main.py"
functions = []
for name, value in namespace.items():
    if ours(value):
        functions.append((name, value))
    elif isinstance(value, type) and value.__module__ == "__main__":
        for attr, member in vars(value).items():
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            elif isinstance(member, property):
                member = member.fget
            if ours(member):
                functions.append((f"{name}.{attr}", member))
if not functions:
    print("(the code defines no function or class at the top level)")
for name, function in functions:
    if mode == "dis":
        print(f"== dis.dis({name}) ==")
        dis.dis(function)
        print()
    else:
        print(f"{name}{inspect.signature(function)}")
`

// What the check while typing runs: the code compiled, not run; its SyntaxError as JSON.
const CHECK = `
import json
try:
    with open("/main.py", encoding="utf-8") as f:
        compile(f.read(), "/main.py", "exec")
except SyntaxError as error:
    same = error.end_lineno == error.lineno and (error.end_offset or 0) > (error.offset or 0)
    print(json.dumps({"line": error.lineno or 1, "column": error.offset,
                      "endColumn": error.end_offset if same else None,
                      "message": f"{type(error).__name__}: {error.msg}"}))
else:
    print("null")
`
const CHECK_PAUSE_MS = 600

let module = null
let stdlib = null
let worker = null
let finish = null        // ends the run in progress: finish(exitCode)
let ready = false        // the interpreter is compiled: the buttons run
let lastButton = "run"   // the button pressed last (a share link keeps it)
let again = false        // Ctrl+Enter during a run: run the code again when it ends
let editedInRun = false  // the code was edited during the run in progress
const output = new Output(outputPane)

function runNow() {
  if (!ready) return
  if (!finish && !comparer.running) return press("run")
  again = true
  status.textContent = "running… (Ctrl+Enter: the code as it is now runs when this run ends)"
}

let keepTimer = 0
function keep() {
  clearTimeout(keepTimer)
  keepTimer = setTimeout(() => {
    try { localStorage.setItem(KEPT, getCode(view)) } catch { /* storage refused */ }
  }, 300)
}
const view = createEditor($("editor"), {
  onRun: runNow,
  onChange: () => { if (finish) editedInRun = true; keep(); checkSoon() },
})

// --- diagnostics while typing: the interpreter compiles the code after a pause -------

let checker = null       // a worker of its own, so that a run and a check do not wait
let checking = false     // a check is in progress
let checkTimer = 0
let checkMarks = false   // the marks shown are a check's (a clean check takes them away)
let lastCheck = null     // {code, error} of the last check applied (for the tests)

function checkSoon() {
  clearTimeout(checkTimer)
  checkTimer = setTimeout(check, CHECK_PAUSE_MS)
}

// Runs args in worker (a worker of its own, beside the runs'), with more files for
// /lib: its stdout and stderr, and its exit status.
function runAside(worker, code, args, lib = {}) {
  return new Promise((resolve) => {
    const out = {stdout: "", stderr: ""}
    worker.onmessage = ({data}) => {
      if (data.kind === "output") {
        for (const [stream, chunk] of data.chunks) out[stream] += chunk
      } else resolve({...out, code: data.code})
    }
    worker.onerror = (event) => resolve({...out, stderr: String(event.message), code: -1})
    worker.postMessage({module, stdlib, code, args, lib, maxLines: 1e9})
  })
}

async function check() {
  if (!ready) return
  if (checking) return checkSoon()
  const code = getCode(view)
  checking = true
  checker ??= new Worker("worker.js", {type: "module"})
  const {stdout} = await runAside(checker, code, ["-c", CHECK])
  checking = false
  // a check of code that has changed since, or that a run is marking, shows nothing
  if (code !== getCode(view) || finish) return
  let error = null
  try { error = JSON.parse(stdout.trim().split("\n").pop()) } catch { return }
  if (error) {
    showErrors(view, [error])
    checkMarks = true
  } else if (checkMarks) {
    showErrors(view, [])
    checkMarks = false
  }
  lastCheck = {code, error}
}

// --- Format: the patched black (ecosystem/patched/black), in the worker ---------------

const FORMAT = `
import sys, types, zipfile
# black reads its grammar files from a directory
zipfile.ZipFile("/lib/black.zip").extractall("/tmp/site")
sys.path.insert(0, "/tmp/site")
# platformdirs asks os for a user id, which WASI has not; black's cache is not used here
sys.modules["platformdirs"] = types.SimpleNamespace(user_cache_dir=lambda *a, **k: "/tmp")
import black
with open("/main.py", encoding="utf-8") as f:
    source = f.read()
try:
    print(black.format_str(source, mode=black.Mode()), end="")
except Exception as error:   # InvalidInput, or blib2to3's ParseError
    sys.exit(f"black cannot format this code: {type(error).__name__}: {error}")
`
let formatter = null
let blackZip = null

async function format() {
  const code = getCode(view)
  formatButton.disabled = true
  status.textContent = "formatting with black…"
  try {
    blackZip ??= new Uint8Array(await fetchGzipped("lib/black.zip.gz"))
    formatter ??= new Worker("worker.js", {type: "module"})
    const {stdout, stderr, code: exit} = await runAside(formatter, code, ["-c", FORMAT],
                                                       {"black.zip": blackZip})
    if (exit !== 0) {
      status.textContent = stderr.trim().split("\n")[0] || `black: exit status ${exit}`
    } else if (getCode(view) !== code) {
      status.textContent = "the code changed while black formatted it: Format again"
    } else {
      if (stdout !== code) setCode(view, stdout)
      status.textContent = stdout === code ? "black: nothing to change" : "formatted by black"
    }
  } catch (error) {
    status.textContent = `black could not be loaded: ${error}`
  } finally {
    formatButton.disabled = false
    formatButton.dataset.formats = String(Number(formatButton.dataset.formats || 0) + 1)
  }
}
// Ctrl+Enter (Cmd+Enter) runs from anywhere on the page, not only in the editor
document.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !view.hasFocus) {
    event.preventDefault()
    runNow()
  }
})

const show = (text, stream) => output.show(text, stream)

// A message that stays above the code until dismissed (a share link that cannot be read).
function tell(text) {
  notice.querySelector("span").textContent = text
  notice.hidden = false
}
notice.querySelector("button").addEventListener("click", () => { notice.hidden = true })

// --- errors in place -------------------------------------------------------------

const FRAME = /^\s*File "\/main\.py", line (\d+)/
const CARETS = /^\s*[\^~]+\s*$/

// Each `File "/main.py", line N` of a traceback (or of a SyntaxError), with the column
// span its carets show, if any: {index, line, column?, endColumn?}. Python prints the
// line stripped of its indentation, indented by 4, and the carets under it, so a caret's
// column is counted from the line's first non-blank character in the code.
function frames(texts) {
  const found = []
  texts.forEach((text, index) => {
    const match = FRAME.exec(text)
    if (!match) return
    const frame = {index, line: Number(match[1])}
    const source = texts[index + 1], carets = texts[index + 2]
    if (source !== undefined && carets !== undefined && !FRAME.test(source) &&
        CARETS.test(carets)) {
      const start = carets.search(/[\^~]/) - 4
      const length = carets.trim().length
      const code = view.state.doc.lines >= frame.line
        ? view.state.doc.line(frame.line).text : ""
      const indent = code.length - code.trimStart().length
      if (start >= 0) {
        frame.column = indent + start + 1
        frame.endColumn = frame.column + length
      }
    }
    found.push(frame)
  })
  return found
}

// After a run: the innermost frame of the user's code is marked with the error's last
// line as its message, and each frame line of the output is a link to its place.
function placeErrors(exitCode) {
  const lines = output.lines
  const texts = lines.map((l) => l.text)
  const found = frames(texts)
  for (const frame of found) {
    const node = lines[frame.index].node
    node.classList.add("frame")
    node.title = "show this line in the code"
    node.addEventListener("click", () => moveTo(view, frame))
  }
  const errors = []
  if (exitCode !== 0 && found.length) {
    const stderr = lines.filter((l) => l.stream === "stderr" && l.text.trim())
    const message = stderr.length ? stderr[stderr.length - 1].text.trim() : "error"
    errors.push({...found[found.length - 1], message})
  }
  showErrors(view, errors)
}

// --- running ---------------------------------------------------------------------

function newWorker() {
  worker = new Worker("worker.js", {type: "module"})
  worker.onmessage = ({data}) => {
    if (data.kind === "output") output.add(data.chunks, data.lines)
    else if (finish) finish(data.code, data)
  }
  worker.onerror = (event) => {
    show(`the worker failed: ${event.message}`, "stderr")
    if (finish) finish(-1)
  }
}

function busy(running) {
  for (const button of [...buttons, compareButton]) button.disabled = running
  stop.disabled = !running
}

// The right-hand pane: the output of a run, or the Compare view.
function showPane(name) {
  outputPane.hidden = name !== "output"
  comparePanel.hidden = name !== "compare"
}

// The time limit (the menu beside Stop), in seconds; 0: none.
const timeLimit = () => Number(limit.value)

function press(kind) {
  showPane("output")
  output.reset()
  status.textContent = "running…"
  lastButton = kind
  again = editedInRun = checkMarks = false
  busy(true)
  showErrors(view, [])
  const args = kind === "run" ? ["/main.py"] : ["-c", SHOW, kind]
  const t0 = performance.now()
  const seconds = timeLimit()
  const clock = setInterval(() => {
    const s = Math.floor((performance.now() - t0) / 1000)
    if (seconds && s >= seconds) {
      halt(`(stopped: the time limit of ${seconds} s; the menu beside Stop changes it)`)
    } else if (!again) {
      status.textContent = `running… ${s} s` + (seconds ? ` (time limit ${seconds} s)` : "")
    }
  }, 250)
  return new Promise((resolve) => {
    finish = (exitCode, result = {}) => {
      finish = null
      clearInterval(clock)
      output.finish(result.lines)
      const ms = Math.round(performance.now() - t0)
      const notes = [`${kind === "run" ? "ran" : kind} in ${ms} ms` +
                     (exitCode ? `, exit status ${exitCode}` : "")]
      if (result.lines > MAX_LINES) notes.push(`${result.lines.toLocaleString("en")} lines written`)
      if (output.lines.some((l) => l.text.startsWith("EOFError: EOF when reading a line"))) {
        notes.push("input() reads an empty stdin here: the page has no keyboard input")
      }
      if (editedInRun && !again) notes.push("the code was edited during the run: Ctrl+Enter runs it")
      status.textContent = notes.join("; ")
      if (exitCode !== "stopped") placeErrors(exitCode)
      outputPane.dataset.exitCode = String(exitCode)
      outputPane.dataset.runs = String(Number(outputPane.dataset.runs || 0) + 1)
      if (result.wait) outputPane.dataset.wait = result.wait
      busy(false)
      resolve()
      if (again) press("run")
    }
    worker.postMessage({module, stdlib, code: getCode(view), args, maxLines: MAX_LINES})
  })
}

// Ends the run in progress: the worker is terminated, and a new one waits for the next.
function halt(message) {
  if (!finish) return
  worker.terminate()
  newWorker()
  show(message, "stderr")
  again = false
  finish("stopped")
}

stop.addEventListener("click", () => comparer.running ? comparer.stop() : halt("(stopped)"))

// --- Compare: the code as stock 3.13 writes it, and both runs (compare.js) ---------

let lbdefaultsZip = null
const comparer = new Compare(comparePanel, {
  module: () => module,
  stdlib: () => stdlib,
  lib: async () => lbdefaultsZip ??= new Uint8Array(await fetchGzipped("lib/lbdefaults.zip.gz")),
  showCode: SHOW,
  timeLimit,
  status,
})

async function compare(mode) {
  if (!ready || finish || comparer.running) return
  showPane("compare")
  showErrors(view, [])
  busy(true)
  status.textContent = "comparing…"
  try {
    await comparer.run(getCode(view), mode)
  } catch (error) {
    status.textContent = `the comparison failed: ${error}`
  } finally {
    busy(false)
  }
}
$("compare-mode").addEventListener("click", () =>
  compare(comparer.mode === "dis" ? "output" : "dis"))
$("compare-close").addEventListener("click", () => showPane("output"))

// --- share links -----------------------------------------------------------------

function toBase64url(bytes) {
  let binary = ""
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

function fromBase64url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"))
  return Uint8Array.from(binary, (c) => c.charCodeAt(0))
}

async function through(bytes, transform) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(transform))
    .arrayBuffer())
}

// The link that opens this page with code in it: #code=<deflate-raw, base64url>, and
// &run=<button> when the button pressed last is not Run.
async function shareUrl(code, button) {
  const packed = await through(new TextEncoder().encode(code),
                               new CompressionStream("deflate-raw"))
  const params = new URLSearchParams({code: toBase64url(packed)})
  if (button !== "run") params.set("run", button)
  const url = new URL(window.location.href)
  url.hash = params.toString()
  return url.href
}

// What a link's fragment holds: {code, button}, or null when it holds no code.
async function fromFragment(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""))
  if (!params.has("code")) return null
  const bytes = await through(fromBase64url(params.get("code")),
                              new DecompressionStream("deflate-raw"))
  const button = BUTTONS.includes(params.get("run")) ? params.get("run") : "run"
  return {code: new TextDecoder("utf-8", {fatal: true}).decode(bytes), button}
}

// A fragment's code, or null; a link that cannot be read is said above the code (and
// loads nothing).
function linkCode(hash) {
  return fromFragment(hash).catch((error) => {
    tell(`This link's code could not be read (cut short when it was copied?): ${error}. ` +
         "Nothing was loaded from it.")
    return null
  })
}

share.addEventListener("click", async () => {
  const url = await shareUrl(getCode(view), lastButton)
  history.replaceState(null, "", url)
  shareLink.value = url
  shareLink.hidden = false
  shareLink.select()
  try {
    await navigator.clipboard.writeText(url)
    status.textContent = `link copied (${url.length} characters)`
  } catch {
    status.textContent = "copy the link from the box below Share"
  }
})
// the box is over the panes, not above them: it goes when it loses the focus
shareLink.addEventListener("blur", () => { shareLink.hidden = true })

// --- examples --------------------------------------------------------------------

async function loadExamples() {
  const list = await fetch("examples.json").then((r) => r.json())
  for (const group of new Set(list.map((e) => e.group))) {
    const optgroup = document.createElement("optgroup")
    optgroup.label = group
    list.forEach((example, index) => {
      if (example.group !== group) return
      const option = document.createElement("option")
      option.value = String(index)
      option.textContent = example.title
      optgroup.appendChild(option)
    })
    examples.appendChild(optgroup)
  }
  examples.addEventListener("change", async () => {
    const chosen = examples.value
    // back to "Examples…", so that choosing the same one again loads it again
    examples.value = ""
    if (chosen === "") return
    setCode(view, chosen === "tour" ? await tourCode() : list[Number(chosen)].code)
    if (ready && !finish && !comparer.running) press("run")
  })
  return list
}

let tourText = null
const tourCode = async () => tourText ??= await fetch("tour.py").then((r) => r.text())

function keptCode() {
  try { return localStorage.getItem(KEPT) } catch { return null }
}

// --- loading ---------------------------------------------------------------------

// The bytes of a .gz file, unpacked here unless the server already did (a server may
// send a .gz file with Content-Encoding: gzip, and the browser unpacks it then).
async function fetchGzipped(url) {
  const response = await fetch(url)
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`)
  const bytes = new Uint8Array(await response.arrayBuffer())
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes.buffer
  return (await through(bytes, new DecompressionStream("gzip"))).buffer
}

// For the tests (tests/test_playground.py) and the curious.
window.__pep671 = {
  view,
  getCode: () => getCode(view),
  setCode: (text) => setCode(view, text),
  syntaxErrors: () => syntaxReport(view).errors,
  syntax: () => syntaxReport(view),
  markedLines: () => markedErrors(view),
  diagnostics: () => diagnostics(view),
  cursor: () => cursor(view),
  lastCheck: () => lastCheck,
  shareUrl: (code, button = "run") => shareUrl(code, button),
  setTimeLimit: (seconds) => {
    const option = [...limit.options].find((o) => o.value === String(seconds)) ??
      limit.appendChild(new Option(`${seconds} s`, String(seconds)))
    limit.value = option.value
  },
}

async function load() {
  const [wasm, zip, start, list] = await Promise.all([
    fetchGzipped("python.wasm.gz"),
    fetchGzipped("lib/python313.zip.gz"),
    linkCode(window.location.hash),
    loadExamples(),
  ])
  // the link's code, else the code kept from the last visit (not run), else the tour
  const kept = start ? null : keptCode()
  const first = start ?? (kept !== null ? {code: kept, button: null}
    : {code: await tourCode(), button: "run"})
  setCode(view, first.code)
  window.pep671EditorMs = performance.now()
  window.__pep671.examples = list
  module = await WebAssembly.compile(wasm)
  stdlib = new Uint8Array(zip)
  const loadedMs = Math.round(performance.now() - started)
  window.pep671LoadedMs = performance.now()
  newWorker()
  ready = true
  for (const button of buttons) {
    button.addEventListener("click", () => press(button.id))
  }
  busy(false)
  share.disabled = false
  formatButton.disabled = false
  formatButton.addEventListener("click", format)
  compareButton.addEventListener("click", () => compare("output"))
  if (first.button) await press(first.button)
  else checkSoon()
  if (!first.button) status.textContent = "your code from your last visit (Examples → The tour brings the tour back)"
  status.textContent = `python.wasm loaded in ${loadedMs} ms; ` + status.textContent
  window.pep671Ready = true
}

// A link pasted into this tab's address bar changes only the fragment: load it too.
window.addEventListener("hashchange", async () => {
  const start = await linkCode(window.location.hash)
  if (!start || !ready || start.code === getCode(view)) return
  setCode(view, start.code)
  if (!finish && !comparer.running) press(start.button)
})

load().catch((error) => {
  status.textContent = `could not load the interpreter: ${error}`
  show(String(error), "stderr")
})
