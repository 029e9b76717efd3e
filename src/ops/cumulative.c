/*
 * cumulative.c — cumsum and cumprod along one dim, as PyTorch 1.13's CPU
 * kernel (cpu_cum_base_kernel) computes them: each lane in order, from an
 * accumulator of 0 (cumsum) or 1 (cumprod) in the accumulate type (double
 * for both float types), each output the accumulator as it stands. ag's
 * doubles are that accumulator: a float32 result is rounded once, by the
 * dtype rule, exactly as PyTorch's (float)cum_number. An integral or bool
 * input gives int64 (AG_DTYPE_SUM, PyTorch's default dtype for them).
 *
 * Their gradient kernels are hidden ops too (cumsum_backward,
 * cumprod_backward), so that create_graph differentiates them again.
 *
 * x is viewed as (outer, n, inner) around the dim; lane (o, i) is
 * x[o, :, i]. No loop visits the lanes of a tensor without elements.
 */
#include "../internal.h"

#include <math.h>
#include <string.h>

typedef struct {
    int64_t outer, n, inner;
} Lanes;

typedef struct {
    int axis;
} CumCtx;

/* x's lanes around axis (a 0-d x: one lane of one). */
static Lanes lanes_of(const Tensor *x, int axis) {
    if (x->ndim == 0) return (Lanes){1, 1, 1};
    return (Lanes){ag_shape_prod(x->shape, 0, axis), x->shape[axis],
                   ag_shape_prod(x->shape, axis + 1, x->ndim)};
}

/* Lane j's first element and its stride. */
static int64_t lane_base(Lanes l, int64_t j) { return (j / l.inner) * l.n * l.inner + j % l.inner; }

/* out[k] = out[k - 1] (+ or *) x[k] from 0 (sum) or 1 (product), each lane
 * in order. Walks k outside the inner index so that rows stay contiguous;
 * each lane still sees its own elements in order. */
static void scan_forward(const double *x, Lanes l, bool product, double *out) {
    double start = product ? 1.0 : 0.0;
    for (int64_t o = 0; o < l.outer; o++) {
        const double *xo = x + o * l.n * l.inner;
        double *yo = out + o * l.n * l.inner;
        for (int64_t i = 0; i < l.inner; i++)
            yo[i] = product ? start * xo[i] : start + xo[i];
        for (int64_t k = 1; k < l.n; k++) {
            const double *xk = xo + k * l.inner;
            double *yk = yo + k * l.inner, *prev = yk - l.inner;
            if (product)
                for (int64_t i = 0; i < l.inner; i++) yk[i] = prev[i] * xk[i];
            else
                for (int64_t i = 0; i < l.inner; i++) yk[i] = prev[i] + xk[i];
        }
    }
}

static void reversed_cumsum(const double *g, Lanes l, double *dx);

/* x's axis (dim normalized; a 0-d x takes 0 and -1), or -1 with a message. */
static int cum_axis(const char *op, const Tensor *x, int64_t dim) {
    if (!x) {
        ag_fail("%s: argument is NULL", op);
        return -1;
    }
    return x->ndim == 0 && (dim == 0 || dim == -1) ? 0 : ag_normalize_axis(op, dim, x->ndim);
}

/* Shared forward of cumsum, cumprod and cumsum_backward (the reversed
 * cumsum): checks x and dim, scans, records. PyTorch: a 0-d x is its own
 * result (-0 stays -0), an empty one zeros. */
static Tensor *cum_forward(int op_id, Tensor *x, int64_t dim) {
    int axis = cum_axis(ag_op_at(op_id)->name, x, dim);
    if (axis < 0) return NULL;
    Tensor *y = ag_tensor_new_like(x);
    if (!y) return NULL;
    if (x->ndim == 0)
        tensor_values(y)[0] = tensor_values(x)[0];
    else if (y->numel > 0 && op_id == AG_OP_CUMSUM_BACKWARD)
        reversed_cumsum(tensor_values(x), lanes_of(x, axis), tensor_values(y));
    else if (y->numel > 0)
        scan_forward(tensor_values(x), lanes_of(x, axis), op_id == AG_OP_CUMPROD, tensor_values(y));
    CumCtx *c;
    y = ag_graph_record(y, op_id, &x, 1, (void **)&c, sizeof *c);
    if (c) c->axis = axis;
    return y;
}

/* ======================================================================
 * cumsum: y[k] = x[0] + ... + x[k] along the dim
 *   dx[k] = g[k] + ... + g[n-1]: the reversed cumsum of g (PyTorch's
 *   cumsum_backward, flip(cumsum(flip(g)))), from 0 at the end; g itself
 *   where the dim has one element (or x one in all)
 * ====================================================================== */

