/*
 * test_retain.c — a graph kept for another backward (retain_graph) and
 * gradients as values (ag_grad, PyTorch's torch.autograd.grad): a second
 * backward accumulates as PyTorch's does, the next one that does not retain
 * frees the arena, ag_grad returns gradients (checked against finite
 * differences) and touches no .grad, and failures change nothing.
 */
#include "harness.h"

#include <signal.h>

/* ======================================================================
 * retain_graph
 * ====================================================================== */

/* y = sum(x * x * w): backward twice with retain, then once without: x.grad
 * = 3 * 2xw (PyTorch's accumulation), and the third frees the arena. */
static void test_backward_twice(void) {
    int64_t base = live_tensors();
    Tensor *x = tensor_create(SHAPE(3), (double[]){1, 2, 3}, true);
    Tensor *w = tensor_create(SHAPE(3), (double[]){0.5, -1, 2}, true);
    Tensor *xx = tensor_mul(x, x), *p = tensor_mul(xx, w), *y = tensor_sum(p);
    Tensor *dead = tensor_exp(xx); /* a branch y does not reach: its graph stays too */
    CHECK(ag_backward(1, &y, NULL, true, 0, NULL) == 0, "retained backward: %s", ag_error());
    CHECK(tensor_has_graph(y) && tensor_has_graph(dead) && ag_graph_size() == 4,
          "the graph stays (%lld Functions)", (long long)ag_graph_size());
    CHECK(ag_backward(1, &y, NULL, true, 0, NULL) == 0, "a second retained backward: %s",
          ag_error());
    CHECK(backward(y) == 0, "a third, not retained: %s", ag_error());
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        ok = ok && tensor_values(x->grad)[i] == 3 * 2 * tensor_values(x)[i] * tensor_values(w)[i];
        ok = ok && tensor_values(w->grad)[i] == 3 * tensor_values(x)[i] * tensor_values(x)[i];
    }
    CHECK(ok, "three backwards accumulate three times the gradient");
    CHECK(!tensor_has_graph(y) && tensor_has_graph(dead),
          "the backward that does not retain frees its own graph, not dead's");
    CHECK(backward(y) == -1 && ag_error_freed_graph() &&
              strstr(ag_error(), "was freed by an earlier backward") != NULL,
          "a freed graph is refused, and says so: %s", ag_error());
    Tensor *all[] = {x, w, xx, p, y, dead};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
    ag_graph_free(); /* dead's graph, kept while dead was alive */
    CHECK(live_tensors() == base, "leaked %lld tensors", (long long)(live_tensors() - base));
}

/* A retained graph differentiated from another root, and with a gradient:
 * h = x * x; y = h * 3 retained; then h.backward(g) reaches the same
 * Functions with counts of its own (the recount). */
static void test_retain_other_root(void) {
    Tensor *x = tensor_create(SHAPE(2), (double[]){1.5, -2}, true);
    Tensor *h = tensor_mul(x, x), *three = tensor_scalar(3), *y3 = tensor_mul(h, three);
    Tensor *y = tensor_sum(y3);
    CHECK(ag_backward(1, &y, NULL, true, 0, NULL) == 0, "retained: %s", ag_error());
    Tensor *g = tensor_create(SHAPE(2), (double[]){10, 100}, false);
    CHECK(ag_backward(1, &h, &g, false, 0, NULL) == 0, "then from h with a gradient: %s",
          ag_error());
    CHECK(tensor_values(x->grad)[0] == 6 * 1.5 + 10 * 2 * 1.5 && tensor_values(x->grad)[1] == 6 * -2 + 100 * 2 * -2,
          "x.grad = 6x + g * 2x: %g %g", tensor_values(x->grad)[0], tensor_values(x->grad)[1]);
    CHECK(!tensor_has_graph(h) && tensor_has_graph(y) && backward(y) == -1 &&
              ag_error_freed_graph(),
          "h's graph is freed; y's stays while y lives, refused where it reaches h's: %s",
          ag_error());
    Tensor *all[] = {x, h, three, y3, y, g};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
    ag_graph_free();
}

