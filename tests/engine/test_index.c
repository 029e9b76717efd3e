/*
 * test_index.c — tensor_index and tensor_index_put (x[...] and x[...] = v):
 * every kind of item against values computed here from the definition
 * (x[i, j, k] of a known x), gradients against central finite differences
 * (repeated indices included: their gradients add), and the errors.
 * The shell's tests/shell/indexing.ag checks the same forms against
 * PyTorch's printed results.
 */
#include "harness.h"

/* x = arange(24) in shape (2, 3, 4): x[i, j, k] = 12 i + 4 j + k. */
static Tensor *arange24(bool requires_grad) {
    double v[24];
    for (int i = 0; i < 24; i++) v[i] = i;
    return tensor_create(3, (int64_t[]){2, 3, 4}, v, requires_grad);
}

static double at3(int i, int j, int k) { return 12.0 * i + 4.0 * j + k; }

#define INT(i) ((AgIndex){.kind = AG_INDEX_INT, .index = (i)})
#define ALL ((AgIndex){.kind = AG_INDEX_SLICE, .step = 1})
#define SLICE(a, b, s) \
    ((AgIndex){.kind = AG_INDEX_SLICE, .start = (a), .stop = (b), .step = (s), .has_start = true, .has_stop = true})
#define STEP(s) ((AgIndex){.kind = AG_INDEX_SLICE, .step = (s)})
#define NEWAXIS ((AgIndex){.kind = AG_INDEX_NEWAXIS})
#define TENSOR(t) ((AgIndex){.kind = AG_INDEX_TENSOR, .tensor = (t)})
#define MASK(t) ((AgIndex){.kind = AG_INDEX_MASK, .tensor = (t)})

static Tensor *vec(int n, const double *v) { return tensor_create(1, (int64_t[]){n}, v, false); }

/* r has the shape given and r[k] = want[k]. */
static void expect(const char *what, Tensor *r, int ndim, const int64_t *shape, const double *want) {
    bool ok = CHECK(r != NULL, "%s: %s", what, ag_error()) &&
              CHECK(ag_shape_equal(r->ndim, r->shape, ndim, shape), "%s: shape", what);
    for (int64_t k = 0; ok && k < r->numel; k++)
        ok = CHECK(tensor_values(r)[k] == want[k], "%s: element %lld is %g, expected %g", what,
                   (long long)k, tensor_values(r)[k], want[k]);
    tensor_release(r);
}

static void test_basic(Tensor *x) {
    double w[24];
    /* x[1, :, ::2] -> (3, 2) */
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 2; k++) w[j * 2 + k] = at3(1, j, 2 * k);
    expect("x[1, :, ::2]", tensor_index(x, (AgIndex[]){INT(1), ALL, STEP(2)}, 3), 2,
           (int64_t[]){3, 2}, w);
    /* x[-1, -1] -> (4,) */
    for (int k = 0; k < 4; k++) w[k] = at3(1, 2, k);
    expect("x[-1, -1]", tensor_index(x, (AgIndex[]){INT(-1), INT(-1)}, 2), 1, (int64_t[]){4}, w);
    /* x[:, 2:0:-1, 3] -> (2, 2): rows 2 then 1 */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) w[i * 2 + j] = at3(i, 2 - j, 3);
    expect("x[:, 2:0:-1, 3]", tensor_index(x, (AgIndex[]){ALL, SLICE(2, 0, -1), INT(3)}, 3), 2,
           (int64_t[]){2, 2}, w);
    /* x[0, None, 1:3, -2] -> (1, 2) */
    w[0] = at3(0, 1, 2), w[1] = at3(0, 2, 2);
    expect("x[0, None, 1:3, -2]",
           tensor_index(x, (AgIndex[]){INT(0), NEWAXIS, SLICE(1, 3, 1), INT(-2)}, 4), 2,
           (int64_t[]){1, 2}, w);
    /* clamped slices: x[0, 5:, 0] is empty, x[0, -10:10, 0] all three */
    expect("x[0, 5:, 0]", tensor_index(x, (AgIndex[]){INT(0), SLICE(5, 99, 1), INT(0)}, 3), 1,
           (int64_t[]){0}, w);
    w[0] = at3(0, 0, 0), w[1] = at3(0, 1, 0), w[2] = at3(0, 2, 0);
    expect("x[0, -10:10, 0]", tensor_index(x, (AgIndex[]){INT(0), SLICE(-10, 10, 1), INT(0)}, 3),
           1, (int64_t[]){3}, w);
    /* x[1, 1, 1] -> 0-d */
    w[0] = at3(1, 1, 1);
    expect("x[1, 1, 1]", tensor_index(x, (AgIndex[]){INT(1), INT(1), INT(1)}, 3), 0, NULL, w);
}

