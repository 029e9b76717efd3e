/*
 * nn.c — the neural-net helpers: softmax and log_softmax (along one axis).
 * Fused for numerical stability (max subtracted before exp) and so that
 * each shows as one node in the graph; and their gradients as ops of their
 * own (softmax_backward, log_softmax_backward), so that a gradient made
 * with create_graph has the fused kernels' bits and can be differentiated
 * again. The losses are in loss.c.
 */
#include "elementwise.h"

#include <math.h>
#include <string.h>

/* x viewed as (outer, n, inner) around the axis; element (o, k, i).
 * last: the axis is x's last (PyTorch's vectorised kernels; another axis
 * takes its scalar ones, even where inner is 1). */
typedef struct {
    int64_t outer, n, inner;
    bool last;
} Lanes;

static Lanes lanes(const Tensor *x, int axis) {
    if (x->ndim == 0) return (Lanes){1, 1, 1, true};
    Lanes l = {ag_shape_prod(x->shape, 0, axis), x->shape[axis],
               ag_shape_prod(x->shape, axis + 1, x->ndim), axis == x->ndim - 1};
    return l;
}

static double vec_reduce_sum(const double *v, int64_t n);

/* tmp[k] = exp(v[k] - m) for k < n, SLEEF's exp by blocks (PyTorch's
 * vectorised kernels along the last axis). */
static void exp_dev_contiguous(const double *v, int64_t n, double m, double *tmp) {
    for (int64_t k0 = 0; k0 < n; k0 += BLOCK) {
        int64_t len = n - k0 < BLOCK ? n - k0 : BLOCK;
        _Alignas(64) double e[BLOCK] = {0};
        for (int64_t k = 0; k < len; k++) e[k] = v[k0 + k] - m;
        block_exp(e, e);
        memcpy(tmp + k0, e, (size_t)len * sizeof *e);
    }
}

/* max and sum(exp(v - max)) of n values at stride s; tmp (n values at the
 * same stride: the output lane will do) receives exp(v - max), as PyTorch
 * 1.13's log_softmax and softmax kernels compute it: along the last axis
 * (AG_LANE_LAST, s = 1) SLEEF's exp, summed in vec::reduce_all's order;
 * along another, vectorised across the inner elements, the sum in order,
 * exp SLEEF's on whole vectors of 4 (AG_LANE_VEC) and libm's on the last
 * inner % 4 (AG_LANE_SCALAR). */
static double lane_sumexp(const double *v, int64_t n, int64_t s, AgLane kind, double *tmp,
                          double *max) {
    double m = -INFINITY;
    for (int64_t k = 0; k < n; k++)
        if (v[k * s] > m) m = v[k * s];
    if (m == -INFINITY) m = 0.0; /* all -inf: keep exp finite */
    *max = m;
    if (kind == AG_LANE_LAST && n > 0) {
        exp_dev_contiguous(v, n, m, tmp);
        return vec_reduce_sum(tmp, n);
    }
    double sum = 0.0;
    for (int64_t k = 0; k < n; k++) {
        _Alignas(64) double t[BLOCK] = {v[k * s] - m};
        if (kind == AG_LANE_VEC)
            block_exp(t, t);
        else
            t[0] = ag_libm_exp(t[0]);
        tmp[k * s] = t[0];
        sum += t[0];
    }
    return sum;
}

/* log(sum) as PyTorch's log_softmax takes it, in every lane: SLEEF's
 * (vec::map over the lanes' sums). */
static double lane_log(double sum) {
    _Alignas(64) double t[BLOCK] = {sum};
    block_log(t, t);
    return t[0];
}

/* Which of PyTorch's lanes lane i of l is. */
static AgLane lane_kind(Lanes l, int64_t i) {
    return l.last ? AG_LANE_LAST : i < l.inner - l.inner % 4 ? AG_LANE_VEC : AG_LANE_SCALAR;
}

