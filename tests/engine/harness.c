/*
 * harness.c — check counting, the finite-difference checker and main():
 * runs every test group and prints "N passed, N failed" last.
 */
#include "harness.h"
#include "ops/elementwise.h"

#include <stdarg.h>
#include <string.h>

int tests_passed, tests_failed;
/* The first failures' places, repeated above the totals: a log cut to its
 * tail (a remote machine's, CI's) still says where the suite failed. */
enum { FAILURES_KEPT = 12 };
static char failed_at[FAILURES_KEPT][96];

bool check_impl(bool ok, const char *file, int line, const char *fmt, ...) {
    if (ok) {
        tests_passed++;
        return true;
    }
    if (tests_failed < FAILURES_KEPT) {
        va_list ap;
        va_start(ap, fmt);
        int n = snprintf(failed_at[tests_failed], sizeof failed_at[0], "%s:%d: ", file, line);
        if (n > 0 && (size_t)n < sizeof failed_at[0])
            vsnprintf(failed_at[tests_failed] + n, sizeof failed_at[0] - (size_t)n, fmt, ap);
        va_end(ap);
    }
    tests_failed++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: FAILED: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return false;
}

int64_t live_tensors(void) { return ag_stats().live_tensors; }

bool same_double(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

bool matches_torch(double got, double want) {
    if (isnan(want) || isinf(want) || want == 0.0 || isnan(got) || isinf(got) || got == 0.0)
        return same_double(got, want);
    return fabs(got - want) <= 1e-14 * fabs(want);
}

Tensor *test_uniform(double lo, double hi, bool requires_grad, int ndim, const int64_t *shape) {
    Tensor *t = tensor_rand(ndim, shape, requires_grad);
    for (int64_t i = 0; i < t->numel; i++) tensor_values(t)[i] = lo + (hi - lo) * tensor_values(t)[i];
    return t;
}

Tensor *test_like(Tensor *c, const Tensor *like) {
    if (c && like && ag_dtype_is_floating((AgDtype)like->dtype) && c->dtype != like->dtype)
        tensor_set_dtype(c, (AgDtype)like->dtype);
    return c;
}

/* loss = sum(out * w) as a plain double, with no graph. */
static double weighted_sum(const Tensor *out, const Tensor *w) {
    double s = 0.0;
    for (int64_t i = 0; i < out->numel; i++) s += tensor_values(out)[i] * tensor_values(w)[i];
    return s;
}

static double eval_loss(BuildFn build, const void *arg, Tensor **consts, const Tensor *w) {
    Tensor *out = build(consts, arg);
    double v = out ? weighted_sum(out, w) : NAN;
    tensor_release(out);
    return v;
}

/* The ops whose backward a finite-difference check has run, by op id:
 * every op of the table with a backward must have one (test_fd_coverage),
 * so that a new op cannot pass the suite untested; and, [1], the same for
 * the float32 pass. An op is known by its backward function (ops that
 * share one, as reshape and flatten, are covered together). */
static bool fd_covered[3][AG_OP_COUNT]; /* [2]: the create_graph pass */

enum { PASS_FLOAT64, PASS_FLOAT32, PASS_GRAPH };

static void mark_covered(const Function *fn, int pass) {
    for (int i = 0; i < ag_op_count(); i++)
        if (ag_op_at(i)->backward == fn->apply) fd_covered[pass][i] = true;
}

/* Marks the ops of out's graph (each Function once: the marks are
 * per pass, from ag's reachability stamps' own counter). */
static void cover_graph(const Tensor *out, int pass) {
    enum { MAX = 4096 };
    static const Function *stack[MAX], *seen[MAX];
    int top = 0, num_seen = 0;
    if (out->grad_fn && tensor_has_graph(out)) stack[top++] = out->grad_fn;
    while (top > 0) {
        const Function *fn = stack[--top];
        bool again = false;
        for (int i = 0; i < num_seen && !again; i++) again = seen[i] == fn;
        if (again || num_seen == MAX) continue;
        seen[num_seen++] = fn;
        mark_covered(fn, pass);
        for (int i = 0; i < fn->num_inputs && top < MAX; i++) {
            const Tensor *in = fn->inputs[i];
            if (in->grad_fn && tensor_has_graph(in)) stack[top++] = in->grad_fn;
        }
    }
}

void test_fd_coverage(void) {
    int missing = 0;
    for (int i = 0; i < ag_op_count(); i++) {
        const AgOpInfo *op = ag_op_at(i);
        /* to's derivative, the identity across a rounding, is checked exactly */
        if (!op->backward || op->id == AG_OP_TO) continue;
        static const char *const pass_name[] = {"finite-difference", "float32",
                                                 "create_graph (second-order)"};
        for (int pass = 0; pass < 3; pass++) {
            if (fd_covered[pass][i]) continue;
            missing++;
            CHECK(false, "op %s has a backward that no %s check ran", op->name, pass_name[pass]);
        }
    }
    if (missing == 0)
        CHECK(true, "every op with a backward was checked against finite differences, in "
                    "float32 and to the second order");
}

/* ---- the float32 pass ----------------------------------------------------
 * After the float64 check, the same build runs on float32 copies of the
 * inputs and is compared with a float64 run at the same points (the inputs
 * rounded to float32, kept float64). Finite differences are not used here:
 * in float32 a central difference of the loss carries rounding noise of
 * about eps |loss| / h (eps = 6e-8) and a truncation error of about h^2
 * times the third derivative; at the best h (near 5e-3) each is some 1e-5
 * of the loss's scale, and the loss sums every output, so one element's
 * derivative, often a hundred times smaller, would be off by 1e-3 of
 * itself or more: a tolerance loose enough for that passes wrong
 * gradients. The reference instead is float64's analytic gradient, the
 * code the finite differences just verified, at points within an ulp of
 * float32 of those it verified it at.
 *
 * Tolerance: each float32 op rounds once (relative 2^-24 = 6e-8); a graph
 * of tens of ops, sums over up to a few hundred terms and a condition
 * number of ten or so stay under 1e-4 relative. Where terms cancel the
 * error is relative to the terms, not to the result, so an absolute part
 * is scaled by the largest magnitude of the tensor compared:
 *   |got - want| <= 1e-4 |want| + 1e-5 max(1, max |want|).
 * Over the whole suite the largest error is 4% of that (a random graph's
 * gradient): loose enough for sums, tight enough for a wrong formula. A
 * missed rounding is caught apart, exactly: every float32 tensor must hold
 * float32 values (holds_float32).
 *
 * Kinks need no skipping: the tests place inputs away from them (both
 * sides of each, and the random graphs at least KINK_MARGIN = 1e-4 off),
 * or the float64 finite differences, which straddle anything within h =
 * 1e-6, would have failed first; float32 moves a value by 6e-8 of itself
 * per op. A value that crossed a kink would show as an error here, which
 * is what it would be in PyTorch's float32 too. */
enum { MAX_INPUTS = 8 };

typedef struct {
    Tensor *out;
    Tensor *grads[MAX_INPUTS]; /* NULL: not reached (zero) or not required */
} Run;

/* A leaf copy of t with its values rounded to float32: typed float32 when
 * typed, else float64 holding float32 values. Non-floating tensors (class
 * indices, masks) are copied as they are. */
static Tensor *as_float32(const Tensor *t, bool typed) {
    Tensor *c = tensor_copy(t);
    if (!c || !ag_dtype_is_floating((AgDtype)t->dtype)) return c;
    tensor_set_dtype(c, AG_FLOAT32);
    if (!typed) c->dtype = (uint8_t)t->dtype;
    tensor_set_requires_grad(c, t->requires_grad);
    return c;
}

/* t's values are float32's: none lost bits a float32 would not hold. */
static bool holds_float32(const Tensor *t) {
    for (int64_t k = 0; k < t->numel; k++)
        if (!same_double((double)(float)tensor_values(t)[k], tensor_values(t)[k])) return false;
    return true;
}

/* A floating result of the graph that is not float32: a promotion in an op
 * that should have kept float32 (or a float64 constant of the build's), or
 * a float32 tensor holding values float32 cannot (a rounding missed). */
static bool promoted(const Tensor *t) {
    return t->dtype == AG_FLOAT64 || (t->dtype == AG_FLOAT32 && !holds_float32(t));
}

/* The first intermediate result of out's graph (out itself included) that
 * is not float32; NULL when all are float32 (or not floating). */
static const char *promoted_op(const Tensor *out) {
    enum { MAX = 4096 };
    static const Function *stack[MAX];
    int top = 0;
    if (promoted(out)) return out->op_name ? out->op_name : "the result";
    if (out->grad_fn && tensor_has_graph(out)) stack[top++] = out->grad_fn;
    for (int steps = 0; top > 0 && steps < MAX; steps++) {
        const Function *fn = stack[--top];
        for (int i = 0; i < fn->num_inputs; i++) {
            const Tensor *in = fn->inputs[i];
            if (!in->grad_fn || !tensor_has_graph(in)) continue;
            if (promoted(in)) return in->grad_fn->name;
            if (top < MAX) stack[top++] = in->grad_fn;
        }
    }
    return NULL;
}

/* Builds on in and differentiates sum(out * w): r gets the result and each
 * input's gradient. float32: also reports a promoted intermediate. */
static bool run_build(const char *name, BuildFn build, const void *arg, Tensor **in, int n,
                      const Tensor *w, bool float32, Run *r) {
    r->out = build(in, arg);
    if (!CHECK(r->out != NULL, "%s (float%d): forward failed: %s", name, float32 ? 32 : 64,
               ag_error()))
        return false;
    if (float32) cover_graph(r->out, PASS_FLOAT32);
    const char *where = float32 ? promoted_op(r->out) : NULL;
    bool ok = CHECK(!where, "%s (float32): %s gives a result that is not float32", name, where);
    Tensor *wt = as_float32(w, float32);
    Tensor *weighted = tensor_mul(r->out, wt), *loss = tensor_sum(weighted);
    tensor_release(weighted);
    tensor_release(wt);
    if (loss->requires_grad)
        ok = CHECK(backward(loss) == 0, "%s (float%d): backward failed: %s", name,
                   float32 ? 32 : 64, ag_error()) && ok;
    tensor_release(loss);
    for (int i = 0; i < n; i++) r->grads[i] = tensor_retain(in[i]->grad);
    return ok;
}

static void release_run(Run *r, int n) {
    tensor_release(r->out);
    for (int i = 0; i < n; i++) tensor_release(r->grads[i]);
}

/* got (float32) agrees with want (float64, at the same points) within the
 * float32 tolerance above; a NULL gradient is zeros. */
static bool agree32(const char *name, const char *what, const Tensor *got, const Tensor *want) {
    double scale = 1.0;
    for (int64_t k = 0; want && k < want->numel; k++)
        if (isfinite(tensor_values(want)[k])) scale = fmax(scale, fabs(tensor_values(want)[k]));
    int64_t numel = want ? want->numel : got ? got->numel : 0;
    for (int64_t k = 0; k < numel; k++) {
        double g = got ? tensor_values(got)[k] : 0.0, e = want ? tensor_values(want)[k] : 0.0;
        bool same = isfinite(e) ? fabs(g - e) <= 1e-4 * fabs(e) + 1e-5 * scale
                                : same_double(g, e) || (isnan(g) && isnan(e));
        if (!same)
            return CHECK(false, "%s (float32): %s [%lld]: %.9g, float64 gives %.9g", name, what,
                         (long long)k, g, e);
    }
    return true;
}

/* The float32 pass: results float32 (or what the float64 run's were, where
 * those are not floating), values and gradients float64's within the
 * tolerance, each gradient float32. */
static bool check_float32(const char *name, BuildFn build, const void *arg, Tensor **inputs,
                          int n, const Tensor *w) {
    Tensor *in64[MAX_INPUTS], *in32[MAX_INPUTS];
    for (int i = 0; i < n; i++) in64[i] = as_float32(inputs[i], false);
    for (int i = 0; i < n; i++) in32[i] = as_float32(inputs[i], true);
    Run want = {0}, got = {0};
    bool ok = run_build(name, build, arg, in64, n, w, false, &want) &&
              run_build(name, build, arg, in32, n, w, true, &got);
    if (ok && !ag_dtype_is_floating((AgDtype)want.out->dtype))
        ok = CHECK(got.out->dtype == want.out->dtype, "%s (float32): a %s result, not %s", name,
                   ag_dtype_name((AgDtype)got.out->dtype), ag_dtype_name((AgDtype)want.out->dtype));
    ok = ok && agree32(name, "value", got.out, want.out);
    for (int i = 0; ok && i < n; i++) {
        if (!in32[i]->requires_grad) continue;
        char what[32];
        snprintf(what, sizeof what, "d/d input %d", i);
        ok = (!got.grads[i] || CHECK(got.grads[i]->dtype == AG_FLOAT32 &&
                                         holds_float32(got.grads[i]),
                                     "%s (float32): %s is %s, or holds more than float32 does", name, what,
                                     ag_dtype_name((AgDtype)got.grads[i]->dtype))) &&
             agree32(name, what, got.grads[i], want.grads[i]);
    }
    release_run(&want, n);
    release_run(&got, n);
    for (int i = 0; i < n; i++) tensor_release(in64[i]), tensor_release(in32[i]);
    if (!ok) ag_graph_free(); /* a failed backward may leave its graph */
    if (ok) CHECK(true, "%s (float32)", name);
    return ok;
}

/* ---- the create_graph pass ----------------------------------------------
 * After the float64 and float32 checks: the gradient made by every op's
 * graph_backward (recorded ops, create_graph) must have the bits of the
 * first-order kernels the finite differences just verified (ENGINE.md
 * version 3: one definition, two paths that cannot drift), and its own
 * gradient, the Hessian-vector product d/dx sum_i <grad_i(x), v_i> for fixed
 * random v, must agree with central differences of the first-order
 * gradient: |analytic - numeric| <= 1e-5 + 1e-4 |numeric| (h = 1e-6: the
 * difference of two gradients carries rounding of some 1e-16 |grad| / h,
 * far below; the kinks are where the first-order check placed them, away).
 * Every op has a graph_backward (test_graph checks), so a refusal fails;
 * test_fd_coverage fails for an op no such pass ran through. */

/* sum_i <grad_i, v_i> by the first-order path, at the values of consts
 * (inputs requiring grad where want[i]). */
static double grad_dot(BuildFn build, const void *arg, Tensor **consts, const bool *want, int n,
                       const Tensor *w, Tensor *const *v) {
    Tensor *in[MAX_INPUTS];
    for (int i = 0; i < n; i++) {
        in[i] = tensor_copy(consts[i]);
        if (want[i]) tensor_set_requires_grad(in[i], true);
    }
    Run r = {0};
    double dot = NAN;
    if (run_build("grad_dot", build, arg, in, n, w, false, &r)) {
        dot = 0.0;
        for (int i = 0; i < n; i++)
            for (int64_t k = 0; want[i] && r.grads[i] && k < r.grads[i]->numel; k++)
                dot += tensor_values(r.grads[i])[k] * tensor_values(v[i])[k];
    }
    release_run(&r, n);
    for (int i = 0; i < n; i++) tensor_release(in[i]);
    return dot;
}

/* Every gradient of the create_graph path is the first-order one's bits
 * (first[i]: NULL where backward reached nothing, a zero gradient). */
static bool same_bits(const char *name, Tensor *const *got, Tensor *const *first, const bool *want,
                      int n) {
    for (int i = 0; i < n; i++) {
        if (!want[i]) continue;
        const Tensor *a = got[i], *b = first[i];
        int64_t numel = a ? a->numel : b ? b->numel : 0;
        for (int64_t k = 0; k < numel; k++) {
            double x = a ? tensor_values(a)[k] : 0.0, y = b ? tensor_values(b)[k] : 0.0;
            if (!same_double(x, y) && !(x == 0.0 && y == 0.0))
                return CHECK(false, "%s (create_graph): d/d input %d [%lld] is %.17g, the "
                             "first-order kernel gives %.17g", name, i, (long long)k, x, y);
        }
    }
    return true;
}

/* The Hessian-vector products (inputs' ->grad after differentiating
 * sum_i <grads[i], v_i>) against central differences of grad_dot. */
static bool check_hvp(const char *name, BuildFn build, const void *arg, Tensor **inputs,
                      const bool *want, int n, const Tensor *w, Tensor *const *v) {
    Tensor *consts[MAX_INPUTS];
    for (int i = 0; i < n; i++) consts[i] = tensor_copy(inputs[i]);
    const double h = 1e-6;
    bool ok = true;
    for (int i = 0; ok && i < n; i++) {
        const Tensor *hv = inputs[i]->grad; /* NULL: no second-order term reached it */
        for (int64_t k = 0; ok && want[i] && k < consts[i]->numel; k++) {
            double saved = tensor_values(consts[i])[k];
            tensor_values(consts[i])[k] = saved + h;
            double up = grad_dot(build, arg, consts, want, n, w, v);
            tensor_values(consts[i])[k] = saved - h;
            double down = grad_dot(build, arg, consts, want, n, w, v);
            tensor_values(consts[i])[k] = saved;
            double numeric = (up - down) / (2 * h), analytic = hv ? tensor_values(hv)[k] : 0.0;
            if (!(fabs(analytic - numeric) <= 1e-5 + 1e-4 * fabs(numeric)))
                ok = CHECK(false, "%s (create_graph): d2/d input %d [%lld]: analytic %.10g, "
                           "numeric %.10g", name, i, (long long)k, analytic, numeric);
        }
    }
    for (int i = 0; i < n; i++) tensor_release(consts[i]);
    return ok;
}

/* The pass. inputs' ->grad hold the first-order gradients (fd_check's
 * backward); they are put back as they were. */
static bool check_graph_backward(const char *name, BuildFn build, const void *arg,
                                 Tensor **inputs, int n, Tensor *w) {
    bool want[MAX_INPUTS];
    Tensor *first[MAX_INPUTS], *got[MAX_INPUTS] = {0}, *v[MAX_INPUTS] = {0}, *ins[MAX_INPUTS];
    int m = 0;
    for (int i = 0; i < n; i++) {
        want[i] = inputs[i]->requires_grad;
        first[i] = inputs[i]->grad; /* taken; put back at the end */
        inputs[i]->grad = NULL;
        if (want[i]) ins[m++] = inputs[i];
    }
    Tensor *out = build(inputs, arg), *weighted = tensor_mul(out, w), *loss = tensor_sum(weighted);
    tensor_release(weighted);
    tensor_release(out);
    Tensor *made[MAX_INPUTS] = {0};
    bool ok = true;
    if (m > 0 && loss->requires_grad && ag_grad(1, &loss, NULL, m, ins, AG_CREATE_GRAPH, true, made) != 0) {
        ok = CHECK(false, "%s (create_graph): grad failed: %s", name, ag_error());
    }
    for (int i = 0, j = 0; i < n; i++)
        if (want[i]) got[i] = made[j++];
    ok = ok && same_bits(name, got, first, want, n);
    if (ok) cover_graph(loss, PASS_GRAPH); /* (a linear op's gradient has no graph) */
    /* The second order: differentiate sum_i <got_i, v_i>. */
    Tensor *total = NULL;
    for (int i = 0; ok && i < n; i++) {
        if (!want[i] || !got[i]) continue;
        v[i] = test_uniform(-1.0, 1.0, false, got[i]->ndim, got[i]->shape);
        Tensor *p = tensor_mul(got[i], v[i]), *s = tensor_sum(p);
        tensor_release(p);
        if (total) {
            Tensor *sum = tensor_add(total, s);
            tensor_release(total);
            tensor_release(s);
            s = sum;
        }
        total = s;
    }
    for (int i = 0; i < n; i++) tensor_zero_grad(inputs[i]);
    if (ok && total && total->requires_grad) {
        ok = CHECK(backward(total) == 0, "%s (create_graph): backward of the gradient failed: %s",
                   name, ag_error());
    }
    for (int i = 0; i < n; i++)
        if (want[i] && !v[i]) v[i] = test_uniform(-1.0, 1.0, false, inputs[i]->ndim, inputs[i]->shape);
    ok = ok && check_hvp(name, build, arg, inputs, want, n, w, v);
    tensor_release(total);
    tensor_release(loss);
    ag_graph_free();
    for (int i = 0; i < n; i++) {
        tensor_release(got[i]);
        tensor_release(v[i]);
        tensor_release(inputs[i]->grad);
        inputs[i]->grad = first[i];
    }
    if (ok) CHECK(true, "%s (create_graph)", name);
    return ok;
}

bool fd_check(const char *name, BuildFn build, const void *arg, Tensor **inputs, int n) {
    Tensor *out = build(inputs, arg);
    if (!CHECK(out != NULL, "%s: forward failed: %s", name, ag_error())) return false;
    cover_graph(out, PASS_FLOAT64);
    Tensor *w = test_uniform(0.5, 1.5, false, out->ndim, out->shape);
    Tensor *weighted = tensor_mul(out, w);
    Tensor *loss = tensor_sum(weighted);
    tensor_release(weighted);
    for (int i = 0; i < n; i++) tensor_zero_grad(inputs[i]);
    /* A loss that reaches no input needs no backward: every gradient is 0. */
    bool ok = !loss->requires_grad ||
              CHECK(backward(loss) == 0, "%s: backward failed: %s", name, ag_error());
    tensor_release(loss);
    tensor_release(out);

    /* Numeric side: constant copies, perturbed one element at a time. */
    if (!CHECK(n <= MAX_INPUTS, "%s: fd_check takes at most %d inputs", name, MAX_INPUTS))
        return false;
    Tensor *consts[MAX_INPUTS];
    for (int i = 0; i < n; i++) consts[i] = tensor_copy(inputs[i]);
    const double h = 1e-6;
    for (int i = 0; ok && i < n; i++) {
        if (!inputs[i]->requires_grad) continue;
        const Tensor *g = inputs[i]->grad; /* NULL: not reached, a zero gradient */
        for (int64_t k = 0; k < consts[i]->numel; k++) {
            double saved = tensor_values(consts[i])[k];
            tensor_values(consts[i])[k] = saved + h;
            double up = eval_loss(build, arg, consts, w);
            tensor_values(consts[i])[k] = saved - h;
            double down = eval_loss(build, arg, consts, w);
            tensor_values(consts[i])[k] = saved;
            double numeric = (up - down) / (2 * h), analytic = g ? tensor_values(g)[k] : 0.0;
            if (!(fabs(analytic - numeric) <= 1e-6 + 1e-5 * fabs(numeric))) {
                CHECK(false, "%s: d/d input %d [%lld]: analytic %.10g, numeric %.10g", name, i,
                      (long long)k, analytic, numeric);
                ok = false;
                break;
            }
        }
    }
    for (int i = 0; i < n; i++) tensor_release(consts[i]);
    if (ok) CHECK(true, "%s", name);
    ok = ok && check_float32(name, build, arg, inputs, n, w);
    ok = ok && check_graph_backward(name, build, arg, inputs, n, w);
    tensor_release(w);
    return ok;
}

/* The groups, by the name make test T=NAME runs one by (tests/one.sh). */
#define GROUP(name) {#name, test_##name}
static const struct {
    const char *name;
    void (*run)(void);
} groups[] = {
    GROUP(core), GROUP(ops), GROUP(errors), GROUP(matmul), GROUP(limits), GROUP(numerics),
    GROUP(syntax_ops), GROUP(optim), GROUP(backward), GROUP(index), GROUP(losses),
    GROUP(elementwise), GROUP(reduce), GROUP(sum_order), GROUP(math_bits), GROUP(f32math), GROUP(inplace), GROUP(retain), GROUP(graph), GROUP(dtype), GROUP(packed),
    GROUP(cumulative), GROUP(anomaly),
    GROUP(random), GROUP(layers), GROUP(snapshot), GROUP(threads),
};
#undef GROUP
enum { NUM_GROUPS = sizeof groups / sizeof groups[0] };

/* Runs one group; the leak check is here, once, for every group: what a
 * group made it must have released when it returns. */
static void run_group(int g) {
    int64_t base = live_tensors();
    groups[g].run();
    /* A graph a group left alive past its last backward may keep the arena
     * (and the tensors it holds) until the next backward: not a leak. */
    ag_graph_free();
    CHECK(live_tensors() == base, "%s tests leaked %lld tensors", groups[g].name,
          (long long)(live_tensors() - base));
}

static int group_named(const char *name) {
    for (int g = 0; g < NUM_GROUPS; g++)
        if (strcmp(groups[g].name, name) == 0) return g;
    return -1;
}

/* test_engine              every group
 * test_engine GROUP...     those groups (core, optim, ...)
 * test_engine --list       the groups' names
 * test_engine --blas       which matrix kernel runs (for make test)
 * test_engine --vecmath    SLEEF or libm: the element-wise math that runs
 *                          (examples/python/RUNS_SLEEF need SLEEF) */
/* AG_TEST_HASH=1: a hash of the elements of every tensor freed, in order
 * (a tensor is freed with its final values), printed before the tally:
 * tests/threads.sh compares it across thread counts. */
static uint64_t freed_hash = 14695981039346656037u; /* FNV-1a */

static void hash_bytes(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) freed_hash = (freed_hash ^ b[i]) * 1099511628211u;
}

