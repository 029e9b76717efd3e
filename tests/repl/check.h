/*
 * check.h — what the shell's C test programs (test_print, test_pyformat,
 * pty_test, transcript) share: the counts of passed and failed checks and
 * the last line tests/run.sh reads, "N passed, N failed". Each program
 * includes it once. (The engine's tests have their own harness.h, with the
 * finite-difference checker.)
 */
#ifndef AG_TEST_CHECK_H
#define AG_TEST_CHECK_H

#include <stdbool.h>
#include <stdio.h>

static int check_passed, check_failed;

/* Counts one check's outcome; returns it. */
static inline bool check_count(bool ok) {
    if (ok) check_passed++;
    else check_failed++;
    return ok;
}

/* Prints the summary line and returns the exit status: 1 on any failure. */
static inline int check_summary(void) {
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed != 0;
}

#endif