/* max and log(sum(exp(v - max))), as lane_sumexp. Shared with loss.c
 * (cross_entropy). */
void ag_lane_logsumexp(const double *v, int64_t n, int64_t s, AgLane kind, double *tmp,
                       double *max, double *lse) {
    *lse = lane_log(lane_sumexp(v, n, s, kind, tmp, max));
}

void ag_lane_exp(const double *y, int64_t n, AgLane kind, double *out) {
    if (kind == AG_LANE_LAST) {
        exp_dev_contiguous(y, n, 0.0, out);
        return;
    }
    for (int64_t k = 0; k < n; k++) {
        _Alignas(64) double t[BLOCK] = {y[k]};
        if (kind == AG_LANE_VEC)
            block_exp(t, t);
        else
            t[0] = ag_libm_exp(t[0]);
        out[k] = t[0];
    }
}

typedef struct {
    int axis;
} SoftmaxCtx;

/* y = softmax (or log_softmax) of each lane of x, PyTorch's formulas:
 *   log_softmax: (x - max) - log(sum(exp(x - max)))
 *   softmax:     exp(x - max) * (1 / sum(exp(x - max))) along the last
 *                axis, exp(x - max) / sum(...) along another
 * (softmax is not exp(log_softmax): x - max - lse rounds to the ulp of x -
 * max, 1e-13 at -700, which exp turns into a relative error.) Only for a
 * tensor with elements: an empty one may have 10^18 empty lanes. */
static void softmax_lanes(const double *xd, Lanes l, bool log_space, double *y) {
    for (int64_t o = 0; o < l.outer; o++)
        for (int64_t i = 0; i < l.inner; i++) {
            int64_t base = o * l.n * l.inner + i, s = l.inner;
            const double *xv = xd + base;
            double *yv = y + base, m;
            AgLane kind = lane_kind(l, i);
            double sum = lane_sumexp(xv, l.n, s, kind, yv, &m); /* yv: exp(x - max) */
            if (log_space) {
                double lse = lane_log(sum);
                for (int64_t k = 0; k < l.n; k++) yv[k * s] = xv[k * s] - m - lse;
            } else if (l.last) {
                double r = 1.0 / sum;
                for (int64_t k = 0; k < l.n; k++) yv[k] *= r;
            } else {
                for (int64_t k = 0; k < l.n; k++) yv[k * s] /= sum;
            }
        }
}

/* A kernel over lanes: out of a and b (b may be unused), laid out as l. */
typedef void (*LaneKernel)(const double *a, const double *b, Lanes l, double *out);

static void softmax_kernel(const double *x, const double *unused, Lanes l, double *y) {
    (void)unused;
    softmax_lanes(x, l, false, y);
}

static void log_softmax_kernel(const double *x, const double *unused, Lanes l, double *y) {
    (void)unused;
    softmax_lanes(x, l, true, y);
}

/* Threads: the lanes of a range of outer indices each (a batch's rows);
 * each lane is computed alone, the same bits. */
typedef struct {
    LaneKernel kernel;
    const double *a, *b;
    Lanes l;
    double *out;
} LaneJob;

static void lane_range(void *ctx, int64_t begin, int64_t end) {
    const LaneJob *j = ctx;
    Lanes sub = j->l;
    sub.outer = end - begin;
    int64_t at = begin * j->l.n * j->l.inner;
    j->kernel(j->a + at, j->b + at, sub, j->out + at);
}

/* kernel over every lane of l, split between threads above the grain. */
static void lanes_apply(LaneKernel kernel, const double *a, const double *b, Lanes l,
                        double *out) {
    int64_t per = l.n * l.inner; /* elements per outer index */
    if (l.outer > 1 && ag_parallel_worth(l.outer * per, AG_GRAIN_MATH)) {
        int64_t grain = AG_GRAIN_MATH / per;
        ag_parallel_for(l.outer, grain < 1 ? 1 : grain, lane_range,
                        &(LaneJob){kernel, a, b ? b : a, l, out});
        return;
    }
    kernel(a, b ? b : a, l, out);
}

