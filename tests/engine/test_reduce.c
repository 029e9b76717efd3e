/*
 * test_reduce.c — the reductions (sum, mean, var, std, norm, logsumexp,
 * max, min, argmax, argmin) and shape ops (flatten, squeeze, unsqueeze,
 * permute, t, cat): gradients against finite differences over every axis,
 * negative axes, tuples of dims and keepdim; ties by hand; values and
 * gradients at fixed inputs against PyTorch 1.13 (reduce_cases.h, made by
 * reduce_cases.py); and the error messages.
 *
 * Each op is called through its row of the op table (AgOpArgs, as the
 * shell calls it), which calls the C API (tensor_sum_dims, ...).
 */
#include "harness.h"
#include "ops/elementwise.h"

#include "reduce_cases.h"

/* An op call: the row and its arguments, the tensors filled in by build. */
typedef struct {
    const AgOpInfo *op;
    AgOpArgs args;
} OpCall;

static Tensor *build_call(Tensor **in, const void *arg) {
    const OpCall *c = arg;
    AgOpArgs a = c->args;
    if (c->op->params[0] == 'L') {
        a.list = in;
    } else {
        a.t[0] = in[0];
    }
    return c->op->unary ? c->op->unary(in[0]) : c->op->call(&a);
}

/* The call of op with dims (ndims < 0: None), keepdim, and the op's other
 * parameters. */
static OpCall reduce_call(const char *name, int ndims, const int64_t *dims, bool keepdim) {
    OpCall c = {.op = ag_op_find(name)};
    c.args.has_dims = ndims >= 0;
    c.args.num_dims = ndims > 0 ? ndims : 0;
    for (int i = 0; i < ndims; i++) c.args.dims[i] = dims[i];
    c.args.flags[0] = keepdim;
    return c;
}

/* ======================================================================
 * Gradients against finite differences
 * ====================================================================== */

typedef struct {
    int ndim;
    int64_t shape[AG_MAX_DIMS];
} Shape;

static const Shape shapes[] = {{1, {5}}, {2, {3, 4}}, {3, {2, 3, 4}}, {4, {2, 1, 3, 2}}};

/* Sets of dims of an ndim tensor: every single axis (both signs), every
 * pair, every triple, all of them (as a tuple), and None. */
static int dim_sets(int ndim, int64_t sets[][AG_MAX_DIMS], int *sizes) {
    int n = 0;
    sizes[n++] = -1; /* None */
    for (int a = -ndim; a < ndim; a++) sets[n][0] = a, sizes[n++] = 1;
    for (int a = 0; a < ndim; a++)
        for (int b = 0; b < ndim; b++)
            if (a != b) sets[n][0] = a, sets[n][1] = b - ndim, sizes[n++] = 2;
    for (int a = 0; a + 2 < ndim; a++) /* (a, a+2, a+1): out of order */
        sets[n][0] = a, sets[n][1] = a + 2, sets[n][2] = a + 1, sizes[n++] = 3;
    for (int a = 0; a < ndim; a++) sets[n][a] = ndim - 1 - a;
    sizes[n++] = ndim;
    return n;
}

static void setup_unbiased(OpCall *c, const void *arg);

/* Whether the dims (n of them, -1: all) of shape cover more than one element. */
static bool reduces_over_several(const Shape *shape, int n, const int64_t *dims) {
    int64_t count = 1;
    for (int i = 0; i < (n < 0 ? shape->ndim : n); i++)
        count *= shape->shape[n < 0 ? i : (dims[i] + shape->ndim) % shape->ndim];
    return n == 0 ? true : count > 1;
}

/* fd_check of one reduction (configured by setup) over every shape, dim
 * set and keepdim, on inputs uniform in [lo, hi). */
typedef void (*Setup)(OpCall *c, const void *arg);

static void check_reduction(const char *what, const char *name, Setup setup, const void *arg,
                            double lo, double hi, bool need_dims) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t sets[64][AG_MAX_DIMS];
        int sizes[64];
        int n = dim_sets(shapes[s].ndim, sets, sizes);
        for (int d = 0; d < n; d++)
            for (int keepdim = 0; keepdim <= 1; keepdim++) {
                if (need_dims && sizes[d] < 0) continue;
                if (!reduces_over_several(&shapes[s], sizes[d], sets[d]) && setup == setup_unbiased &&
                    *(const bool *)arg)
                    continue; /* var, std unbiased over one element: nan (test_variance_edges) */
                OpCall c = reduce_call(name, sizes[d], sets[d], keepdim);
                if (setup) setup(&c, arg);
                Tensor *x = test_uniform(lo, hi, true, shapes[s].ndim, shapes[s].shape);
                char label[128];
                snprintf(label, sizeof label, "%s shape %zu dims #%d keepdim %d", what, s, d, keepdim);
                fd_check(label, build_call, &c, &x, 1);
                tensor_release(x);
            }
    }
}

static void setup_unbiased(OpCall *c, const void *arg) {
    c->args.flags[1] = c->args.flags[0]; /* keepdim moves after unbiased */
    c->args.flags[0] = *(const bool *)arg;
}

static void setup_p(OpCall *c, const void *arg) {
    c->args.num[0] = *(const double *)arg;
    c->args.has_num[0] = true;
}

