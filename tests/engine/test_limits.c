/*
 * test_limits.c — the ops at the edges of their shapes and of memory: the
 * allocation message, shapes whose dimensions multiply past int64 (run
 * under UBSan by make test), and tensors with no elements but huge
 * dimensions, which must cost nothing.
 */
#include "harness.h"

/* ======================================================================
 * The allocation message: its figures are the ones the check compares
 * ====================================================================== */

/* Reads "needs N bytes, M of the" from the last message. */
static bool read_alloc_figures(long long *need, long long *avail) {
    const char *p = strstr(ag_error(), "needs ");
    return p && sscanf(p, "needs %lld bytes, %lld of the", need, avail) == 2;
}

static void test_alloc_message(void) {
    int64_t limit = ag_memory_limit();
    /* A tensor's block is a header and its data rounded up to 64 bytes; an
     * empty tensor's block is the header alone. */
    int64_t before = ag_stats().live_bytes;
    Tensor *empty = tensor_zeros(SHAPE(0), false);
    int64_t header = ag_stats().live_bytes - before;
    tensor_release(empty);
    CHECK(header > 0 && header % 64 == 0, "header of %lld bytes", (long long)header);

    /* Room for exactly one tensor of 80 doubles (640 bytes) and its header. */
    AgStats s = ag_stats();
    int64_t free_bytes = header + 640;
    ag_set_memory_limit(s.live_bytes + s.arena_bytes + free_bytes);
    Tensor *over = tensor_zeros(SHAPE(81), false);
    long long need = 0, avail = 0;
    CHECK(over == NULL && read_alloc_figures(&need, &avail), "81 doubles refused: %s", ag_error());
    CHECK(need == header + 704 && avail == free_bytes && need > avail,
          "the figures are the check's: needs %lld, %lld free (header %lld)", need, avail,
          (long long)header);
    Tensor *fits = tensor_zeros(SHAPE(80), false);
    CHECK(fits != NULL, "a tensor needing exactly the free figure is made: %s", ag_error());
    tensor_release(fits);

    /* Live tensors past the limit (it was lowered under them): nothing is
     * free, not a negative amount. */
    ag_set_memory_limit(limit);
    Tensor *held = tensor_zeros(SHAPE(1000), false);
    ag_set_memory_limit(ag_stats().live_bytes / 2);
    Tensor *more = tensor_zeros(SHAPE(1), false);
    CHECK(more == NULL && read_alloc_figures(&need, &avail) && avail == 0 && need == header + 64,
          "over the limit: needs %lld, %lld free: %s", need, avail, ag_error());
    tensor_release(more);
    tensor_release(held);
    ag_set_memory_limit(limit);
    ag_clear_error();
}

/* ======================================================================
 * Tensors with no elements: every op of src/ops/ but matmul, on every axis,
 * then backward through it. Nothing may loop over the empty lanes (a
 * (10^18, 0) tensor has 10^18 of them) or multiply dimensions past int64
 * (UBSan, in make test's asan build).
 * ====================================================================== */

/* r is op's result on an empty x: NULL only with one of the expected
 * messages; otherwise its loss goes through backward, which gives x an
 * empty gradient. */
static void expect_empty_result(const char *what, Tensor *x, Tensor *r) {
    char sx[AG_SHAPE_STR_MAX];
    tensor_shape_str(x, sx, sizeof sx);
    if (!r) {
        const char *e = ag_error();
        CHECK(strstr(e, "allocation too large") || strstr(e, "empty dimension") ||
              strstr(e, "no elements"),
              "%s on %s: %s", what, sx, e);
        ag_clear_error();
        return;
    }
    Tensor *loss = tensor_sum(r);
    tensor_zero_grad(x);
    CHECK(loss && backward(loss) == 0 && x->grad && x->grad->numel == 0 &&
          ag_shape_equal(x->grad->ndim, x->grad->shape, x->ndim, x->shape),
          "%s on %s: backward: %s", what, sx, ag_error());
    tensor_release(loss);
    tensor_release(r);
}

