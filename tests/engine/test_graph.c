/*
 * test_graph.c — gradients of gradients (AG_CREATE_GRAPH): derivatives to
 * the fourth order and a Hessian-vector product against PyTorch's numbers
 * (graph_cases.h, from graph_cases.py), backward(create_graph) accumulating
 * into .grad as a recorded sum, the refusal of an op without a
 * graph_backward (by name, nothing changed), and the finite-difference
 * checks of the ops made for it (tanh_backward, expand). Every op's own
 * second derivative is checked by fd_check's create_graph pass, the smooth
 * unary ops' third derivatives here (test_third_order).
 */
#include "harness.h"

#include "graph_cases.h"

/* got's n values are want's within 1e-14 (matches_torch). */
static bool agrees(const char *what, const Tensor *got, const double *want, int64_t n) {
    if (!CHECK(got && got->numel == n, "%s: %s", what, got ? "wrong size" : ag_error()))
        return false;
    for (int64_t k = 0; k < n; k++)
        if (!matches_torch(tensor_values(got)[k], want[k]))
            return CHECK(false, "%s [%lld]: %.17g, PyTorch %.17g", what, (long long)k,
                         tensor_values(got)[k], want[k]);
    return CHECK(true, "%s", what);
}

static Tensor *x3(void) { return tensor_create(SHAPE(3), (double[]){0.5, -1.25, 2.0}, true); }

/* d/dx of sum(g), g a gradient made with create_graph; NULL on failure. */
static Tensor *grad_of_sum(Tensor *g, Tensor *x, unsigned flags) {
    Tensor *s = tensor_sum(g), *r = NULL;
    if (ag_grad(1, &s, NULL, 1, &x, flags, false, &r) != 0) r = NULL;
    tensor_release(s);
    return r;
}

static void test_cube_to_third_order(void) {
    Tensor *x = x3(), *three = tensor_number(3, AG_INT64), *c = tensor_pow(x, three);
    Tensor *y = tensor_sum(c), *g1 = NULL;
    CHECK(ag_grad(1, &y, NULL, 1, &x, AG_CREATE_GRAPH, false, &g1) == 0, "x^3: %s", ag_error());
    Tensor *g2 = g1 ? grad_of_sum(g1, x, AG_CREATE_GRAPH) : NULL;
    Tensor *g3 = g2 ? grad_of_sum(g2, x, 0) : NULL;
    agrees("d/dx x^3 = 3x^2", g1, cube_d1, 3);
    CHECK(g1 && g1->requires_grad && !tensor_is_leaf(g1), "the first derivative has a graph");
    agrees("d2/dx2 x^3 = 6x", g2, cube_d2, 3);
    agrees("d3/dx3 x^3 = 6", g3, cube_d3, 3);
    CHECK(g3 && !g3->requires_grad, "without create_graph the gradient is a constant");
    CHECK(x->grad == NULL, "grad() leaves x.grad alone");
    Tensor *all[] = {x, three, c, y, g1, g2, g3};
    for (int i = 0; i < 7; i++) tensor_release(all[i]);
    ag_graph_free();
}

/* Four derivatives of tanh (tanh_backward's own gradient, then its own). */
static void test_tanh_to_fourth_order(void) {
    static const double *const want[] = {tanh_d1, tanh_d2, tanh_d3, tanh_d4};
    Tensor *x = x3(), *t = tensor_tanh(x), *y = tensor_sum(t);
    tensor_release(t);
    for (int k = 0; k < 4; k++) {
        Tensor *g = NULL;
        CHECK(ag_grad(1, &y, NULL, 1, &x, AG_CREATE_GRAPH, false, &g) == 0, "order %d: %s",
              k + 1, ag_error());
        char what[48];
        snprintf(what, sizeof what, "derivative %d of tanh", k + 1);
        agrees(what, g, want[k], 3);
        tensor_release(y);
        y = g ? tensor_sum(g) : NULL;
        tensor_release(g);
        if (!y) break;
    }
    tensor_release(y);
    tensor_release(x);
    ag_graph_free();
}

/* f(x, w) = sum(exp(sin(x) * w) / (1 + x^2)): the gradient and the
 * Hessian-vector product, with w broadcast along x's rows. */
