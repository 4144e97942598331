"""Threads that call functions with late-bound defaults while others rewrite them.

    <free-threaded python> tools/check/tsan_workload.py [--seconds N] [--seed S] [--threads N]

The program tools.check.tsan runs on the free-threaded build under ThreadSanitizer
(any interpreter of the series runs it, GIL or not: the functions are compiled
from a string, so that this file parses on the Python that runs tools/ too;
--idiom runs the same functions written with the None idiom, on any Python).
Callers call, with their late-bound parameters left out, passed, or passed the
late-default object: positional and keyword-only late defaults, a late default
that reads a cell the callers rebind, a late-bound parameter that is itself a
cell (an inner function captures it), generators, and methods. Mutators, one
at a time (see Workload.__init__), meanwhile assign __defaults__,
__kwdefaults__ (and change it in place, its values and its keys) and
__code__ among values that each fit the calls (two codes of one signature
per family), and rebind the cell a late default reads.

Every result is checked against what any of those assignments could give; a
result none of them gives, or an exception in a caller, is printed as WRONG
and the exit status is 1. The
summary line counts calls, assignments and wrong results.
"""

import argparse
import collections
import faulthandler
import os
import random
import sys
import threading
import time

SHARED_VALUES = (0, 10, 20)  # what the cell that reads_shared reads may hold

# The functions, compiled at run time so that this file also parses on the
# Python that runs tools/ (it has no `=>`).  Each family's functions share one
# signature, so that any of their code objects fits any of their functions.
SOURCE = r'''
def make(shared):
    def rebind(value):
        nonlocal shared
        shared = value
    def pos_a(a, b=>len(a)):
        return ('a', b)
    def pos_b(a, b=>len(a) * 2):
        return ('b', b)
    def kw_a(a, *, k=>a + 1, m=>k * 10):
        return ('a', k, m)
    def kw_b(a, *, k=>a - 1, m=>k * 100):
        return ('b', k, m)
    def cell_param(a, b=>a * 3):
        inner = lambda: b
        return inner()
    def reads_shared(a, b=>shared[0] + a):
        return b
    def gen(a, b=>[a] * 2):
        yield len(b)
        yield b[0]
    class C:
        def meth(self, a, b=>(self, a)):
            return b[1]
    return pos_a, pos_b, kw_a, kw_b, cell_param, reads_shared, gen, C, rebind
'''

# The same functions written with the None idiom that defines the semantics
# (None standing for the late-default object), for the unpatched baseline:
# tools.check.tsan runs both, and a report the baseline gives too is upstream's.
IDIOM_SOURCE = r'''
def make(shared):
    def rebind(value):
        nonlocal shared
        shared = value
    def pos_a(a, b=None):
        if b is None:
            b = len(a)
        return ('a', b)
    def pos_b(a, b=None):
        if b is None:
            b = len(a) * 2
        return ('b', b)
    def kw_a(a, *, k=None, m=None):
        if k is None:
            k = a + 1
        if m is None:
            m = k * 10
        return ('a', k, m)
    def kw_b(a, *, k=None, m=None):
        if k is None:
            k = a - 1
        if m is None:
            m = k * 100
        return ('b', k, m)
    def cell_param(a, b=None):
        if b is None:
            b = a * 3
        inner = lambda: b
        return inner()
    def reads_shared(a, b=None):
        if b is None:
            b = shared[0] + a
        return b
    def gen(a, b=None):
        if b is None:
            b = [a] * 2
        yield len(b)
        yield b[0]
    class C:
        def meth(self, a, b=None):
            if b is None:
                b = (self, a)
            return b[1]
    return pos_a, pos_b, kw_a, kw_b, cell_param, reads_shared, gen, C, rebind
'''


def build(shared, source=SOURCE):
    namespace = {}
    exec(compile(source, "<tsan workload>", "exec"), namespace)
    return namespace["make"](shared)


