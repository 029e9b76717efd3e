# An exception class of one's own, with its own __str__, not caught.
class ShapeError(Exception):
    def __init__(self, got, want):
        super().__init__(got, want)
        self.got, self.want = got, want

    def __str__(self):
        return f"got {self.got}, want {self.want}"


try:
    raise ShapeError(3, 4)
except ShapeError as e:
    print("caught:", e, e.args)
raise ShapeError(5, 6)
