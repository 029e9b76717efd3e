# A package that import_local.py imports.
VERSION = 3
