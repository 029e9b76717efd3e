/*
 * test_elementwise.c — the activations (leaky_relu, elu, gelu, silu, relu6,
 * hardsigmoid, hardswish, softplus) and the selections (clamp, where,
 * minimum, maximum): backward against central finite differences on both
 * sides of every kink and with broadcast shapes, values and gradients at
 * fixed points against PyTorch 1.13's (torch_elementwise_cases.h, made by
 * torch_elementwise_cases.py; minimum's and maximum's are among
 * test_numerics.c's binary cases), the same result in every position of a
 * tensor, and the errors.
 */
#include "harness.h"
#include "ops/elementwise.h"

#include "torch_elementwise_cases.h"

/* a and b are the same double: equal, or both nan. Zeros agree in sign. */
static bool same(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

/* got is PyTorch's want: nan, infinities and zeros exactly; a finite value
 * within 1e-14 of scale (at least |want|). libmvec (ag) and libm
 * (PyTorch's scalar kernels) differ in the last bits of exp, log1p, tanh
 * and erf; scale is the size of the terms the formula adds, where it
 * cancels (gelu's 1 + erf(x / sqrt 2) near 0 for x << 0). */
static bool close_to(double got, double want, double scale) {
    if (isnan(want) || isinf(want) || want == 0.0 || isnan(got) || isinf(got) || got == 0.0)
        return same(got, want);
    return fabs(got - want) <= 1e-14 * fmax(fabs(want), scale);
}

/* An activation with its arguments, through its row of the op table as the
 * shell calls it: p holds the numbers in the signature's order. */
typedef struct {
    const char *op, *approximate;
    double p[2];
} Activation;

static Tensor *activation(const Activation *a, Tensor *x) {
    const AgOpInfo *op = ag_op_find(a->op);
    if (op->unary) return op->unary(x);
    AgOpArgs args;
    memset(&args, 0, sizeof args);
    args.t[0] = x;
    args.num[0] = a->p[0], args.num[1] = a->p[1];
    args.has_num[0] = args.has_num[1] = true;
    args.str = a->approximate;
    args.str_len = strlen(a->approximate);
    return op->call(&args);
}

static Tensor *vector_of(const double *v, int64_t n, bool requires_grad) {
    return tensor_create(1, &n, v, requires_grad);
}

/* ======================================================================
 * Finite differences
 * ====================================================================== */

static Tensor *build_activation(Tensor **in, const void *arg) { return activation(arg, in[0]); }

/* Values in [lo, hi), each moved to at least 0.05 from every kink. */
static Tensor *away_from(const double *kinks, int nk, double lo, double hi, int ndim,
                         const int64_t *shape) {
    Tensor *x = test_uniform(lo, hi, true, ndim, shape);
    for (int64_t i = 0; i < x->numel; i++)
        for (int k = 0; k < nk; k++)
            if (fabs(tensor_values(x)[i] - kinks[k]) < 0.05)
                tensor_values(x)[i] = kinks[k] + (tensor_values(x)[i] < kinks[k] ? -0.05 : 0.05);
    return x;
}

static const struct {
    int ndim;
    int64_t shape[3];
} shapes[] = {{0, {0}}, {1, {5}}, {2, {3, 4}}, {3, {2, 3, 2}}, {1, {37}}};

/* fd_check of a on every shape, x in [lo, hi) on both sides of the kinks. */
static void check_activation(Activation a, double lo, double hi, const double *kinks, int nk) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        Tensor *x = away_from(kinks, nk, lo, hi, shapes[s].ndim, shapes[s].shape);
        char label[96];
        snprintf(label, sizeof label, "%s%s%s (%g, %g) shape %zu", a.op, a.approximate[0] ? " " : "",
                 a.approximate, a.p[0], a.p[1], s);
        fd_check(label, build_activation, &a, &x, 1);
        tensor_release(x);
    }
}

