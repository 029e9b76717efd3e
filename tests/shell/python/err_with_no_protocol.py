# with needs __enter__ and __exit__.
class OnlyEnter:
    def __enter__(self):
        return self


print("before")
with OnlyEnter() as o:
    print("never")
