# Found by make fuzz: in a .py file Python's range takes the place of ag's
# creation builtin, which the trailing bare grad flag then indexed at -1.
range(3, grad)