static void test_activation_fd(void) {
    const double zero[] = {0}, relu6_kinks[] = {0, 6}, threes[] = {-3, 3};
    check_activation((Activation){"leaky_relu", "", {0.01, 0}}, -2, 2, zero, 1);
    check_activation((Activation){"leaky_relu", "", {0.2, 0}}, -2, 2, zero, 1);
    check_activation((Activation){"leaky_relu", "", {-1.5, 0}}, -2, 2, zero, 1);
    check_activation((Activation){"elu", "", {1.0, 0}}, -3, 2, zero, 1);
    check_activation((Activation){"elu", "", {0.5, 0}}, -3, 2, zero, 1);
    check_activation((Activation){"gelu", "none", {0, 0}}, -4, 4, NULL, 0);
    check_activation((Activation){"gelu", "tanh", {0, 0}}, -4, 4, NULL, 0);
    check_activation((Activation){"silu", "", {0, 0}}, -6, 6, NULL, 0);
    check_activation((Activation){"relu6", "", {0, 0}}, -2, 8, relu6_kinks, 2);
    check_activation((Activation){"hardsigmoid", "", {0, 0}}, -5, 5, threes, 2);
    check_activation((Activation){"hardswish", "", {0, 0}}, -5, 5, threes, 2);
    /* softplus: its threshold (beta * x = threshold) is a kink, and a step
     * of 2e-9 at beta = 1, threshold = 20 (log1p(e^20) - 20). */
    check_activation((Activation){"softplus", "", {1, 20}}, -5, 25, (double[]){20}, 1);
    check_activation((Activation){"softplus", "", {2, 10}}, -3, 8, (double[]){5}, 1);
    check_activation((Activation){"softplus", "", {0.5, 3}}, -5, 10, (double[]){6}, 1);
}

/* The activations' gradient ops (elu_backward, ...: hidden, made so that
 * their gradients are differentiable) on (g, x), through their rows. */
static Tensor *build_gradient_op(Tensor **in, const void *arg) {
    const Activation *a = arg;
    const AgOpInfo *op = ag_op_find(a->op);
    if (op->binary) return op->binary(in[0], in[1]);
    AgOpArgs args;
    memset(&args, 0, sizeof args);
    args.t[0] = in[0], args.t[1] = in[1];
    args.num[0] = a->p[0], args.num[1] = a->p[1];
    args.has_num[0] = args.has_num[1] = true;
    args.str = a->approximate;
    args.str_len = strlen(a->approximate);
    return op->call(&args);
}

/* fd_check of a gradient op on every shape, g and x each requiring grad or
 * not, x in [lo, hi) away from the kinks. */
static void check_gradient_op(Activation a, double lo, double hi, const double *kinks, int nk) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int mask = 1; mask <= 3; mask++) {
            Tensor *in[2] = {test_uniform(-1.5, 1.5, mask & 1, shapes[s].ndim, shapes[s].shape),
                             away_from(kinks, nk, lo, hi, shapes[s].ndim, shapes[s].shape)};
            tensor_set_requires_grad(in[1], mask & 2);
            char label[96];
            snprintf(label, sizeof label, "%s%s%s (%g, %g) shape %zu mask %d", a.op,
                     a.approximate[0] ? " " : "", a.approximate, a.p[0], a.p[1], s, mask);
            fd_check(label, build_gradient_op, &a, in, 2);
            tensor_release(in[0]);
            tensor_release(in[1]);
        }
}

static void test_gradient_ops_fd(void) {
    const double zero[] = {0};
    check_gradient_op((Activation){"elu_backward", "", {1.0, 0}}, -3, 2, zero, 1);
    check_gradient_op((Activation){"elu_backward", "", {0.5, 0}}, -3, 2, zero, 1);
    check_gradient_op((Activation){"gelu_backward", "none", {0, 0}}, -4, 4, NULL, 0);
    check_gradient_op((Activation){"gelu_backward", "tanh", {0, 0}}, -4, 4, NULL, 0);
    check_gradient_op((Activation){"silu_backward", "", {0, 0}}, -6, 6, NULL, 0);
    check_gradient_op((Activation){"softplus_backward", "", {1, 20}}, -5, 25, (double[]){20}, 1);
    check_gradient_op((Activation){"softplus_backward", "", {2, 10}}, -3, 8, (double[]){5}, 1);
}

typedef struct {
    int ndim;
    int64_t shape[AG_MAX_DIMS];
} Shape;

typedef Tensor *(*Binary)(Tensor *, Tensor *);

static Tensor *build_binary(Tensor **in, const void *op) { return (*(const Binary *)op)(in[0], in[1]); }

