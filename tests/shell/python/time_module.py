# Python's time module: the clocks a script times its training with.
import time
from time import perf_counter
t0 = time.perf_counter()
total = 0
for i in range(1000):
    total += i
t1 = perf_counter()
print(type(t0).__name__, t1 >= t0, total)
print(type(time.perf_counter_ns()).__name__, type(time.monotonic_ns()).__name__)
print(type(time.time()).__name__, time.time() > 1.7e9, time.time_ns() > 1.7e18)
print(type(time.monotonic()).__name__, type(time.process_time()).__name__)
print(f'{time.perf_counter() - t0 < 60}')
time.sleep(0)