/* dx = the reversed cumsum of g along each lane. */
static void reversed_cumsum(const double *g, Lanes l, double *dx) {
    for (int64_t o = 0; o < l.outer; o++) {
        const double *go = g + o * l.n * l.inner;
        double *d = dx + o * l.n * l.inner;
        int64_t last = (l.n - 1) * l.inner;
        for (int64_t i = 0; i < l.inner; i++) d[last + i] = 0.0 + go[last + i];
        for (int64_t k = l.n - 2; k >= 0; k--)
            for (int64_t i = 0; i < l.inner; i++)
                d[k * l.inner + i] = d[(k + 1) * l.inner + i] + go[k * l.inner + i];
    }
}

static void cumsum_backward(Function *self, void *ctx, Tensor *g) {
    const CumCtx *c = ctx;
    Tensor *x = self->inputs[0];
    Lanes l = lanes_of(x, c->axis);
    if (g->numel <= 1 || l.n == 1) { /* PyTorch's trivial case: g as it is */
        ag_accumulate_grad(x, tensor_retain(g));
        return;
    }
    Tensor *dx = ag_tensor_new_like(g);
    if (!dx) return;
    reversed_cumsum(tensor_values(g), l, tensor_values(dx));
    ag_accumulate_grad(x, dx);
}

/* cumsum_backward (g, the reversed cumsum) as recorded ops */
static int cumsum_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const CumCtx *c = ctx;
    GradTemps t = {0};
    Lanes l = lanes_of(self->inputs[0], c->axis);
    if (g->numel <= 1 || l.n == 1)
        grads[0] = tensor_retain(g);
    else
        grads[0] = ag_grad_out(&t, tensor_cumsum_backward(g, c->axis));
    return ag_grad_done(&t);
}

Tensor *tensor_cumsum(Tensor *x, int64_t dim) { return cum_forward(AG_OP_CUMSUM, x, dim); }

static Tensor *cumsum_call(const AgOpArgs *a) { return tensor_cumsum(a->t[0], a->ints[0]); }

const AgOpInfo ag_op_cumsum = {
    .id = AG_OP_CUMSUM, .name = "cumsum", .signature = "cumsum(input, dim)", .params = "Ti",
    .help = "running sums along dim: y[k] = x[0] + ... + x[k]",
    .rule = "grad_x[k] = g[k] + ... + g[n-1] along the dim (the reversed cumsum of g)",
    .backward_name = "CumsumBackward", .call = cumsum_call, .backward = cumsum_backward,
    .graph_backward = cumsum_graph, .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
    .dtype_rule = AG_DTYPE_SUM,
};

/* ======================================================================
 * cumsum_backward: dx[k] = g[k] + ... + g[n-1] along the dim, cumsum's
 * gradient kernel as an op of its own (hidden), so that create_graph keeps
 * its bits; linear, its gradient is the cumsum of gg (its adjoint)
 * ====================================================================== */

static int cumsum_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    const CumCtx *c = ctx;
    GradTemps t = {0};
    (void)self;
    grads[0] = ag_grad_out(&t, tensor_cumsum(gg, c->axis));
    return ag_grad_done(&t);
}

static void cumsum_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, cumsum_backward_graph);
}

Tensor *tensor_cumsum_backward(Tensor *g, int64_t dim) {
    return cum_forward(AG_OP_CUMSUM_BACKWARD, g, dim);
}

static Tensor *cumsum_backward_call(const AgOpArgs *a) {
    return tensor_cumsum_backward(a->t[0], a->ints[0]);
}

const AgOpInfo ag_op_cumsum_backward = {
    .id = AG_OP_CUMSUM_BACKWARD, .name = "cumsum_backward",
    .signature = "cumsum_backward(grad, dim)", .params = "Ti",
    .help = "the reversed cumsum of grad along dim: cumsum's gradient, an op so it can be "
            "differentiated",
    .rule = "grad_grad = cumsum(gg, dim)", .backward_name = "CumsumBackwardBackward",
    .call = cumsum_backward_call, .backward = cumsum_backward_backward,
    .graph_backward = cumsum_backward_graph, .flags = AG_OP_HIDDEN | AG_OP_SAVES_NOTHING,
    .dtype_rule = AG_DTYPE_SUM,
};

