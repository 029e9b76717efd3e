# String escapes as CPython reads them, and str methods files need.
s = "tab\there \x41\x62 \u00e9 \101\102 \a\b\f\v nul\0end"
print(repr(s))
print([ord(c) for c in "\x00\x7f\n\r\t"])
print(r"raw \x41 \n", len(r"\n"))
for t in ["emma\nolivia\nava\n", "a\r\nb\rc\n\nd", "", "\n", "x", "a\x0cb\x0bc\x1cd"]:
    print(t.splitlines(), t.splitlines(True), t.splitlines(keepends=True))
print("abcabc".find("c", 3), "abcabc".find("c", -2), "abcabc".find("a", 1, 3),
      "abc".find("", 3), "abc".find("", 5), "abc".find("b", None, 1))