/* Shape pairs that broadcast in every way NumPy allows. */
static const Shape pairs[][2] = {
    {{1, {4}}, {1, {4}}},          {{2, {2, 3}}, {1, {3}}},          {{1, {3}}, {2, {2, 3}}},
    {{2, {2, 1}}, {2, {1, 3}}},    {{3, {2, 1, 4}}, {2, {3, 1}}},    {{2, {2, 3}}, {0, {0}}},
    {{0, {0}}, {3, {2, 2, 2}}},    {{1, {40}}, {1, {40}}},           {{2, {3, 20}}, {2, {3, 1}}},
};

static void check_extremum(const char *name, Binary op) {
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
        for (int mask = 1; mask <= 3; mask++) { /* which inputs require grad */
            Tensor *in[2] = {test_uniform(-2, 2, mask & 1, pairs[p][0].ndim, pairs[p][0].shape),
                             test_uniform(-2, 2, mask & 2, pairs[p][1].ndim, pairs[p][1].shape)};
            char label[96];
            snprintf(label, sizeof label, "%s pair %zu mask %d", name, p, mask);
            fd_check(label, build_binary, &op, in, 2);
            tensor_release(in[0]);
            tensor_release(in[1]);
        }
}

/* where's condition is a constant (0 or 1): in[0] is a and in[1] is b. */
static Tensor *build_where(Tensor **in, const void *cond) {
    return tensor_where((Tensor *)cond, in[0], in[1]);
}

static void check_where(void) {
    static const Shape triples[][3] = {
        {{1, {4}}, {1, {4}}, {1, {4}}},         {{2, {2, 1}}, {1, {3}}, {2, {2, 3}}},
        {{1, {3}}, {2, {2, 1}}, {0, {0}}},      {{2, {2, 3}}, {0, {0}}, {0, {0}}},
        {{0, {0}}, {2, {2, 3}}, {1, {3}}},      {{3, {2, 1, 3}}, {2, {4, 1}}, {1, {1}}},
        {{1, {37}}, {1, {37}}, {1, {37}}},      {{2, {3, 1}}, {2, {3, 18}}, {2, {1, 18}}},
    };
    for (size_t s = 0; s < sizeof triples / sizeof triples[0]; s++)
        for (int mask = 1; mask <= 3; mask++) {
            Tensor *cond = test_uniform(0, 1, false, triples[s][0].ndim, triples[s][0].shape);
            for (int64_t i = 0; i < cond->numel; i++) tensor_values(cond)[i] = tensor_values(cond)[i] < 0.5;
            Tensor *in[2] = {test_uniform(-2, 2, mask & 1, triples[s][1].ndim, triples[s][1].shape),
                             test_uniform(-2, 2, mask & 2, triples[s][2].ndim, triples[s][2].shape)};
            char label[96];
            snprintf(label, sizeof label, "where shapes %zu mask %d", s, mask);
            fd_check(label, build_where, cond, in, 2);
            Tensor *t[] = {cond, in[0], in[1]};
            for (int k = 0; k < 3; k++) tensor_release(t[k]);
        }
}

/* clamp(in[0], min, max) with the bounds given in order: in[1] is min when
 * has_min, and max follows. */
typedef struct {
    bool has_min, has_max;
} Bounds;

static Tensor *build_clamp(Tensor **in, const void *arg) {
    const Bounds *b = arg;
    return tensor_clamp(in[0], b->has_min ? in[1] : NULL, b->has_max ? in[b->has_min ? 2 : 1] : NULL);
}

/* Values in three bands, (-2, -1.05), (-0.45, 0.45) and (1.05, 2): at least
 * 0.05 from bounds drawn from (-1, -0.5) and (0.5, 1). */
static Tensor *banded(bool requires_grad, int ndim, const int64_t *shape) {
    static const double band[3][2] = {{-2, -1.05}, {-0.45, 0.45}, {1.05, 2}};
    Tensor *x = test_uniform(0, 3, requires_grad, ndim, shape);
    for (int64_t i = 0; i < x->numel; i++) {
        int k = (int)tensor_values(x)[i];
        tensor_values(x)[i] = band[k][0] + (band[k][1] - band[k][0]) * (tensor_values(x)[i] - k);
    }
    return x;
}

