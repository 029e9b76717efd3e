/*
 * parallel.c — the engine's thread pool: ag_parallel_run hands tasks
 * 1..n-1 of a job to worker threads and runs task 0 on the caller;
 * ag_parallel_for splits a range of work into such tasks.
 *
 * It is not a scheduler: a job's tasks are fixed before it starts (task i
 * on worker i), and no kernel's result may depend on how many there are
 * (ENGINE.md: the same bits for every thread count). A kernel splits only
 * work whose pieces are computed the same wherever they run: blocks of an
 * element-wise loop, tiles of a matrix product, the fixed blocks of a sum.
 *
 * The pool starts at the first job that wants more than one thread, never
 * at start-up (a process that computes nothing large pays nothing), and
 * below a kernel's threshold ag_parallel_for calls the kernel inline,
 * touching nothing here (the op_overhead path). Workers never allocate and
 * never call back into the engine's error funnel: a kernel allocates what
 * its tasks need before the job starts. They block every signal, so that
 * Ctrl-C reaches the thread that runs the shell. After fork the child
 * starts with no pool and makes its own at its first job; at exit the
 * workers are stopped and joined.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "internal.h"

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_THREADS = 256, SPINS = 4000 };

/* The workers wait on semaphores, which count: a post is never lost. (A
 * first version waited on condition variables and hung once, 7 threads on
 * 2 cores, the caller asleep with every task done: a lost
 * pthread_cond_signal, as glibc's bug 25847 describes for versions before
 * 2.38, or a fault of that version's own; semaphores leave no room for
 * either.) */
typedef struct {
    pthread_t worker[MAX_THREADS];
    sem_t go[MAX_THREADS];      /* worker i: a job wants its task i + 1 */
    sem_t done;                 /* a worker's task is done */
    int workers;                /* started so far */
    atomic_bool busy;           /* a thread is running a job */
    atomic_bool stopping;
    AgTaskFn fn;                /* the job: written before the posts */
    void *ctx;
} Pool;

static Pool pool;
static int num_threads;                 /* 0: not decided yet */
static atomic_int spins;                /* waits spin this many times before sleeping */
static _Thread_local bool inside_job;   /* nested jobs run inline */
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

/* ---- how many threads ---- */

/* The CPUs this process may run on, less where a cgroup's cpu.max quota
 * gives it fewer (a container limited to 2 CPUs on a 64-core host). */
static int cpus_available(void) {
    int n = 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
    FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
    if (f) {
        char quota[32];
        long long period = 0;
        if (fscanf(f, "%31s %lld", quota, &period) == 2 && strcmp(quota, "max") != 0 && period > 0) {
            long long q = atoll(quota), cpus = (q + period - 1) / period;
            if (cpus >= 1 && cpus < n) n = (int)cpus;
        }
        fclose(f);
    }
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
}

/* AG_NUM_THREADS, when it is a positive integer; else the CPUs available. */
static int default_threads(void) {
    const char *env = getenv("AG_NUM_THREADS");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end == '\0' && v >= 1) return v > MAX_THREADS ? MAX_THREADS : (int)v;
    }
    return cpus_available();
}

int ag_get_num_threads(void) {
    if (num_threads == 0) num_threads = default_threads();
    return num_threads;
}

int ag_set_num_threads(int n) {
    if (n < 1) return ag_fail("set_num_threads expects a positive integer"), -1;
    num_threads = n > MAX_THREADS ? MAX_THREADS : n;
    if (pool.workers > 0) spins = num_threads <= cpus_available() ? SPINS : 0;
    ag_blas_set_threads(num_threads);
    return 0;
}

double ag_parallel_grain_scale = 1.0;

void ag_parallel_set_grain_scale(double scale) {
    ag_parallel_grain_scale = scale > 0 ? scale : 1.0;
}

/* ---- the workers ---- */

static void run_task(int task) {
    inside_job = true;
    pool.fn(pool.ctx, task);
    inside_job = false;
}

/* sem_wait, after spinning a while where a job follows a job (in a
 * kernel's loop) and there is a core for each thread; EINTR retried. */
