# dtypes from literals and their printing (issue 18): ints are int64,
# floats the default (float64 here), bools bool; a dtype other than the
# default, int64 and bool is named after the values.
import torch
a = torch.tensor([1, 2, 3])
print(a, a.dtype)
print(torch.tensor([1, 2.5]), torch.tensor([1.0, 2.0]).dtype)
print(torch.tensor([True, False]), torch.tensor([True, False]).dtype)
print(torch.tensor(7), torch.tensor(True), torch.tensor(-3).dtype)
print(torch.tensor([[1, -20], [300, 4]]))
print(torch.tensor([100000, -2]))
print(torch.tensor([1, 2], dtype=torch.int32))
print(torch.tensor([1.5, 2.25], dtype=torch.float32))
print(torch.tensor([[0.1, 2.0], [3.0, 4.0]], dtype=torch.float32))
print(torch.zeros(0, dtype=torch.int64), torch.zeros(0, dtype=torch.bool))
print(torch.zeros(0, dtype=torch.float32), torch.zeros(2, 0, dtype=torch.int32))
print(torch.tensor([1.5, 2.25], dtype=torch.float32, requires_grad=True))
print(torch.tensor([[True], [False]]))
print(torch.arange(5), torch.arange(1, 4), torch.arange(0, 1, 0.25), torch.arange(3.0))
print(torch.full((2,), 7), torch.full((2,), 7.0), torch.full((2,), True))
print(torch.zeros(2, dtype=torch.long), torch.ones(2, dtype=torch.int), torch.ones(2, dtype=torch.bool))
print(torch.zeros_like(a), torch.ones_like(torch.tensor([True])))
print(torch.arange(30))
x = [1, 2.5, True]
print(type(x[0]), type(x[1]), [0.95, 0], type([0.95, 0][1]))
print(f'{torch.tensor(5)}', f'{torch.tensor(2.5)=}', f'{torch.tensor(3):03d}')
