/*
 * test_backward.c — backward when it cannot finish: out of memory (the
 * memory limit, or malloc returning NULL at every allocation backward
 * makes, by the ag_alloc_fail_after hook) and interrupts. Each must return
 * -1 with its message, leave every leaf's .grad as it was (the same tensor,
 * the same values), free the graph and leak nothing.
 */
#include "harness.h"

#include <signal.h>


/* A copy of t's gradient values (NULL if it has none), to compare after. */
static Tensor *grad_snapshot(const Tensor *t) { return t->grad ? tensor_copy(t->grad) : NULL; }

static bool same_values(const Tensor *a, const Tensor *b) {
    if (!a || !b) return a == b;
    return a->numel == b->numel &&
           memcmp(tensor_values(a), tensor_values(b), (size_t)a->numel * sizeof(double)) == 0;
}

/* ======================================================================
 * The memory limit holds while backward runs
 * ====================================================================== */

/* loss = v @ (A @ w): the forward fits under the limit, A's gradient (as
 * big as A) does not. backward fails with the limit's message; w.grad (held
 * by the caller) and A.grad (none) are as before; the graph is freed. */
static void test_memory_limit_in_backward(void) {
    int64_t base = live_tensors(), limit = ag_memory_limit();
    Tensor *A = tensor_ones(SHAPE(300, 300), true), *w = tensor_ones(SHAPE(300), true);
    Tensor *v = tensor_ones(SHAPE(300), false), *sw = tensor_sum(w);
    CHECK(backward(sw) == 0, "backward: %s", ag_error());
    Tensor *held = tensor_retain(w->grad), *before = grad_snapshot(w);
    Tensor *other = tensor_mul(A, A); /* another graph, to show it is freed too */
    Tensor *h = tensor_matmul(A, w), *loss = tensor_matmul(v, h);
    AgStats s = ag_stats();
    ag_set_memory_limit(s.live_bytes + s.arena_bytes + 100000);
    int rc = backward(loss);
    ag_set_memory_limit(limit);
    CHECK(rc == -1, "backward over the memory limit fails");
    CHECK(strstr(ag_error(), "allocation too large: shape (300, 300)") != NULL,
          "with the limit's message: %s", ag_error());
    CHECK(w->grad == held && same_values(w->grad, before), "w.grad is the same tensor, unchanged");
    CHECK(A->grad == NULL, "A has no gradient, as before");
    CHECK(ag_stats().arena_functions == 0 && !tensor_has_graph(loss) && !tensor_has_graph(other),
          "the graph is freed as after any backward");
    Tensor *all[] = {A, w, v, sw, held, before, other, h, loss};
    for (int i = 0; i < 9; i++) tensor_release(all[i]);
    CHECK(live_tensors() == base, "nothing leaked: %lld", (long long)(live_tensors() - base));
}

/* ======================================================================
 * Every allocation of a backward failing in turn
 * ====================================================================== */

enum { N = 5, NUM_LEAVES = 5 };

typedef struct {
    Tensor *leaf[NUM_LEAVES]; /* A (N,N), w (N,), bias (1,), c (N,), d (N,) */
    Tensor *u;                /* a constant (N,) */
    Tensor *held[NUM_LEAVES]; /* gradients the caller holds (or NULL) */
} Leaves;

/* loss = u @ (A @ w + w + bias + c + d). Only matmul and add run backward:
 * it exercises matmul's kernel, the broadcast reduction (bias), a leaf
 * reached twice (w) and a gradient tensor shared by several leaves (add). */
static Tensor *build_loss(Leaves *l) {
    Tensor *h = tensor_matmul(l->leaf[0], l->leaf[1]);
    Tensor *k = tensor_add(h, l->leaf[1]), *k2 = tensor_add(k, l->leaf[2]);
    Tensor *k3 = tensor_add(k2, l->leaf[3]), *k4 = tensor_add(k3, l->leaf[4]);
    Tensor *loss = tensor_matmul(l->u, k4);
    Tensor *all[] = {h, k, k2, k3, k4};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);
    return loss;
}

/* The gradients of loss by the definition: dA = u w^T, dw = A^T u + u,
 * dbias = sum(u), dc = dd = u. */
