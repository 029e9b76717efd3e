#!/bin/sh
# The README's commands for building a program against the library, run as
# written: the README's C example (cut out as the Makefile cuts it) is
# example.c in a scratch directory that sees the repository's include/ and
# build/ (after make); then make install PREFIX=$HOME/.local and the
# command that builds against the installed files, HOME being a scratch
# directory too. Run from the repository's root. Prints "N passed, N failed".
root=$(pwd)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
# one NAME COMMAND...: runs the command quietly, tallies it.
one() {
    name=$1; shift
    if out=$("$@" 2>&1); then passed=$((passed + 1)); echo "ok: $name"
    else failed=$((failed + 1)); printf '%s\n' "$out" | tail -n 20; echo "FAIL: $name"; fi
}
readme_line() { grep -m 1 "$1" "$root/README.md"; }
build=$(readme_line '^cc .*build/release/libag.a')
install=$(readme_line '^make install PREFIX=')
installed=$(readme_line '^cc .*[$]HOME/.local')
mkdir "$tmp/tree" "$tmp/home" "$tmp/installed"
sed -n '/^```c$/,/^```$/p' "$root/README.md" | sed '1d;$d' > "$tmp/tree/example.c"
cp "$tmp/tree/example.c" "$tmp/installed/example.c"
ln -s "$root/include" "$tmp/tree/include"
ln -s "$root/build" "$tmp/tree/build"
for cmd in "$build" "$install" "$installed"; do
    [ -n "$cmd" ] || { failed=$((failed + 1)); echo "FAIL: a build command is missing from README.md"; }
done
one "README: $build" sh -c "cd '$tmp/tree' && $build && ./example"
one "README: $install" sh -c "HOME='$tmp/home' && cd '$root' && $install"
one "README: $installed" sh -c "HOME='$tmp/home' && cd '$tmp/installed' && $installed && ./example"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
