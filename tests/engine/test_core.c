/*
 * test_core.c — the graph machinery: the diamond, reuse, shared
 * subexpressions, dead branches, freed graphs, accumulation, zero_grad, a
 * long chain, the arena caveat and ownership (nothing leaks); random
 * graphs of every family of op against finite differences.
 */
#include "harness.h"

static Tensor *vec(int64_t n, const double *v, bool rg) { return tensor_create(1, &n, v, rg); }

/* z = x + x: x's gradient arrives twice through one Function. */
static void test_diamond(void) {
    Tensor *x = vec(2, (double[]){1, 2}, true);
    Tensor *z = tensor_add(x, x), *s = tensor_sum(z);
    CHECK(backward(s) == 0, "backward: %s", ag_error());
    CHECK(x->grad && tensor_values(x->grad)[0] == 2 && tensor_values(x->grad)[1] == 2, "d sum(x+x)/dx = 2");
    tensor_release(s);
    tensor_release(z);

    /* A non-leaf used twice: a = x*x, z = a + a, d/dx = 4x. The count of
     * a's Function must reach 0 only after both uses. */
    tensor_zero_grad(x);
    Tensor *a = tensor_mul(x, x);
    CHECK(a->grad_fn->pending_count == 0, "fresh Function has no consumers");
    z = tensor_add(a, a);
    CHECK(a->grad_fn->pending_count == 2, "pending_count counts both edges of a + a");
    s = tensor_sum(z);
    CHECK(backward(s) == 0, "backward: %s", ag_error());
    CHECK(tensor_values(x->grad)[0] == 4 && tensor_values(x->grad)[1] == 8, "d sum(x*x + x*x)/dx = 4x");
    tensor_release(s);
    tensor_release(z);
    tensor_release(a);
    tensor_release(x);
}

/* add hands one gradient tensor to both its inputs; summing into a
 * gradient shared that way must not change the other holder's value.
 * (x + x) + y: y.grad and (x+x)'s gradient are the same tensor, and x
 * receives it twice. */
static void test_shared_gradient_tensor(void) {
    Tensor *x = tensor_create(0, NULL, (double[]){1}, true), *y = tensor_create(0, NULL, (double[]){1}, true);
    Tensor *xx = tensor_add(x, x), *z = tensor_add(xx, y);
    CHECK(backward(z) == 0, "backward: %s", ag_error());
    CHECK(tensor_values(x->grad)[0] == 2 && tensor_values(y->grad)[0] == 1, "x.grad = 2, y.grad = 1; got %g, %g",
          tensor_values(x->grad)[0], tensor_values(y->grad)[0]);
    Tensor *all[] = {x, y, xx, z};
    for (int i = 0; i < 4; i++) tensor_release(all[i]);
}

/* A value feeding several consumers and a shared subexpression:
 * h = x*y; u = h*h + h*x; loss = sum(u). du/dx = 2h*y + (y*x + h) = 2x y^2 + 2xy */
static void test_shared_subexpressions(void) {
    Tensor *x = vec(3, (double[]){1, 2, 3}, true), *y = vec(3, (double[]){-1, 0.5, 2}, true);
    Tensor *h = tensor_mul(x, y), *hh = tensor_mul(h, h), *hx = tensor_mul(h, x);
    Tensor *u = tensor_add(hh, hx), *loss = tensor_sum(u);
    CHECK(backward(loss) == 0, "backward: %s", ag_error());
    for (int i = 0; i < 3; i++) {
        double xv = tensor_values(x)[i], yv = tensor_values(y)[i];
        CHECK_NEAR(tensor_values(x->grad)[i], 2 * xv * yv * yv + 2 * xv * yv, 1e-12);
        CHECK_NEAR(tensor_values(y->grad)[i], 2 * xv * xv * yv + xv * xv, 1e-12);
    }
    Tensor *all[] = {x, y, h, hh, hx, u, loss};
    for (int i = 0; i < 7; i++) tensor_release(all[i]);
}

/* h = x*x; z = h + 1; backward(sum(h)): z's Function consumes h but is not
 * part of the loss, and must not stall h's Function. */
static void test_dead_branch(void) {
    Tensor *x = vec(2, (double[]){3, -1}, true), *one = tensor_scalar(1);
    Tensor *h = tensor_mul(x, x), *z = tensor_add(h, one), *s = tensor_sum(h);
    CHECK(backward(s) == 0, "backward: %s", ag_error());
    CHECK(x->grad && tensor_values(x->grad)[0] == 6 && tensor_values(x->grad)[1] == -2,
          "dead branch: d sum(x*x)/dx = 2x, got %g", x->grad ? tensor_values(x->grad)[0] : 0.0);
    CHECK(h->grad == NULL && z->grad == NULL, "intermediate gradients do not survive");
    Tensor *all[] = {x, one, h, z, s};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);
}

/* backward frees the graph it ran through (PyTorch's), not the others:
 * a value whose graph is gone is refused with a message, its data intact,
 * and a graph another backward did not reach stays usable. */
static void test_freed_graph(void) {
    Tensor *x = vec(2, (double[]){1, 2}, true);
    Tensor *a = tensor_sum(x), *b = tensor_mul(x, x), *sb = tensor_sum(b);
    CHECK(backward(a) == 0, "first backward: %s", ag_error());
    CHECK(!tensor_has_graph(a) && tensor_has_graph(b) && tensor_has_graph(sb),
          "backward freed its own graph, not the other");
    CHECK(backward(a) == -1 && strstr(ag_error(), "freed") != NULL,
          "a second backward on the same loss fails: %s", ag_error());
    CHECK(tensor_values(x->grad)[0] == 1 && tensor_values(x->grad)[1] == 1, "failed backward changed nothing");
    CHECK(backward(sb) == 0 && tensor_values(x->grad)[0] == 3 && tensor_values(x->grad)[1] == 5,
          "the other graph still differentiates: 1 + 2x");
    CHECK(tensor_values(sb)[0] == 5, "a value keeps its data after its graph is freed");
    /* A new op on a value whose graph is gone computes, but cannot be
     * differentiated through the freed part. */
    Tensor *c = tensor_mul(b, b), *sc = tensor_sum(c);
    CHECK(sc && tensor_values(sc)[0] == 17, "forward on a freed-graph value works");
    CHECK(backward(sc) == -1 && strstr(ag_error(), "freed"), "backward through it is refused");
    CHECK(tensor_values(x->grad)[0] == 3, "refused backward left x.grad alone");
    Tensor *all[] = {x, a, b, sb, c, sc};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
    ag_graph_free();
}

