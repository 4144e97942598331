"""A private module: its public-looking names are not public API."""


def helper(items=None, *, count=None):
    if items is None:
        items = []
    if count is None:
        count = len(items)
    return items, count


CALLS = {
    "helper": [((), {}), (([1, 2],), {}), ((), {"count": 0}), (([1],), {"count": 5})],
}