static void test_advanced(Tensor *x) {
    double w[24];
    Tensor *i01 = vec(2, (double[]){1, 0}), *i30 = vec(2, (double[]){3, 0});
    Tensor *rep = vec(3, (double[]){2, 2, -3});
    /* adjacent: x[:, [1, 0], [3, 0]] -> (2, 2): r[a, b] = x[a, i01[b], i30[b]] */
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) w[a * 2 + b] = at3(a, b ? 0 : 1, b ? 0 : 3);
    expect("x[:, [1, 0], [3, 0]]", tensor_index(x, (AgIndex[]){ALL, TENSOR(i01), TENSOR(i30)}, 3),
           2, (int64_t[]){2, 2}, w);
    /* not adjacent: x[[1, 0], :, [3, 0]] -> (2, 3): the block first */
    for (int b = 0; b < 2; b++)
        for (int j = 0; j < 3; j++) w[b * 3 + j] = at3(b ? 0 : 1, j, b ? 0 : 3);
    expect("x[[1, 0], :, [3, 0]]", tensor_index(x, (AgIndex[]){TENSOR(i01), ALL, TENSOR(i30)}, 3),
           2, (int64_t[]){2, 3}, w);
    /* an integer is a select applied first (PyTorch; NumPy would put the
     * block first): x[1, :, [2, 2, -3]] -> (3, 3), r[j, b] = x[1, j, rep[b]] */
    for (int j = 0; j < 3; j++)
        for (int b = 0; b < 3; b++) w[j * 3 + b] = at3(1, j, b < 2 ? 2 : 1);
    expect("x[1, :, [2, 2, -3]]", tensor_index(x, (AgIndex[]){INT(1), ALL, TENSOR(rep)}, 3), 2,
           (int64_t[]){3, 3}, w);
    /* broadcasting index tensors: x[[[1], [0]], 2, [0, 3]] -> (2, 2) */
    Tensor *col = tensor_create(2, (int64_t[]){2, 1}, (double[]){1, 0}, false);
    Tensor *row = vec(2, (double[]){0, 3});
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) w[a * 2 + b] = at3(a ? 0 : 1, 2, b ? 3 : 0);
    expect("x[[[1], [0]], 2, [0, 3]]", tensor_index(x, (AgIndex[]){TENSOR(col), INT(2), TENSOR(row)}, 3),
           2, (int64_t[]){2, 2}, w);
    tensor_release(i01), tensor_release(i30), tensor_release(rep), tensor_release(col),
        tensor_release(row);
}

static void test_masks(Tensor *x) {
    double w[24], m[12];
    int n = 0;
    /* a (2, 3) mask over the first two axes: the rows (j) where 12 i + 4 j >= 8 */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) m[i * 3 + j] = 12 * i + 4 * j >= 8;
    Tensor *mask = tensor_create(2, (int64_t[]){2, 3}, m, false);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            if (m[i * 3 + j])
                for (int k = 0; k < 4; k++) w[n++] = at3(i, j, k);
    expect("x[mask (2, 3)]", tensor_index(x, (AgIndex[]){MASK(mask)}, 1), 2, (int64_t[]){4, 4}, w);
    /* a (4,) mask on the last axis after an integer and a slice */
    Tensor *last = vec(4, (double[]){0, 1, 0, 1});
    n = 0;
    for (int j = 0; j < 3; j++) w[n++] = at3(1, j, 1), w[n++] = at3(1, j, 3);
    expect("x[1, :, mask (4,)]", tensor_index(x, (AgIndex[]){INT(1), ALL, MASK(last)}, 3), 2,
           (int64_t[]){3, 2}, w);
    tensor_release(mask);
    tensor_release(last);
}

/* ---- gradients ---- */

typedef struct {
    AgIndex items[4];
    int n;
} IndexArg;

static Tensor *build_index(Tensor **in, const void *arg) {
    const IndexArg *a = arg;
    return tensor_index(in[0], a->items, a->n);
}

