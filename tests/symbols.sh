#!/bin/sh
# The library's exported names: linking libag.a into a program must never
# clash with the program's own names. Every symbol libag.a defines globally
# is either declared in include/ag.h (the public API: tensor_*, backward,
# ag_*) or carries the internal prefix ag_ (ENGINE.md, "a clean library").
# Usage: tests/symbols.sh LIBAG_A    Prints "N passed, N failed".
lib=$1
command -v nm >/dev/null || { echo "nm not found (binutils)"; echo "0 passed, 1 failed"; exit 1; }
syms=$(nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u)
[ -n "$syms" ] || { echo "no symbols read from $lib"; echo "0 passed, 1 failed"; exit 1; }
header=$(dirname "$0")/../include/ag.h
passed=0 failed=0
for s in $syms; do
    case $s in
        ag_*) passed=$((passed + 1)); continue ;;
        __odr_asan.*|__asan_*|__ubsan_*) continue ;;  # sanitizer bookkeeping
    esac
    # Anything else must be a public name: declared in ag.h as a function.
    if grep -Eq "[ *]$s\(" "$header"; then
        passed=$((passed + 1))
    else
        echo "exported but neither public nor prefixed ag_: $s"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
