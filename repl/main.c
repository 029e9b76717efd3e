/*
 * main.c — the ag command: arguments, then the terminal loop or the
 * scripts. Everything else lives in run.c (reading and running), eval.c
 * and session.c (meaning), builtins.c and commands.c.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtins.h"
#include "check.h"
#include "commands.h"
#include "interrupt.h"
#include "kernel.h"
#include "lineedit.h"
#include "run.h"
#include "scan.h"

static const char usage[] =
    "usage: ag [--memory-limit SIZE] [--python] [-i] [FILE... | - | -e TEXT]...\n"
    "       ag [--memory-limit SIZE] --check FILE...\n"
    "       ag [--memory-limit SIZE] --kernel\n"
    "\n"
    "A reverse-mode autograd calculator. With no arguments and a terminal,\n"
    "starts the interactive shell; otherwise runs each FILE (- for stdin) and\n"
    "each -e TEXT in order, stopping at the first error with\n"
    "FILE:LINE:COL: error: MESSAGE on stderr and exit status 1.\n"
    "\n"
    "  -e TEXT     run TEXT as a script\n"
    "  FILE.py     runs as Python runs it: no echo, Python's values and errors\n"
    "  --python    the prompt and -e TEXT follow the .py rules too\n"
    "  -i          after the files, stay at the prompt with their variables\n"
    "  --check     run each FILE, comparing what it prints with its\n"
    "              '# expect: TEXT' and '# expect error: TEXT' lines\n"
    "  --kernel    serve a Jupyter kernel's requests on stdin and stdout (the\n"
    "              frames of repl/kernel.c; make install-kernel installs it)\n"
    "  --memory-limit SIZE\n"
    "              cap tensors and waiting graphs at SIZE bytes (K, M, G\n"
    "              suffixes; 0: no cap); default 4G, or $AG_MEMORY_LIMIT\n"
    "  --help      show this help\n"
    "  --version   show the version\n"
    "\n"
    "Type :help in the shell for the language.\n";

static int interactive(Session *s) {
    printf("ag %s, an autograd calculator (%s). Type :help for help, :quit to leave.\n", AG_VERSION,
           lineedit_kind());
    lineedit_init(command_completion_name, s);
    ag_set_interrupt_flag(&session_interrupted); /* Ctrl-C stops backward between Functions */
    Source src = {.name = "<stdin>", .interactive = true};
    run_source(s, &src);
    lineedit_close();
    return 0;
}

/* A script named on the command line; "ag: cannot open ..." if it cannot be. */
static bool run_file_reporting(Session *s, const char *path) {
    RunStatus status = run_file(s, path);
    if (status == RUN_CANNOT_OPEN) {
        fflush(s->out);
        fprintf(s->err, "ag: %s\n", s->error);
    }
    return status == RUN_OK;
}

/* Runs the files and -e texts in order (--python and -i are options that
 * may come anywhere); *ran says whether any was given, *stay whether -i
 * asks for the prompt afterwards, *last_python whether the last file was a
 * .py file (python -i: the prompt then reads Python too). */
static int run_args(Session *s, int argc, char **argv, bool *ran, bool *stay, bool *last_python) {
    for (int i = 1; i < argc && !s->quit; i++) {
        bool ok;
        if (strcmp(argv[i], "-e") == 0) {
            if (++i == argc) {
                fprintf(stderr, "ag: -e needs TEXT\n%s", usage);
                return 2;
            }
            Source src = {.name = "<-e>", .text = argv[i], .text_len = strlen(argv[i])};
            ok = run_source(s, &src);
            *ran = true;
        } else if (strcmp(argv[i], "--python") == 0) {
            session_set_python(s, true);
            continue;
        } else if (strcmp(argv[i], "-i") == 0) {
            *stay = true;
            continue;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "ag: unknown option '%s'\n%s", argv[i], usage);
            return 2;
        } else {
            ok = run_file_reporting(s, argv[i]);
            *ran = true;
            size_t n = strlen(argv[i]);
            *last_python = n > 3 && strcmp(argv[i] + n - 3, ".py") == 0;
        }
        if (!ok) return 1;
    }
    return 0;
}

/* "512M", "2G", "1048576": bytes, with binary K, M, G, T suffixes. */
static bool parse_size(const char *text, int64_t *bytes) {
    char *end;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    if (end == text || errno || *text == '-') return false;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    }
    if (shift && (*end == 'B' || *end == 'b')) end++;
    if (*end != '\0' || n > (unsigned long long)(INT64_MAX >> shift)) return false;
    *bytes = (int64_t)(n << shift);
    return true;
}

/* The memory limit from $AG_MEMORY_LIMIT, then --memory-limit (which wins);
 * returns how many arguments the option took, or -1 after a message. */
