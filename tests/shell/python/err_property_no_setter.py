# Assigning to a property with no setter is CPython's AttributeError.
class Box:
    def __init__(self, w):
        self._w = w

    @property
    def width(self):
        return self._w


b = Box(3)
print(b.width)
b.width = 4
