# Source: CS231n, "Python Numpy Tutorial (with Jupyter and Colab)" by Justin
#   Johnson: the "Classes" section
#   https://cs231n.github.io/python-numpy-tutorial/
#   https://github.com/cs231n/cs231n.github.io/blob/master/python-numpy-tutorial.md
#   (MIT licence)
# Changed: nothing (the tutorial's "# Prints ..." comments kept).

class Greeter(object):

    # Constructor
    def __init__(self, name):
        self.name = name  # Create an instance variable

    # Instance method
    def greet(self, loud=False):
        if loud:
            print('HELLO, %s!' % self.name.upper())
        else:
            print('Hello, %s' % self.name)

g = Greeter('Fred')  # Construct an instance of the Greeter class
g.greet()            # Call an instance method; prints "Hello, Fred"
g.greet(loud=True)   # Call an instance method; prints "HELLO, FRED!"
