/*
 * test_threads.c — the thread pool (src/parallel.c): the thread count and
 * its refusals, every task of a job run once, nested jobs, workers that
 * block signals (Ctrl-C reaches the shell's thread), a child after fork
 * that makes its own pool and exits cleanly (the pool is stopped and
 * joined at exit), and allocation failure around a threaded kernel. That
 * results are the same bits at every thread count is tests/threads.sh's:
 * the whole suite at 1, 2 and 7 threads, hashed.
 */
#include "harness.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_count(void) {
    int before = ag_get_num_threads();
    CHECK(before >= 1, "the default thread count %d", before);
    CHECK(ag_set_num_threads(0) == -1 && strcmp(ag_error(), "set_num_threads expects a positive "
                                                "integer") == 0,
          "set_num_threads(0): %s", ag_error());
    CHECK(ag_set_num_threads(-4) == -1, "set_num_threads(-4) refused");
    CHECK(ag_get_num_threads() == before, "a refusal changes nothing: %d", ag_get_num_threads());
    ag_clear_error();
    CHECK(ag_set_num_threads(3) == 0 && ag_get_num_threads() == 3, "set 3: %d",
          ag_get_num_threads());
    ag_set_num_threads(before);
}

enum { TASKS = 7 };

typedef struct {
    int runs[TASKS];
    bool sigint_blocked[TASKS];
    int64_t nested[TASKS];
} RunLog;

static void count_range(void *ctx, int64_t begin, int64_t end) {
    int64_t *n = ctx;
    *n += end - begin;
}

static void log_task(void *ctx, int task) {
    RunLog *log = ctx;
    log->runs[task]++;
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, NULL, &mask);
    log->sigint_blocked[task] = sigismember(&mask, SIGINT) == 1;
    ag_parallel_for(1000, 1, count_range, &log->nested[task]); /* inside a task: inline */
}

static void test_run(void) {
    ag_set_num_threads(TASKS);
    RunLog log = {0};
    ag_parallel_run(TASKS, log_task, &log);
    for (int t = 0; t < TASKS; t++) {
        CHECK(log.runs[t] == 1, "task %d ran %d times", t, log.runs[t]);
        CHECK(log.nested[t] == 1000, "task %d's nested range covered %lld", t,
              (long long)log.nested[t]);
    }
    CHECK(!log.sigint_blocked[0], "the caller's task runs with the caller's mask");
    for (int t = 1; t < TASKS; t++)
        CHECK(log.sigint_blocked[t], "worker of task %d blocks SIGINT (Ctrl-C goes to the shell)", t);
    RunLog again = {0}; /* the pool, started, runs the next job too */
    ag_parallel_run(3, log_task, &again);
    CHECK(again.runs[0] == 1 && again.runs[1] == 1 && again.runs[2] == 1 && again.runs[3] == 0,
          "a job of 3 tasks on a pool of %d: %d %d %d %d", TASKS, again.runs[0], again.runs[1],
          again.runs[2], again.runs[3]);
}

/* Each element of [0, n) covered once, whatever n and grain. */
typedef struct {
    unsigned char *seen;
} Cover;

static void cover_range(void *ctx, int64_t begin, int64_t end) {
    Cover *c = ctx;
    for (int64_t i = begin; i < end; i++) c->seen[i]++;
}

static void test_parallel_for(void) {
    static unsigned char seen[5000];
    static const int64_t sizes[] = {1, 2, 7, 13, 100, 4999, 5000};
    static const int64_t grains[] = {1, 3, 64, 10000};
    ag_set_num_threads(TASKS);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++) {
            memset(seen, 0, sizeof seen);
            Cover c = {seen};
            ag_parallel_for(sizes[i], grains[g], cover_range, &c);
            bool once = true;
            for (int64_t k = 0; k < sizes[i]; k++) once = once && seen[k] == 1;
            CHECK(once, "ag_parallel_for(%lld, grain %lld) covers each once", (long long)sizes[i],
                  (long long)grains[g]);
        }
}

/* A product large enough for threads at the measured thresholds. */
static Tensor *big_product(void) {
    ag_seed(7);
    Tensor *a = tensor_randn(SHAPE(200, 300), false), *b = tensor_randn(SHAPE(300, 250), false);
    Tensor *c = tensor_matmul(a, b);
    tensor_release(a);
    tensor_release(b);
    return c;
}

/* After fork the child has no workers (only the forking thread survives):
 * its first threaded kernel makes a pool of its own and gives the same
 * bits; exit stops and joins it. */