static void check_clamp(void) {
    static const struct {
        Shape x, min, max;
        Bounds given;
        bool inverted; /* min from (0.5, 1), max from (-1, -0.5) */
    } cases[] = {
        {{1, {4}}, {0, {0}}, {0, {0}}, {true, true}, false},
        {{2, {2, 3}}, {1, {3}}, {2, {2, 1}}, {true, true}, false},
        {{2, {2, 3}}, {1, {3}}, {2, {2, 1}}, {true, true}, true},
        {{1, {3}}, {2, {2, 1}}, {0, {0}}, {true, false}, false},
        {{2, {2, 3}}, {0, {0}}, {1, {3}}, {false, true}, false},
        {{1, {37}}, {1, {37}}, {1, {37}}, {true, true}, false},
        {{0, {0}}, {1, {4}}, {2, {3, 1}}, {true, true}, false},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int mask = 1; mask <= 7; mask++) { /* x, min, max requiring grad */
            bool lo_neg = !cases[c].inverted;
            Tensor *in[3] = {banded(mask & 1, cases[c].x.ndim, cases[c].x.shape), NULL, NULL};
            int n = 1;
            if (cases[c].given.has_min)
                in[n++] = test_uniform(lo_neg ? -1 : 0.5, lo_neg ? -0.5 : 1, mask & 2,
                                       cases[c].min.ndim, cases[c].min.shape);
            if (cases[c].given.has_max)
                in[n++] = test_uniform(lo_neg ? 0.5 : -1, lo_neg ? 1 : -0.5, mask & 4,
                                       cases[c].max.ndim, cases[c].max.shape);
            char label[96];
            snprintf(label, sizeof label, "clamp case %zu mask %d", c, mask);
            fd_check(label, build_clamp, &cases[c].given, in, n);
            for (int k = 0; k < n; k++) tensor_release(in[k]);
        }
}

static void test_select_fd(void) {
    check_extremum("maximum", tensor_maximum);
    check_extremum("minimum", tensor_minimum);
    check_where();
    check_clamp();
}

/* ======================================================================
 * PyTorch's values and gradients at fixed points. The cases come in runs
 * with the same op, numbers and g: each run is one tensor, so that ag's
 * whole blocks and its padded last one both meet them.
 * ====================================================================== */

enum { MAX_RUN = 256 };

/* The end of the run of cases (each size bytes, total of them) that starts
 * at start: the cases same_run finds alike, at most MAX_RUN. */
static size_t run_end(const void *cases, size_t size, size_t total, size_t start,
                      bool (*same_run)(const void *, const void *)) {
    const char *first = (const char *)cases + start * size;
    size_t end = start + 1;
    while (end < total && end - start < MAX_RUN &&
           same_run((const char *)cases + end * size, first))
        end++;
    return end;
}

static bool same_activation_run(const void *x, const void *y) {
    const ActivationCase *a = x, *b = y;
    return strcmp(a->op, b->op) == 0 && strcmp(a->approximate, b->approximate) == 0 &&
           same(a->p[0], b->p[0]) && same(a->p[1], b->p[1]) && same(a->g, b->g);
}

/* gelu's formulas add terms of size 1 and cancel for x << 0 (1 + erf):
 * their error is that of the terms, |x| ulps for the value. */
static double cancellation_scale(const ActivationCase *c, bool grad) {
    if (strcmp(c->op, "gelu") != 0) return 0.0;
    return grad ? fabs(c->g) * fmax(1.0, fabs(c->x)) : fabs(c->x);
}

static void test_activation_values(void) {
    const size_t total = sizeof activation_cases / sizeof activation_cases[0];
    for (size_t start = 0, end; start < total; start = end) {
        const ActivationCase *c = activation_cases + start;
        end = run_end(activation_cases, sizeof *c, total, start, same_activation_run);
        int64_t n = (int64_t)(end - start);
        double xv[MAX_RUN], gv[MAX_RUN];
        for (int64_t i = 0; i < n; i++) xv[i] = c[i].x, gv[i] = c[i].g;
        Activation a = {c->op, c->approximate, {c->p[0], c->p[1]}};
        Tensor *x = vector_of(xv, n, true), *g = vector_of(gv, n, false), *y = activation(&a, x);
        CHECK(y && tensor_backward(y, g) == 0, "%s: %s", c->op, ag_error());
        for (int64_t i = 0; y && x->grad && i < n; i++) {
            CHECK(close_to(tensor_values(y)[i], c[i].y, cancellation_scale(&c[i], false)),
                  "%s %s(%a; %g, %g) = %.17g, PyTorch %.17g", c->op, c->approximate, c[i].x,
                  c->p[0], c->p[1], tensor_values(y)[i], c[i].y);
            CHECK(close_to(tensor_values(x->grad)[i], c[i].dx, cancellation_scale(&c[i], true)),
                  "%s %s(%a; %g, %g) with g = %g: dx %.17g, PyTorch %.17g", c->op,
                  c->approximate, c[i].x, c->p[0], c->p[1], c[i].g, tensor_values(x->grad)[i], c[i].dx);
        }
        Tensor *t[] = {x, g, y};
        for (int k = 0; k < 3; k++) tensor_release(t[k]);
    }
}