typedef Tensor *(*Unary)(Tensor *);
typedef Tensor *(*Binary)(Tensor *, Tensor *);
typedef Tensor *(*AxisOp)(Tensor *, int);
typedef Tensor *(*DimsOp)(Tensor *, const int64_t *, int, bool);

static Tensor *var_dims(Tensor *x, const int64_t *d, int n, bool k) { return tensor_var_dims(x, d, n, true, k); }
static Tensor *std_dims(Tensor *x, const int64_t *d, int n, bool k) { return tensor_std_dims(x, d, n, false, k); }
static Tensor *norm2_dims(Tensor *x, const int64_t *d, int n, bool k) { return tensor_norm_dims(x, 2, d, n, k); }
static Tensor *norm3_dims(Tensor *x, const int64_t *d, int n, bool k) { return tensor_norm_dims(x, 3, d, n, k); }
static Tensor *norm_inf_dims(Tensor *x, const int64_t *d, int n, bool k) { return tensor_norm_dims(x, INFINITY, d, n, k); }
static Tensor *max_dims(Tensor *x, const int64_t *d, int n, bool k) { return n ? tensor_max_dim(x, (int)d[0], k) : tensor_max(x); }
static Tensor *min_dims(Tensor *x, const int64_t *d, int n, bool k) { return n ? tensor_min_dim(x, (int)d[0], k) : tensor_min(x); }

/* argmax and argmin make constants: no backward, only a shape or a message. */
static void expect_empty_constant(const char *what, Tensor *x, Tensor *r) {
    CHECK(r ? r->numel == 0 && !r->requires_grad
            : strstr(ag_error(), "empty dimension") || strstr(ag_error(), "no elements"),
          "%s: %s", what, r ? "a result with elements" : ag_error());
    ag_clear_error();
    tensor_release(r);
    (void)x;
}

/* The reductions over dims and the shape ops of version 2 on an empty x:
 * over everything, each axis and the first with the last, keepdim or not. */