static double expected_grad(const Leaves *l, int leaf, int64_t i) {
    const double *A = tensor_values(l->leaf[0]), *w = tensor_values(l->leaf[1]), *u = tensor_values(l->u);
    double s = 0.0;
    switch (leaf) {
    case 0: return u[i / N] * w[i % N];
    case 1:
        for (int64_t r = 0; r < N; r++) s += A[r * N + i] * u[r];
        return s + u[i];
    case 2:
        for (int64_t r = 0; r < N; r++) s += u[r];
        return s;
    default: return u[i];
    }
}

static void test_alloc_failures(void) {
    int64_t base = live_tensors();
    Leaves l = {{test_uniform(-1, 1, true, SHAPE(N, N)), test_uniform(-1, 1, true, SHAPE(N)),
                 test_uniform(-1, 1, true, SHAPE(1)), test_uniform(-1, 1, true, SHAPE(N)),
                 test_uniform(-1, 1, true, SHAPE(N))},
                test_uniform(-1, 1, false, SHAPE(N)), {NULL}};
    /* Gradients before: A's held by nobody else, w's, bias's and c's held by
     * the caller, d none. */
    for (int i = 0; i < 4; i++) l.leaf[i]->grad = test_uniform(-1, 1, false, l.leaf[i]->ndim,
                                                               l.leaf[i]->shape);
    for (int i = 1; i < 4; i++) l.held[i] = tensor_retain(l.leaf[i]->grad);
    Tensor *before[NUM_LEAVES], *ptr[NUM_LEAVES];
    for (int i = 0; i < NUM_LEAVES; i++) {
        before[i] = grad_snapshot(l.leaf[i]);
        ptr[i] = l.leaf[i]->grad;
    }
    int64_t live = live_tensors();
    int failures = 0, rc = -1;
    for (int64_t n = 0; rc != 0 && n < 100; n++) {
        Tensor *loss = build_loss(&l);
        ag_alloc_fail_after(n);
        rc = backward(loss);
        ag_alloc_fail_after(-1);
        tensor_release(loss);
        if (rc == 0) break;
        failures++;
        bool ok = strstr(ag_error(), "out of memory") != NULL;
        for (int i = 0; i < NUM_LEAVES; i++)
            ok = ok && l.leaf[i]->grad == ptr[i] && same_values(l.leaf[i]->grad, before[i]);
        ok = ok && ag_stats().arena_functions == 0 && live_tensors() == live;
        CHECK(ok, "allocation %lld of backward failing: message '%s', grads as before, "
              "graph freed, %lld tensors leaked", (long long)n, ag_error(),
              (long long)(live_tensors() - live));
    }
    /* Six allocations: the seed, the dot's gradient, bias's reduction, A's
     * and w's gradients, and a copy when committing c's (shared both ways). */
    CHECK(rc == 0 && failures == 6, "backward succeeds once no allocation fails (after %d)",
          failures);
    for (int i = 0; i < NUM_LEAVES; i++) {
        const Tensor *g = l.leaf[i]->grad;
        bool ok = g != NULL;
        for (int64_t k = 0; ok && k < l.leaf[i]->numel; k++)
            ok = fabs(tensor_values(g)[k] - (before[i] ? tensor_values(before[i])[k] : 0.0) -
                      expected_grad(&l, i, k)) < 1e-12;
        CHECK(ok, "leaf %d: grad = old + new", i);
        if (l.held[i]) CHECK(same_values(l.held[i], before[i]), "a held gradient keeps its values");
    }
    for (int i = 0; i < NUM_LEAVES; i++) {
        tensor_release(l.leaf[i]);
        tensor_release(l.held[i]);
        tensor_release(before[i]);
    }
    tensor_release(l.u);
    CHECK(live_tensors() == base, "alloc failure tests leaked %lld tensors",
          (long long)(live_tensors() - base));
}

/* ======================================================================
 * Interrupts
 * ====================================================================== */

static volatile sig_atomic_t interrupted;

/* A trace hook that raises the flag when the third Function is applied, as
 * a signal handler would while backward runs. */
static void interrupt_at_third_apply(const AgTraceEvent *e, void *ctx) {
    int *applies = ctx;
    if (e->kind == AG_TRACE_APPLY && ++*applies == 3) interrupted = 1;
}

/* Runs backward over build_loss's graph with the flag as set by the caller
 * (and the hook, if any); checks that it was interrupted with every .grad
 * as before. */