static void test_fd_reductions(void) {
    check_reduction("sum", "sum", NULL, NULL, -2, 2, false);
    check_reduction("mean", "mean", NULL, NULL, -2, 2, false);
    check_reduction("logsumexp", "logsumexp", NULL, NULL, -3, 3, true);
    for (int unbiased = 0; unbiased <= 1; unbiased++) {
        bool u = unbiased;
        check_reduction(u ? "var unbiased" : "var biased", "var", setup_unbiased, &u, -2, 2, false);
        check_reduction(u ? "std unbiased" : "std biased", "std", setup_unbiased, &u, -2, 2, false);
    }
    /* norm: p = 1 and p < 1 have a kink at 0, which random inputs avoid;
     * p = +-inf one at ties of |x|, as unlikely. */
    static const double ps[] = {1, 2, 3, INFINITY, -INFINITY, 0.5, 1.5, 4, -1};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "norm p=%g", ps[i]);
        check_reduction(name, "norm", setup_p, &ps[i], 0.2, 2, false);
        check_reduction(name, "norm", setup_p, &ps[i], -2, -0.2, false);
    }
}

/* max and min along every dim (both signs), keepdim or not, and over
 * everything: random inputs have no ties. */
static void test_fd_extremes(void) {
    static const char *const ops[] = {"max", "min"};
    for (int o = 0; o < 2; o++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int nd = shapes[s].ndim;
            for (int dim = -nd - 1; dim < nd; dim++) /* -nd - 1: over everything */
                for (int keepdim = 0; keepdim <= (dim >= -nd); keepdim++) {
                    OpCall c = {.op = ag_op_find(ops[o])};
                    c.args.has_int[0] = dim >= -nd;
                    c.args.ints[0] = dim;
                    c.args.flags[0] = keepdim;
                    Tensor *x = test_uniform(-2, 2, true, nd, shapes[s].shape);
                    char label[96];
                    snprintf(label, sizeof label, "%s shape %zu dim %d keepdim %d", ops[o], s, dim,
                             keepdim);
                    fd_check(label, build_call, &c, &x, 1);
                    tensor_release(x);
                }
        }
}

static void fd_shape_op(const char *label, OpCall c, int ndim, const int64_t *shape) {
    Tensor *x = test_uniform(-2, 2, true, ndim, shape);
    fd_check(label, build_call, &c, &x, 1);
    tensor_release(x);
}

static void test_fd_shapes(void) {
    char label[96];
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int nd = shapes[s].ndim;
        const int64_t *sh = shapes[s].shape;
        for (int a = -nd; a < nd; a++)
            for (int b = -nd; b < nd; b++) {
                if ((a + nd) % nd > (b + nd) % nd) continue;
                OpCall c = {.op = ag_op_find("flatten")};
                c.args.ints[0] = a, c.args.ints[1] = b, c.args.has_int[0] = c.args.has_int[1] = true;
                snprintf(label, sizeof label, "flatten shape %zu (%d, %d)", s, a, b);
                fd_shape_op(label, c, nd, sh);
            }
        for (int d = -nd - 1; d < nd; d++) {
            OpCall c = {.op = ag_op_find("squeeze")};
            c.args.has_int[0] = d >= -nd, c.args.ints[0] = d;
            snprintf(label, sizeof label, "squeeze shape %zu dim %d", s, d);
            fd_shape_op(label, c, nd, sh);
        }
        for (int d = -nd - 1; d <= nd; d++) {
            OpCall c = {.op = ag_op_find("unsqueeze")};
            c.args.has_int[0] = true, c.args.ints[0] = d;
            snprintf(label, sizeof label, "unsqueeze shape %zu dim %d", s, d);
            fd_shape_op(label, c, nd, sh);
        }
    }
    /* permute: every order of 3 dims, negative ones too; of 4 dims, a few */
    static const int64_t perms3[][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1},
                                        {2, 1, 0}, {-1, 0, -2}, {-3, -1, -2}};
    for (size_t p = 0; p < sizeof perms3 / sizeof perms3[0]; p++) {
        OpCall c = {.op = ag_op_find("permute")};
        c.args.num_dims = 3;
        memcpy(c.args.dims, perms3[p], sizeof perms3[p]);
        snprintf(label, sizeof label, "permute (%lld, %lld, %lld)", (long long)perms3[p][0],
                 (long long)perms3[p][1], (long long)perms3[p][2]);
        fd_shape_op(label, c, SHAPE(2, 3, 4));
    }
    OpCall c4 = {.op = ag_op_find("permute")};
    c4.args.num_dims = 4;
    memcpy(c4.args.dims, (int64_t[]){3, 1, 0, 2}, 4 * sizeof(int64_t));
    fd_shape_op("permute 4-D", c4, SHAPE(2, 1, 3, 2));
    OpCall t = {.op = ag_op_find("t")};
    fd_shape_op("t 2-D", t, SHAPE(3, 4));
    fd_shape_op("t 1-D", t, SHAPE(4));
    fd_shape_op("t 0-D", t, 0, NULL);
}

