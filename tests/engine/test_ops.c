/*
 * test_ops.c — every op's backward against central finite differences, on
 * random inputs, with broadcast shapes and every axis (negative ones too),
 * plus forward values against closed forms.
 */
#include "harness.h"

typedef Tensor *(*Binary)(Tensor *, Tensor *);
typedef Tensor *(*Unary)(Tensor *);
typedef Tensor *(*AxisOp)(Tensor *, int);

static Tensor *build_binary(Tensor **in, const void *op) { return (*(const Binary *)op)(in[0], in[1]); }
static Tensor *build_unary(Tensor **in, const void *op) { return (*(const Unary *)op)(in[0]); }

typedef struct {
    AxisOp op;
    int axis;
} AxisArg;
static Tensor *build_axis(Tensor **in, const void *arg) {
    const AxisArg *a = arg;
    return a->op(in[0], a->axis);
}

typedef struct {
    int ndim;
    int64_t shape[AG_MAX_DIMS];
} ShapeArg;

/* Shape pairs that broadcast in every way NumPy allows. */
static const ShapeArg pairs[][2] = {
    {{1, {4}}, {1, {4}}},
    {{2, {2, 3}}, {2, {2, 3}}},
    {{2, {2, 3}}, {1, {3}}},
    {{1, {3}}, {2, {2, 3}}},
    {{2, {2, 1}}, {2, {1, 3}}},
    {{3, {2, 1, 4}}, {2, {3, 1}}},
    {{2, {2, 3}}, {0, {0}}},
    {{0, {0}}, {3, {2, 2, 2}}},
    {{4, {2, 1, 3, 1}}, {3, {4, 1, 1}}},
};

static void check_binary(const char *name, Binary op, double lo, double hi, double blo,
                         double bhi) {
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        for (int mask = 1; mask <= 3; mask++) { /* which inputs require grad */
            Tensor *in[2] = {test_uniform(lo, hi, mask & 1, pairs[p][0].ndim, pairs[p][0].shape),
                             test_uniform(blo, bhi, mask & 2, pairs[p][1].ndim, pairs[p][1].shape)};
            char label[96];
            snprintf(label, sizeof label, "%s pair %zu mask %d", name, p, mask);
            fd_check(label, build_binary, &op, in, 2);
            tensor_release(in[0]);
            tensor_release(in[1]);
        }
    }
}

/* add and sub with an alpha (PyTorch's alpha=): b's gradient is scaled. */
static Tensor *add_alpha(Tensor *a, Tensor *b) { return tensor_add_scaled(a, b, -0.37); }
static Tensor *sub_alpha(Tensor *a, Tensor *b) { return tensor_sub_scaled(a, b, 2.5); }
static Tensor *sub_alpha_one(Tensor *a, Tensor *b) { return tensor_sub_scaled(a, b, 1.0); }

/* a + alpha * b rounded once, as PyTorch 1.13's CPU kernel (fma): where
 * a + (alpha * b) rounds twice to another double. PyTorch's results: */
static void test_add_alpha_values(void) {
    const double a[] = {-1.4625430235503951, 1.3503119026502914},
                 b[] = {1.3897349477489307, 0.22581729060973377};
    const double alpha[] = {1.0550984759064561, 0.5691774517297823};
    const double add[] = {0.00376420173344008, 1.4788420126760633},
                 sub[] = {-2.9288502488342303, 1.2217817926245196};
    for (int i = 0; i < 2; i++) {
        Tensor *ta = tensor_scalar(a[i]), *tb = tensor_scalar(b[i]);
        Tensor *s = tensor_add_scaled(ta, tb, alpha[i]), *d = tensor_sub_scaled(ta, tb, alpha[i]);
        CHECK(s && tensor_values(s)[0] == add[i], "add alpha case %d: %.17g, PyTorch %.17g", i,
              s ? tensor_values(s)[0] : NAN, add[i]);
        CHECK(d && tensor_values(d)[0] == sub[i], "sub alpha case %d: %.17g, PyTorch %.17g", i,
              d ? tensor_values(d)[0] : NAN, sub[i]);
        Tensor *all[] = {ta, tb, s, d};
        for (int k = 0; k < 4; k++) tensor_release(all[k]);
    }
}

