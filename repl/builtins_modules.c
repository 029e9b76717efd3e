/*
 * builtins_modules.c — the functions of Python's math and random modules,
 * as rows of the builtin table flagged with their module (found by
 * builtin_in_module, not by name): math.exp(x) takes and gives Python
 * numbers; random is CPython's own generator (MT19937, seeded as CPython's
 * init_by_array seeds it), so random.seed(42); random.random() gives
 * CPython's numbers, and so do uniform, randint, randrange, choice, shuffle,
 * gauss and getrandbits built on them.
 */
#define _XOPEN_SOURCE 700 /* realpath: sys.path[0], the script's folder */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtins.h"
#include "interrupt.h"
#include "modules.h"

/* ======================================================================
 * math
 * ====================================================================== */

/* CPython's error for m's result r of x (math_1, math_2, math_pow and
 * m_tgamma's rules), or NULL. */
static const char *math_error(const MathFunction *m, const double x[2], double r) {
    static const char *domain = "ValueError: math domain error";
    bool finite = isfinite(x[0]) && (m->arity == 1 || isfinite(x[1]));
    bool number = !isnan(x[0]) && (m->arity == 1 || !isnan(x[1]));
    if (m->errors == MATH_UNCHECKED || m->integral) return NULL;
    if (isnan(r) && number) return domain;
    if (!isinf(r) || !finite) return NULL;
    switch (m->errors) {
    case MATH_OVERFLOW: return "OverflowError: math range error";
    case MATH_POLE: return x[0] <= 0 && x[0] == floor(x[0]) ? domain : "OverflowError: math range error";
    case MATH_POW: return x[0] == 0 ? domain : "OverflowError: math range error";
    default: return domain;
    }
}

/* math.NAME(x) or math.NAME(x, y): the row's name finds the function. */
static BUILTIN(py_math) {
    const MathFunction *m = module_math_function(a->b->name, strlen(a->b->name));
    double x[2] = {0, 0};
    for (int i = 0; i < m->arity; i++) {
        const Value *v = &a->arg[i];
        bool number = value_is_scalar(v) || (v->kind == VAL_TENSOR && v->as.tensor->numel == 1);
        if (!number)
            return arg_error(s, a, i, "TypeError: must be real number, not %s", value_type_name(v));
        x[i] = value_is_scalar(v) ? value_scalar(v) : tensor_values(v->as.tensor)[0];
    }
    double r = m->arity == 1 ? m->one(x[0]) : m->two(x[0], x[1]);
    const char *error = math_error(m, x, r);
    if (error) return session_fail(s, a->line, a->col, "%s", error);
    if (!m->integral) {
        *out = value_number(r);
        return true;
    }
    if (!isfinite(r) || fabs(r) >= 0x1p63)
        return session_fail(s, a->line, a->col, "OverflowError: cannot convert float %s to "
                            "integer", isnan(r) ? "NaN" : "infinity");
    *out = s->python ? (Value){.kind = VAL_INT, .as.integer = (int64_t)r} : value_number(r);
    return true;
}

/* ======================================================================
 * random: CPython's Mersenne Twister (Modules/_randommodule.c)
 * ====================================================================== */

enum { MT_N = 624, MT_M = 397 };

static void mt_init(PyRandom *r, uint32_t s) {
    r->mt[0] = s;
    for (int i = 1; i < MT_N; i++)
        r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
    r->index = MT_N;
}

/* CPython's init_by_array: the seed's 32-bit words, least significant first. */
static void mt_init_by_array(PyRandom *r, const uint32_t *key, int n) {
    mt_init(r, 19650218u);
    int i = 1, j = 0;
    for (int k = MT_N > n ? MT_N : n; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++, j++;
        if (i >= MT_N) r->mt[0] = r->mt[MT_N - 1], i = 1;
        if (j >= n) j = 0;
    }
    for (int k = MT_N - 1; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= MT_N) r->mt[0] = r->mt[MT_N - 1], i = 1;
    }
    r->mt[0] = 0x80000000u;
    r->gauss_has = false;
    r->seeded = true;
}

