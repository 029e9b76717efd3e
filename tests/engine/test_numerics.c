/*
 * test_numerics.c — the ops' numbers against PyTorch 1.13's: summation
 * accuracy, cross_entropy with large logits, gradients through inf and nan,
 * pow with a scalar exponent, and the same result for the same input in
 * every position. Every expected figure comes from PyTorch 1.13 (Debian's
 * python3-torch), by the command in the comment above it; nan is compared
 * with isnan.
 */
#include "harness.h"
#include "ops/elementwise.h"

#include "arange_cases.h"
#include "torch_cases.h"


/* A 1-D tensor of n copies of v. */
static Tensor *filled(double v, int64_t n, bool requires_grad) {
    return tensor_full(v, 1, &n, requires_grad);
}

/* sum with Neumaier's compensation: the reference the tests measure against. */
static double exact_sum(const double *x, int64_t n) {
    double s = 0.0, c = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double t = s + x[i];
        c += fabs(s) >= fabs(x[i]) ? (s - t) + x[i] : (x[i] - t) + s;
        s = t;
    }
    return s + c;
}

/* ======================================================================
 * Hardening 2, item 3: summation accuracy. Each sum must be at least as
 * accurate as PyTorch's (its error is the tolerance); ag's sums added rows
 * or blocks one after another and failed every one of these.
 * ====================================================================== */

static void test_sum_accuracy(void) {
    /* /usr/bin/python3 -c 'import torch; x = torch.full((10**7,), 0.1, dtype=torch.float64);
     *   print(x.sum().item() - 1e6, x.mean().item() - 0.1)'
     * -> 8.149072527885437e-10 6.938893903907228e-17 */
    Tensor *x = filled(0.1, 10000000, false), *s = tensor_sum(x), *m = tensor_mean(x);
    CHECK(fabs(tensor_values(s)[0] - 1e6) <= 8.149072527885437e-10, "sum of 10^7 x 0.1: error %g",
          tensor_values(s)[0] - 1e6);
    CHECK(fabs(tensor_values(m)[0] - 0.1) <= 6.938893903907228e-17, "mean of 10^7 x 0.1: error %g",
          tensor_values(m)[0] - 0.1);
    /* /usr/bin/python3 -c 'import torch; x = torch.full((10**7,), 0.1, dtype=torch.float64);
     *   print(torch.nn.functional.mse_loss(x, torch.zeros_like(x)).item() - 0.1 * 0.1)'
     * -> 5.204170427930421e-18 (each term is 0.1 * 0.1 rounded) */
    Tensor *z = tensor_zeros(1, x->shape, false), *mse = tensor_mse(x, z);
    CHECK(fabs(tensor_values(mse)[0] - 0.1 * 0.1) <= 5.204170427930421e-18, "mse: error %g",
          tensor_values(mse)[0] - 0.1 * 0.1);
    Tensor *all[] = {x, s, m, z, mse};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);

    /* Over an axis with inner != 1.
     * /usr/bin/python3 -c 'import torch; d = torch.float64;
     *   print((torch.full((10**7, 2), 0.1, dtype=d).sum(0) - 1e6).tolist(),
     *         (torch.full((10**7, 2), 0.1, dtype=d).mean(0) - 0.1).tolist(),
     *         (torch.full((3, 10**6, 2), 0.1, dtype=d).sum(1) - 1e5).tolist())'
     * -> -1.280568540096283e-09 (both), -1.3877787807814457e-16 (both),
     *    -7.275957614183426e-11 (all six) */
    x = tensor_full(0.1, SHAPE(10000000, 2), false);
    s = tensor_sum_axis(x, 0);
    m = tensor_mean_axis(x, 0);
    for (int i = 0; i < 2; i++) {
        CHECK(fabs(tensor_values(s)[i] - 1e6) <= 1.280568540096283e-09, "sum axis 0 of (10^7, 2): error %g",
              tensor_values(s)[i] - 1e6);
        CHECK(fabs(tensor_values(m)[i] - 0.1) <= 1.3877787807814457e-16,
              "mean axis 0 of (10^7, 2): error %g", tensor_values(m)[i] - 0.1);
    }
    tensor_release(x);
    tensor_release(s);
    tensor_release(m);
    x = tensor_full(0.1, SHAPE(3, 1000000, 2), false);
    s = tensor_sum_axis(x, 1);
    for (int i = 0; i < 6; i++)
        CHECK(fabs(tensor_values(s)[i] - 1e5) <= 7.275957614183426e-11, "sum axis 1 of (3, 10^6, 2): error %g",
              tensor_values(s)[i] - 1e5);
    tensor_release(x);
    tensor_release(s);

    /* cross_entropy's mean over N rows.
     * /usr/bin/python3 -c 'import torch, math; print(torch.nn.functional.cross_entropy(
     *   torch.zeros(10**6, 2, dtype=torch.float64), torch.zeros(10**6, dtype=torch.long)).item()
     *   - math.log(2))'  -> 0.0 */
    x = tensor_zeros(SHAPE(1000000, 2), false);
    Tensor *c = tensor_zeros(SHAPE(1000000), false), *ce = tensor_cross_entropy(x, c);
    CHECK(tensor_values(ce)[0] == log(2.0), "cross_entropy over 10^6 rows: error %g", tensor_values(ce)[0] - log(2.0));
    tensor_release(x);
    tensor_release(c);
    tensor_release(ce);
}

/* softmax and log_softmax sum exp(x - max) over the lane: with one 1 and
 * 10^6 - 1 values e^-40 (each under half an ulp of 1), a running sum keeps
 * only the 1. */
