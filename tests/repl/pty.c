/*
 * pty.c — see pty.h.
 */
#define _XOPEN_SOURCE 700
#include "pty.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool pty_start_args(Pty *p, const char *ag, const char *home, const char *arg1, const char *arg2) {
    p->len = p->matched = 0;
    p->seen[0] = '\0';
    p->master = posix_openpt(O_RDWR | O_NOCTTY);
    if (p->master < 0 || grantpt(p->master) || unlockpt(p->master)) return false;
    const char *slave_name = ptsname(p->master);
    p->pid = fork();
    if (p->pid == 0) {
        setsid();
        int slave = open(slave_name, O_RDWR);
        dup2(slave, 0);
        dup2(slave, 1);
        dup2(slave, 2);
        setenv("TERM", "dumb", 1);
        setenv("HOME", home, 1);
        execl(ag, ag, arg1, arg2, (char *)NULL);
        _exit(127);
    }
    return p->pid > 0;
}

bool pty_pump(Pty *p, double seconds) {
    struct pollfd fd = {p->master, POLLIN, 0};
    if (poll(&fd, 1, (int)(seconds * 1000)) <= 0) return true;
    ssize_t n = read(p->master, p->seen + p->len, sizeof p->seen - 1 - p->len);
    if (n <= 0) return false;
    p->len += (size_t)n;
    p->seen[p->len] = '\0';
    return true;
}

bool pty_expect(Pty *p, const char *text) {
    double end = now() + 10;
    while (now() < end) {
        char *hit = strstr(p->seen + p->matched, text);
        if (hit) {
            p->matched = (size_t)(hit - p->seen) + strlen(text);
            return true;
        }
        if (!pty_pump(p, 0.05)) break;
    }
    fprintf(stderr, "expected %s; after the last match the shell printed:\n%s\n", text,
            p->seen + p->matched);
    return false;
}

void pty_type(Pty *p, const char *keys) {
    if (write(p->master, keys, strlen(keys)) < 0) perror("pty_type");
}

int pty_finish(Pty *p) {
    pty_type(p, "\x04");
    double end = now() + 10;
    int status = 0, done = 0;
    while (now() < end && (done = waitpid(p->pid, &status, WNOHANG)) == 0) pty_pump(p, 0.05);
    close(p->master);
    if (done != p->pid) {
        fprintf(stderr, "still running after Ctrl-D; it printed:\n%s\n", p->seen + p->matched);
        kill(p->pid, SIGKILL);
        waitpid(p->pid, &status, 0);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool pty_start(Pty *p, const char *ag, const char *home) {
    return pty_start_args(p, ag, home, NULL, NULL);
}