static uint32_t mt_next(PyRandom *r) {
    if (r->index >= MT_N) {
        for (int k = 0; k < MT_N; k++) {
            uint32_t y = (r->mt[k] & 0x80000000u) | (r->mt[(k + 1) % MT_N] & 0x7fffffffu);
            r->mt[k] = r->mt[(k + MT_M) % MT_N] ^ (y >> 1) ^ (y & 1 ? 0x9908b0dfu : 0);
        }
        r->index = 0;
    }
    uint32_t y = r->mt[r->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

/* An unseeded generator is seeded from the clock, as CPython's from the OS. */
static PyRandom *generator(Session *s) {
    if (!s->random.seeded) {
        uint32_t key[2] = {(uint32_t)time(NULL), (uint32_t)clock()};
        mt_init_by_array(&s->random, key, 2);
    }
    return &s->random;
}

static double random_double(PyRandom *r) {
    uint32_t a = mt_next(r) >> 5, b = mt_next(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* getrandbits(k), k <= 63: CPython's words, least significant first. */
static uint64_t random_bits(PyRandom *r, int k) {
    if (k <= 32) return mt_next(r) >> (32 - k);
    uint64_t low = mt_next(r), high = mt_next(r) >> (64 - k);
    return low | high << 32;
}

/* _randbelow(n): getrandbits(n.bit_length()) until below n. */
static int64_t random_below(PyRandom *r, int64_t n) {
    int k = 0;
    while (k < 63 && ((uint64_t)1 << k) <= (uint64_t)n) k++;
    uint64_t v;
    do v = random_bits(r, k);
    while (v >= (uint64_t)n);
    return (int64_t)v;
}

static bool int_arg(Session *s, CallArgs *a, int i, int64_t *out) {
    const Value *v = &a->arg[i];
    if (v->kind == VAL_INT || v->kind == VAL_BOOL) return *out = value_int(v), true;
    return arg_error(s, a, i, "TypeError: '%s' object cannot be interpreted as an integer",
                     value_type_name(v));
}

static BUILTIN(py_random_seed) {
    (void)out;
    const Value *v = &a->arg[0];
    if (v->kind == VAL_NONE || v->kind == VAL_VOID) {
        s->random.seeded = false;
        generator(s);
        return true;
    }
    if (v->kind != VAL_INT && v->kind != VAL_BOOL)
        return arg_error(s, a, 0, "ag's random.seed takes an int (or None), not %s",
                         value_type_name(v));
    int64_t n = value_int(v);
    uint64_t m = n < 0 ? 0 - (uint64_t)n : (uint64_t)n; /* CPython seeds with abs(n) */
    uint32_t key[2] = {(uint32_t)m, (uint32_t)(m >> 32)};
    mt_init_by_array(&s->random, key, key[1] ? 2 : 1);
    return true;
}

static BUILTIN(py_random_random) {
    (void)a;
    *out = value_number(random_double(generator(s)));
    return true;
}

static BUILTIN(py_random_uniform) {
    double lo, hi;
    if (!arg_number(s, a, 0, &lo) || !arg_number(s, a, 1, &hi)) return false;
    *out = value_number(lo + (hi - lo) * random_double(generator(s)));
    return true;
}

/* randrange(start, stop=None, step=1) as CPython 3.11's. */
static bool randrange(Session *s, CallArgs *a, int64_t start, int64_t stop, int64_t step,
                      Value *out) {
    int64_t width = stop - start, n;
    if (step == 1) {
        if (width <= 0)
            return session_fail(s, a->line, a->col, "ValueError: empty range for randrange() "
                                "(%lld, %lld, %lld)", (long long)start, (long long)stop, (long long)width);
        n = width;
    } else {
        if (step == 0) return session_fail(s, a->line, a->col, "ValueError: zero step for randrange()");
        n = step > 0 ? (width + step - 1) / step : (width + step + 1) / step;
        if (n <= 0) return session_fail(s, a->line, a->col, "ValueError: empty range for randrange()");
    }
    *out = (Value){.kind = VAL_INT, .as.integer = start + step * random_below(generator(s), n)};
    return true;
}

static BUILTIN(py_random_randrange) {
    int64_t start = 0, stop = 0, step = 1;
    if (!int_arg(s, a, 0, &start)) return false;
    if (arg_present(a, 1) && !int_arg(s, a, 1, &stop)) return false;
    if (a->given[2] && !int_arg(s, a, 2, &step)) return false;
    if (!arg_present(a, 1)) stop = start, start = 0;
    return randrange(s, a, start, stop, step, out);
}

static BUILTIN(py_random_randint) {
    int64_t lo = 0, hi = 0;
    return int_arg(s, a, 0, &lo) && int_arg(s, a, 1, &hi) && randrange(s, a, lo, hi + 1, 1, out);
}

static BUILTIN(py_random_getrandbits) {
    int64_t k = 0;
    if (!arg_int(s, a, 0, "the number of bits", 0, 63, &k)) return false;
    *out = (Value){.kind = VAL_INT, .as.integer = k ? (int64_t)random_bits(generator(s), (int)k) : 0};
    return true;
}

/* random.choice of an object: seq[randbelow(len(seq))] through its class's
 * __len__ and __getitem__, as CPython's. */
static bool choice_of_object(Session *s, CallArgs *a, Value *out) {
    Value len;
    bool found;
    if (!session_call_special(s, a->line, a->col, &a->arg[0], "__len__", NULL, 0, &len, &found))
        return false;
    if (!found || !value_is_int(&len)) {
        value_release(&len);
        return arg_error(s, a, 0, "TypeError: object of type '%s' has no len()",
                         value_type_name(&a->arg[0]));
    }
    int64_t n = value_int(&len);
    if (n <= 0) return arg_error(s, a, 0, "IndexError: Cannot choose from an empty sequence");
    Value index = {.kind = VAL_INT, .as.integer = (int64_t)random_below(generator(s), n)};
    if (!session_call_special(s, a->line, a->col, &a->arg[0], "__getitem__", &index, 1, out, &found))
        return false;
    return found || arg_error(s, a, 0, "TypeError: '%s' object is not subscriptable",
                              value_type_name(&a->arg[0]));
}

static BUILTIN(py_random_choice) {
    if (a->arg[0].kind == VAL_INSTANCE) return choice_of_object(s, a, out);
    int64_t n = value_item_count(&a->arg[0]);
    if (n <= 0)
        return arg_error(s, a, 0, n == 0 ? "IndexError: Cannot choose from an empty sequence"
                                         : "TypeError: object has no len()");
    return value_item(&a->arg[0], random_below(generator(s), n), true, out) ||
           session_fail(s, a->line, a->col, "%s", ag_error());
}

static BUILTIN(py_random_shuffle) {
    (void)out;
    const Value *v = &a->arg[0];
    if (v->kind != VAL_LIST || v->as.list->tuple)
        return arg_error(s, a, 0, "TypeError: ag's random.shuffle takes a list, not %s",
                         value_type_name(v));
    ValueList *l = v->as.list;
    for (int i = l->count - 1; i > 0; i--) {
        int j = (int)random_below(generator(s), i + 1);
        Value t = l->items[i];
        l->items[i] = l->items[j], l->items[j] = t;
    }
    return true;
}

/* random.sample(population, k): CPython 3.11's, draw for draw: a pool it
 * takes from (a population no larger than a k-length set would be), or
 * indices drawn again until new. */
static BUILTIN(py_random_sample) {
    const Value *pop = &a->arg[0];
    int64_t n = pop->kind == VAL_LIST || pop->kind == VAL_STRING ? value_item_count(pop) : -1, k;
    if (n < 0)
        return arg_error(s, a, 0, "TypeError: Population must be a sequence.  For dicts or "
                         "sets, use sorted(d).");
    if (!arg_int(s, a, 1, "the sample size", INT64_MIN, INT64_MAX, &k)) return false;
    if (k < 0 || k > n)
        return session_fail(s, a->line, a->col, "ValueError: Sample larger than population "
                            "or is negative");
    ValueList *l = value_list_new((int)k, false);
    if (!l) return session_fail(s, a->line, a->col, "MemoryError");
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    int64_t setsize = 21;
    if (k > 5) setsize += (int64_t)pow(4, ceil(log((double)(k * 3)) / log(4.0)));
    bool from_pool = n <= setsize; /* else indices drawn until new, marked in taken */
    int64_t *pool = from_pool ? malloc((size_t)(n > 0 ? n : 1) * sizeof *pool) : NULL;
    bool *taken = from_pool ? NULL : calloc((size_t)n, sizeof *taken);
    if (!pool && !taken) {
        value_release(out);
        return session_fail(s, a->line, a->col, "MemoryError");
    }
    PyRandom *r = generator(s);
    for (int64_t i = 0; from_pool && i < n; i++) pool[i] = i;
    bool ok = true;
    for (int64_t i = 0; ok && i < k; i++) {
        int64_t j;
        if (from_pool) { /* a drawn index's place takes the last one */
            int64_t at = random_below(r, n - i);
            j = pool[at];
            pool[at] = pool[n - i - 1];
        } else { /* indices into the population, drawn until new */
            do j = random_below(r, n);
            while (taken[j]);
            taken[j] = true;
        }
        ok = value_item(pop, j, true, &l->items[i]);
    }
    free(pool);
    free(taken);
    if (!ok) value_release(out);
    return ok || session_fail(s, a->line, a->col, "%s", ag_error());
}

static BUILTIN(py_random_gauss) {
    double mu, sigma;
    if (!arg_number(s, a, 0, &mu) || !arg_number(s, a, 1, &sigma)) return false;
    PyRandom *r = generator(s);
    double z;
    if (r->gauss_has) {
        z = r->gauss_next;
        r->gauss_has = false;
    } else { /* CPython's: two uniforms, Box-Muller, the second kept for next time */
        double x2pi = random_double(r) * 6.283185307179586;
        double g2rad = sqrt(-2.0 * log(1.0 - random_double(r)));
        z = cos(x2pi) * g2rad;
        r->gauss_next = sin(x2pi) * g2rad;
        r->gauss_has = true;
    }
    *out = value_number(mu + z * sigma);
    return true;
}

/* ======================================================================
 * The rows
 * ====================================================================== */

/* Python's time module: the clocks a script times itself with. */
static double clock_seconds(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* time.NAME(): the row's name says which clock (time: the wall clock,
 * process_time: this process's CPU time, the others: the monotonic one)
 * and whether in nanoseconds, as an int (a name ending _ns). */
static BUILTIN(py_time_clock) {
    (void)s;
    const char *name = a->b->name;
    size_t n = strlen(name);
    clockid_t clock = strncmp(name, "time", 4) == 0      ? CLOCK_REALTIME
                      : strcmp(name, "process_time") == 0 ? CLOCK_PROCESS_CPUTIME_ID
                                                           : CLOCK_MONOTONIC;
    if (n > 3 && strcmp(name + n - 3, "_ns") == 0) {
        struct timespec ts;
        clock_gettime(clock, &ts);
        *out = value_integer((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
    } else {
        *out = value_number(clock_seconds(clock));
    }
    return true;
}

/* time.sleep(secs): in slices, so that Ctrl-C stops it. */
static BUILTIN(py_time_sleep) {
    double secs;
    if (!arg_number(s, a, 0, &secs)) return false;
    if (!(secs >= 0)) return arg_error(s, a, 0, "ValueError: sleep length must be non-negative");
    double until = clock_seconds(CLOCK_MONOTONIC) + secs;
    for (double left = secs; left > 0; left = until - clock_seconds(CLOCK_MONOTONIC)) {
        if (session_interrupted) return session_fail(s, a->line, a->col, "interrupted");
        double slice = left < 0.05 ? left : 0.05;
        struct timespec ts = {(time_t)slice, (long)((slice - (double)(time_t)slice) * 1e9)};
        nanosleep(&ts, NULL);
    }
    *out = value_none();
    return true;
}

/* torch.cuda and torch.backends.mps: ag computes on the CPU, so no such
 * device is there; seeding one does nothing (the CPU's stream is
 * torch.manual_seed's). */
static BUILTIN(py_device_available) {
    (void)s, (void)a;
    *out = value_bool(false);
    return true;
}

static BUILTIN(py_device_count) {
    (void)s, (void)a;
    *out = value_integer(0);
    return true;
}

static BUILTIN(py_device_seed) {
    (void)s, (void)a;
    *out = value_none();
    return true;
}

#define MATH1(name, help) {name, name "(x)", help, NULL, py_math, BI_MODULE_MATH, VAL_VOID, NULL}
#define MATH2(name, help) {name, name "(x, y)", help, NULL, py_math, BI_MODULE_MATH, VAL_VOID, NULL}
#define TIME(name, help) {name, name "()", help, NULL, py_time_clock, BI_MODULE_TIME, VAL_VOID, NULL}
#define RANDOM(name, sig, help, fn, flags) \
    {name, sig, help, NULL, fn, BI_MODULE_RANDOM | (flags), VAL_VOID, NULL}

/* sys.setrecursionlimit(limit): CPython's check of the value; the C
 * stack's guard still ends deeper recursion with RecursionError. */
static BUILTIN(py_setrecursionlimit) {
    (void)out;
    int64_t limit;
    if (a->arg[0].kind != VAL_INT)
        return arg_error(s, a, 0, "TypeError: 'float' object cannot be interpreted as an integer");
    if (!arg_int(s, a, 0, "the limit", INT64_MIN, INT64_MAX, &limit)) return false;
    if (limit < 1)
        return arg_error(s, a, 0, "ValueError: recursion limit must be greater or equal than 1");
    s->recursion_limit = limit > INT32_MAX ? INT32_MAX : (int)limit;
    return true;
}

static BUILTIN(py_getrecursionlimit) {
    (void)a;
    *out = value_integer(s->recursion_limit);
    return true;
}

static FILE *stream_of(Session *s, CallArgs *a) {
    int64_t fd;
    if (!arg_int(s, a, 0, "fd", 1, 2, &fd)) return NULL;
    return fd == 1 ? s->out : s->err;
}

static BUILTIN(py_write_stream) {
    const char *text;
    size_t n;
    FILE *f = stream_of(s, a);
    if (!f || !arg_string(s, a, 1, &text, &n)) return false;
    if (f == s->err) fflush(s->out); /* in the order written, as at a terminal */
    fwrite(text, 1, n, f);
    *out = value_none();
    return true;
}

static BUILTIN(py_flush_stream) {
    FILE *f = stream_of(s, a);
    if (!f) return false;
    fflush(f);
    *out = value_none();
    return true;
}

/* __ag_script__(directory=False): the file that runs, or (directory)
 * the absolute folder it is in, sys.path[0]; '' at the prompt. */
static BUILTIN(py_script_name) {
    bool directory = false;
    if (arg_present(a, 0) && !arg_bool(s, a, 0, &directory)) return false;
    const char *name = s->source_name && !s->interactive ? s->source_name : "";
    char resolved[PATH_MAX];
    if (directory && *name && realpath(name, resolved)) {
        char *slash = strrchr(resolved, '/');
        if (slash) *slash = '\0';
        name = slash == resolved ? "/" : resolved;
    } else if (directory) {
        name = "";
    }
    return value_string(name, strlen(name), out) || session_fail(s, a->line, a->col, "MemoryError");
}

const Builtin module_builtins[] = {
    MATH1("exp", "e**x"), MATH1("log", "the natural logarithm"), MATH1("log2", "log base 2"),
    MATH1("log10", "log base 10"), MATH1("log1p", "log(1 + x)"), MATH1("expm1", "e**x - 1"),
    MATH1("sqrt", "the square root"), MATH1("sin", "sine"), MATH1("cos", "cosine"),
    MATH1("tan", "tangent"), MATH1("asin", "arc sine"), MATH1("acos", "arc cosine"),
    MATH1("atan", "arc tangent"), MATH1("sinh", "hyperbolic sine"),
    MATH1("cosh", "hyperbolic cosine"), MATH1("tanh", "hyperbolic tangent"),
    MATH1("erf", "the error function"), MATH1("erfc", "1 - erf(x)"),
    MATH1("fabs", "the absolute value, a float"), MATH1("floor", "the largest int <= x"),
    MATH1("ceil", "the smallest int >= x"), MATH1("trunc", "x without its fraction, an int"),
    MATH1("degrees", "radians to degrees"), MATH1("radians", "degrees to radians"),
    MATH1("gamma", "the gamma function"), MATH1("lgamma", "log |gamma(x)|"),
    MATH2("pow", "x**y, floats"), MATH2("atan2", "the angle of (x, y)... atan(y/x) by quadrant"),
    MATH2("hypot", "sqrt(x*x + y*y)"), MATH2("fmod", "C's fmod"),
    MATH2("copysign", "x with y's sign"),
    RANDOM("seed", "seed(a=None)", "restarts CPython's generator from a (an int)", py_random_seed,
           BI_VOID),
    RANDOM("random", "random()", "a float in [0, 1)", py_random_random, 0),
    RANDOM("uniform", "uniform(a, b)", "a + (b - a) * random()", py_random_uniform, 0),
    RANDOM("randint", "randint(a, b)", "an int in [a, b]", py_random_randint, 0),
    RANDOM("randrange", "randrange(start, stop=None, step=1)", "an int of range(start, stop, "
           "step)", py_random_randrange, 0),
    RANDOM("getrandbits", "getrandbits(k)", "an int of k random bits (k <= 63)",
           py_random_getrandbits, 0),
    RANDOM("choice", "choice(seq)", "an item of seq", py_random_choice, 0),
    RANDOM("shuffle", "shuffle(x)", "shuffles a list in place", py_random_shuffle, BI_VOID),
    RANDOM("sample", "sample(population, k)", "k items of a list (or string, range) without "
           "repeats, CPython's draws", py_random_sample, 0),
    RANDOM("gauss", "gauss(mu=0.0, sigma=1.0)", "a normal random number", py_random_gauss, 0),
    TIME("perf_counter", "seconds on a monotonic clock, a float"),
    TIME("perf_counter_ns", "nanoseconds on a monotonic clock, an int"),
    TIME("monotonic", "seconds on a monotonic clock, a float"),
    TIME("monotonic_ns", "nanoseconds on a monotonic clock, an int"),
    TIME("time", "seconds since the epoch, a float"),
    TIME("time_ns", "nanoseconds since the epoch, an int"),
    TIME("process_time", "this process's CPU seconds, a float"),
    {"sleep", "sleep(secs)", "waits secs seconds (Ctrl-C stops it)", NULL, py_time_sleep,
     BI_MODULE_TIME | BI_VOID, VAL_VOID, NULL},
    {"setrecursionlimit", "setrecursionlimit(limit)", "sys: how deep calls may nest in a .py "
     "file (1000 at first; the C stack still stops a deeper one with RecursionError)", NULL,
     py_setrecursionlimit, BI_MODULE_SYS | BI_VOID, VAL_VOID, NULL},
    {"getrecursionlimit", "getrecursionlimit()", "sys: how deep calls may nest in a .py file",
     NULL, py_getrecursionlimit, BI_MODULE_SYS, VAL_VOID, NULL},
    {"__ag_write_stream__", "__ag_write_stream__(fd, text)", "sys.stdout's and sys.stderr's "
     "writing (fd 1 or 2)", NULL, py_write_stream, 0, VAL_VOID, NULL},
    {"__ag_flush_stream__", "__ag_flush_stream__(fd)", "sys.stdout's and sys.stderr's flush",
     NULL, py_flush_stream, 0, VAL_VOID, NULL},
    {"__ag_script__", "__ag_script__(directory=False)", "sys.argv[0]: the file that runs ('' at "
     "the prompt); directory: sys.path[0], its folder",
     NULL, py_script_name, 0, VAL_VOID, NULL},
    {"is_available", "is_available()", "torch.cuda (and torch.backends.mps, .cudnn): False, ag computes "
     "on the CPU", NULL, py_device_available, BI_MODULE_DEVICE, VAL_VOID, NULL},
    {"is_built", "is_built()", "torch.backends.mps: False", NULL, py_device_available,
     BI_MODULE_DEVICE, VAL_VOID, NULL},
    {"device_count", "device_count()", "torch.cuda: 0 devices", NULL, py_device_count,
     BI_MODULE_DEVICE, VAL_VOID, NULL},
    {"manual_seed", "manual_seed(seed)", "torch.cuda: nothing to seed (torch.manual_seed seeds "
     "the CPU)", NULL, py_device_seed, BI_MODULE_DEVICE, VAL_VOID, NULL},
    {"manual_seed_all", "manual_seed_all(seed)", "torch.cuda: nothing to seed", NULL,
     py_device_seed, BI_MODULE_DEVICE, VAL_VOID, NULL},
};

const int num_module_builtins = (int)(sizeof module_builtins / sizeof module_builtins[0]);