static void test_binary_ops(void) {
    check_binary("add", tensor_add, -2, 2, -2, 2);
    check_binary("sub", tensor_sub, -2, 2, -2, 2);
    check_binary("add alpha=-0.37", add_alpha, -2, 2, -2, 2);
    check_binary("sub alpha=2.5", sub_alpha, -2, 2, -2, 2);
    check_binary("sub alpha=1", sub_alpha_one, -2, 2, -2, 2);
    test_add_alpha_values();
    check_binary("mul", tensor_mul, -2, 2, -2, 2);
    check_binary("div", tensor_div, -2, 2, 0.5, 2);
    check_binary("div negative divisor", tensor_div, -2, 2, -2, -0.5);
    check_binary("pow", tensor_pow, 0.5, 2, -2, 2);
}

static void check_unary(const char *name, Unary op, double lo, double hi) {
    static const ShapeArg shapes[] = {{0, {0}}, {1, {5}}, {2, {3, 4}}, {3, {2, 3, 2}}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        Tensor *x = test_uniform(lo, hi, true, shapes[s].ndim, shapes[s].shape);
        char label[64];
        snprintf(label, sizeof label, "%s shape %zu", name, s);
        fd_check(label, build_unary, &op, &x, 1);
        tensor_release(x);
    }
}

/* Values away from each op's kinks and poles (relu and abs at 0). */
static void test_unary_ops(void) {
    check_unary("neg", tensor_neg, -3, 3);
    check_unary("exp", tensor_exp, -2, 2);
    check_unary("log", tensor_log, 0.2, 3);
    check_unary("log10", tensor_log10, 0.2, 3);
    check_unary("log2", tensor_log2, 0.2, 3);
    check_unary("sqrt", tensor_sqrt, 0.2, 3);
    check_unary("tanh", tensor_tanh, -2, 2);
    check_unary("sigmoid", tensor_sigmoid, -4, 4);
    check_unary("relu positive", tensor_relu, 0.1, 2);
    check_unary("relu negative", tensor_relu, -2, -0.1);
    check_unary("abs positive", tensor_abs, 0.1, 2);
    check_unary("abs negative", tensor_abs, -2, -0.1);
    check_unary("sin", tensor_sin, -3, 3);
    check_unary("cos", tensor_cos, -3, 3);
    check_unary("sign positive", tensor_sign, 0.1, 2);
    check_unary("sign negative", tensor_sign, -2, -0.1);
    /* away from the steps: halves for round, integers for the others */
    check_unary("round", tensor_round, 0.6, 1.4);
    check_unary("round negative", tensor_round, -2.4, -1.6);
    check_unary("floor", tensor_floor, 0.1, 0.9);
    check_unary("ceil", tensor_ceil, -1.9, -1.1);
    check_unary("trunc", tensor_trunc, 1.1, 1.9);
    check_unary("sum", tensor_sum, -2, 2);
    check_unary("mean", tensor_mean, -2, 2);
    check_unary("max", tensor_max, -2, 2);
}

/* Mixed-sign relu: a random vector almost surely avoids 0 exactly. */
static void test_relu_mixed(void) {
    Tensor *x = test_uniform(-1, 1, true, SHAPE(50));
    Unary op = tensor_relu;
    fd_check("relu mixed signs", build_unary, &op, &x, 1);
    tensor_release(x);
}

static void check_axes(const char *name, AxisOp op) {
    static const ShapeArg shapes[] = {{1, {5}}, {2, {3, 4}}, {3, {2, 3, 4}}, {4, {2, 1, 3, 2}}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int nd = shapes[s].ndim;
        for (int axis = -nd; axis < nd; axis++) {
            Tensor *x = test_uniform(-2, 2, true, nd, shapes[s].shape);
            AxisArg arg = {op, axis};
            char label[64];
            snprintf(label, sizeof label, "%s shape %zu axis %d", name, s, axis);
            fd_check(label, build_axis, &arg, &x, 1);
            tensor_release(x);
        }
    }
}

