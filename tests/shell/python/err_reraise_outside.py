# A bare raise with no exception being handled.
try:
    pass
except ValueError:
    raise
print("no exception yet")
raise
