/*
 * lineedit.c — the terminal's line reader. With AG_READLINE: GNU readline
 * through its callback interface, so that Ctrl-C is seen by our loop (not
 * inside readline) and abandons the line cleanly; history in ~/.ag_history;
 * tab completion of names, builtins and :commands. Without: a plain reader
 * on stdin, where Ctrl-C (EINTR) abandons the line the same way.
 */
#include "lineedit.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interrupt.h"

/* While a line is read, SIGINT is blocked except inside pselect, so a
 * Ctrl-C can never slip in between a check of the flag and a blocking wait. */
static sigset_t unblocked;

static void block_sigint(void) {
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &unblocked);
}

static void restore_sigint(void) { sigprocmask(SIG_SETMASK, &unblocked, NULL); }

/* Waits until fd is readable: true, or false when Ctrl-C came first. */
static bool wait_readable(int fd) {
    for (;;) {
        if (session_interrupted) {
            session_interrupted = 0;
            return false;
        }
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fd, &fds);
        int r = pselect(fd + 1, &fds, NULL, NULL, NULL, &unblocked);
        if (r > 0) return true;
        if (r < 0 && errno != EINTR) return true; /* let the read report it */
    }
}

#ifdef AG_READLINE
/* ======================================================================
 * GNU readline
 * ====================================================================== */

#include <readline/history.h>
#include <readline/readline.h>

static CompletionSource completion_names;
static void *completion_ctx;
static char *history_path;
static char *line_read;
static bool line_done;

static char *complete_one(const char *text, int state) {
    static int next;
    if (state == 0) next = 0;
    size_t len = strlen(text);
    const char *name;
    while ((name = completion_names(completion_ctx, next++)) != NULL)
        if (strncmp(name, text, len) == 0) return strdup(name);
    return NULL;
}

static char **complete(const char *text, int start, int end) {
    (void)start, (void)end;
    rl_attempted_completion_over = 1; /* no file names */
    return rl_completion_matches(text, complete_one);
}

/* The history file must be a regular file (or not exist yet): reading a
 * FIFO or a device would block start-up or read forever. */
static bool history_file_usable(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT;
    return S_ISREG(st.st_mode);
}

static void on_line(char *line) {
    line_read = line;
    line_done = true;
    rl_callback_handler_remove();
}

void lineedit_init(CompletionSource names, void *ctx) {
    completion_names = names;
    completion_ctx = ctx;
    rl_readline_name = "ag";
    rl_attempted_completion_function = complete;
    rl_basic_word_break_characters = " \t\n()[],=+-*/@";
    rl_catch_signals = 0;
    /* Entries of several lines come back whole: readline keeps them so
     * when the file has timestamps. */
    history_write_timestamps = 1;
    history_multiline_entries = 1;
    const char *home = getenv("HOME");
    if (home && (history_path = malloc(strlen(home) + 16)) != NULL) {
        sprintf(history_path, "%s/.ag_history", home);
        if (history_file_usable(history_path)) read_history(history_path);
        else free(history_path), history_path = NULL;
    }
    session_catch_sigint();
}

char *lineedit_read(const char *prompt, bool *interrupted) {
    *interrupted = false;
    line_done = false;
    line_read = NULL;
    session_interrupted = 0;
    block_sigint();
    rl_callback_handler_install(prompt, on_line);
    while (!line_done) {
        if (!wait_readable(fileno(rl_instream))) {
            /* Ctrl-C: drop the line, start afresh on a new one. */
            rl_free_line_state();
            rl_replace_line("", 0); /* else Ctrl-D would see the old text */
            rl_callback_sigcleanup();
            rl_callback_handler_remove();
            fputc('\n', rl_outstream);
            *interrupted = true;
            line_read = strdup("");
            break;
        }
        rl_callback_read_char();
    }
    restore_sigint();
    return line_read;
}

void lineedit_save(const char *entry) {
    if (entry[strspn(entry, " ")] != '\0') add_history(entry);
}

void lineedit_close(void) {
    if (history_path) {
        write_history(history_path);
        history_truncate_file(history_path, 1000);
    }
    free(history_path);
    history_path = NULL;
}

const char *lineedit_kind(void) { return "readline"; }

#else
/* ======================================================================
 * The plain reader
 * ====================================================================== */

void lineedit_init(CompletionSource names, void *ctx) {
    (void)names, (void)ctx;
    session_catch_sigint();
}

/* One byte from stdin: the byte, EOF, or -2 when Ctrl-C came first. */
static int read_byte(void) {
    unsigned char c;
    for (;;) {
        if (!wait_readable(STDIN_FILENO)) return -2;
        ssize_t n = read(STDIN_FILENO, &c, 1);
        if (n == 1) return c;
        if (n == 0 || errno != EINTR) return EOF;
    }
}

char *lineedit_read(const char *prompt, bool *interrupted) {
    *interrupted = false;
    session_interrupted = 0;
    fputs(prompt, stdout);
    fflush(stdout);
    size_t cap = 256, len = 0;
    char *line = malloc(cap);
    if (!line) return NULL;
    block_sigint();
    int c;
    while ((c = read_byte()) != EOF && c != '\n' && c != -2) {
        if (len + 1 >= cap) {
            char *bigger = cap < (64u << 20) ? realloc(line, cap * 2) : NULL;
            if (!bigger) break;
            line = bigger;
            cap *= 2;
        }
        line[len++] = (char)c;
    }
    restore_sigint();
    if (c == -2 || (c == EOF && len == 0)) {
        fputc('\n', stdout); /* a fresh line after ^C, or after Ctrl-D */
        *interrupted = c == -2;
        if (c == EOF) {
            free(line);
            return NULL;
        }
        len = 0;
    }
    line[len] = '\0';
    return line;
}

void lineedit_save(const char *entry) { (void)entry; }
void lineedit_close(void) {}
const char *lineedit_kind(void) { return "plain"; }
#endif