static bool same_clamp_run(const void *x, const void *y) {
    const ClampCase *a = x, *b = y;
    return same(a->min, b->min) && same(a->max, b->max) && a->has_min == b->has_min &&
           a->has_max == b->has_max && same(a->g, b->g);
}

/* One run of clamp cases, the bounds as tensors of the run's length
 * (per_element) or as 0-d tensors, whose gradient is then the run's sum. */
static void check_clamp_run(const ClampCase *c, int64_t n, bool per_element) {
    double xv[MAX_RUN], gv[MAX_RUN], lo[MAX_RUN], hi[MAX_RUN];
    for (int64_t i = 0; i < n; i++) xv[i] = c[i].x, gv[i] = c[i].g, lo[i] = c->min, hi[i] = c->max;
    int64_t bn = per_element ? n : 1;
    Tensor *x = vector_of(xv, n, true), *g = vector_of(gv, n, false);
    Tensor *min = c->has_min ? tensor_create(per_element, &bn, lo, true) : NULL;
    Tensor *max = c->has_max ? tensor_create(per_element, &bn, hi, true) : NULL;
    Tensor *y = tensor_clamp(x, min, max);
    CHECK(y && tensor_backward(y, g) == 0, "clamp: %s", ag_error());
    double dmin = 0, dmax = 0;
    for (int64_t i = 0; y && i < n; i++) {
        CHECK(same(tensor_values(y)[i], c[i].y) && same(tensor_values(x->grad)[i], c[i].dx),
              "clamp(%g, %g, %g) (given %d %d) with g = %g: %g, dx %g; PyTorch %g, %g", c[i].x,
              c->min, c->max, c->has_min, c->has_max, c->g, tensor_values(y)[i], tensor_values(x->grad)[i],
              c[i].y, c[i].dx);
        if (per_element)
            CHECK((!min || same(tensor_values(min->grad)[i], c[i].dmin)) &&
                      (!max || same(tensor_values(max->grad)[i], c[i].dmax)),
                  "clamp(%g, %g, %g) with g = %g: dmin %g dmax %g; PyTorch %g %g", c[i].x,
                  c->min, c->max, c->g, min ? tensor_values(min->grad)[i] : 0.0,
                  max ? tensor_values(max->grad)[i] : 0.0, c[i].dmin, c[i].dmax);
        dmin += c[i].dmin, dmax += c[i].dmax;
    }
    if (y && !per_element) /* sums of 0, g and 2g (g = 1, inf or nan): exact in any order */
        CHECK((!min || same(tensor_values(min->grad)[0], dmin)) && (!max || same(tensor_values(max->grad)[0], dmax)),
              "clamp(x, %g, %g) with 0-d bounds, g = %g: dmin %g dmax %g; PyTorch's sums %g %g",
              c->min, c->max, c->g, min ? tensor_values(min->grad)[0] : 0.0,
              max ? tensor_values(max->grad)[0] : 0.0, dmin, dmax);
    Tensor *t[] = {x, g, min, max, y};
    for (int k = 0; k < 5; k++) tensor_release(t[k]);
}

/* sigmoid is PyTorch's 1 / (1 + exp(-x)) below 0 too (found by make
 * difftest: sigmoid(-730) was 9.226315e-318 and PyTorch's is 0).
 * /usr/bin/python3 -c 'import torch; print([torch.sigmoid(torch.tensor([v],
 *   dtype=torch.float64)).item().hex() for v in (-0.5, -1.25, -3.7, -10.1, -20.5, -730.0)])'
 * -> ['0x1.829a0565978dep-2', '0x1.c81702a88e0d5p-3', '0x1.8b4c0ffc14fbep-6',
 *     '0x1.58960ca034806p-15', '0x1.57a3afe79aea9p-30', '0x0.0p+0'] */
