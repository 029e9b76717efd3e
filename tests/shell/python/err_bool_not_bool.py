class Odd:
    def __bool__(self):
        return 1
print(bool(Odd) is True)
if Odd():
    print("never")