/* cat along each dim of pieces that differ there, some not requiring grad. */
static void test_fd_cat(void) {
    OpCall c = {.op = ag_op_find("cat")};
    c.args.list_len = 3;
    for (int dim = -3; dim < 3; dim++)
        for (int mask = 1; mask < 8; mask++) {
            int d = dim < 0 ? dim + 3 : dim;
            Tensor *in[3];
            for (int k = 0; k < 3; k++) {
                int64_t shape[3] = {2, 3, 4};
                shape[d] = k + 1;
                in[k] = test_uniform(-2, 2, mask >> k & 1, 3, shape);
            }
            c.args.ints[0] = dim;
            char label[64];
            snprintf(label, sizeof label, "cat dim %d mask %d", dim, mask);
            fd_check(label, build_call, &c, in, 3);
            for (int k = 0; k < 3; k++) tensor_release(in[k]);
        }
    /* a (0,) piece is skipped, and receives an empty gradient */
    Tensor *in[3] = {test_uniform(-1, 1, true, SHAPE(2, 3)), tensor_zeros(SHAPE(0), true),
                     test_uniform(-1, 1, true, SHAPE(1, 3))};
    c.args.ints[0] = 0;
    fd_check("cat with a (0,) piece", build_call, &c, in, 3);
    CHECK(in[1]->grad && in[1]->grad->numel == 0 && in[1]->grad->ndim == 1,
          "the (0,) piece's gradient is (0,)");
    for (int k = 0; k < 3; k++) tensor_release(in[k]);
}

/* ======================================================================
 * Ties and the edges, by hand
 * ====================================================================== */

/* Whether grad (NULL: not reached, 0) holds want's n values (nan for nan). */
static bool grad_is(const Tensor *grad, const double *want, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        double v = grad ? tensor_values(grad)[i] : 0.0;
        if (!(v == want[i] || (isnan(v) && isnan(want[i])))) return false;
    }
    return true;
}

/* x's gradient made by create_graph (the op's graph_backward) is want_grad
 * too, at ties and edges as well as at random points; an op without a
 * graph_backward is passed over. */
static void check_graph_by_hand(const char *what, OpCall c, Tensor *x, const double *want_grad) {
    Tensor *y = build_call(&x, &c), *got = NULL;
    Tensor *g = y ? tensor_ones(y->ndim, y->shape, false) : NULL;
    int rc = y && y->requires_grad ? ag_grad(1, &y, &g, 1, &x, AG_CREATE_GRAPH, true, &got) : 0;
    if (rc == 0 || strncmp(ag_error(), "create_graph:", 13) != 0)
        CHECK(rc == 0 && grad_is(got, want_grad, x->numel), "%s (create_graph): gradient%s%s",
              what, rc ? ": " : "", rc ? ag_error() : "");
    tensor_release(got);
    tensor_release(g);
    tensor_release(y);
    ag_graph_free();
}

/* y = op(x) with backward from g (all ones when NULL); checks y's values
 * and x's gradient against want and want_grad, by backward and by
 * create_graph. */
static void check_by_hand(const char *what, OpCall c, Tensor *x, int n_out, const double *want,
                          const double *want_grad) {
    Tensor *y = build_call(&x, &c);
    if (!CHECK(y != NULL, "%s: %s", what, ag_error())) return;
    bool values = y->numel == n_out;
    for (int i = 0; values && i < n_out; i++)
        values = tensor_values(y)[i] == want[i] || (isnan(tensor_values(y)[i]) && isnan(want[i]));
    CHECK(values, "%s: values (first %g, wanted %g)", what, tensor_values(y)[0], want[0]);
    Tensor *g = tensor_ones(y->ndim, y->shape, false);
    tensor_zero_grad(x);
    CHECK(tensor_backward(y, g) == 0, "%s: backward: %s", what, ag_error());
    CHECK(x->grad != NULL && grad_is(x->grad, want_grad, x->numel), "%s: gradient", what);
    tensor_release(g);
    tensor_release(y);
    check_graph_by_hand(what, c, x, want_grad);
}

