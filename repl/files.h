/*
 * files.h — opening files by name without blocking past Ctrl-C. open() of
 * a FIFO waits for the other end, and with SA_RESTART (lineedit.c) Ctrl-C
 * never ended that wait: these open without waiting in the kernel, then
 * wait for the FIFO's other end in a loop that polls session_interrupted.
 *
 * It is: the open, for load_csv, save_csv, :load and scripts. It is NOT: a
 * reader (the FILE returned blocks as usual once the other end is there).
 */
#ifndef AG_FILES_H
#define AG_FILES_H

#include <stdio.h>

/* Opens path for reading ("rb"). A FIFO waits until a writer has written or
 * gone (Ctrl-C ends the wait). A new FILE, or NULL with errno set (EINTR:
 * interrupted while waiting). */
FILE *files_open_read(const char *path);
/* Opens path for writing ("w", truncating a regular file). A FIFO waits
 * until a reader opens it (Ctrl-C ends the wait). A new FILE, or NULL with
 * errno set (EINTR: interrupted while waiting). */
FILE *files_open_write(const char *path);

#endif