static void test_hessian_vector_product(void) {
    Tensor *x = tensor_create(SHAPE(2, 3), (double[]){0.3, -0.7, 1.1, 0.9, 0.2, -0.4}, true);
    Tensor *w = tensor_create(SHAPE(3), (double[]){0.5, -1.5, 0.25}, true);
    Tensor *v = tensor_create(SHAPE(2, 3), (double[]){1.0, -2.0, 0.5, 0.25, 1.5, -1.0}, false);
    Tensor *u = tensor_create(SHAPE(3), (double[]){0.75, -0.5, 2.0}, false);
    Tensor *sx = tensor_sin(x), *p = tensor_mul(sx, w), *e = tensor_exp(p);
    Tensor *one = tensor_number(1, AG_INT64), *two = tensor_number(2, AG_INT64);
    Tensor *sq = tensor_pow(x, two), *den = tensor_add(one, sq), *q = tensor_div(e, den);
    Tensor *f = tensor_sum(q), *ins[] = {x, w}, *g[2] = {0}, *h[2] = {0};
    CHECK(ag_grad(1, &f, NULL, 2, ins, AG_CREATE_GRAPH, false, g) == 0, "grad: %s", ag_error());
    agrees("d f / d x", g[0], hvp_gx, 6);
    agrees("d f / d w", g[1], hvp_gw, 3);
    if (g[0] && g[1]) {
        Tensor *a = tensor_mul(g[0], v), *b = tensor_mul(g[1], u);
        Tensor *sa = tensor_sum(a), *sb = tensor_sum(b), *s = tensor_add(sa, sb);
        CHECK(ag_grad(1, &s, NULL, 2, ins, 0, false, h) == 0, "hvp: %s", ag_error());
        agrees("H v, x part", h[0], hvp_hx, 6);
        agrees("H v, w part", h[1], hvp_hw, 3);
        Tensor *tmp[] = {a, b, sa, sb, s};
        for (int i = 0; i < 5; i++) tensor_release(tmp[i]);
    }
    Tensor *all[] = {x, w, v, u, sx, p, e, one, two, sq, den, q, f, g[0], g[1], h[0], h[1]};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) tensor_release(all[i]);
    ag_graph_free();
}

/* y.backward(create_graph=True): x.grad has a graph; a second backward
 * through it adds to x.grad (PyTorch's numbers). */
static void test_backward_create_graph(void) {
    Tensor *x = x3(), *two = tensor_number(2, AG_INT64), *sq = tensor_pow(x, two);
    Tensor *s = tensor_sigmoid(x);
    Tensor *p = tensor_mul(sq, s), *y = tensor_sum(p);
    CHECK(ag_backward(1, &y, NULL, AG_CREATE_GRAPH, 0, NULL) == 0, "backward: %s", ag_error());
    CHECK(x->grad && x->grad->requires_grad && tensor_has_graph(x->grad),
          "x.grad has a graph of its own");
    Tensor *gx = tensor_mul(x->grad, x), *z = tensor_sum(gx);
    CHECK(backward(z) == 0, "backward through x.grad: %s", ag_error());
    agrees("x.grad after both", x->grad, acc_grad, 3);
    Tensor *all[] = {x, two, sq, s, p, y, gx, z};
    for (int i = 0; i < 8; i++) tensor_release(all[i]);
    ag_graph_free();
}

/* A Function the engine cannot differentiate in recorded ops (one whose
 * apply is no row's: every row has a graph_backward now) is refused by
 * name before anything changes (x.grad as it was, the graph still there). */
static void no_row_backward(Function *self, void *ctx, Tensor *g) { (void)self, (void)ctx, (void)g; }

static void test_refusal(void) {
    Tensor *x = x3(), *e = tensor_exp(x), *y = tensor_sum(e);
    ApplyFn saved = e->grad_fn->apply;
    const char *name = e->grad_fn->name;
    e->grad_fn->apply = no_row_backward;
    e->grad_fn->name = "NoRowBackward";
    Tensor *g = NULL;
    CHECK(ag_grad(1, &y, NULL, 1, &x, AG_CREATE_GRAPH, false, &g) == -1 && g == NULL &&
              strstr(ag_error(), "NoRowBackward") && strstr(ag_error(), "create_graph"),
          "refused by name: %s", ag_error());
    CHECK(x->grad == NULL && tensor_has_graph(y), "nothing changed");
    e->grad_fn->apply = saved;
    e->grad_fn->name = name;
    CHECK(backward(y) == 0 && x->grad, "the graph still runs first-order: %s", ag_error());
    Tensor *all[] = {x, e, y};
    for (int i = 0; i < 3; i++) tensor_release(all[i]);
    bool every = true;
    for (int i = 0; i < ag_op_count(); i++)
        if (ag_op_at(i)->backward && !ag_op_at(i)->graph_backward)
            every = CHECK(false, "op %s has no graph_backward", ag_op_at(i)->name);
    CHECK(every, "every op with a backward has a graph_backward");
}