static void test_sigmoid_values(void) {
    const double x[] = {-0.5, -1.25, -3.7, -10.1, -20.5, -730.0};
    const double want[] = {0x1.829a0565978dep-2, 0x1.c81702a88e0d5p-3, 0x1.8b4c0ffc14fbep-6,
                           0x1.58960ca034806p-15, 0x1.57a3afe79aea9p-30, 0.0};
    for (int i = 0; i < 6; i++) {
        Tensor *t = tensor_create(1, (int64_t[]){1}, &x[i], false), *y = tensor_sigmoid(t);
        CHECK(same_double(tensor_values(y)[0], want[i]), "sigmoid(%g) = %a, PyTorch %a", x[i], tensor_values(y)[0],
              want[i]);
        tensor_release(t);
        tensor_release(y);
    }
}

static void test_clamp_values(void) {
    const size_t total = sizeof clamp_cases / sizeof clamp_cases[0];
    for (size_t start = 0, end; start < total; start = end) {
        const ClampCase *c = clamp_cases + start;
        end = run_end(clamp_cases, sizeof *c, total, start, same_clamp_run);
        check_clamp_run(c, (int64_t)(end - start), true);
        check_clamp_run(c, (int64_t)(end - start), false);
    }
}

static bool same_where_run(const void *x, const void *y) {
    return same(((const WhereCase *)x)->g, ((const WhereCase *)y)->g);
}

static void test_where_values(void) {
    const size_t total = sizeof where_cases / sizeof where_cases[0];
    for (size_t start = 0, end; start < total; start = end) {
        const WhereCase *c = where_cases + start;
        end = run_end(where_cases, sizeof *c, total, start, same_where_run);
        int64_t n = (int64_t)(end - start);
        double cv[MAX_RUN], av[MAX_RUN], bv[MAX_RUN], gv[MAX_RUN];
        for (int64_t i = 0; i < n; i++) cv[i] = c[i].cond, av[i] = c[i].a, bv[i] = c[i].b, gv[i] = c[i].g;
        Tensor *cond = vector_of(cv, n, false), *a = vector_of(av, n, true);
        Tensor *b = vector_of(bv, n, true), *g = vector_of(gv, n, false);
        Tensor *y = tensor_where(cond, a, b);
        CHECK(y && tensor_backward(y, g) == 0, "where: %s", ag_error());
        for (int64_t i = 0; y && i < n; i++)
            CHECK(same(tensor_values(y)[i], c[i].y) && same(tensor_values(a->grad)[i], c[i].da) &&
                      same(tensor_values(b->grad)[i], c[i].db),
                  "where(%g, %g, %g) with g = %g: %g, da %g, db %g; PyTorch %g, %g, %g", c[i].cond,
                  c[i].a, c[i].b, c[i].g, tensor_values(y)[i], tensor_values(a->grad)[i], tensor_values(b->grad)[i], c[i].y,
                  c[i].da, c[i].db);
        Tensor *t[] = {cond, a, b, g, y};
        for (int k = 0; k < 5; k++) tensor_release(t[k]);
    }
}

/* Whole broadcasting cases: the result, and each gradient summed back to
 * its operand's shape. */
static void test_broadcast_values(void) {
    for (size_t k = 0; k < sizeof broadcast_cases / sizeof broadcast_cases[0]; k++) {
        const BroadcastCase *c = &broadcast_cases[k];
        Tensor *in[3] = {NULL, NULL, NULL};
        for (int i = 0; i < 3; i++)
            if (c->in[i].given)
                in[i] = tensor_create(c->in[i].ndim, c->in[i].shape, c->in[i].data,
                                      !(strcmp(c->op, "where") == 0 && i == 0));
        Tensor *g = tensor_create(2, c->shape, c->g, false), *y;
        if (strcmp(c->op, "where") == 0) y = tensor_where(in[0], in[1], in[2]);
        else if (strcmp(c->op, "clamp") == 0) y = tensor_clamp(in[0], in[1], in[2]);
        else y = ag_op_find(c->op)->binary(in[0], in[1]);
        bool ok = CHECK(y && ag_shape_equal(y->ndim, y->shape, 2, c->shape) &&
                            tensor_backward(y, g) == 0,
                        "broadcast case %zu (%s): %s", k, c->op, ag_error());
        for (int64_t e = 0; ok && e < 6; e++)
            CHECK(same(tensor_values(y)[e], c->y[e]), "broadcast case %zu (%s): y[%lld] %g, PyTorch %g", k,
                  c->op, (long long)e, tensor_values(y)[e], c->y[e]);
        for (int i = 0; ok && i < 3; i++)
            for (int64_t e = 0; in[i] && e < in[i]->numel; e++) {
                double got = in[i]->grad ? tensor_values(in[i]->grad)[e] : 0.0;
                CHECK(same(got, c->in[i].grad[e]), "broadcast case %zu (%s): operand %d grad[%lld] "
                      "%g, PyTorch %g", k, c->op, i, (long long)e, got, c->in[i].grad[e]);
            }
        Tensor *t[] = {in[0], in[1], in[2], g, y};
        for (int i = 0; i < 5; i++) tensor_release(t[i]);
    }
}

