# A bare except must come last.
try:
    x = 1
except:
    pass
except ValueError:
    pass