/* Leaf gradients accumulate over backwards; zero_grad resets to NULL. A
 * caller holding the old gradient keeps its values. */
static void test_accumulation(void) {
    Tensor *x = vec(2, (double[]){1, 2}, true);
    for (int k = 0; k < 2; k++) {
        Tensor *sq = tensor_mul(x, x), *s = tensor_sum(sq);
        backward(s);
        tensor_release(s);
        tensor_release(sq);
    }
    CHECK(tensor_values(x->grad)[0] == 4 && tensor_values(x->grad)[1] == 8, "two backwards: 2 * 2x");
    Tensor *held = tensor_retain(x->grad);
    Tensor *s = tensor_sum(x);
    backward(s);
    CHECK(tensor_values(held)[0] == 4, "a held gradient is not written in place");
    CHECK(tensor_values(x->grad)[0] == 5, "accumulated into a new gradient: %g", tensor_values(x->grad)[0]);
    tensor_zero_grad(x);
    CHECK(x->grad == NULL, "zero_grad sets the gradient to NULL");
    tensor_release(held);
    tensor_release(s);
    tensor_release(x);
}

/* Only inputs that require grad get gradients; constants stay clean. */
static void test_requires_grad_flow(void) {
    Tensor *x = vec(2, (double[]){1, 2}, true), *c = vec(2, (double[]){3, 4}, false);
    Tensor *p = tensor_mul(x, c), *s = tensor_sum(p);
    CHECK(p->requires_grad && !tensor_is_leaf(p), "result of a recorded op requires grad");
    Tensor *q = tensor_mul(c, c);
    CHECK(!q->requires_grad && tensor_is_leaf(q) && q->grad_fn == NULL,
          "constants build no graph");
    backward(s);
    CHECK(c->grad == NULL, "a constant receives no gradient");
    CHECK(tensor_values(x->grad)[1] == 4, "x.grad = c");
    Tensor *all[] = {x, c, p, s, q};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);
}

/* 10,000 ops deep: backward is a loop, not a recursion. The op_overhead
 * workload: y = y*1.0001 + 0.001, 5,000 times. */
static void test_long_chain(void) {
    Tensor *x = vec(1, (double[]){1}, true), *k = tensor_scalar(1.0001),
           *c = tensor_scalar(0.001);
    Tensor *y = tensor_retain(x);
    for (int i = 0; i < 5000; i++) {
        Tensor *m = tensor_mul(y, k);
        tensor_release(y);
        y = tensor_add(m, c);
        tensor_release(m);
    }
    CHECK(ag_stats().arena_functions == 10000, "10,000 Functions in the arena");
    CHECK(backward(y) == 0, "backward: %s", ag_error());
    CHECK_NEAR(tensor_values(x->grad)[0], pow(1.0001, 5000), 1e-9 * pow(1.0001, 5000));
    Tensor *all[] = {x, k, c, y};
    for (int i = 0; i < 4; i++) tensor_release(all[i]);

    /* 100,000 deep, one input each: no recursion anywhere. */
    x = vec(1, (double[]){0.5}, true);
    y = tensor_retain(x);
    for (int i = 0; i < 100000; i++) {
        Tensor *n = tensor_neg(y);
        tensor_release(y);
        y = n;
    }
    CHECK(backward(y) == 0 && tensor_values(x->grad)[0] == 1, "100,000 negations: even count, grad 1");
    tensor_release(y);
    tensor_release(x);
}

/* The named leak: a forward pass that never reaches backward keeps its
 * graph (and the tensors it retains) in the arena. It is the only one, and
 * the next backward, or ag_graph_free, reclaims it. */
static void test_arena_caveat(void) {
    int64_t base = live_tensors();
    Tensor *x = vec(3, (double[]){1, 2, 3}, true);
    Tensor *y = tensor_exp(x), *z = tensor_mul(y, y);
    tensor_release(y);
    tensor_release(z);
    tensor_release(x);
    AgStats s = ag_stats();
    CHECK(s.live_tensors == base + 2, "the arena holds x and y alive: %lld live",
          (long long)(s.live_tensors - base));
    CHECK(s.arena_functions == 2 && s.arena_bytes > 0, "two Functions wait in the arena");
    Tensor *w = vec(1, (double[]){2}, true), *sw = tensor_sum(w);
    backward(sw); /* an unrelated backward frees the whole arena */
    tensor_release(sw);
    tensor_release(w);
    s = ag_stats();
    CHECK(s.live_tensors == base && s.arena_functions == 0 && s.arena_bytes == 0,
          "backward reclaimed the arena: %lld live tensors over base",
          (long long)(s.live_tensors - base));
    CHECK(s.arena_capacity > 0, "the arena keeps its capacity for reuse");

    x = vec(1, (double[]){1}, true);
    y = tensor_sin(x);
    tensor_release(x);
    tensor_release(y);
    ag_graph_free();
    CHECK(live_tensors() == base, "ag_graph_free reclaims it too");
}

/* A caller may release an intermediate right after using it: the Function
 * that consumed it keeps it alive until backward. */
static void test_early_release(void) {
    Tensor *x = vec(2, (double[]){0.5, -1}, true);
    Tensor *a = tensor_tanh(x), *b = tensor_exp(a);
    tensor_release(a);
    Tensor *s = tensor_sum(b);
    tensor_release(b);
    CHECK(backward(s) == 0, "backward after releasing intermediates: %s", ag_error());
    for (int i = 0; i < 2; i++) {
        double t = tanh(tensor_values(x)[i]);
        CHECK_NEAR(tensor_values(x->grad)[i], exp(t) * (1 - t * t), 1e-12);
    }
    tensor_release(s);
    tensor_release(x);
}

