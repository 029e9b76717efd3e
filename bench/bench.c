/*
 * bench.c — times the engine on the workloads of shared/bench/torch_ref.py,
 * with the same names, units and definitions, so the two compare line by
 * line (bench/compare.sh). One thread; each workload warmed up, then run
 * for about a second; the median is printed as "name: value unit".
 *
 * Usage: bench [--only a,b] [--min-time SECONDS] [--ag PATH_TO_AG]
 * startup, shell_script, loop_overhead, py_loop and the training runs time
 * whole ./ag processes (PATH_TO_AG); workloads ag has no side of yet print
 * "NAME: missing (ag has no side yet)";
 * mlp_memory runs only when asked for, in a process of its own.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ag.h"

static double min_time = 1.0;
static const char *ag_path = "./ag";

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Calls step() warmup times, then until min_time has passed (at least
 * min_iters times); returns the median seconds per call. */
static double bench(void (*step)(void *), void *ctx, double seconds, int warmup, int min_iters) {
    for (int i = 0; i < warmup; i++) step(ctx);
    static double times[1 << 20];
    int n = 0;
    double start = now();
    while (n < (int)(sizeof times / sizeof times[0]) && (n < min_iters || now() - start < seconds)) {
        double t0 = now();
        step(ctx);
        times[n++] = now() - t0;
    }
    qsort(times, (size_t)n, sizeof times[0], by_value);
    return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

static void emit(const char *name, double value, const char *unit) {
    printf("%s: %.4g %s\n", name, value, unit);
    fflush(stdout);
}

static void die(const char *what) {
    fprintf(stderr, "bench: %s: %s\n", what, ag_error());
    exit(1);
}

static Tensor *randn_scaled(int ndim, const int64_t *shape, double scale, bool requires_grad) {
    Tensor *t = tensor_randn(ndim, shape, false);
    if (!t) die("randn");
    for (int64_t i = 0; i < t->numel; i++) tensor_values(t)[i] *= scale;
    tensor_set_requires_grad(t, requires_grad);
    return t;
}

/* ======================================================================
 * op_overhead: y = y*1.0001 + 0.001, 5,000 times, then backward (ns/op)
 * ====================================================================== */

typedef struct {
    Tensor *x, *k, *c;
} Chain;

static void chain_step(void *ctx) {
    Chain *ch = ctx;
    tensor_zero_grad(ch->x);
    Tensor *y = tensor_retain(ch->x);
    for (int i = 0; i < 5000; i++) {
        Tensor *m = tensor_mul(y, ch->k);
        tensor_release(y);
        y = tensor_add(m, ch->c);
        tensor_release(m);
    }
    if (backward(y) != 0) die("backward");
    tensor_release(y);
}

static void op_overhead(void) {
    Chain ch = {tensor_create(1, (int64_t[]){1}, (double[]){1}, true), tensor_scalar(1.0001),
                tensor_scalar(0.001)};
    chain_step(&ch);
    double expect = pow(1.0001, 5000);
    if (fabs(tensor_values(ch.x->grad)[0] - expect) > 1e-9 * expect) die("op_overhead: wrong gradient");
    double t = bench(chain_step, &ch, min_time, 3, 5);
    emit("op_overhead", t * 1e9 / 10000, "ns/op");
    tensor_release(ch.x);
    tensor_release(ch.k);
    tensor_release(ch.c);
}

/* ======================================================================
 * mlp_step: batch 64, 784 -> 128 relu -> 10, mean squared error (ms)
 * ====================================================================== */

typedef struct {
    Tensor *x, *target, *w1, *b1, *w2, *b2;
} Mlp;

static void mlp_step_once(void *ctx) {
    Mlp *m = ctx;
    Tensor *params[] = {m->w1, m->b1, m->w2, m->b2};
    for (int i = 0; i < 4; i++) tensor_zero_grad(params[i]);
    Tensor *xw = tensor_matmul(m->x, m->w1), *pre = tensor_add(xw, m->b1), *h = tensor_relu(pre);
    Tensor *hw = tensor_matmul(h, m->w2), *out = tensor_add(hw, m->b2);
    Tensor *d = tensor_sub(out, m->target), *sq = tensor_mul(d, d), *loss = tensor_mean(sq);
    Tensor *all[] = {xw, pre, h, hw, out, d, sq};
    for (int i = 0; i < 7; i++) tensor_release(all[i]);
    if (!loss || backward(loss) != 0) die("mlp_step");
    tensor_release(loss);
}

/* The data and parameters, initialised as torch_ref.py does. */
static Mlp mlp_new(void) {
    return (Mlp){randn_scaled(2, (int64_t[]){64, 784}, 1, false),
                 randn_scaled(2, (int64_t[]){64, 10}, 1, false),
                 randn_scaled(2, (int64_t[]){784, 128}, 1 / sqrt(784), true),
                 tensor_zeros(1, (int64_t[]){128}, true),
                 randn_scaled(2, (int64_t[]){128, 10}, 1 / sqrt(128), true),
                 tensor_zeros(1, (int64_t[]){10}, true)};
}

static void mlp_free(Mlp *m) {
    Tensor *all[] = {m->x, m->target, m->w1, m->b1, m->w2, m->b2};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
}

static void mlp_step(void) {
    Mlp m = mlp_new();
    mlp_step_once(&m);
    if (!m.w1->grad || !m.b1->grad || !m.w2->grad || !m.b2->grad) die("mlp_step: no gradient");
    double t = bench(mlp_step_once, &m, min_time, 3, 5);
    emit("mlp_step", t * 1e3, "ms");
    mlp_free(&m);
}

/* ======================================================================
 * mlp_memory: the mlp_step workload for 10,000 steps in a process of its
 * own (--only mlp_memory): the peak bytes of live tensors, the process's
 * peak RSS, and how much RSS grew between step 100 and step 10,000
 * (0 when the arena and the block cache are reused, not regrown).
 * ====================================================================== */

/* Resident set size now, in bytes (Linux /proc). */
static double rss_now(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    if (f) fclose(f);
    return (double)resident * (double)sysconf(_SC_PAGESIZE);
}

static void mlp_memory(void) {
    double rss_start = rss_now();
    Mlp m = mlp_new();
    for (int i = 0; i < 100; i++) mlp_step_once(&m);
    double rss_100 = rss_now();
    for (int i = 100; i < 10000; i++) mlp_step_once(&m);
    double rss_10000 = rss_now();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    AgStats st = ag_stats();
    emit("mlp_peak_live", (double)st.peak_bytes / 1e6, "MB");
    emit("mlp_peak_rss", (double)ru.ru_maxrss * 1024 / 1e6, "MB");
    emit("mlp_rss_before", rss_start / 1e6, "MB");
    emit("mlp_rss_growth_100_to_10000", (rss_10000 - rss_100) / 1e6, "MB");
    mlp_free(&m);
}

/* ======================================================================
 * matmul_fwd_bwd: sum(A @ B) at 512, forward and backward (ms, GFLOP/s)
 * matmul_fwd: A @ B at 1024, no autograd (ms, GFLOP/s)
 * ====================================================================== */

typedef struct {
    Tensor *a, *b;
} Pair;

static void matmul_fwd_bwd_once(void *ctx) {
    Pair *p = ctx;
    tensor_zero_grad(p->a);
    tensor_zero_grad(p->b);
    Tensor *c = tensor_matmul(p->a, p->b), *s = tensor_sum(c);
    tensor_release(c);
    if (!s || backward(s) != 0) die("matmul_fwd_bwd");
    tensor_release(s);
}

static void matmul_fwd_once(void *ctx) {
    Pair *p = ctx;
    Tensor *c = tensor_matmul(p->a, p->b);
    if (!c) die("matmul_fwd");
    tensor_release(c);
}

static void matmul_fwd_bwd(void) {
    const int64_t n = 512;
    Pair p = {randn_scaled(2, (int64_t[]){n, n}, 1, true), randn_scaled(2, (int64_t[]){n, n}, 1, true)};
    matmul_fwd_bwd_once(&p);
    /* d sum(A@B)/dA = ones @ B^T: row 0 of A.grad is B's row sums. */
    for (int64_t i = 0; i < n; i++) {
        double row = 0;
        for (int64_t j = 0; j < n; j++) row += tensor_values(p.b)[i * n + j];
        if (fabs(tensor_values(p.a->grad)[i] - row) > 1e-9 * (1 + fabs(row))) die("matmul_fwd_bwd: wrong gradient");
    }
    double t = bench(matmul_fwd_bwd_once, &p, min_time, 3, 5);
    emit("matmul_fwd_bwd", t * 1e3, "ms");
    emit("matmul_fwd_bwd_gflops", 3 * 2 * pow((double)n, 3) / 1e9 / t, "GFLOP/s");
    tensor_release(p.a);
    tensor_release(p.b);
}

static void matmul_fwd(void) {
    const int64_t n = 1024;
    Pair p = {randn_scaled(2, (int64_t[]){n, n}, 1, false), randn_scaled(2, (int64_t[]){n, n}, 1, false)};
    double t = bench(matmul_fwd_once, &p, min_time, 3, 5);
    emit("matmul_fwd", t * 1e3, "ms");
    emit("matmul_fwd_gflops", 2 * pow((double)n, 3) / 1e9 / t, "GFLOP/s");
    tensor_release(p.a);
    tensor_release(p.b);
}

/* ======================================================================
 * float32 (ag's own, not torch_ref.py's; issue 18): the kernels in float32
 * against the same in float64, in one run: matmul_fwd's 1024^3 product
 * (GFLOP/s: 2 a multiply-add), x * y + x and tanh(x) over 10^6 elements
 * with no autograd (GFLOP/s: 2 and 1 an element); each float32 figure's
 * ratio to float64's is printed as float32_..._ratio.
 * ====================================================================== */

typedef struct {
    Tensor *x, *y;
    int which; /* 0: x @ y, 1: x * y + x, 2: tanh(x) */
} Kernel;

static void kernel_once(void *ctx) {
    Kernel *k = ctx;
    Tensor *r = NULL;
    if (k->which == 0) r = tensor_matmul(k->x, k->y);
    if (k->which == 1) {
        Tensor *xy = tensor_mul(k->x, k->y);
        r = tensor_add(xy, k->x);
        tensor_release(xy);
    }
    if (k->which == 2) r = tensor_tanh(k->x);
    if (!r) die("float32");
    tensor_release(r);
}

/* Seconds of one kernel_once at dtype. */
static double kernel_time(int which, AgDtype dtype) {
    int64_t n = which == 0 ? 1024 : 1000000;
    int64_t shape[2] = {n, n};
    Tensor *x = randn_scaled(which == 0 ? 2 : 1, which == 0 ? shape : &n, 1, false);
    Tensor *y = randn_scaled(which == 0 ? 2 : 1, which == 0 ? shape : &n, 1, false);
    Kernel k = {tensor_to(x, dtype), tensor_to(y, dtype), which};
    if (!k.x || !k.y) die("float32");
    double t = bench(kernel_once, &k, min_time, 3, 5);
    tensor_release(k.x);
    tensor_release(k.y);
    tensor_release(x);
    tensor_release(y);
    return t;
}

static void float32(void) {
    static const char *const names[] = {"matmul", "mul_add", "tanh"};
    const double flops[] = {2 * pow(1024.0, 3), 2e6, 1e6};
    for (int which = 0; which < 3; which++) {
        double t64 = kernel_time(which, AG_FLOAT64), t32 = kernel_time(which, AG_FLOAT32);
        char name[64];
        snprintf(name, sizeof name, "float64_%s_gflops", names[which]);
        emit(name, flops[which] / 1e9 / t64, "GFLOP/s");
        snprintf(name, sizeof name, "float32_%s_gflops", names[which]);
        emit(name, flops[which] / 1e9 / t32, "GFLOP/s");
        snprintf(name, sizeof name, "float32_%s_ratio", names[which]);
        emit(name, t64 / t32, "x");
    }
}

/* ======================================================================
 * elementwise: sum(tanh(x)*x + x) over 1e6 elements (ms, GB/s of 16 B/elem)
 * ====================================================================== */

static void elementwise_once(void *ctx) {
    Tensor *x = ctx;
    tensor_zero_grad(x);
    Tensor *t = tensor_tanh(x), *tx = tensor_mul(t, x), *u = tensor_add(tx, x), *s = tensor_sum(u);
    tensor_release(t);
    tensor_release(tx);
    tensor_release(u);
    if (!s || backward(s) != 0) die("elementwise");
    tensor_release(s);
}

static void elementwise(void) {
    const int64_t n = 1000000;
    Tensor *x = randn_scaled(1, &n, 1, true);
    elementwise_once(x);
    for (int64_t i = 0; i < n; i++) {
        double th = tanh(tensor_values(x)[i]), want = (1 - th * th) * tensor_values(x)[i] + th + 1;
        if (fabs(tensor_values(x->grad)[i] - want) > 1e-12 * (1 + fabs(want))) die("elementwise: wrong gradient");
    }
    double t = bench(elementwise_once, x, min_time, 3, 5);
    emit("elementwise", t * 1e3, "ms");
    emit("elementwise_gbs", 16.0 * (double)n / 1e9 / t, "GB/s");
    tensor_release(x);
}

/* ======================================================================
 * startup and shell_script: whole ./ag processes
 * ====================================================================== */

static const char *script_path;
extern char **environ;

/* Runs ag with args (NULL-terminated), stdin from script_path or /dev/null,
 * output discarded (stderr too: a long script's arena note); dies unless it
 * exits 0. posix_spawn, as Python's subprocess does on Linux. */
static int spawn_ag(char *const *argv) {
    posix_spawn_file_actions_t io;
    posix_spawn_file_actions_init(&io);
    posix_spawn_file_actions_addopen(&io, 0, script_path ? script_path : "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&io, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&io, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int status, err = posix_spawn(&pid, ag_path, &io, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&io);
    if (err || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

static void run_ag(void *ctx) {
    if (spawn_ag(ctx) != 0) die("running ./ag (build it with make)");
}

static void startup(void) {
    char *argv[] = {(char *)ag_path, "-e", "x = tensor([[1, 2]], grad); backward(sum(x*x))", NULL};
    script_path = NULL;
    double t = bench(run_ag, argv, 0.0, 1, 5);
    emit("startup", t * 1e3, "ms");
}

/* The 10,002-line script: x, y = x, 10,000 steps, backward. */
static void write_script(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) die("writing the shell_script workload");
    fprintf(f, "x = tensor([1.0], grad)\ny = x\n");
    for (int i = 0; i < 10000; i++) fprintf(f, "y = y*1.0001 + 0.001\n");
    fprintf(f, "backward(y)\n");
    fclose(f);
}

static void shell_script(void) {
    char path[] = "/tmp/ag-bench-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) die("mkstemp");
    close(fd);
    write_script(path);
    char *argv[] = {(char *)ag_path, NULL};
    script_path = path;
    double t = bench(run_ag, argv, 0.0, 1, 5);
    emit("shell_script", t * 1e3, "ms");
    unlink(path);
}

/* ======================================================================
 * Scripts timed as whole processes minus an empty one (torch_ref.py times
 * the same programs in process)
 * ====================================================================== */

/* The median time of running text as a script, less that of an empty one. */
static double script_time(const char *text) {
    char path[] = "/tmp/ag-bench-XXXXXX", empty[] = "/tmp/ag-bench-XXXXXX";
    int fd = mkstemp(path), fe = mkstemp(empty);
    if (fd < 0 || fe < 0) die("mkstemp");
    FILE *f = fdopen(fd, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) die("writing a script workload");
    close(fe);
    char *argv[] = {(char *)ag_path, NULL};
    script_path = empty;
    double base = bench(run_ag, argv, 0.0, 1, 5);
    script_path = path;
    double t = bench(run_ag, argv, 0.0, 1, 5);
    script_path = NULL;
    unlink(path);
    unlink(empty);
    return t - base;
}

/* A script-level loop: for i in range(1000000) { s = s + i }, s a 0-d
 * constant tensor. ns per iteration. */
static void loop_overhead(void) {
    double t = script_time("s = tensor(0.)\nfor i in range(1000000) { s = s + i }\n");
    emit("loop_overhead", t * 1e9 / 1e6, "ns/iter");
}

/* Writes text to the file dir/name, whose path goes to path. */
static void write_file(const char *dir, const char *name, const char *text, char path[static 256]) {
    snprintf(path, 256, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) die("writing a script workload");
}

/* py_loop: torch_ref.py's .py file run as `ag FILE.py`, the whole process
 * less `ag EMPTY.py` (torch_ref.py subtracts `python3 -c "import torch"`).
 * ns per iteration. The line torch.set_default_dtype(torch.float64) is kept
 * where this ag knows it; ag computes in float64 either way. */
static void py_loop(void) {
    static const char dtype[] = "torch.set_default_dtype(torch.float64)\n";
    char dir[] = "/tmp/ag-bench-XXXXXX", probe[256], loop[256], empty[256], text[512];
    if (!mkdtemp(dir)) die("mkdtemp");
    snprintf(text, sizeof text, "import torch\n%s", dtype);
    write_file(dir, "probe.py", text, probe);
    char *argv[] = {(char *)ag_path, probe, NULL};
    script_path = NULL;
    bool has_dtype = spawn_ag(argv) == 0;
    snprintf(text, sizeof text,
             "import torch\n%ss = torch.tensor(0.)\nfor i in range(1000000):\n    s = s + i\nprint(s)\n",
             has_dtype ? dtype : "");
    write_file(dir, "loop.py", text, loop);
    write_file(dir, "empty.py", "", empty);
    argv[1] = empty;
    double base = bench(run_ag, argv, 0.0, 1, 5);
    argv[1] = loop;
    double t = bench(run_ag, argv, 0.0, 1, 5);
    unlink(probe);
    unlink(loop);
    unlink(empty);
    rmdir(dir);
    if (!has_dtype) fprintf(stderr, "# py_loop: this ag has no torch.set_default_dtype: line left out\n");
    emit("py_loop", (t - base) * 1e9 / 1e6, "ns/iter");
}

/* A workload written as a .py file in bench/ that ag runs unchanged: the
 * whole process less `ag EMPTY.py`, in seconds. */
static double py_file_time(const char *path) {
    char dir[] = "/tmp/ag-bench-XXXXXX", empty[256];
    if (!mkdtemp(dir)) die("mkdtemp");
    write_file(dir, "empty.py", "", empty);
    char *argv[] = {(char *)ag_path, empty, NULL};
    script_path = NULL;
    double base = bench(run_ag, argv, 0.0, 1, 5);
    argv[1] = (char *)path;
    double t = bench(run_ag, argv, 0.0, 1, 5);
    unlink(empty);
    rmdir(dir);
    return t - base;
}

/* nn_train: bench/nn_train.py (torch_ref.py's torch.nn workload): the 100
 * steps, with the data, the model's build and torch.nn's first load. ms. */
static void nn_train(void) { emit("nn_train", py_file_time("bench/nn_train.py") * 1e3, "ms"); }

/* double_backward: bench/double_backward.py (a gradient penalty through
 * autograd.grad(create_graph=True)), its 100 steps with the data: ms a step. */
static void double_backward(void) {
    emit("double_backward", py_file_time("bench/double_backward.py") * 1e3 / 100, "ms");
}

/* A workload written as an ag script in bench/ (run from the repository
 * root, as make bench does): the whole process less an empty one, ms. */
static void script_file(const char *name) {
    char path[256];
    snprintf(path, sizeof path, "bench/%s.ag", name);
    FILE *f = fopen(path, "r");
    if (!f) die(path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    emit(name, script_time(text) * 1e3, "ms");
}

/* The training workloads of torch_ref.py: bench/train_poly.ag,
 * bench/train_moons.ag. */
static void train_poly(void) { script_file("train_poly"); }
static void train_moons(void) { script_file("train_moons"); }

/* ====================================================================== */

/* In torch_ref.py's order. A row whose run is NULL is a workload of
 * torch_ref.py that ag has no side of yet: it prints "NAME: missing ...",
 * which compare.sh shows as missing, so the table names what is left. */
static const struct {
    const char *name;
    void (*run)(void);
    bool by_default; /* mlp_memory wants a process of its own */
} workloads[] = {
    {"op_overhead", op_overhead, true},       {"mlp_step", mlp_step, true},
    {"matmul_fwd_bwd", matmul_fwd_bwd, true}, {"matmul_fwd", matmul_fwd, true},
    {"elementwise", elementwise, true},       {"startup", startup, true},
    {"shell_script", shell_script, true},     {"loop_overhead", loop_overhead, true},
    {"train_poly", train_poly, true},         {"train_moons", train_moons, true},
    {"double_backward", double_backward, true},          {"nn_train", nn_train, true},
    {"py_loop", py_loop, true},               {"mlp_memory", mlp_memory, false},
    {"float32", float32, false},
};
#define WORKLOAD_COUNT (sizeof workloads / sizeof workloads[0])

static bool wanted(const char *only, const char *name, bool by_default) {
    if (!only) return by_default;
    size_t n = strlen(name);
    for (const char *p = only; (p = strstr(p, name)) != NULL; p += n)
        if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return true;
    return false;
}

/* The first name in the comma-separated list only that no row has (copied
 * to buf), or NULL. */
static const char *unknown_workload(const char *only, char buf[static 64]) {
    for (const char *p = only;; p++) {
        size_t n = strcspn(p, ",");
        snprintf(buf, 64, "%.*s", (int)n, p);
        bool known = n == 0;
        for (size_t i = 0; i < WORKLOAD_COUNT && !known; i++) known = strcmp(buf, workloads[i].name) == 0;
        if (!known) return buf;
        p += n;
        if (!*p) return NULL;
    }
}

int main(int argc, char **argv) {
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--min-time") == 0 && i + 1 < argc) min_time = atof(argv[++i]);
        else if (strcmp(argv[i], "--ag") == 0 && i + 1 < argc) ag_path = argv[++i];
        else {
            fprintf(stderr, "usage: bench [--only a,b] [--min-time SECONDS] [--ag PATH]\n");
            return 2;
        }
    }
    char name[64];
    if (only && unknown_workload(only, name)) {
        fprintf(stderr, "bench: unknown workload '%s'\n", name);
        return 2;
    }
    ag_seed(0);
    int threads = ag_get_num_threads();
    fprintf(stderr, "# ag %s, float64, %d thread%s, matmul: %s; figures are medians\n", AG_VERSION,
            threads, threads == 1 ? "" : "s", ag_blas_name());
    for (size_t i = 0; i < WORKLOAD_COUNT; i++) {
        if (!wanted(only, workloads[i].name, workloads[i].by_default)) continue;
        if (workloads[i].run) workloads[i].run();
        else printf("%s: missing (ag has no side yet)\n", workloads[i].name);
    }
    return 0;
}
