# time.sleep of a negative length: Python's ValueError, on its line.
import time
time.sleep(0)
print("slept")
time.sleep(-1)
print("not reached")