static void test_softmax_sum_accuracy(void) {
    const int64_t n = 1000000;
    /* /usr/bin/python3 -c 'import torch, math; n = 10**6;
     *   x = torch.full((n,), -40.0, dtype=torch.float64); x[0] = 0;
     *   print(torch.log_softmax(x, 0)[0].item(), torch.softmax(x, 0)[0].item(),
     *         -math.log1p((n - 1) * math.exp(-40)), 1 / (1 + (n - 1) * math.exp(-40)))'
     * -> -3.1861180360641985e-12 0.9999999999968139
     *    -4.2483500069283095e-12 0.9999999999957516   (exact)
     * PyTorch's errors (1.062231970864111e-12 and 1.0622613899613498e-12)
     * are the tolerances. Along a non-last axis PyTorch sums in order and
     * keeps only the 1 (0.0 and 1.0), and so does ag (its kernel's order). */
    const double exact_ls = -4.2483500069283095e-12, exact_sm = 0.9999999999957516;
    const double tol_ls = 1.062231970864111e-12, tol_sm = 1.0622613899613498e-12;
    Tensor *x = filled(-40.0, n, false);
    tensor_values(x)[0] = 0.0;
    Tensor *ls = tensor_log_softmax(x, 0), *sm = tensor_softmax(x, 0);
    CHECK(fabs(tensor_values(ls)[0] - exact_ls) <= tol_ls, "log_softmax: %.17g", tensor_values(ls)[0]);
    CHECK(fabs(tensor_values(sm)[0] - exact_sm) <= tol_sm, "softmax: %.17g", tensor_values(sm)[0]);
    tensor_release(ls);
    tensor_release(sm);
    Tensor *x3 = tensor_full(-40.0, SHAPE(n, 3), false);
    for (int i = 0; i < 3; i++) tensor_values(x3)[i] = 0.0;
    ls = tensor_log_softmax(x3, 0);
    sm = tensor_softmax(x3, 0);
    for (int i = 0; i < 3; i++) {
        CHECK(tensor_values(ls)[i] == 0.0, "log_softmax axis 0: %.17g, PyTorch 0", tensor_values(ls)[i]);
        CHECK(tensor_values(sm)[i] == 1.0, "softmax axis 0: %.17g, PyTorch 1", tensor_values(sm)[i]);
    }
    tensor_release(ls);
    tensor_release(sm);
    tensor_release(x3);

    /* softmax backward: dx = y * (g - sum(g * y)). With g = (1, 10^6, ...),
     * sum(g * y) is about 1 plus 10^6 terms of 4e-12.
     * /usr/bin/python3 -c 'import torch, math; n = 10**6; d = torch.float64;
     *   x = torch.full((n,), -40.0, dtype=d); x[0] = 0; x.requires_grad_();
     *   w = torch.full((n,), 1e6, dtype=d); w[0] = 1;
     *   (torch.softmax(x, 0) * w).sum().backward(); y = torch.softmax(x.detach(), 0);
     *   ref = y[0].item() * (1 - math.fsum((w * y).tolist()));
     *   print(abs(x.grad[0].item() - ref) / abs(ref))'  -> 1.4811695759427163e-06 */
    Tensor *xg = tensor_copy(x), *w = filled(1e6, n, false);
    tensor_set_requires_grad(xg, true);
    tensor_values(w)[0] = 1.0;
    sm = tensor_softmax(xg, 0);
    Tensor *gy = tensor_mul(sm, w), *loss = tensor_sum(gy);
    Tensor *prod = tensor_copy(gy);
    double ref = tensor_values(sm)[0] * (1.0 - exact_sum(tensor_values(prod), n));
    backward(loss);
    CHECK(fabs(tensor_values(xg->grad)[0] - ref) <= 1.4811695759427163e-06 * fabs(ref),
          "softmax backward: %.17g, reference %.17g", tensor_values(xg->grad)[0], ref);
    Tensor *all[] = {xg, sm, gy, loss, prod};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);

    /* log_softmax backward: dx = g - exp(y) * sum(g), g = (1, 1e-17, ...).
     * /usr/bin/python3 -c 'import torch, math; n = 10**6; d = torch.float64;
     *   x = torch.zeros(n, dtype=d, requires_grad=True);
     *   w = torch.full((n,), 1e-17, dtype=d); w[0] = 1;
     *   (torch.log_softmax(x, 0) * w).sum().backward(); y = torch.log_softmax(x.detach(), 0);
     *   print(math.fsum(w.tolist()),
     *         abs(x.grad[1].item() - (1e-17 - math.exp(y[1].item()) * math.fsum(w.tolist()))))'
     * -> 1.00000000001 2.5000177438210675e-18 */
    xg = tensor_zeros(SHAPE(n), true);
    Tensor *wl = filled(1e-17, n, false);
    tensor_values(wl)[0] = 1.0;
    ls = tensor_log_softmax(xg, 0);
    gy = tensor_mul(ls, wl);
    loss = tensor_sum(gy);
    ref = 1e-17 - exp(tensor_values(ls)[1]) * 1.00000000001;
    backward(loss);
    CHECK(fabs(tensor_values(xg->grad)[1] - ref) <= 2.5000177438210675e-18,
          "log_softmax backward: %.17g, reference %.17g", tensor_values(xg->grad)[1], ref);
    Tensor *more[] = {xg, wl, ls, gy, loss, x, w};
    for (int i = 0; i < 7; i++) tensor_release(more[i]);
}

