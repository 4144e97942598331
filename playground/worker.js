// Runs one python.wasm instance per message, off the page's thread, so that output shows
// as it comes and an endless loop can be stopped (the page terminates this worker).
// In: {module (WebAssembly.Module), stdlib (Uint8Array), code (string), args}.
// Out: {kind: "line", stream, text} for each line, then {kind: "exit", code}.
import {
  ConsoleStdout, Directory, File, OpenFile, PreopenDirectory, WASI,
} from "./vendor/browser_wasi_shim/index.js";

// A stream posted line by line; flush() posts a last line that has no newline.
function stream(name) {
  const decoder = new TextDecoder("utf-8");
  let pending = "";
  const post = (text) => postMessage({ kind: "line", stream: name, text });
  const fd = new ConsoleStdout((bytes) => {
    pending += decoder.decode(bytes, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop();
    for (const line of lines) post(line);
  });
  fd.flush = () => {
    if (pending) post(pending);
    pending = "";
  };
  return fd;
}

async function run({ module, stdlib, code, args }) {
  const fds = [
    new OpenFile(new File([])),
    stream("stdout"),
    stream("stderr"),
    new PreopenDirectory("/", [
      ["main.py", new File(new TextEncoder().encode(code))],
      ["lib", new Directory([["python313.zip", new File(stdlib, { readonly: true })]])],
      ["tmp", new Directory([])],
    ]),
  ];
  const env = ["PYTHONHOME=/", "PYTHONDONTWRITEBYTECODE=1", "PYTHON_COLORS=0", "HOME=/tmp"];
  const wasi = new WASI(["python", ...args], env, fds);
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

onmessage = async (event) => {
  let code;
  try {
    code = await run(event.data);
  } catch (error) {
    postMessage({ kind: "line", stream: "stderr",
                  text: `the WebAssembly instance stopped: ${error}` });
    code = -1;
  }
  postMessage({ kind: "exit", code });
};
