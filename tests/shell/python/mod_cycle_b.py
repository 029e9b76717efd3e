# imports mod_cycle_a back: a circular import, as Python allows it
import mod_cycle_a
Y = 2


def x_of_a():
    return mod_cycle_a.X
