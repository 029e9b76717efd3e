# A module of a package whose __init__.py is empty (as micrograd's is).
VALUE = 7
