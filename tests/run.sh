#!/bin/sh
# Runs every test program of one or more builds and prints the totals as
# the last line: "N passed, N failed". Exits non-zero on any failure.
# Usage: tests/run.sh BUILD_DIR...   (VALGRIND="valgrind ..." to run under it)
[ $# -gt 0 ] || { echo "usage: tests/run.sh BUILD_DIR..." >&2; exit 2; }
passed=0 failed=0

# A runner that prints its own "N passed, N failed" as its last line.
tally() {
    name=$1; shift
    out=$("$@" 2>&1); status=$?
    last=$(printf '%s\n' "$out" | tail -n 1)
    p=$(printf '%s\n' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*$/\1/p')
    f=$(printf '%s\n' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*$/\2/p')
    if [ -z "$p" ]; then p=0; f=1; fi
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    if [ "$f" -ne 0 ]; then
        printf '%s\n' "$out" | grep -v '^ok ' | tail -n 60
        echo "FAIL: $name (exit $status)"
    else
        echo "ok: $name ($p passed)"
    fi
    passed=$((passed + p)); failed=$((failed + f))
}

# A program with no tally of its own: one test, passed if it exits 0.
single() {
    name=$1; shift
    if out=$("$@" 2>&1); then
        passed=$((passed + 1)); echo "ok: $name"
    else
        failed=$((failed + 1)); printf '%s\n' "$out" | tail -n 20; echo "FAIL: $name"
    fi
}

# The examples a list names, as paths; under OpenBLAS (AG_MATMUL) not
# those whose printed digits need the reference BLAS's sums
# (examples/python/NEEDS_OWN_MATMUL).
examples() {
    case $AG_MATMUL in
        OpenBLAS*) grep -vxf examples/python/NEEDS_OWN_MATMUL "examples/python/$1" ;;
        *) cat "examples/python/$1" ;;
    esac | sed 's|^|examples/python/|'
}

for build in "$@"; do
echo "== $build"
# Memory measurements mean nothing under a sanitizer or valgrind.
case $build in *asan*|*valgrind*) AG_SANITIZED=1 ;; *) AG_SANITIZED= ;; esac
[ -n "$VALGRIND" ] && AG_SANITIZED=1
export AG_SANITIZED
# SLEEF or libm (AG_SLEEF=0, or a machine without libsleef3): the checks
# of PyTorch's last bits of sin, exp... that only SLEEF gives are left out
# without it, and say so.
AG_VECMATH=$("$build/test_engine" --vecmath)
AG_MATMUL=$("$build/test_engine" --blas)
export AG_VECMATH AG_MATMUL
[ "$AG_VECMATH" = SLEEF ] || echo "(SLEEF not loaded: PyTorch's last bits of its vector math are" \
    "not compared: tests/shell/python/NEEDS_SLEEF, sessions marked \`\`\`ag sleef in docs/)"
case $AG_MATMUL in OpenBLAS*) echo "(matrix products by OpenBLAS: the reference BLAS's last bits" \
    "are not compared: tests/shell/python/NEEDS_OWN_MATMUL, examples/python/NEEDS_OWN_MATMUL)" ;; esac
tally "engine" $VALGRIND "$build/test_engine"
tally "engine at 1, 2 and 7 threads, the same bits" sh tests/threads.sh "$build/test_engine"
# Every float32 result packed (docs/engine.md, "Packed float32"), not only
# those of 4096 elements: the same tests, through the packed kernels and
# every reader's unpacking.
tally "engine with every float32 result packed" env AG_TEST_PACK_MIN=1 $VALGRIND "$build/test_engine"
single "README example" $VALGRIND "$build/readme_example"
single "C example: training with Adam" $VALGRIND "$build/train_example"
tally "exported names" sh tests/symbols.sh "$build/libag.a"
for kind in plain rl; do # the same objects either way: one is enough
    [ -d "$build/$kind" ] || continue
    tally "the shell's layers" sh tests/layers.sh "$build/$kind"
    break
done
tally "printer" $VALGRIND "$build/test_print"
tally "python formatting" $VALGRIND "$build/test_pyformat"
for kind in rl plain; do
    [ -x "$build/$kind/ag" ] || continue
    tally "shell ($kind)" sh tests/shell/run.sh "$build/$kind/ag"
    tally "documented errors ($kind)" sh tests/docs_errors.sh "$build/$kind/ag"
    # Through a pseudo-terminal, as a person types (never under valgrind:
    # its timing is a person's, not valgrind's).
    tally "terminal ($kind)" "$build/pty_test" "$build/$kind/ag"
    tally "documented sessions ($kind)" "$build/transcript" "$build/$kind/ag" README.md \
        $(ls docs/tutorial.md 2>/dev/null)
    tally "fuzz regressions ($kind)" sh tests/fuzz/run_regressions.sh "$build/$kind/ag"
    # Bit for bit as PyTorch: not under the sanitizers, whose builds do not
    # vectorise and so take libm's tanh instead of libmvec's (a last-bit
    # difference in micrograd's neuron).
    [ -n "$AG_SANITIZED" ] || tally "python examples ($kind)" sh tests/python/run.sh \
        "$build/$kind/ag" $(examples RUNS)
    # Those whose sin, exp or softmax are PyTorch's to the last bit only
    # through SLEEF's vector math: where it loads.
    if [ -z "$AG_SANITIZED" ] && [ "$AG_VECMATH" = SLEEF ]; then
        tally "python examples with SLEEF ($kind)" sh tests/python/run.sh \
            "$build/$kind/ag" $(examples RUNS_SLEEF)
    fi
    if ls examples/*.ag >/dev/null 2>&1; then
        tally "examples ($kind)" $VALGRIND "$build/$kind/ag" --check examples/*.ag
    fi
done
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