static void test_gradients(void) {
    Tensor *rep = vec(4, (double[]){2, 0, 2, 2}), *pair = vec(2, (double[]){1, 1});
    Tensor *mask = vec(3, (double[]){1, 0, 1});
    const IndexArg cases[] = {
        {{INT(1)}, 1},
        {{ALL, STEP(2)}, 2},
        {{SLICE(2, -4, -1), NEWAXIS, INT(-1)}, 3},
        {{TENSOR(rep)}, 1},                       /* row 2 three times */
        {{ALL, TENSOR(pair), ALL}, 3},            /* column 1 twice */
        {{TENSOR(pair), INT(0), TENSOR(rep)}, 3}, /* broadcast (2,) with (4,): an error */
        {{MASK(mask), SLICE(1, 3, 1)}, 2},
        {{TENSOR(rep), ALL, TENSOR(rep)}, 3},     /* not adjacent, repeated */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Tensor *x = test_uniform(-1, 1, true, SHAPE(3, 2, 4));
        char name[40];
        snprintf(name, sizeof name, "index case %zu", c);
        if (c == 5) { /* (2,) and (4,) do not broadcast */
            CHECK(tensor_index(x, cases[c].items, cases[c].n) == NULL &&
                      strstr(ag_error(), "cannot broadcast together: (2,) and (4,)"),
                  "%s: %s", name, ag_error());
        } else {
            fd_check(name, build_index, &cases[c], &x, 1);
        }
        tensor_release(x);
    }
    /* repeated indices add: sum(x[[2, 0, 2, 2]]) gives 3 to each element of row 2 */
    Tensor *x = tensor_zeros(SHAPE(3, 2), true);
    Tensor *y = tensor_index(x, (AgIndex[]){TENSOR(rep)}, 1), *loss = tensor_sum(y);
    CHECK(y && strcmp(y->op_name, "IndexBackward") == 0, "the name of x[tensor]");
    CHECK(backward(loss) == 0 && tensor_values(x->grad)[4] == 3 && tensor_values(x->grad)[0] == 1 &&
              tensor_values(x->grad)[2] == 0,
          "repeated rows add their gradients");
    tensor_release(y), tensor_release(loss), tensor_release(x);
    tensor_release(rep), tensor_release(pair), tensor_release(mask);
}

/* index_scatter, index's gradient as an op: g put at offsets of zeros,
 * added (twice put, twice added) or copied; its own gradient gathers. */
typedef struct {
    const int64_t *off;
    bool accumulate;
} ScatterArg;

static Tensor *build_scatter(Tensor **in, const void *arg) {
    const ScatterArg *a = arg;
    return ag_index_scatter(in[0], a->off, a->accumulate, SHAPE(2, 4));
}

/* x[items] squared: its gradient depends on x, so the create_graph pass
 * differentiates index_scatter (and select's) again. */
static Tensor *build_index_squared(Tensor **in, const void *arg) {
    Tensor *y = build_index(in, arg), *r = tensor_mul(y, y);
    tensor_release(y);
    return r;
}

static void test_scatter(void) {
    static const int64_t repeated[] = {4, 0, 4, 7, 2, 4}, distinct[] = {4, 0, 5, 7, 2, 1};
    const ScatterArg add = {repeated, true}, copy = {distinct, false};
    Tensor *g = test_uniform(-1, 1, true, SHAPE(2, 3));
    fd_check("index_scatter, added", build_scatter, &add, &g, 1);
    fd_check("index_scatter, copied", build_scatter, &copy, &g, 1);
    Tensor *r = ag_index_scatter(g, repeated, true, SHAPE(2, 4));
    CHECK(r && tensor_values(r)[4] == tensor_values(g)[0] + tensor_values(g)[2] + tensor_values(g)[5] && tensor_values(r)[3] == 0 &&
              strcmp(r->op_name, "IndexPutBackward") == 0,
          "index_scatter adds at a repeated offset, and leaves zeros elsewhere");
    tensor_release(r);
    tensor_release(g);
    Tensor *rep = vec(4, (double[]){2, 0, 2, 2});
    const IndexArg rows = {{TENSOR(rep)}, 1}, one = {{ALL, INT(1)}, 2};
    Tensor *x = test_uniform(-1, 1, true, SHAPE(3, 2, 4));
    fd_check("x[[2, 0, 2, 2]]^2", build_index_squared, &rows, &x, 1);
    fd_check("x[:, 1]^2", build_index_squared, &one, &x, 1);
    tensor_release(x);
    tensor_release(rep);
}