/* softmax is exp(x - max) / sum(exp(x - max)), not exp(log_softmax(x)):
 * x - max - log(sum) rounds to the ulp of x - max (1.1e-13 at -700), which
 * exp turns into a relative error of 5.5e-14 here (found by make difftest).
 * /usr/bin/python3 -c 'import torch; x = torch.tensor([0.0, 0.0, -700.0],
 *   dtype=torch.float64); print(torch.softmax(x, 0)[2].item().hex(),
 *   torch.softmax(x.reshape(3, 1).repeat(1, 2), 0)[2].tolist())'
 * -> 0x1.14f2b0fb9307fp-1011 [4.929838271879885e-305, 4.929838271879885e-305] */
static void test_softmax_far_below_max(void) {
    const double want = 0x1.14f2b0fb9307fp-1011;
    Tensor *x = tensor_create(1, (int64_t[]){3}, (const double[]){0.0, 0.0, -700.0}, false);
    Tensor *x2 = tensor_create(2, (int64_t[]){3, 2},
                               (const double[]){0.0, 0.0, 0.0, 0.0, -700.0, -700.0}, false);
    Tensor *y = tensor_softmax(x, 0), *y2 = tensor_softmax(x2, 0);
    CHECK(matches_torch(tensor_values(y)[2], want), "softmax along the last axis: %.17g, PyTorch %.17g",
          tensor_values(y)[2], want);
    CHECK(matches_torch(tensor_values(y2)[4], want) && matches_torch(tensor_values(y2)[5], want),
          "softmax along another axis: %.17g %.17g, PyTorch %.17g", tensor_values(y2)[4], tensor_values(y2)[5],
          want);
    Tensor *t[] = {x, x2, y, y2};
    for (int i = 0; i < 4; i++) tensor_release(t[i]);
}

/* ======================================================================
 * Hardening 2, item 2: cross_entropy is -log_softmax picked at the class,
 * computed as PyTorch does: (x - max) - logsumexp, never max + logsumexp
 * first (which rounds away logsumexp next to a logit of 1e16).
 * ====================================================================== */

/* -mean over rows of log_softmax(logits)[i, classes[i]], from ag's own ops
 * (onehot picks the class). */
static Tensor *nll_of_log_softmax(Tensor *logits, Tensor *onehot) {
    Tensor *ls = tensor_log_softmax(logits, 1), *picked = tensor_mul(ls, onehot);
    Tensor *rows = tensor_sum_axis(picked, 1), *mean = tensor_mean(rows), *out = tensor_neg(mean);
    Tensor *t[] = {ls, picked, rows, mean};
    for (int i = 0; i < 4; i++) tensor_release(t[i]);
    return out;
}

/* cross_entropy's value and gradient: PyTorch's (within tol, relative for
 * the value, absolute for the gradient) and exactly those of
 * nll_of_log_softmax. */
static void check_cross_entropy(const char *what, int64_t N, int64_t C, const double *logits,
                                const double *classes, double want, const double *want_grad,
                                double tol) {
    Tensor *x = tensor_create(2, (int64_t[]){N, C}, logits, true);
    Tensor *xc = tensor_create(2, (int64_t[]){N, C}, logits, true);
    Tensor *c = tensor_create(1, &N, classes, false), *onehot = tensor_zeros(2, x->shape, false);
    for (int64_t i = 0; i < N; i++) tensor_values(onehot)[i * C + (int64_t)classes[i]] = 1.0;
    /* One graph at a time: backward frees them all. */
    Tensor *ce = tensor_cross_entropy(x, c);
    backward(ce);
    Tensor *ref = nll_of_log_softmax(xc, onehot);
    backward(ref);
    CHECK(fabs(tensor_values(ce)[0] - want) <= tol * fabs(want), "%s: %.17g, PyTorch %.17g", what,
          tensor_values(ce)[0], want);
    CHECK(tensor_values(ce)[0] == tensor_values(ref)[0], "%s: %.17g, -log_softmax picked %.17g", what, tensor_values(ce)[0],
          tensor_values(ref)[0]);
    for (int64_t k = 0; k < N * C; k++) {
        /* Terms of size g/N cancel in the gradient: an ulp of them, absolute. */
        CHECK(fabs(tensor_values(x->grad)[k] - want_grad[k]) <= tol / (double)N,
              "%s: grad[%lld] %.17g, PyTorch %.17g", what, (long long)k, tensor_values(x->grad)[k],
              want_grad[k]);
        CHECK(tensor_values(x->grad)[k] == tensor_values(xc->grad)[k], "%s: grad[%lld] %.17g, composed %.17g", what,
              (long long)k, tensor_values(x->grad)[k], tensor_values(xc->grad)[k]);
    }
    Tensor *t[] = {x, xc, c, onehot, ce, ref};
    for (int i = 0; i < 6; i++) tensor_release(t[i]);
}