/* softmax's and log_softmax's gradients as ops (softmax_backward,
 * log_softmax_backward: what their create_graph gradients are made with),
 * g and y both differentiated, along every axis of every shape; (2, 1, 3,
 * 2) has lanes of each of PyTorch's kernels (AgLane). y in [lo, hi). */
typedef Tensor *(*LaneGradOp)(Tensor *, Tensor *, int);
typedef struct {
    LaneGradOp op;
    int axis;
} LaneGradArg;
static Tensor *build_lane_grad(Tensor **in, const void *arg) {
    const LaneGradArg *a = arg;
    return a->op(in[0], in[1], a->axis);
}

static void check_lane_grads(const char *name, LaneGradOp op, double lo, double hi) {
    static const ShapeArg shapes[] = {{0, {0}}, {1, {5}}, {2, {3, 4}}, {3, {2, 3, 4}},
                                      {4, {2, 1, 3, 2}}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int nd = shapes[s].ndim;
        for (int axis = nd > 0 ? -nd : -1; axis < (nd > 0 ? nd : 1); axis++) {
            Tensor *in[] = {test_uniform(-2, 2, true, nd, shapes[s].shape),
                            test_uniform(lo, hi, true, nd, shapes[s].shape)};
            LaneGradArg arg = {op, axis};
            char label[64];
            snprintf(label, sizeof label, "%s shape %zu axis %d", name, s, axis);
            fd_check(label, build_lane_grad, &arg, in, 2);
            tensor_release(in[0]);
            tensor_release(in[1]);
        }
    }
}

static void test_axis_ops(void) {
    check_axes("sum_axis", tensor_sum_axis);
    check_axes("mean_axis", tensor_mean_axis);
    check_axes("max_axis", tensor_max_axis);
    check_axes("softmax", tensor_softmax);
    check_axes("log_softmax", tensor_log_softmax);
    check_lane_grads("softmax_backward", tensor_softmax_backward, 0.05, 0.9);
    check_lane_grads("log_softmax_backward", tensor_log_softmax_backward, -3, 0);
}

/* Forward values of the reductions against closed forms; shapes removed. */
static void test_reduction_values(void) {
    Tensor *x = tensor_arange(0, 6, 1), *m = tensor_reshape(x, SHAPE(2, 3));
    Tensor *s0 = tensor_sum_axis(m, 0), *s1 = tensor_sum_axis(m, -1), *mx = tensor_max_axis(m, 0);
    Tensor *mean = tensor_mean(m), *all = tensor_sum(m);
    CHECK(s0->ndim == 1 && s0->shape[0] == 3 && tensor_values(s0)[0] == 3 && tensor_values(s0)[2] == 7, "sum axis 0");
    CHECK(s1->ndim == 1 && s1->shape[0] == 2 && tensor_values(s1)[0] == 3 && tensor_values(s1)[1] == 12, "sum axis -1");
    CHECK(tensor_values(mx)[0] == 3 && tensor_values(mx)[2] == 5, "max axis 0");
    CHECK(mean->ndim == 0 && tensor_values(mean)[0] == 2.5 && tensor_values(all)[0] == 15, "mean and sum");
    Tensor *t[] = {x, m, s0, s1, mx, mean, all};
    for (int i = 0; i < 7; i++) tensor_release(t[i]);

    /* max's gradient is shared by tied maxima (PyTorch); test_numerics.c
     * has the cases with nan and along an axis. */
    int64_t n = 4;
    x = tensor_create(1, &n, (double[]){1, 3, 3, 2}, true);
    mx = tensor_max(x);
    backward(mx);
    CHECK(tensor_values(x->grad)[1] == 0.5 && tensor_values(x->grad)[2] == 0.5 && tensor_values(x->grad)[0] == 0,
          "max ties: the maxima share g");
    tensor_release(mx);
    tensor_release(x);
}

