# Messages that said something false (issue 22 item 12): 2**63 is an
# integer, not a fraction; ["a"] said only "a string"; lr=nan is given, not
# missing; cat([], 0) has no item 2. range(10**18) already names its range.
p() { $AG "$@" 2>&1; echo "[exit $?]"; }
p -e 'x = tensor([1., 2., 3.])' -e 'x[2**63]'
p -e 'x = tensor([1., 2., 3.])' -e 'x[1:2**63]'
p -e 'range(10**18)'
p -e 'x = ["a"]'
p -e 'x = [[1, "a"]]'
p -e 'w = tensor([1.], requires_grad=True)' -e 'SGD([w], lr=nan)'
p -e 'cat([], 0)'
