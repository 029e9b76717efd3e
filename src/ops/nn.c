/*
 * nn.c — the neural-net helpers: softmax, log_softmax (along one axis),
 * mse and cross_entropy (mean losses). Fused for numerical stability (max
 * subtracted before exp) and so that each shows as one node in the graph.
 */
#include "../internal.h"

#include <math.h>
#include <string.h>

/* x viewed as (outer, n, inner) around the axis; element (o, k, i). */
typedef struct {
    int64_t outer, n, inner;
} Lanes;

static Lanes lanes(const Tensor *x, int axis) {
    if (x->ndim == 0) return (Lanes){1, 1, 1};
    Lanes l = {ag_shape_prod(x->shape, 0, axis), x->shape[axis],
               ag_shape_prod(x->shape, axis + 1, x->ndim)};
    return l;
}

/* max and log(sum(exp(v - max))) of n values at stride s; tmp (n values at
 * the same stride: the output lane will do) receives exp(v - max), which is
 * summed pairwise (ag_sum). */
static void lane_logsumexp(const double *v, int64_t n, int64_t s, double *tmp, double *max,
                           double *lse) {
    double m = -INFINITY;
    for (int64_t k = 0; k < n; k++)
        if (v[k * s] > m) m = v[k * s];
    if (m == -INFINITY) m = 0.0; /* all -inf: keep exp finite */
    for (int64_t k = 0; k < n; k++) tmp[k * s] = exp(v[k * s] - m);
    *max = m;
    *lse = log(ag_sum(tmp, n, s));
}

typedef struct {
    int axis;
} SoftmaxCtx;

/* y = softmax (or log_softmax) of each lane of x. Only for a tensor with
 * elements: an empty one may have 10^18 empty lanes. */
static void softmax_lanes(const Tensor *x, Lanes l, bool log_space, double *y) {
    for (int64_t o = 0; o < l.outer; o++)
        for (int64_t i = 0; i < l.inner; i++) {
            int64_t base = o * l.n * l.inner + i, s = l.inner;
            const double *xv = x->data + base;
            double *yv = y + base, m, lse;
            lane_logsumexp(xv, l.n, s, yv, &m, &lse);
            for (int64_t k = 0; k < l.n; k++) {
                double z = xv[k * s] - m - lse;
                yv[k * s] = log_space ? z : exp(z);
            }
        }
}

/* Shared forward: y = softmax or log_softmax of x along axis. */
static Tensor *softmax_forward(int op_id, Tensor *x, int axis, bool log_space) {
    const char *op = ag_op_at(op_id)->name;
    if (!x) return ag_fail("%s: argument is NULL", op);
    /* A 0-d tensor takes axis 0 or -1, as in PyTorch: one lane of one. */
    if (x->ndim == 0 && (axis == 0 || axis == -1)) axis = 0;
    else if ((axis = ag_normalize_axis(op, axis, x->ndim)) < 0) return NULL;
    Tensor *y = ag_tensor_new_like(x);
    if (!y) return NULL;
    if (y->numel > 0) softmax_lanes(x, lanes(x, axis), log_space, y->data);
    SoftmaxCtx *c;
    y = ag_graph_record(y, op_id, &x, 1, (void **)&c, sizeof *c);
    if (c) c->axis = axis;
    return y;
}

/* ======================================================================
 * softmax: y = exp(x - max) / sum(exp(x - max)) along the axis
 *   dx = y * (g - sum_k(g * y))
 * ====================================================================== */

/* Each lane: dx = (g - sum(g * y)) * y (PyTorch's order), dx holding g * y
 * while it is summed. Only for a tensor with elements. */
