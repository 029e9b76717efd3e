# imports mod_cycle_b, which imports this module back (import_circular.py)
import mod_cycle_b
X = 1
