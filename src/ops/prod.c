/*
 * prod.c — prod: the product of all elements, or along one dim (keepdim),
 * PyTorch 1.13's to the last bit, with its gradient (prod_backward) as
 * recorded ops, so that create_graph differentiates it again.
 *
 * Forward order (ATen's binary_kernel_reduce_vec as built for AVX2, vectors
 * of VEC = 4 doubles or 8 floats, each product rounded in the dtype): a
 * reduction along contiguous elements (everything, or the last dim) keeps
 * 4 vector accumulators over whole chunks of 4 * VEC elements (each lane
 * its own running product), multiplies them as (a0 * a1) * (a2 * a3), the
 * lanes in order, then the elements after the last chunk one at a time; a
 * reduction along any other dim is a running product from 1, in order.
 *
 * Gradient (PyTorch's prod_backward): without zeros in x, g * (prod / x);
 * with zeros, each slice's exclusive products, from the front (a cumprod
 * of 1, x[0], ..., x[n-2]) times from the back (the same of x reversed),
 * times g; prod over everything with more than one zero: zeros. The zero
 * test is on the whole x, as PyTorch's, so one zero anywhere moves every
 * slice to the exclusive products.
 */
#include "../internal.h"

#include <string.h>

enum { ACCS = 4 }; /* binary_kernel_reduce_vec's vector accumulators */

/* x rounded to float when f32: each product in the dtype's arithmetic. */
static inline double in_type(double x, bool f32) { return f32 ? (double)(float)x : x; }

/* The product of n contiguous elements in PyTorch's vector order. */
static double row_product(const double *x, int64_t n, bool f32) {
    int vec = f32 ? 8 : 4;
    int64_t chunk = ACCS * vec, chunks = n / chunk;
    double out = 1.0;
    if (chunks > 0) {
        double acc[ACCS][8];
        for (int j = 0; j < ACCS; j++)
            for (int l = 0; l < vec; l++) acc[j][l] = x[j * vec + l];
        for (int64_t i = 1; i < chunks; i++)
            for (int j = 0; j < ACCS; j++)
                for (int l = 0; l < vec; l++)
                    acc[j][l] = in_type(acc[j][l] * x[i * chunk + j * vec + l], f32);
        double lanes = 1.0;
        for (int l = 0; l < vec; l++) {
            double a = in_type(in_type(acc[0][l] * acc[1][l], f32) *
                               in_type(acc[2][l] * acc[3][l], f32), f32);
            lanes = l == 0 ? a : in_type(lanes * a, f32);
        }
        out = lanes;
    }
    for (int64_t i = chunks * chunk; i < n; i++) out = in_type(out * x[i], f32);
    return out;
}

typedef struct {
    bool has_dim, keepdim;
    int dim;
} ProdCtx;

/* outer x n x inner around dim. */
static void around(const Tensor *x, int dim, int64_t *outer, int64_t *n, int64_t *inner) {
    *outer = ag_shape_prod(x->shape, 0, dim);
    *n = x->shape[dim];
    *inner = ag_shape_prod(x->shape, dim + 1, x->ndim);
}

static void prod_kernel(const Tensor *x, const ProdCtx *c, double *out) {
    bool f32 = x->dtype == AG_FLOAT32;
    if (!c->has_dim || x->ndim == 0) {
        out[0] = row_product(tensor_values(x), x->numel, f32);
        return;
    }
    int64_t outer, n, inner;
    around(x, c->dim, &outer, &n, &inner);
    for (int64_t o = 0; o < outer; o++) {
        if (inner == 1) { /* along contiguous elements */
            out[o] = row_product(tensor_values(x) + o * n, n, f32);
            continue;
        }
        for (int64_t i = 0; i < inner; i++) {
            double p = 1.0;
            for (int64_t k = 0; k < n; k++) p = in_type(p * tensor_values(x)[(o * n + k) * inner + i], f32);
            out[o * inner + i] = p;
        }
    }
}

/* ======================================================================
 * The gradient, as recorded ops
 * ====================================================================== */

/* x along dim d reversed (an index of n - 1, ..., 0 there). */
static Tensor *reversed(GradTemps *t, Tensor *x, int d) {
    int64_t n = x->shape[d];
    Tensor *idx = ag_grad_tmp(t, tensor_zeros(1, &n, false));
    if (!idx) return NULL;
    double *iv = tensor_values(idx);
    for (int64_t k = 0; k < n; k++) iv[k] = (double)(n - 1 - k);
    tensor_set_dtype(idx, AG_INT64);
    AgIndex items[AG_MAX_DIMS];
    for (int i = 0; i < d; i++) items[i] = (AgIndex){.kind = AG_INDEX_SLICE, .step = 1};
    items[d] = (AgIndex){.kind = AG_INDEX_TENSOR, .tensor = idx};
    return ag_grad_tmp(t, tensor_index(x, items, d + 1));
}

/* x[..., from:to] along dim d. */
static Tensor *narrowed(GradTemps *t, Tensor *x, int d, int64_t from, int64_t to) {
    AgIndex items[AG_MAX_DIMS];
    for (int i = 0; i < d; i++) items[i] = (AgIndex){.kind = AG_INDEX_SLICE, .step = 1};
    items[d] = (AgIndex){.kind = AG_INDEX_SLICE, .start = from, .stop = to, .step = 1,
                         .has_start = true, .has_stop = true};
    return ag_grad_tmp(t, tensor_index(x, items, d + 1));
}

/* cumprod of (1, s) along d: s with a slice of ones in front. */
static Tensor *exclusive(GradTemps *t, Tensor *s, Tensor *ones, int d) {
    Tensor *parts[2] = {ones, s};
    return ag_grad_tmp(t, tensor_cumprod(ag_grad_tmp(t, tensor_cat(parts, 2, d)), d));
}

