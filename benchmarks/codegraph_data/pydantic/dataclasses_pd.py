"""Pydantic dataclasses and validate_call."""

from pydantic import validate_call
from pydantic.dataclasses import dataclass


@dataclass
class Point:
    x: float
    y: float = 0.0


@validate_call
def distance(a: Point, b: Point) -> float:
    return ((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5


def main() -> None:
    print(distance(Point(0, 0), Point(3, 4)))
    print(Point(x="1.5"))


if __name__ == "__main__":
    main()
