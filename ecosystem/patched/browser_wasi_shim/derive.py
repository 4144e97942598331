"""Apply poll-oneoff.patch's change of src/*.ts to the tarball's dist/*.js.

pin.toml's [package] prepare runs this at the top of the unpacked npm tarball of
@bjorn3/browser_wasi_shim 0.4.2, in the patched variant only (the patch, in the
repository's form, applies to none of the tarball's files: pin.toml's not_in_release).
Each statement of the release's minified dist/ that the patch changes is replaced by what
swc makes of the patched source; each must be found exactly once.

    python3 derive.py

Standard library only.
"""

from __future__ import annotations

import sys
from pathlib import Path

CHANGES = {
    "dist/wasi_defs.js": [
        # Subscription.read_bytes: the flags follow the u64 precision at ptr + 32
        ("view.getUint16(ptr+36,true)", "view.getUint16(ptr+40,true)"),
    ],
    "dist/wasi.js": [
        ("poll_oneoff(in_ptr,out_ptr,nsubscriptions){",
         "poll_oneoff(in_ptr,out_ptr,nsubscriptions,nevents_ptr){"),
        ("while(endTime>getNow()){}",
         "const ms=Number(endTime-getNow())/1e6;if(ms>0){try{Atomics.wait("
         "new Int32Array(new SharedArrayBuffer(4)),0,0,ms)}catch(e){}}"
         "while(endTime>getNow()){}"),
        ("event.write_bytes(buffer,out_ptr);return wasi.ERRNO_SUCCESS}",
         "event.write_bytes(buffer,out_ptr);buffer.setUint32(nevents_ptr,1,true);"
         "return wasi.ERRNO_SUCCESS}"),
    ],
}


def main() -> int:
    for name, changes in CHANGES.items():
        path = Path.cwd() / name
        text = path.read_text(encoding="utf-8")
        for old, new in changes:
            if text.count(old) != 1:
                print(f"{name}: {old!r} found {text.count(old)} times, not once",
                      file=sys.stderr)
                return 1
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")
        print(f"{name}: {len(changes)} change(s) of poll-oneoff.patch applied")
    return 0


if __name__ == "__main__":
    sys.exit(main())
