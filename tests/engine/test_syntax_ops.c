/*
 * test_syntax_ops.c — the ops the shell's version-2 syntax stands on:
 * comparisons (a < b), floor division (//), remainder (%), select (x[i],
 * for row in X) and stack ([x, 2*x]). Values against PyTorch, gradients
 * against central finite differences.
 */
#include "harness.h"

/* Inputs and PyTorch's results, from
 *   /usr/bin/python3 -c "import torch; a = torch.tensor([7., -7., 7., -7., 5.5, -0.0, 1., 0.,
 *     float('inf'), float('nan'), 3., -3.]); b = torch.tensor([2., 2., -2., -2., 1.5, 3., 0.,
 *     0., 2., 1., float('inf'), float('inf')]); print(torch.floor_divide(a, b),
 *     torch.remainder(a, b), a < b, a == b, a != b)"
 * (signs of zeros checked with math.copysign). */
static const double A[12] = {7, -7, 7, -7, 5.5, -0.0, 1, 0, INFINITY, NAN, 3, -3};
static const double B[12] = {2, 2, -2, -2, 1.5, 3, 0, 0, 2, 1, INFINITY, INFINITY};
static const double FLOOR_DIV[12] = {3, -4, -4, 3, 3, -0.0, INFINITY, NAN, NAN, NAN, 0, -1};
static const double REMAINDER[12] = {1, 1, -1, -1, 1, -0.0, NAN, NAN, NAN, NAN, 3, INFINITY};
static const double LESS[12] = {0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1};
static const double EQUAL[12] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};

static bool same(double x, double y) {
    return (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y));
}

static void check_values(const char *name, Tensor *(*op)(Tensor *, Tensor *), const double *want) {
    Tensor *a = tensor_create(1, (int64_t[]){12}, A, false);
    Tensor *b = tensor_create(1, (int64_t[]){12}, B, false);
    Tensor *r = op(a, b);
    for (int i = 0; r && i < 12; i++)
        CHECK(same(tensor_values(r)[i], want[i]), "%s element %d: %.17g, expected %.17g", name, i,
              tensor_values(r)[i], want[i]);
    CHECK(r && !r->requires_grad, "%s gives a value", name);
    tensor_release(r);
    tensor_release(a);
    tensor_release(b);
}

static void test_values(void) {
    check_values("floor_divide", tensor_floor_divide, FLOOR_DIV);
    check_values("remainder", tensor_remainder, REMAINDER);
    check_values("lt", tensor_lt, LESS);
    check_values("eq", tensor_eq, EQUAL);
    for (int i = 0; i < 12; i++) {
        CHECK(same(ag_floor_divide(A[i], B[i]), FLOOR_DIV[i]), "ag_floor_divide %d", i);
        CHECK(same(ag_remainder(A[i], B[i]), REMAINDER[i]), "ag_remainder %d", i);
    }
}

/* Comparisons and floor division record nothing, even on inputs that
 * require grad: their results are constants. */
static void test_constants(void) {
    Tensor *x = test_uniform(-1, 1, true, SHAPE(2, 3));
    Tensor *y = test_uniform(-1, 1, true, SHAPE(3));
    Tensor *(*ops[])(Tensor *, Tensor *) = {tensor_eq, tensor_ne, tensor_lt, tensor_le,
                                            tensor_gt, tensor_ge, tensor_floor_divide};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        Tensor *r = ops[i](x, y);
        CHECK(r && !r->requires_grad && tensor_is_leaf(r) && r->ndim == 2 && r->shape[1] == 3,
              "op %zu: a broadcast constant", i);
        tensor_release(r);
    }
    CHECK(ag_stats().arena_functions == 0, "nothing recorded");
    tensor_release(x);
    tensor_release(y);
}

static Tensor *build_remainder(Tensor **in, const void *arg) {
    (void)arg;
    return tensor_remainder(in[0], in[1]);
}