static void expect_interrupted(Leaves *l, const char *what, AgTraceFn hook) {
    Tensor *before[NUM_LEAVES], *ptr[NUM_LEAVES];
    for (int i = 0; i < NUM_LEAVES; i++) {
        before[i] = grad_snapshot(l->leaf[i]);
        ptr[i] = l->leaf[i]->grad;
    }
    int64_t live = live_tensors();
    int applies = 0;
    Tensor *loss = build_loss(l), *other = tensor_add(l->leaf[3], l->leaf[4]);
    ag_set_trace(hook, &applies);
    int rc = backward(loss);
    ag_set_trace(NULL, NULL);
    CHECK(rc == -1 && strcmp(ag_error(), "interrupted") == 0, "%s: interrupted (%s)", what,
          ag_error());
    bool same = true;
    for (int i = 0; i < NUM_LEAVES; i++)
        same = same && l->leaf[i]->grad == ptr[i] && same_values(l->leaf[i]->grad, before[i]);
    CHECK(same, "%s: every .grad as before", what);
    CHECK(!tensor_has_graph(loss) && !tensor_has_graph(other) &&
              ag_stats().arena_functions == 0, "%s: the graph is freed", what);
    CHECK(interrupted == 1, "%s: the flag is the caller's to clear", what);
    tensor_release(loss);
    tensor_release(other);
    CHECK(live_tensors() == live, "%s: leaked %lld tensors", what,
          (long long)(live_tensors() - live));
    for (int i = 0; i < NUM_LEAVES; i++) tensor_release(before[i]);
}

static void test_interrupt(void) {
    int64_t base = live_tensors();
    Leaves l = {{test_uniform(-1, 1, true, SHAPE(N, N)), test_uniform(-1, 1, true, SHAPE(N)),
                 test_uniform(-1, 1, true, SHAPE(1)), test_uniform(-1, 1, true, SHAPE(N)),
                 test_uniform(-1, 1, true, SHAPE(N))},
                test_uniform(-1, 1, false, SHAPE(N)), {NULL}};
    l.leaf[1]->grad = test_uniform(-1, 1, false, SHAPE(N));
    l.held[1] = tensor_retain(l.leaf[1]->grad);
    ag_set_interrupt_flag(&interrupted);
    interrupted = 1;
    expect_interrupted(&l, "flag raised before backward", NULL);
    interrupted = 0;
    /* By the third apply, c and d (the last adds) have staged gradients. */
    expect_interrupted(&l, "flag raised while backward runs", interrupt_at_third_apply);
    interrupted = 0;
    Tensor *loss = build_loss(&l);
    CHECK(backward(loss) == 0 && l.leaf[4]->grad != NULL, "flag down: backward runs");
    tensor_release(loss);
    ag_set_interrupt_flag(NULL);
    interrupted = 1;
    loss = build_loss(&l);
    CHECK(backward(loss) == 0, "no flag set: backward runs whatever the old one says");
    tensor_release(loss);
    interrupted = 0;
    for (int i = 0; i < NUM_LEAVES; i++) {
        tensor_release(l.leaf[i]);
        tensor_release(l.held[i]);
    }
    tensor_release(l.u);
    CHECK(live_tensors() == base, "interrupt tests leaked %lld tensors",
          (long long)(live_tensors() - base));
}

/* ======================================================================
 * tensor_backward: an explicit output gradient (the vector-Jacobian product)
 * ====================================================================== */

static bool values_are(const Tensor *t, int n, const double *want) {
    if (!t || t->numel != n) return false;
    for (int i = 0; i < n; i++)
        if (fabs(tensor_values(t)[i] - want[i]) > 1e-12) return false;
    return true;
}