static void test_cross_entropy_large_logits(void) {
    /* /usr/bin/python3 -c 'import torch; d = torch.float64;
     *   for rows, cls in [([[1e16, 1e16, 1e16]], [0]),
     *                     ([[1e16, 1e16 + 2, 1e16], [3e15, -1e15, 3e15]], [1, 2]),
     *                     ([[1e300, -1e300, 1e300]], [1])]:
     *     x = torch.tensor(rows, dtype=d, requires_grad=True);
     *     l = torch.nn.functional.cross_entropy(x, torch.tensor(cls)); l.backward();
     *     print(repr(l.item()), x.grad.tolist())'
     * -> 1.0986122886681098 [[-0.6666666666666667, 0.3333333333333333, 0.3333333333333333]]
     *    0.466345973390915 [[0.05325348945960037, -0.1065069789192008, 0.05325348945960037],
     *                       [0.25, 0.0, -0.25]]
     *    2e+300 [[0.5, -1.0, 0.5]]
     * (exp and log may differ from PyTorch's by an ulp: tolerance 4e-16) */
    check_cross_entropy("[[1e16, 1e16, 1e16]], [0]", 1, 3, (double[]){1e16, 1e16, 1e16},
                        (double[]){0}, 1.0986122886681098,
                        (double[]){-0.6666666666666667, 0.3333333333333333, 0.3333333333333333},
                        4e-16);
    check_cross_entropy("two rows near 1e16", 2, 3,
                        (double[]){1e16, 1e16 + 2, 1e16, 3e15, -1e15, 3e15}, (double[]){1, 2},
                        0.466345973390915,
                        (double[]){0.05325348945960037, -0.1065069789192008, 0.05325348945960037,
                                   0.25, 0.0, -0.25},
                        4e-16);
    check_cross_entropy("[[1e300, -1e300, 1e300]], [1]", 1, 3, (double[]){1e300, -1e300, 1e300},
                        (double[]){1}, 2e300, (double[]){0.5, -1.0, 0.5}, 4e-16);
}

/* ======================================================================
 * Hardening 2, item 5: values and gradients at inf, nan and +-0, and with
 * inf, nan and 0 incoming gradients, as PyTorch 1.13 computes them (its
 * derivative formulas and CPU kernels): torch_cases.h, made by
 * torch_cases.py. A nan hidden as 0 (abs's backward did g * sign(x) with
 * sign(0) = 0 by a select, so an incoming nan became 0) is a silent wrong
 * answer.
 * ====================================================================== */

/* loss = sum(y * gt) with gt constant: y's backward receives gt exactly. */
static int backward_with(Tensor *y, const double *g) {
    Tensor *gt = tensor_create(y->ndim, y->shape, g, false), *yg = tensor_mul(y, gt);
    Tensor *loss = tensor_sum(yg);
    int status = backward(loss);
    tensor_release(gt);
    tensor_release(yg);
    tensor_release(loss);
    return status;
}

typedef Tensor *(*UnaryFn)(Tensor *);
typedef Tensor *(*BinaryFn)(Tensor *, Tensor *);

/* The cases name ops as the op table does. */
static UnaryFn unary_by_name(const char *name) { return ag_op_find(name)->unary; }

/* add and sub take alpha (a call, not a binary forward): theirs is 1. */
static BinaryFn binary_by_name(const char *name) {
    if (strcmp(name, "add") == 0) return tensor_add;
    if (strcmp(name, "sub") == 0) return tensor_sub;
    return ag_op_find(name)->binary;
}

enum { MAX_RUN = 256 };

/* The cases come in runs of one op and one g: each run is one tensor. */
static void test_unary_special_values(void) {
    const size_t total = sizeof unary_cases / sizeof unary_cases[0];
    for (size_t start = 0, end; start < total; start = end) {
        const UnaryCase *c = unary_cases + start;
        for (end = start; end < total && end - start < MAX_RUN &&
                          strcmp(unary_cases[end].op, c->op) == 0 && same_double(unary_cases[end].g, c->g);
             end++) {}
        int64_t n = (int64_t)(end - start);
        double xv[MAX_RUN], gv[MAX_RUN];
        for (int64_t i = 0; i < n; i++) xv[i] = c[i].x, gv[i] = c[i].g;
        Tensor *x = tensor_create(1, &n, xv, true), *y = unary_by_name(c->op)(x);
        CHECK(backward_with(y, gv) == 0, "%s: backward: %s", c->op, ag_error());
        for (int64_t i = 0; i < n; i++) {
            CHECK(matches_torch(tensor_values(y)[i], c[i].y), "%s(%g) = %.17g, PyTorch %.17g", c->op, c[i].x,
                  tensor_values(y)[i], c[i].y);
            CHECK(matches_torch(tensor_values(x->grad)[i], c[i].dx), "%s at %g with g = %g: dx %.17g, PyTorch %.17g",
                  c->op, c[i].x, c[i].g, tensor_values(x->grad)[i], c[i].dx);
        }
        tensor_release(x);
        tensor_release(y);
    }
}

static void test_binary_special_values(void) {
    const size_t total = sizeof binary_cases / sizeof binary_cases[0];
    for (size_t start = 0, end; start < total; start = end) {
        const BinaryCase *c = binary_cases + start;
        for (end = start; end < total && end - start < MAX_RUN &&
                          strcmp(binary_cases[end].op, c->op) == 0 && same_double(binary_cases[end].g, c->g);
             end++) {}
        int64_t n = (int64_t)(end - start);
        double av[MAX_RUN], bv[MAX_RUN], gv[MAX_RUN];
        for (int64_t i = 0; i < n; i++) av[i] = c[i].a, bv[i] = c[i].b, gv[i] = c[i].g;
        Tensor *a = tensor_create(1, &n, av, true), *b = tensor_create(1, &n, bv, true);
        Tensor *y = binary_by_name(c->op)(a, b);
        CHECK(backward_with(y, gv) == 0, "%s: backward: %s", c->op, ag_error());
        /* Exactly: +, -, *, / are correctly rounded, and pow's vector
         * part and its gradient's log are SLEEF's, as PyTorch's kernels
         * call them (its scalar tail libm's, as ag's). Without SLEEF, pow
         * and log are libm's or libmvec's, which may be an ulp apart. */
        bool (*agrees)(double, double) =
            strcmp(c->op, "pow") != 0 || ag_vec_ready() ? same_double : matches_torch;
        for (int64_t i = 0; i < n; i++) {
            CHECK(agrees(tensor_values(y)[i], c[i].y), "%s(%g, %g) = %.17g, PyTorch %.17g", c->op, c[i].a,
                  c[i].b, tensor_values(y)[i], c[i].y);
            CHECK(agrees(tensor_values(a->grad)[i], c[i].da) && agrees(tensor_values(b->grad)[i], c[i].db),
                  "%s(%g, %g) with g = %g: da %.17g db %.17g, PyTorch %.17g %.17g", c->op, c[i].a,
                  c[i].b, c[i].g, tensor_values(a->grad)[i], tensor_values(b->grad)[i], c[i].da, c[i].db);
        }
        tensor_release(a);
        tensor_release(b);
        tensor_release(y);
    }
}

