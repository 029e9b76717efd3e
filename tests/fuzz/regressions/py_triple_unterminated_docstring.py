def f():
    '''a docstring
    that never ends
    return 1
