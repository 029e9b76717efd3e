/*
 * extreme.c — the reductions that pick an element: max and min (values,
 * with gradients) and argmax and argmin (indices, constants), over
 * everything or along one dim, with keepdim.
 *
 * Along a dim, x is viewed as (outer, n, inner) and each lane x[o, :, i]
 * gives its first extreme, or its first nan (a nan wins, as in PyTorch).
 * With dim, max and min return the values only, not PyTorch's (values,
 * indices) pair: argmax and argmin give the indices.
 *
 * Gradients (ENGINE.md, version 2, "Ties"): over everything, g is shared in
 * equal parts by every element equal to the extreme (by the nans, when it
 * is nan): PyTorch's evenly_distribute_backward. Along a dim, g goes to the
 * first extreme of each lane, whose index ctx keeps (PyTorch's indices).
 */
#include "../internal.h"

#include <math.h>
#include <string.h>

typedef struct {
    int64_t outer, n, inner;
} AxisView;

static AxisView axis_view(const Tensor *x, int axis) {
    if (axis < 0) return (AxisView){1, x->numel, 1};
    AxisView v = {ag_shape_prod(x->shape, 0, axis), x->shape[axis],
                  ag_shape_prod(x->shape, axis + 1, x->ndim)};
    return v;
}

/* Index k of the extreme of x[o, :, i]: the first one, or the first nan. */
static int64_t extreme_along(const Tensor *x, AxisView v, int64_t o, int64_t i, bool is_min) {
    const double *p = tensor_values(x) + o * v.n * v.inner + i;
    int64_t best = 0;
    for (int64_t k = 1; k < v.n; k++) {
        double cur = p[k * v.inner], top = p[best * v.inner];
        if (top != top) break;
        if ((is_min ? cur < top : cur > top) || cur != cur) best = k;
    }
    return best;
}

/* For each lane j = o * inner + i: the index k of its extreme into
 * index[j] (if index is not NULL), and into out[j] the value there
 * (values) or k itself. Only for a lane count > 0: an empty output may
 * have 10^18 empty lanes. */
static void extreme_lanes(const Tensor *x, AxisView v, bool is_min, bool values, double *out,
                          int64_t *index) {
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++) {
            int64_t j = o * v.inner + i, k = extreme_along(x, v, o, i, is_min);
            if (index) index[j] = k;
            out[j] = values ? tensor_values(x)[(o * v.n + k) * v.inner + i] : (double)k;
        }
}

/* Checks x and dim (has_dim false: over everything); *axis gets the
 * normalised axis, or -1 for everything (a 0-d x along dim 0 or -1 too).
 * Fails on an empty lane, as PyTorch: there is no extreme of nothing. */
static bool extreme_check(const char *op, bool is_min, const Tensor *x, bool has_dim,
                          int64_t dim, int *axis) {
    const char *what = is_min ? "minimum" : "maximum";
    if (!x) return ag_fail("%s: argument is NULL", op), false;
    *axis = -1;
    if (has_dim && x->ndim == 0 && dim != 0 && dim != -1)
        return ag_normalize_axis(op, dim, 0), false;
    if (has_dim && x->ndim > 0 && (*axis = ag_normalize_axis(op, dim, x->ndim)) < 0) return false;
    if (*axis < 0 && x->numel == 0)
        return ag_fail("%s: cannot take the %s of an empty tensor (it has no elements)", op, what),
               false;
    if (*axis >= 0 && x->shape[*axis] == 0)
        return ag_fail("%s: cannot take the %s over an empty dimension (dim %d has size 0)", op,
                       what, *axis), false;
    return true;
}

/* ======================================================================
 * max, min: out = the extreme (over everything, or along dim)
 * ====================================================================== */

typedef struct {
    int axis;          /* -1: over everything */
    int64_t index[];   /* along an axis: the extreme's index, one per output element */
} ExtremeCtx;

/* v is the extreme top: equal to it, or nan when it is nan. */
static bool is_top(double v, double top) { return isnan(top) ? isnan(v) != 0 : v == top; }

/* dx = g / count where x is the extreme top, else 0. */
static void spread_evenly(const Tensor *x, double top, double g, double *dx) {
    int64_t count = 0;
    const double *xv = tensor_values(x);
    for (int64_t k = 0; k < x->numel; k++) count += is_top(xv[k], top);
    double share = g / (double)count;
    for (int64_t k = 0; k < x->numel; k++) dx[k] = is_top(xv[k], top) ? share : 0.0;
}

