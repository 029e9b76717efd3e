# Found by make fuzz: cycles of lists, dicts and objects still standing when
# an error stops the script (there the step limit; here a NameError) leaked.
a = []
a.append(a)
d = {}
d["self"] = d
class Node:
    def __init__(self):
        self.me = self
        self.m = self.method
    def method(self):
        return 1
n = Node()
top = Node()
top.kids = [top, [top]]
print(len(a), n.m())
undefined_name
