# str.split and rsplit with maxsplit, partition, rpartition, removeprefix,
# removesuffix, isalnum, isdecimal, isnumeric, isascii: CPython's results over
# texts with runs of spaces, separators at the ends and empty pieces.
cases = ["a b  c", "  a b c  ", "", "   ", "a,b,,c", ",a,", "abc", "a\tb\nc d"]
for t in cases:
    for sep in (None, ",", " ", "b", ",,"):
        for m in (-1, 0, 1, 2, 5):
            print(repr(t), repr(sep), m, t.split(sep, m), t.rsplit(sep, m), t.split(sep, maxsplit=m), t.rsplit(maxsplit=m, sep=sep))
    print(t.split(), t.rsplit(), t.partition(","), t.rpartition(","), t.partition("b"), t.rpartition(" "))
    print(t.removeprefix("a"), t.removesuffix("c"), t.removeprefix(""), t.isalnum(), t.isdecimal(), t.isnumeric(), t.isascii())
print("x1".isalnum(), "x 1".isalnum(), "é".isascii(), "12".isdecimal())
for bad in (lambda: "a".split(""), lambda: "a".partition(""), lambda: "a".rsplit("", 1), lambda: "a".split(",", "x")):
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e if type(e) is ValueError else "")
