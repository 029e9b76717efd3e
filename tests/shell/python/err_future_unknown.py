# an unknown __future__ feature is Python's SyntaxError
from __future__ import print_function
from __future__ import nonsense