/* backward on a leaf: d x / d x = 1, as PyTorch. */
static void test_backward_leaf(void) {
    Tensor *x = tensor_create(0, NULL, (double[]){3}, true);
    CHECK(backward(x) == 0 && tensor_values(x->grad)[0] == 1, "backward(x) on a leaf gives 1");
    tensor_release(x);
}

/* Broadcast gradients are reduced to each input's shape. */
static void test_broadcast_reduction(void) {
    Tensor *a = tensor_ones(SHAPE(2, 3), true), *b = tensor_ones(SHAPE(3), true);
    Tensor *c = tensor_ones(SHAPE(2, 1), true), *k = tensor_scalar(2);
    Tensor *ab = tensor_add(a, b), *abc = tensor_mul(ab, c), *abck = tensor_mul(abc, k);
    Tensor *s = tensor_sum(abck);
    backward(s);
    CHECK(b->grad->ndim == 1 && b->grad->shape[0] == 3 && tensor_values(b->grad)[0] == 4,
          "b (3,) gets the sum over 2 rows of 2");
    CHECK(c->grad->ndim == 2 && c->grad->shape[1] == 1 && tensor_values(c->grad)[0] == 12,
          "c (2,1) gets the sum over 3 columns of 2*(1+1)");
    CHECK(k->grad == NULL, "a scalar constant gets nothing");
    Tensor *all[] = {a, b, c, k, ab, abc, abck, s};
    for (int i = 0; i < 8; i++) tensor_release(all[i]);
}

/* A pushed graph runs forward and backward without freeing the outer one;
 * outer tensors are refused inside, never read. */
static void test_nested_graphs(void) {
    Tensor *x = vec(2, (double[]){1, 2}, true);
    Tensor *y = tensor_mul(x, x), *sy = tensor_sum(y);
    CHECK(ag_graph_push() == 0, "push");
    CHECK(!tensor_has_graph(sy), "inside, the outer graph is not visible");
    CHECK(backward(sy) == -1 && strstr(ag_error(), "freed"), "and backward through it is refused");
    Tensor *c = tensor_detach(x);
    tensor_set_requires_grad(c, true);
    Tensor *e = tensor_exp(c), *se = tensor_sum(e);
    CHECK(backward(se) == 0 && fabs(tensor_values(c->grad)[1] - exp(2)) < 1e-12, "inner backward works");
    Tensor *inner = tensor_mul(c, c); /* left pending: pop frees it */
    tensor_release(inner);
    ag_graph_pop();
    CHECK(tensor_has_graph(sy) && x->grad == NULL, "after pop the outer graph is back, x.grad untouched");
    CHECK(backward(sy) == 0 && tensor_values(x->grad)[1] == 4, "and differentiates: 2x");
    int depth = 0;
    while (ag_graph_push() == 0) depth++;
    CHECK(depth == 8 && strstr(ag_error(), "nested"), "push nests 8 deep, then fails: %d", depth);
    while (depth-- > 0) ag_graph_pop();
    ag_graph_pop(); /* popping the outermost does nothing */
    Tensor *all[] = {x, y, sy, c, e, se};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
}

/* Grad mode off: ops record nothing and return constants; a value made so
 * is a constant afterwards too; backward still runs; the setting is
 * restored by the caller. PyTorch:
 *   x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
 *   with torch.no_grad(): y = x * 2        # requires_grad False, a leaf
 *   (y * x).sum().backward(); x.grad       # tensor([2., 4.])
 *   w = (x * x).sum(); x.grad = None
 *   with torch.no_grad(): w.backward()
 *   x.grad                                 # tensor([2., 4.]) */
static void test_grad_mode(void) {
    int64_t base = live_tensors(), functions = ag_stats().arena_functions;
    CHECK(ag_is_grad_enabled(), "grad mode is on by default");
    Tensor *x = vec(2, (double[]){1, 2}, true), *two = tensor_scalar(2);
    CHECK(ag_set_grad_enabled(false) == true && !ag_is_grad_enabled(), "off; was on");
    Tensor *y = tensor_mul(x, two);
    CHECK(y && !y->requires_grad && tensor_is_leaf(y) && tensor_values(y)[1] == 4,
          "with grad off, an op on a leaf that requires grad is a constant");
    CHECK(ag_stats().arena_functions == functions, "and records nothing");
    Tensor *made = tensor_ones(SHAPE(2), true);
    CHECK(made->requires_grad, "creating a leaf that requires grad still does (as PyTorch)");
    CHECK(ag_set_grad_enabled(false) == false, "off again; was off");
    CHECK(ag_set_grad_enabled(true) == false && ag_is_grad_enabled(), "on; was off");
    Tensor *z = tensor_mul(y, x), *s = tensor_sum(z);
    CHECK(backward(s) == 0 && tensor_values(x->grad)[0] == 2 && tensor_values(x->grad)[1] == 4,
          "y made with grad off is a constant: d sum(y * x)/dx = y");
    tensor_zero_grad(x);
    Tensor *xx = tensor_mul(x, x), *w = tensor_sum(xx);
    ag_set_grad_enabled(false);
    CHECK(backward(w) == 0 && tensor_values(x->grad)[0] == 2 && tensor_values(x->grad)[1] == 4,
          "backward runs with grad off");
    ag_set_grad_enabled(true);
    Tensor *all[] = {x, two, y, made, z, s, xx, w};
    for (int i = 0; i < 8; i++) tensor_release(all[i]);
    CHECK(live_tensors() == base, "grad mode leaked %lld tensors",
          (long long)(live_tensors() - base));
}

/* A statement that fails halfway, as the shell runs one:
 * s = sum(h); t1 = w * big; t2 = exp(t1); t3 = t2 * s, then an error; the
 * shell releases its temporaries. Every Function it recorded has lost its
 * output (or will, once its consumer goes): all dead, a cascade. */
