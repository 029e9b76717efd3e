x = 2.5
print(f"{x:{x:{x}}}")
print(f"{x:.4f")