/* PyTorch's names: the last basic step's, IndexBackward with tensors. */
static void test_names(void) {
    Tensor *x = tensor_zeros(SHAPE(3, 2), true), *t = vec(1, (double[]){0});
    struct {
        AgIndex items[2];
        int n;
        const char *name;
    } cases[] = {
        {{INT(0)}, 1, "SelectBackward"},         {{SLICE(1, 3, 1), INT(0)}, 2, "SelectBackward"},
        {{INT(0), SLICE(0, 1, 1)}, 2, "SliceBackward"}, {{INT(0), NEWAXIS}, 2, "UnsqueezeBackward"},
        {{ALL, TENSOR(t)}, 2, "IndexBackward"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Tensor *r = tensor_index(x, cases[c].items, cases[c].n);
        CHECK(r && strcmp(r->op_name, cases[c].name) == 0, "case %zu: %s", c,
              r ? r->op_name : ag_error());
        tensor_release(r);
    }
    ag_graph_free();
    tensor_release(x), tensor_release(t);
}

static void test_index_put(void) {
    Tensor *x = arange24(false), *v = vec(2, (double[]){-1, -2});
    Tensor *i = vec(3, (double[]){0, 3, 0});
    /* x[1, :, [0, 3, 0]] = [[-1], [-2], ...]: broadcast (2,)? no: (3, 3) block first */
    Tensor *r = tensor_index_put(x, (AgIndex[]){INT(1), INT(2), SLICE(0, 4, 2)}, 3, v);
    CHECK(r && tensor_values(r)[20] == -1 && tensor_values(r)[22] == -2 && tensor_values(r)[21] == 21 && tensor_values(x)[20] == 20 &&
              !r->requires_grad,
          "x[1, 2, 0:4:2] = [-1, -2] in a copy");
    tensor_release(r);
    Tensor *three = vec(3, (double[]){7, 8, 9});
    r = tensor_index_put(x, (AgIndex[]){INT(0), INT(0), TENSOR(i)}, 3, three);
    CHECK(r && tensor_values(r)[0] == 9 && tensor_values(r)[3] == 8, "a repeated index keeps the last write");
    tensor_release(r);
    r = tensor_index_put(x, (AgIndex[]){INT(0)}, 1, three);
    CHECK(!r && strstr(ag_error(), "a value of shape (3,) cannot be broadcast to the indexed "
                                   "elements' shape (3, 4)"),
          "%s", ag_error());
    tensor_release(x), tensor_release(v), tensor_release(i), tensor_release(three);
}

/* Contiguous basic indexing of a tensor not being differentiated is a view
 * (PyTorch's): it shares x's elements and version; anything else copies. */
static void test_index_views(void) {
    Tensor *x = arange24(false), *w = arange24(true), *seven = tensor_scalar(7);
    Tensor *row = tensor_index(x, (AgIndex[]){INT(1), INT(2)}, 2);
    Tensor *rows = tensor_index(x, (AgIndex[]){SLICE(0, 1, 1), SLICE(1, 3, 1)}, 2);
    Tensor *col = tensor_index(x, (AgIndex[]){ALL, ALL, INT(0)}, 3);
    Tensor *of_w = tensor_index(w, (AgIndex[]){INT(1)}, 1);
    CHECK(row && row->base == x && tensor_values(row) == tensor_values(x) + 20 && row->numel == 4,
          "x[1, 2] is a view of x's elements 20..23");
    CHECK(rows && rows->base == x && tensor_values(rows) == tensor_values(x) + 4 && rows->numel == 8,
          "x[0:1, 1:3] is a view of x's elements 4..11");
    CHECK(col && !col->base && tensor_values(col)[1] == 4, "x[:, :, 0] is a copy");
    CHECK(of_w && !of_w->base && of_w->grad_fn, "w[1] of a w that requires grad: a copy, recorded");
    uint32_t before = x->version;
    CHECK(row && tensor_assign(row, seven) == 0 && tensor_values(x)[21] == 7 && x->version == before + 1,
          "a write through the view writes x and moves x's version");
    Tensor *again = tensor_index_copy(x, (AgIndex[]){INT(1), INT(2)}, 2);
    CHECK(again && !again->base && tensor_values(again)[0] == 7, "tensor_index_copy copies");
    bool was = ag_set_grad_enabled(false);
    Tensor *quiet = tensor_index(w, (AgIndex[]){INT(0)}, 1);
    ag_set_grad_enabled(was);
    CHECK(quiet && quiet->base == w && !quiet->requires_grad, "under no_grad, w[0] is a view");
    /* copies where PyTorch has views: writing one is refused while the
     * tensor it came from is held elsewhere, allowed once it is not */
    Tensor *x0 = tensor_index(x, (AgIndex[]){INT(0)}, 1), *xt = tensor_t(x0);
    CHECK(xt && xt->copy_of == x, "x[0].t() is marked as a copy of x (x[0]'s base)");
    CHECK(col && col->copy_of == x, "x[:, :, 0] is marked as a copy of x");
    CHECK(col && tensor_assign(col, seven) != 0 && strstr(ag_error(), "are copies where "
                                                                     "PyTorch's are views"),
          "a write into x[:, :, 0] is refused while x is held: %s", ag_error());
    CHECK(of_w && tensor_write(of_w, (double[8]){0}) != 0, "so is tensor_write into w[1]'s copy");
    tensor_release(quiet), tensor_release(again), tensor_release(row), tensor_release(rows);
    tensor_release(of_w), tensor_release(xt), tensor_release(x0);
    tensor_release(x), tensor_release(w);
    CHECK(col && tensor_assign(col, seven) == 0 && tensor_values(col)[5] == 7,
          "once only the copy holds x, the write goes ahead");
    tensor_release(col), tensor_release(seven);
    ag_graph_free();
}

/* index_put recorded: x with v written at x[items], squared so that the
 * create_graph pass has a second derivative to check. */
typedef struct {
    AgIndex items[3];
    int n;
} PutArg;

static Tensor *build_put_squared(Tensor **in, const void *arg) {
    const PutArg *a = arg;
    Tensor *y = tensor_index_put(in[0], a->items, a->n, in[1]), *r = tensor_mul(y, y);
    tensor_release(y);
    return r;
}

static void test_index_put_gradients(void) {
    Tensor *two = vec(2, (double[]){2, 0}), *mask = vec(3, (double[]){1, 0, 1});
    const PutArg cases[] = {
        {{INT(1)}, 1},                 /* v (2, 4) */
        {{ALL, INT(0)}, 2},            /* v (4,) broadcast to (3, 4) */
        {{INT(0), INT(1)}, 2},         /* v (1, 4): its leading 1 dropped */
        {{TENSOR(two), ALL, SLICE(1, 4, 2)}, 3}, /* v (2, 2, 2) */
        {{MASK(mask)}, 1},             /* v (2, 4) into rows 0 and 2 */
    };
    const int64_t vshapes[][4] = {{2, 2, 4}, {1, 4}, {2, 1, 4}, {3, 2, 2, 2}, {2, 2, 4}}; /* ndim, shape */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Tensor *in[2] = {test_uniform(-1, 1, true, SHAPE(3, 2, 4)),
                         test_uniform(-1, 1, true, (int)vshapes[c][0], vshapes[c] + 1)};
        char name[40];
        snprintf(name, sizeof name, "index_put case %zu", c);
        fd_check(name, build_put_squared, &cases[c], in, 2);
        tensor_release(in[0]), tensor_release(in[1]);
    }
    tensor_release(two), tensor_release(mask);
}