static void failed_statement(Tensor *h, Tensor *w) {
    Tensor *big = tensor_ones(SHAPE(100000), false);
    Tensor *s = tensor_sum(h), *t1 = tensor_mul(w, big), *t2 = tensor_exp(t1);
    Tensor *t3 = tensor_mul(t2, s);
    Tensor *all[] = {big, s, t1, t2, t3};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);
}

/* ag_graph_release_dead frees what failed statements left in the arena,
 * and nothing a live value needs: repeated failures do not grow memory,
 * the counts stay exact (a surviving dead branch still gets recounted, and
 * once it goes the loss is again the only sink), and a later backward over
 * the surviving graph is right. */
static void test_release_dead(void) {
    int64_t base = live_tensors();
    Tensor *x = vec(3, (double[]){1, 2, 3}, true), *w = vec(1, (double[]){0.5}, true);
    Tensor *two = tensor_scalar(2), *one = tensor_scalar(1);
    Tensor *h = tensor_mul(x, x), *y = tensor_sum(h), *z = tensor_add(h, one);
    AgStats before = ag_stats();
    int64_t sinks = ag_arena_sinks();
    CHECK(sinks == 2 && h->grad_fn->pending_count == 2, "y and z are sinks; h has 2 consumers");
    Tensor *kept[5];
    for (int i = 0; i < 5; i++) {
        uint64_t mark = ag_graph_mark();
        kept[i] = tensor_mul(x, two); /* a statement's value that survives */
        failed_statement(h, w);
        ag_graph_release_dead(mark);
    }
    AgStats after = ag_stats();
    CHECK(after.live_tensors == before.live_tensors + 5 &&
              after.live_bytes - before.live_bytes < 5 * 1024,
          "five failures grew live memory by %lld bytes (the five kept values only)",
          (long long)(after.live_bytes - before.live_bytes));
    CHECK(after.arena_functions == before.arena_functions + 5 && ag_arena_sinks() == sinks + 5,
          "only the kept values' Functions stay: %lld functions, %lld sinks",
          (long long)(after.arena_functions - before.arena_functions),
          (long long)ag_arena_sinks());
    CHECK(h->grad_fn->pending_count == 2, "h's consumers: y and z again");
    for (int i = 0; i < 5; i++) tensor_release(kept[i]);
    ag_graph_release_dead(0); /* the kept values' Functions are dead now */
    CHECK(ag_stats().arena_bytes == before.arena_bytes && ag_arena_sinks() == sinks,
          "their arena memory is given back: %lld bytes more",
          (long long)(ag_stats().arena_bytes - before.arena_bytes));
    failed_statement(h, w);
    /* z is alive: a dead branch the caller holds; backward must recount. */
    CHECK(backward(y) == 0 && tensor_values(x->grad)[2] == 6, "backward with a dead branch: 2x");
    tensor_release(y);
    tensor_release(z);

    /* Once the failures are released, the loss is the only sink again:
     * the construction counts are exact and backward skips its recount. (The
     * arena was kept: z was alive when y's backward finished.) */
    ag_graph_free();
    {
        Tensor *h2 = tensor_mul(x, x), *y2 = tensor_sum(h2);
        uint64_t mark = ag_graph_mark();
        failed_statement(h2, w);
        CHECK(ag_arena_sinks() == 2, "a failure leaves a second sink");
        ag_graph_release_dead(mark);
        CHECK(ag_arena_sinks() == 1 && y2->grad_fn->pending_count == 0 &&
                  h2->grad_fn->pending_count == 1, "released: y2 is the only sink");
        tensor_zero_grad(x);
        CHECK(backward(y2) == 0 && tensor_values(x->grad)[1] == 4, "backward: 2x");
        tensor_release(h2);
        tensor_release(y2);
    }
    Tensor *all[] = {x, w, two, one, h};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);
    CHECK(live_tensors() == base, "release_dead tests leaked %lld tensors",
          (long long)(live_tensors() - base));
}

/* Marks and nested graphs: a value of the outer graph freed while an inner
 * one is pushed still lets go of its Function; release_dead works on the
 * graph active when it is called, for the Functions recorded since the
 * mark. */
static void test_release_dead_nested(void) {
    int64_t base = live_tensors();
    Tensor *x = vec(2, (double[]){1, 2}, true), *w = vec(1, (double[]){0.5}, true);
    Tensor *h = tensor_mul(x, x), *y = tensor_sum(h);
    AgStats before = ag_stats();
    uint64_t mark = ag_graph_mark();
    Tensor *big = tensor_ones(SHAPE(100000), false), *t1 = tensor_mul(w, big);
    tensor_release(big);
    CHECK(ag_graph_push() == 0, "push");
    tensor_release(t1); /* the outer statement fails while pushed (grad inside it) */
    Tensor *c = tensor_detach(x);
    tensor_set_requires_grad(c, true);
    Tensor *e = tensor_exp(c);
    uint64_t inner_mark = ag_graph_mark();
    failed_statement(e, w);
    ag_graph_release_dead(mark); /* the inner graph's failures, since an older mark */
    CHECK(ag_stats().arena_functions == 1, "inside, only exp's Function is left: %lld",
          (long long)ag_stats().arena_functions);
    ag_graph_release_dead(inner_mark); /* nothing more */
    tensor_release(e);
    tensor_release(c);
    ag_graph_pop();
    ag_graph_release_dead(mark);
    AgStats after = ag_stats();
    CHECK(after.live_tensors == before.live_tensors && after.arena_functions == before.arena_functions,
          "after pop, the outer failure is released: %lld tensors, %lld functions more",
          (long long)(after.live_tensors - before.live_tensors),
          (long long)(after.arena_functions - before.arena_functions));
    CHECK(backward(y) == 0 && tensor_values(x->grad)[1] == 4, "the outer graph differentiates: 2x");
    Tensor *all[] = {x, w, h, y};
    for (int i = 0; i < 4; i++) tensor_release(all[i]);
    CHECK(live_tensors() == base, "nested release_dead leaked %lld tensors",
          (long long)(live_tensors() - base));
}

