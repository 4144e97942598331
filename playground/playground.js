// The pep671 playground: runs python.wasm (CPython 3.13.5 + PEP 671, wasm32-wasi) in
// the page through @bjorn3/browser_wasi_shim. The module is compiled once, here; each
// button runs a new instance of it in worker.js, with the editor's code as the file
// /main.py of an in-memory file system and the stdlib as /lib/python313.zip. Stop
// terminates the worker (and with it a run that does not end).

const started = performance.now();
const $ = (id) => document.getElementById(id);
const code = $("code");
const output = $("output");
const status = $("status");
const buttons = ["run", "dis", "signature"].map($);
const stop = $("stop");

// What the dis and inspect.signature buttons run: the code is executed with its own
// output hidden, then each function it defined is shown.
const SHOW = `
import contextlib, dis, inspect, io, sys, types
mode = sys.argv[1]
with open("/main.py", encoding="utf-8") as f:
    code = compile(f.read(), "/main.py", "exec")
namespace = {"__name__": "__main__"}
with contextlib.redirect_stdout(io.StringIO()):
    exec(code, namespace)
functions = [(name, value) for name, value in namespace.items()
             if isinstance(value, types.FunctionType)
             and value.__code__.co_filename == "/main.py"]
if not functions:
    print("(the code defines no function at the top level)")
for name, function in functions:
    if mode == "dis":
        print(f"== dis.dis({name}) ==")
        dis.dis(function)
        print()
    else:
        print(f"{name}{inspect.signature(function)}")
`;

let module = null;
let stdlib = null;
let worker = null;
let finish = null;   // ends the run in progress: finish(exitCode)

function show(text, stream) {
  const line = document.createElement("span");
  if (stream === "stderr") line.className = "stderr";
  line.textContent = text + "\n";
  output.appendChild(line);
  if (window.pep671FirstOutputMs === undefined) {
    window.pep671FirstOutputMs = performance.now();
  }
}

function newWorker() {
  worker = new Worker("worker.js", { type: "module" });
  worker.onmessage = ({ data }) => {
    if (data.kind === "line") show(data.text, data.stream);
    else if (finish) finish(data.code);
  };
  worker.onerror = (event) => {
    show(`the worker failed: ${event.message}`, "stderr");
    if (finish) finish(-1);
  };
}

function busy(running) {
  for (const button of buttons) button.disabled = running;
  stop.disabled = !running;
}

function press(kind) {
  output.textContent = "";
  status.textContent = "running…";
  busy(true);
  const args = kind === "run" ? ["/main.py"] : ["-c", SHOW, kind];
  const t0 = performance.now();
  return new Promise((resolve) => {
    finish = (exitCode) => {
      finish = null;
      const ms = Math.round(performance.now() - t0);
      status.textContent = `${kind === "run" ? "ran" : kind} in ${ms} ms` +
        (exitCode ? `, exit status ${exitCode}` : "");
      output.dataset.exitCode = String(exitCode);
      output.dataset.runs = String(Number(output.dataset.runs || 0) + 1);
      busy(false);
      resolve();
    };
    worker.postMessage({ module, stdlib, code: code.value, args });
  });
}

stop.addEventListener("click", () => {
  worker.terminate();
  newWorker();
  show("(stopped)", "stderr");
  if (finish) finish("stopped");
});

// The bytes of a .gz file, unpacked here unless the server already did (a server may
// send a .gz file with Content-Encoding: gzip, and the browser unpacks it then).
async function fetchGzipped(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes.buffer;
  const unpacked = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(unpacked).arrayBuffer();
}

async function load() {
  const [wasm, zip, tour] = await Promise.all([
    fetchGzipped("python.wasm.gz"),
    fetchGzipped("lib/python313.zip.gz"),
    fetch("tour.py").then((r) => r.text()),
  ]);
  module = await WebAssembly.compile(wasm);
  stdlib = new Uint8Array(zip);
  code.value = tour;
  const loadedMs = Math.round(performance.now() - started);
  window.pep671LoadedMs = performance.now();
  newWorker();
  for (const button of buttons) {
    button.addEventListener("click", () => press(button.id));
  }
  await press("run");
  status.textContent = `python.wasm loaded in ${loadedMs} ms; ` + status.textContent;
  window.pep671Ready = true;
}

load().catch((error) => {
  status.textContent = `could not load the interpreter: ${error}`;
  show(String(error), "stderr");
});