static void dims_ops_on(Tensor *x) {
    static const struct { const char *name; DimsOp op; } ops[] = {
        {"sum", tensor_sum_dims}, {"mean", tensor_mean_dims}, {"var", var_dims},
        {"std", std_dims}, {"norm", norm2_dims}, {"norm p=3", norm3_dims},
        {"norm p=inf", norm_inf_dims}, {"logsumexp", tensor_logsumexp_dims},
        {"max", max_dims}, {"min", min_dims},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        for (int keepdim = 0; keepdim <= 1; keepdim++) {
            bool one_dim = ops[i].op == max_dims || ops[i].op == min_dims;
            if (!one_dim || !keepdim) expect_empty_result(ops[i].name, x, ops[i].op(x, NULL, 0, keepdim));
            for (int64_t axis = -x->ndim; axis < x->ndim; axis++)
                expect_empty_result(ops[i].name, x, ops[i].op(x, &axis, 1, keepdim));
            int64_t ends[2] = {0, x->ndim - 1};
            if (!one_dim) expect_empty_result(ops[i].name, x, ops[i].op(x, ends, 2, keepdim));
        }
    expect_empty_constant("argmax", x, tensor_argmax(x));
    for (int axis = -x->ndim; axis < x->ndim; axis++) {
        expect_empty_constant("argmax", x, tensor_argmax_dim(x, axis, false));
        expect_empty_constant("argmin", x, tensor_argmin_dim(x, axis, true));
    }
    expect_empty_result("flatten", x, tensor_flatten(x, 0, -1));
    expect_empty_result("flatten", x, tensor_flatten(x, 1, -1));
    expect_empty_result("squeeze", x, tensor_squeeze(x));
    expect_empty_result("unsqueeze", x, tensor_unsqueeze(x, 1));
    int64_t reversed[AG_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++) reversed[i] = x->ndim - 1 - i;
    expect_empty_result("permute", x, tensor_permute(x, reversed, x->ndim));
    if (x->ndim <= 2) expect_empty_result("t", x, tensor_t(x));
    Tensor *empty1 = tensor_zeros(SHAPE(0), true);
    for (int axis = 0; axis < x->ndim; axis++) {
        expect_empty_result("cat", x, tensor_cat((Tensor *[]){x, x}, 2, axis));
        expect_empty_result("cat", x, tensor_cat((Tensor *[]){empty1, x}, 2, axis));
    }
    tensor_release(empty1);
}

/* The activations with numbers, at PyTorch's defaults; clamp and where as
 * ops of two tensors, each one's gradient reaching both. */
static Tensor *leaky_relu_of(Tensor *x) { return tensor_leaky_relu(x, 0.01); }
static Tensor *elu_of(Tensor *x) { return tensor_elu(x, 1.0); }
static Tensor *softplus_of(Tensor *x) { return tensor_softplus(x, 1.0, 20.0); }
static Tensor *clamp_both(Tensor *a, Tensor *b) { return tensor_clamp(a, b, b); }
static Tensor *clamp_min_of(Tensor *a, Tensor *b) { return tensor_clamp(a, b, NULL); }
static Tensor *clamp_max_of(Tensor *a, Tensor *b) { return tensor_clamp(a, NULL, b); }
static Tensor *where_of(Tensor *a, Tensor *b) { return tensor_where(b, a, b); }

static void every_op_on(Tensor *x) {
    static const struct { const char *name; Unary op; } unary[] = {
        {"neg", tensor_neg},   {"exp", tensor_exp},         {"log", tensor_log},
        {"sqrt", tensor_sqrt}, {"tanh", tensor_tanh},       {"sigmoid", tensor_sigmoid},
        {"relu", tensor_relu}, {"abs", tensor_abs},         {"sin", tensor_sin},
        {"cos", tensor_cos},   {"sum", tensor_sum},         {"mean", tensor_mean},
        {"max", tensor_max},   {"sign", tensor_sign},
        {"leaky_relu", leaky_relu_of}, {"elu", elu_of},           {"gelu", tensor_gelu},
        {"gelu tanh", tensor_gelu_tanh}, {"silu", tensor_silu},   {"relu6", tensor_relu6},
        {"hardsigmoid", tensor_hardsigmoid}, {"hardswish", tensor_hardswish},
        {"softplus", softplus_of}, {"tan", tensor_tan},     {"atan", tensor_atan},
        {"asin", tensor_asin}, {"acos", tensor_acos},       {"erf", tensor_erf},
        {"log1p", tensor_log1p}, {"expm1", tensor_expm1},   {"rsqrt", tensor_rsqrt},
    };
    static const struct { const char *name; Binary op; } binary[] = {
        {"add", tensor_add}, {"sub", tensor_sub}, {"mul", tensor_mul},
        {"div", tensor_div}, {"pow", tensor_pow}, {"mse", tensor_mse},
        {"maximum", tensor_maximum}, {"minimum", tensor_minimum}, {"clamp", clamp_both},
        {"clamp min", clamp_min_of}, {"clamp max", clamp_max_of}, {"where", where_of},
    };
    static const struct { const char *name; AxisOp op; } axis_ops[] = {
        {"sum", tensor_sum_axis},         {"mean", tensor_mean_axis},
        {"max", tensor_max_axis},         {"softmax", tensor_softmax},
        {"log_softmax", tensor_log_softmax},
    };
    for (size_t i = 0; i < sizeof unary / sizeof unary[0]; i++)
        expect_empty_result(unary[i].name, x, unary[i].op(x));

    /* Partners: x itself, a scalar, and a row along x's last dimension
     * (of one element when that dimension is too long to allocate). */
    int64_t last = x->shape[x->ndim - 1] <= 1000 ? x->shape[x->ndim - 1] : 1;
    Tensor *partners[] = {x, tensor_scalar(2), tensor_full(3, SHAPE(1, last), true)};
    for (size_t i = 0; i < sizeof binary / sizeof binary[0]; i++)
        for (int p = 0; p < 3; p++) {
            expect_empty_result(binary[i].name, x, binary[i].op(x, partners[p]));
            expect_empty_result(binary[i].name, x, binary[i].op(partners[p], x));
        }
    tensor_release(partners[1]);
    tensor_release(partners[2]);

    for (size_t i = 0; i < sizeof axis_ops / sizeof axis_ops[0]; i++)
        for (int axis = -x->ndim; axis < x->ndim; axis++)
            expect_empty_result(axis_ops[i].name, x, axis_ops[i].op(x, axis));
    for (int a = 0; a < x->ndim; a++)
        for (int b = 0; b < x->ndim; b++)
            expect_empty_result("transpose", x, tensor_transpose(x, a, b));
    dims_ops_on(x);
    int64_t reversed[AG_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++) reversed[i] = x->shape[x->ndim - 1 - i];
    expect_empty_result("reshape", x, tensor_reshape(x, x->ndim, reversed));
    expect_empty_result("reshape", x, tensor_reshape(x, 1, (int64_t[]){-1}));
    if (x->ndim == 2 && x->shape[0] <= 1000) { /* classes (N,) must exist */
        Tensor *classes = tensor_zeros(1, x->shape, false);
        expect_empty_result("cross_entropy", x, tensor_cross_entropy(x, classes));
        tensor_release(classes);
    }
    tensor_zero_grad(x);
}

/* Hardening 2, item 1: (10^18, 0) has 10^18 empty rows, (0, 10^18) 10^18
 * empty columns; softmax, the axis reductions and their backward looped
 * over all of them. */
static void test_empty_lanes(void) {
    const int64_t e18 = 1000000000000000000;
    static const int64_t shapes[][3] = {
        {1000000000000000000, 0, -1}, {0, 1000000000000000000, -1},
        {1000000000, 0, 1000000000},  {0, 1000000000, 1000000000},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int ndim = shapes[s][2] < 0 ? 2 : 3;
        Tensor *x = tensor_zeros(ndim, shapes[s], true);
        if (!CHECK(x != NULL, "zeros %zu: %s", s, ag_error())) continue;
        every_op_on(x);
        tensor_release(x);
    }
    /* What the issue named: softmax and mean over the empty axis's partner. */
    Tensor *x = tensor_zeros(SHAPE(e18, 0), false);
    Tensor *sm = tensor_softmax(x, -1), *ls = tensor_log_softmax(x, 1), *m = tensor_mean_axis(x, 0);
    CHECK(sm && sm->numel == 0 && ls && ls->numel == 0 && m && m->ndim == 1 && m->shape[0] == 0,
          "softmax, log_softmax and mean of (1e18, 0)");
    Tensor *all[] = {x, sm, ls, m};
    for (int i = 0; i < 4; i++) tensor_release(all[i]);
}

/* The losses on tensors of no elements with huge dimensions: 'mean' is
 * nan, 'sum' 0, 'none' empty (PyTorch's values), and nothing loops over
 * the empty lanes or rows. */
/* Loss k of the element-wise and row losses on x and t (NULL past them). */
static Tensor *loss_number(int k, Tensor *x, Tensor *t, AgReduction r) {
    switch (k) {
    case 0: return tensor_mse_loss(x, t, r);
    case 1: return tensor_l1_loss(x, t, r);
    case 2: return tensor_smooth_l1_loss(x, t, r, 1);
    case 3: return tensor_huber_loss(x, t, r, 1);
    case 4: return tensor_binary_cross_entropy(x, t, NULL, r);
    case 5: return tensor_binary_cross_entropy_with_logits(x, t, NULL, r, NULL);
    case 6: return tensor_kl_div(x, t, r, false);
    case 7: return tensor_hinge_embedding_loss(x, t, 1, r);
    case 8: return tensor_triplet_margin_loss(x, t, t, 1, 2, 1e-6, false, r);
    default: return NULL;
    }
}

static void every_loss_on(Tensor *x) {
    static const AgReduction reductions[] = {AG_REDUCTION_MEAN, AG_REDUCTION_SUM,
                                             AG_REDUCTION_NONE};
    Tensor *t = tensor_zeros(x->ndim, x->shape, false);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 9; k++) {
            Tensor *y = loss_number(k, x, t, reductions[r]);
            if (y && reductions[r] != AG_REDUCTION_NONE)
                CHECK(reductions[r] == AG_REDUCTION_MEAN ? isnan(tensor_values(y)[0]) : tensor_values(y)[0] == 0,
                      "loss %d on no elements: %g", k, tensor_values(y)[0]);
            expect_empty_result("a loss", x, y);
        }
    /* class losses where the classes (x's shape without dimension 1) can be
     * made: (0, 10^18) and (0, 10^9, 10^9) have none */
    if (x->shape[0] == 0) {
        int64_t cshape[AG_MAX_DIMS] = {0};
        for (int k = 2; k < x->ndim; k++) cshape[k - 1] = x->shape[k];
        Tensor *classes = tensor_zeros(x->ndim - 1, cshape, false);
        for (int r = 0; r < 3; r++) {
            expect_empty_result("nll_loss", x, tensor_nll_loss(x, classes, reductions[r]));
            expect_empty_result("cross_entropy", x,
                                tensor_cross_entropy_loss(x, classes, reductions[r]));
        }
        tensor_release(classes);
    }
    tensor_release(t);
    tensor_zero_grad(x);
}

