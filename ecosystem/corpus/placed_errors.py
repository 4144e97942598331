"""Errors placed inside and after late-bound defaults, for the type checkers' probes.

Each line that must get exactly one error says which kind, as "# error: KIND"; a probe
maps each kind to its tool's name for it (ty's, pyrefly's). Code after a late default
must be checked: a parser that loses its way at "=>" silently leaves the rest of the
module unchecked, so the last error is on the last line. Not meant to run: the calls
below fail.
"""


def typed(a: int, b: str => a):  # error: default-type
    return b


def undefined(a, b=>not_defined_anywhere):  # error: undefined-name
    return b


def itself(a=>a):  # error: unbound-name
    return a


def reads_left(items: list[int], n: int => len(items)) -> int:
    return n


after_functions: int = "not an int"  # error: assignment-type


class Box:
    def __init__(self, size: int, label: str => str(size)) -> None:
        self.label = label

    def wrong(self, n: int => self.label):  # error: default-type
        return n

    def after_methods(self) -> int:
        return self.label  # error: return-type


square_or = lambda x, y=>x * x: y
reads_left([1], "two")  # error: argument-type
reads_left()  # error: missing-argument
reads_left([1])
Box(1)
square_or(3)
last: str = 1  # error: assignment-type
