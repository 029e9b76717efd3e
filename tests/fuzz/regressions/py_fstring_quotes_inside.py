x = 1
print(f"{f'{f"{x}"}'}")
print(f'{x:\n}')
print(f"{'{'}{x#}")