/* axis of x normalised (a 0-d x takes 0 or -1, as in PyTorch: one lane of
 * one), or -1 with op's message. */
static int lane_axis(const char *op, const Tensor *x, int axis) {
    if (x->ndim == 0 && (axis == 0 || axis == -1)) return 0;
    return ag_normalize_axis(op, axis, x->ndim);
}

/* Shared forward: y = softmax or log_softmax of x along axis. */
static Tensor *softmax_forward(int op_id, Tensor *x, int axis, bool log_space) {
    const char *op = ag_op_at(op_id)->name;
    if (!x) return ag_fail("%s: argument is NULL", op);
    if ((axis = lane_axis(op, x, axis)) < 0) return NULL;
    Tensor *y = ag_tensor_new_like(x);
    if (!y) return NULL;
    if (y->numel > 0)
        lanes_apply(log_space ? log_softmax_kernel : softmax_kernel, tensor_values(x), NULL,
                    lanes(x, axis), tensor_values(y));
    SoftmaxCtx *c;
    y = ag_graph_record(y, op_id, &x, 1, (void **)&c, sizeof *c);
    if (c) c->axis = axis;
    return y;
}

/* A lane kernel of a gradient: dx of g and y (both laid out as l). */
typedef LaneKernel LaneGradKernel;

/* Forward of softmax_backward and log_softmax_backward: kernel's dx of g
 * and y (one shape) along axis, recorded with the axis. */
static Tensor *lane_grad_forward(int op_id, LaneGradKernel kernel, Tensor *g, Tensor *y,
                                 int axis) {
    const char *op = ag_op_at(op_id)->name;
    if (!g || !y) return ag_fail("%s: an operand is NULL", op);
    if (!ag_shape_equal(g->ndim, g->shape, y->ndim, y->shape)) {
        char gs[AG_SHAPE_STR_MAX], ys[AG_SHAPE_STR_MAX];
        return ag_fail("%s: grad %s and output %s differ in shape", op,
                       ag_shape_str(g->ndim, g->shape, gs, sizeof gs),
                       ag_shape_str(y->ndim, y->shape, ys, sizeof ys));
    }
    if ((axis = lane_axis(op, y, axis)) < 0) return NULL;
    Tensor *dx = ag_tensor_new_like(y);
    if (!dx) return NULL;
    if (dx->numel > 0) lanes_apply(kernel, tensor_values(y), tensor_values(g), lanes(y, axis), tensor_values(dx));
    SoftmaxCtx *c;
    dx = ag_graph_record(dx, op_id, (Tensor *[]){g, y}, 2, (void **)&c, sizeof *c);
    if (c) c->axis = axis;
    return dx;
}

/* sum(t) along the recorded axis, kept at size 1 (a recorded op). */
static Tensor *lane_sum(Tensor *t, const SoftmaxCtx *c) {
    int64_t axis = c->axis;
    return tensor_sum_dims(t, &axis, 1, true);
}

/* ======================================================================
 * softmax: y = exp(x - max) / sum(exp(x - max)) along the axis
 *   dx = y * (g - sum_k(g * y))
 * ====================================================================== */

/* PyTorch's vec::map2_reduce_all of g * y with + over n contiguous values,
 * 4 lanes (AVX2): fewer than 4 summed in order; else the first vector's
 * products, the rest fused into their lanes (its build contracts
 * acc + g * y), then the lanes in order. */
static double vec_dot(const double *g, const double *y, int64_t n) {
    if (n < 4) {
        double s = g[0] * y[0];
        for (int64_t k = 1; k < n; k++) s += g[k] * y[k];
        return s;
    }
    double acc[4];
    for (int j = 0; j < 4; j++) acc[j] = g[j] * y[j];
    for (int64_t k = 4; k < n; k++) acc[k % 4] = fma(g[k], y[k], acc[k % 4]);
    return ((acc[0] + acc[1]) + acc[2]) + acc[3];
}

