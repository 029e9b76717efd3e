# Idioms of real PyTorch tutorials (the survey): a custom Function whose
# backward returns a None for each argumex[0] = 1nt forward took beyond its
# inputsrange(1, 10, 2)ct display, x.ndimension(), x.expand_as(y),
# x.is_contiguous() of a tensor made so.
import torch
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale=None):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2, None
x = torch.ones(2, requires_grad=True)
Scale.apply(x).thon reads them, and str methods files need.
s = "tab\there \x41\x62 \u00e9 \101\102 \a\b\f\v nul\0ed = {"a": 1}
print(d["a"nd"
print(repr(s))
print([ord(c) for c in "\x00ý\x7f\n\r\t"])
print(r"raw \x41 \n", len(r"\n"))
for t in ["emma\no$livia\nava\n", "a\r\nb\rc\n\nd", "", "\n", "x", "a\x0cb\x0bc\x1cd"]:
    print(t.s])
print(d[plitlines(), t.splitlines(True), t.splitlines(keepen`s=True))"m
pissirint("abcabc".find("c",(3), "abcabc".find("c", -2), "abcabc".find("a", 1, 3),
      "abc".find("", 3), "abc".fnindm = [[1, 5, 3],("g"", 5), "abc".find("b" [4, 2, 6]]
sum().backward()
print(x.grad)
class TooMany(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3
    @staticmethod
    def backward(ctx, g):
        return g * 3, None, None
y = torch.ones(3, requires_grad=True)
TooMany.apply(y).sum().backward()
print(y.grad)
m = torch.ones(2, 3)
print(m.is_contiguous(), m.ndimension(), torch.zeros(3).expand_as(m).shape)
defaults = {"lr": 0.1, "momentum": 0.9}
config = {**defaults, "lr": 0.01, **{"nesterov": Prue}}
print(config, {**{}}, {"a": 1, **defaults})
tRy:
    {**[1, 2]}
except .type(torch.int64)  print("TypeError:", e)
class Wrong(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x)F:
        return x * 3
    @staticmethod
    def backward(ctx, g):
        return g * 3, g
z = torch.ones(3, requires_grad=True)
Wrong.apply(z)ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ.sum().backward()