static void test_ties(void) {
    const double nan = NAN;
    Tensor *v = tensor_create(1, (int64_t[]){5}, (double[]){1, 3, -2, 3, -2}, true);
    OpCall max_all = {.op = ag_op_find("max")}, min_all = {.op = ag_op_find("min")};
    check_by_hand("max: tied maxima share g", max_all, v, 1, (double[]){3},
                  (double[]){0, 0.5, 0, 0.5, 0});
    check_by_hand("min: tied minima share g", min_all, v, 1, (double[]){-2},
                  (double[]){0, 0, 0.5, 0, 0.5});
    tensor_release(v);

    Tensor *n = tensor_create(1, (int64_t[]){5}, (double[]){1, nan, -2, nan, 7}, true);
    check_by_hand("max: the nans share g", max_all, n, 1, (double[]){nan},
                  (double[]){0, 0.5, 0, 0.5, 0});
    check_by_hand("min: the nans share g", min_all, n, 1, (double[]){nan},
                  (double[]){0, 0.5, 0, 0.5, 0});
    tensor_release(n);

    /* along a dim: the first extreme of each lane takes g */
    Tensor *m = tensor_create(2, (int64_t[]){2, 3}, (double[]){3, 1, 3, 0, 0, 2}, true);
    OpCall max1 = {.op = ag_op_find("max")}, min1 = {.op = ag_op_find("min")};
    max1.args.has_int[0] = min1.args.has_int[0] = true;
    max1.args.ints[0] = min1.args.ints[0] = -1;
    check_by_hand("max along dim 1: the first maximum", max1, m, 2, (double[]){3, 2},
                  (double[]){1, 0, 0, 0, 0, 1});
    check_by_hand("min along dim 1: the first minimum", min1, m, 2, (double[]){1, 0},
                  (double[]){0, 1, 0, 1, 0, 0});
    max1.args.ints[0] = 0, max1.args.flags[0] = true;
    check_by_hand("max along dim 0, keepdim", max1, m, 3, (double[]){3, 1, 3},
                  (double[]){1, 1, 1, 0, 0, 0});
    tensor_release(m);

    Tensor *t = tensor_create(2, (int64_t[]){1, 4}, (double[]){1, nan, 0, nan}, true);
    max1.args.ints[0] = 1, max1.args.flags[0] = false;
    min1.args.ints[0] = 1;
    check_by_hand("max along a dim: the first nan", max1, t, 1, (double[]){nan},
                  (double[]){0, 1, 0, 0});
    check_by_hand("min along a dim: the first nan", min1, t, 1, (double[]){nan},
                  (double[]){0, 1, 0, 0});
    tensor_release(t);

    /* argmax / argmin: the first extreme, the first nan; constants */
    Tensor *a = tensor_create(2, (int64_t[]){2, 3}, (double[]){3, 1, 3, 0, 0, 2}, false);
    Tensor *r[] = {tensor_argmax(a), tensor_argmin(a), tensor_argmax_dim(a, 1, false),
                   tensor_argmin_dim(a, -1, true), tensor_argmax_dim(a, 0, false)};
    CHECK(r[0]->ndim == 0 && tensor_values(r[0])[0] == 0 && tensor_values(r[1])[0] == 3, "argmax, argmin flattened");
    CHECK(r[2]->ndim == 1 && tensor_values(r[2])[0] == 0 && tensor_values(r[2])[1] == 2, "argmax along dim 1");
    CHECK(r[3]->ndim == 2 && r[3]->shape[1] == 1 && tensor_values(r[3])[0] == 1 && tensor_values(r[3])[1] == 0,
          "argmin along dim -1, keepdim");
    CHECK(tensor_values(r[4])[0] == 0 && tensor_values(r[4])[1] == 0 && tensor_values(r[4])[2] == 0, "argmax along dim 0");
    for (int i = 0; i < 5; i++) tensor_release(r[i]);
    tensor_release(a);
    Tensor *q = tensor_create(1, (int64_t[]){4}, (double[]){1, nan, 9, nan}, true);
    Tensor *qa = tensor_argmax(q), *qi = tensor_argmin(q);
    CHECK(tensor_values(qa)[0] == 1 && tensor_values(qi)[0] == 1 && !qa->requires_grad && !qa->grad_fn,
          "argmax, argmin: the first nan, a constant");
    tensor_release(qa), tensor_release(qi), tensor_release(q);
}

/* The second derivative of sum(op(x)) at x (d/dx sum(its gradient)) has
 * no nan: where a mask makes the gradient 0 (std 0, norm 0, x = 0 for
 * p < 1), the branch not taken meets no 0 * inf. */
static void check_second_order_finite(const char *what, OpCall c, Tensor *x) {
    Tensor *y = build_call(&x, &c), *s = y ? tensor_sum(y) : NULL, *g1 = NULL, *g2 = NULL;
    bool ran = s && ag_grad(1, &s, NULL, 1, &x, AG_CREATE_GRAPH, false, &g1) == 0;
    Tensor *s1 = ran ? tensor_sum(g1) : NULL;
    ran = ran && s1 && (!s1->requires_grad || ag_grad(1, &s1, NULL, 1, &x, 0, true, &g2) == 0);
    bool finite = ran;
    for (int64_t i = 0; finite && g2 && i < g2->numel; i++) finite = !isnan(tensor_values(g2)[i]);
    CHECK(finite, "%s: the second derivative %s", what, ran ? "has a nan" : ag_error());
    Tensor *all[] = {y, s, g1, s1, g2};
    for (int i = 0; i < 5; i++) tensor_release(all[i]);
    ag_graph_free();
}

/* var and std where n - c <= 0: over everything, PyTorch's var_backward
 * gives (2 / 0) * g (inf times g: reduce_cases.h has its 0-d cases; for a
 * 1-D tensor its backward raises an error, and ag gives the same inf), std
 * nan; and std's gradient where std is 0 (0: PyTorch masks it). */