class Workload:
    def __init__(self, seed, source=SOURCE):
        self.shared = [SHARED_VALUES[0]]
        (self.pos_a, self.pos_b, self.kw_a, self.kw_b, self.cell_param,
         self.reads_shared, self.gen, self.C, self.rebind) = build(self.shared, source)
        self.late_pos = self.pos_a.__defaults__
        self.late_kw = dict(self.kw_a.__kwdefaults__)
        # Every value assigned is made here and kept alive: CPython 3.13's
        # free-threaded build frees a replaced __defaults__, __kwdefaults__ or
        # __code__ while a call in another thread may be reading it, and
        # crashes within minutes (unpatched too) when the values are new.
        # And one mutator assigns at a time (assigning): two setters of one
        # attribute both release the value they replace (Py_XSETREF, with no
        # lock in 3.13), so that a value kept alive here loses a reference
        # each time they meet, until it is freed while still in use. The
        # unpatched interpreter has the same race; a 30-minute run of the
        # series crashed on it, in a use-after-free of the tuple `(7,)`.
        self.kw_pool = [dict(self.late_kw), {'k': 70, 'm': 700},
                        {'k': self.late_kw['k'], 'm': 700},
                        {'m': self.late_kw['m'], 'k': 70}]
        self.codes = (self.pos_a.__code__, self.pos_b.__code__)
        self.kw_codes = (self.kw_a.__code__, self.kw_b.__code__)
        self.seed = seed
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.assigning = threading.Lock()
        self.calls = 0
        self.assignments = 0
        self.wrong = collections.Counter()  # what went wrong -> how often

    # What each call may return, whichever assignments it saw.
    def pos_results(self, a):
        return {('a', len(a)), ('b', 2 * len(a)), ('a', 7), ('b', 7)}

    def kw_results(self, a):
        # The tag, k's expression and m's come from one code; k and m from
        # any of the __kwdefaults__ assigned (70 and 700 are the early ones).
        out = set()
        for tag, k_late, m_factor in (('a', a + 1, 10), ('b', a - 1, 100)):
            for k in (k_late, 70):
                for m in (k * m_factor, 700):
                    out.add((tag, k, m))
        return out

    def record(self, what):
        with self.lock:
            self.wrong[what] += 1

    def check(self, what, got, allowed):
        if got not in allowed:
            self.record(f"{what}: {got!r}")

    def caller(self, index):
        rng = random.Random(self.seed * 1000 + index)
        calls = 0
        obj = self.C()
        while not self.stop.is_set():
            try:
                self.call(rng, obj)
            except Exception as exc:  # any exception is a wrong result
                self.record(f"a call raised {type(exc).__name__}: {exc}")
            calls += 1
        with self.lock:
            self.calls += calls

    def call(self, rng, obj):
        a = 'x' * rng.randrange(1, 5)
        n = rng.randrange(1, 9)
        choice = rng.randrange(8)
        if choice == 0:
            self.check("pos_a(a)", self.pos_a(a), self.pos_results(a))
        elif choice == 1:
            self.check("pos_a(a, late)", self.pos_a(a, self.late_pos[0]),
                       self.pos_results(a))
        elif choice == 2:
            self.check("kw_a(n)", self.kw_a(n), self.kw_results(n))
        elif choice == 3:
            self.check("kw_a(n, k=1)", self.kw_a(n, k=1)[1:], {(1, 10), (1, 100),
                                                              (1, 700)})
        elif choice == 4:
            self.check("cell_param(n)", self.cell_param(n), {n * 3})
        elif choice == 5:
            self.check("reads_shared(n)", self.reads_shared(n),
                       {n + v for v in SHARED_VALUES})
        elif choice == 6:
            self.check("gen(n)", tuple(self.gen(n)), {(2, n)})
        else:
            self.check("C().meth(n)", obj.meth(n), {n})

    def mutator(self, index):
        rng = random.Random(self.seed * 1000 + 500 + index)
        count = 0
        while not self.stop.is_set():
            try:
                with self.assigning:
                    self.mutate(rng)
            except Exception as exc:  # a mutation that fails is a wrong result too
                self.record(f"a mutation raised {type(exc).__name__}: {exc}")
            count += 1
            if count % 64 == 0:
                time.sleep(0)
        with self.lock:
            self.assignments += count

    def mutate(self, rng):
        choice = rng.randrange(8)
        if choice == 0:
            self.pos_a.__defaults__ = rng.choice([self.late_pos, (7,)])
        elif choice == 1:
            self.pos_a.__code__ = rng.choice(self.codes)
        elif choice == 2:
            self.kw_a.__kwdefaults__ = rng.choice(self.kw_pool)
        elif choice == 3:
            self.kw_a.__code__ = rng.choice(self.kw_codes)
        elif choice == 4:
            # in place, while calls read the dict
            kwdefaults = self.kw_a.__kwdefaults__
            kwdefaults['k'] = rng.choice([self.late_kw['k'], 70])
            kwdefaults['m'] = rng.choice([self.late_kw['m'], 700])
        elif choice == 5:
            self.rebind([rng.choice(SHARED_VALUES)])
        elif choice == 6:
            # in place, a key that no parameter has, added and removed: the
            # entries no longer match the parameters while calls are hot
            kwdefaults = self.kw_a.__kwdefaults__
            if 'extra' in kwdefaults:
                del kwdefaults['extra']
            else:
                kwdefaults['extra'] = None
        else:
            self.cell_param.__defaults__ = self.cell_param.__defaults__


# A caller or a mutator stops at its next iteration once the time is up; one
# that has not stopped this long after is hung.
JOIN_SECONDS = 300
HUNG = f"a thread still running {JOIN_SECONDS} s after the end"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=4, help="callers (mutators: half)")
    ap.add_argument("--idiom", action="store_true",
                    help="the None-idiom functions (for an interpreter without `=>`)")
    args = ap.parse_args(argv)
    faulthandler.enable()   # a crash shows every thread's Python stack
    work = Workload(args.seed, IDIOM_SOURCE if args.idiom else SOURCE)
    threads = [threading.Thread(target=work.caller, args=(i,)) for i in range(args.threads)]
    threads += [threading.Thread(target=work.mutator, args=(i,))
                for i in range(max(1, args.threads // 2))]
    for t in threads:
        t.start()
    time.sleep(args.seconds)
    work.stop.set()
    deadline = time.monotonic() + JOIN_SECONDS
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    if any(t.is_alive() for t in threads):
        # A thread that does not stop is hung (a call or an assignment that
        # never returns): a wrong result, with every thread's stack to read.
        work.wrong[HUNG] += 1
        faulthandler.dump_traceback(all_threads=True)
    for what, count in work.wrong.most_common():
        print(f"WRONG {what} (x{count})")
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    print(f"tsan workload: {work.calls} calls, {work.assignments} assignments, "
          f"{sum(work.wrong.values())} wrong results, {len(threads)} threads, seed {args.seed}, "
          f"GIL {'on' if gil else 'off'}")
    return 1 if work.wrong else 0


if __name__ == "__main__":
    status = main()
    # os._exit: under ThreadSanitizer the free-threaded interpreter's last
    # collection at exit walks every mimalloc page for many minutes (the
    # unpatched build as well), and nothing is left to do after the report.
    sys.stdout.flush()
    os._exit(status)
