# torch.set_num_threads / get_num_threads, and the same results at every
# thread count (products, element-wise ops, sums, their gradients).
import torch
torch.set_num_threads(3)
print(torch.get_num_threads())
torch.manual_seed(0)
a = torch.randn(300, 200, requires_grad=True)
b = torch.randn(200, 100)
results = []
for n in [1, 2, 7]:
    torch.set_num_threads(n)
    a.grad = None
    y = torch.tanh(a @ b) * 2.0 + 1.0
    loss = y.sum()
    loss.backward()
    results.append((y.detach().clone(), loss.item(), a.grad.clone()))
print(all(torch.equal(r[0], results[0][0]) for r in results))
print(all(r[1] == results[0][1] for r in results))
print(all(torch.equal(r[2], results[0][2]) for r in results))
print(torch.get_num_threads())
