# Hostile .py files too big to commit (tests/fuzz/regressions/ holds the
# small ones): each ends with its output or one error message and status 0
# or 1, never a crash, in both ways of reading Python (ag FILE.py compiles
# the whole file first; ag --python - reads it line by line). Files are
# made here, in a few seconds.
[ -n "$VALGRIND" ] && exit 77 # minutes under valgrind: make test runs it under ASan
dir=${TMPDIR:-/tmp}/ag-hostile.$$
mkdir -p "$dir" && trap 'rm -rf "$dir"' EXIT

# run NAME [file]: the file $dir/NAME.py both ways (or only as a file); for
# each, its last line of output (cut to 100 bytes, the directory left out)
# and its status.
run() {
    echo "--- $1"
    $AG "$dir/$1.py" >"$dir/out" 2>&1
    echo "status $?: $(tail -n 1 "$dir/out" | sed "s|$dir/||g" | cut -c 1-100)"
    [ "$2" = file ] && return
    $AG --python - <"$dir/$1.py" >"$dir/out" 2>&1
    echo "status $?: $(tail -n 1 "$dir/out" | cut -c 1-100)"
}

# indentation: a line 100,000 columns deep; blocks nested 1,000 deep (Python
# stops at 100); 50,000 blocks one after another, alternating tabs and spaces
awk 'BEGIN { print "if True:"; printf "%100000s\n", "x = 1"; print "print(x)" }' >"$dir/indent_wide.py"
run indent_wide
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "%" i + 5 "s\n", "if 1:"; printf "%1005s\n", "pass" }' \
    >"$dir/indent_deep.py"
run indent_deep
awk 'BEGIN { print "n = 0"; for (i = 0; i < 50000; i++) print "if n >= 0:\n" (i % 2 ? "\t" : "    ") "n += 1";
             print "print(n)" }' >"$dir/indent_alternating.py"
run indent_alternating
awk 'BEGIN { print "if 1:"; for (i = 0; i < 100000; i++) print (i % 2 ? "\tx = 1" : "        x = 2") }' \
    >"$dir/indent_mixed.py"
run indent_mixed

# brackets 100,000 deep: closed, and never closed
awk 'BEGIN { printf "x = "; for (i = 0; i < 100000; i++) printf "(";  printf "1";
             for (i = 0; i < 100000; i++) printf ")"; print "" }' >"$dir/parens_deep.py"
run parens_deep
awk 'BEGIN { printf "x = "; for (i = 0; i < 100000; i++) printf "[("; print "" }' >"$dir/brackets_open.py"
run brackets_open

# lines of 10 MB: a string, a comment, a list, an f-string, a sum
awk 'BEGIN { printf "s = \""; for (i = 0; i < 1000000; i++) printf "abcdefghij"; print "\""; print "print(s == s)" }' \
    >"$dir/line_string.py"
run line_string
awk 'BEGIN { printf "x = 1  # "; for (i = 0; i < 1000000; i++) printf "abcdefghij"; print ""; print "print(x)" }' \
    >"$dir/line_comment.py"
run line_comment
awk 'BEGIN { printf "x = ["; for (i = 0; i < 2500000; i++) printf "1, "; print "]"; print "print(x == x)" }' \
    >"$dir/line_list.py"
run line_list
awk 'BEGIN { printf "x = 1\nprint(f\""; for (i = 0; i < 1000000; i++) printf "{x}{{}}"; print "\"[:4])" }' \
    >"$dir/line_fstring.py"
run line_fstring
awk 'BEGIN { printf "x = 1"; for (i = 0; i < 2500000; i++) printf " + 1"; print "" }' >"$dir/line_sum.py"
run line_sum

# a million lines (10 MB): they run; 35 MB is more than a .py file may be
# (read line by line, it would run)
awk 'BEGIN { print "x = 0"; for (i = 0; i < 1000000; i++) print "x = x + 1"; print "print(x)" }' \
    >"$dir/million_lines.py"
run million_lines
awk 'BEGIN { print "x = 0"; for (i = 0; i < 1000000; i++) print "x += 1  # thirty-five bytes a line"; print "print(x)" }' \
    >"$dir/million_lines_35mb.py"
run million_lines_35mb file

# a triple-quoted string a million lines long, never closed
awk 'BEGIN { print "x = 1"; print "s = \"\"\""; for (i = 0; i < 1000000; i++) print "{x"; print "print(s)" }' \
    >"$dir/triple_unterminated.py"
run triple_unterminated
