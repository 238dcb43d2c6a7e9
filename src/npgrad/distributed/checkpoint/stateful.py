"""``Stateful``: what ``save`` and ``load`` call ``state_dict()`` / ``load_state_dict()`` on (modules,
optimizers, or an application's own object holding both)."""
from typing import Protocol, TypeVar, runtime_checkable


@runtime_checkable
class Stateful(Protocol):
    def state_dict(self) -> dict:
        ...

    def load_state_dict(self, state_dict: dict) -> None:
        ...


StatefulT = TypeVar("StatefulT", bound=Stateful)

__all__ = ["Stateful", "StatefulT"]
