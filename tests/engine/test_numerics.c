/*
 * test_numerics.c — the ops' numbers against PyTorch 1.13's: summation
 * accuracy, cross_entropy with large logits, gradients through inf and nan,
 * pow with a scalar exponent, and the same result for the same input in
 * every position. Every expected figure comes from PyTorch 1.13 (Debian's
 * python3-torch), by the command in the comment above it; nan is compared
 * with isnan.
 */
#include "harness.h"

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
    CHECK(fabs(s->data[0] - 1e6) <= 8.149072527885437e-10, "sum of 10^7 x 0.1: error %g",
          s->data[0] - 1e6);
    CHECK(fabs(m->data[0] - 0.1) <= 6.938893903907228e-17, "mean of 10^7 x 0.1: error %g",
          m->data[0] - 0.1);
    /* /usr/bin/python3 -c 'import torch; x = torch.full((10**7,), 0.1, dtype=torch.float64);
     *   print(torch.nn.functional.mse_loss(x, torch.zeros_like(x)).item() - 0.1 * 0.1)'
     * -> 5.204170427930421e-18 (each term is 0.1 * 0.1 rounded) */
    Tensor *z = tensor_zeros(1, x->shape, false), *mse = tensor_mse(x, z);
    CHECK(fabs(mse->data[0] - 0.1 * 0.1) <= 5.204170427930421e-18, "mse: error %g",
          mse->data[0] - 0.1 * 0.1);
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
        CHECK(fabs(s->data[i] - 1e6) <= 1.280568540096283e-09, "sum axis 0 of (10^7, 2): error %g",
              s->data[i] - 1e6);
        CHECK(fabs(m->data[i] - 0.1) <= 1.3877787807814457e-16,
              "mean axis 0 of (10^7, 2): error %g", m->data[i] - 0.1);
    }
    tensor_release(x);
    tensor_release(s);
    tensor_release(m);
    x = tensor_full(0.1, SHAPE(3, 1000000, 2), false);
    s = tensor_sum_axis(x, 1);
    for (int i = 0; i < 6; i++)
        CHECK(fabs(s->data[i] - 1e5) <= 7.275957614183426e-11, "sum axis 1 of (3, 10^6, 2): error %g",
              s->data[i] - 1e5);
    tensor_release(x);
    tensor_release(s);

    /* cross_entropy's mean over N rows.
     * /usr/bin/python3 -c 'import torch, math; print(torch.nn.functional.cross_entropy(
     *   torch.zeros(10**6, 2, dtype=torch.float64), torch.zeros(10**6, dtype=torch.long)).item()
     *   - math.log(2))'  -> 0.0 */
    x = tensor_zeros(SHAPE(1000000, 2), false);
    Tensor *c = tensor_zeros(SHAPE(1000000), false), *ce = tensor_cross_entropy(x, c);
    CHECK(ce->data[0] == log(2.0), "cross_entropy over 10^6 rows: error %g", ce->data[0] - log(2.0));
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
     * are the tolerances. Along a non-last axis PyTorch keeps only the 1
     * (0.0 and 1.0): the same tolerances there. */
    const double exact_ls = -4.2483500069283095e-12, exact_sm = 0.9999999999957516;
    const double tol_ls = 1.062231970864111e-12, tol_sm = 1.0622613899613498e-12;
    Tensor *x = filled(-40.0, n, false);
    x->data[0] = 0.0;
    Tensor *ls = tensor_log_softmax(x, 0), *sm = tensor_softmax(x, 0);
    CHECK(fabs(ls->data[0] - exact_ls) <= tol_ls, "log_softmax: %.17g", ls->data[0]);
    CHECK(fabs(sm->data[0] - exact_sm) <= tol_sm, "softmax: %.17g", sm->data[0]);
    tensor_release(ls);
    tensor_release(sm);
    Tensor *x3 = tensor_full(-40.0, SHAPE(n, 3), false);
    for (int i = 0; i < 3; i++) x3->data[i] = 0.0;
    ls = tensor_log_softmax(x3, 0);
    sm = tensor_softmax(x3, 0);
    for (int i = 0; i < 3; i++) {
        CHECK(fabs(ls->data[i] - exact_ls) <= tol_ls, "log_softmax axis 0: %.17g", ls->data[i]);
        CHECK(fabs(sm->data[i] - exact_sm) <= tol_sm, "softmax axis 0: %.17g", sm->data[i]);
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
    Tensor *xg = tensor_detach(x), *w = filled(1e6, n, false);
    tensor_set_requires_grad(xg, true);
    w->data[0] = 1.0;
    sm = tensor_softmax(xg, 0);
    Tensor *gy = tensor_mul(sm, w), *loss = tensor_sum(gy);
    Tensor *prod = tensor_detach(gy);
    double ref = sm->data[0] * (1.0 - exact_sum(prod->data, n));
    backward(loss);
    CHECK(fabs(xg->grad->data[0] - ref) <= 1.4811695759427163e-06 * fabs(ref),
          "softmax backward: %.17g, reference %.17g", xg->grad->data[0], ref);
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
    wl->data[0] = 1.0;
    ls = tensor_log_softmax(xg, 0);
    gy = tensor_mul(ls, wl);
    loss = tensor_sum(gy);
    ref = 1e-17 - exp(ls->data[1]) * 1.00000000001;
    backward(loss);
    CHECK(fabs(xg->grad->data[1] - ref) <= 2.5000177438210675e-18,
          "log_softmax backward: %.17g, reference %.17g", xg->grad->data[1], ref);
    Tensor *more[] = {xg, wl, ls, gy, loss, x, w};
    for (int i = 0; i < 7; i++) tensor_release(more[i]);
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
    for (int64_t i = 0; i < N; i++) onehot->data[i * C + (int64_t)classes[i]] = 1.0;
    /* One graph at a time: backward frees them all. */
    Tensor *ce = tensor_cross_entropy(x, c);
    backward(ce);
    Tensor *ref = nll_of_log_softmax(xc, onehot);
    backward(ref);
    CHECK(fabs(ce->data[0] - want) <= tol * fabs(want), "%s: %.17g, PyTorch %.17g", what,
          ce->data[0], want);
    CHECK(ce->data[0] == ref->data[0], "%s: %.17g, -log_softmax picked %.17g", what, ce->data[0],
          ref->data[0]);
    for (int64_t k = 0; k < N * C; k++) {
        /* Terms of size g/N cancel in the gradient: an ulp of them, absolute. */
        CHECK(fabs(x->grad->data[k] - want_grad[k]) <= tol / (double)N,
              "%s: grad[%lld] %.17g, PyTorch %.17g", what, (long long)k, x->grad->data[k],
              want_grad[k]);
        CHECK(x->grad->data[k] == xc->grad->data[k], "%s: grad[%lld] %.17g, composed %.17g", what,
              (long long)k, x->grad->data[k], xc->grad->data[k]);
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

void test_numerics(void) {
    int64_t base = live_tensors();
    test_sum_accuracy();
    test_softmax_sum_accuracy();
    test_cross_entropy_large_logits();
    CHECK(live_tensors() == base, "numerics tests leaked %lld tensors",
          (long long)(live_tensors() - base));
}