typedef struct {
    int apply, accumulate, summed, pending[8], num_pending;
} TraceLog;

static void record_event(const AgTraceEvent *e, void *ctx) {
    TraceLog *log = ctx;
    if (e->kind == AG_TRACE_APPLY) log->apply++;
    if (e->kind == AG_TRACE_ACCUMULATE) log->accumulate++, log->summed += e->summed;
    if (e->kind == AG_TRACE_PENDING && log->num_pending < 8) log->pending[log->num_pending++] = e->pending;
}

/* The diamond a = x*2, z = a + a, traced: two applies, the count of a's
 * Function going 2 -> 1 -> 0, three accumulations of which one sums. */
static void test_trace(void) {
    TraceLog log = {0};
    Tensor *x = tensor_create(0, NULL, (double[]){3}, true), *two = tensor_scalar(2);
    Tensor *a = tensor_mul(x, two), *z = tensor_add(a, a);
    ag_set_trace(record_event, &log);
    CHECK(backward(z) == 0 && tensor_values(x->grad)[0] == 4, "d(2x + 2x)/dx = 4");
    ag_set_trace(NULL, NULL);
    CHECK(log.apply == 2, "two Functions applied: %d", log.apply);
    CHECK(log.num_pending == 2 && log.pending[0] == 1 && log.pending[1] == 0, "pending 2 -> 1 -> 0");
    CHECK(log.accumulate == 3 && log.summed == 1, "a gets two gradients (one summed), x one");
    Tensor *all[] = {x, two, a, z};
    for (int i = 0; i < 4; i++) tensor_release(all[i]);
}

/* The parameters a signature lists: "f(a, b=1, *shape)" has 3, "f(a, *, b=1)" 2. */
static int signature_params(const char *sig) {
    const char *open = strchr(sig, '(');
    if (!open || open[1] == ')') return 0;
    int n = 1;
    for (const char *c = open; *c && *c != ')'; c++) n += *c == ',';
    return n - (strstr(open, ", *,") != NULL); /* a bare '*' (keyword-only after it) */
}

/* The op table is consistent: ids in order, unique names, a signature and
 * a parameter letter per parameter, one forward, a backward exactly when
 * there is a rule, and ag_op_rule naming each op as the shell does. */
static void test_op_table(void) {
    CHECK(ag_op_count() > 30 && ag_op_at(-1) == NULL && ag_op_at(ag_op_count()) == NULL,
          "the table's bounds");
    for (int i = 0; i < ag_op_count(); i++) {
        const AgOpInfo *op = ag_op_at(i);
        size_t n = strlen(op->name);
        CHECK(op->id == i, "%s: id %d at %d", op->name, op->id, i);
        CHECK(strncmp(op->signature, op->name, n) == 0 && op->signature[n] == '(',
              "%s: signature %s", op->name, op->signature);
        CHECK((int)strlen(op->params) == signature_params(op->signature) &&
                  strspn(op->params, "TtnidDPbsL") == strlen(op->params),
              "%s: params '%s' for %s", op->name, op->params, op->signature);
        int forwards = (op->unary != NULL) + (op->binary != NULL) + (op->call != NULL);
        CHECK(forwards == 1 || (forwards == 0 && (op->flags & AG_OP_HIDDEN)),
              "%s: %d forwards (0 only for syntax, as index)", op->name, forwards);
        CHECK(!op->unary || strcmp(op->params, "T") == 0, "%s: unary takes T", op->name);
        CHECK(!op->binary || strcmp(op->params, "TT") == 0, "%s: binary takes TT", op->name);
        CHECK((op->rule != NULL) == (op->backward != NULL) && (!op->rule || op->backward_name),
              "%s: a backward and a name exactly when there is a rule", op->name);
        CHECK(op->help && op->help[0], "%s: help", op->name);
        CHECK(ag_op_find(op->name) == op && (!op->alias || ag_op_find(op->alias) == op),
              "%s: found by name and alias", op->name);
        const char *rule = ag_op_rule(op->name);
        CHECK(op->rule ? rule && strncmp(rule, op->name, n) == 0 && rule[n] == ':' &&
                             strstr(rule, "grad")
                       : rule == NULL,
              "rule of %s: %s", op->name, rule ? rule : "(none)");
    }
    CHECK(strcmp(ag_op_rule("mul"), "mul: grad_a = g * b, grad_b = g * a") == 0, "mul's rule");
    CHECK(strncmp(ag_op_rule("mse"), "mse_loss:", 9) == 0, "an alias finds its op's rule");
    CHECK(ag_op_rule("zeros") == NULL && ag_op_rule(NULL) == NULL && ag_op_find("zeros") == NULL,
          "no rule for non-ops");
}

/* Random graphs: values reused by several consumers, broadcasting, dead
 * branches, shared gradient tensors, and every family of op (indexing,
 * selections, activations, reductions, joins, losses, shape ops, matmul);
 * every graph checked against finite differences to the second order:
 * fd_check's gradient, float32 and create_graph passes (the last, the
 * Hessian-vector product against central differences of the gradient,
 * is the second-order mode: RANDOM_GRAPHS = 1,000 graphs, 0.3 to 0.6 s of
 * the release build's test_engine on a 2-core machine). The graph is a
 * deterministic function of its seed, so the checker can rebuild it for
 * each perturbed input. Every node broadcasts to (3, 4), so any two
 * combine: an op that needs that exact shape gets its operand expanded,
 * and every op gives back a shape that broadcasts to it. */
static uint64_t lcg(uint64_t *state) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

enum { GRAPH_NODES = 20, NODE_KINDS = 20, RANDOM_GRAPHS = 1000 };

/* Finite differences straddle a kink (clamp's bounds, maximum's ties,
 * leaky_relu's 0) only when an operand lies within about h times its
 * derivative of it: a seed whose graph comes closer than this is not
 * used (see test_random_graphs). */
#define KINK_MARGIN 1e-4

