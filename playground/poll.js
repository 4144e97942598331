// poll_oneoff for worker.js, in place of @bjorn3/browser_wasi_shim 0.4.2's.
//
// The shim reads a clock subscription's flags at offset 36 of the 48-byte subscription;
// they are at 40 (userdata 0, tag 8, clock id 16, timeout 24, precision 32, flags 40).
// So it never sees SUBSCRIPTION_CLOCK_ABSTIME, and CPython's time.sleep (an absolute
// clock_nanosleep on CLOCK_MONOTONIC) waited for the deadline taken as a duration: the
// worker's age plus the sleep, spinning a core. ecosystem/patched/browser_wasi_shim holds
// the fix as offered upstream; this is the page's copy, with a wait that does not spin.
//
// How it waits (docs/playground.md, "time.sleep"), the first that the page allows:
// - "atomics": Atomics.wait on a SharedArrayBuffer, which a worker may block on, when the
//   page is cross-origin isolated (served with COOP and COEP headers);
// - "jspi": WebAssembly's JavaScript Promise Integration: poll_oneoff returns a promise
//   of a timer and the instance is suspended until it fires (Chromium 137 and later);
// - "spin": a loop on the clock, as the shim does (no other way to block a worker).

const SUBSCRIPTION = 48
const EVENT = 32
const EVENTTYPE_CLOCK = 0
const ABSTIME = 1
const ERRNO_SUCCESS = 0
const ERRNO_INVAL = 28
const CLOCKS = {
  0: () => BigInt(Date.now()) * 1_000_000n,                       // REALTIME
  1: () => BigInt(Math.round(performance.now() * 1_000_000)),    // MONOTONIC, as the shim's
}

export function waitKind() {
  if (globalThis.crossOriginIsolated && typeof SharedArrayBuffer === "function") {
    return "atomics"
  }
  if (typeof WebAssembly.Suspending === "function") return "jspi"
  return "spin"
}

// Reads the subscriptions, writes an event for each fd subscription (reported ready at
// once: stdin is an empty file, stdout and stderr always take more) or else for the
// clock whose deadline comes first; returns how long to wait first, in ms.
function poll(memory, inPtr, outPtr, count, neventsPtr) {
  const view = new DataView(memory.buffer)
  let first = null, ready = []
  for (let i = 0; i < count; i++) {
    const at = inPtr + i * SUBSCRIPTION
    const userdata = view.getBigUint64(at, true), tag = view.getUint8(at + 8)
    if (tag !== EVENTTYPE_CLOCK) {
      ready.push({userdata, tag})
      continue
    }
    const now = CLOCKS[view.getUint32(at + 16, true)]
    if (!now) return {errno: ERRNO_INVAL}
    const timeout = view.getBigUint64(at + 24, true)
    const absolute = (view.getUint16(at + 40, true) & ABSTIME) !== 0
    const ms = Number((absolute ? timeout - now() : timeout)) / 1e6
    if (!first || ms < first.ms) first = {userdata, tag, ms}
  }
  if (!ready.length && first) ready = [first]
  ready.forEach(({userdata, tag}, k) => {
    const at = outPtr + k * EVENT
    for (let b = 0; b < EVENT; b += 8) view.setBigUint64(at + b, 0n, true)
    view.setBigUint64(at, userdata, true)
    view.setUint16(at + 8, ERRNO_SUCCESS, true)
    view.setUint8(at + 10, tag)
  })
  view.setUint32(neventsPtr, ready.length, true)
  return {errno: ERRNO_SUCCESS, ms: ready[0] === first ? Math.max(first.ms, 0) : 0}
}

// poll_oneoff for the import object; memory() gives the instance's memory, beforeWait()
// runs before a wait (worker.js sends the output so far). With kind "jspi" it is a
// WebAssembly.Suspending import, and the instance must be started through
// WebAssembly.promising.
export function pollOneoff(kind, memory, beforeWait) {
  if (kind === "atomics") {
    const cell = new Int32Array(new SharedArrayBuffer(4))
    return (inPtr, outPtr, count, neventsPtr) => {
      if (count === 0) return ERRNO_INVAL
      const {errno, ms} = poll(memory(), inPtr, outPtr, count, neventsPtr)
      if (ms > 0) {
        beforeWait()
        Atomics.wait(cell, 0, 0, ms)
      }
      return errno
    }
  }
  if (kind === "jspi") {
    return new WebAssembly.Suspending(async (inPtr, outPtr, count, neventsPtr) => {
      if (count === 0) return ERRNO_INVAL
      const {errno, ms} = poll(memory(), inPtr, outPtr, count, neventsPtr)
      if (ms > 0) {
        beforeWait()
        await new Promise((resolve) => setTimeout(resolve, ms))
      }
      return errno
    })
  }
  return (inPtr, outPtr, count, neventsPtr) => {
    if (count === 0) return ERRNO_INVAL
    const {errno, ms} = poll(memory(), inPtr, outPtr, count, neventsPtr)
    if (ms > 0) {
      beforeWait()
      const end = performance.now() + ms
      while (performance.now() < end) { /* no other way to block */ }
    }
    return errno
  }
}
