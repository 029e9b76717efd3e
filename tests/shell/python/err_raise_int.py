# Only BaseException's classes and objects can be raised.
print("before")
raise 3