static void hash_freed(const Tensor *t) {
    if (t->base) return; /* a view: its base's elements */
    hash_bytes(&t->numel, sizeof t->numel);
    hash_bytes(tensor_values(t), (size_t)t->numel * sizeof *tensor_values(t));
}

/* AG_TEST_GRAIN_SCALE=s: every kernel's threshold for threads times s, so
 * that the tests' small tensors take the threaded paths. AG_TEST_PACK_MIN=n:
 * float32 results of n elements or more packed (Tensor.packed), so that
 * the tests' small ones are. */
static void test_hooks(void) {
    const char *hash = getenv("AG_TEST_HASH"), *scale = getenv("AG_TEST_GRAIN_SCALE");
    const char *pack = getenv("AG_TEST_PACK_MIN");
    if (pack) ag_pack_min = atoll(pack);
    if (hash && strcmp(hash, "1") == 0) ag_test_freed = hash_freed;
    if (scale) ag_parallel_set_grain_scale(atof(scale));
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--blas") == 0) {
        printf("%s\n", ag_blas_name());
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--vecmath") == 0) {
        printf("%s\n", ag_vec_ready() ? "SLEEF" : "libm");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (int g = 0; g < NUM_GROUPS; g++) printf("%s\n", groups[g].name);
        return 0;
    }
    for (int i = 1; i < argc; i++)
        if (group_named(argv[i]) < 0) {
            fprintf(stderr, "test_engine: no group '%s'; the groups:", argv[i]);
            for (int g = 0; g < NUM_GROUPS; g++) fprintf(stderr, " %s", groups[g].name);
            fprintf(stderr, "\n");
            return 2;
        }
    test_hooks();
    ag_seed(1234);
    if (argc == 1) {
        for (int g = 0; g < NUM_GROUPS; g++) run_group(g);
        test_fd_coverage(); /* only over the whole suite */
    }
    for (int i = 1; i < argc; i++) run_group(group_named(argv[i]));
    if (ag_test_freed) printf("hash of every tensor freed: %016llx\n", (unsigned long long)freed_hash);
    for (int i = 0; i < tests_failed && i < FAILURES_KEPT; i++) printf("FAILED %s\n", failed_at[i]);
    printf("%d passed, %d failed\n", tests_passed, tests_failed);
    return tests_failed != 0;
}