static Tensor *build_reshape(Tensor **in, const void *arg) {
    const ShapeArg *s = arg;
    return tensor_reshape(in[0], s->ndim, s->shape);
}

typedef struct {
    int a, b;
} Axes;
static Tensor *build_transpose(Tensor **in, const void *arg) {
    const Axes *ax = arg;
    return tensor_transpose(in[0], ax->a, ax->b);
}

static void test_shape_ops(void) {
    Tensor *x = test_uniform(-1, 1, true, SHAPE(2, 3, 4));
    ShapeArg r1 = {2, {6, -1}}, r2 = {1, {24}}, r3 = {4, {2, 1, 12, 1}};
    fd_check("reshape (6,-1)", build_reshape, &r1, &x, 1);
    fd_check("reshape (24)", build_reshape, &r2, &x, 1);
    fd_check("reshape (2,1,12,1)", build_reshape, &r3, &x, 1);
    Tensor *y = tensor_reshape(x, 2, (int64_t[]){-1, 4});
    CHECK(y->ndim == 2 && y->shape[0] == 6 && tensor_values(y)[5] == tensor_values(x)[5], "reshape infers -1");
    tensor_release(y);
    for (int a = -3; a < 3; a++)
        for (int b = -3; b < 3; b++) {
            Axes ax = {a, b};
            char label[48];
            snprintf(label, sizeof label, "transpose %d %d", a, b);
            fd_check(label, build_transpose, &ax, &x, 1);
        }
    y = tensor_transpose(x, 0, 2);
    CHECK(y->shape[0] == 4 && y->shape[2] == 2, "transpose swaps dims");
    /* y[k, j, i] = x[i, j, k] */
    CHECK(tensor_values(y)[(3 * 3 + 1) * 2 + 1] == tensor_values(x)[(1 * 3 + 1) * 4 + 3], "transpose moves elements");
    tensor_release(y);
    tensor_release(x);
}

static Tensor *build_mse(Tensor **in, const void *arg) {
    (void)arg;
    return tensor_mse(in[0], in[1]);
}
static Tensor *build_cross_entropy(Tensor **in, const void *arg) {
    (void)arg;
    return tensor_cross_entropy(in[0], in[1]);
}

static void test_mse_cross_entropy(void) {
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        Tensor *in[2] = {test_uniform(-2, 2, true, pairs[p][0].ndim, pairs[p][0].shape),
                         test_uniform(-2, 2, true, pairs[p][1].ndim, pairs[p][1].shape)};
        char label[32];
        snprintf(label, sizeof label, "mse pair %zu", p);
        fd_check(label, build_mse, NULL, in, 2);
        tensor_release(in[0]);
        tensor_release(in[1]);
    }
    Tensor *logits = test_uniform(-3, 3, true, SHAPE(4, 5));
    int64_t n = 4;
    Tensor *classes = tensor_create(1, &n, (double[]){0, 4, 2, 2}, false);
    Tensor *in[2] = {logits, classes};
    fd_check("cross_entropy", build_cross_entropy, NULL, in, 2);

    /* Value: mean of logsumexp(row) - row[class]. */
    Tensor *ce = tensor_cross_entropy(logits, classes);
    double expect = 0;
    for (int i = 0; i < 4; i++) {
        double s = 0;
        for (int k = 0; k < 5; k++) s += exp(tensor_values(logits)[i * 5 + k]);
        expect += log(s) - tensor_values(logits)[i * 5 + (int)tensor_values(classes)[i]];
    }
    CHECK_NEAR(tensor_values(ce)[0], expect / 4, 1e-12);
    tensor_release(ce);
    tensor_release(logits);
    tensor_release(classes);

    /* Stable for large logits: no overflow to inf or nan. */
    Tensor *big = tensor_create(2, (int64_t[]){1, 2}, (double[]){1000, 0}, false);
    Tensor *c0 = tensor_create(1, &(int64_t){1}, (double[]){1}, false);
    ce = tensor_cross_entropy(big, c0);
    CHECK_NEAR(tensor_values(ce)[0], 1000, 1e-9);
    Tensor *sm = tensor_softmax(big, -1);
    CHECK(tensor_values(sm)[0] == 1.0 && tensor_values(sm)[1] == 0.0, "softmax of (1000, 0) is (1, 0)");
    tensor_release(sm);
    tensor_release(ce);
    tensor_release(big);
    tensor_release(c0);
}

