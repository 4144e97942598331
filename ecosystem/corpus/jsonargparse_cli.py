"""A jsonargparse command line built from a signature with late-bound defaults (PEP 671).

For the ecosystem checks (make ecosystem): `python jsonargparse_cli.py [1,2,3,4]` must
run the function's own defaults (`stop=>len(items)`, `tags=>[start]`), an option given
on the command line must still be validated against its type, and `--print_config`
must write a configuration that `--config` reads back to the same result.
"""

from jsonargparse import CLI


def window(items: list[int], start: int => 0, stop: int => len(items), tags=>[start]):
    """Print the items from start to stop, with the tags."""
    print({"window": items[start:stop], "tags": tags})


if __name__ == "__main__":
    CLI(window)
