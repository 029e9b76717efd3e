/*
 * fuzz_shell.c — the libFuzzer harness: any bytes, run as a script through
 * the shell's whole path (scan, parse, evaluate, print, backward, shell
 * commands), with errors not stopping it. Files are off (:load, :dot FILE, draw).
 * A finding is a crash, a sanitizer report, a hang past -timeout, or a
 * tensor, list or dict still alive once the session and the graph are
 * freed (a leak: the lists and dicts on the collector's circle outlive
 * nothing that is gone).
 *
 * Every run is bounded, so that -timeout only ever catches a real hang:
 *   - steps: a run makes at most MAX_STEPS loop iterations and user-function
 *     calls (while True { }, f(n) = f(n-1) + f(n-1)); past them, each
 *     further one fails with the session's error;
 *   - memory: MEMORY_LIMIT bytes of tensors and graph, so that no single op,
 *     backward or print takes long, and huge shapes fail as they would at
 *     the shell's default limit;
 *   - time: after CPU_MILLISECONDS of this thread's CPU time a timer raises
 *     the shell's Ctrl-C flag, which the evaluator, gradcheck, plot and
 *     backward poll: the rest of the run fails with "interrupted", as the
 *     shell does when Ctrl-C stops a statement.
 *
 * The first byte picks the dialect (tests/fuzz/README.md):
 *   0x01  the rest is Python read line by line, as `ag --python - <FILE`;
 *   0x02  the rest is a .py file, as `ag FILE.py` runs it: compiled whole,
 *         then run (through a temporary FILE.py, since that path reads a file);
 *   else  the whole input is an ag script, as `ag - <FILE` with errors not
 *         stopping it.
 *
 * Built by make fuzz (clang -fsanitize=fuzzer,address,undefined).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"
#include "run.h"

enum {
    MAX_STEPS = 10000,
    MEMORY_LIMIT = 1 << 20,
    CPU_MILLISECONDS = 100,
};

enum { PYTHON_LINES = 0x01, PYTHON_FILE = 0x02 }; /* the first byte's markers */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_timer(int sig) {
    (void)sig;
    session_interrupted = 1;
}

/* A one-shot timer on this thread's CPU time that raises the Ctrl-C flag. */
static timer_t cpu_timer(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_timer;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGRTMIN;
    timer_t timer;
    if (sigaction(SIGRTMIN, &sa, NULL) != 0 ||
        timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer) != 0) {
        perror("fuzz: timer");
        abort();
    }
    return timer;
}

static void arm(timer_t timer, long milliseconds) {
    struct itimerspec when = {.it_value = {milliseconds / 1000, milliseconds % 1000 * 1000000}};
    timer_settime(timer, 0, &when, NULL);
}

/* The temporary FILE.py of PYTHON_FILE inputs: a directory of this process's
 * own, removed at exit. */
static char py_dir[] = "/tmp/ag-fuzz-XXXXXX", py_path[sizeof py_dir + 8];

static void remove_py_file(void) {
    unlink(py_path);
    rmdir(py_dir);
}

static void write_py_file(const uint8_t *data, size_t size) {
    if (!py_path[0]) {
        if (!mkdtemp(py_dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        snprintf(py_path, sizeof py_path, "%s/in.py", py_dir);
        atexit(remove_py_file);
    }
    FILE *f = fopen(py_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror("fuzz: writing the .py file");
        abort();
    }
}

/* value_each_tracked's counter: a reference kept by mistake (a value not
 * released on an error path) keeps its lists and dicts, and with them
 * everything they hold, after the session is freed. */
static void count_container(void *ctx, const Value *v) {
    (void)v;
    (*(int64_t *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FILE *sink;
    static timer_t timer;
    if (!sink) {
        sink = fopen("/dev/null", "w");
        ag_set_memory_limit(MEMORY_LIMIT);
        ag_set_interrupt_flag(&session_interrupted); /* backward stops too */
        timer = cpu_timer();
    }
    int dialect = size > 0 && (data[0] == PYTHON_LINES || data[0] == PYTHON_FILE) ? data[0] : 0;
    if (dialect) data++, size--;
    if (dialect == PYTHON_FILE) write_py_file(data, size);
    ag_seed(0);
    Session s;
    session_init(&s, sink, sink, false);
    s.allow_files = false;
    s.quiet_notes = true;
    s.gradcheck_max_elements = 2000;
    s.max_steps = MAX_STEPS;
    Source src = {.name = "<fuzz>", .text = (const char *)data, .text_len = size, .keep_going = true};
    session_interrupted = 0;
    arm(timer, CPU_MILLISECONDS);
    if (dialect == PYTHON_FILE) {
        run_file(&s, py_path);
    } else {
        if (dialect == PYTHON_LINES) session_set_python(&s, true);
        run_source(&s, &src);
    }
    arm(timer, 0);
    session_interrupted = 0;
    session_free(&s);
    ag_graph_free();
    ag_trim(); /* no cached blocks: libFuzzer reruns a run that ends with more
                  mallocs than frees, looking for a leak */
    int64_t containers = 0; /* every list and dict of the session is gone with it */
    value_each_tracked(count_container, &containers);
    if (containers != 0) {
        fprintf(stderr, "fuzz: %lld lists and dicts outlived their session\n", (long long)containers);
        abort();
    }
    AgStats st = ag_stats();
    if (st.live_tensors != 0) {
        fprintf(stderr, "fuzz: %lld tensors leaked\n", (long long)st.live_tensors);
        abort();
    }
    return 0;
}