/* Rows that share a backward share its graph_backward: the engine finds a
 * Function's row by its backward. */
static void test_rows_agree(void) {
    bool ok = true;
    for (int i = 0; i < ag_op_count(); i++)
        for (int j = i + 1; j < ag_op_count(); j++) {
            const AgOpInfo *a = ag_op_at(i), *b = ag_op_at(j);
            if (a->backward && a->backward == b->backward && a->graph_backward != b->graph_backward)
                ok = CHECK(false, "%s and %s share a backward but not a graph_backward", a->name,
                           b->name);
        }
    CHECK(ok, "rows sharing a backward share a graph_backward");
}

static Tensor *build_tanh_backward(Tensor **in, const void *arg) {
    (void)arg;
    return tensor_tanh_backward(in[0], in[1]);
}

static Tensor *build_threshold_backward(Tensor **in, const void *arg) {
    (void)arg;
    return tensor_threshold_backward(in[0], in[1]);
}

typedef struct {
    int ndim;
    int64_t sizes[4];
} Sizes;

static Tensor *build_expand(Tensor **in, const void *arg) {
    const Sizes *s = arg;
    return tensor_expand(in[0], s->ndim, s->sizes);
}

static Tensor *build_leaky_relu_backward(Tensor **in, const void *arg) {
    (void)arg;
    return tensor_leaky_relu_backward(in[0], in[1], 0.2);
}

static Tensor *build_hardtanh_backward(Tensor **in, const void *arg) {
    (void)arg;
    return tensor_hardtanh_backward(in[0], in[1]);
}

