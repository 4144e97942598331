"""Late-bound defaults (PEP 671) in every form a tool must handle.

The shared corpus of the ecosystem checks (make ecosystem): each third-party
tool is run on this module, stock and patched.  It is valid code for the
patched interpreter only, formatted the way PEP 8 spaces '=' in parameters
('hi=>len(a)'; with an annotation, 'x: list[int] => []').
"""

import time


def bisect_right(a, x, lo=0, hi=>len(a), *, key=None):
    """Return the index after the last item <= x in the sorted list a."""
    while lo < hi:
        mid = (lo + hi) // 2
        if x < (a[mid] if key is None else key(a[mid])):
            hi = mid
        else:
            lo = mid + 1
    return lo


def append_to(item, target: list[int] => []) -> list[int]:
    """Append item to target, a new list on each call that omits it."""
    target.append(item)
    return target


def window(a, start=>stop - 1, stop=>len(a)):
    """A default may read a parameter to its right that was passed."""
    return a[start:stop]


def stamp(message, *, when: float => time.time(), tags=>[message]):
    """Keyword-only late defaults, one reading an earlier parameter."""
    return when, tags


def spread(
    first,
    second=>first * 2,
    /,
    third: int => second + 1,
    *rest,
    fourth=>[first, second, third],
    **options,
):
    """Multi-line: positional-only, ``*args``, keyword-only, ``**kwargs``."""
    return first, second, third, rest, fourth, options


square_or = lambda x, y=>x * x: y


class Greeter:
    greeting = "Hello"

    def __init__(self, name, title=>name.title()):
        self.name = name
        self.title = title

    def greet(self, other, text=>f"{self.greeting}, {other}"):
        """A method whose default reads self."""
        return text

    @classmethod
    def make(cls, name, title=>cls.__name__ + " " + name):
        return cls(name, title)

    def describe(self, label=>__class__.__name__):
        """A default that reads the implicit __class__ cell."""
        return label


def counter(start=0, step=>1 if start >= 0 else -1):
    """A generator: its defaults run when iteration starts."""
    value = start
    while True:
        yield value
        value += step


async def fetch(url, timeout: float => 10.0, retries=>max(1, int(timeout))):
    """A coroutine with late defaults."""
    return url, timeout, retries


def outer(values):
    def inner(index=>len(values) - 1):
        return values[index]
    return inner


calls = 0


def count_call(number: int => calls) -> int:
    """The body's global declaration applies to the default: it reads the module's calls."""
    global calls
    calls += 1
    return number


def make_counter(start: int):
    count = start

    def advance(previous: int => count) -> int:
        """The body's nonlocal declaration applies to the default too."""
        nonlocal count
        count += 1
        return previous
    return advance


if __name__ == "__main__":
    assert bisect_right([1, 2, 2, 3], 2) == 3
    assert append_to(1) == [1] and append_to(2) == [2]
    assert window([1, 2, 3, 4], stop=3) == [3]
    assert stamp("m", when=1.0) == (1.0, ["m"])
    assert spread(1) == (1, 2, 3, (), [1, 2, 3], {})
    assert square_or(3) == 9
    assert Greeter("ada").greet("bob") == "Hello, bob"
    assert Greeter.make("x").title == "Greeter x"
    assert Greeter("a").describe() == "Greeter"
    assert next(counter(-5)) == -5
    assert outer([1, 2, 3])() == 3
    assert (count_call(), count_call(), calls) == (0, 1, 2)
    tick = make_counter(10)
    assert (tick(), tick(), tick(0)) == (10, 11, 0)
    print("ok")