static void test_variance_edges(void) {
    const double nan = NAN;
    Tensor *one = tensor_create(1, (int64_t[]){1}, (double[]){2}, true);
    OpCall var = reduce_call("var", -1, NULL, false), std = reduce_call("std", -1, NULL, false);
    var.args.flags[0] = std.args.flags[0] = true; /* unbiased */
    check_by_hand("var of one element, unbiased: nan", var, one, 1, (double[]){nan},
                  (double[]){INFINITY});
    check_by_hand("std of one element, unbiased: nan", std, one, 1, (double[]){nan}, (double[]){nan});
    var.args.flags[0] = std.args.flags[0] = false;
    check_by_hand("var of one element, biased: 0", var, one, 1, (double[]){0}, (double[]){0});
    check_by_hand("std of one element, biased: 0, gradient 0", std, one, 1, (double[]){0},
                  (double[]){0});
    tensor_release(one);
    Tensor *flat = tensor_create(1, (int64_t[]){3}, (double[]){1.5, 1.5, 1.5}, true);
    std.args.flags[0] = true;
    check_by_hand("std of equal values: 0, gradient 0", std, flat, 1, (double[]){0},
                  (double[]){0, 0, 0});
    check_second_order_finite("std of equal values", std, flat);
    tensor_release(flat);
    /* the column of the PyTorch cases where its Welford update loses digits
     * (reduce_cases.py): ag's two passes come within 2 ulp of the std of the
     * exact values, computed with Python's fractions:
     *   v = [F(x) for x in X]; m = sum(v) / 4; var = sum((x - m)**2 for x in v) / 3
     *   math.sqrt(var) = 0.0005767975748758793 (PyTorch: 0.00057679757487894175,
     *   1.3e7 ulp away) */
    Tensor *near = tensor_create(1, (int64_t[]){4}, (double[]){99.999141707790784, 100.0005,
                                 100.00002075037669, 100.00014300747179}, false);
    Tensor *sd = tensor_std_dims(near, NULL, 0, true, false);
    CHECK(fabs(tensor_values(sd)[0] - 0.0005767975748758793) <= 2 * 0x1p-52 * 0x1p-11,
          "std near 100: %.17g, exact 0.0005767975748758793", tensor_values(sd)[0]);
    tensor_release(sd), tensor_release(near);
    /* norm with p = 0 counts non-zeros; its gradient is 0 (PyTorch: None) */
    Tensor *z = tensor_create(1, (int64_t[]){4}, (double[]){0, -2, 0, 3}, true);
    OpCall norm0 = reduce_call("norm", -1, NULL, false);
    norm0.args.has_num[0] = true, norm0.args.num[0] = 0;
    check_by_hand("norm p=0 counts non-zeros", norm0, z, 1, (double[]){2}, (double[]){0, 0, 0, 0});
    OpCall norm2 = reduce_call("norm", -1, NULL, false);
    Tensor *zeros = tensor_zeros(SHAPE(3), true);
    check_by_hand("norm of zeros: 0, gradient 0", norm2, zeros, 1, (double[]){0},
                  (double[]){0, 0, 0});
    check_second_order_finite("norm of zeros", norm2, zeros);
    /* (not 1 < p < 2: |x|^(p-1) has an infinite derivative at x = 0) */
    static const double ps[] = {0.5, -1, 3, 4};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        OpCall normp = reduce_call("norm", -1, NULL, false);
        normp.args.has_num[0] = true, normp.args.num[0] = ps[i];
        char what[48];
        snprintf(what, sizeof what, "norm p=%g with a zero", ps[i]);
        check_second_order_finite(what, normp, z);
        snprintf(what, sizeof what, "norm p=%g of zeros", ps[i]);
        check_second_order_finite(what, normp, zeros);
    }
    tensor_release(zeros);
    tensor_release(z);
}

/* ======================================================================
 * Values and gradients at fixed inputs, against PyTorch
 * ====================================================================== */

/* Sums in another order differ in the last bits, relative to the terms
 * summed (O(1) here) rather than to the result, which may cancel: within
 * tol ulp of max(1, |want|) (16 but where the case says why); inf, nan and
 * equal values exactly. */
static bool agrees(double got, double want, double tol, int64_t *exact) {
    if (got == want || (isnan(got) && isnan(want))) {
        (*exact)++;
        return true;
    }
    if (isnan(got) || isnan(want) || isinf(got) || isinf(want)) return false;
    return fabs(got - want) <= tol * 0x1p-52 * fmax(1.0, fabs(want));
}

/* The case's call through the op table. */
static OpCall case_call(const ReduceCase *k) {
    OpCall c = reduce_call(k->op, k->ndims, k->dims, k->keepdim);
    const char *p = c.op->params;
    if (strcmp(p, "Tdbb") == 0) c.args.flags[0] = k->unbiased, c.args.flags[1] = k->keepdim;
    if (strcmp(p, "Tndb") == 0) c.args.num[0] = k->p, c.args.has_num[0] = true;
    if (strcmp(p, "Tib") == 0 || strcmp(p, "Ti") == 0 || strcmp(p, "Li") == 0)
        c.args.has_int[0] = k->has_dim, c.args.ints[0] = k->dim;
    if (strcmp(k->op, "flatten") == 0) {
        c.args.ints[0] = k->dims[0], c.args.ints[1] = k->dims[1];
        c.args.has_int[0] = c.args.has_int[1] = true;
    }
    if (strcmp(p, "TP") == 0) c.args.num_dims = k->ndims;
    c.args.list_len = k->num_inputs;
    return c;
}

