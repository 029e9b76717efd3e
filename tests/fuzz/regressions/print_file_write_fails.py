# print(file=obj) whose write fails (it takes no self): the error, and the
# text made for it released (found by the fuzzer: it leaked).
class Collect:
    def write(t):
        d(t)
c = Collect()
print(file=c)
