/*
 * test_cumulative.c — cumsum and cumprod: gradients against finite
 * differences along every dim (and through fd_check, in float32), cumprod
 * at inputs with zeros (a product is linear in each element, so central
 * differences are exact there too), values summed in order, PyTorch's
 * dtypes (int64 for integral and bool inputs), the 0-d and empty edges,
 * and the errors. PyTorch's own values are tests/shell/python/cumsum.py's.
 */
#include "harness.h"

typedef Tensor *(*CumFn)(Tensor *x, int64_t dim);

typedef struct {
    CumFn fn;
    int64_t dim;
} CumArg;

static Tensor *build_cum(Tensor **in, const void *arg) {
    const CumArg *a = arg;
    return a->fn(in[0], a->dim);
}

static const struct {
    const char *name;
    CumFn fn;
} ops[] = {{"cumsum", tensor_cumsum}, {"cumprod", tensor_cumprod}};

/* Every dim of a few shapes, both signs; 0-d along 0 and -1. */
static void test_fd_dims(void) {
    static const struct {
        int ndim;
        int64_t shape[3];
    } shapes[] = {{0, {0}}, {1, {5}}, {2, {3, 4}}, {3, {2, 3, 4}}, {2, {1, 3}}};
    for (size_t o = 0; o < 2; o++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int nd = shapes[s].ndim, lo = nd ? -nd : -1, hi = nd ? nd : 1;
            for (int d = lo; d < hi; d++) {
                /* cumprod's: magnitudes in [0.5, 1.5), signs mixed (zeros: below) */
                Tensor *x = o == 0 ? test_uniform(-2, 2, true, nd, shapes[s].shape)
                                   : test_uniform(0.5, 1.5, true, nd, shapes[s].shape);
                for (int64_t k = 0; o == 1 && k < x->numel; k += 3) tensor_values(x)[k] = -tensor_values(x)[k];
                char label[64];
                snprintf(label, sizeof label, "%s shape %zu dim %d", ops[o].name, s, d);
                fd_check(label, build_cum, &(CumArg){ops[o].fn, d}, &x, 1);
                tensor_release(x);
            }
        }
}

/* cumprod's gradient where lanes hold zeros: one, two, at the ends. */
static void test_fd_zeros(void) {
    static const double lanes[][5] = {
        {1.5, 0, -2, 0.5, 3}, {0, 2, -1, 0.5, 1.25}, {2, -0.5, 1.5, 3, 0},
        {1.5, 0, 2, 0, -3},   {0, 0, 2, 1, 3},       {-1, 2, 0, 0.5, 0},
    };
    for (size_t l = 0; l < sizeof lanes / sizeof lanes[0]; l++) {
        Tensor *x = tensor_create(SHAPE(5), lanes[l], true);
        char label[48];
        snprintf(label, sizeof label, "cumprod zeros lane %zu", l);
        fd_check(label, build_cum, &(CumArg){tensor_cumprod, 0}, &x, 1);
        tensor_release(x);
    }
    /* (2, 5) along 1: one lane with a zero, one without */
    double two[10] = {1.5, 0, -2, 0.5, 3, 1, 2, 0.5, -1.5, 2};
    Tensor *x = tensor_create(SHAPE(2, 5), two, true);
    fd_check("cumprod zeros in one lane of two", build_cum, &(CumArg){tensor_cumprod, 1}, &x, 1);
    tensor_release(x);
}

/* The gradient ops made for create_graph (hidden): cumsum_backward along
 * every dim, cumprod_backward along every dim and at lanes with zeros, g
 * and x each requiring grad or not. */
static Tensor *build_cumsum_backward(Tensor **in, const void *arg) {
    return tensor_cumsum_backward(in[0], *(const int64_t *)arg);
}

static Tensor *build_cumprod_backward(Tensor **in, const void *arg) {
    return tensor_cumprod_backward(in[0], in[1], *(const int64_t *)arg);
}

static void check_cumprod_backward(const char *label, Tensor *x, int64_t dim) {
    for (int mask = 1; mask <= 3; mask++) {
        Tensor *in[2] = {test_uniform(-1.5, 1.5, mask & 1, x->ndim, x->shape), tensor_copy(x)};
        tensor_set_requires_grad(in[1], mask & 2);
        char full[96];
        snprintf(full, sizeof full, "%s mask %d", label, mask);
        fd_check(full, build_cumprod_backward, &dim, in, 2);
        tensor_release(in[0]);
        tensor_release(in[1]);
    }
}

static void test_fd_gradient_ops(void) {
    static const struct {
        int ndim;
        int64_t shape[3];
    } shapes[] = {{0, {0}}, {1, {5}}, {2, {3, 4}}, {3, {2, 3, 2}}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int nd = shapes[s].ndim;
        for (int64_t d = nd ? -nd : -1; d < (nd ? nd : 1); d++) {
            char label[64];
            Tensor *g = test_uniform(-2, 2, true, nd, shapes[s].shape);
            snprintf(label, sizeof label, "cumsum_backward shape %zu dim %d", s, (int)d);
            fd_check(label, build_cumsum_backward, &d, &g, 1);
            tensor_release(g);
            Tensor *x = test_uniform(0.5, 1.5, false, nd, shapes[s].shape);
            for (int64_t k = 0; k < x->numel; k += 3) tensor_values(x)[k] = -tensor_values(x)[k];
            snprintf(label, sizeof label, "cumprod_backward shape %zu dim %d", s, (int)d);
            check_cumprod_backward(label, x, d);
            tensor_release(x);
        }
    }
    static const double lanes[][5] = {{1.5, 0, -2, 0.5, 3}, {1.5, 0, 2, 0, -3}, {0, 0, 2, 1, 3}};
    for (size_t l = 0; l < sizeof lanes / sizeof lanes[0]; l++) {
        Tensor *x = tensor_create(SHAPE(5), lanes[l], false);
        char label[64];
        snprintf(label, sizeof label, "cumprod_backward zeros lane %zu", l);
        check_cumprod_backward(label, x, 0);
        tensor_release(x);
    }
}