static void test_torch_cases(void) {
    int64_t values = 0, exact = 0, failed = 0, base = live_tensors();
    for (size_t i = 0; i < sizeof reduce_cases / sizeof reduce_cases[0]; i++) {
        const ReduceCase *k = &reduce_cases[i];
        OpCall c = case_call(k);
        bool differentiable = c.op->rule != NULL;
        Tensor *in[3];
        for (int j = 0; j < k->num_inputs; j++) {
            const ReduceInput *r = &k->in[j];
            in[j] = tensor_create(r->ndim, r->shape, r->data, differentiable);
        }
        Tensor *y = build_call(in, &c);
        bool ok = y && ag_shape_equal(y->ndim, y->shape, k->out_ndim, k->out_shape);
        /* Exact cases (logsumexp's) are PyTorch's bits through SLEEF's exp
         * and log; where it does not load, libm's are within 16 ulps. */
        double tol = ag_vec_ready() ? k->tol : fmax(k->tol, 16);
        for (int64_t e = 0; ok && e < y->numel; e++, values++) ok = agrees(tensor_values(y)[e], k->out[e], tol, &exact);
        if (ok && differentiable) {
            Tensor *g = tensor_create(y->ndim, y->shape, k->g, false);
            ok = tensor_backward(y, g) == 0;
            tensor_release(g);
            for (int j = 0; ok && j < k->num_inputs; j++)
                for (int64_t e = 0; ok && e < in[j]->numel; e++, values++)
                    ok = in[j]->grad && agrees(tensor_values(in[j]->grad)[e], k->in[j].grad[e], tol, &exact);
        }
        if (!ok && failed++ < 10) {
            char s[AG_SHAPE_STR_MAX];
            CHECK(false, "PyTorch case %zu (%s, input %s, ndims %d, dim %lld, keepdim %d, p %g): "
                  "%s", i, k->op, ag_shape_str(k->in[0].ndim, k->in[0].shape, s, sizeof s),
                  k->ndims, (long long)k->dim, k->keepdim, k->p, y ? "values differ" : ag_error());
        }
        tensor_release(y);
        for (int j = 0; j < k->num_inputs; j++) tensor_release(in[j]);
    }
    ag_graph_free();
    CHECK(failed == 0, "%lld of %zu PyTorch cases differ", (long long)failed,
          sizeof reduce_cases / sizeof reduce_cases[0]);
    CHECK(live_tensors() == base, "the PyTorch cases leaked");
    if (getenv("AG_TEST_VERBOSE"))
        printf("reduce cases: %lld values, %lld equal to PyTorch's bit for bit\n",
               (long long)values, (long long)exact);
}

/* ======================================================================
 * Errors: a message naming what is wrong, nothing recorded, nothing leaked
 * ====================================================================== */

static void expect_error(const char *what, Tensor *r, const char *want, AgStats before) {
    AgStats after = ag_stats();
    CHECK(r == NULL, "%s: expected an error", what);
    CHECK(strstr(ag_error(), want) != NULL, "%s: message '%s' lacks '%s'", what, ag_error(), want);
    CHECK(after.arena_functions == before.arena_functions && after.live_tensors == before.live_tensors,
          "%s: left something behind", what);
    tensor_release(r);
    ag_clear_error();
}