/* ======================================================================
 * cumprod: y[k] = x[0] * ... * x[k] along the dim
 *   PyTorch 1.13's cumprod_backward, lane by lane (its masks select the
 *   same), with w = y * g:
 *   - a lane without zeros: dx[k] = (w[k] + ... + w[n-1]) / x[k], the
 *     reversed cumsum from 0 at the end;
 *   - with its first zero at z1 (and its second at z2, or n): before z1
 *     the same over w[k .. z1-1]; at z1, y[z1-1] (1 when z1 = 0) times
 *     g[z1] + sum over z1 < j < z2 of g[j] * x[z1+1] * ... * x[j], a
 *     sum over the whole dim (zeros outside) in its sum's order; after
 *     z1, 0.
 *   A float32 x has PyTorch's float32 steps: w, the reversed cumsum and
 *   the product rounded (its tensors between ops are float32), the running
 *   products in double (its cumprod's accumulator).
 * ====================================================================== */

static double round_if(double v, bool f32) { return f32 ? (double)(float)v : v; }

/* dx[k] for k < end: the reversed cumsum of w = y * g over [k, end),
 * divided by x[k]; 0 from end on. Lane elements at stride s. */
static void before_zero(const double *x, const double *y, const double *g, int64_t end,
                        int64_t n, int64_t s, bool f32, double *dx) {
    double acc = 0.0;
    for (int64_t k = n - 1; k >= end; k--) dx[k * s] = 0.0;
    for (int64_t k = end - 1; k >= 0; k--) {
        acc += round_if(y[k * s] * g[k * s], f32);
        dx[k * s] = round_if(acc, f32) / x[k * s];
    }
}

/* Index of the first zero of a lane of n at stride s, from k; n if none. */
static int64_t next_zero(const double *x, int64_t k, int64_t n, int64_t s) {
    while (k < n && x[k * s] != 0.0) k++;
    return k;
}

/* The terms PyTorch sums for the first zero z1 of a lane (second zero or
 * end z2): cumprod of x with 1 outside (z1, z2), times g inside [z1, z2)
 * and 0 outside; zeros for a lane without a zero. */
static void zero_terms(const double *x, const double *g, int64_t n, int64_t s, bool f32,
                       double *t) {
    int64_t z1 = next_zero(x, 0, n, s), z2 = z1 < n ? next_zero(x, z1 + 1, n, s) : n;
    double run = 1.0; /* the cumprod's accumulator: double for both float types */
    for (int64_t k = 0; k < n; k++) {
        if (k > z1 && k < z2) run *= x[k * s];
        t[k * s] = round_if(round_if(run, f32) * (k >= z1 && k < z2 ? g[k * s] : 0.0), f32);
    }
}

/* dx at each lane's first zero z1: the terms above summed over the dim in
 * PyTorch's order (ag's sum, keepdim), times y[z1 - 1] (1 where z1 = 0).
 * false when a tensor could not be allocated. */
static bool at_first_zeros(const Tensor *x, const Tensor *y, const Tensor *g, Lanes l,
                           int64_t axis, double *dx) {
    Tensor *terms = ag_tensor_new_like(x), *sums = NULL;
    if (terms) {
        terms->dtype = x->dtype;
        for (int64_t j = 0; j < l.outer * l.inner; j++) {
            int64_t b = lane_base(l, j);
            zero_terms(tensor_values(x) + b, tensor_values(g) + b, l.n, l.inner, x->dtype == AG_FLOAT32,
                       tensor_values(terms) + b);
        }
        sums = tensor_sum_dims(terms, &axis, 1, true);
    }
    for (int64_t j = 0; sums && j < l.outer * l.inner; j++) {
        int64_t b = lane_base(l, j), z1 = next_zero(tensor_values(x) + b, 0, l.n, l.inner);
        if (z1 == l.n) continue;
        double sum = tensor_values(sums)[j];
        dx[b + z1 * l.inner] = z1 == 0 ? sum : sum * tensor_values(y)[b + (z1 - 1) * l.inner];
    }
    bool ok = sums != NULL;
    tensor_release(terms), tensor_release(sums);
    return ok;
}

/* PyTorch's trivial case (g as it is): x of one element, or one along the dim. */
static bool cum_trivial(const Tensor *x, int axis) {
    return x->numel <= 1 || lanes_of(x, axis).n == 1;
}

/* The gradient kernel, not trivial: a new dx from x, y = cumprod(x) and g,
 * or NULL when a tensor could not be allocated. */
