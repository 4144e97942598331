// The probe's check: poll_oneoff of the shim's build beside this file (dist/), called as
// wasi-libc's clock_nanosleep calls it for an absolute deadline 0.1 s ahead on
// CLOCK_REALTIME (SUBSCRIPTION_CLOCK_ABSTIME set): prints the seconds it took, as JSON.
import { WASI, wasi } from "./dist/index.js";

const memory = new WebAssembly.Memory({ initial: 1 });
const shim = new WASI([], [], []);
shim.inst = { exports: { memory } };
const view = new DataView(memory.buffer);
const deadline = BigInt(Date.now() + 100) * 1_000_000n;
view.setBigUint64(0, 7n, true);                        // userdata
view.setUint8(8, wasi.EVENTTYPE_CLOCK);                // tag
view.setUint32(16, wasi.CLOCKID_REALTIME, true);       // clock id
view.setBigUint64(24, deadline, true);                 // timeout
view.setBigUint64(32, 0n, true);                       // precision
view.setUint16(40, wasi.SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME, true);  // flags
const start = performance.now();
const errno = shim.wasiImport.poll_oneoff(0, 64, 1, 128);
console.log(JSON.stringify({ errno, seconds: (performance.now() - start) / 1000,
                             userdata: Number(view.getBigUint64(64, true)) }));