static void test_fork(void) {
    ag_set_num_threads(4);
    Tensor *want = big_product(); /* the parent's pool is running */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        Tensor *got = big_product();
        bool same = got && memcmp(tensor_values(got), tensor_values(want), (size_t)want->numel * sizeof(double)) == 0;
        tensor_release(got);
        tensor_release(want);
        exit(same ? 0 : 3); /* atexit: the child's pool stopped and joined */
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork and wait");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the child's product at 4 threads, after fork: status %d", status);
    Tensor *again = big_product(); /* and the parent's pool still works */
    CHECK(again && memcmp(tensor_values(again), tensor_values(want), (size_t)want->numel * sizeof(double)) == 0,
          "the parent's product after the fork");
    tensor_release(again);
    tensor_release(want);
}

/* An allocation that fails around a threaded kernel (workers allocate
 * nothing: the kernel's output and buffers are the caller's): the op fails
 * with a message and nothing leaks. */
static void test_alloc_failure(void) {
    ag_set_num_threads(4);
    int64_t base = live_tensors();
    Tensor *a = tensor_randn(SHAPE(200, 300), true), *b = tensor_randn(SHAPE(300, 250), true);
    ag_alloc_fail_after(0);
    Tensor *c = tensor_matmul(a, b);
    ag_alloc_fail_after(-1);
    CHECK(c == NULL && ag_error()[0] != '\0', "the product's output cannot be made: %s",
          ag_error());
    ag_clear_error();
    Tensor *y = tensor_matmul(a, b), *loss = y ? tensor_sum(y) : NULL;
    ag_alloc_fail_after(1); /* the second allocation of backward fails */
    int rc = loss ? backward(loss) : 0;
    ag_alloc_fail_after(-1);
    CHECK(rc == -1 && ag_error()[0] != '\0', "backward through a threaded product, out of memory: "
          "%d %s", rc, ag_error());
    ag_clear_error();
    Tensor *t[] = {a, b, y, loss};
    for (int k = 0; k < 4; k++) tensor_release(t[k]);
    ag_graph_free();
    CHECK(live_tensors() == base, "leaked %lld tensors", (long long)(live_tensors() - base));
}

/* Sums long enough for the cascade's top blocks to go to threads (2^12
 * rows of 16 values each): PyTorch's bits at 1, 2 and 7 threads. x[i] =
 * (i * 7919 mod 1000003) / 1000003 - 0.5; the expected sums from
 *   torch.set_num_threads(1); x = torch.tensor([...], dtype=torch.float64)
 *   x.sum().item().hex(), x.float().sum().item().hex()
 * (PyTorch 1.13, /usr/bin/python3). */
static void test_big_sums(void) {
    static const struct {
        int64_t n;
        double f64, f32;
    } cases[] = {
        {131077, 0x1.614c4221feea2p-2, 0x1.614e700000000p-2},
        {1000000, -0x1.f3d621c01ba82p+0, -0x1.f3d47c0000000p+0},
        {1245197, -0x1.9c65caded48b2p+3, -0x1.9c65920000000p+3},
    };
    static const int threads[] = {1, 2, 7};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Tensor *x = tensor_zeros(SHAPE(cases[c].n), false);
        for (int64_t i = 0; i < x->numel; i++) tensor_values(x)[i] = (double)(i * 7919 % 1000003) / 1000003.0 - 0.5;
        Tensor *x32 = tensor_to(x, AG_FLOAT32);
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            ag_set_num_threads(threads[t]);
            Tensor *s = tensor_sum(x), *s32 = x32 ? tensor_sum(x32) : NULL;
            CHECK(s && tensor_values(s)[0] == cases[c].f64, "sum of %lld at %d threads: %a, PyTorch %a",
                  (long long)cases[c].n, threads[t], s ? tensor_values(s)[0] : NAN, cases[c].f64);
            CHECK(s32 && tensor_values(s32)[0] == cases[c].f32, "float32 sum of %lld at %d threads: %a, "
                  "PyTorch %a", (long long)cases[c].n, threads[t], s32 ? tensor_values(s32)[0] : NAN,
                  cases[c].f32);
            tensor_release(s);
            tensor_release(s32);
        }
        tensor_release(x32);
        tensor_release(x);
    }
}

void test_threads(void) {
    int threads = ag_get_num_threads();
    test_count();
    test_run();
    test_parallel_for();
    test_fork();
    test_alloc_failure();
    test_big_sums();
    ag_set_num_threads(threads);
}
