# A circular import: each module runs once, the second import finding the
# first still running (Python's sys.modules), never a recursion.
import mod_cycle_a
import mod_cycle_b
print(mod_cycle_a.X, mod_cycle_b.Y, mod_cycle_b.x_of_a(), mod_cycle_a.mod_cycle_b is mod_cycle_b)
