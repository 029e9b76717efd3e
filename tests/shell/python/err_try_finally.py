# finally runs, then the exception goes on up from where it was raised.
def step(i):
    try:
        print("step", i)
        if i == 2:
            raise ValueError("diverged at step 2")
    finally:
        print("cleanup", i)


for i in range(4):
    step(i)
