# Type annotations (parameters, returns, variables, class attributes) are
# left out, as CPython leaves them to tools; typing's names import.
from typing import List, Optional, Tuple, Dict
import typing


def pairs(xs: List[int], scale: Optional[float] = None) -> List[Tuple[int, int]]:
    return [(x, x * 2) for x in xs]


Vector = List[float]
cache: Dict[str, int] = {}
print(pairs([1, 2]), typing.TYPE_CHECKING)
import torch
import torch.nn as nn


def f(x: int, y: float = 2.0) -> float:
    return x + y


n: int = 4
m: float
print(f(n), f(1, y=3.5))


class Net(nn.Module):
    hidden: int = 8

    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.lin: nn.Linear = nn.Linear(d_in, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lin(x).relu()


def total(*values: float, **named: int) -> float:
    return sum(values) + sum(named.values())


torch.manual_seed(0)
net = Net(3, 2)
print(net(torch.ones(1, 3)), Net.hidden, total(1.0, 2.0, a=3))
lam = lambda z: z * 2
scores: dict = {'a': 1}
scores['b']: int = 2
print(lam(3), scores)
