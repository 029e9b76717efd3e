/*
 * test_layers.c — the layers a C program calls (src/ops/layers.c):
 * dropout and batch_norm against PyTorch's values, and their gradients
 * against finite differences. Expected values: /usr/bin/python3 with torch
 * 1.13 (the snippet beside each), float64.
 */
#include "harness.h"

/* x = torch.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0], [-0.5, 1.5, 2.0], [0.0, -1.0, 1.0]]) */
static const double X[12] = {1.0, -2.0, 0.5, 3.0, 0.25, -1.0, -0.5, 1.5, 2.0, 0.0, -1.0, 1.0};

/* t's n values against PyTorch's: the same bits, or (near) within
 * matches_torch's 1e-14. PyTorch computes batch norm's last step as one
 * fused multiply-add, fma(x, alpha, beta), which ag's composition of
 * recorded ops rounds twice: a last-bit difference. */
static bool agree(const Tensor *t, const double *want, int n, const char *what, bool near) {
    for (int i = 0; i < n; i++) {
        bool ok = near ? matches_torch(tensor_values(t)[i], want[i]) : same_double(tensor_values(t)[i], want[i]);
        if (!CHECK(ok, "%s[%d]: %.17g, PyTorch %.17g", what, i, tensor_values(t)[i], want[i])) return false;
    }
    return true;
}

/* torch.manual_seed(7); F.dropout(x, p=0.4, training=True) */
static void test_dropout_values(void) {
    static const double want[12] = {1.6666666666666667, -3.3333333333333335, 0.0, 0.0, 0.0, -0.0,
                                    -0.8333333333333334, 2.5, 0.0, 0.0, -1.6666666666666667,
                                    1.6666666666666667};
    Tensor *x = tensor_create(SHAPE(4, 3), X, false);
    ag_seed(7);
    Tensor *d = tensor_dropout(x, 0.4, true, NULL);
    if (CHECK(d != NULL, "dropout: %s", ag_error()) && agree(d, want, 12, "dropout", false))
        CHECK(true, "dropout's mask is PyTorch's for the seed");
    Tensor *e = tensor_dropout(x, 0.4, false, NULL), *z = tensor_dropout(x, 1, true, NULL);
    CHECK(e == x && z && tensor_values(z)[3] == 0, "not training: x itself; p = 1: zeros");
    CHECK(!tensor_dropout(x, 1.5, true, NULL) && strstr(ag_error(), "between 0 and 1"), "%s", ag_error());
    tensor_release(x), tensor_release(d), tensor_release(e), tensor_release(z);
}

/* rm = torch.zeros(3); rv = torch.ones(3); w = torch.tensor([1.5, -0.5, 2.0]);
 * b = torch.tensor([0.1, 0.2, -0.3]); y = F.batch_norm(x, rm, rv, w, b, training=True,
 * momentum=0.1, eps=1e-5); then y2 = F.batch_norm(x, rm, rv, w, b, training=False) */
static void test_batch_norm_values(void) {
    static const double train[12] = {0.23987533201827338, 0.8414025032368984, -0.530939122337697,
                                     2.477880644310648, -0.013800834412299415, -3.3022085903900615,
                                     -1.4386286522010074, -0.4889137997729648, 2.2403303457146677,
                                     -0.8791273241279138, 0.461312130948366, 0.3928173670130912};
    static const double rm_want[3] = {0.08750000000000001, -0.03125, 0.0625};
    static const double rv_want[3] = {1.1395833333333334, 1.1307291666666668, 1.05625};
    static const double eval[12] = {1.3821805430220513, 1.125719383996936, 0.5513784167842597,
                                    4.192439267453945, 0.06775437371472347, -2.367633297904631,
                                    -0.7255135003018687, -0.5200039653309501, 3.4703901314731502,
                                    -0.022948819193895336, 0.655512712760397, 1.5243823216805565};
    Tensor *x = tensor_create(SHAPE(4, 3), X, false);
    Tensor *rm = tensor_zeros(SHAPE(3), false), *rv = tensor_ones(SHAPE(3), false);
    Tensor *w = tensor_create(SHAPE(3), (double[]){1.5, -0.5, 2.0}, false);
    Tensor *b = tensor_create(SHAPE(3), (double[]){0.1, 0.2, -0.3}, false);
    Tensor *y = tensor_batch_norm(x, rm, rv, w, b, true, 0.1, 1e-5);
    bool ok = CHECK(y != NULL, "batch_norm: %s", ag_error()) && agree(y, train, 12, "training", true) &&
              agree(rm, rm_want, 3, "running_mean", false) && agree(rv, rv_want, 3, "running_var", false);
    Tensor *y2 = tensor_batch_norm(x, rm, rv, w, b, false, 0.1, 1e-5);
    ok = ok && CHECK(y2 != NULL, "%s", ag_error()) && agree(y2, eval, 12, "eval", true);
    if (ok) CHECK(true, "batch_norm: PyTorch's values, running statistics and eval mode");
    Tensor *bad = tensor_zeros(SHAPE(1, 3), false);
    CHECK(!tensor_batch_norm(bad, rm, rv, w, b, true, 0.1, 1e-5) &&
              strstr(ag_error(), "Expected more than 1 value per channel"), "%s", ag_error());
    Tensor *all[] = {x, rm, rv, w, b, y, y2, bad};
    for (int i = 0; i < 8; i++) tensor_release(all[i]);
}

/* Each build draws the same mask: the generator is reseeded. */
static Tensor *build_dropout(Tensor **in, const void *arg) {
    AgGenerator *g = (AgGenerator *)arg;
    ag_generator_manual_seed(g, 3);
    return tensor_dropout(in[0], 0.3, true, g);
}

