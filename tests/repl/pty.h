/*
 * pty.h — running ./ag on a pseudo-terminal for the tests that type at it
 * as a person would (pty_test.c, transcript.c).
 */
#ifndef AG_TEST_PTY_H
#define AG_TEST_PTY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int master;
    int pid;
    char seen[1 << 18];  /* everything the shell printed, NUL-terminated */
    size_t len, matched; /* matched: where the last expectation ended */
} Pty;

/* Starts ag on a new terminal, with TERM=dumb and HOME=home. */
bool pty_start(Pty *p, const char *ag, const char *home);
/* The same, with one argument for ag (and a second, or NULL). */
bool pty_start_args(Pty *p, const char *ag, const char *home, const char *arg1, const char *arg2);
/* Reads what the shell printed for up to `seconds`; false at end of output. */
bool pty_pump(Pty *p, double seconds);
/* Waits (at most 10 s) until text appears after the last match; on a
 * timeout prints what came instead to stderr. */
bool pty_expect(Pty *p, const char *text);
void pty_type(Pty *p, const char *keys);
/* Sends Ctrl-D and waits for the exit; returns the exit status, or -1 if
 * the shell had to be killed. */
int pty_finish(Pty *p);

#endif
