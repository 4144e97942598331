"""`=> ...` as a placeholder outside stubs: in overloads, protocols and abstract methods,
where `= ...` is one, a checker must accept it as it accepts `= ...`."""

from abc import ABC, abstractmethod
from typing import Protocol, overload


@overload
def scale(value: int, factor: int => ...) -> int: ...
@overload
def scale(value: float, factor: float => ...) -> float: ...
def scale(value, factor=>value):
    return value * factor


class Sized(Protocol):
    def size(self, unit: str => ...) -> int: ...


class Shape(ABC):
    @abstractmethod
    def area(self, scale: float => ...) -> float: ...


class Square(Shape):
    def __init__(self, side: float) -> None:
        self.side = side

    def area(self, scale: float => 1.0) -> float:
        return self.side * self.side * scale


if __name__ == "__main__":
    assert scale(3) == 9 and scale(2.0, 0.5) == 1.0
    assert Square(2).area() == 4
    print("ok")