static Tensor *build_batch_norm(Tensor **in, const void *arg) {
    int64_t ndim = *(const int64_t *)arg;
    (void)ndim;
    return tensor_batch_norm(in[0], NULL, NULL, in[1], in[2], true, 0.1, 1e-5);
}

static void test_layer_gradients(void) {
    AgGenerator *g = ag_generator_new();
    Tensor *x = test_uniform(-1, 1, true, SHAPE(4, 5));
    fd_check("dropout", build_dropout, g, (Tensor *[]){x}, 1);
    ag_generator_free(g);
    static const int64_t two = 2, three = 3;
    Tensor *w = test_uniform(0.5, 1.5, true, SHAPE(5)), *b = test_uniform(-1, 1, true, SHAPE(5));
    fd_check("batch_norm (N, C)", build_batch_norm, &two, (Tensor *[]){x, w, b}, 3);
    Tensor *x3 = test_uniform(-1, 1, true, SHAPE(3, 5, 2));
    fd_check("batch_norm (N, C, L)", build_batch_norm, &three, (Tensor *[]){x3, w, b}, 3);
    ag_graph_free();
    tensor_release(x), tensor_release(w), tensor_release(b), tensor_release(x3);
}

/* Dropout of an integer tensor: PyTorch's in-place division of its noise
 * by 1 - p cannot keep the integer type; p = 1 (zeros) and eval mode can. */
static void test_dropout_integral(void) {
    Tensor *x = tensor_create(SHAPE(3), (double[]){1, 2, 3}, false);
    tensor_set_dtype(x, AG_INT64);
    CHECK(!tensor_dropout(x, 0.3, true, NULL) &&
              strstr(ag_error(), "result type Double can't be cast to the desired output type Long"),
          "dropout of int64: %s", ag_error());
    Tensor *zeros = tensor_dropout(x, 1, true, NULL), *same = tensor_dropout(x, 0.3, false, NULL);
    CHECK(zeros && zeros->dtype == AG_INT64 && tensor_values(zeros)[2] == 0 && same == x,
          "dropout of int64 with p = 1, or not training");
    tensor_release(zeros), tensor_release(same), tensor_release(x);
}

/* layer_norm against PyTorch's values (within 1e-14: ag composes recorded
 * ops where PyTorch's kernel takes Welford's moments), its errors, and its
 * gradients over the last one and two dims, with and without the affine
 * pair. w = torch.tensor([1.5, -0.5, 2.0]); b = torch.tensor([0.1, 0.2,
 * -0.3]); F.layer_norm(x, (3,), w, b) */
typedef struct {
    int nd;
    bool affine;
} NormArg;

static Tensor *build_layer_norm(Tensor **in, const void *arg) {
    const NormArg *a = arg;
    Tensor *x = in[0];
    return tensor_layer_norm(x, a->nd, x->shape + x->ndim - a->nd, a->affine ? in[1] : NULL,
                             a->affine ? in[2] : NULL, 1e-5);
}

static void test_layer_norm(void) {
    static const double want[12] = {1.4334974620633754, 0.8984986706046252, 0.7159980663340002,
                                    2.1199527877953077, 0.3496261324292821, -2.3947658540099486,
                                    -1.9830862969946699, -0.031454032999407744, 1.551632263995262,
                                    0.1, 0.8123678429541952, 2.1494713718167806};
    Tensor *x = tensor_create(SHAPE(4, 3), X, false);
    Tensor *w = tensor_create(SHAPE(3), ((double[]){1.5, -0.5, 2.0}), false);
    Tensor *b = tensor_create(SHAPE(3), ((double[]){0.1, 0.2, -0.3}), false);
    Tensor *y = tensor_layer_norm(x, 1, (int64_t[]){3}, w, b, 1e-5);
    if (CHECK(y != NULL, "layer_norm: %s", ag_error()) && agree(y, want, 12, "layer_norm", true))
        CHECK(true, "layer_norm's values are PyTorch's");
    CHECK(!tensor_layer_norm(x, 1, (int64_t[]){4}, NULL, NULL, 1e-5) &&
              strstr(ag_error(), "normalized_shape"), "a shape x lacks: %s", ag_error());
    CHECK(!tensor_layer_norm(x, 1, (int64_t[]){3}, x, NULL, 1e-5), "a weight of another shape");
    tensor_release(y);
    Tensor *in[3] = {test_uniform(-1, 1, true, SHAPE(3, 4, 5)), test_uniform(0.5, 1.5, true, SHAPE(4, 5)),
                     test_uniform(-1, 1, true, SHAPE(4, 5))};
    fd_check("layer_norm over two dims", build_layer_norm, &(NormArg){2, true}, in, 3);
    fd_check("layer_norm over the last dim, no affine", build_layer_norm, &(NormArg){1, false},
             in, 1);
    Tensor *w5 = test_uniform(0.5, 1.5, true, SHAPE(5)), *b5 = test_uniform(-1, 1, true, SHAPE(5));
    fd_check("layer_norm over the last dim", build_layer_norm, &(NormArg){1, true},
             (Tensor *[]){in[0], w5, b5}, 3);
    ag_graph_free();
    Tensor *all[] = {x, w, b, in[0], in[1], in[2], w5, b5};
    for (int i = 0; i < 8; i++) tensor_release(all[i]);
}

void test_layers(void) {
    test_layer_norm();
    test_dropout_integral();
    test_dropout_values();
    test_batch_norm_values();
    test_layer_gradients();
}