/* Compositions: gradients of expressions with reuse, against closed forms. */
static void test_compositions(void) {
    Tensor *x = test_uniform(0.5, 1.5, true, SHAPE(3, 2));
    Tensor *t = tensor_tanh(x), *s = tensor_sigmoid(t), *l = tensor_log(s), *m = tensor_mul(l, x);
    Tensor *loss = tensor_mean(m);
    backward(loss);
    for (int i = 0; i < 6; i++) {
        double xv = tensor_values(x)[i], tv = tanh(xv), sv = 1 / (1 + exp(-tv));
        double d = (log(sv) + xv * (1 - sv) * (1 - tv * tv)) / 6;
        CHECK_NEAR(tensor_values(x->grad)[i], d, 1e-12);
    }
    Tensor *all[] = {x, t, s, l, m, loss};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
}

/* The creation functions' values and shapes; the random stream is the same
 * for the same seed. */
static void test_creation(void) {
    Tensor *a = tensor_arange(1, 2, 0.25), *l = tensor_linspace(0, 1, 5), *e = tensor_eye(3);
    CHECK(a->numel == 4 && tensor_values(a)[3] == 1.75, "arange(1, 2, 0.25)");
    CHECK(l->numel == 5 && tensor_values(l)[1] == 0.25 && tensor_values(l)[4] == 1.0, "linspace(0, 1, 5)");
    CHECK(tensor_values(e)[0] == 1 && tensor_values(e)[1] == 0 && tensor_values(e)[4] == 1 && tensor_values(e)[8] == 1, "eye(3)");
    Tensor *f = tensor_full(2.5, SHAPE(2, 2), true), *z = tensor_zeros(SHAPE(3), false);
    CHECK(tensor_values(f)[3] == 2.5 && f->requires_grad && tensor_values(z)[2] == 0 && !z->requires_grad, "full, zeros");
    Tensor *down = tensor_arange(5, 0, -2);
    CHECK(down->numel == 3 && tensor_values(down)[2] == 1, "arange(5, 0, -2) = 5 3 1");
    ag_seed(7);
    Tensor *r1 = tensor_randn(SHAPE(1000), false);
    ag_seed(7);
    Tensor *r2 = tensor_randn(SHAPE(1000), false), *u = tensor_rand(SHAPE(1000), false);
    double mean = 0, var = 0, umin = 1, umax = 0;
    for (int i = 0; i < 1000; i++) {
        CHECK(tensor_values(r1)[i] == tensor_values(r2)[i], "same seed, same stream");
        mean += tensor_values(r1)[i] / 1000;
        var += tensor_values(r1)[i] * tensor_values(r1)[i] / 1000;
        umin = fmin(umin, tensor_values(u)[i]);
        umax = fmax(umax, tensor_values(u)[i]);
    }
    CHECK(fabs(mean) < 0.1 && fabs(var - 1) < 0.15, "randn: mean %g, var %g", mean, var);
    CHECK(umin >= 0 && umax < 1 && umax - umin > 0.9, "rand in [0, 1)");
    Tensor *d = tensor_copy(f);
    CHECK(!d->requires_grad && tensor_values(d)[0] == 2.5 && tensor_values(d) != tensor_values(f), "tensor_copy copies");
    Tensor *all[] = {a, l, e, f, z, down, r1, r2, u, d};
    for (int i = 0; i < 10; i++) tensor_release(all[i]);
}