/* x's gradient after backward_with(y, g), y made from x: each element as
 * PyTorch's (matches), or exactly when the rule under test is a rounding. */
static void check_grad_as(bool exact, const char *what, Tensor *x, Tensor *y, const double *g,
                          const double *want) {
    CHECK(backward_with(y, g) == 0, "%s: backward: %s", what, ag_error());
    for (int64_t i = 0; i < x->numel; i++)
        CHECK(exact ? same_double(tensor_values(x->grad)[i], want[i]) : matches_torch(tensor_values(x->grad)[i], want[i]),
              "%s: grad[%lld] %.17g, PyTorch %.17g", what, (long long)i, tensor_values(x->grad)[i], want[i]);
    tensor_release(y);
    tensor_zero_grad(x);
}

static void check_grad(const char *what, Tensor *x, Tensor *y, const double *g, const double *want) {
    check_grad_as(false, what, x, y, g, want);
}

static void test_reduction_special_values(void) {
    /* mean's backward divides by n (PyTorch's grad / n), not times 1/n.
     * /usr/bin/python3 -c 'import torch; d = torch.float64;
     *   x = torch.zeros(10, dtype=d, requires_grad=True); (x.mean() * 3).backward();
     *   y = torch.zeros(10, 2, dtype=d, requires_grad=True); (y.mean(0) * 3).sum().backward();
     *   print(x.grad[0].item(), y.grad[0, 0].item())'  -> 0.3 0.3  (3 * 0.1 is 0.30000000000000004) */
    Tensor *x = tensor_zeros(SHAPE(10), true), *x2 = tensor_zeros(SHAPE(10, 2), true);
    double three[2] = {3, 3};
    check_grad_as(true, "mean", x, tensor_mean(x), three,
                  (double[]){0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3});
    double want[20];
    for (int i = 0; i < 20; i++) want[i] = 0.3;
    check_grad_as(true, "mean axis 0", x2, tensor_mean_axis(x2, 0), three, want);
    tensor_release(x);
    tensor_release(x2);

    /* The full max shares g equally among the tied maxima, or among the
     * nans when the max is nan (PyTorch's evenly_distribute_backward).
     * /usr/bin/python3 -c 'import torch; d = torch.float64; inf = float("inf"); nan = float("nan");
     *   for v, g in [([1, 3, 3, 2], 1.), ([nan, 1, nan], 1.), ([3, nan, 3], 1.), ([1, 3, 3, 2], inf),
     *                ([1, 3, 3, 2], nan), ([1, 3, 3, 3], 1.), ([-inf, -inf], 2.), ([inf, 1, inf], 1.)]:
     *     x = torch.tensor(v, dtype=d, requires_grad=True); x.max().backward(torch.tensor(g, dtype=d));
     *     print(x.grad.tolist())' */
    static const struct { int n; double x[4], g, want[4]; } maxes[] = {
        {4, {1, 3, 3, 2}, 1, {0, 0.5, 0.5, 0}},
        {3, {NAN, 1, NAN}, 1, {0.5, 0, 0.5}},
        {3, {3, NAN, 3}, 1, {0, 1, 0}},
        {4, {1, 3, 3, 2}, INFINITY, {0, INFINITY, INFINITY, 0}},
        {4, {1, 3, 3, 2}, NAN, {0, NAN, NAN, 0}},
        {4, {1, 3, 3, 3}, 1, {0, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333}},
        {2, {-INFINITY, -INFINITY}, 2, {1, 1}},
        {3, {INFINITY, 1, INFINITY}, 1, {0.5, 0, 0.5}},
    };
    for (size_t i = 0; i < sizeof maxes / sizeof maxes[0]; i++) {
        int64_t n = maxes[i].n;
        x = tensor_create(1, &n, maxes[i].x, true);
        check_grad("max", x, tensor_max(x), &maxes[i].g, maxes[i].want);
        tensor_release(x);
    }
    /* Along an axis the first maximum (or first nan) takes g, however bad.
     * /usr/bin/python3 -c 'import torch; d = torch.float64; nan = float("nan");
     *   x = torch.tensor([[1, 3, 3], [nan, 2, nan]], dtype=d, requires_grad=True);
     *   x.max(1)[0].backward(torch.tensor([nan, 1.], dtype=d)); print(x.grad.tolist())'
     * -> [[0.0, nan, 0.0], [1.0, 0.0, 0.0]] */
    x = tensor_create(2, (int64_t[]){2, 3}, (double[]){1, 3, 3, NAN, 2, NAN}, true);
    check_grad("max axis 1", x, tensor_max_axis(x, 1), (double[]){NAN, 1},
               (double[]){0, NAN, 0, 1, 0, 0});
    tensor_release(x);
}