static void wait_on(sem_t *s) {
    int n = atomic_load_explicit(&spins, memory_order_relaxed);
    for (int i = 0; i < n; i++) {
        if (sem_trywait(s) == 0) return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    while (sem_wait(s) != 0) continue;
}

static void *worker_main(void *arg) {
    int index = (int)(intptr_t)arg; /* runs task index + 1 */
    for (;;) {
        wait_on(&pool.go[index]);
        if (atomic_load(&pool.stopping)) return NULL;
        run_task(index + 1);
        sem_post(&pool.done);
    }
}

/* ---- start, stop, fork ---- */

static void stop_workers(void) {
    if (inside_job || atomic_load(&pool.busy)) return; /* exit from inside a job: let them be */
    atomic_store(&pool.stopping, true);
    for (int i = 0; i < pool.workers; i++) sem_post(&pool.go[i]);
    for (int i = 0; i < pool.workers; i++) pthread_join(pool.worker[i], NULL);
    pool.workers = 0;
    atomic_store(&pool.stopping, false);
}

/* In the child of a fork: the workers were the parent's and are gone; the
 * semaphores are made again at the next start. */
static void forget_workers(void) {
    pool.workers = 0;
    atomic_store(&pool.busy, false);
    atomic_store(&pool.stopping, false);
    inside_job = false;
}

static void install_hooks(void) {
    pthread_atfork(NULL, NULL, forget_workers);
    atexit(stop_workers);
}

/* Starts workers until there are want; false if none more can be made. */
static bool start_workers(int want) {
    pthread_once(&hooks_once, install_hooks);
    if (pool.workers == 0) sem_init(&pool.done, 0, 0);
    /* Spinning helps only with a core for every thread. */
    spins = ag_get_num_threads() <= cpus_available() ? SPINS : 0;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* a new thread inherits the mask */
    while (pool.workers < want) {
        int i = pool.workers;
        sem_init(&pool.go[i], 0, 0);
        if (pthread_create(&pool.worker[i], NULL, worker_main, (void *)(intptr_t)i) != 0) break;
        pool.workers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return pool.workers >= want;
}

/* ---- jobs ---- */

static void run_inline(int tasks, AgTaskFn fn, void *ctx) {
    for (int t = 0; t < tasks; t++) fn(ctx, t);
}

void ag_parallel_run(int tasks, AgTaskFn fn, void *ctx) {
    bool expected = false;
    if (tasks <= 1 || inside_job ||
        !atomic_compare_exchange_strong(&pool.busy, &expected, true)) {
        run_inline(tasks, fn, ctx);
        return;
    }
    if (pool.workers < tasks - 1 && !start_workers(tasks - 1) && pool.workers < tasks - 1) {
        atomic_store(&pool.busy, false);
        run_inline(tasks, fn, ctx);
        return;
    }
    pool.fn = fn, pool.ctx = ctx;
    for (int i = 0; i < tasks - 1; i++) sem_post(&pool.go[i]);
    run_task(0);
    for (int i = 0; i < tasks - 1; i++) wait_on(&pool.done);
    atomic_store(&pool.busy, false);
}

int ag_parallel_tasks(int64_t work, int64_t grain) {
    if (ag_parallel_grain_scale != 1.0) grain = (int64_t)((double)grain * ag_parallel_grain_scale);
    if (grain < 1) grain = 1;
    if (work < 2 * grain) return 1;
    int threads = ag_get_num_threads();
    int64_t most = work / grain;
    return most < threads ? (int)most : threads;
}

typedef struct {
    int64_t n;
    int tasks;
    AgRangeFn fn;
    void *ctx;
} RangeJob;

static void range_task(void *arg, int task) {
    const RangeJob *j = arg;
    int64_t size = j->n / j->tasks, extra = j->n % j->tasks; /* the first extra get one more */
    int64_t begin = task * size + (task < extra ? task : extra);
    int64_t end = begin + size + (task < extra);
    if (begin < end) j->fn(j->ctx, begin, end);
}

void ag_parallel_for(int64_t n, int64_t grain, AgRangeFn fn, void *ctx) {
    if (n <= 0) return;
    int tasks = ag_parallel_worth(n, grain) ? ag_parallel_tasks(n, grain) : 1;
    if (tasks <= 1) {
        fn(ctx, 0, n);
        return;
    }
    RangeJob job = {n, tasks, fn, ctx};
    ag_parallel_run(tasks, range_task, &job);
}
