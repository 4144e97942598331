"""A python-fire command line whose function has late-bound defaults (PEP 671).

For the ecosystem checks (make ecosystem): `python fire_cli.py [1,2,3,4]` must print the
items from `start=>0` to `stop=>len(items)`, as the function computes them, and
`python fire_cli.py -- --help` must show each default as the expression it is computed
with (`=>len(items)`), not as a value.
"""

import fire


def window(items, start=>0, *, stop=>len(items)):
    """The items from start to stop."""
    return items[start:stop]


if __name__ == "__main__":
    fire.Fire(window)
