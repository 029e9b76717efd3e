# f-strings with the format-spec mini-language.
import torch
loss = torch.tensor(0.5)
i = 7
print(f"step {i:3d} loss {loss.item():.4f} {loss:.2f} {i!r} {'s'!r}")
print(f"{3.14159:8.3f}|{42:>6}|{42:<6}|{42:^7}|{1234567:,}|{0.25:.1%}|{255:x}|{5:05d}")
print(f"{1e-7:.2e} {123.456:g} {'abc':>5}|{'abc':.2}|{{braces}}")
name = "w"
print(f"{name}={i * 2}")