static void test_empty_losses(void) {
    const int64_t e18 = 1000000000000000000, e9 = 1000000000;
    Tensor *shapes[] = {tensor_zeros(SHAPE(e18, 0), true), tensor_zeros(SHAPE(0, e18), true),
                        tensor_zeros(SHAPE(e9, 0, e9), true), tensor_zeros(SHAPE(0, e9, e9), true)};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        every_loss_on(shapes[s]);
        tensor_release(shapes[s]);
    }
    /* cosine_embedding_loss: no rows of 10^18 values */
    Tensor *a = tensor_zeros(SHAPE(0, e18), true), *y = tensor_zeros(SHAPE(0), false);
    expect_empty_result("cosine_embedding_loss", a,
                        tensor_cosine_embedding_loss(a, a, y, 0, AG_REDUCTION_SUM));
    tensor_release(a);
    tensor_release(y);
    ag_graph_free();
}

/* Hardening 2, item 4: the product of the non-zero dimensions is bounded
 * like the element count, so (2^62, 0) and (0, 2^62) are refused alike, and
 * a tensor that exists has no two dimensions whose product overflows. */
static void test_shape_overflow(void) {
    const int64_t big = (int64_t)1 << 62;
    Tensor *r[] = {tensor_zeros(SHAPE(big, 0), false), tensor_zeros(SHAPE(0, big), false),
                   tensor_zeros(SHAPE(0, big, 4), false), tensor_zeros(SHAPE(0, 4, big), false),
                   tensor_zeros(SHAPE(3, 0, (int64_t)1 << 59), false),
                   tensor_zeros(SHAPE(0, (int64_t)1 << 60), false)};
    for (int i = 0; i < 6; i++) {
        CHECK(r[i] == NULL && strstr(ag_error(), "too large: even with no elements"),
              "shape %d refused: %s", i, ag_error());
        tensor_release(r[i]);
    }
    ag_clear_error();
    /* At the bound: non-zero dimensions multiplying to at most 2^60 - 1. */
    static const int64_t shapes[][4] = {
        {0, (int64_t)1 << 57, 7, 1},
        {(int64_t)1 << 30, 0, ((int64_t)1 << 30) - 1, 1},
        {384307168202282325, 0, 3, 1}, /* (2^60 - 1) / 3: the bound itself */
        {3, 5, 0, ((int64_t)1 << 56) + 1},
        {(int64_t)1 << 59, 0, 1, 1},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        Tensor *x = tensor_zeros(4, shapes[s], true);
        if (!CHECK(x != NULL, "zeros %zu at the bound: %s", s, ag_error())) continue;
        every_op_on(x);
        /* A broadcast whose result passes the bound is refused, not wrapped. */
        Tensor *wide = tensor_zeros(SHAPE(4, 1, 1, 1, 1), false), *sum = tensor_add(x, wide);
        CHECK(sum == NULL && strstr(ag_error(), "too large"), "(4,1,1,1,1) + x: %s", ag_error());
        tensor_release(sum);
        tensor_release(wide);
        tensor_release(x);
    }
    ag_clear_error();
    ag_graph_free();
}