/* Each lane: dx = (g - sum(g * y)) * y (PyTorch's order), dx holding g * y
 * while it is summed. Only for a tensor with elements. */
static void softmax_backward_lanes(const double *y, const double *g, Lanes l, double *dx) {
    for (int64_t o = 0; o < l.outer; o++)
        for (int64_t i = 0; i < l.inner; i++) {
            int64_t base = o * l.n * l.inner + i, s = l.inner;
            const double *yv = y + base, *gv = g + base;
            double *dv = dx + base;
            double dot;
            if (l.last) {
                dot = vec_dot(gv, yv, l.n);
            } else {
                dot = 0.0;
                for (int64_t k = 0; k < l.n; k++) dot = fma(gv[k * s], yv[k * s], dot);
            }
            for (int64_t k = 0; k < l.n; k++) dv[k * s] = (gv[k * s] - dot) * yv[k * s];
        }
}

static void softmax_backward(Function *self, void *ctx, Tensor *g) {
    SoftmaxCtx *c = ctx;
    const Tensor *y = self->output;
    Tensor *dx = ag_tensor_new_like(g);
    if (!dx) return;
    if (dx->numel > 0)
        lanes_apply(softmax_backward_lanes, tensor_values(y), tensor_values(g), lanes(y, c->axis), tensor_values(dx));
    ag_accumulate_grad(self->inputs[0], dx);
}

/* softmax's gradient as a recorded op: softmax_backward(g, y). */
static int softmax_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    SoftmaxCtx *c = ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, tensor_softmax_backward(g, self->output, c->axis));
    return ag_grad_done(&t);
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
    .graph_backward = softmax_graph, .flags = AG_OP_METHOD | AG_OP_SAVES_READS, .grad_reads = {AG_CHECKS_OUTPUT},
    .dtype_rule = AG_DTYPE_FLOATING,
};

/* ======================================================================
 * softmax_backward: dx = (g - sum(g * y)) * y along the axis, softmax's
 * gradient kernel (its fused dot product) as an op of its own (PyTorch's
 * _softmax_backward_data): softmax's graph_backward makes its gradient
 * with it, so the gradient has the first-order kernel's bits and can be
 * differentiated again:
 *   grad_g = softmax_backward(gg, y)   (diag(y) - y y^T is symmetric)
 *   grad_y = gg * (g - sum(g * y)) - g * sum(gg * y)
 * Its first-order backward is the same formula (ag_apply_by_graph).
 * ====================================================================== */

static int softmax_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    SoftmaxCtx *c = ctx;
    GradTemps t = {0};
    Tensor *g = self->inputs[0], *y = self->inputs[1];
    if (ag_grad_wanted(self, 0))
        grads[0] = ag_grad_out(&t, tensor_softmax_backward(gg, y, c->axis));
    if (ag_grad_wanted(self, 1)) {
        Tensor *dot = ag_grad_tmp(&t, lane_sum(ag_grad_tmp(&t, tensor_mul(g, y)), c));
        Tensor *ggy = ag_grad_tmp(&t, lane_sum(ag_grad_tmp(&t, tensor_mul(gg, y)), c));
        Tensor *own = ag_grad_tmp(&t, tensor_mul(gg, ag_grad_tmp(&t, tensor_sub(g, dot))));
        grads[1] = ag_grad_out(&t, tensor_sub(own, ag_grad_tmp(&t, tensor_mul(g, ggy))));
    }
    return ag_grad_done(&t);
}

static void softmax_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, softmax_backward_graph);
}

Tensor *tensor_softmax_backward(Tensor *g, Tensor *y, int axis) {
    return lane_grad_forward(AG_OP_SOFTMAX_BACKWARD, softmax_backward_lanes, g, y, axis);
}

