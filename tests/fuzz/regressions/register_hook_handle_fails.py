# A register_hook whose handle cannot be made (the fuzzer's step budget spent
# by the loop): the handle's class was kept by a reference never released,
# and with it torch.autograd's source, after the session (found by the fuzzer
# across two sessions).
import torch
v = torch.tensor([0.], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)
for i in range(20000):
    pass
h = v.register_hook(lambda grad: grad * 2)
print(h is not None)