/* dx[o, index, i] = g[o, i] (dx zeroed). Only for a g with elements. */
static void scatter_to_index(const int64_t *index, const double *g, AxisView v, double *dx) {
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++) {
            int64_t j = o * v.inner + i;
            dx[(o * v.n + index[j]) * v.inner + i] = g[j];
        }
}

static void extreme_backward(Function *self, void *ctx, Tensor *g) {
    ExtremeCtx *c = ctx;
    Tensor *x = self->inputs[0];
    Tensor *dx = ag_tensor_filled_like(x, 0.0);
    if (!dx) return;
    if (c->axis < 0)
        spread_evenly(x, tensor_values(self->output)[0], tensor_values(g)[0], tensor_values(dx));
    else if (g->numel > 0)
        scatter_to_index(c->index, tensor_values(g), axis_view(x, c->axis), tensor_values(dx));
    ag_accumulate_grad(x, dx);
}

/* Where x is the extreme top (a constant): x == top, or x is nan when top is. */
static Tensor *top_mask(Tensor *x, Tensor *top) {
    return isnan(tensor_values(top)[0]) ? tensor_ne(x, x) : tensor_eq(x, top);
}

/* A bool constant of x's shape, true at each lane's extreme (ctx's index). */
static Tensor *index_mask(const Tensor *x, const ExtremeCtx *c) {
    Tensor *mask = ag_tensor_filled_like(x, 0.0);
    if (!mask) return NULL;
    AxisView v = axis_view(x, c->axis);
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++)
            tensor_values(mask)[(o * v.n + c->index[o * v.inner + i]) * v.inner + i] = 1.0;
    tensor_set_dtype(mask, AG_BOOL);
    return mask;
}

/* max's and min's gradients as recorded ops, extreme_backward's:
 *   over everything: where(is_top(x), g / count, 0), count = sum(is_top(x))
 *   along a dim:     where(index_mask, g with the dim kept at size 1, 0) */
static int extreme_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    ExtremeCtx *c = ctx;
    Tensor *x = self->inputs[0], *mask, *share;
    GradTemps t = {0};
    if (c->axis < 0) {
        mask = ag_grad_tmp(&t, top_mask(x, self->output));
        share = ag_grad_tmp(&t, tensor_div(g, ag_grad_tmp(&t, tensor_sum(mask))));
    } else {
        int64_t kept[AG_MAX_DIMS];
        memcpy(kept, x->shape, (size_t)x->ndim * sizeof *kept);
        kept[c->axis] = 1;
        mask = ag_grad_tmp(&t, index_mask(x, c));
        share = ag_grad_tmp(&t, tensor_reshape(g, x->ndim, kept));
    }
    grads[0] = ag_grad_out(&t, tensor_where(mask, share, ag_grad_num(&t, 0.0)));
    return ag_grad_done(&t);
}

static Tensor *extreme_forward(const char *op, int id, Tensor *x, bool has_dim, int64_t dim,
                               bool keepdim) {
    int axis;
    bool is_min = id == AG_OP_MIN;
    if (!extreme_check(op, is_min, x, has_dim, dim, &axis)) return NULL;
    if (!has_dim && keepdim)
        return ag_fail("%s: keepdim=True needs a dim (as in PyTorch)", op);
    Tensor *out = axis < 0 ? ag_tensor_new(0, NULL) : ag_reduced_new(x, 1u << axis, keepdim);
    if (!out) return NULL;
    if (x->dtype != AG_FLOAT64) /* recording converts them to the dtype: defined first */
        memset(tensor_values(out), 0, (size_t)out->numel * sizeof(double));
    ExtremeCtx *c;
    out = ag_graph_record(out, id, &x, 1, (void **)&c,
                          sizeof *c + (axis < 0 ? 0 : (size_t)out->numel * sizeof(int64_t)));
    if (!out) return NULL;
    if (c) c->axis = axis;
    if (out->numel > 0)
        extreme_lanes(x, axis_view(x, axis), is_min, true, tensor_values(out),
                      c && axis >= 0 ? c->index : NULL);
    return out;
}

Tensor *tensor_max(Tensor *x) { return extreme_forward("max", AG_OP_MAX, x, false, 0, false); }
Tensor *tensor_min(Tensor *x) { return extreme_forward("min", AG_OP_MIN, x, false, 0, false); }

Tensor *tensor_max_dim(Tensor *x, int dim, bool keepdim) {
    return extreme_forward("max", AG_OP_MAX, x, true, dim, keepdim);
}

Tensor *tensor_min_dim(Tensor *x, int dim, bool keepdim) {
    return extreme_forward("min", AG_OP_MIN, x, true, dim, keepdim);
}