static Tensor *cumprod_grad(const Tensor *x, const Tensor *y, const Tensor *g, int axis) {
    Lanes l = lanes_of(x, axis);
    Tensor *dx = ag_tensor_new_like(g);
    if (!dx) return NULL;
    bool f32 = x->dtype == AG_FLOAT32, zeros = false;
    for (int64_t j = 0; j < l.outer * l.inner; j++) {
        int64_t b = lane_base(l, j), z1 = next_zero(tensor_values(x) + b, 0, l.n, l.inner);
        before_zero(tensor_values(x) + b, tensor_values(y) + b, tensor_values(g) + b, z1, l.n, l.inner, f32, tensor_values(dx) + b);
        zeros = zeros || z1 < l.n;
    }
    if (zeros && !at_first_zeros(x, y, g, l, axis, tensor_values(dx))) {
        tensor_release(dx);
        return NULL;
    }
    return dx;
}

static void cumprod_backward(Function *self, void *ctx, Tensor *g) {
    const CumCtx *c = ctx;
    Tensor *x = self->inputs[0];
    if (cum_trivial(x, c->axis)) {
        ag_accumulate_grad(x, tensor_retain(g));
        return;
    }
    Tensor *dx = cumprod_grad(x, self->output, g, c->axis);
    if (dx) ag_accumulate_grad(x, dx);
}

/* cumprod_backward (g, x): the kernel's bits, differentiable */
static int cumprod_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const CumCtx *c = ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0];
    if (cum_trivial(x, c->axis))
        grads[0] = tensor_retain(g);
    else
        grads[0] = ag_grad_out(&t, tensor_cumprod_backward(g, x, c->axis));
    return ag_grad_done(&t);
}

Tensor *tensor_cumprod(Tensor *x, int64_t dim) { return cum_forward(AG_OP_CUMPROD, x, dim); }

static Tensor *cumprod_call(const AgOpArgs *a) { return tensor_cumprod(a->t[0], a->ints[0]); }

const AgOpInfo ag_op_cumprod = {
    .id = AG_OP_CUMPROD, .name = "cumprod", .signature = "cumprod(input, dim)", .params = "Ti",
    .help = "running products along dim: y[k] = x[0] * ... * x[k]",
    .rule = "grad_x[k] = (sum_{j >= k} g[j] * y[j]) / x[k] along the dim, zeros as PyTorch's "
            "cumprod_backward",
    .backward_name = "CumprodBackward", .call = cumprod_call, .backward = cumprod_backward,
    .graph_backward = cumprod_graph, .flags = AG_OP_METHOD,
    .dtype_rule = AG_DTYPE_SUM,
};

/* ======================================================================
 * cumprod_backward: g (..), x (..) -> dx (..), cumprod's gradient kernel
 * as an op of its own (hidden), so that create_graph keeps its bits. Its
 * own gradients come from the product with x[k] omitted, zeros and all:
 *   O[k, j] = prod_{i <= j, i != k} x[i]: the cumprod over i of X[k, i],
 *             x with x[k] replaced by 1 (k a new dim before the dim)
 *   dx[k] = sum_{j >= k} g[j] O[k, j], so
 *   grad_g[j] = sum_{k <= j} gg[k] O[k, j],
 *   grad_x    = cumprod's gradient of sum_{j >= k} gg[k] g[j] O[k, j] with
 *               respect to X (cumprod_backward again, one dim wider), but
 *               where i == k (the 1s), summed over k
 * ====================================================================== */

/* A constant (n, n, 1, ..., 1) (rest 1s): 1 where j == k (eye) or
 * j >= k (not eye), k the first index and j the second. */
static Tensor *lane_mask(int64_t n, int rest, bool eye) {
    int64_t shape[AG_MAX_DIMS] = {n, n};
    for (int i = 0; i < rest; i++) shape[2 + i] = 1;
    Tensor *m = ag_tensor_new(2 + rest, shape);
    double *mv = m ? tensor_values(m) : NULL;
    for (int64_t k = 0; m && k < n; k++)
        for (int64_t j = 0; j < n; j++) mv[k * n + j] = eye ? j == k : j >= k;
    return m;
}

/* X[k, i]: x (axis d) spread along a new dim k at d, with x[k] replaced by 1. */
static Tensor *x_omitting(GradTemps *t, Tensor *x, int d, Tensor *eye) {
    int64_t sizes[AG_MAX_DIMS];
    for (int i = 0, j = 0; i <= x->ndim; i++) sizes[i] = i == d ? x->shape[d] : x->shape[j++];
    Tensor *wide = ag_grad_tmp(t, tensor_expand(ag_grad_tmp(t, tensor_unsqueeze(x, d)),
                                                x->ndim + 1, sizes));
    return tensor_where(eye, ag_grad_num(t, 1.0), wide);
}