static void test_loss_special_values(void) {
    /* mse's gradient is (2 / n) * (pred - target) * g, in that order.
     * /usr/bin/python3 -c 'import torch; d = torch.float64; inf = float("inf"); nan = float("nan");
     *   for p, t, g in [([1e308], [0.], 0.5), ([1e308, -1e308, 3], [0., 0., 3], 0.75),
     *                   ([2., 2.], [2., 2.], inf), ([1., inf], [0., 0.], 1.), ([nan, 1.], [0., 0.], 1.)]:
     *     P = torch.tensor(p, dtype=d, requires_grad=True); T = torch.tensor(t, dtype=d, requires_grad=True);
     *     l = torch.nn.functional.mse_loss(P, T); l.backward(torch.tensor(g, dtype=d));
     *     print(l.item(), P.grad.tolist(), T.grad.tolist())' */
    static const struct { int n; double p[3], t[3], g, loss, dp[3], dt[3]; } mses[] = {
        {1, {1e308}, {0}, 0.5, INFINITY, {INFINITY}, {-INFINITY}},
        {3, {1e308, -1e308, 3}, {0, 0, 3}, 0.75, INFINITY, {5e307, -5e307, 0}, {-5e307, 5e307, 0}},
        {2, {2, 2}, {2, 2}, INFINITY, 0, {NAN, NAN}, {NAN, NAN}},
        {2, {1, INFINITY}, {0, 0}, 1, INFINITY, {1, INFINITY}, {-1, -INFINITY}},
        {2, {NAN, 1}, {0, 0}, 1, NAN, {NAN, 1}, {NAN, -1}},
    };
    for (size_t i = 0; i < sizeof mses / sizeof mses[0]; i++) {
        int64_t n = mses[i].n;
        Tensor *p = tensor_create(1, &n, mses[i].p, true), *t = tensor_create(1, &n, mses[i].t, true);
        Tensor *l = tensor_mse(p, t);
        CHECK(matches_torch(tensor_values(l)[0], mses[i].loss), "mse %zu: %.17g, PyTorch %.17g", i, tensor_values(l)[0],
              mses[i].loss);
        CHECK(backward_with(l, &mses[i].g) == 0, "mse %zu: backward", i);
        for (int64_t k = 0; k < n; k++)
            CHECK(matches_torch(tensor_values(p->grad)[k], mses[i].dp[k]) && matches_torch(tensor_values(t->grad)[k], mses[i].dt[k]),
                  "mse %zu [%lld]: %.17g %.17g, PyTorch %.17g %.17g", i, (long long)k,
                  tensor_values(p->grad)[k], tensor_values(t->grad)[k], mses[i].dp[k], mses[i].dt[k]);
        tensor_release(p);
        tensor_release(t);
        tensor_release(l);
    }

    /* softmax and log_softmax of rows with -inf, nan and inf; g has an inf.
     * /usr/bin/python3 -c 'import torch; d = torch.float64; inf = float("inf"); nan = float("nan");
     *   for fn in ["softmax", "log_softmax"]:
     *     x = torch.tensor([[-inf, 0., 1.], [nan, 0., 1.], [inf, 0., 1.], [-inf, -inf, -inf],
     *                       [0., 1., 2.]], dtype=d, requires_grad=True); y = getattr(torch, fn)(x, 1);
     *     y.backward(torch.tensor([[1., 2., 3.]] * 4 + [[inf, 0., 1.]], dtype=d));
     *     print(y.tolist(), x.grad.tolist())' */
    const double xs[15] = {-INFINITY, 0, 1, NAN, 0, 1, INFINITY, 0, 1, -INFINITY, -INFINITY, -INFINITY, 0, 1, 2};
    const double gs[15] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, INFINITY, 0, 1};
    const double sm_y[15] = {0.0, 0.26894142136999516, 0.7310585786300049, NAN, NAN, NAN, NAN, NAN, NAN,
                             NAN, NAN, NAN, 0.09003057317038045, 0.2447284710547976, 0.6652409557748218};
    const double sm_dx[15] = {-0.0, -0.19661193324148196, 0.1966119332414816, NAN, NAN, NAN, NAN, NAN,
                              NAN, NAN, NAN, NAN, NAN, -INFINITY, -INFINITY};
    const double ls_y[15] = {-INFINITY, -1.3132616875182228, -0.31326168751822286, NAN, NAN, NAN, NAN,
                             NAN, NAN, NAN, NAN, NAN, -2.4076059644443806, -1.4076059644443804,
                             -0.4076059644443804};
    const double ls_dx[15] = {1.0, 0.3863514717800294, -1.3863514717800294, NAN, NAN, NAN, NAN, NAN,
                              NAN, NAN, NAN, NAN, NAN, -INFINITY, -INFINITY};
    for (int log_space = 0; log_space < 2; log_space++) {
        Tensor *x = tensor_create(2, (int64_t[]){5, 3}, xs, true);
        Tensor *y = log_space ? tensor_log_softmax(x, 1) : tensor_softmax(x, 1);
        const double *want = log_space ? ls_y : sm_y;
        for (int k = 0; k < 15; k++)
            CHECK(matches_torch(tensor_values(y)[k], want[k]), "%s [%d]: %.17g, PyTorch %.17g",
                  log_space ? "log_softmax" : "softmax", k, tensor_values(y)[k], want[k]);
        check_grad(log_space ? "log_softmax" : "softmax", x, y, gs, log_space ? ls_dx : sm_dx);
        tensor_release(x);
    }

    /* cross_entropy with inf and nan logits, and inf and nan g.
     * /usr/bin/python3 -c 'import torch; d = torch.float64; inf = float("inf"); nan = float("nan");
     *   for rows, cls, g in [([[inf, 0.]], [0], 1.), ([[-inf, 0.]], [0], 1.), ([[-inf, 0.]], [1], 1.),
     *                        ([[nan, 0.]], [1], 1.), ([[1., 2.]], [0], inf), ([[1., 2.]], [0], nan)]:
     *     x = torch.tensor(rows, dtype=d, requires_grad=True);
     *     l = torch.nn.functional.cross_entropy(x, torch.tensor(cls)); l.backward(torch.tensor(g, dtype=d));
     *     print(l.item(), x.grad.tolist())' */
    static const struct { double x[2], cls, g, loss, dx[2]; } ces[] = {
        {{INFINITY, 0}, 0, 1, NAN, {NAN, NAN}},
        {{-INFINITY, 0}, 0, 1, INFINITY, {-1, 1}},
        {{-INFINITY, 0}, 1, 1, 0, {0, 0}},
        {{NAN, 0}, 1, 1, NAN, {NAN, NAN}},
        {{1, 2}, 0, INFINITY, 1.3132616875182228, {NAN, INFINITY}},
        {{1, 2}, 0, NAN, 1.3132616875182228, {NAN, NAN}},
    };
    for (size_t i = 0; i < sizeof ces / sizeof ces[0]; i++) {
        Tensor *x = tensor_create(2, (int64_t[]){1, 2}, ces[i].x, true);
        Tensor *c = tensor_create(1, (int64_t[]){1}, &ces[i].cls, false);
        Tensor *l = tensor_cross_entropy(x, c);
        CHECK(matches_torch(tensor_values(l)[0], ces[i].loss), "cross_entropy %zu: %.17g, PyTorch %.17g", i,
              tensor_values(l)[0], ces[i].loss);
        check_grad("cross_entropy", x, l, &ces[i].g, ces[i].dx);
        tensor_release(x);
        tensor_release(c);
    }
}

