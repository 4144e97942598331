// The pep671 playground: runs python.wasm (CPython 3.13.5 + PEP 671, wasm32-wasi) in
// the page through @bjorn3/browser_wasi_shim. The editor's code is the file /main.py of
// an in-memory file system; the stdlib is /lib/python313.zip. Each button runs a new
// instance of the compiled module, so one run cannot disturb the next.
import {
  ConsoleStdout, Directory, File, OpenFile, PreopenDirectory, WASI,
} from "./vendor/browser_wasi_shim/index.js";

const started = performance.now();
const $ = (id) => document.getElementById(id);
const code = $("code");
const output = $("output");
const status = $("status");
const buttons = ["run", "dis", "signature"].map($);

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

function show(text, stream) {
  const line = document.createElement("span");
  if (stream === "stderr") line.className = "stderr";
  line.textContent = text + "\n";
  output.appendChild(line);
  if (window.pep671FirstOutputMs === undefined) {
    window.pep671FirstOutputMs = performance.now();
  }
}

// A stream shown line by line; flush() shows a last line that has no newline.
function stream(name) {
  const decoder = new TextDecoder("utf-8");
  let pending = "";
  const fd = new ConsoleStdout((bytes) => {
    pending += decoder.decode(bytes, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop();
    for (const line of lines) show(line, name);
  });
  fd.flush = () => {
    if (pending) show(pending, name);
    pending = "";
  };
  return fd;
}

async function runPython(args) {
  const source = new TextEncoder().encode(code.value);
  const fds = [
    new OpenFile(new File([])),
    stream("stdout"),
    stream("stderr"),
    new PreopenDirectory("/", [
      ["main.py", new File(source)],
      ["lib", new Directory([["python313.zip", new File(stdlib, { readonly: true })]])],
      ["tmp", new Directory([])],
    ]),
  ];
  const wasi = new WASI(["python", ...args],
                        ["PYTHONHOME=/", "PYTHONDONTWRITEBYTECODE=1", "PYTHON_COLORS=0", "HOME=/tmp"], fds);
  const instance = await WebAssembly.instantiate(module, {
    wasi_snapshot_preview1: wasi.wasiImport,
  });
  try {
    return wasi.start(instance);
  } finally {
    fds[1].flush();
    fds[2].flush();
  }
}

async function press(kind) {
  for (const button of buttons) button.disabled = true;
  output.textContent = "";
  status.textContent = "running…";
  const args = kind === "run" ? ["/main.py"] : ["-c", SHOW, kind];
  const t0 = performance.now();
  let exitCode;
  try {
    exitCode = await runPython(args);
  } catch (error) {
    show(`the WebAssembly instance stopped: ${error}`, "stderr");
    exitCode = -1;
  }
  const ms = Math.round(performance.now() - t0);
  status.textContent = `${kind === "run" ? "ran" : kind} in ${ms} ms` +
    (exitCode ? `, exit status ${exitCode}` : "");
  output.dataset.exitCode = String(exitCode);
  output.dataset.runs = String(Number(output.dataset.runs || 0) + 1);
  for (const button of buttons) button.disabled = false;
}

async function load() {
  const [wasm, zip, tour] = await Promise.all([
    fetch("python.wasm").then((r) => r.arrayBuffer()),
    fetch("lib/python313.zip").then((r) => r.arrayBuffer()),
    fetch("tour.py").then((r) => r.text()),
  ]);
  module = await WebAssembly.compile(wasm);
  stdlib = new Uint8Array(zip);
  code.value = tour;
  const loadedMs = Math.round(performance.now() - started);
  window.pep671LoadedMs = performance.now();
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
