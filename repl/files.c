/*
 * files.c — opens that Ctrl-C can end (files.h). The file is opened with
 * O_NONBLOCK, which never waits; for a FIFO the wait for the other end is
 * then a loop of short polls that checks session_interrupted between them;
 * O_NONBLOCK is cleared before the FILE is made, so reads and writes block
 * as usual.
 */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"

enum { WAIT_MS = 50 }; /* between two looks at the Ctrl-C flag */

/* fd made blocking again, as a FILE; NULL (fd closed, errno kept) on failure. */
static FILE *blocking_file(int fd, const char *mode) {
    int flags = fcntl(fd, F_GETFL);
    FILE *f = flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 ? fdopen(fd, mode) : NULL;
    if (!f) {
        int saved = errno;
        close(fd);
        errno = saved;
    }
    return f;
}

FILE *files_open_read(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
        /* No writer yet: Linux reports nothing (neither POLLIN nor POLLHUP)
         * until one has written or come and gone. */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        for (;;) {
            if (session_interrupted) {
                close(fd);
                errno = EINTR;
                return NULL;
            }
            int n = poll(&p, 1, WAIT_MS);
            if (n > 0) break;
            if (n < 0 && errno != EINTR) {
                int saved = errno;
                close(fd);
                errno = saved;
                return NULL;
            }
        }
    }
    return blocking_file(fd, "rb");
}

FILE *files_open_write(const char *path) {
    for (;;) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK, 0666);
        if (fd >= 0) return blocking_file(fd, "w");
        if (errno != ENXIO) return NULL; /* ENXIO: a FIFO with no reader yet */
        if (session_interrupted) {
            errno = EINTR;
            return NULL;
        }
        struct timespec pause = {0, WAIT_MS * 1000000L};
        nanosleep(&pause, NULL);
    }
}
