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
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_THREADS = 256, TASK_BITS = 9, SPINS = 20000 };
_Static_assert(MAX_THREADS < 1 << TASK_BITS, "a job's tasks fit below the count");

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;        /* workers wait here for a new job */
    pthread_cond_t done;        /* the caller waits here for the last task */
    pthread_t worker[MAX_THREADS];
    unsigned first_job[MAX_THREADS]; /* the job word each worker starts from */
    int workers;                /* started so far */
    /* The job word: a count of jobs above TASK_BITS, the job's tasks
     * below, so that a worker reads a job's task count in the same load
     * that tells it of the job (a worker a job does not need may look
     * while the next job's fields are being written). */
    atomic_uint job;
    atomic_int remaining;       /* tasks of the job not finished */
    atomic_bool busy;           /* a thread is running a job */
    bool stopping;
    AgTaskFn fn;
    void *ctx;
} Pool;

static Pool pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
                    .done = PTHREAD_COND_INITIALIZER};
static int num_threads;                 /* 0: not decided yet */
static double grain_scale = 1.0;        /* tests shrink thresholds (ag_parallel_set_grain_scale) */
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
    ag_blas_set_threads(num_threads);
    return 0;
}

void ag_parallel_set_grain_scale(double scale) { grain_scale = scale > 0 ? scale : 1.0; }

/* ---- the workers ---- */

static void run_task(int task) {
    inside_job = true;
    pool.fn(pool.ctx, task);
    inside_job = false;
    if (atomic_fetch_sub_explicit(&pool.remaining, 1, memory_order_acq_rel) == 1) {
        pthread_mutex_lock(&pool.lock);
        pthread_cond_signal(&pool.done);
        pthread_mutex_unlock(&pool.lock);
    }
}

/* Waits for a job word other than seen: spins a while (a job follows a
 * job in a kernel's loop), then sleeps. Returns the new one, or seen when
 * the pool is stopping. */
static unsigned wait_for_job(unsigned seen) {
    for (int i = 0; i < SPINS; i++) {
        unsigned g = atomic_load_explicit(&pool.job, memory_order_acquire);
        if (g != seen) return g;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(&pool.lock);
    unsigned job;
    while ((job = atomic_load_explicit(&pool.job, memory_order_acquire)) == seen &&
           !pool.stopping)
        pthread_cond_wait(&pool.wake, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    return job;
}

static void *worker_main(void *arg) {
    int index = (int)(intptr_t)arg; /* runs task index + 1 */
    unsigned seen = pool.first_job[index];
    for (;;) {
        unsigned job = wait_for_job(seen);
        if (job == seen) return NULL; /* stopping */
        seen = job;
        /* Needed: the job cannot end, nor the next one's fields be written,
         * before this task is done. */
        if (index + 1 < (int)(job & ((1u << TASK_BITS) - 1))) run_task(index + 1);
    }
}

/* ---- start, stop, fork ---- */

static void stop_workers(void) {
    if (inside_job || atomic_load(&pool.busy)) return; /* exit from inside a job: let them be */
    pthread_mutex_lock(&pool.lock);
    pool.stopping = true;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < pool.workers; i++) pthread_join(pool.worker[i], NULL);
    pool.workers = 0;
    pool.stopping = false;
}

/* In the child of a fork: the workers were the parent's and are gone. */
static void forget_workers(void) {
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.workers = 0;
    pool.stopping = false;
    atomic_store(&pool.busy, false);
    atomic_store(&pool.job, 0);
    inside_job = false;
}

static void install_hooks(void) {
    pthread_atfork(NULL, NULL, forget_workers);
    atexit(stop_workers);
}

/* Starts workers until there are want; false if none more can be made. */
static bool start_workers(int want) {
    pthread_once(&hooks_once, install_hooks);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* a new thread inherits the mask */
    while (pool.workers < want) {
        /* A new worker must not take the last job for a new one. */
        pool.first_job[pool.workers] = atomic_load(&pool.job);
        if (pthread_create(&pool.worker[pool.workers], NULL, worker_main,
                           (void *)(intptr_t)pool.workers) != 0)
            break;
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
    atomic_store_explicit(&pool.remaining, tasks, memory_order_relaxed);
    unsigned count = (atomic_load_explicit(&pool.job, memory_order_relaxed) >> TASK_BITS) + 1;
    pthread_mutex_lock(&pool.lock);
    atomic_store_explicit(&pool.job, count << TASK_BITS | (unsigned)tasks, memory_order_release);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    run_task(0);
    for (int i = 0; i < SPINS && atomic_load_explicit(&pool.remaining, memory_order_acquire) > 0; i++) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(&pool.lock);
    while (atomic_load_explicit(&pool.remaining, memory_order_acquire) > 0)
        pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    atomic_store(&pool.busy, false);
}

int ag_parallel_tasks(int64_t work, int64_t grain) {
    if (grain_scale != 1.0) grain = (int64_t)((double)grain * grain_scale);
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
    int tasks = n < 2 * grain && grain_scale == 1.0 ? 1 : ag_parallel_tasks(n, grain);
    if (tasks <= 1) {
        fn(ctx, 0, n);
        return;
    }
    RangeJob job = {n, tasks, fn, ctx};
    ag_parallel_run(tasks, range_task, &job);
}