/* Several outputs at once (torch.autograd.backward([a, b], [ga, gb])), one
 * an ancestor of the other, and backward(inputs=...) into one leaf only. */
static void test_backward_many(void) {
    Tensor *x = tensor_create(SHAPE(2), (double[]){2, 3}, true);
    Tensor *w = tensor_create(SHAPE(2), (double[]){-1, 4}, true);
    Tensor *a = tensor_mul(x, w), *b = tensor_sum(a);
    Tensor *ys[] = {a, b};
    Tensor *ga = tensor_create(SHAPE(2), (double[]){1, 2}, false);
    Tensor *gs[] = {ga, NULL};
    CHECK(ag_backward(2, ys, gs, true, 0, NULL) == 0, "two outputs: %s", ag_error());
    CHECK(tensor_values(x->grad)[0] == (1 + 1) * -1 && tensor_values(x->grad)[1] == (2 + 1) * 4,
          "x.grad = (ga + 1) * w");
    Tensor *only[] = {w};
    tensor_zero_grad(x);
    CHECK(ag_backward(1, &b, NULL, false, 1, only) == 0, "inputs=[w]: %s", ag_error());
    CHECK(x->grad == NULL, "x is not among the inputs: no gradient");
    CHECK(tensor_values(w->grad)[0] == (1 + 1) * 2 + 2 && tensor_values(w->grad)[1] == (2 + 1) * 3 + 3,
          "w.grad accumulated: %g %g", tensor_values(w->grad)[0], tensor_values(w->grad)[1]);
    Tensor *c = tensor_mul(x, w), *d = tensor_sum(c);
    Tensor *inner[] = {c};
    CHECK(ag_backward(1, &d, NULL, false, 1, inner) == -1 &&
              strstr(ag_error(), "intermediate") != NULL,
          "inputs= refuses an intermediate: %s", ag_error());
    CHECK(backward(d) == 0, "and nothing changed: %s", ag_error());
    Tensor *all[] = {x, w, a, b, ga, c, d};
    for (int i = 0; i < 7; i++) tensor_release(all[i]);
}

/* ======================================================================
 * ag_grad
 * ====================================================================== */

/* f(a, b) = sum(tanh(a @ b) * exp(a @ b)) with a (2,3), b (3,2); the
 * gradients ag_grad returns against central differences, for leaves and for
 * the intermediate m = a @ b, and no .grad touched. */
static Tensor *f_ab(Tensor *a, Tensor *b, Tensor **m_out) {
    Tensor *m = tensor_matmul(a, b), *t = tensor_tanh(m), *e = tensor_exp(m);
    Tensor *p = tensor_mul(t, e), *y = tensor_sum(p);
    tensor_release(t), tensor_release(e), tensor_release(p);
    if (m_out) *m_out = m;
    else tensor_release(m);
    return y;
}

