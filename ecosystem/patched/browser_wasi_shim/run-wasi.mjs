// Runs a WASI (preview1) program under Node.js with the shim's build beside this file
// (dist/), as the package's test adapter (test/adapters/node/run-wasi.mjs) does:
// `node run-wasi.mjs TEST.wasm`; stdout and stderr are the process's, the exit status
// the program's.
import { readFile } from "node:fs/promises";
import { WASI, Fd, File, Inode, OpenFile, wasi } from "./dist/index.js";

class NodeStdout extends Fd {
  constructor(out) {
    super();
    this.out = out;
    this.ino = Inode.issue_ino();
  }

  fd_fdstat_get() {
    const fdstat = new wasi.Fdstat(wasi.FILETYPE_CHARACTER_DEVICE, 0);
    fdstat.fs_rights_base = BigInt(wasi.RIGHTS_FD_WRITE);
    return { ret: 0, fdstat };
  }

  fd_write(data) {
    this.out.write(data);
    return { ret: 0, nwritten: data.byteLength };
  }
}

const test = process.argv[2];
const fds = [new OpenFile(new File([])), new NodeStdout(process.stdout),
             new NodeStdout(process.stderr)];
const shim = new WASI([test], [], fds);
const module = await WebAssembly.compile(await readFile(test));
const instance = await WebAssembly.instantiate(module, {
  wasi_snapshot_preview1: shim.wasiImport,
});
process.exitCode = shim.start(instance);
