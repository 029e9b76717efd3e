#!/bin/sh
# Times a micrograd training step (bench/micrograd_step.py) in ag and in
# CPython, runs alternated (ag, python, ag, python, ...) so that both see the
# same load. Usage: bench/micrograd.sh [AG] [PYTHON] [RUNS]  (./ag python3 5)
# Each run's figure is its CPU time (user + system, from getrusage, so a
# busy machine's waiting is not counted); a step is the median of the
# STEPS-step runs less the median of the 0-step runs (startup, the class
# definitions and building the MLP), over STEPS. Both must print the same.
ag=${1:-./ag} python=${2:-python3} runs=${3:-5}
dir=$(dirname "$0")
tmp=${TMPDIR:-/tmp}/ag-micrograd.$$
mkdir -p "$tmp" && trap 'rm -rf "$tmp"' EXIT
steps=$(sed -n 's/^STEPS = \([0-9]*\)$/\1/p' "$dir/micrograd_step.py")
sed 's/^STEPS = [0-9]*$/STEPS = 0/' "$dir/micrograd_step.py" >"$tmp/zero.py"
"$ag" "$dir/micrograd_step.py" >"$tmp/ag.out" 2>&1
"$python" "$dir/micrograd_step.py" >"$tmp/py.out" 2>&1
if ! cmp -s "$tmp/ag.out" "$tmp/py.out"; then
    echo "ag and $python print differently:" >&2
    diff "$tmp/ag.out" "$tmp/py.out" >&2
    exit 1
fi
# One run of the command: its CPU time in seconds.
cpu() {
    "$python" -c 'import resource, subprocess, sys
def used():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
before = used()  # what the interpreter itself may have run at startup
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print("%.4f" % (used() - before))' "$@"
}
i=0
while [ $i -lt "$runs" ]; do
    for side in ag py; do
        if [ $side = ag ]; then run=$ag; else run=$python; fi
        cpu "$run" "$dir/micrograd_step.py" >>"$tmp/$side.full"
        cpu "$run" "$tmp/zero.py" >>"$tmp/$side.zero"
    done
    i=$((i + 1))
done
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ag_full=$(median "$tmp/ag.full") ag_zero=$(median "$tmp/ag.zero")
py_full=$(median "$tmp/py.full") py_zero=$(median "$tmp/py.zero")
awk -v af="$ag_full" -v az="$ag_zero" -v pf="$py_full" -v pz="$py_zero" -v n="$steps" \
    -v runs="$runs" 'BEGIN {
    a = (af - az) / n * 1000; p = (pf - pz) / n * 1000
    printf "micrograd step (%d steps, medians of %d alternated runs, CPU time)\n", n, runs
    printf "  ag:      %.3f s (0 steps: %.3f s)  %.3f ms a step\n", af, az, a
    printf "  python:  %.3f s (0 steps: %.3f s)  %.3f ms a step\n", pf, pz, p
    printf "  ag is %.2fx as fast as python a step\n", p / a
}'
