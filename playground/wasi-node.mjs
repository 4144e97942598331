// Runs build/wasm/python.wasm under Node.js's WASI (preview1), for tools.wasm and the
// tests: `node wasi-node.mjs CONFIG`, CONFIG a JSON object with wasm (path), args,
// env (object) and preopens (guest directory -> host directory). Exits with
// Python's exit status.
import { readFile } from "node:fs/promises";
import { argv, exit } from "node:process";
import { WASI } from "node:wasi";

const config = JSON.parse(argv[2]);
const wasi = new WASI({
  version: "preview1",
  args: config.args,
  env: config.env,
  preopens: config.preopens,
  returnOnExit: true,
});
const module = await WebAssembly.compile(await readFile(config.wasm));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
exit(wasi.start(instance));
