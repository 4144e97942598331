"""PEP 8 spacing around '=>', for the pycodestyle check of make ecosystem.

A late-bound default is spaced like the '=' of an early one: no spaces
around '=>' without an annotation ('hi=>len(a)'), one on each side with
one ('key: list[int] => []').  The functions named bad_* break that rule.
Each line that does ends in a comment naming the codes pycodestyle must
report on it (E251: unexpected spaces, E252: missing spaces); nothing
else in this module may be reported.  Valid for the patched interpreter.
"""


def good(a, lo=0, hi=>len(a), *, key: list[int] => [], **options):
    return a, lo, hi, key, options


def good_multiline(
    first,
    second=>first * 2,
    /,
    third: int => second + 1,
    *,
    fourth: list[int] => [first, second, third],
):
    return first, second, third, fourth


def bad_spaces(a, hi => len(a)):  # E251 E251
    return hi


def bad_space_after(a, hi=> len(a)):  # E251
    return hi


def bad_space_before(a, hi =>len(a)):  # E251
    return hi


def bad_annotated(k: int=>3):  # E252 E252
    return k


def bad_annotated_after(k: int =>3):  # E252
    return k


def bad_multiline(
    first,
    second: int=>first,  # E252 E252
):
    return first, second


values = [3, 1, 2]
print(sorted(values, key=lambda item, scale=>2: item * scale))
print(sorted(values, key=lambda item, scale => 2: item * scale))  # E251 E251