/* PyTorch's prod_safe_zeros_backward: g * (the product of the others) along
 * d, x of n > 1 there. */
static Tensor *safe_zeros(GradTemps *t, Tensor *g, Tensor *x, int d) {
    int64_t shape[AG_MAX_DIMS];
    memcpy(shape, x->shape, sizeof shape);
    shape[d] = 1;
    Tensor *ones = ag_grad_tmp(t, tensor_ones(x->ndim, shape, false));
    if (ones) tensor_set_dtype(ones, (AgDtype)x->dtype);
    int64_t n = x->shape[d];
    Tensor *front = exclusive(t, narrowed(t, x, d, 0, n - 1), ones, d);
    Tensor *back = reversed(t, exclusive(t, reversed(t, narrowed(t, x, d, 1, n), d), ones, d), d);
    return ag_grad_out(t, tensor_mul(g, ag_grad_tmp(t, tensor_mul(front, back))));
}

static bool has_zero(const Tensor *x, int64_t *count) {
    *count = 0;
    for (int64_t i = 0; i < x->numel; i++) *count += tensor_values(x)[i] == 0.0;
    return *count > 0;
}

static int prod_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const ProdCtx *c = ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0], *r = self->output;
    int64_t zeros;
    if (x->ndim == 0) {
        grads[0] = ag_grad_out(&t, tensor_mul(g, ag_grad_num(&t, 1.0)));
        return ag_grad_done(&t);
    }
    if (!c->has_dim) {
        if (!has_zero(x, &zeros)) {
            grads[0] = ag_grad_out(&t, tensor_mul(g, ag_grad_tmp(&t, tensor_div(r, x))));
        } else if (zeros > 1) {
            grads[0] = ag_grad_out(&t, tensor_zeros(x->ndim, x->shape, false));
            if (grads[0]) tensor_set_dtype(grads[0], (AgDtype)x->dtype);
        } else {
            int64_t n = x->numel;
            Tensor *flat = ag_grad_tmp(&t, tensor_view(x, 1, &n));
            Tensor *d = n == 1 ? ag_grad_tmp(&t, tensor_mul(g, ag_grad_num(&t, 1.0)))
                               : ag_grad_tmp(&t, safe_zeros(&t, g, flat, 0));
            grads[0] = ag_grad_out(&t, tensor_view(d, x->ndim, x->shape)); /* view_as */
        }
        return ag_grad_done(&t);
    }
    Tensor *gk = g, *rk = r; /* g and the result with the dim back (size 1) */
    if (!c->keepdim && x->ndim != 1) {
        gk = ag_grad_tmp(&t, tensor_unsqueeze(g, c->dim));
        rk = ag_grad_tmp(&t, tensor_unsqueeze(r, c->dim));
    }
    if (!has_zero(x, &zeros))
        grads[0] = ag_grad_out(&t, tensor_mul(gk, ag_grad_tmp(&t, tensor_div(rk, x))));
    else if (x->shape[c->dim] == 1)
        grads[0] = ag_grad_out(&t, tensor_mul(gk, ag_grad_num(&t, 1.0)));
    else
        grads[0] = safe_zeros(&t, gk, x, c->dim);
    return ag_grad_done(&t);
}

static void prod_backward(Function *self, void *ctx, Tensor *g) {
    ag_apply_by_graph(self, ctx, g, prod_graph);
}

/* ======================================================================
 * prod
 * ====================================================================== */

static Tensor *prod_forward(Tensor *x, bool has_dim, int64_t dim, bool keepdim) {
    if (!x) return ag_fail("prod: argument is NULL");
    ProdCtx c = {has_dim, keepdim, 0};
    int64_t shape[AG_MAX_DIMS] = {0};
    int ndim = 0;
    if (has_dim) {
        int d = ag_normalize_axis("prod", dim, x->ndim > 0 ? x->ndim : 1);
        if (d < 0) return NULL;
        c.dim = x->ndim > 0 ? d : 0;
        for (int i = 0; i < x->ndim; i++)
            if (i != c.dim) shape[ndim++] = x->shape[i];
            else if (keepdim) shape[ndim++] = 1;
    }
    Tensor *out = ag_tensor_new(ndim, shape);
    if (!out) return NULL;
    prod_kernel(x, &c, tensor_values(out));
    void *ctx;
    out = ag_graph_record_named(out, AG_OP_PROD, has_dim ? "ProdBackward1" : "ProdBackward", &x, 1,
                                &ctx, sizeof c);
    if (ctx) memcpy(ctx, &c, sizeof c);
    return out;
}

Tensor *tensor_prod(Tensor *x) { return prod_forward(x, false, 0, false); }

Tensor *tensor_prod_dim(Tensor *x, int dim, bool keepdim) {
    return prod_forward(x, true, dim, keepdim);
}

static Tensor *prod_call(const AgOpArgs *a) {
    return prod_forward(a->t[0], a->has_int[0], a->ints[0], a->flags[0]);
}

const AgOpInfo ag_op_prod = {
    .id = AG_OP_PROD, .name = "prod", .signature = "prod(input, dim=None, keepdim=False)",
    .params = "Tib", .help = "product of the elements, or along dim",
    .rule = "grad_x = g * prod / x; where x has zeros, g times the product of the others",
    .backward_name = "ProdBackward", .call = prod_call, .backward = prod_backward,
    .graph_backward = prod_graph, .flags = AG_OP_METHOD | AG_OP_SAVES_READS,
    .grad_reads = {1 | AG_CHECKS_OUTPUT}, .dtype_rule = AG_DTYPE_SUM,
};
