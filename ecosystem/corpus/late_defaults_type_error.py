"""A module with exactly one type error, in a late-bound default (PEP 671).

For type checkers (make ecosystem): 'fill' is declared str but its late default
reads the int parameter 'width' to its left.  A checker that evaluates late
defaults in the function's scope and against the declared type reports that
default, and nothing else: 'width=>len(text)' reads a parameter, 'seen' needs no
None in its annotation, and 'Table.row' reads self.
"""


def pad(text: str, width: int => len(text), fill: str => width) -> str:
    return text.ljust(width, fill)


def collect(item: int, seen: list[int] => []) -> list[int]:
    seen.append(item)
    return seen


class Table:
    def __init__(self, columns: int) -> None:
        self.columns = columns

    def row(self, cells: list[str] => [""] * self.columns) -> str:
        return " | ".join(cells)


if __name__ == "__main__":
    assert collect(1) == [1] and collect(2) == [2]
    assert Table(2).row() == " | "
    assert pad("ab", 4, "*") == "ab**"
    try:
        pad("ab")
    except TypeError:
        print("ok: the default of 'fill' is an int, as the type checker says")