static Tensor *softmax_backward_call(const AgOpArgs *a) {
    return tensor_softmax_backward(a->t[0], a->t[1], (int)a->ints[0]);
}

const AgOpInfo ag_op_softmax_backward = {
    .id = AG_OP_SOFTMAX_BACKWARD, .name = "softmax_backward",
    .signature = "softmax_backward(grad, output, dim)", .params = "TTi",
    .help = "(grad - sum(grad * output)) * output along dim: softmax's gradient, an op so it "
            "can be differentiated",
    .rule = "grad_grad = softmax_backward(gg, output), grad_output = gg * (grad - "
            "sum(grad * output)) - grad * sum(gg * output)",
    .backward_name = "SoftmaxBackwardBackward", .call = softmax_backward_call,
    .backward = softmax_backward_backward, .graph_backward = softmax_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
};

/* ======================================================================
 * log_softmax: y = x - max - log(sum(exp(x - max))) along the axis
 *   dx = g - exp(y) * sum_k(g), as PyTorch 1.13's two kernels compute it:
 *   along the last axis (its vectorised kernel) SLEEF's exp and the sum in
 *   vec::reduce_all's order; along another (its scalar kernel) libm's exp
 *   and the sum in order. Both fuse g - e * sum into one fma (its build
 *   contracts them): ag's plain expression was 6 ulps off.
 * ====================================================================== */

/* PyTorch's vec::reduce_all(+) of n contiguous values, 4 lanes (AVX2):
 * fewer than 4 summed in order; else lane-wise sums of whole vectors, the
 * rest added to the first lanes, then the lanes in order. */
static double vec_reduce_sum(const double *v, int64_t n) {
    if (n < 4) {
        double s = v[0];
        for (int64_t k = 1; k < n; k++) s += v[k];
        return s;
    }
    double acc[4] = {v[0], v[1], v[2], v[3]};
    int64_t d = 4;
    for (; d + 4 <= n; d += 4)
        for (int j = 0; j < 4; j++) acc[j] += v[d + j];
    for (int j = 0; d + j < n; j++) acc[j] += v[d + j];
    return ((acc[0] + acc[1]) + acc[2]) + acc[3];
}

/* A contiguous lane: dx = fma(-exp(y), gsum, g), exp SLEEF's, by blocks. */
static void log_softmax_grad_last(const double *yv, const double *gv, int64_t n, double *dv) {
    double gsum = vec_reduce_sum(gv, n);
    for (int64_t k0 = 0; k0 < n; k0 += BLOCK) {
        int64_t m = n - k0 < BLOCK ? n - k0 : BLOCK;
        _Alignas(64) double e[BLOCK] = {0};
        memcpy(e, yv + k0, (size_t)m * sizeof *e);
        block_exp(e, e);
        for (int64_t k = 0; k < m; k++) dv[k0 + k] = fma(-e[k], gsum, gv[k0 + k]);
    }
}

/* Each lane: dx = g - exp(y) * sum(g). Only for a tensor with elements. */
static void log_softmax_backward_lanes(const double *y, const double *g, Lanes l, double *dx) {
    for (int64_t o = 0; o < l.outer; o++)
        for (int64_t i = 0; i < l.inner; i++) {
            int64_t base = o * l.n * l.inner + i, s = l.inner;
            const double *yv = y + base, *gv = g + base;
            if (l.last) {
                log_softmax_grad_last(yv, gv, l.n, dx + base);
                continue;
            }
            double gsum = 0.0;
            bool vec = lane_kind(l, i) == AG_LANE_VEC;
            for (int64_t k = 0; k < l.n; k++) gsum += gv[k * s];
            for (int64_t k = 0; k < l.n; k++) {
                _Alignas(64) double e[BLOCK] = {yv[k * s]};
                if (vec)
                    block_exp(e, e);
                else
                    e[0] = ag_libm_exp(e[0]);
                dx[base + k * s] = fma(-e[0], gsum, gv[k * s]);
            }
        }
}

