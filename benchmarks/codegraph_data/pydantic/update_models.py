"""Partial updates with exclude_unset and model_copy."""

from pydantic import BaseModel


class Item(BaseModel):
    name: str
    price: float
    stock: int = 0


class ItemUpdate(BaseModel):
    name: str | None = None
    price: float | None = None
    stock: int | None = None


def apply(item: Item, patch: ItemUpdate) -> Item:
    changes = patch.model_dump(exclude_unset=True)
    return item.model_copy(update=changes)


def main() -> None:
    item = Item(name="tea", price=3.5)
    updated = apply(item, ItemUpdate(price=4.0))
    print(updated.price, updated.stock, item.model_fields_set)
    print(Item.model_fields["price"].annotation)


if __name__ == "__main__":
    main()