static void softmax_backward_lanes(const double *y, const double *g, Lanes l, double *dx) {
    for (int64_t o = 0; o < l.outer; o++)
        for (int64_t i = 0; i < l.inner; i++) {
            int64_t base = o * l.n * l.inner + i, s = l.inner;
            const double *yv = y + base, *gv = g + base;
            double *dv = dx + base;
            for (int64_t k = 0; k < l.n; k++) dv[k * s] = gv[k * s] * yv[k * s];
            double dot = ag_sum(dv, l.n, s);
            for (int64_t k = 0; k < l.n; k++) dv[k * s] = (gv[k * s] - dot) * yv[k * s];
        }
}

static void softmax_backward(Function *self, void *ctx, Tensor *g) {
    SoftmaxCtx *c = ctx;
    const Tensor *y = self->output;
    Tensor *dx = ag_tensor_new_like(g);
    if (!dx) return;
    if (dx->numel > 0) softmax_backward_lanes(y->data, g->data, lanes(y, c->axis), dx->data);
    ag_accumulate_grad(self->inputs[0], dx);
}

Tensor *tensor_softmax(Tensor *x, int axis) {
    return softmax_forward(AG_OP_SOFTMAX, x, axis, false);
}

static Tensor *softmax_call(const AgOpArgs *a) { return tensor_softmax(a->t[0], (int)a->ints[0]); }

const AgOpInfo ag_op_softmax = {
    .id = AG_OP_SOFTMAX, .name = "softmax", .signature = "softmax(input, dim=-1)", .params = "Ti",
    .help = "exp(x) / sum(exp(x)) along dim (default last)",
    .rule = "grad_x = y * (g - sum(g * y)) along the axis, y = softmax(x)",
    .backward_name = "SoftmaxBackward", .call = softmax_call, .backward = softmax_backward,
    .flags = AG_OP_METHOD,
};

/* ======================================================================
 * log_softmax: y = x - max - log(sum(exp(x - max))) along the axis
 *   dx = g - exp(y) * sum_k(g)
 * ====================================================================== */

/* Each lane: dx = g - exp(y) * sum(g). Only for a tensor with elements. */
static void log_softmax_backward_lanes(const double *y, const double *g, Lanes l, double *dx) {
    for (int64_t o = 0; o < l.outer; o++)
        for (int64_t i = 0; i < l.inner; i++) {
            int64_t base = o * l.n * l.inner + i, s = l.inner;
            const double *yv = y + base, *gv = g + base;
            double gsum = ag_sum(gv, l.n, s);
            for (int64_t k = 0; k < l.n; k++) dx[base + k * s] = gv[k * s] - exp(yv[k * s]) * gsum;
        }
}

static void log_softmax_backward(Function *self, void *ctx, Tensor *g) {
    SoftmaxCtx *c = ctx;
    const Tensor *y = self->output;
    Tensor *dx = ag_tensor_new_like(g);
    if (!dx) return;
    if (dx->numel > 0) log_softmax_backward_lanes(y->data, g->data, lanes(y, c->axis), dx->data);
    ag_accumulate_grad(self->inputs[0], dx);
}

Tensor *tensor_log_softmax(Tensor *x, int axis) {
    return softmax_forward(AG_OP_LOG_SOFTMAX, x, axis, true);
}

static Tensor *log_softmax_call(const AgOpArgs *a) {
    return tensor_log_softmax(a->t[0], (int)a->ints[0]);
}

const AgOpInfo ag_op_log_softmax = {
    .id = AG_OP_LOG_SOFTMAX, .name = "log_softmax", .signature = "log_softmax(input, dim=-1)",
    .params = "Ti", .help = "x - log(sum(exp(x))) along dim (default last)",
    .rule = "grad_x = g - softmax(x) * sum(g) along the axis",
    .backward_name = "LogSoftmaxBackward", .call = log_softmax_call,
    .backward = log_softmax_backward, .flags = AG_OP_METHOD,
};

/* ======================================================================
 * mse: out = mean((pred - target)^2) over the broadcast shape
 *   grad_pred = g * 2 (pred - target) / N,  grad_target = -grad_pred
 * ====================================================================== */