/* ======================================================================
 * The same input gives the same result in every position: the ops that
 * call libmvec (exp, log1p, erf, tanh), at inputs where its vector
 * functions and libm's scalar ones differ and at a few others, in tensors
 * of 1 to 40 equal elements, forward and backward. With SLEEF, the last
 * n % 8 elements are PyTorch's scalar tail (elementwise.h), which calls
 * libm: those as in the one-element tensor, the others as in the first of
 * 8 (SLEEF's).
 * ====================================================================== */

static void test_same_input_same_result(void) {
    static const struct { Activation a; double v[4]; } ops[] = {
        {{"elu", "", {1.0, 0}}, {1.58, -1.58, -4.93, -0.3}},
        {{"gelu", "none", {0, 0}}, {-3.6, -0.75, 1.58, 2.2}},
        {{"gelu", "tanh", {0, 0}}, {-1.18, -0.23, 2.79, 0.3}},
        {{"silu", "", {0, 0}}, {-1.58, 4.2, -4.93, 0.3}},
        {{"softplus", "", {1, 20}}, {1.58, -4.93, 4.2, -0.3}},
    };
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int v = 0; v < 4; v++) {
            double y1 = 0, dx1 = 0, y8 = 0, dx8 = 0;
            int64_t differ = 0;
            for (int64_t n = 1; n <= 40; n++) {
                Tensor *x = tensor_full(ops[o].v[v], 1, &n, true), *y = activation(&ops[o].a, x);
                Tensor *s = tensor_sum(y);
                backward(s);
                if (n == 1) y1 = tensor_values(y)[0], dx1 = tensor_values(x->grad)[0];
                if (n == 8) y8 = tensor_values(y)[0], dx8 = tensor_values(x->grad)[0];
                for (int64_t i = 0; i < n; i++) {
                    bool scalar = !ag_vec_ready() || i >= n - n % 8;
                    differ += tensor_values(y)[i] != (scalar ? y1 : y8) ||
                              tensor_values(x->grad)[i] != (scalar ? dx1 : dx8);
                }
                Tensor *t[] = {x, y, s};
                for (int k = 0; k < 3; k++) tensor_release(t[k]);
            }
            CHECK(differ == 0, "%s %s(%g): %lld elements differ from the one-element result",
                  ops[o].a.op, ops[o].a.approximate, ops[o].v[v], (long long)differ);
        }
}

/* ======================================================================
 * Errors, and a condition that requires grad
 * ====================================================================== */