/* PyTorch's names, and its rule for an element written twice: the last
 * write stays, and each write's value gets the element's gradient
 * (index_put's backward gathers; finite differences would see only the
 * last, so this is checked by value). */
static void test_index_put_recorded(void) {
    Tensor *x = test_uniform(-1, 1, true, SHAPE(3, 2)), *v = tensor_zeros(SHAPE(2, 2), true);
    Tensor *rep = vec(2, (double[]){1, 1});
    Tensor *y = tensor_index_put(x, (AgIndex[]){TENSOR(rep)}, 1, v);
    Tensor *row = tensor_zeros(SHAPE(2), true);
    Tensor *z = tensor_index_put(x, (AgIndex[]){INT(0)}, 1, row);
    CHECK(y && strcmp(y->op_name, "IndexPutBackward") == 0 && z &&
              strcmp(z->op_name, "CopySlices") == 0, "names: %s", ag_error());
    Tensor *loss = y ? tensor_sum(y) : NULL;
    CHECK(loss && backward(loss) == 0, "backward: %s", ag_error());
    CHECK(v->grad && tensor_values(v->grad)[0] == 1 && tensor_values(v->grad)[3] == 1 && x->grad &&
              tensor_values(x->grad)[2] == 0 && tensor_values(x->grad)[3] == 0 && tensor_values(x->grad)[4] == 1,
          "a row written twice: each write's value gets the gradient, x none there");
    Tensor *c = tensor_zeros(SHAPE(3, 2), false), *k = tensor_zeros(SHAPE(2), false);
    Tensor *constant = tensor_index_put(c, (AgIndex[]){INT(0)}, 1, k);
    CHECK(constant && !constant->requires_grad && !constant->grad_fn, "constants: a constant");
    tensor_release(constant), tensor_release(c), tensor_release(k);
    tensor_release(loss), tensor_release(y), tensor_release(z);
    tensor_release(x), tensor_release(v), tensor_release(rep), tensor_release(row);
    ag_graph_free();
}