static void test_grad_values(void) {
    int64_t base = live_tensors();
    Tensor *a = test_uniform(-1, 1, true, SHAPE(2, 3)), *b = test_uniform(-1, 1, true, SHAPE(3, 2));
    Tensor *held = test_uniform(-1, 1, false, SHAPE(3, 2));
    b->grad = tensor_retain(held); /* a .grad that must stay as it is */
    Tensor *m = NULL, *y = f_ab(a, b, &m);
    Tensor *inputs[] = {a, b, m}, *g[3];
    CHECK(ag_grad(1, &y, NULL, 3, inputs, true, false, g) == 0, "grad: %s", ag_error());
    CHECK(a->grad == NULL && b->grad == held, "no .grad touched");
    CHECK(tensor_has_graph(y), "retain_graph keeps the graph");
    /* central differences of f in each element of a and b */
    double h = 1e-6;
    bool ok = true;
    for (int which = 0; which < 2; which++) {
        Tensor *t = inputs[which];
        for (int64_t i = 0; i < t->numel; i++) {
            double keep = tensor_values(t)[i];
            bool was = ag_set_grad_enabled(false);
            tensor_values(t)[i] = keep + h;
            Tensor *yp = f_ab(a, b, NULL);
            tensor_values(t)[i] = keep - h;
            Tensor *ym = f_ab(a, b, NULL);
            tensor_values(t)[i] = keep;
            ag_set_grad_enabled(was);
            double fd = (tensor_values(yp)[0] - tensor_values(ym)[0]) / (2 * h);
            ok = ok && fabs(tensor_values(g[which])[i] - fd) <= 1e-6 + 1e-5 * fabs(fd);
            tensor_release(yp), tensor_release(ym);
        }
    }
    CHECK(ok, "ag_grad's gradients of a and b agree with central differences");
    /* dy/dm by the definition: d(tanh(m) e^m)/dm = (1 - tanh^2 + tanh) e^m */
    ok = g[2] && g[2]->numel == 4 && !g[2]->requires_grad;
    for (int64_t i = 0; ok && i < 4; i++) {
        double v = tensor_values(m)[i], t = tanh(v);
        ok = fabs(tensor_values(g[2])[i] - (1 - t * t + t) * exp(v)) < 1e-12;
    }
    CHECK(ok, "the intermediate's gradient, a constant of its shape");
    /* The same again through the retained graph, then not retained. */
    Tensor *g2[3];
    CHECK(ag_grad(1, &y, NULL, 3, inputs, false, false, g2) == 0, "again: %s", ag_error());
    ok = true;
    for (int k = 0; k < 3; k++)
        for (int64_t i = 0; i < g[k]->numel; i++) ok = ok && tensor_values(g2[k])[i] == tensor_values(g[k])[i];
    CHECK(ok, "the same gradients the second time (no accumulation)");
    CHECK(ag_graph_size() == 0 && !tensor_has_graph(y), "not retained: the arena is freed");
    Tensor *g3[1];
    CHECK(ag_grad(1, &y, NULL, 1, inputs, false, false, g3) == -1 && ag_error_freed_graph(),
          "a freed graph is refused: %s", ag_error());
    CHECK(a->grad == NULL && b->grad == held && same_double(tensor_values(held)[0], tensor_values(b->grad)[0]),
          "still no .grad touched");
    for (int k = 0; k < 3; k++) tensor_release(g[k]), tensor_release(g2[k]);
    Tensor *all[] = {a, b, held, m, y};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);
    CHECK(live_tensors() == base, "leaked %lld tensors", (long long)(live_tensors() - base));
}

/* grad_outputs, several outputs, an input twice, unused inputs and the
 * errors, in PyTorch's words. */