/* A graph: its seed; for the build that decides whether the seed is used
 * (NULL otherwise), where to put the closest a kink came and how many
 * nodes of each kind were made. */
typedef struct {
    uint64_t seed;
    double *margin;
    int *kinds;
} GraphSpec;

/* One build's state: the generator and the closest kink so far. */
typedef struct {
    uint64_t state;
    double margin;
} Gen;

/* One call per full expression: the order of calls within one is unspecified. */
static int64_t pick(Gen *g, int64_t n) { return (int64_t)(lcg(&g->state) % (uint64_t)n); }

/* Notes the least |a - b| over the broadcast elements, computed without
 * grad. Exact ties are left out: with random inputs, two values are equal
 * only as two forms of one function (a against where(c, a, b), clamp(a, b)
 * against b, a - a against 0), whose derivatives agree. */
static void near_kink(Gen *g, Tensor *a, Tensor *b) {
    bool was = ag_set_grad_enabled(false);
    Tensor *d = tensor_sub(a, b);
    for (int64_t k = 0; k < d->numel; k++)
        if (tensor_values(d)[k] != 0 && fabs(tensor_values(d)[k]) < g->margin) g->margin = fabs(tensor_values(d)[k]);
    tensor_release(d);
    ag_set_grad_enabled(was);
}

static void near_value(Gen *g, Tensor *a, double v) {
    Tensor *c = tensor_scalar(v);
    near_kink(g, a, c);
    tensor_release(c);
}

/* x broadcast to (3, 4) (x + 0), for the ops that need the whole shape. */
static Tensor *full(Tensor *x) {
    if (x->ndim == 2 && x->shape[0] == 3 && x->shape[1] == 4) return tensor_retain(x);
    Tensor *zero = test_like(tensor_zeros(SHAPE(3, 4), false), x), *r = tensor_add(x, zero);
    tensor_release(zero);
    return r;
}

#define IX_INT(i) ((AgIndex){.kind = AG_INDEX_INT, .index = (i)})
#define IX_ALL ((AgIndex){.kind = AG_INDEX_SLICE, .step = 1})
#define IX_RANGE(a, b) \
    ((AgIndex){.kind = AG_INDEX_SLICE, .start = (a), .stop = (b), .step = 1, \
               .has_start = true, .has_stop = true})
#define IX_STEP(s) ((AgIndex){.kind = AG_INDEX_SLICE, .step = (s)})
#define IX_NEWAXIS ((AgIndex){.kind = AG_INDEX_NEWAXIS})
#define IX_TENSOR(t) ((AgIndex){.kind = AG_INDEX_TENSOR, .tensor = (t)})
#define IX_MASK(t) ((AgIndex){.kind = AG_INDEX_MASK, .tensor = (t)})

/* x[i], a row (4,), or x[:, j, None], a column kept as (3, 1); i and j
 * may be negative. */
static Tensor *take_int(Gen *g, Tensor *a) {
    Tensor *x = full(a), *r;
    if (pick(g, 2))
        r = tensor_index(x, (AgIndex[]){IX_INT(pick(g, 6) - 3)}, 1);
    else
        r = tensor_index(x, (AgIndex[]){IX_ALL, IX_INT(pick(g, 8) - 4), IX_NEWAXIS}, 3);
    tensor_release(x);
    return r;
}

/* Along one axis of size n, a[s : s + n - 2] and b[::-2] (the last element
 * and every second one before it: 2 of 3 or 4) joined: (3, 4) again. */
static Tensor *slice_cat(Gen *g, Tensor *a, Tensor *b) {
    int axis = (int)pick(g, 2);
    int64_t n = axis ? 4 : 3, s = pick(g, 3);
    AgIndex head[2] = {IX_ALL, IX_ALL}, tail[2] = {IX_ALL, IX_ALL};
    head[axis] = IX_RANGE(s, s + n - 2);
    tail[axis] = IX_STEP(-2);
    Tensor *x = full(a), *y = full(b);
    Tensor *parts[2] = {tensor_index(x, head, 2), tensor_index(y, tail, 2)};
    /* dim: the axis, or the same counted from the end */
    Tensor *r = tensor_cat(parts, 2, axis - 2 * (int)pick(g, 2));
    Tensor *done[] = {parts[0], parts[1], x, y};
    for (int k = 0; k < 4; k++) tensor_release(done[k]);
    return r;
}

/* x along one axis of size n, at n positions (some negative) of which the
 * first and last are the same: that element's gradients add. */
static Tensor *take_tensor(Gen *g, Tensor *a) {
    int axis = (int)pick(g, 2);
    int64_t n = axis ? 4 : 3;
    double at[4];
    for (int64_t k = 0; k < n; k++) at[k] = (double)(pick(g, 2 * n) - n);
    at[n - 1] = at[0];
    Tensor *positions = vec(n, at, false), *x = full(a);
    AgIndex items[2] = {IX_ALL, IX_ALL};
    items[axis] = IX_TENSOR(positions);
    Tensor *r = tensor_index(x, items, 2);
    tensor_release(positions), tensor_release(x);
    return r;
}

/* x[mask]: a (3, 4) mask of four elements gives them as (4,), a (3,) mask
 * of one row gives it as (1, 4). */
static Tensor *take_mask(Gen *g, Tensor *a) {
    double m[12] = {0};
    bool rows = pick(g, 2);
    int64_t size = rows ? 3 : 12;
    for (int ones = 0; ones < (rows ? 1 : 4);) {
        int64_t at = pick(g, size);
        if (!m[at]) m[at] = 1, ones++;
    }
    Tensor *mask = rows ? vec(3, m, false) : tensor_create(SHAPE(3, 4), m, false);
    Tensor *x = full(a), *r = tensor_index(x, (AgIndex[]){IX_MASK(mask)}, 1);
    tensor_release(mask), tensor_release(x);
    return r;
}

/* A constant condition of random 0s and 1s: each of a and b gets g where
 * it is chosen. */