/* Expected values from PyTorch 1.13 (float64):
 *   x = torch.tensor([[1., -2., 3.], [0.5, 4., -1.]], requires_grad=True)
 *   b = torch.tensor([2., -1., 0.5], requires_grad=True)
 *   c = torch.tensor([[3.], [-2.]], requires_grad=True)
 *   y = x * b + c; g = torch.tensor([[1., 0.5, -1.], [2., -3., 0.25]])
 *   y.backward(g)   # x.grad, b.grad, c.grad below
 *   x.backward(g)   # a leaf: x.grad += g
 *   A = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
 *   B = torch.tensor([[0.5, -1.], [2., 1.5]], requires_grad=True)
 *   (A @ B).backward(torch.tensor([[1., -1.], [0.5, 2.], [-3., 1.]]))
 *   x3 = torch.tensor([1., 2.], requires_grad=True)
 *   (x3 * x3).sum().backward(torch.tensor(3.))           # x3.grad = [6, 12]
 *   gr = torch.tensor([1., 1.], requires_grad=True); x4 = torch.tensor([1., 2.], ...)
 *   (x4 * x4).backward(gr)   # x4.grad = [2, 4], not requiring grad; gr.grad None */
static void test_explicit_gradient(void) {
    int64_t base = live_tensors();
    Tensor *x = tensor_create(SHAPE(2, 3), (double[]){1, -2, 3, 0.5, 4, -1}, true);
    Tensor *b = tensor_create(SHAPE(3), (double[]){2, -1, 0.5}, true);
    Tensor *c = tensor_create(SHAPE(2, 1), (double[]){3, -2}, true);
    Tensor *g = tensor_create(SHAPE(2, 3), (double[]){1, 0.5, -1, 2, -3, 0.25}, false);
    Tensor *xb = tensor_mul(x, b), *y = tensor_add(xb, c);
    CHECK(tensor_backward(y, g) == 0, "y.backward(g): %s", ag_error());
    CHECK(values_are(x->grad, 6, (double[]){2, -0.5, -0.5, 4, 3, 0.125}), "x.grad = g * b");
    CHECK(values_are(b->grad, 3, (double[]){2, -13, -3.25}), "b.grad = sum over rows of g * x");
    CHECK(values_are(c->grad, 2, (double[]){0.5, -0.75}), "c.grad = sum over columns of g");
    CHECK(tensor_values(g)[4] == -3 && g->ref_count == 1 && !g->requires_grad, "g is borrowed, unchanged");
    CHECK(tensor_backward(x, g) == 0 &&
              values_are(x->grad, 6, (double[]){3, 0, -1.5, 6, 0, 0.375}),
          "a leaf y: x.grad += g");
    Tensor *A = tensor_create(SHAPE(3, 2), (double[]){1, 2, 3, 4, 5, 6}, true);
    Tensor *B = tensor_create(SHAPE(2, 2), (double[]){0.5, -1, 2, 1.5}, true);
    Tensor *G = tensor_create(SHAPE(3, 2), (double[]){1, -1, 0.5, 2, -3, 1}, false);
    Tensor *AB = tensor_matmul(A, B);
    CHECK(tensor_backward(AB, G) == 0, "(A @ B).backward(G): %s", ag_error());
    CHECK(values_are(A->grad, 6, (double[]){1.5, 0.5, -1.75, 4, -2.5, -4.5}), "A.grad = G @ B^T");
    CHECK(values_are(B->grad, 4, (double[]){-12.5, 10, -14, 12}), "B.grad = A^T @ G");
    Tensor *x3 = tensor_create(SHAPE(2), (double[]){1, 2}, true), *three = tensor_scalar(3);
    Tensor *sq = tensor_mul(x3, x3), *s = tensor_sum(sq);
    CHECK(tensor_backward(s, three) == 0 && values_are(x3->grad, 2, (double[]){6, 12}),
          "a one-element y with gradient 3");
    Tensor *gr = tensor_create(SHAPE(2), (double[]){1, 1}, true);
    Tensor *x4 = tensor_create(SHAPE(2), (double[]){1, 2}, true), *sq4 = tensor_mul(x4, x4);
    CHECK(tensor_backward(sq4, gr) == 0 && values_are(x4->grad, 2, (double[]){2, 4}),
          "a gradient that requires grad is used as a constant");
    CHECK(!x4->grad->requires_grad && x4->grad != gr && gr->grad == NULL,
          "x4.grad is a constant of its own; gr gets no gradient");
    Tensor *x5 = tensor_create(SHAPE(2), (double[]){1, 2}, true), *x5_2 = tensor_add(x5, x5);
    Tensor *g5 = tensor_create(SHAPE(2), (double[]){1, 1}, false);
    CHECK(tensor_backward(x5_2, g5) == 0 && x5->grad != g5, "x5.grad is never the caller's g");
    Tensor *all[] = {x, b, c, g, xb, y, A, B, G, AB, x3, three, sq, s, gr, x4, sq4, x5, x5_2, g5};
    for (int i = 0; i < 20; i++) tensor_release(all[i]);
    CHECK(live_tensors() == base, "explicit gradient tests leaked %lld tensors",
          (long long)(live_tensors() - base));
}