Tensor *tensor_max_axis(Tensor *x, int axis) { return tensor_max_dim(x, axis, false); }
Tensor *tensor_min_axis(Tensor *x, int axis) { return tensor_min_dim(x, axis, false); }

static Tensor *max_call(const AgOpArgs *a) {
    return extreme_forward("max", AG_OP_MAX, a->t[0], a->has_int[0], a->ints[0], a->flags[0]);
}

static Tensor *min_call(const AgOpArgs *a) {
    return extreme_forward("min", AG_OP_MIN, a->t[0], a->has_int[0], a->ints[0], a->flags[0]);
}

const AgOpInfo ag_op_max = {
    .id = AG_OP_MAX, .name = "max", .signature = "max(input, dim=None, keepdim=False)",
    .params = "Tib", .help = "largest element, or the largest along dim (values only)",
    .rule = "grad_x = g shared equally by the tied maxima (along a dim: g to the first), "
            "0 elsewhere",
    .backward_name = "MaxBackward", .call = max_call, .backward = extreme_backward,
    .graph_backward = extreme_graph, .flags = AG_OP_METHOD,
};

const AgOpInfo ag_op_min = {
    .id = AG_OP_MIN, .name = "min", .signature = "min(input, dim=None, keepdim=False)",
    .params = "Tib", .help = "smallest element, or the smallest along dim (values only)",
    .rule = "grad_x = g shared equally by the tied minima (along a dim: g to the first), "
            "0 elsewhere",
    .backward_name = "MinBackward", .call = min_call, .backward = extreme_backward,
    .graph_backward = extreme_graph, .flags = AG_OP_METHOD,
};

/* ======================================================================
 * argmax, argmin: the index of the first extreme (of the first nan), an
 * int64 constant; over everything, the index into x flattened.
 * ====================================================================== */

static Tensor *arg_forward(const char *op, bool is_min, Tensor *x, bool has_dim, int64_t dim,
                           bool keepdim) {
    int axis;
    if (!extreme_check(op, is_min, x, has_dim, dim, &axis)) return NULL;
    Tensor *out;
    if (axis >= 0) {
        out = ag_reduced_new(x, 1u << axis, keepdim);
    } else { /* keepdim over everything: every dim kept, of size 1 (PyTorch) */
        int64_t ones[AG_MAX_DIMS];
        for (int i = 0; i < x->ndim; i++) ones[i] = 1;
        out = ag_tensor_new(keepdim ? x->ndim : 0, ones);
    }
    if (out && out->numel > 0) extreme_lanes(x, axis_view(x, axis), is_min, false, tensor_values(out), NULL);
    if (out && x->dtype == AG_BOOL && axis >= 0 && x->shape[axis] == 1) {
        out->dtype = AG_INT64; /* PyTorch's shortcut: a dimension of one is index 0, with no */
        return out;            /* kernel run, so a bool x is not its "argmax_cpu" error */
    }
    return ag_apply_dtype(out, is_min ? AG_OP_ARGMIN : AG_OP_ARGMAX, &x, 1);
}

Tensor *tensor_argmax(Tensor *x) { return arg_forward("argmax", false, x, false, 0, false); }
Tensor *tensor_argmin(Tensor *x) { return arg_forward("argmin", true, x, false, 0, false); }

Tensor *tensor_argmax_dim(Tensor *x, int dim, bool keepdim) {
    return arg_forward("argmax", false, x, true, dim, keepdim);
}

Tensor *tensor_argmin_dim(Tensor *x, int dim, bool keepdim) {
    return arg_forward("argmin", true, x, true, dim, keepdim);
}

static Tensor *argmax_call(const AgOpArgs *a) {
    return arg_forward("argmax", false, a->t[0], a->has_int[0], a->ints[0], a->flags[0]);
}

static Tensor *argmin_call(const AgOpArgs *a) {
    return arg_forward("argmin", true, a->t[0], a->has_int[0], a->ints[0], a->flags[0]);
}

const AgOpInfo ag_op_argmax = {
    .id = AG_OP_ARGMAX, .name = "argmax", .signature = "argmax(input, dim=None, keepdim=False)",
    .params = "Tib", .help = "index of the first largest element (of x flattened, or along dim)",
    .call = argmax_call, .flags = AG_OP_METHOD, .dtype_rule = AG_DTYPE_INDEX,
};

const AgOpInfo ag_op_argmin = {
    .id = AG_OP_ARGMIN, .name = "argmin", .signature = "argmin(input, dim=None, keepdim=False)",
    .params = "Tib", .help = "index of the first smallest element (of x flattened, or along dim)",
    .call = argmin_call, .flags = AG_OP_METHOD, .dtype_rule = AG_DTYPE_INDEX,
};