static Tensor *where_node(Gen *g, Tensor *a, Tensor *b) {
    double c[12];
    for (int k = 0; k < 12; k++) c[k] = (double)pick(g, 2);
    Tensor *condition = tensor_create(SHAPE(3, 4), c, false), *r = tensor_where(condition, a, b);
    tensor_release(condition);
    return r;
}

/* Between two constants, or with b as its one bound (b's gradient is g
 * where it binds). */
static Tensor *clamp_node(Gen *g, Tensor *a, Tensor *b) {
    int64_t form = pick(g, 3);
    if (form) {
        near_kink(g, a, b);
        return form == 1 ? tensor_clamp(a, b, NULL) : tensor_clamp(a, NULL, b);
    }
    double low = -0.2 - 0.1 * (double)pick(g, 4);
    Tensor *lo = tensor_scalar(low), *hi = tensor_scalar(low + 0.5 + 0.1 * (double)pick(g, 4));
    near_kink(g, a, lo), near_kink(g, a, hi);
    Tensor *r = tensor_clamp(a, lo, hi);
    tensor_release(lo), tensor_release(hi);
    return r;
}

static Tensor *extreme_node(Gen *g, Tensor *a, Tensor *b) {
    near_kink(g, a, b);
    return pick(g, 2) ? tensor_maximum(a, b) : tensor_minimum(a, b);
}

/* The smooth activations, and three with a kink at 0 (elu is smooth there
 * only with alpha 1). softplus is x itself past threshold / beta = 10: a
 * jump of e^-20 that finite differences would see. */
static Tensor *activation_node(Gen *g, Tensor *a) {
    switch (pick(g, 8)) {
    case 0: return tensor_silu(a);
    case 1: return tensor_gelu(a);
    case 2: return tensor_gelu_tanh(a);
    case 3: near_value(g, a, 10); return tensor_softplus(a, 2, 20);
    case 4: return tensor_elu(a, 1);
    case 5: return tensor_sigmoid(a);
    case 6: near_value(g, a, 0); return tensor_elu(a, 0.5);
    default: near_value(g, a, 0); return tensor_leaky_relu(a, 0.1);
    }
}

/* std = sqrt(var) has a kink at var 0, where an operand broadcast along
 * the dims would sit: a constant ramp added first keeps its values apart. */
static Tensor *std_node(Gen *g, Tensor *x, const int64_t *dims, int ndims, bool keepdim) {
    double steps[12];
    for (int k = 0; k < 12; k++) steps[k] = 0.1 * k;
    Tensor *ramp = test_like(tensor_create(SHAPE(3, 4), steps, false), x);
    Tensor *y = tensor_add(x, ramp);
    Tensor *r = tensor_std_dims(y, dims, ndims, true, keepdim);
    near_value(g, r, 0);
    tensor_release(ramp), tensor_release(y);
    return r;
}

/* Over dim 0, dim 1 (as 1 or -1) or both, keeping them: (1, 4), (3, 1),
 * (1, 1); over dim 0 it may also drop it: (4,). */
static Tensor *reduce_node(Gen *g, Tensor *a) {
    static const int64_t dims[][2] = {{0}, {1}, {-1}, {0, -1}};
    int which = (int)pick(g, 4), ndims = which == 3 ? 2 : 1;
    bool keepdim = which != 0 || pick(g, 2);
    Tensor *x = full(a), *r;
    switch (pick(g, 5)) {
    case 0: r = tensor_sum_dims(x, dims[which], ndims, keepdim); break;
    case 1: r = tensor_mean_dims(x, dims[which], ndims, keepdim); break;
    case 2: r = tensor_logsumexp_dims(x, dims[which], ndims, keepdim); break;
    case 3: r = tensor_var_dims(x, dims[which], ndims, pick(g, 2), keepdim); break;
    default: r = std_node(g, x, dims[which], ndims, keepdim); break;
    }
    tensor_release(x);
    return r;
}

/* (a, b) or (a, b, a) stacked along a new dim, then logsumexp over it (a
 * smooth maximum): (3, 4). */
static Tensor *stack_node(Gen *g, Tensor *a, Tensor *b) {
    Tensor *x = full(a), *y = full(b);
    int n = 2 + (int)pick(g, 2), dim = (int)pick(g, 3);
    Tensor *stacked = tensor_stack((Tensor *[]){x, y, x}, n, dim);
    Tensor *r = tensor_logsumexp_dims(stacked, (int64_t[]){dim}, 1, false);
    tensor_release(stacked), tensor_release(x), tensor_release(y);
    return r;
}

/* Element losses (reduction 'none'), a and b broadcast. smooth_l1 and
 * huber are smooth enough (their slopes are continuous); l1 has a kink. */
static Tensor *loss_node(Gen *g, Tensor *a, Tensor *b) {
    switch (pick(g, 4)) {
    case 0: return tensor_mse_loss(a, b, AG_REDUCTION_NONE);
    case 1: return tensor_smooth_l1_loss(a, b, AG_REDUCTION_NONE, 0.5);
    case 2: return tensor_huber_loss(a, b, AG_REDUCTION_NONE, 0.8);
    default: near_kink(g, a, b); return tensor_l1_loss(a, b, AG_REDUCTION_NONE);
    }
}

/* x's elements in another order, read back as (3, 4): transposed, or
 * viewed as (3, 2, 2) and permuted. */
static Tensor *reorder_node(Gen *g, Tensor *a) {
    static const int64_t perms[][3] = {{2, 0, 1}, {1, 2, 0}, {0, 2, 1}};
    Tensor *x = full(a), *moved;
    int64_t which = pick(g, 4);
    if (which == 3) {
        moved = tensor_transpose(x, 0, -1);
    } else {
        Tensor *cube = tensor_reshape(x, SHAPE(3, 2, 2));
        moved = tensor_permute(cube, perms[which], 3);
        tensor_release(cube);
    }
    Tensor *r = tensor_reshape(moved, SHAPE(3, -1));
    tensor_release(moved), tensor_release(x);
    return r;
}