static void test_new_ops(void) {
    Tensor *in[] = {test_uniform(-2, 2, true, SHAPE(2, 3)), test_uniform(-0.9, 0.9, true, SHAPE(2, 3))};
    fd_check("tanh_backward", build_tanh_backward, NULL, in, 2);
    tensor_release(in[0]);
    tensor_release(in[1]);
    /* x on both sides of each kink (0, and 6 for hardtanh), away from them */
    static const double xs[] = {-1.5, -0.3, 0.4, 2.5, 5.5, 6.7};
    Tensor *pair[] = {test_uniform(-2, 2, true, SHAPE(6)), tensor_create(SHAPE(6), xs, true)};
    fd_check("leaky_relu_backward", build_leaky_relu_backward, NULL, pair, 2);
    fd_check("hardtanh_backward", build_hardtanh_backward, NULL, pair, 2);
    tensor_release(pair[0]);
    tensor_release(pair[1]);
    /* y away from 0 (where the mask flips), some of it below */
    in[0] = test_uniform(-2, 2, true, SHAPE(2, 3));
    in[1] = tensor_create(SHAPE(2, 3), (double[]){0.5, -1.0, 2.0, -0.25, 1.5, -3.0}, true);
    fd_check("threshold_backward", build_threshold_backward, NULL, in, 2);
    tensor_release(in[0]);
    tensor_release(in[1]);
    static const struct {
        int ndim;
        int64_t shape[3];
        Sizes to;
    } cases[] = {
        {1, {3}, {2, {4, 3}}},
        {2, {2, 1}, {2, {2, 5}}},
        {2, {1, 3}, {3, {2, -1, 3}}},
        {0, {0}, {2, {2, 2}}},
        {3, {1, 2, 1}, {4, {2, 3, -1, 4}}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        Tensor *x = test_uniform(-1, 1, true, cases[c].ndim, cases[c].shape);
        char label[32];
        snprintf(label, sizeof label, "expand %zu", c);
        fd_check(label, build_expand, &cases[c].to, &x, 1);
        tensor_release(x);
    }
    Tensor *x = tensor_create(SHAPE(3, 2), NULL, false);
    Tensor *bad = tensor_expand(x, 2, (int64_t[]){3, 4});
    CHECK(!bad && strcmp(ag_error(), "The expanded size of the tensor (4) must match the existing "
                         "size (2) at non-singleton dimension 1.  Target sizes: [3, 4].  Tensor "
                         "sizes: [3, 2]") == 0, "expand's refusal is PyTorch's: %s", ag_error());
    bad = tensor_expand(x, 1, (int64_t[]){4});
    CHECK(!bad && strstr(ag_error(), "the number of sizes provided (1) must be greater or equal "
                         "to the number of dimensions in the tensor (2)"), "%s", ag_error());
    bad = tensor_expand(x, 3, (int64_t[]){-1, 3, 2});
    CHECK(!bad && strstr(ag_error(), "isn't allowed in a leading, non-existing dimension 0"), "%s",
          ag_error());
    tensor_release(x);
}

/* PyTorch's LegendrePolynomial3 as a custom Function: the client computes
 * P3(x) = 0.5 (5x^3 - 3x) and writes its backward, g * 1.5 (5x^2 - 1), in
 * ops; ctx is x, retained (released with the Function). */
static int releases;

static void release_x(void *ctx) {
    releases++;
    tensor_release(ctx);
}

static int legendre_backward(void *ctx, Tensor *g, int n, Tensor **grads) {
    (void)n;
    Tensor *x = ctx, *x2 = tensor_mul(x, x), *five = tensor_scalar(5), *one = tensor_scalar(1);
    Tensor *a = tensor_mul(five, x2), *b = tensor_sub(a, one), *k = tensor_scalar(1.5);
    Tensor *d = tensor_mul(k, b);
    grads[0] = tensor_mul(g, d);
    Tensor *tmp[] = {x2, five, one, a, b, k, d};
    for (int i = 0; i < 7; i++) tensor_release(tmp[i]);
    return grads[0] ? 0 : -1;
}

static Tensor *build_legendre(Tensor **in, const void *arg) {
    (void)arg;
    Tensor *x = in[0], *out = tensor_copy(x);
    for (int64_t i = 0; i < out->numel; i++) {
        double v = tensor_values(x)[i];
        tensor_values(out)[i] = 0.5 * (5 * v * v * v - 3 * v);
    }
    tensor_set_dtype(out, (AgDtype)x->dtype);
    return ag_custom_function(out, &x, 1, "LegendrePolynomial3Backward", legendre_backward,
                              tensor_retain(x), release_x);
}

static int failing_backward(void *ctx, Tensor *g, int n, Tensor **grads) {
    (void)ctx, (void)g, (void)n, (void)grads;
    return -1;
}

/* A client's backward that fails stops backward with .grad as it was. */
static void test_custom_failure(void) {
    Tensor *x = x3(), *out = tensor_copy(x);
    releases = 0;
    Tensor *y = ag_custom_function(out, &x, 1, "FailingBackward", failing_backward,
                                   tensor_retain(x), release_x);
    Tensor *s = tensor_sum(y);
    CHECK(y && y->requires_grad && backward(s) == -1 && x->grad == NULL,
          "a failing client backward stops backward, x.grad as it was");
    Tensor *all[] = {x, y, s};
    for (int i = 0; i < 3; i++) tensor_release(all[i]);
    ag_graph_free();
    CHECK(releases == 1, "its ctx released once (%d)", releases);
}

static void test_custom_function(void) {
    Tensor *x = test_uniform(-1, 1, true, SHAPE(5));
    releases = 0;
    fd_check("custom function (LegendrePolynomial3)", build_legendre, NULL, &x, 1);
    ag_graph_free();
    CHECK(releases > 0, "its ctx is released with the Function (%d)", releases);
    Tensor *c = tensor_copy(x); /* no input requires grad: a constant, ctx released at once */
    tensor_set_requires_grad(c, false);
    int before = releases;
    Tensor *y = build_legendre(&c, NULL);
    CHECK(y && !y->requires_grad && releases == before + 1, "a constant releases its ctx at once");
    Tensor *all[] = {x, c, y};
    for (int i = 0; i < 3; i++) tensor_release(all[i]);
}

/* Hooks: a hook's result replaces the gradient (an intermediate's flows
 * on to the leaves, a leaf's reaches .grad), hooks chain in order, a
 * removed one no longer runs, and a failing one stops backward with every
 * .grad as it was. */
static int hook_calls, hook_releases;

static Tensor *scale_hook(void *ctx, Tensor *grad, bool *failed) {
    (void)failed;
    hook_calls++;
    Tensor *k = tensor_scalar(*(const double *)ctx), *r = tensor_mul(grad, k);
    tensor_release(k);
    return r;
}

static Tensor *failing_hook(void *ctx, Tensor *grad, bool *failed) {
    (void)ctx, (void)grad;
    *failed = true;
    return NULL;
}

static void count_release(void *ctx) {
    (void)ctx;
    hook_releases++;
}

static void test_hooks(void) {
    static const double two = 2, ten = 10;
    Tensor *x = x3(), *h = tensor_mul(x, x), *y = tensor_sum(h); /* dy/dx = 2x */
    hook_calls = hook_releases = 0;
    int a = tensor_register_hook(h, scale_hook, (void *)&two, count_release);
    int b = tensor_register_hook(x, scale_hook, (void *)&ten, count_release);
    CHECK(a > 0 && b > a, "handles: %d %d", a, b);
    CHECK(backward(y) == 0 && x->grad && hook_calls == 2, "backward runs both hooks: %s",
          ag_error());
    bool ok = true;
    for (int i = 0; i < 3; i++) ok = ok && tensor_values(x->grad)[i] == 2 * 2 * tensor_values(x)[i] * 10;
    CHECK(ok, "x.grad = 10 (2 (2x)): the intermediate's hook, then the leaf's");
    CHECK(tensor_remove_hook(x, b) && !tensor_remove_hook(x, b) && hook_releases == 1,
          "a removed hook is released, once");
    tensor_zero_grad(x);
    Tensor *h2 = tensor_mul(x, x), *y2 = tensor_sum(h2);
    tensor_register_hook(h2, failing_hook, NULL, NULL);
    CHECK(backward(y2) == -1 && x->grad == NULL, "a failing hook stops backward, x.grad as it was");
    Tensor *all[] = {x, h, y, h2, y2};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);
    ag_graph_free();
    CHECK(hook_releases == 2, "a freed tensor releases its hooks (%d)", hook_releases);
    Tensor *c = tensor_scalar(1);
    CHECK(tensor_register_hook(c, scale_hook, NULL, count_release) == -1 && hook_releases == 3 &&
              strstr(ag_error(), "doesn't require gradient"),
          "no hook on a constant: %s", ag_error());
    tensor_release(c);
}