#define EXPECT_NULL(call, want)                                  \
    do {                                                         \
        AgStats before_ = ag_stats();                            \
        expect_error(#call, (call), want, before_);              \
    } while (0)

static void test_reduce_errors(void) {
    Tensor *x = tensor_ones(SHAPE(2, 3), true), *e = tensor_zeros(SHAPE(0, 3), true);
    Tensor *s = tensor_scalar(2);
    int64_t d5[] = {5}, dup[] = {1, -1}, d02[] = {0, 2};
    EXPECT_NULL(tensor_sum_dims(x, d5, 1, false), "sum: axis 5 is out of range for 2 dimensions (expected -2 to 1)");
    EXPECT_NULL(tensor_mean_dims(x, d02, 2, true), "mean: axis 2 is out of range for 2 dimensions");
    EXPECT_NULL(tensor_var_dims(x, dup, 2, true, false), "var: dim 1 appears more than once");
    EXPECT_NULL(tensor_std_dims(NULL, NULL, 0, true, false), "std: argument is NULL");
    EXPECT_NULL(tensor_norm_dims(x, 2, d5, 1, false), "norm: axis 5");
    EXPECT_NULL(tensor_logsumexp_dims(x, dup, 2, false), "logsumexp: dim 1 appears more than once");
    EXPECT_NULL(tensor_sum_dims(s, (int64_t[]){1}, 1, false), "0-d tensor (expected -1 or 0)");
    EXPECT_NULL(tensor_sum_dims(s, (int64_t[]){0, -1}, 2, false), "dim 0 appears more than once");
    EXPECT_NULL(tensor_max_dim(x, -3, false), "max: axis -3 is out of range for 2 dimensions");
    EXPECT_NULL(tensor_min(e), "min: cannot take the minimum of an empty tensor");
    EXPECT_NULL(tensor_max_dim(e, 0, false), "max: cannot take the maximum over an empty dimension (dim 0 has size 0)");
    EXPECT_NULL(tensor_argmax(e), "argmax: cannot take the maximum of an empty tensor");
    EXPECT_NULL(tensor_argmin_dim(e, -2, true), "argmin: cannot take the minimum over an empty dimension");
    OpCall keep = {.op = ag_op_find("max")};
    keep.args.t[0] = x, keep.args.flags[0] = true;
    EXPECT_NULL(keep.op->call(&keep.args), "max: keepdim=True needs a dim");
    EXPECT_NULL(tensor_flatten(x, 1, 0), "flatten: start_dim 1 comes after end_dim 0");
    EXPECT_NULL(tensor_flatten(x, 2, -1), "flatten: axis 2 is out of range");
    EXPECT_NULL(tensor_squeeze_dim(x, 2), "squeeze: axis 2 is out of range for 2 dimensions");
    EXPECT_NULL(tensor_squeeze_dim(s, 1), "squeeze: axis 1 is out of range for a 0-d tensor");
    EXPECT_NULL(tensor_unsqueeze(x, 3), "unsqueeze: axis 3 is out of range for 3 dimensions (expected -3 to 2)");
    Tensor *big = tensor_zeros(8, (int64_t[]){1, 1, 1, 1, 1, 1, 1, 2}, false);
    EXPECT_NULL(tensor_unsqueeze(big, 0), "unsqueeze: tensors have at most 8 dimensions");
    EXPECT_NULL(tensor_permute(x, (int64_t[]){0}, 1), "permute: 1 dim given for a tensor of 2 dimensions (shape (2, 3))");
    EXPECT_NULL(tensor_permute(x, (int64_t[]){1, -1}, 2), "permute: dim 1 appears more than once");
    EXPECT_NULL(tensor_permute(x, (int64_t[]){0, 2}, 2), "permute: axis 2 is out of range");
    EXPECT_NULL(tensor_t(big), "t: expects a tensor of at most 2 dimensions, got (1, 1, 1, 1, 1, 1, 1, 2)");
    Tensor *y = tensor_ones(SHAPE(2, 2), false), *v = tensor_ones(SHAPE(3), false);
    EXPECT_NULL(tensor_cat((Tensor *[]){x, x, y}, 3, 0), "cat: tensors must have the same shape except in dim 0, got (2, 3) (item 1) and (2, 2) (item 3)");
    EXPECT_NULL(tensor_cat((Tensor *[]){x, v}, 2, -1), "cat: tensors must have the same shape except in dim 1, got (2, 3) (item 1) and (3,) (item 2)");
    EXPECT_NULL(tensor_cat((Tensor *[]){x, s}, 2, 0), "cat: item 2 is 0-d");
    EXPECT_NULL(tensor_cat((Tensor *[]){x}, 0, 0), "cat: needs at least one tensor");
    EXPECT_NULL(tensor_cat((Tensor *[]){x, x}, 2, 2), "cat: axis 2 is out of range for 2 dimensions");
    EXPECT_NULL(tensor_stack((Tensor *[]){x, y}, 2, 0), "stack: tensors must have the same shape, got (2, 3) (item 1) and (2, 2) (item 2)");
    Tensor *all[] = {x, e, s, big, y, v};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
}

/* The version 1 calls are the new ones with one dim and no keepdim. */
static void test_v1_calls(void) {
    Tensor *x = test_uniform(-1, 1, false, SHAPE(3, 4, 5));
    for (int axis = -3; axis < 3; axis++) {
        int64_t d = axis;
        Tensor *a[] = {tensor_sum_axis(x, axis), tensor_sum_dims(x, &d, 1, false),
                       tensor_mean_axis(x, axis), tensor_mean_dims(x, &d, 1, false),
                       tensor_max_axis(x, axis), tensor_max_dim(x, axis, false),
                       tensor_min_axis(x, axis), tensor_min_dim(x, axis, false)};
        for (int k = 0; k < 8; k += 2)
            CHECK(ag_shape_equal(a[k]->ndim, a[k]->shape, a[k + 1]->ndim, a[k + 1]->shape) &&
                      memcmp(tensor_values(a[k]), tensor_values(a[k + 1]), (size_t)a[k]->numel * sizeof(double)) == 0,
                  "axis %d: v1 call %d is the new one", axis, k / 2);
        for (int k = 0; k < 8; k++) tensor_release(a[k]);
    }
    Tensor *s = tensor_sum(x), *m = tensor_mean(x);
    CHECK(s->ndim == 0 && m->ndim == 0 && fabs(tensor_values(m)[0] - tensor_values(s)[0] / 60) < 1e-15, "sum, mean");
    tensor_release(s), tensor_release(m), tensor_release(x);
}

/* ======================================================================
 * prod: every dim of a few shapes, keepdim or not, and everything; values
 * in [0.5, 1.5) with mixed signs, and zeros (one, two, in one slice of
 * two, at the ends: the exclusive-product path; a product is linear in
 * each element, so central differences are exact there too)
 * ====================================================================== */

typedef struct {
    bool has_dim, keepdim;
    int dim;
} ProdArg;

static Tensor *build_prod(Tensor **in, const void *arg) {
    const ProdArg *p = arg;
    return p->has_dim ? tensor_prod_dim(in[0], p->dim, p->keepdim) : tensor_prod(in[0]);
}

static void test_fd_prod(void) {
    static const struct {
        int ndim;
        int64_t shape[3];
    } prod_shapes[] = {{0, {0}}, {1, {5}}, {2, {3, 4}}, {3, {2, 3, 4}}, {2, {1, 3}}, {1, {40}}};
    for (size_t s = 0; s < sizeof prod_shapes / sizeof prod_shapes[0]; s++) {
        int nd = prod_shapes[s].ndim;
        for (int d = nd ? -nd - 1 : -2; d < (nd ? nd : 1); d++) { /* d = -nd - 1: everything */
            Tensor *x = test_uniform(0.5, 1.5, true, nd, prod_shapes[s].shape);
            for (int64_t k = 0; k < x->numel; k += 3) tensor_values(x)[k] = -tensor_values(x)[k];
            ProdArg a = {d >= (nd ? -nd : -1), d % 2 != 0, d};
            char label[64];
            snprintf(label, sizeof label, "prod shape %zu dim %d%s", s, d,
                     a.has_dim ? (a.keepdim ? " keepdim" : "") : " (everything)");
            fd_check(label, build_prod, &a, &x, 1);
            tensor_release(x);
        }
    }
    static const double zeros[][6] = {
        {1.5, 0, -2, 0.5, 3, 1}, {0, 2, -1, 0.5, 1.25, 2}, {2, -0.5, 1.5, 3, 1, 0},
        {1.5, 0, 2, 0, -3, 1},   {0, 0, 2, 1, 3, 0.5},     {-1, 2, 0.5, 1.5, 0.75, 0},
    };
    for (size_t z = 0; z < sizeof zeros / sizeof zeros[0]; z++) {
        static const ProdArg args[] = {{false, false, 0}, {true, false, 0}, {true, false, 1},
                                       {true, true, -1}};
        int count = 0;
        for (int k = 0; k < 6; k++) count += zeros[z][k] == 0;
        for (size_t k = count > 1; k < sizeof args / sizeof args[0]; k++) { /* below */
            Tensor *x = k == 1 ? tensor_create(SHAPE(6), zeros[z], true)
                               : tensor_create(SHAPE(2, 3), zeros[z], true);
            char label[64];
            snprintf(label, sizeof label, "prod zeros %zu, form %zu", z, k);
            fd_check(label, build_prod, &args[k], &x, 1);
            tensor_release(x);
        }
    }
}

/* prod over everything with two zeros or more: a gradient of +0s, and (as
 * PyTorch's zeros_like there) a constant, so its own gradient is 0 where
 * the mathematics has products of the others: PyTorch's second order. */
static void test_prod_two_zeros(void) {
    Tensor *x = tensor_create(SHAPE(4), (double[]){1.5, 0, -3, 0}, true), *d = NULL;
    Tensor *p = tensor_prod(x);
    int rc = p ? ag_grad(1, &p, NULL, 1, &x, AG_CREATE_GRAPH, false, &d) : -1;
    bool zeros = rc == 0 && d && d->numel == 4;
    for (int k = 0; zeros && k < 4; k++) zeros = same_double(tensor_values(d)[k], 0.0);
    CHECK(zeros && !d->requires_grad, "prod with two zeros: +0 gradients, constant (%s)",
          rc == 0 ? "" : ag_error());
    tensor_release(d);
    tensor_release(p);
    tensor_release(x);
}

/* prod's values and types: in order (a short row: one product at a time),
 * int64 for integers and bools, 1 over no elements, and its errors. */
static void test_prod_values(void) {
    double v[5] = {1.5, -2, 0.25, 3, 1e300};
    Tensor *x = tensor_create(SHAPE(5), v, false), *p = tensor_prod(x);
    CHECK(p && p->ndim == 0 && same_double(tensor_values(p)[0], 1.5 * -2 * 0.25 * 3 * 1e300),
          "prod of 5: %g", p ? tensor_values(p)[0] : 0.0);
    Tensor *i = tensor_create(SHAPE(2, 2), (double[]){1, 2, 3, 4}, false);
    tensor_set_dtype(i, AG_INT32);
    Tensor *pi = tensor_prod_dim(i, 1, true);
    CHECK(pi && pi->dtype == AG_INT64 && pi->ndim == 2 && tensor_values(pi)[0] == 2 && tensor_values(pi)[1] == 12,
          "prod of int32 along 1, keepdim: int64 [[2], [12]]");
    Tensor *e = tensor_zeros(SHAPE(2, 0), false), *pe = tensor_prod_dim(e, 1, false);
    CHECK(pe && pe->numel == 2 && tensor_values(pe)[0] == 1 && tensor_values(pe)[1] == 1, "prod over no elements is 1");
    Tensor *bad = tensor_prod_dim(x, 1, false);
    CHECK(!bad && strstr(ag_error(), "range"), "prod along a dim x lacks: %s", ag_error());
    Tensor *all[] = {x, p, i, pi, e, pe};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) tensor_release(all[k]);
}

void test_reduce(void) {
    test_fd_prod();
    test_prod_two_zeros();
    test_prod_values();
    test_fd_reductions();
    test_fd_extremes();
    test_fd_shapes();
    test_fd_cat();
    test_ties();
    test_variance_edges();
    test_torch_cases();
    test_reduce_errors();
    test_v1_calls();
    ag_graph_free();
}
