# plot(f, a, b) where f returns more than one number is an error that frees
# what f returned: :mem shows no tensor left alive after it (the checked
# run goes on after an error; its report of the :mem line is kept).
tmp=${TMPDIR:-/tmp}/ag-plot-leak.$$
trap 'rm -f "$tmp"' EXIT
cat >"$tmp" <<'AG'
f(x) = stack([x, x])
plot(f, 0, 1)  # expect error: must return one number for one number
g(x) = "two"
plot(g, 0, 1)  # expect error: must return one number for one number
:mem
# expect: tensors: 0 live
AG
$AG --check "$tmp" | grep -o "got 'tensors: [0-9]* live\|expected an error.*"