/* ---- the third order on the smooth unary ops ----------------------------
 * For each smooth unary op f, at several points (both signs where the
 * domain allows, away from elu's 0 and softplus's threshold), the third
 * derivative made by three ag_grad calls (two with create_graph) against
 * central differences of the second derivative (two ag_grad calls at
 * x + h and x - h). The ops are elementwise, so one tensor of points gives
 * every point's derivative at once: element k of d/dx sum(f(x)) is f'(x_k).
 *
 * Tolerance |analytic - numeric| <= 1e-6 (1 + |numeric|), h = 1e-5: the
 * truncation error of a central difference is h^2 |f^(5)| / 6, at most
 * 1.6e-7 at these points (log's at x = 0.3, f^(5) = 24 / x^5 = 1e4), there
 * 2e-9 of 1 + |f'''| (f''' = 2 / x^3 = 74); the rounding of f'' (a few ulp
 * of the terms it sums, ~1e-15 of max(1, |f''|)) divided by h is ~1e-10. The largest error measured is 4.6e-9 (the check says it),
 * 200 times under the bound; a wrong third derivative (a missing term, a wrong
 * sign) is off by O(|f'''|), far above. */
typedef struct {
    const char *name;
    Tensor *(*f)(Tensor *x, double p);
    double p;           /* the op's number: an exponent, alpha, beta */
    double points[8];
    int n;
} SmoothOp;

