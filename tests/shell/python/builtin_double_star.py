# **dict to builtins (d2l's trainer_fn(params, **hyperparams)), and
# str.format's named fields; the TypeErrors of a wrong ** argument.
import torch

hyperparams = {"lr": 0.1, "momentum": 0.9}
w = torch.tensor([1.0, 2.0], requires_grad=True)
opt = torch.optim.SGD([w], **hyperparams)
for _ in range(2):
    opt.zero_grad()
    (w * w).sum().backward()
    opt.step()
print(w)
print(torch.zeros(2, **{"dtype": torch.float32}), torch.ones(2, 3).sum(**{"dim": 1}))
d = {"a": 1, "b": 2}
print(dict(**d), dict(d, c=3, **{"e": 5}), "{a}-{b}".format(**d), "{0} {x}".format(7, **{"x": 8}))
print("{name}: {value:.3f}".format(name="loss", value=0.123456), "{} {}".format(1, 2))
print(sorted([3, 1, 2], **{"reverse": True}), max([1, 5], **{}), round(2.567, **{"ndigits": 1}))
for bad in (lambda: sorted([1], reverse=True, **{"reverse": False}), lambda: "{q}".format(a=1),
            lambda: torch.zeros(2, **[1])):
    try:
        bad()
    except (TypeError, KeyError) as e:
        print(type(e).__name__)