/* d = pred - target in the broadcast shape (ndim, shape). */
static Tensor *difference(const Tensor *pred, const Tensor *target, int ndim,
                          const int64_t *shape) {
    Tensor *p = ag_broadcast_to(pred, ndim, shape), *t = p ? ag_broadcast_to(target, ndim, shape) : NULL;
    if (t)
        for (int64_t i = 0; i < p->numel; i++) p->data[i] -= t->data[i];
    tensor_release(t);
    if (p && !t) {
        tensor_release(p);
        return NULL;
    }
    return p;
}

/* PyTorch's mse_loss_backward: (2 / n) * (pred - target) * g, and for the
 * target (2 / n) * (target - pred) * g, in that order. */
static void mse_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    Tensor *pred = self->inputs[0], *target = self->inputs[1];
    int64_t shape[AG_MAX_DIMS];
    int ndim;
    ag_broadcast_shapes("mse", pred, target, shape, &ndim);
    /* target - pred, not -(pred - target): x - x is +0 either way. */
    Tensor *dp = pred->requires_grad ? difference(pred, target, ndim, shape) : NULL;
    Tensor *dt = target->requires_grad ? difference(target, pred, ndim, shape) : NULL;
    if ((pred->requires_grad && !dp) || (target->requires_grad && !dt)) {
        tensor_release(dp);
        tensor_release(dt);
        return;
    }
    double norm = 2.0 / (double)(dp ? dp->numel : dt->numel), gv = g->data[0];
    Tensor *grads[2] = {dp, dt}, *inputs[2] = {pred, target};
    for (int t = 0; t < 2; t++) {
        if (!grads[t]) continue;
        double *v = grads[t]->data;
        for (int64_t i = 0; i < grads[t]->numel; i++) v[i] = norm * v[i] * gv;
        ag_accumulate_grad(inputs[t], grads[t]);
    }
}

Tensor *tensor_mse(Tensor *pred, Tensor *target) {
    if (!pred || !target) return ag_fail("mse: an argument is NULL");
    int64_t shape[AG_MAX_DIMS];
    int ndim;
    if (ag_broadcast_shapes("mse", pred, target, shape, &ndim) != 0) return NULL;
    Tensor *d = difference(pred, target, ndim, shape);
    Tensor *out = d ? ag_tensor_new(0, NULL) : NULL;
    if (!out) {
        tensor_release(d);
        return NULL;
    }
    for (int64_t i = 0; i < d->numel; i++) d->data[i] *= d->data[i];
    out->data[0] = ag_sum(d->data, d->numel, 1) / (double)d->numel;
    tensor_release(d);
    return ag_graph_record(out, AG_OP_MSE_LOSS, (Tensor *[]){pred, target}, 2, NULL, 0);
}

const AgOpInfo ag_op_mse_loss = {
    .id = AG_OP_MSE_LOSS, .name = "mse_loss", .alias = "mse", .signature = "mse_loss(input, target)",
    .params = "TT", .help = "mean((pred - target)^2)",
    .rule = "grad_pred = g * 2 (pred - target) / n, grad_target = -grad_pred",
    .backward_name = "MseLossBackward", .binary = tensor_mse, .backward = mse_backward,
    .flags = AG_OP_METHOD,
};

/* ======================================================================
 * cross_entropy: out = mean_i(-log_softmax(logits[i])[c_i])
 *   logits (N, C), classes (N,) of integers in [0, C)
 *   grad_logits = g * (softmax(logits) - onehot(classes)) / N
 * PyTorch's nll_loss(log_softmax(x)), in its order of operations:
 * log_softmax is (x - max) - logsumexp (adding max and logsumexp first
 * rounds logsumexp away next to a logit of 1e16), and the gradient is
 * log_softmax's backward of nll's -g/N at the class.
 * ====================================================================== */

