/*
 * interrupt.h — the Ctrl-C flag: set by the SIGINT handler (session.c),
 * polled by the evaluator. Kept apart from ag.h because readline's headers
 * define a type named Function too.
 */
#ifndef AG_INTERRUPT_H
#define AG_INTERRUPT_H

#include <signal.h>

extern volatile sig_atomic_t session_interrupted;

/* SIGINT sets session_interrupted from now on (session.c): Ctrl-C at the
 * prompt, Jupyter's interrupt in ag --kernel. */
void session_catch_sigint(void);

#endif
