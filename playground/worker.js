// Runs one python.wasm instance per message, off the page's thread, so that output shows
// as it comes and an endless loop can be stopped (the page terminates this worker).
// In: {module (WebAssembly.Module), stdlib (Uint8Array), code (string), args, maxLines,
// lib (optional: more files for /lib, {name: Uint8Array})}.
// Out: {kind: "output", chunks: [[stream, text], ...], lines} as written, but at most 20
// messages in 40 ms (a flood is sent in batches: the rest when the next 40 ms begin, or
// before a sleep), in the order the streams were written; past maxLines newlines no more
// text is sent, only the count of lines written (lines); then {kind: "exit", code, lines,
// wait} (wait: how time.sleep waits, poll.js).
import {
  ConsoleStdout, Directory, File, OpenFile, PreopenDirectory, WASI, WASIProcExit,
} from "./vendor/browser_wasi_shim/index.js";
import {pollOneoff, waitKind} from "./poll.js";

const WINDOW_MS = 40;
const POSTS_PER_WINDOW = 20;

// The output of one run: both streams into one list of chunks, sent in batches.
function outputs(maxLines) {
  let chunks = [], lines = 0, sent = 0, windowStart = performance.now(), posts = 0;
  const flush = () => {
    if (!chunks.length && lines === sent) return;
    postMessage({kind: "output", chunks, lines});
    chunks = [];
    sent = lines;
    posts++;
  };
  const stream = (name) => {
    const decoder = new TextDecoder("utf-8");
    return new ConsoleStdout((bytes) => {
      let text = decoder.decode(bytes, {stream: true});
      if (lines < maxLines) {
        let cut = -1;
        for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
          if (++lines === maxLines) { cut = i; break; }
        }
        const rest = cut >= 0 ? text.slice(cut + 1) : "";
        if (cut >= 0) text = text.slice(0, cut + 1);
        const previous = chunks[chunks.length - 1];
        if (previous && previous[0] === name) previous[1] += text;
        else chunks.push([name, text]);
        for (let i = rest.indexOf("\n"); i >= 0; i = rest.indexOf("\n", i + 1)) lines++;
      } else {
        for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lines++;
      }
      const now = performance.now();
      if (now - windowStart >= WINDOW_MS) {
        windowStart = now;
        posts = 0;
      }
      if (posts < POSTS_PER_WINDOW) flush();
    });
  };
  return {stdout: stream("stdout"), stderr: stream("stderr"), flush,
          lines: () => lines};
}

async function run({module, stdlib, code, args, maxLines, lib = {}}) {
  const out = outputs(maxLines);
  const fds = [
    new OpenFile(new File([])),
    out.stdout,
    out.stderr,
    new PreopenDirectory("/", [
      ["main.py", new File(new TextEncoder().encode(code))],
      ["lib", new Directory([["python313.zip", new File(stdlib, {readonly: true})],
                             ...Object.entries(lib).map(([name, bytes]) =>
                               [name, new File(bytes, {readonly: true})])])],
      ["tmp", new Directory([])],
    ]),
  ];
  const env = ["PYTHONHOME=/", "PYTHONDONTWRITEBYTECODE=1", "PYTHON_COLORS=0", "HOME=/tmp"];
  const wasi = new WASI(["python", ...args], env, fds);
  const wait = waitKind();
  let instance = null;
  wasi.wasiImport.poll_oneoff = pollOneoff(wait, () => instance.exports.memory, out.flush);
  instance = await WebAssembly.instantiate(module, {wasi_snapshot_preview1: wasi.wasiImport});
  wasi.inst = instance;
  let status = 0;
  try {
    if (wait === "jspi") await WebAssembly.promising(instance.exports._start)();
    else instance.exports._start();
  } catch (error) {
    if (!(error instanceof WASIProcExit)) throw error;
    status = error.code;
  } finally {
    out.flush();
  }
  return {code: status, lines: out.lines(), wait};
}

onmessage = async (event) => {
  let result;
  try {
    result = await run(event.data);
  } catch (error) {
    postMessage({kind: "output", lines: 0,
                 chunks: [["stderr", `\nthe WebAssembly instance stopped: ${error}\n`]]});
    result = {code: -1, lines: 0};
  }
  postMessage({kind: "exit", ...result});
};