static int memory_limit_options(int argc, char **argv) {
    int64_t bytes;
    const char *env = getenv("AG_MEMORY_LIMIT");
    if (env && *env) {
        if (!parse_size(env, &bytes)) {
            fprintf(stderr, "ag: AG_MEMORY_LIMIT=%s is not a size (like 512M or 2G)\n", env);
            return -1;
        }
        ag_set_memory_limit(bytes);
    }
    if (argc < 2 || strcmp(argv[1], "--memory-limit") != 0) return 0;
    if (argc < 3 || !parse_size(argv[2], &bytes)) {
        fprintf(stderr, "ag: --memory-limit needs a size (like 512M or 2G)\n%s", usage);
        return -1;
    }
    ag_set_memory_limit(bytes);
    return 2;
}

/* Output that could not be written (a full disk, a closed pipe) is an
 * error, as in Python: reported on stderr, exit status 1. */
static int finish_output(int status) {
    bool failed = fflush(stdout) != 0 || ferror(stdout);
    if (failed) {
        fprintf(stderr, "ag: error writing the output: %s\n", strerror(errno ? errno : EIO));
        return 1;
    }
    return status;
}

/* The shell runs on a thread of its own with a stack of RUN_STACK bytes
 * (reserved, touched only as deep as calls go), so that a script's
 * recursion goes as deep as sys.setrecursionlimit says, as CPython 3.11's
 * does (micrograd's topological sort of a 10,000-node graph), before the
 * stack's guard (session_stack_ok) says RecursionError. */
enum { RUN_STACK = 512 << 20 };

static int run_main(int argc, char **argv);

typedef struct {
    int argc;
    char **argv;
} MainArgs;

/* The process ends here, on this thread, as it did on the main one: what
 * its thread-local state (the engine's graph arena) holds at exit is still
 * reachable then, for leak checkers as for the engine. */
static void *run_main_thread(void *p) {
    MainArgs *m = p;
    exit(run_main(m->argc, m->argv));
}

int main(int argc, char **argv) {
    MainArgs m = {argc, argv};
    pthread_attr_t attr;
    pthread_t thread;
    session_set_stack_size(RUN_STACK); /* for the sessions the thread makes */
    bool started = pthread_attr_init(&attr) == 0 &&
                   pthread_attr_setstacksize(&attr, RUN_STACK) == 0 &&
                   pthread_create(&thread, &attr, run_main_thread, &m) == 0;
    if (!started) { /* no room for it: the main thread's stack, as its limit says */
        session_set_stack_size(0);
        return run_main(argc, argv);
    }
    /* Signals go to the thread that runs the shell: Ctrl-C interrupts its
     * read of a line, as it would on the main thread. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_join(thread, NULL); /* never returns: the thread exits the process */
    return 1;
}

static int run_main(int argc, char **argv) {
    /* A write past the file-size limit (ulimit -f) fails with EFBIG, for
     * save_csv to report, instead of killing the shell. */
    signal(SIGXFSZ, SIG_IGN);
#ifdef __GLIBC__
    /* A script's objects come and go by the thousand (micrograd makes a
     * graph of Values each step and the collector frees it): glibc would
     * hand the freed top of the heap back to the kernel each time and fault
     * fresh zeroed pages in again for the next step. Keep up to 64 MiB. */
    mallopt(M_TRIM_THRESHOLD, 64 << 20); /* (a larger M_TOP_PAD cost 0.2 ms at start-up) */
#endif
    /* --help and --version work whatever the environment says */
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        fputs(usage, stdout);
        return finish_output(0);
    }
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("ag %s\n", AG_VERSION);
        return finish_output(0);
    }
    int taken = memory_limit_options(argc, argv);
    if (taken < 0) return 2;
    argv[taken] = argv[0]; /* drop the option: argv[0] stays the program */
    argc -= taken;
    argv += taken;
    int status;
    if (argc > 1 && strcmp(argv[1], "--check") == 0)
        return finish_output(check_files(argc - 2, argv + 2));
    Session s;
    if (argc == 2 && strcmp(argv[1], "--kernel") == 0) {
        session_init(&s, stdout, stderr, true);
        status = kernel_main(&s);
        session_free(&s);
        ag_graph_free();
        return finish_output(status);
    }
    bool ran = false, stay = false, last_python = false, tty = isatty(STDIN_FILENO);
    session_init(&s, stdout, stderr, false);
    status = run_args(&s, argc, argv, &ran, &stay, &last_python);
    if (s.exited) status = s.exit_status; /* sys.exit(status) */
    if (stay && last_python) session_set_python(&s, true);
    if (status != 2 && !s.quit && ((!ran && tty) || (stay && tty))) {
        /* the prompt, after the scripts of -i (python -i), with their variables */
        s.interactive = true;
        status = interactive(&s);
    } else if (!ran && status == 0) {
        status = run_file_reporting(&s, "-") ? 0 : 1;
    }
    session_free(&s);
    ag_graph_free();
    return finish_output(status);
}