static void test_elementwise_errors(void) {
    Tensor *x = tensor_zeros(SHAPE(2, 3), true), *c = tensor_zeros(SHAPE(2), false);
    Tensor *b = tensor_zeros(SHAPE(4, 1, 1), false);
    int64_t live = live_tensors();
    uint64_t generation = ag_stats().generation;
    int64_t functions = ag_stats().arena_functions;

    CHECK(!tensor_clamp(x, NULL, NULL) &&
              strcmp(ag_error(), "clamp: at least one of min and max must be given") == 0,
          "clamp without bounds: %s", ag_error());
    CHECK(!tensor_where(c, x, b) &&
              strcmp(ag_error(), "where: shapes (2,), (2, 3) and (4, 1, 1) cannot broadcast "
                                 "(dimension 2: 2 vs 3)") == 0,
          "where's shapes: %s", ag_error());
    CHECK(!tensor_clamp(x, c, NULL) && strstr(ag_error(), "clamp: shapes (2, 3) and (2,) cannot"),
          "clamp's shapes: %s", ag_error());
    CHECK(!tensor_maximum(x, c) && strstr(ag_error(), "maximum: shapes (2, 3) and (2,) cannot"),
          "maximum's shapes: %s", ag_error());
    CHECK(!tensor_minimum(NULL, x) && strcmp(ag_error(), "minimum: an operand is NULL") == 0,
          "minimum of NULL: %s", ag_error());
    CHECK(!tensor_where(x, NULL, x) && strcmp(ag_error(), "where: an operand is NULL") == 0,
          "where of NULL: %s", ag_error());
    CHECK(!tensor_leaky_relu(NULL, 0.01) && strcmp(ag_error(), "leaky_relu: argument is NULL") == 0,
          "leaky_relu of NULL: %s", ag_error());
    AgOpArgs args;
    memset(&args, 0, sizeof args);
    args.t[0] = x;
    args.str = "exact", args.str_len = 5;
    CHECK(!ag_op_find("gelu")->call(&args) &&
              strcmp(ag_error(), "gelu: approximate must be 'none' or 'tanh', not 'exact'") == 0,
          "gelu's approximate: %s", ag_error());
    CHECK(!ag_op_find("softplus")->call(&args) &&
              strcmp(ag_error(), "softplus: beta must be a number, not None") == 0,
          "softplus's beta None: %s", ag_error());
    CHECK(live_tensors() == live && ag_stats().arena_functions == functions &&
              ag_stats().generation == generation,
          "the errors made nothing");
    ag_clear_error();

    /* A condition that requires grad is read as a constant: no gradient,
     * and with constant operands the result is a constant. */
    Tensor *cond = tensor_create(1, (int64_t[]){3}, (double[]){1, 0, 2}, true);
    Tensor *a = tensor_full(5, SHAPE(3), true), *y = tensor_where(cond, a, cond), *s = tensor_sum(y);
    CHECK(s && backward(s) == 0 && a->grad && tensor_values(a->grad)[0] == 1 && tensor_values(a->grad)[1] == 0 &&
              cond->grad && tensor_values(cond->grad)[0] == 0 && tensor_values(cond->grad)[1] == 1 &&
              tensor_values(cond->grad)[2] == 0,
          "where(cond, a, cond): only as the other operand does cond get g: %s", ag_error());
    Tensor *z = tensor_zeros(SHAPE(3), false), *k = tensor_where(cond, z, z);
    CHECK(k && !k->requires_grad && tensor_is_leaf(k), "where(cond, constant, constant) is a "
          "constant: %s", ag_error());
    Tensor *t[] = {x, c, b, cond, a, y, s, z, k};
    for (int i = 0; i < 9; i++) tensor_release(t[i]);
}

static Tensor *build_xlogy(Tensor **in, const void *arg) {
    (void)arg;
    return tensor_xlogy(in[0], in[1]);
}

/* xlogy (kl_div's hidden gradient op): b > 0, broadcasting (a away from
 * 0, where PyTorch's grad_a is 0, not log(b)); its values are libm's
 * a * log(b), 0 where a is 0. */
static void test_xlogy(void) {
    Tensor *a = test_uniform(-2, 2, true, SHAPE(3, 4)), *b = test_uniform(0.1, 3, true, SHAPE(4));
    fd_check("xlogy", build_xlogy, NULL, (Tensor *[]){a, b}, 2);
    tensor_values(a)[1] = tensor_values(a)[6] = 0.0;
    Tensor *y = tensor_xlogy(a, b);
    bool ok = y != NULL;
    for (int64_t i = 0; ok && i < 12; i++)
        ok = tensor_values(y)[i] == (tensor_values(a)[i] == 0 ? 0.0 : tensor_values(a)[i] * log(tensor_values(b)[i % 4]));
    CHECK(ok, "xlogy(a, b) is a log(b), 0 where a is 0: %s", ag_error());
    Tensor *zero = tensor_zeros(SHAPE(1), false), *nan = tensor_scalar(NAN);
    Tensor *n = tensor_xlogy(zero, nan);
    CHECK(n && isnan(tensor_values(n)[0]), "xlogy(0, nan) is nan, as PyTorch's");
    Tensor *t[] = {a, b, y, zero, nan, n};
    for (int i = 0; i < 6; i++) tensor_release(t[i]);
}

void test_elementwise(void) {
    test_xlogy();
    test_sigmoid_values();
    test_activation_fd();
    test_gradient_ops_fd();
    test_select_fd();
    test_activation_values();
    test_clamp_values();
    test_where_values();
    test_broadcast_values();
    test_same_input_same_result();
    test_elementwise_errors();
}
