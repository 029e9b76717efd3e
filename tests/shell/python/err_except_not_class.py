# An except clause's type must be an exception class.
try:
    1 / 0
except 3:
    print("never")