static void cross_entropy_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    Tensor *logits = self->inputs[0], *classes = self->inputs[1];
    int64_t N = logits->shape[0], C = logits->shape[1];
    Tensor *dl = ag_tensor_new_like(logits);
    if (!dl) return;
    /* nll's gradient is gc at the class, 0 elsewhere: its row sum is gc. */
    double gc = -(g->data[0] / (double)N);
    for (int64_t i = 0; i < N; i++) {
        const double *row = logits->data + i * C;
        double *d = dl->data + i * C, m, lse;
        int64_t cls = (int64_t)classes->data[i];
        lane_logsumexp(row, C, 1, d, &m, &lse);
        for (int64_t k = 0; k < C; k++) d[k] = (k == cls ? gc : 0.0) - exp(row[k] - m - lse) * gc;
    }
    ag_accumulate_grad(logits, dl);
}

/* Checks shapes and class indices; 0, or -1 with a message. */
static int check_classes(const Tensor *logits, const Tensor *classes) {
    char sl[AG_SHAPE_STR_MAX], sc[AG_SHAPE_STR_MAX];
    if (logits->ndim != 2 || classes->ndim != 1 || classes->shape[0] != logits->shape[0])
        return ag_fail("cross_entropy: expects logits (N, C) and classes (N,), got %s and %s",
                       tensor_shape_str(logits, sl, sizeof sl),
                       tensor_shape_str(classes, sc, sizeof sc)), -1;
    if (logits->shape[0] == 0 || logits->shape[1] == 0)
        return ag_fail("cross_entropy: logits %s have no elements",
                       tensor_shape_str(logits, sl, sizeof sl)), -1;
    if (classes->requires_grad)
        return ag_fail("cross_entropy: classes are indices and cannot require grad"), -1;
    for (int64_t i = 0; i < classes->numel; i++) {
        double c = classes->data[i];
        if (!(c >= 0 && c < (double)logits->shape[1]) || c != floor(c))
            return ag_fail("cross_entropy: class %g at index %lld is not an integer in [0, %lld)",
                           c, (long long)i, (long long)logits->shape[1]), -1;
    }
    return 0;
}

Tensor *tensor_cross_entropy(Tensor *logits, Tensor *classes) {
    if (!logits || !classes) return ag_fail("cross_entropy: an argument is NULL");
    if (check_classes(logits, classes) != 0) return NULL;
    int64_t N = logits->shape[0], C = logits->shape[1], scratch_len = N + C;
    /* scratch: the N row losses, summed pairwise, then C values for
     * lane_logsumexp */
    Tensor *out = ag_tensor_new(0, NULL), *scratch = ag_tensor_new(1, &scratch_len);
    if (!out || !scratch) {
        tensor_release(out);
        tensor_release(scratch);
        return NULL;
    }
    double *losses = scratch->data, *tmp = scratch->data + N;
    for (int64_t i = 0; i < N; i++) {
        const double *row = logits->data + i * C;
        double m, lse;
        lane_logsumexp(row, C, 1, tmp, &m, &lse);
        losses[i] = -(row[(int64_t)classes->data[i]] - m - lse);
    }
    out->data[0] = ag_sum(losses, N, 1) / (double)N;
    tensor_release(scratch);
    return ag_graph_record(out, AG_OP_CROSS_ENTROPY, (Tensor *[]){logits, classes}, 2, NULL, 0);
}

const AgOpInfo ag_op_cross_entropy = {
    .id = AG_OP_CROSS_ENTROPY, .name = "cross_entropy", .signature = "cross_entropy(input, target)",
    .params = "TT", .help = "mean NLL of logits (N, C) at integer classes (N,)",
    .rule = "grad_logits = g * (softmax(logits) - onehot(classes)) / N",
    .backward_name = "NllLossBackward", .binary = tensor_cross_entropy,
    .backward = cross_entropy_backward, .flags = AG_OP_METHOD,
};