static void test_errors_index(void) {
    Tensor *x = arange24(false), *frac = vec(1, (double[]){0.5}), *far = vec(2, (double[]){0, 7});
    Tensor *m = vec(2, (double[]){1, 0}), *s = tensor_scalar(1);
    struct {
        AgIndex items[4];
        int n;
        const char *message;
    } cases[] = {
        {{INT(2)}, 1, "index 2 is out of range for dimension 0 of size 2"},
        {{INT(0), INT(-4)}, 2, "index -4 is out of range for dimension 1 of size 3"},
        {{ALL, ALL, TENSOR(far)}, 3, "index 7 is out of range for dimension 2 of size 4"},
        {{TENSOR(frac)}, 1, "must hold integers, not 0.5"},
        {{INT(0), INT(0), INT(0), INT(0)}, 4, "too many indices: 4 for a tensor of 3 dimensions"},
        {{ALL, MASK(m)}, 2, "the mask's shape (2,) does not match the indexed dimensions (3,)"},
        {{STEP(0)}, 1, "a slice step cannot be zero"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        CHECK(tensor_index(x, cases[c].items, cases[c].n) == NULL &&
                  strstr(ag_error(), cases[c].message),
              "error case %zu: %s", c, ag_error());
    CHECK(tensor_index(s, (AgIndex[]){INT(0)}, 1) == NULL &&
              strstr(ag_error(), "a 0-d tensor cannot be indexed"), "0-d: %s", ag_error());
    Tensor *r = tensor_index(s, (AgIndex[]){NEWAXIS}, 1);
    CHECK(r && r->ndim == 1 && tensor_values(r)[0] == 1, "a 0-d tensor takes None");
    tensor_release(r);
    tensor_release(x), tensor_release(frac), tensor_release(far), tensor_release(m),
        tensor_release(s);
}

/* The softmax-regression step written with indexing,
 * -mean(log_softmax(z)[arange(N), y]), gives cross_entropy's value and
 * gradient. */
static void test_cross_entropy_by_index(void) {
    Tensor *z = test_uniform(-3, 3, true, SHAPE(5, 4));
    Tensor *y = vec(5, (double[]){3, 0, 0, 2, 1}), *rows = vec(5, (double[]){0, 1, 2, 3, 4});
    Tensor *ls = tensor_log_softmax(z, 1);
    Tensor *picked = tensor_index(ls, (AgIndex[]){TENSOR(rows), TENSOR(y)}, 2);
    Tensor *m = tensor_mean(picked), *by_index = tensor_neg(m);
    double value = tensor_values(by_index)[0];
    CHECK(backward(by_index) == 0, "backward: %s", ag_error());
    Tensor *g_index = tensor_copy(z->grad);
    tensor_zero_grad(z);
    Tensor *ce = tensor_cross_entropy(z, y);
    CHECK(fabs(tensor_values(ce)[0] - value) <= 1e-15 * fabs(value), "value %.17g vs %.17g", value,
          tensor_values(ce)[0]);
    CHECK(backward(ce) == 0, "backward: %s", ag_error());
    for (int64_t k = 0; k < 20; k++)
        CHECK(fabs(tensor_values(z->grad)[k] - tensor_values(g_index)[k]) <= 1e-16 + 1e-14 * fabs(tensor_values(g_index)[k]),
              "gradient %lld: %.17g vs %.17g", (long long)k, tensor_values(z->grad)[k], tensor_values(g_index)[k]);
    tensor_release(z), tensor_release(y), tensor_release(rows), tensor_release(ls),
        tensor_release(picked), tensor_release(m), tensor_release(by_index),
        tensor_release(g_index), tensor_release(ce);
}

void test_index(void) {
    Tensor *x = arange24(false);
    test_basic(x);
    test_advanced(x);
    test_masks(x);
    tensor_release(x);
    test_gradients();
    test_scatter();
    test_names();
    test_index_put();
    test_index_put_gradients();
    test_index_views();
    test_index_put_recorded();
    test_errors_index();
    test_cross_entropy_by_index();
    ag_graph_free();
}