/* Tensors with no elements flow through every kind of op. */
static void test_empty(void) {
    Tensor *e = tensor_zeros(SHAPE(0, 3), true), *k = tensor_scalar(2), *row = tensor_ones(SHAPE(3), false);
    Tensor *m = tensor_mul(e, k), *a = tensor_add(row, e), *s = tensor_sum(a), *mean = tensor_mean(e);
    Tensor *t = tensor_exp(e), *r = tensor_reshape(e, SHAPE(3, 0)), *sa = tensor_sum_axis(e, 0);
    CHECK(m && m->ndim == 2 && m->shape[0] == 0 && m->numel == 0, "(0,3) * scalar is (0,3)");
    CHECK(a && a->shape[0] == 0 && s && tensor_values(s)[0] == 0, "sum of nothing is 0");
    CHECK(mean && isnan(tensor_values(mean)[0]), "mean of nothing is nan");
    CHECK(t && r && r->shape[0] == 3 && sa && sa->numel == 3 && tensor_values(sa)[0] == 0, "exp, reshape, sum axis");
    CHECK(backward(s) == 0 && e->grad && e->grad->numel == 0, "backward through empty tensors");
    Tensor *all[] = {e, k, row, m, a, s, mean, t, r, sa};
    for (int i = 0; i < 10; i++) tensor_release(all[i]);
    ag_graph_free();
}

/* A 0-d tensor takes axis 0 or -1, as in PyTorch: the whole tensor. */
static void test_scalar_axes(void) {
    Tensor *x = tensor_create(0, NULL, (double[]){3}, true);
    Tensor *s = tensor_sum_axis(x, 0), *m = tensor_max_axis(x, -1), *sm = tensor_softmax(x, -1);
    Tensor *ls = tensor_log_softmax(x, 0), *t = tensor_transpose(x, 0, -1);
    CHECK(s && s->ndim == 0 && tensor_values(s)[0] == 3 && m && tensor_values(m)[0] == 3, "sum, max of 0-d");
    CHECK(sm && tensor_values(sm)[0] == 1 && ls && tensor_values(ls)[0] == 0, "softmax of 0-d is 1");
    CHECK(t && t->ndim == 0 && tensor_values(t)[0] == 3, "transpose of 0-d is a copy");
    Tensor *p = tensor_mul(s, t), *loss = tensor_add(p, m);
    CHECK(backward(loss) == 0 && tensor_values(x->grad)[0] == 7, "d(x*x + x)/dx = 2x + 1 = 7");
    Tensor *all[] = {x, s, m, sm, ls, t, p, loss};
    for (int i = 0; i < 8; i++) tensor_release(all[i]);
    ag_graph_free();
}

static Tensor *build_table_unary(Tensor **in, const void *arg) {
    return ((const AgOpInfo *)arg)->unary(in[0]);
}

/* Every op of the table taking one tensor, from the table itself (a new
 * unary op is checked without being listed here): its gradient against
 * finite differences at inputs in [0.2, 0.8], inside every unary op's
 * domain and away from its kinks. */
static void test_unary_table(void) {
    Tensor *x = test_uniform(0.2, 0.8, true, SHAPE(3, 4));
    int swept = 0;
    for (int i = 0; i < ag_op_count(); i++) {
        const AgOpInfo *op = ag_op_at(i);
        if (!op->unary || !op->backward) continue;
        char name[64];
        snprintf(name, sizeof name, "%s (the op table's unary sweep)", op->name);
        fd_check(name, build_table_unary, op, (Tensor *[]){x}, 1);
        swept++;
    }
    CHECK(swept >= 15, "the unary sweep met %d ops of the table", swept);
    ag_graph_free();
    tensor_release(x);
}

void test_ops(void) {
    test_scalar_axes();
    test_empty();
    test_binary_ops();
    test_unary_ops();
    test_unary_table();
    test_relu_mixed();
    test_axis_ops();
    test_reduction_values();
    test_shape_ops();
    test_mse_cross_entropy();
    test_compositions();
    test_creation();
}
