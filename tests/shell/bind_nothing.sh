# Binding the result of a call that returned nothing is an error in .ag, as
# docs/language.md says (issue 22 item 9: it bound None, so the mistake
# showed later as "the left operand of '+' is None ... (no gradient yet?)");
# print(f()) still prints None. A .py file follows Python: None.
p() { $AG "$@" 2>&1; echo "[exit $?]"; }
p -e 'nothing(x) { y = x }' -e 'print(nothing(1))' -e 'y = nothing(1)' -e 'print("not reached")'
p -e 'sign(v) { if v < 0 { return -1 } }' -e 'a = sign(-2)' -e 'print(a)' -e 'b = sign(2)'
printf 'def nothing(x):\n    y = x\n\ny = nothing(1)\nprint(y)\n' | p --python -
