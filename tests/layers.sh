#!/bin/sh
# The shell's files form layers (docs/engine.md, "Files"): a file calls only
# functions defined in files below it, never one above, so no two files
# call each other, directly or round a longer loop. Read from the objects
# themselves (nm), so a call that creeps back in is caught on the build
# that compiled it.
#
# The builtin table and its rows are one layer: builtins.c binds the
# arguments and calls each body; the bodies (builtins_*.c, and any file that
# defines a builtin bi_* or a table of rows *_builtins: gradcheck.c, plot.c)
# read them with builtins.c's arg_* helpers.
#
# Usage: tests/layers.sh DIR    (DIR holds the shell's objects: build/debug/plain)
# Prints each file's callees, any loop, and "N passed, N failed" last.
dir=$1
ls "$dir"/*.o >/dev/null 2>&1 || { echo "no objects in '$dir'"; echo "0 passed, 1 failed"; exit 1; }
command -v nm >/dev/null && command -v tsort >/dev/null ||
    { echo "nm or tsort not found (binutils, coreutils)"; echo "0 passed, 1 failed"; exit 1; }
tmp=${TMPDIR:-/tmp}/ag-layers.$$
trap 'rm -f "$tmp".*' EXIT

# "D module symbol" for each definition, "U module symbol" for each use.
for o in "$dir"/*.o; do
    file=$(basename "$o" .o)
    defs=$(nm -g --defined-only "$o" | awk 'NF == 3 { print $3 }')
    module=$file
    case $file in builtins*) module=builtins ;; esac
    printf '%s\n' "$defs" | grep -q '^bi_\|_builtins$' && module=builtins
    printf '%s\n' "$defs" | awk -v m="$module" 'NF { print "D", m, $1 }'
    nm -u "$o" | awk -v m="$module" '{ print "U", m, $NF }'
done >"$tmp.syms"

# "caller callee function" for each call from one module into another.
awk '$1 == "D" { home[$3] = $2; next }
     { use[n++] = $2 " " $3 }
     END { for (i = 0; i < n; i++) { split(use[i], u, " ");
             if ((u[2] in home) && home[u[2]] != u[1]) print u[1], home[u[2]], u[2] } }' \
    "$tmp.syms" | sort -u >"$tmp.calls"
awk '{ print $1, $2 }' "$tmp.calls" | sort -u >"$tmp.edges"

if tsort "$tmp.edges" >"$tmp.order" 2>"$tmp.loops"; then
    echo "ok the shell's files form layers (highest first): $(tr '\n' ' ' <"$tmp.order")"
    echo "1 passed, 0 failed"
else
    echo "FAIL files that call each other (each loop as tsort finds it):"
    sed -n 's/^tsort: \([a-z_]*\)$/  \1/p; s/^tsort: .*loop.*/  loop:/p' "$tmp.loops"
    echo "calls between them:"
    awk 'NR == FNR { if ($0 ~ /^  [a-z_]+$/) inloop[$1] = 1; next }
         ($1 in inloop) && ($2 in inloop) { pair = $1 " -> " $2
             if (!(pair in names)) order[k++] = pair
             if (++count[pair] <= 3) names[pair] = names[pair] (count[pair] > 1 ? ", " : "") $3 }
         END { for (i = 0; i < k; i++) print "  " order[i] ": " names[order[i]] \
                 (count[order[i]] > 3 ? ", ... (" count[order[i]] " functions)" : "") }' \
        - "$tmp.calls" <<EOF
$(sed -n 's/^tsort: \([a-z_]*\)$/  \1/p' "$tmp.loops")
EOF
    echo "0 passed, 1 failed"
    exit 1
fi