/* ======================================================================
 * Hardening 2, item 7: a one-element exponent (a literal in the shell is a
 * 0-d tensor) gives PyTorch's x ** scalar: its kernels for 2 (x*x),
 * 3 (x*x*x), -2 (1/(x*x)), 0.5 (sqrt), -0.5 (1/sqrt), -1 (1/x), 0 (1) and
 * 1 (x), std::pow otherwise, and its gradient g * (e * x ** (e - 1)) with
 * the same kernels (0 for e = 0). So (-inf) ** 0.5 is nan and (-0) ** 0.5
 * is -0 (sqrt), where pow gives inf and +0. Exactly, bit for bit. Each
 * case in a one-element tensor, as PyTorch computed it: in a longer one,
 * an exponent without a kernel of its own takes SLEEF's pow on whole
 * steps of 8 (test_math_bits.c), std::pow only on the tail.
 * ====================================================================== */

static void test_pow_scalar_exponent(void) {
    const size_t total = sizeof pow_scalar_cases / sizeof pow_scalar_cases[0];
    for (size_t start = 0, end; start < total; start = end) {
        const PowScalarCase *c = pow_scalar_cases + start;
        end = start + 1;
        int64_t n = 1;
        double xv[1], gv[1];
        for (int64_t i = 0; i < n; i++) xv[i] = c[i].x, gv[i] = c[i].g;
        /* The exponent as a literal (0-d) and as a one-element (1, 1). */
        for (int form = 0; form < 2; form++) {
            Tensor *x = tensor_create(1, &n, xv, true);
            Tensor *e = form == 0 ? tensor_scalar(c->e) : tensor_full(c->e, SHAPE(1, 1), false);
            Tensor *y = tensor_pow(x, e);
            CHECK(backward_with(y, gv) == 0, "pow: backward: %s", ag_error());
            for (int64_t i = 0; i < n; i++) {
                CHECK(same_double(tensor_values(y)[i], c[i].y), "%g ** %g = %.17g, PyTorch %.17g", c[i].x, c[i].e,
                      tensor_values(y)[i], c[i].y);
                /* With (1, 1), the (1, n) gradient is summed into (n,) from
                 * +0, which turns -0 into +0 (PyTorch's sum_to_size too). */
                double got = tensor_values(x->grad)[i];
                CHECK(same_double(got, c[i].dx) || (form == 1 && got == 0 && c[i].dx == 0),
                      "%g ** %g with g = %g: dx %.17g, PyTorch %.17g", c[i].x, c[i].e, c[i].g,
                      got, c[i].dx);
            }
            Tensor *t[] = {x, e, y};
            for (int k = 0; k < 3; k++) tensor_release(t[k]);
        }
    }
    /* The cases, by name.
     * /usr/bin/python3 -c 'import torch; x = torch.tensor([-float("inf"), -0.0], dtype=torch.float64);
     *   print((x ** 0.5).tolist(), torch.relu(torch.tensor(-0.0)).item())'  -> [nan, -0.0] -0.0 */
    Tensor *x = tensor_create(1, (int64_t[]){2}, (double[]){-INFINITY, -0.0}, false);
    Tensor *half = tensor_scalar(0.5), *y = tensor_pow(x, half), *r = tensor_relu(x);
    CHECK(isnan(tensor_values(y)[0]) && same_double(tensor_values(y)[1], -0.0), "(-inf, -0) ** 0.5 = (%g, %g)", tensor_values(y)[0],
          tensor_values(y)[1]);
    CHECK(same_double(tensor_values(r)[1], -0.0), "relu(-0) = %g", tensor_values(r)[1]);
    Tensor *t[] = {x, half, y, r};
    for (int k = 0; k < 4; k++) tensor_release(t[k]);
}

