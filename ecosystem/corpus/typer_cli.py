"""A Typer command line whose options have late-bound defaults (PEP 671).

For the ecosystem checks (make ecosystem): `python typer_cli.py NAME` must run the
function's own defaults ("Hello, NAME (x<len(NAME)>)"), and `--help` must show each
default as the expression it is computed with (`=>len(name)`), not as a value.
"""

from typing import Annotated

import typer

app = typer.Typer()


@app.command()
def greet(
    name: str,
    greeting: str => f"Hello, {name}",
    times: Annotated[int, typer.Option(help="How many greetings.")] => len(name),
):
    """Greet NAME."""
    typer.echo(f"{greeting} (x{times})")


if __name__ == "__main__":
    app()
