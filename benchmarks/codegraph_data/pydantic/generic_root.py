"""Generic models and root models."""

from typing import Generic, TypeVar

from pydantic import BaseModel, RootModel

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]
    total: int


class Tags(RootModel[list[str]]):
    pass


def main() -> None:
    page = Page[int](items=[1, 2], total=2)
    print(page.items, page.total)
    tags = Tags(["a", "b"])
    print(tags.root, tags.model_dump())


if __name__ == "__main__":
    main()