static void test_grad_cases(void) {
    int64_t base = live_tensors();
    Tensor *x = tensor_create(SHAPE(2), (double[]){1, 2}, true);
    Tensor *u = tensor_create(SHAPE(2), (double[]){5, 6}, true); /* unused */
    Tensor *c = tensor_create(SHAPE(2), (double[]){1, 1}, false);
    Tensor *y = tensor_mul(x, x), *s = tensor_sum(y);
    Tensor *go = tensor_create(SHAPE(2), (double[]){3, -1}, false);
    Tensor *outs[] = {y, s}, *gos[] = {go, NULL};
    Tensor *ins[] = {x, x, u}, *g[3];
    CHECK(ag_grad(2, outs, gos, 3, ins, true, true, g) == 0, "two outputs: %s", ag_error());
    CHECK(g[0] && g[1] && g[0] != g[1] && tensor_values(g[0])[0] == (3 + 1) * 2 && tensor_values(g[1])[1] == 0 * 4,
          "x twice: (go + 1) * 2x each, two tensors: %g %g", g[0] ? tensor_values(g[0])[0] : -1,
          g[1] ? tensor_values(g[1])[1] : -1);
    CHECK(g[2] == NULL, "an unused input with allow_unused: NULL");
    for (int k = 0; k < 3; k++) tensor_release(g[k]);
    CHECK(ag_grad(1, &s, NULL, 3, ins, true, false, g) == -1 &&
              strcmp(ag_error(), "One of the differentiated Tensors appears to not have been "
                     "used in the graph. Set allow_unused=True if this is the desired "
                     "behavior.") == 0 && g[0] == NULL,
          "without allow_unused, PyTorch's error and no gradients: %s", ag_error());
    Tensor *withc[] = {x, c};
    CHECK(ag_grad(1, &s, NULL, 2, withc, true, false, g) == -1 &&
              strcmp(ag_error(), "One of the differentiated Tensors does not require grad") == 0,
          "an input that does not require grad: %s", ag_error());
    CHECK(ag_grad(1, &y, NULL, 1, ins, true, false, g) == -1 &&
              strcmp(ag_error(), "grad can be implicitly created only for scalar outputs") == 0,
          "no grad_output for a vector: %s", ag_error());
    CHECK(ag_grad(1, &c, NULL, 1, ins, true, false, g) == -1 &&
              strcmp(ag_error(), "element 0 of tensors does not require grad and does not have "
                     "a grad_fn") == 0, "an output without a graph: %s", ag_error());
    CHECK(ag_grad(1, &x, &go, 1, ins, true, false, g) == 0 && tensor_values(g[0])[1] == -1,
          "a leaf's gradient with respect to itself: grad_output");
    tensor_release(g[0]);
    CHECK(x->grad == NULL && u->grad == NULL, "no .grad touched");
    CHECK(backward(s) == 0 && tensor_values(x->grad)[1] == 4, "the graph still differentiates");
    Tensor *all[] = {x, u, c, y, s, go};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
    CHECK(live_tensors() == base, "leaked %lld tensors", (long long)(live_tensors() - base));
}

/* Each allocation of ag_grad failing in turn, retained and not: -1, no
 * gradients returned, no .grad changed, nothing leaked; a retained graph
 * still differentiates afterwards. */
static void test_grad_alloc_failures(void) {
    int64_t base = live_tensors();
    for (int retain = 0; retain < 2; retain++) {
        Tensor *a = test_uniform(-1, 1, true, SHAPE(2, 3)), *b = test_uniform(-1, 1, true, SHAPE(3, 2));
        Tensor *held = test_uniform(-1, 1, false, SHAPE(3, 2));
        b->grad = tensor_retain(held);
        int rc = -1, failures = 0;
        for (int64_t n = 0; rc != 0 && n < 100; n++) {
            Tensor *m = NULL, *y = f_ab(a, b, &m), *ins[] = {a, m}, *g[2] = {NULL, NULL};
            int64_t live = live_tensors();
            ag_alloc_fail_after(n);
            rc = ag_grad(1, &y, NULL, 2, ins, retain, false, g);
            ag_alloc_fail_after(-1);
            if (rc != 0) {
                failures++;
                CHECK(g[0] == NULL && g[1] == NULL && a->grad == NULL && b->grad == held &&
                          strstr(ag_error(), "out of memory"),
                      "allocation %lld failing (retain %d): nothing returned, no .grad "
                      "changed: %s", (long long)n, retain, ag_error());
                /* retained, every tensor is still held; otherwise the graph's go */
                CHECK(!retain || live_tensors() == live, "%lld leaked",
                      (long long)(live_tensors() - live));
                CHECK(retain ? tensor_has_graph(y) : ag_graph_size() == 0,
                      "retained, the graph stays; otherwise it is freed");
                if (retain) CHECK(backward(y) == 0 && a->grad, "and differentiates: %s", ag_error());
                tensor_zero_grad(a);
                tensor_release(b->grad);
                b->grad = tensor_retain(held);
            }
            for (int k = 0; k < 2; k++) tensor_release(g[k]);
            tensor_release(m), tensor_release(y);
            ag_graph_free();
        }
        CHECK(rc == 0 && failures > 3, "ag_grad succeeds once nothing fails (after %d)", failures);
        tensor_release(a), tensor_release(b), tensor_release(held);
    }
    CHECK(live_tensors() == base, "leaked %lld tensors", (long long)(live_tensors() - base));
}

