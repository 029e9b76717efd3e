# Tabs and bytes outside printable ASCII are errors outside comments and
# allowed inside them. The input is written with printf escapes.
p() { printf "$1" | $AG 2>&1; echo "[exit $?]"; }
# allowed in comments: a tab, UTF-8 (e acute, an arrow), a NUL-free high byte
p '1  # tab\there, caf\303\251 \342\206\222 \377\n2\n'
p '# \t\t\n3\n'
# a tab between tokens
p 'x = 1\t+ 2\n'
# a tab indenting a line
p 'x = 1\n\ty = 2\n'
# UTF-8 in a name or value
p 'x = 1\ny = \303\251\n'
p 'caf\303\251 = 1\n'
# a high byte after a statement, before a comment
p '1 \377 # comment\n'
# a NUL byte
p '1\000 2\n'
# a carriage return alone
p '1 +\r 2\n'
# a form feed
p '1\f\n'
# NUL and control bytes in a :command line are an error naming the byte,
# never run and never written back raw (issue 9, "Smaller"); od shows that
# no byte below 32 but the newline reaches the output.
p ':load lib_load\000.inc\nv\n'
p ':help \033[2Jexp\n'
p ':foo\001\n'
p ':dot v\033]0;title\007\n'
printf ':help \033[2Jexp\n' | $AG 2>&1 | od -An -c | grep -c '033' || true