/* ======================================================================
 * Hardening 2, item 6: the same input gives the same result in every
 * position. glibc's vector functions (libmvec, which the loops of unary.c
 * call) differ from the scalar ones by an ulp at some inputs, and a loop's
 * tail used to run scalar: exp(1.58) at index 8 of 9 was larger than at
 * 0..7, so max took all of the gradient there.
 * ====================================================================== */

static void test_same_input_same_result(void) {
    Tensor *x = filled(1.58, 9, true), *e = tensor_exp(x), *m = tensor_max(e);
    CHECK(backward(m) == 0, "max(exp(x)): %s", ag_error());
    for (int i = 1; i < 9; i++)
        CHECK(tensor_values(e)[i] == tensor_values(e)[0] && tensor_values(x->grad)[i] == tensor_values(x->grad)[0],
              "exp(1.58) [%d] = %a, [0] = %a; gradient %g vs %g", i, tensor_values(e)[i], tensor_values(e)[0],
              tensor_values(x->grad)[i], tensor_values(x->grad)[0]);
    Tensor *t[] = {x, e, m};
    for (int i = 0; i < 3; i++) tensor_release(t[i]);

    /* Every op that calls libmvec, at inputs where vector and scalar
     * results differ (found by search) and a few others, in tensors of 1
     * to 40 equal elements, forward and (sin, cos) backward: every element
     * as in the one-element tensor. With SLEEF, sigmoid's last n % 8
     * elements are PyTorch's scalar tail (elementwise.h): those as in the
     * one-element tensor, the others as in the first of 8. */
    static const struct { const char *name; UnaryFn op; double v[4]; } ops[] = {
        {"exp", tensor_exp, {1.58, 4.93, -4.2, 0.3}},
        {"log", tensor_log, {4.99, 4.17, 2.57, 0.3}},
        {"tanh", tensor_tanh, {-1.18, -0.23, 2.79, 0.3}},
        {"sin", tensor_sin, {-1.3, -1.52, 5.64, 5.37}},
        {"cos", tensor_cos, {-0.27, 1.78, -5.81, -5.91}},
        {"sigmoid", tensor_sigmoid, {4.2, -4.2, 4.93, -4.93}},
        {"tan", tensor_tan, {-1.3, 0.7, 1.2, 0.3}},
        {"atan", tensor_atan, {-4.2, 0.23, 2.79, 0.3}},
        {"asin", tensor_asin, {-0.93, 0.41, 0.77, 0.3}},
        {"erf", tensor_erf, {-1.18, 0.23, 2.79, 0.3}},
        {"expm1", tensor_expm1, {1.58, -4.2, 1e-6, 0.3}},
    };
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int v = 0; v < 4; v++) {
            double y1 = 0, dx1 = 0, y8 = 0, dx8 = 0;
            int64_t differ = 0, first_n = 0, first_i = 0;
            bool tail = ops[o].op == tensor_sigmoid && ag_vec_ready();
            for (int64_t n = 1; n <= 40; n++) {
                Tensor *xs = filled(ops[o].v[v], n, true), *y = ops[o].op(xs), *s = tensor_sum(y);
                backward(s);
                if (n == 1) y1 = tensor_values(y)[0], dx1 = tensor_values(xs->grad)[0];
                if (n == 8) y8 = tensor_values(y)[0], dx8 = tensor_values(xs->grad)[0];
                for (int64_t i = 0; i < n; i++) {
                    bool scalar = !tail || i >= n - n % 8;
                    double yw = scalar ? y1 : y8, dxw = scalar ? dx1 : dx8;
                    if ((tensor_values(y)[i] != yw || tensor_values(xs->grad)[i] != dxw) && differ++ == 0)
                        first_n = n, first_i = i;
                }
                Tensor *u[] = {xs, y, s};
                for (int k = 0; k < 3; k++) tensor_release(u[k]);
            }
            CHECK(differ == 0, "%s(%g): %lld elements differ from the one-element result, the "
                  "first at [%lld] of %lld", ops[o].name, ops[o].v[v], (long long)differ,
                  (long long)first_i, (long long)first_n);
        }
}

/* torch.arange(start, stop, step) in float64, bit for bit (arange_cases.h,
 * made by arange_cases.py): PyTorch's x[200] of arange(-2, 3, 0.01) is
 * 4.163336342344337e-17, not 0. */
static void test_arange_bits(void) {
    int64_t same = 0, total = 0;
    for (size_t k = 0; k < sizeof arange_cases / sizeof arange_cases[0]; k++) {
        const ArangeCase *a = &arange_cases[k];
        Tensor *t = tensor_arange(a->start, a->stop, a->step);
        int64_t d = 0;
        if (!t || t->numel != a->n) d = -1;
        else
            for (int64_t i = 0; i < a->n; i++) d += !same_double(tensor_values(t)[i], a->want[i]);
        CHECK(d == 0, "arange(%g, %g, %g): %lld of %lld elements differ from PyTorch's",
              a->start, a->stop, a->step, (long long)d, (long long)a->n);
        same += d < 0 ? 0 : a->n - d;
        total += a->n;
        tensor_release(t);
    }
    printf("  arange: %lld of %lld elements have PyTorch's bits\n", (long long)same,
           (long long)total);
}

void test_numerics(void) {
    test_sum_accuracy();
    test_softmax_sum_accuracy();
    test_softmax_far_below_max();
    test_cross_entropy_large_logits();
    test_unary_special_values();
    test_binary_special_values();
    test_reduction_special_values();
    test_loss_special_values();
    test_pow_scalar_exponent();
    test_same_input_same_result();
    test_arange_bits();
}