/* (a b^T) c / 4, (3, 3) then (3, 4), the 1/4 keeping values moderate; or
 * a b[0] (matrix times vector) as a column (3, 1). */
static Tensor *matmul_node(Gen *g, Tensor *a, Tensor *b, Tensor *c) {
    Tensor *x = full(a), *y = full(b), *r;
    if (pick(g, 2)) {
        Tensor *yt = tensor_t(y), *xy = tensor_matmul(x, yt), *z = full(c);
        Tensor *xyz = tensor_matmul(xy, z), *quarter = tensor_scalar(0.25);
        r = tensor_mul(xyz, quarter);
        Tensor *done[] = {yt, xy, z, xyz, quarter};
        for (int k = 0; k < 5; k++) tensor_release(done[k]);
    } else {
        Tensor *row = tensor_index(y, (AgIndex[]){IX_INT(0)}, 1), *col = tensor_matmul(x, row);
        r = tensor_unsqueeze(col, 1);
        tensor_release(row), tensor_release(col);
    }
    tensor_release(x), tensor_release(y);
    return r;
}

static Tensor *random_node(Gen *g, int kind, Tensor *a, Tensor *b, Tensor *c) {
    switch (kind) {
    case 0: return tensor_add(a, b);
    case 1: return tensor_sub(a, b);
    case 2: return tensor_mul(a, b);
    case 3: return tensor_tanh(a);
    case 4: return tensor_sin(a);
    case 5: return tensor_neg(a);
    case 6: return tensor_mul(a, a);
    case 7: return take_int(g, a);
    case 8: return slice_cat(g, a, b);
    case 9: return take_tensor(g, a);
    case 10: return take_mask(g, a);
    case 11: return where_node(g, a, b);
    case 12: return clamp_node(g, a, b);
    case 13: return extreme_node(g, a, b);
    case 14: return activation_node(g, a);
    case 15: return reduce_node(g, a);
    case 16: return stack_node(g, a, b);
    case 17: return loss_node(g, a, b);
    case 18: return reorder_node(g, a);
    default: return matmul_node(g, a, b, c);
    }
}

static Tensor *build_random_graph(Tensor **in, const void *arg) {
    const GraphSpec *spec = arg;
    Gen g = {spec->seed, INFINITY};
    Tensor *nodes[GRAPH_NODES];
    int n = 3;
    for (int i = 0; i < 3; i++) nodes[i] = tensor_retain(in[i]);
    while (n < GRAPH_NODES) {
        Tensor *a = nodes[pick(&g, n)], *b = nodes[pick(&g, n)], *c = nodes[pick(&g, n)];
        int kind = (int)pick(&g, NODE_KINDS);
        Tensor *r = random_node(&g, kind, a, b, c);
        if (!r) {
            if (spec->kinds) CHECK(false, "random graph %llu: node kind %d: %s",
                                   (unsigned long long)spec->seed, kind, ag_error());
            break;
        }
        if (spec->kinds) spec->kinds[kind]++;
        nodes[n++] = r;
    }
    /* The output uses the last node and one earlier one; the rest may be
     * dead branches. */
    Tensor *out = n < GRAPH_NODES ? NULL : tensor_add(nodes[n - 1], nodes[3 + pick(&g, n - 4)]);
    for (int i = 0; i < n; i++) tensor_release(nodes[i]);
    if (spec->margin) *spec->margin = g.margin;
    return out;
}

/* Builds the graph of seed once, without grad, counting its kinds of node;
 * returns the closest it comes to a kink. */
static double graph_margin(uint64_t seed, Tensor **in, int *kinds) {
    double margin = INFINITY;
    bool was = ag_set_grad_enabled(false);
    tensor_release(build_random_graph(in, &(GraphSpec){seed, &margin, kinds}));
    ag_set_grad_enabled(was);
    return margin;
}

static void test_random_graphs(void) {
    int kinds[NODE_KINDS] = {0}, checked = 0, skipped = 0, second_order = 0;
    for (uint64_t seed = 1; checked < RANDOM_GRAPHS; seed++) {
        /* (3, 4), (4,) and (3, 1) broadcast to (3, 4). */
        Tensor *in[3] = {test_uniform(-1, 1, true, SHAPE(3, 4)),
                         test_uniform(-1, 1, true, SHAPE(4)),
                         test_uniform(-1, 1, seed % 3 != 0, SHAPE(3, 1))};
        if (graph_margin(seed, in, kinds) < KINK_MARGIN) {
            skipped++;
        } else {
            char label[48];
            snprintf(label, sizeof label, "random graph %llu", (unsigned long long)seed);
            /* true only when every pass, the create_graph one last, agreed */
            second_order += fd_check(label, build_random_graph, &(GraphSpec){seed, NULL, NULL}, in, 3);
            checked++;
        }
        for (int i = 0; i < 3; i++) tensor_release(in[i]);
        ag_graph_free();
    }
    /* Skipping must stay rare, and every kind of node must be made often,
     * or the test checks less than it says. */
    int fewest = kinds[0];
    for (int k = 1; k < NODE_KINDS; k++) fewest = kinds[k] < fewest ? kinds[k] : fewest;
    CHECK(skipped * 20 <= checked && fewest >= RANDOM_GRAPHS / 4,
          "random graphs: %d skipped near a kink, %d checked; the rarest kind made %d times",
          skipped, checked, fewest);
    CHECK(second_order == RANDOM_GRAPHS, "%d of %d random graphs agree with finite differences "
          "to the second order", second_order, RANDOM_GRAPHS);
}

void test_core(void) {
    test_random_graphs();
    test_nested_graphs();
    test_trace();
    test_op_table();
    test_grad_mode();
    test_release_dead();
    test_release_dead_nested();
    test_diamond();
    test_shared_gradient_tensor();
    test_shared_subexpressions();
    test_dead_branch();
    test_freed_graph();
    test_accumulation();
    test_requires_grad_flow();
    test_long_chain();
    test_arena_caveat();
    test_early_release();
    test_backward_leaf();
    test_broadcast_reduction();
}
