import torch
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
total = 0
for i in range(4):
    if i % 2 == 0:
        total += i
    elif i == 3:
        while total < 10:
            total += 1
    else:
        pass
print(total)