static int cumprod_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    const CumCtx *c = ctx;
    GradTemps t = {0};
    Tensor *g = self->inputs[0], *x = self->inputs[1], *zero = ag_grad_num(&t, 0.0);
    if (cum_trivial(x, c->axis)) { /* dx = g */
        if (ag_grad_wanted(self, 0)) grads[0] = tensor_retain(gg);
        if (ag_grad_wanted(self, 1)) grads[1] = ag_grad_out(&t, ag_tensor_filled_like(x, 0.0));
        return ag_grad_done(&t);
    }
    int d = c->axis, rest = x->ndim - d - 1;
    int64_t k_dim = d, n = x->shape[d];
    Tensor *eye = ag_grad_tmp(&t, lane_mask(n, rest, true));
    Tensor *upper = ag_grad_tmp(&t, lane_mask(n, rest, false));
    Tensor *omitted = ag_grad_tmp(&t, x_omitting(&t, x, d, eye));
    Tensor *gg_k = ag_grad_tmp(&t, tensor_unsqueeze(gg, d + 1));
    if (ag_grad_wanted(self, 0)) {
        Tensor *products = ag_grad_tmp(&t, tensor_cumprod(omitted, d + 1));
        Tensor *weighted = ag_grad_tmp(&t, tensor_mul(gg_k, products));
        Tensor *terms = ag_grad_tmp(&t, tensor_where(upper, weighted, zero));
        grads[0] = ag_grad_out(&t, tensor_sum_dims(terms, &k_dim, 1, false));
    }
    if (ag_grad_wanted(self, 1)) {
        Tensor *g_j = ag_grad_tmp(&t, tensor_unsqueeze(g, d));
        Tensor *outer = ag_grad_tmp(&t, tensor_mul(gg_k, g_j));
        Tensor *w = ag_grad_tmp(&t, tensor_where(upper, outer, zero));
        Tensor *through = ag_grad_tmp(&t, tensor_cumprod_backward(w, omitted, d + 1));
        Tensor *to_x = ag_grad_tmp(&t, tensor_where(eye, zero, through)); /* not the 1s */
        grads[1] = ag_grad_out(&t, tensor_sum_dims(to_x, &k_dim, 1, false));
    }
    return ag_grad_done(&t);
}

static void cumprod_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, cumprod_backward_graph);
}

Tensor *tensor_cumprod_backward(Tensor *g, Tensor *x, int64_t dim) {
    int axis = cum_axis("cumprod_backward", x, dim);
    if (axis < 0) return NULL;
    if (!g) return ag_fail("cumprod_backward: argument is NULL");
    if (!ag_shape_equal(g->ndim, g->shape, x->ndim, x->shape))
        return ag_fail("cumprod_backward: grad and input differ in shape");
    Tensor *dx;
    if (cum_trivial(x, axis)) {
        dx = ag_tensor_new_like(g);
        if (dx) memcpy(tensor_values(dx), tensor_values(g), (size_t)g->numel * sizeof *tensor_values(g));
    } else {
        Tensor *y = ag_tensor_new_like(x); /* cumprod(x), as its forward rounds it */
        if (!y) return NULL;
        scan_forward(tensor_values(x), lanes_of(x, axis), true, tensor_values(y));
        for (int64_t i = 0; x->dtype == AG_FLOAT32 && i < y->numel; i++)
            tensor_values(y)[i] = (float)tensor_values(y)[i];
        dx = cumprod_grad(x, y, g, axis);
        tensor_release(y);
    }
    if (!dx) return NULL;
    CumCtx *c;
    dx = ag_graph_record(dx, AG_OP_CUMPROD_BACKWARD, (Tensor *[]){g, x}, 2, (void **)&c, sizeof *c);
    if (c) c->axis = axis;
    return dx;
}

static Tensor *cumprod_backward_call(const AgOpArgs *a) {
    return tensor_cumprod_backward(a->t[0], a->t[1], a->ints[0]);
}

const AgOpInfo ag_op_cumprod_backward = {
    .id = AG_OP_CUMPROD_BACKWARD, .name = "cumprod_backward",
    .signature = "cumprod_backward(grad, input, dim)", .params = "TTi",
    .help = "cumprod's gradient of grad at input, an op so it can be differentiated",
    .rule = "grad_grad[j] = sum_{k <= j} gg[k] O[k, j], grad_input through O, "
            "O[k, j] = prod_{i <= j, i != k} input[i]",
    .backward_name = "CumprodBackwardBackward", .call = cumprod_backward_call,
    .backward = cumprod_backward_backward, .graph_backward = cumprod_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_SUM,
};