/* Values: each lane in order from 0 (cumsum) or 1 (cumprod), bit for bit. */
static void test_values(void) {
    double v[6] = {0.1, 0.2, 0.3, 1e16, 1, -1e16};
    Tensor *x = tensor_create(SHAPE(6), v, false), *s = tensor_cumsum(x, 0);
    double acc = 0.0;
    bool ok = s != NULL;
    for (int k = 0; ok && k < 6; k++) ok = same_double(tensor_values(s)[k], acc += v[k]);
    CHECK(ok, "cumsum adds in order");
    Tensor *p = tensor_cumprod(x, -1);
    acc = 1.0;
    ok = p != NULL;
    for (int k = 0; ok && k < 6; k++) ok = same_double(tensor_values(p)[k], acc *= v[k]);
    CHECK(ok, "cumprod multiplies in order");
    Tensor *m = tensor_create(SHAPE(2, 3), (double[]){1, 2, 3, 4, 5, 6}, false);
    Tensor *r0 = tensor_cumsum(m, 0), *r1 = tensor_cumprod(m, 1);
    static const double want0[] = {1, 2, 3, 5, 7, 9}, want1[] = {1, 2, 6, 4, 20, 120};
    CHECK(r0 && r1 && memcmp(tensor_values(r0), want0, sizeof want0) == 0 &&
              memcmp(tensor_values(r1), want1, sizeof want1) == 0,
          "cumsum along 0 and cumprod along 1 of a (2, 3)");
    Tensor *all[] = {x, s, p, m, r0, r1};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
}

/* PyTorch's dtypes: integral and bool inputs give int64, floats their own. */
static void test_dtypes(void) {
    static const AgDtype from[] = {AG_FLOAT64, AG_FLOAT32, AG_INT64, AG_INT32, AG_BOOL};
    static const AgDtype want[] = {AG_FLOAT64, AG_FLOAT32, AG_INT64, AG_INT64, AG_INT64};
    for (int d = 0; d < 5; d++)
        for (size_t o = 0; o < 2; o++) {
            Tensor *x = tensor_create(SHAPE(3), (double[]){1, 1, 0}, false);
            tensor_set_dtype(x, from[d]);
            Tensor *y = ops[o].fn(x, 0);
            CHECK(y && y->dtype == want[d], "%s of %s is %s", ops[o].name, ag_dtype_name(from[d]),
                  ag_dtype_name(want[d]));
            tensor_release(x), tensor_release(y);
        }
    /* float32: a running sum in double, each result rounded once */
    Tensor *x = tensor_create(SHAPE(3), (double[]){0.1, 0.2, 0.3}, false);
    tensor_set_dtype(x, AG_FLOAT32);
    Tensor *y = tensor_cumsum(x, 0);
    double acc = 0.0;
    bool ok = y != NULL;
    for (int k = 0; ok && k < 3; k++) ok = tensor_values(y)[k] == (double)(float)(acc += tensor_values(x)[k]);
    CHECK(ok, "float32 cumsum: float64's running sum, rounded");
    tensor_release(x), tensor_release(y);
}

/* 0-d: itself (-0 stays -0), its gradient g; empty: empty. */
static void test_edges(void) {
    Tensor *z = tensor_create(0, NULL, (double[]){-0.0}, true);
    for (size_t o = 0; o < 2; o++) {
        Tensor *y = ops[o].fn(z, -1);
        CHECK(y && y->ndim == 0 && same_double(tensor_values(y)[0], -0.0), "%s of a 0-d -0. is -0.",
              ops[o].name);
        tensor_zero_grad(z);
        CHECK(y && backward(y) == 0 && z->grad && tensor_values(z->grad)[0] == 1.0,
              "%s of a 0-d: gradient 1", ops[o].name);
        tensor_release(y);
    }
    Tensor *e = tensor_zeros(SHAPE(0, 3), true);
    for (size_t o = 0; o < 2; o++) {
        Tensor *y = ops[o].fn(e, 0);
        CHECK(y && y->numel == 0 && y->ndim == 2 && y->shape[1] == 3, "%s of (0, 3) is (0, 3)",
              ops[o].name);
        tensor_release(y);
    }
    tensor_release(z), tensor_release(e);
}

static void test_cum_errors(void) {
    Tensor *x = tensor_ones(SHAPE(2, 3), false), *s = tensor_scalar(1);
    Tensor *y = tensor_cumsum(x, 2);
    CHECK(!y && strstr(ag_error(), "cumsum: axis 2 is out of range for 2 dimensions"), "%s",
          ag_error());
    y = tensor_cumprod(s, 1);
    CHECK(!y && strstr(ag_error(), "cumprod: axis 1 is out of range for a 0-d tensor"), "%s",
          ag_error());
    y = tensor_cumsum(NULL, 0);
    CHECK(!y && strstr(ag_error(), "cumsum: argument is NULL"), "%s", ag_error());
    tensor_release(x), tensor_release(s);
}

void test_cumulative(void) {
    test_fd_dims();
    test_fd_zeros();
    test_fd_gradient_ops();
    test_values();
    test_dtypes();
    test_edges();
    test_cum_errors();
    ag_graph_free();
}