/* The order gradients are summed in: PyTorch's engine runs the ready node
 * recorded last first, so x, which gets 1 (from the last add), -1 (from
 * x * c) and 0.01 (from leaky_relu, recorded first), sums (1 + -1) + 0.01.
 * Taking leaky_relu first gave (1 + 0.01) + -1 = 0.010000000000000009
 * (found by make difftest).
 * /usr/bin/python3 -c 'import torch, torch.nn.functional as F;
 *   x = torch.tensor([0.0], dtype=torch.float64, requires_grad=True);
 *   v = F.leaky_relu(x); c = torch.tensor([-1.0], dtype=torch.float64);
 *   (x * c + v + x).sum().backward(); print(x.grad.item().hex())'
 * -> 0x1.47ae147ae147bp-7 (0.01) */
static void test_gradient_sum_order(void) {
    int64_t base = live_tensors();
    Tensor *x = tensor_create(SHAPE(1), (double[]){0.0}, true);
    Tensor *c = tensor_create(SHAPE(1), (double[]){-1.0}, false);
    Tensor *v = tensor_leaky_relu(x, 0.01), *xc = tensor_mul(x, c);
    Tensor *a = tensor_add(xc, v), *y = tensor_add(a, x), *s = tensor_sum(y);
    CHECK(tensor_backward(s, NULL) == 0, "backward: %s", ag_error());
    CHECK(tensor_values(x->grad)[0] == 0x1.47ae147ae147bp-7, "x.grad: %.17g, PyTorch 0.01",
          tensor_values(x->grad)[0]);
    Tensor *all[] = {x, c, v, xc, a, y, s};
    for (int i = 0; i < 7; i++) tensor_release(all[i]);
    CHECK(live_tensors() == base, "gradient order test leaked %lld tensors",
          (long long)(live_tensors() - base));
}

/* The errors of tensor_backward name the shapes and change nothing. */
static void test_explicit_gradient_errors(void) {
    int64_t base = live_tensors();
    Tensor *x = tensor_ones(SHAPE(2, 3), true), *y = tensor_mul(x, x);
    Tensor *g3 = tensor_ones(SHAPE(3), false), *g23 = tensor_ones(SHAPE(2, 3), false);
    AgStats before = ag_stats();
    CHECK(tensor_backward(y, g3) == -1 && strstr(ag_error(), "(3,)") &&
              strstr(ag_error(), "(2, 3)"),
          "a gradient of another shape: both shapes in the message: %s", ag_error());
    CHECK(tensor_backward(y, NULL) == -1 &&
              strstr(ag_error(), "pass a gradient of shape (2, 3)"),
          "no gradient for a y of 6 elements: %s", ag_error());
    CHECK(backward(y) == -1 && strstr(ag_error(), "not shape (2, 3)"),
          "backward(y) is tensor_backward(y, NULL): %s", ag_error());
    CHECK(tensor_backward(NULL, g23) == -1 && strstr(ag_error(), "NULL"), "NULL y");
    CHECK(tensor_backward(g23, g23) == -1 && strstr(ag_error(), "does not require grad"),
          "a y with no graph: %s", ag_error());
    AgStats after = ag_stats();
    CHECK(tensor_has_graph(y) && after.arena_functions == before.arena_functions &&
              x->grad == NULL && after.live_tensors == before.live_tensors,
          "a refused backward changes nothing");
    CHECK(tensor_backward(y, g23) == 0 && tensor_values(x->grad)[5] == 2, "and y still differentiates");
    Tensor *all[] = {x, y, g3, g23};
    for (int i = 0; i < 4; i++) tensor_release(all[i]);
    CHECK(live_tensors() == base, "leaked %lld tensors", (long long)(live_tensors() - base));
}

void test_backward(void) {
    test_explicit_gradient();
    test_gradient_sum_order();
    test_explicit_gradient_errors();
    test_interrupt();
    test_memory_limit_in_backward();
    test_alloc_failures();
}