/* Away from the jumps of floor(a / b): a/b stays inside one integer step. */
static void test_remainder_grad(void) {
    static const struct { double alo, ahi, blo, bhi; } ranges[] = {
        {0.1, 0.9, 1, 2}, {0.1, 0.9, -2, -1}, {2.2, 2.8, 1, 1.05}, {-0.9, -0.1, 1, 2}};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
        for (int mask = 1; mask <= 3; mask++) {
            Tensor *in[2] = {test_uniform(ranges[r].alo, ranges[r].ahi, mask & 1, SHAPE(2, 3)),
                             test_uniform(ranges[r].blo, ranges[r].bhi, mask & 2, SHAPE(3))};
            char label[64];
            snprintf(label, sizeof label, "remainder range %zu mask %d", r, mask);
            fd_check(label, build_remainder, NULL, in, 2);
            tensor_release(in[0]);
            tensor_release(in[1]);
        }
}

typedef struct {
    int dim;
    int64_t index;
} SelectArg;

static Tensor *build_select(Tensor **in, const void *arg) {
    const SelectArg *s = arg;
    return tensor_select(in[0], s->dim, s->index);
}

static void test_select(void) {
    static const SelectArg cases[] = {{0, 0}, {0, 2}, {1, 1}, {2, 3}, {-1, -1}, {-3, -3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Tensor *x = test_uniform(-1, 1, true, SHAPE(3, 2, 4));
        char label[48];
        snprintf(label, sizeof label, "select case %zu", c);
        fd_check(label, build_select, &cases[c], &x, 1);
        tensor_release(x);
    }
    /* x[1] of a (3, 2) tensor is its second row. */
    Tensor *x = tensor_create(2, (int64_t[]){3, 2}, (double[]){1, 2, 3, 4, 5, 6}, false);
    Tensor *row = tensor_select(x, 0, 1), *col = tensor_select(x, 1, -1);
    CHECK(row && row->ndim == 1 && tensor_values(row)[0] == 3 && tensor_values(row)[1] == 4, "x[1] = [3, 4]");
    CHECK(col && col->ndim == 1 && tensor_values(col)[2] == 6, "x[:, -1] = [2, 4, 6]");
    Tensor *bad = tensor_select(x, 0, 3);
    CHECK(!bad && strstr(ag_error(), "out of range for dimension 0 of size 3"), "%s", ag_error());
    tensor_release(row);
    tensor_release(col);
    tensor_release(x);
}

typedef struct {
    int n, dim;
} StackArg;

static Tensor *build_stack(Tensor **in, const void *arg) {
    const StackArg *s = arg;
    return tensor_stack(in, s->n, s->dim);
}

typedef struct {
    bool cat;
    int n, dim;
} JoinArg;

/* stack or cat, squared: the gradient depends on the inputs, so the
 * create_graph pass differentiates the join's graph_backward (select, or a
 * slicing index) again. */
static Tensor *build_join_squared(Tensor **in, const void *arg) {
    const JoinArg *j = arg;
    Tensor *y = j->cat ? tensor_cat(in, j->n, j->dim) : tensor_stack(in, j->n, j->dim);
    Tensor *r = tensor_mul(y, y);
    tensor_release(y);
    return r;
}

static void test_join_squared(void) {
    static const JoinArg cases[] = {{false, 3, 1}, {false, 2, -1}, {true, 3, 0}, {true, 2, -1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Tensor *in[3];
        for (int k = 0; k < cases[c].n; k++)
            in[k] = test_uniform(-1, 1, k != 1, SHAPE(2, 3));
        char label[48];
        snprintf(label, sizeof label, "%s squared, case %zu", cases[c].cat ? "cat" : "stack", c);
        fd_check(label, build_join_squared, &cases[c], in, cases[c].n);
        for (int k = 0; k < cases[c].n; k++) tensor_release(in[k]);
    }
}

static void test_stack(void) {
    static const StackArg cases[] = {{2, 0}, {3, 1}, {3, 2}, {4, -1}, {1, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Tensor *in[4];
        for (int k = 0; k < cases[c].n; k++) in[k] = test_uniform(-1, 1, k != 1, SHAPE(2, 3));
        char label[48];
        snprintf(label, sizeof label, "stack case %zu", c);
        fd_check(label, build_stack, &cases[c], in, cases[c].n);
        for (int k = 0; k < cases[c].n; k++) tensor_release(in[k]);
    }
    Tensor *a = tensor_zeros(1, (int64_t[]){2}, false), *b = tensor_zeros(1, (int64_t[]){3}, false);
    Tensor *r = tensor_stack((Tensor *[]){a, b}, 2, 0);
    CHECK(!r && strstr(ag_error(), "same shape, got (2,) (item 1) and (3,) (item 2)"), "%s", ag_error());
    /* many constants: nothing to record, however many */
    Tensor *many[6] = {a, a, a, a, a, a};
    r = tensor_stack(many, 6, 0);
    CHECK(r && r->shape[0] == 6 && r->shape[1] == 2, "six constants stack");
    tensor_release(r);
    tensor_release(a);
    tensor_release(b);
}

/* Grad mode: while disabled nothing is recorded, and results are constants. */
static void test_grad_mode(void) {
    Tensor *x = test_uniform(-1, 1, true, SHAPE(3));
    bool was = ag_set_grad_enabled(false);
    Tensor *y = tensor_mul(x, x);
    CHECK(was && y && !y->requires_grad && tensor_is_leaf(y), "no_grad: a constant");
    CHECK(!ag_is_grad_enabled() && ag_stats().arena_functions == 0, "nothing recorded");
    ag_set_grad_enabled(was);
    Tensor *z = tensor_mul(x, x);
    CHECK(z && z->requires_grad && !tensor_is_leaf(z), "recording again");
    tensor_release(y);
    tensor_release(z);
    ag_graph_free();
    tensor_release(x);
}

/* tensor_inherit: a new leaf takes a variable's place, .grad and all. */
static void test_inherit(void) {
    Tensor *w = tensor_create(1, (int64_t[]){2}, (double[]){1, 2}, true);
    Tensor *loss = tensor_sum(w);
    backward(loss);
    Tensor *fresh = tensor_create(1, (int64_t[]){2}, (double[]){0.9, 1.9}, false);
    CHECK(tensor_inherit(fresh, w) == 0 && fresh->requires_grad && fresh->grad == w->grad,
          "the new leaf requires grad and holds the old .grad");
    CHECK(tensor_values(w)[0] == 1, "the old tensor is unchanged");
    Tensor *wrong = tensor_zeros(1, (int64_t[]){3}, false);
    CHECK(tensor_inherit(wrong, w) == -1 && strstr(ag_error(), "shape (3,)"), "%s", ag_error());
    tensor_release(wrong);
    tensor_release(fresh);
    tensor_release(loss);
    tensor_release(w);
}

/* Zero-element tensors with huge dimensions: no loop over their empty
 * lanes (this hung before), gradients of the right (empty) shape. */
static void test_empty_lanes(void) {
    int64_t big = (int64_t)1e17;
    Tensor *x = tensor_zeros(3, (int64_t[]){big, 2, 0}, true);
    Tensor *r = tensor_select(x, 1, 1);
    CHECK(r && r->ndim == 2 && r->shape[0] == big && r->shape[1] == 0, "select of an empty tensor");
    Tensor *st = tensor_stack((Tensor *[]){x, x}, 2, 1);
    CHECK(st && st->ndim == 4 && st->shape[1] == 2 && st->numel == 0, "stack of empty tensors");
    Tensor *loss = r ? tensor_sum(r) : NULL;
    CHECK(loss && backward(loss) == 0 && x->grad && x->grad->numel == 0, "backward through them");
    tensor_release(loss);
    tensor_release(st);
    tensor_release(r);
    tensor_release(x);
}

void test_syntax_ops(void) {
    test_values();
    test_constants();
    test_remainder_grad();
    test_select();
    test_stack();
    test_join_squared();
    test_grad_mode();
    test_inherit();
    test_empty_lanes();
}
