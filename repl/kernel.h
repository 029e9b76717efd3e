/*
 * kernel.h — ag --kernel: the shell behind a Jupyter kernel. Reads framed
 * requests on stdin (a cell to run, a completion or help to look up) and
 * answers each with framed parts on stdout: text, the cell's result,
 * pictures, an error, then "done". The Python side (repl/jupyter/) turns
 * the parts into Jupyter messages; the protocol is docs/language.md's
 * "Jupyter".
 */
#ifndef AG_KERNEL_H
#define AG_KERNEL_H

#include "session.h"

/* Serves requests until stdin ends; the exit status: 0, or 2 after a
 * malformed request (reported on stderr: the stream cannot be trusted). */
int kernel_main(Session *s);

#endif