/* ======================================================================
 * Backward under the memory limit. The contract with the control branch:
 * an allocation in a backward kernel may return NULL (once the limit holds
 * during backward); the kernel then writes nothing and returns, and
 * backward stops cleanly. Every op's backward is run with the limit at
 * each step from what the forward left free upwards: it must succeed or
 * fail with a message, never crash (ASan) or leak. (While backward waives
 * the limit, every run succeeds.)
 * ====================================================================== */

typedef struct {
    const char *name;
    Tensor *(*build)(Tensor *a, Tensor *b);
} BuildCase;

static Tensor *b_neg(Tensor *a, Tensor *b) { (void)b; return tensor_neg(a); }
static Tensor *b_exp(Tensor *a, Tensor *b) { (void)b; return tensor_exp(a); }
static Tensor *b_sin(Tensor *a, Tensor *b) { (void)b; return tensor_sin(a); }
static Tensor *b_relu(Tensor *a, Tensor *b) { (void)b; return tensor_relu(a); }
static Tensor *b_sum0(Tensor *a, Tensor *b) { (void)b; return tensor_sum_axis(a, 0); }
static Tensor *b_mean(Tensor *a, Tensor *b) { (void)b; return tensor_mean(a); }
static Tensor *b_max(Tensor *a, Tensor *b) { (void)b; return tensor_max(a); }
static Tensor *b_max1(Tensor *a, Tensor *b) { (void)b; return tensor_max_axis(a, 1); }
static Tensor *b_softmax0(Tensor *a, Tensor *b) { (void)b; return tensor_softmax(a, 0); }
static Tensor *b_log_softmax(Tensor *a, Tensor *b) { (void)b; return tensor_log_softmax(a, 1); }
static Tensor *b_transpose(Tensor *a, Tensor *b) { (void)b; return tensor_transpose(a, 0, 1); }
static Tensor *b_reshape(Tensor *a, Tensor *b) { (void)b; return tensor_reshape(a, 1, (int64_t[]){-1}); }
static Tensor *b_pow_scalar(Tensor *a, Tensor *b) {
    (void)b;
    Tensor *e = tensor_scalar(3), *r = tensor_pow(a, e);
    tensor_release(e);
    return r;
}
static Tensor *b_var(Tensor *a, Tensor *b) { (void)b; return tensor_var_dims(a, (int64_t[]){0}, 1, true, true); }
static Tensor *b_std(Tensor *a, Tensor *b) { (void)b; return tensor_std_dims(a, NULL, 0, false, false); }
static Tensor *b_norm3(Tensor *a, Tensor *b) { (void)b; return tensor_norm_dims(a, 3, (int64_t[]){-1}, 1, false); }
static Tensor *b_norm_inf(Tensor *a, Tensor *b) { (void)b; return tensor_norm_dims(a, INFINITY, NULL, 0, false); }
static Tensor *b_logsumexp(Tensor *a, Tensor *b) { (void)b; return tensor_logsumexp_dims(a, (int64_t[]){1, 0}, 2, false); }
static Tensor *b_min(Tensor *a, Tensor *b) { (void)b; return tensor_min(a); }
static Tensor *b_min0(Tensor *a, Tensor *b) { (void)b; return tensor_min_dim(a, 0, true); }
static Tensor *b_flatten(Tensor *a, Tensor *b) { (void)b; return tensor_flatten(a, 0, -1); }
static Tensor *b_unsqueeze(Tensor *a, Tensor *b) { (void)b; return tensor_unsqueeze(a, 1); }
static Tensor *b_permute(Tensor *a, Tensor *b) { (void)b; return tensor_permute(a, (int64_t[]){1, 0}, 2); }
static Tensor *b_t(Tensor *a, Tensor *b) { (void)b; return tensor_t(a); }
static Tensor *b_cat(Tensor *a, Tensor *b) {
    Tensor *r = tensor_reshape(b, 2, (int64_t[]){1, 4}), *c = tensor_cat((Tensor *[]){a, r, a}, 3, 0);
    tensor_release(r);
    return c;
}
static Tensor *b_cross_entropy(Tensor *a, Tensor *b) {
    (void)b;
    Tensor *c = tensor_zeros(SHAPE(3), false), *r = tensor_cross_entropy(a, c);
    tensor_release(c);
    return r;
}