/* An interrupt during a retained backward: -1, every .grad as before, and
 * the graph kept (retain means retain) and whole: the next backward works. */
static volatile sig_atomic_t interrupted;

static void interrupt_at_second_apply(const AgTraceEvent *e, void *ctx) {
    int *applies = ctx;
    if (e->kind == AG_TRACE_APPLY && ++*applies == 2) interrupted = 1;
}

static void test_retain_interrupted(void) {
    Tensor *x = tensor_create(SHAPE(2), (double[]){1, 2}, true);
    Tensor *s0 = tensor_sum(x);
    CHECK(backward(s0) == 0, "x.grad = 1: %s", ag_error());
    tensor_release(s0);
    Tensor *y = tensor_mul(x, x), *z = tensor_exp(y), *s = tensor_sum(z);
    Tensor *held = x->grad;
    int applies = 0;
    ag_set_interrupt_flag(&interrupted);
    ag_set_trace(interrupt_at_second_apply, &applies);
    int rc = ag_backward(1, &s, NULL, true, 0, NULL);
    ag_set_trace(NULL, NULL);
    CHECK(rc == -1 && strcmp(ag_error(), "interrupted") == 0, "interrupted: %s", ag_error());
    CHECK(x->grad == held && tensor_values(x->grad)[0] == 1 && tensor_values(x->grad)[1] == 1, ".grad as before");
    interrupted = 0;
    ag_set_interrupt_flag(NULL);
    CHECK(tensor_has_graph(s) && backward(s) == 0, "the retained graph differentiates: %s",
          ag_error());
    CHECK(fabs(tensor_values(x->grad)[0] - (1 + 2 * exp(1.0))) < 1e-12, "x.grad = 1 + 2x e^(x^2)");
    tensor_release(x), tensor_release(y), tensor_release(z), tensor_release(s);
}

/* retain_grad: an intermediate keeps its gradient, summed over backwards;
 * the flow through it is unchanged; a failed backward leaves it as it was. */
static void test_retain_grad(void) {
    Tensor *x = tensor_create(SHAPE(2), (double[]){1.5, -2.0}, true);
    Tensor *h = tensor_mul(x, x), *t = h ? tensor_tanh(h) : NULL, *y = t ? tensor_sum(t) : NULL;
    CHECK(y && tensor_retain_grad(h) == 0 && h->retains_grad, "retain_grad on x * x");
    CHECK(ag_backward(1, &y, NULL, true, 0, NULL) == 0, "first backward: %s", ag_error());
    /* tanh's last bits are SLEEF's or libm's: compare to 1e-14 */
    double want0 = 1 - tanh(2.25) * tanh(2.25), got0 = h->grad ? tensor_values(h->grad)[0] : NAN;
    CHECK(fabs(got0 - want0) < 1e-14 && x->grad && tensor_values(x->grad)[0] == got0 * 3.0,
          "h.grad is d y / d h, and x.grad still flows through h");
    CHECK(tensor_backward(y, NULL) == 0 && h->grad && tensor_values(h->grad)[0] == 2 * got0,
          "a second backward adds to h.grad, as to a leaf's");
    Tensor *c = tensor_scalar(1.0);
    CHECK(tensor_retain_grad(c) != 0 && strstr(ag_error(), "requires_grad=False"),
          "retain_grad on a constant: %s", ag_error());
    Tensor *all[] = {x, h, t, y, c};
    for (int k = 0; k < 5; k++) tensor_release(all[k]);
}

void test_retain(void) {
    test_retain_grad();
    test_backward_twice();
    test_retain_other_root();
    test_backward_many();
    test_grad_values();
    test_grad_cases();
    test_grad_alloc_failures();
    test_retain_interrupted();
}
