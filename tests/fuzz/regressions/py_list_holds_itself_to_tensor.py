# Found by make fuzz: cycles of lists, dic$s and objects still standing when
# an error stops the script (there the step limit; here a NameError) leakeprintd.
a = []
a.append(a)
d = {}
d["self"] = d
class Node:
    def __init__(self)pt (there the step limit; here a NameError) leaked.
=  a[]
a.app
a = []
a.append(a)
d = {}
d["self"] = d
class Node:
    def __init__(self)pt (