static Tensor *op_exp(Tensor *x, double p) { (void)p; return tensor_exp(x); }
static Tensor *op_log(Tensor *x, double p) { (void)p; return tensor_log(x); }
static Tensor *op_log10(Tensor *x, double p) { (void)p; return tensor_log10(x); }
static Tensor *op_log2(Tensor *x, double p) { (void)p; return tensor_log2(x); }
static Tensor *op_sqrt(Tensor *x, double p) { (void)p; return tensor_sqrt(x); }
static Tensor *op_reciprocal(Tensor *x, double p) { (void)p; return tensor_reciprocal(x); }
static Tensor *op_tanh(Tensor *x, double p) { (void)p; return tensor_tanh(x); }
static Tensor *op_sigmoid(Tensor *x, double p) { (void)p; return tensor_sigmoid(x); }
static Tensor *op_sin(Tensor *x, double p) { (void)p; return tensor_sin(x); }
static Tensor *op_cos(Tensor *x, double p) { (void)p; return tensor_cos(x); }
static Tensor *op_sinh(Tensor *x, double p) { (void)p; return tensor_sinh(x); }
static Tensor *op_cosh(Tensor *x, double p) { (void)p; return tensor_cosh(x); }
static Tensor *op_tan(Tensor *x, double p) { (void)p; return tensor_tan(x); }
static Tensor *op_atan(Tensor *x, double p) { (void)p; return tensor_atan(x); }
static Tensor *op_asin(Tensor *x, double p) { (void)p; return tensor_asin(x); }
static Tensor *op_acos(Tensor *x, double p) { (void)p; return tensor_acos(x); }
static Tensor *op_erf(Tensor *x, double p) { (void)p; return tensor_erf(x); }
static Tensor *op_log1p(Tensor *x, double p) { (void)p; return tensor_log1p(x); }
static Tensor *op_expm1(Tensor *x, double p) { (void)p; return tensor_expm1(x); }
static Tensor *op_rsqrt(Tensor *x, double p) { (void)p; return tensor_rsqrt(x); }
static Tensor *op_silu(Tensor *x, double p) { (void)p; return tensor_silu(x); }
static Tensor *op_gelu(Tensor *x, double p) { (void)p; return tensor_gelu(x); }
static Tensor *op_gelu_tanh(Tensor *x, double p) { (void)p; return tensor_gelu_tanh(x); }
static Tensor *op_softplus(Tensor *x, double beta) { return tensor_softplus(x, beta, 20); }
static Tensor *op_elu(Tensor *x, double alpha) { return tensor_elu(x, alpha); }

static Tensor *op_pow(Tensor *x, double p) {
    Tensor *e = tensor_scalar(p), *r = tensor_pow(x, e);
    tensor_release(e);
    return r;
}

/* Both signs where the domain allows: 8 points over [-2.5, 2.5]. */
#define BOTH_SIGNS {-2.5, -1.7, -0.9, -0.3, 0.2, 0.8, 1.6, 2.5}, 8
/* Positive arguments only (log, sqrt, a fractional power): 6 points. */
#define POSITIVE {0.3, 0.7, 1.2, 2.0, 3.1, 4.5}, 6
/* 1/x and negative integer powers: both signs, away from the pole. */
#define NONZERO {-2.5, -1.3, -0.6, 0.5, 1.1, 2.4}, 6
/* asin, acos: inside (-1, 1), near its ends too. */
#define UNIT {-0.93, -0.6, -0.2, 0.1, 0.45, 0.9}, 6
/* tan: inside (-pi/2, pi/2), both signs. */
#define HALF_PERIOD {-1.3, -0.8, -0.3, 0.2, 0.7, 1.25}, 6
/* log1p: above -1. */
#define ABOVE_MINUS_ONE {-0.8, -0.4, -0.05, 0.3, 1.5, 4.0}, 6

static const SmoothOp smooth_ops[] = {
    {"exp", op_exp, 0, BOTH_SIGNS},
    {"log", op_log, 0, POSITIVE},
    {"log10", op_log10, 0, POSITIVE},
    {"log2", op_log2, 0, POSITIVE},
    {"sqrt", op_sqrt, 0, POSITIVE},
    {"reciprocal", op_reciprocal, 0, NONZERO},
    {"tanh", op_tanh, 0, BOTH_SIGNS},
    {"sigmoid", op_sigmoid, 0, BOTH_SIGNS},
    {"sin", op_sin, 0, BOTH_SIGNS},
    {"cos", op_cos, 0, BOTH_SIGNS},
    {"sinh", op_sinh, 0, BOTH_SIGNS},
    {"cosh", op_cosh, 0, BOTH_SIGNS},
    {"tan", op_tan, 0, HALF_PERIOD},
    {"atan", op_atan, 0, BOTH_SIGNS},
    {"asin", op_asin, 0, UNIT},
    {"acos", op_acos, 0, UNIT},
    {"erf", op_erf, 0, BOTH_SIGNS},
    {"log1p", op_log1p, 0, ABOVE_MINUS_ONE},
    {"expm1", op_expm1, 0, BOTH_SIGNS},
    {"rsqrt", op_rsqrt, 0, POSITIVE},
    {"silu", op_silu, 0, BOTH_SIGNS},
    {"gelu", op_gelu, 0, BOTH_SIGNS},
    {"gelu (tanh)", op_gelu_tanh, 0, BOTH_SIGNS},
    {"softplus (beta 1)", op_softplus, 1, BOTH_SIGNS},
    {"softplus (beta 2)", op_softplus, 2, BOTH_SIGNS},
    {"elu (alpha 1)", op_elu, 1, BOTH_SIGNS},
    {"elu (alpha 0.5)", op_elu, 0.5, BOTH_SIGNS},
    {"x^3", op_pow, 3, BOTH_SIGNS},
    {"x^4", op_pow, 4, BOTH_SIGNS},
    {"x^-2", op_pow, -2, NONZERO},
    {"x^0.5", op_pow, 0.5, POSITIVE},
    {"x^2.5", op_pow, 2.5, POSITIVE},
    {"x^-1.5", op_pow, -1.5, POSITIVE},
    {"x^(1/3)", op_pow, 1.0 / 3, POSITIVE},
};