static void log_softmax_backward(Function *self, void *ctx, Tensor *g) {
    SoftmaxCtx *c = ctx;
    const Tensor *y = self->output;
    Tensor *dx = ag_tensor_new_like(g);
    if (!dx) return;
    if (dx->numel > 0)
        lanes_apply(log_softmax_backward_lanes, tensor_values(y), tensor_values(g), lanes(y, c->axis), tensor_values(dx));
    ag_accumulate_grad(self->inputs[0], dx);
}

/* log_softmax's gradient as a recorded op: log_softmax_backward(g, y). */
static int log_softmax_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    SoftmaxCtx *c = ctx;
    GradTemps t = {0};
    grads[0] = ag_grad_out(&t, tensor_log_softmax_backward(g, self->output, c->axis));
    return ag_grad_done(&t);
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
    .backward = log_softmax_backward, .graph_backward = log_softmax_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS, .grad_reads = {AG_CHECKS_OUTPUT}, .dtype_rule = AG_DTYPE_FLOATING,
};

/* ======================================================================
 * log_softmax_backward: dx = g - exp(y) * sum(g) along the axis,
 * log_softmax's gradient kernel (its exp and fused g - e * sum) as an op
 * of its own (PyTorch's _log_softmax_backward_data), for log_softmax's
 * graph_backward as softmax_backward is for softmax's:
 *   grad_g = gg - sum(gg * exp(y)),  grad_y = -(gg * exp(y)) * sum(g)
 * Its first-order backward is the same formula (ag_apply_by_graph).
 * ====================================================================== */

static int log_softmax_backward_graph(Function *self, void *ctx, Tensor *gg, Tensor **grads) {
    SoftmaxCtx *c = ctx;
    GradTemps t = {0};
    Tensor *g = self->inputs[0], *y = self->inputs[1];
    Tensor *gge = ag_grad_tmp(&t, tensor_mul(gg, ag_grad_tmp(&t, tensor_exp(y))));
    if (ag_grad_wanted(self, 0))
        grads[0] = ag_grad_out(&t, tensor_sub(gg, ag_grad_tmp(&t, lane_sum(gge, c))));
    if (ag_grad_wanted(self, 1))
        grads[1] = ag_grad_out(&t, tensor_mul(ag_grad_tmp(&t, tensor_neg(gge)),
                                              ag_grad_tmp(&t, lane_sum(g, c))));
    return ag_grad_done(&t);
}

static void log_softmax_backward_backward(Function *self, void *ctx, Tensor *gg) {
    ag_apply_by_graph(self, ctx, gg, log_softmax_backward_graph);
}

Tensor *tensor_log_softmax_backward(Tensor *g, Tensor *y, int axis) {
    return lane_grad_forward(AG_OP_LOG_SOFTMAX_BACKWARD, log_softmax_backward_lanes, g, y, axis);
}

static Tensor *log_softmax_backward_call(const AgOpArgs *a) {
    return tensor_log_softmax_backward(a->t[0], a->t[1], (int)a->ints[0]);
}

const AgOpInfo ag_op_log_softmax_backward = {
    .id = AG_OP_LOG_SOFTMAX_BACKWARD, .name = "log_softmax_backward",
    .signature = "log_softmax_backward(grad, output, dim)", .params = "TTi",
    .help = "grad - exp(output) * sum(grad) along dim: log_softmax's gradient, an op so it "
            "can be differentiated",
    .rule = "grad_grad = gg - sum(gg * exp(output)), grad_output = -gg * exp(output) * "
            "sum(grad)",
    .backward_name = "LogSoftmaxBackwardBackward", .call = log_softmax_backward_call,
    .backward = log_softmax_backward_backward, .graph_backward = log_softmax_backward_graph,
    .flags = AG_OP_HIDDEN, .dtype_rule = AG_DTYPE_FLOATING,
};
