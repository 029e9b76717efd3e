/*
 * test_errors.c — every user error returns NULL (or -1) with a message,
 * records nothing in the arena and leaks nothing.
 */
#include "harness.h"

/* Checks that a failed call left a message containing want and no Function
 * or tensor behind. */
static void expect_error(const char *what, bool failed, const char *want, AgStats before) {
    AgStats after = ag_stats();
    CHECK(failed, "%s: expected an error", what);
    CHECK(strstr(ag_error(), want) != NULL, "%s: message '%s' lacks '%s'", what, ag_error(), want);
    CHECK(after.arena_functions == before.arena_functions, "%s: left a half-built graph", what);
    CHECK(after.live_tensors == before.live_tensors, "%s: leaked a tensor", what);
    ag_clear_error();
}

#define EXPECT_NULL(call, want)                                     \
    do {                                                            \
        AgStats before_ = ag_stats();                               \
        Tensor *r_ = (call);                                        \
        expect_error(#call, r_ == NULL, want, before_);             \
        tensor_release(r_);                                         \
    } while (0)

#define EXPECT_FAIL(call, want)                                     \
    do {                                                            \
        AgStats before_ = ag_stats();                               \
        expect_error(#call, (call) == -1, want, before_);           \
    } while (0)

static void test_shape_errors(Tensor *a23, Tensor *b4) {
    EXPECT_NULL(tensor_add(a23, b4), "(2, 3) and (4,) cannot broadcast");
    EXPECT_NULL(tensor_mul(b4, a23), "(4,) and (2, 3)");
    EXPECT_NULL(tensor_pow(a23, b4), "pow");
    EXPECT_NULL(tensor_mse(a23, b4), "mse");
    EXPECT_NULL(tensor_reshape(a23, SHAPE(4, 2)), "cannot reshape (2, 3) (6 elements) to (4, 2)");
    EXPECT_NULL(tensor_reshape(a23, SHAPE(-1, -1)), "only one -1");
    EXPECT_NULL(tensor_reshape(a23, SHAPE(-1, 4)), "cannot reshape");
    EXPECT_NULL(tensor_reshape(a23, SHAPE(INT64_MAX, 4)), "cannot reshape");
    EXPECT_NULL(tensor_reshape(a23, SHAPE(0, -1)), "cannot reshape");
}

static void test_axis_errors(Tensor *a23) {
    EXPECT_NULL(tensor_sum_axis(a23, 2), "axis 2 is out of range for 2 dimensions");
    EXPECT_NULL(tensor_mean_axis(a23, -3), "expected -2 to 1");
    EXPECT_NULL(tensor_max_axis(a23, 7), "max");
    EXPECT_NULL(tensor_softmax(a23, 2), "softmax");
    EXPECT_NULL(tensor_log_softmax(a23, -5), "log_softmax");
    EXPECT_NULL(tensor_transpose(a23, 0, 2), "transpose");
    Tensor *s = tensor_scalar(1);
    EXPECT_NULL(tensor_sum_axis(s, 1), "axis 1 is out of range for a 0-d tensor (expected -1 or 0)");
    EXPECT_NULL(tensor_softmax(s, -2), "0-d tensor");
    EXPECT_NULL(tensor_transpose(s, 0, 1), "0-d tensor");
    tensor_release(s);
    Tensor *empty = tensor_zeros(SHAPE(0), false);
    EXPECT_NULL(tensor_max(empty), "empty");
    tensor_release(empty);
}

static void test_backward_errors(Tensor *a23) {
    Tensor *sq = tensor_mul(a23, a23);
    EXPECT_FAIL(backward(sq), "exactly one element, not shape (2, 3)");
    Tensor *c = tensor_scalar(3);
    EXPECT_FAIL(backward(c), "does not require grad");
    EXPECT_FAIL(backward(NULL), "NULL");
    tensor_release(c);
    tensor_release(sq);
    ag_graph_free();
}

static void test_allocation_errors(void) {
    EXPECT_NULL(tensor_zeros(SHAPE(INT64_MAX / 2, 4), false), "too many elements");
    EXPECT_NULL(tensor_zeros(SHAPE(1 << 20, 1 << 20, 1 << 20), false), "too many elements");
    EXPECT_NULL(tensor_ones(SHAPE(1 << 20, 1 << 20), false), "allocation too large");
    EXPECT_NULL(tensor_zeros(SHAPE(3, -2), false), "negative dimension");
    int64_t limit = ag_memory_limit();
    /* Room for one 100-element tensor (800 bytes and its header), not two. */
    ag_set_memory_limit(ag_stats().live_bytes + 1500);
    EXPECT_NULL(tensor_randn(SHAPE(200), false), "memory limit");
    Tensor *small = tensor_zeros(SHAPE(100), true);
    CHECK(small != NULL, "a tensor under the limit is made: %s", ag_error());
    EXPECT_NULL(tensor_mul(small, small), "allocation too large");
    tensor_release(small);
    ag_set_memory_limit(limit);
    EXPECT_NULL(tensor_arange(0, 1e300, 1e-300), "too many");
    EXPECT_NULL(tensor_arange(0, 5, 0), "step must be nonzero");
    EXPECT_NULL(tensor_arange(0, INFINITY, 1), "finite");
    EXPECT_NULL(tensor_eye(-1), "non-negative");
    EXPECT_NULL(tensor_linspace(0, 1, -3), "non-negative");
}

static void test_misuse(Tensor *a23) {
    double v[6] = {0};
    EXPECT_FAIL(tensor_write(a23, v), "in-place write to a tensor that requires grad");
    Tensor *sq = tensor_mul(a23, a23);
    EXPECT_FAIL(tensor_set_requires_grad(sq, false), "only be changed on a leaf");
    tensor_release(sq);
    ag_graph_free();
    Tensor *c = tensor_zeros(SHAPE(6), false);
    CHECK(tensor_write(c, (double[]){1, 2, 3, 4, 5, 6}) == 0 && tensor_values(c)[5] == 6,
          "a constant can be written");
    tensor_release(c);
    /* More inputs than a Function holds inline: the rest in the arena. */
    Tensor *in[6] = {a23, a23, a23, a23, a23, a23};
    Tensor *st = tensor_stack(in, 6, 0), *total = tensor_sum(st);
    tensor_zero_grad(a23);
    CHECK(total && backward(total) == 0 && a23->grad && tensor_values(a23->grad)[0] == 6.0 &&
              tensor_values(a23->grad)[5] == 6.0,
          "stack of 6 inputs: each element's gradient is 6");
    tensor_release(st);
    tensor_release(total);
    tensor_zero_grad(a23);
    EXPECT_NULL(tensor_add(NULL, a23), "NULL");
    EXPECT_NULL(tensor_exp(NULL), "NULL");
    EXPECT_NULL(tensor_sum(NULL), "NULL");
    EXPECT_NULL(tensor_detach(NULL), "NULL");
}

static void test_class_errors(void) {
    Tensor *logits = tensor_zeros(SHAPE(2, 3), true);
    int64_t n = 2;
    Tensor *bad = tensor_create(1, &n, (double[]){0, 3}, false);
    Tensor *frac = tensor_create(1, &n, (double[]){0, 1.5}, false);
    Tensor *neg = tensor_create(1, &n, (double[]){-1, 0}, false);
    Tensor *rg = tensor_create(1, &n, (double[]){0, 1}, true);
    Tensor *short_ = tensor_zeros(SHAPE(3), false);
    EXPECT_NULL(tensor_cross_entropy(logits, bad), "class 3 at index 1 is not an integer in [0, 3)");
    EXPECT_NULL(tensor_cross_entropy(logits, frac), "class 1.5");
    EXPECT_NULL(tensor_cross_entropy(logits, neg), "class -1");
    EXPECT_NULL(tensor_cross_entropy(logits, rg), "cannot require grad");
    EXPECT_NULL(tensor_cross_entropy(logits, short_), "expected (N, C) and (N,)");
    EXPECT_NULL(tensor_cross_entropy(short_, short_), "input (3,) and target (3,) do not match");
    EXPECT_NULL(tensor_nll_loss(logits, bad, AG_REDUCTION_NONE), "nll_loss: class 3 at index 1");
    EXPECT_NULL(tensor_nll_loss(logits, rg, AG_REDUCTION_SUM), "nll_loss: classes are indices");
    EXPECT_NULL(tensor_nll_loss(logits, NULL, AG_REDUCTION_MEAN), "NULL");
    Tensor *all[] = {logits, bad, frac, neg, rg, short_};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
}

/* The losses' other errors: a reduction they do not know, a target or
 * weight of the wrong shape, parameters out of range, bce's input outside
 * [0, 1], a weight that requires grad. */
static void test_loss_errors(Tensor *a23, Tensor *b4) {
    Tensor *half = tensor_full(0.5, SHAPE(2, 3), false), *two = tensor_full(2, SHAPE(2, 3), false);
    Tensor *w4 = tensor_ones(SHAPE(4), false), *wg = tensor_ones(SHAPE(3), true);
    Tensor *r23 = tensor_ones(SHAPE(2, 3), false), *rows = tensor_ones(SHAPE(2), false);
    Tensor *w24 = tensor_ones(SHAPE(2, 4), false);
    EXPECT_NULL(tensor_mse_loss(a23, b4, AG_REDUCTION_SUM), "mse_loss: shapes (2, 3) and (4,)");
    EXPECT_NULL(tensor_l1_loss(a23, a23, (AgReduction)7), "reduction must be 'mean', 'sum' or 'none'");
    EXPECT_NULL(tensor_l1_loss(a23, a23, AG_REDUCTION_BATCHMEAN), "l1_loss: reduction must be");
    EXPECT_NULL(tensor_smooth_l1_loss(a23, a23, AG_REDUCTION_MEAN, -1), "beta must not be negative");
    EXPECT_NULL(tensor_smooth_l1_loss(a23, a23, AG_REDUCTION_MEAN, NAN), "beta must not be negative");
    EXPECT_NULL(tensor_huber_loss(a23, a23, AG_REDUCTION_MEAN, 0), "delta must be positive, got 0");
    EXPECT_NULL(tensor_binary_cross_entropy(half, b4, NULL, AG_REDUCTION_MEAN),
                "target of shape (4,) and input of shape (2, 3) must have the same shape");
    EXPECT_NULL(tensor_binary_cross_entropy(two, half, NULL, AG_REDUCTION_MEAN),
                "input 2 at index 0 is not in [0, 1]");
    EXPECT_NULL(tensor_binary_cross_entropy(half, half, w4, AG_REDUCTION_MEAN),
                "weight of shape (4,) does not broadcast to the input's shape (2, 3)");
    EXPECT_NULL(tensor_binary_cross_entropy(half, half, wg, AG_REDUCTION_MEAN),
                "not differentiable with respect to weight");
    EXPECT_NULL(tensor_binary_cross_entropy_with_logits(two, half, NULL, AG_REDUCTION_MEAN, wg),
                "not differentiable with respect to pos_weight");
    EXPECT_NULL(tensor_binary_cross_entropy_with_logits(two, b4, NULL, AG_REDUCTION_MEAN, NULL),
                "must have the same shape");
    EXPECT_NULL(tensor_kl_div(a23, b4, AG_REDUCTION_BATCHMEAN, false), "kl_div: shapes");
    EXPECT_NULL(tensor_cosine_embedding_loss(a23, a23, r23, 0, AG_REDUCTION_MEAN),
                "the target must be 0-d or 1-d");
    EXPECT_NULL(tensor_cosine_embedding_loss(a23, a23, NULL, 0, AG_REDUCTION_MEAN), "NULL");
    EXPECT_NULL(tensor_cosine_embedding_loss(b4, b4, rows, 0, AG_REDUCTION_MEAN),
                "a (2,) target expects 2-d (N, D) inputs, got (4,) and (4,)");
    EXPECT_NULL(tensor_cosine_embedding_loss(a23, a23, b4, 0, AG_REDUCTION_MEAN),
                "target (4,) does not match the 2 rows of the inputs (2, 3) and (2, 3)");
    EXPECT_NULL(tensor_triplet_margin_loss(a23, a23, b4, 1, 2, 1e-6, false, AG_REDUCTION_MEAN),
                "the same number of dimensions, got (2, 3), (2, 3) and (4,)");
    EXPECT_NULL(tensor_triplet_margin_loss(a23, a23, w24, 1, 2, 1e-6, false, AG_REDUCTION_MEAN),
                "do not broadcast");
    EXPECT_NULL(tensor_triplet_margin_loss(a23, a23, a23, 1, 0, 1e-6, false, AG_REDUCTION_MEAN),
                "p must be positive (or inf), got 0");
    EXPECT_NULL(tensor_triplet_margin_loss(a23, a23, a23, 1, 2, 1e-6, false,
                                           AG_REDUCTION_BATCHMEAN), "reduction must be");
    Tensor *all[] = {half, two, w4, wg, r23, rows, w24};
    for (int i = 0; i < 7; i++) tensor_release(all[i]);
}

void test_errors(void) {
    Tensor *a23 = tensor_ones(SHAPE(2, 3), true), *b4 = tensor_ones(SHAPE(4), false);
    test_shape_errors(a23, b4);
    test_axis_errors(a23);
    test_backward_errors(a23);
    test_allocation_errors();
    test_misuse(a23);
    test_class_errors();
    test_loss_errors(a23, b4);
    tensor_release(a23);
    tensor_release(b4);
}