static void test_backward_under_limit(void) {
    static const BuildCase cases[] = {
        {"add", tensor_add},     {"sub", tensor_sub},          {"mul", tensor_mul},
        {"div", tensor_div},     {"pow", tensor_pow},          {"mse", tensor_mse},
        {"neg", b_neg},          {"exp", b_exp},               {"sin", b_sin},
        {"relu", b_relu},        {"sum axis 0", b_sum0},       {"mean", b_mean},
        {"max", b_max},          {"max axis 1", b_max1},       {"softmax", b_softmax0},
        {"log_softmax", b_log_softmax}, {"transpose", b_transpose}, {"reshape", b_reshape},
        {"pow scalar", b_pow_scalar}, {"cross_entropy", b_cross_entropy},
        {"var", b_var},          {"std", b_std},               {"norm p=3", b_norm3},
        {"norm p=inf", b_norm_inf}, {"logsumexp", b_logsumexp}, {"min", b_min},
        {"min dim 0", b_min0},   {"flatten", b_flatten},       {"unsqueeze", b_unsqueeze},
        {"permute", b_permute},  {"t", b_t},                   {"cat", b_cat},
    };
    int64_t limit = ag_memory_limit(), base = live_tensors();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int64_t extra = 0; extra <= 8192; extra += 64) {
            Tensor *a = test_uniform(0.5, 2, true, SHAPE(3, 4)), *b = test_uniform(0.5, 2, true, SHAPE(4));
            Tensor *y = cases[i].build(a, b), *loss = y ? tensor_sum(y) : NULL;
            if (!CHECK(loss != NULL, "%s: forward: %s", cases[i].name, ag_error())) break;
            AgStats s = ag_stats();
            ag_set_memory_limit(s.live_bytes + s.arena_bytes + extra);
            int status = backward(loss);
            ag_set_memory_limit(limit);
            CHECK(status == 0 || (status == -1 && ag_error()[0] != '\0'),
                  "%s with %lld bytes free: backward %d: %s", cases[i].name, (long long)extra,
                  status, ag_error());
            ag_clear_error();
            Tensor *t[] = {a, b, y, loss};
            for (int k = 0; k < 4; k++) tensor_release(t[k]);
            ag_graph_free();
        }
    CHECK(live_tensors() == base, "backward under the limit leaked %lld tensors",
          (long long)(live_tensors() - base));
}

void test_limits(void) {
    test_alloc_message();
    test_shape_overflow();
    test_empty_lanes();
    test_empty_losses();
    test_backward_under_limit();
}
