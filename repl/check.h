/*
 * check.h — ag --check FILE...: scripts that carry their expected output.
 */
#ifndef AG_CHECK_H
#define AG_CHECK_H

/* Runs each file, matching what it prints against its "# expect: TEXT" and
 * "# expect error: TEXT" lines; reports each mismatch. Returns the exit
 * status: 0 when every expectation holds, else 1 (2 without files). */
int check_files(int count, char **paths);

#endif