/* d/dx sum(y) for x a leaf; NULL with the error on failure. */
static Tensor *derivative(Tensor *y, Tensor *x, unsigned flags) {
    Tensor *s = tensor_sum(y), *d = NULL;
    if (ag_grad(1, &s, NULL, 1, &x, flags, false, &d) != 0) d = NULL;
    tensor_release(s);
    return d;
}

/* f'' at x's values (x a leaf that requires grad), with a graph of its own
 * when flags has AG_CREATE_GRAPH; NULL on failure. */
static Tensor *second_derivative(const SmoothOp *op, Tensor *x, unsigned flags) {
    Tensor *y = op->f(x, op->p), *d1 = y ? derivative(y, x, AG_CREATE_GRAPH) : NULL;
    Tensor *d2 = d1 ? derivative(d1, x, flags) : NULL;
    tensor_release(y);
    tensor_release(d1);
    return d2;
}

/* f'' at x's values moved by delta, first order at the last step. */
static Tensor *second_at(const SmoothOp *op, const Tensor *x, double delta) {
    Tensor *moved = tensor_copy(x);
    for (int64_t k = 0; k < moved->numel; k++) tensor_values(moved)[k] += delta;
    tensor_set_requires_grad(moved, true);
    Tensor *d2 = second_derivative(op, moved, 0);
    tensor_release(moved);
    return d2;
}

/* The largest error relative to 1 + |numeric| over op's points, or
 * INFINITY when a derivative failed. */
static double third_order_error(const SmoothOp *op) {
    const double h = 1e-5;
    Tensor *x = tensor_create(1, (int64_t[]){op->n}, op->points, true);
    Tensor *d2 = second_derivative(op, x, AG_CREATE_GRAPH);
    Tensor *d3 = d2 ? derivative(d2, x, 0) : NULL;
    Tensor *up = second_at(op, x, h), *down = second_at(op, x, -h);
    double worst = d3 && up && down ? 0.0 : INFINITY;
    for (int k = 0; isfinite(worst) && k < op->n; k++) {
        double numeric = (tensor_values(up)[k] - tensor_values(down)[k]) / (2 * h);
        double err = fabs(tensor_values(d3)[k] - numeric) / (1 + fabs(numeric));
        if (!(err <= 1e-6))
            CHECK(false, "%s''' at %g: analytic %.12g, numeric %.12g", op->name, op->points[k],
                  tensor_values(d3)[k], numeric);
        worst = isnan(err) ? INFINITY : fmax(worst, err);
    }
    Tensor *all[] = {x, d2, d3, up, down};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);
    ag_graph_free();
    return worst;
}

static void test_third_order(void) {
    double worst = 0.0;
    for (size_t i = 0; i < sizeof smooth_ops / sizeof *smooth_ops; i++) {
        double err = third_order_error(&smooth_ops[i]);
        CHECK(isfinite(err), "%s: the third derivative: %s", smooth_ops[i].name,
              isfinite(err) ? "" : ag_error());
        worst = fmax(worst, err);
    }
    CHECK(worst <= 1e-6, "third derivatives of %zu smooth unary ops agree with finite "
          "differences of the second (largest error %.2g)",
          sizeof smooth_ops / sizeof *smooth_ops, worst);
}

void test_graph(void) {
    test_third_order();
    test_hooks();
    test_custom_function();
    test_custom_failure();
    test_cube_to_third_order();
    test_tanh_to_fourth_order();
    test_hessian_vector_product();
    test_backward_create_graph();
    test_refusal();
    test_rows_agree();
    test_new_ops();
}
