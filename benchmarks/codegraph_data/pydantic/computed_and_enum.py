"""Computed fields and enums."""

from enum import StrEnum

from pydantic import BaseModel, computed_field


class Unit(StrEnum):
    KG = "kg"
    LB = "lb"


class Parcel(BaseModel):
    weight: float
    unit: Unit = Unit.KG

    @computed_field
    @property
    def weight_kg(self) -> float:
        return self.weight if self.unit is Unit.KG else self.weight * 0.4536


def main() -> None:
    parcel = Parcel(weight=10, unit="lb")
    print(parcel.weight_kg, parcel.unit.value)
    print(parcel.model_dump())


if __name__ == "__main__":
    main()
