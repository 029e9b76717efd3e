/*
 * select.c — the element-wise ops that choose between their operands:
 * clamp, where, minimum, maximum, with NumPy broadcasting of two or three
 * operands and PyTorch 1.13's values and gradients (nan, ties, bounds).
 * Each gradient is a selection of g, never a product, so an inf or nan g
 * where an operand was not chosen still gives it 0.
 *
 * One driver runs every loop here, forward and backward: a kernel of
 * BLOCK elements reads each operand through a pointer, to its data where
 * the operand runs along the row, or to a block filled with its one value
 * where it is broadcast along the row; a row that is not whole blocks ends
 * with a block overlapping the one before, and rows shorter than a block
 * are gathered several to a block. So the kernels are plain contiguous
 * loops whatever the shapes, and the walk over the rows is the broadcast
 * iterator's (shape.c).
 */
#include "elementwise.h"

/* ======================================================================
 * The driver
 * ====================================================================== */

enum { MAX_IN = AG_BROADCAST_MAX, MAX_OUT = 3 };

/* out[k][i] = the op's k-th result from in[0][i], in[1][i], ... for i < BLOCK. */
typedef void (*SelectBlock)(const double *const *in, double *const *out);

/* The kernel over one row of len >= BLOCK elements: operand k starts at
 * base[k] and moves by stride[k] (0 or 1) along the row (splat[k]: BLOCK
 * copies of its value, for stride 0); result k goes to out[k] (contiguous;
 * NULL: not wanted, written to scratch[k]). A row that is not whole blocks
 * ends with the block of its last BLOCK elements, overlapping the one
 * before: a kernel's results depend on its inputs alone, so the overlap
 * writes the same values again. */
static ALWAYS_INLINE void row_blocks(SelectBlock f, int nin, const double *const *base,
                                     const int64_t *stride, const double (*splat)[BLOCK],
                                     int nout, double *const *out, double (*scratch)[BLOCK],
                                     int64_t len) {
    const double *in[MAX_IN];
    double *o[MAX_OUT];
    for (int64_t i = 0; i < len; i += BLOCK) {
        int64_t at = i + BLOCK <= len ? i : len - BLOCK;
        for (int k = 0; k < nin; k++) in[k] = stride[k] ? base[k] + at : splat[k];
        for (int k = 0; k < nout; k++) o[k] = out[k] ? out[k] + at : scratch[k];
        f(in, o);
    }
}

/* f on the staged block, its first m results to out[k] + done. */
static ALWAYS_INLINE void staged_block(SelectBlock f, const double *const *in, double *const *result,
                                       int nout, double *const *out, int64_t done, int m) {
    f(in, result);
    for (int k = 0; k < nout; k++)
        if (out[k]) memcpy(out[k] + done, result[k], (size_t)m * sizeof(double));
}

/* The kernel over rows shorter than a block (or a tensor shorter than a
 * block), gathered element by element into blocks that span several rows:
 * it's rows from the first, operand k read at its offsets and strides;
 * results to out[k] in order. */
static ALWAYS_INLINE void gathered_rows(SelectBlock f, int nin, const Tensor *const *operands,
                                        int nout, double *const *out, BroadcastIter *it) {
    _Alignas(64) double stage[MAX_IN][BLOCK] = {{0}}, result[MAX_OUT][BLOCK];
    const double *in[MAX_IN];
    double *o[MAX_OUT];
    for (int k = 0; k < nin; k++) in[k] = stage[k];
    for (int k = 0; k < nout; k++) o[k] = result[k];
    int64_t done = 0;
    int m = 0, last = it->ndim - 1;
    for (bool more = true; more; more = ag_broadcast_iter_next(it)) {
        const double *base[MAX_IN];
        int64_t stride[MAX_IN];
        for (int k = 0; k < nin; k++) {
            base[k] = tensor_values(operands[k]) + it->offset[k];
            stride[k] = it->stride[k][last];
        }
        for (int64_t j = 0; j < it->row_len; j++) {
            for (int k = 0; k < nin; k++) stage[k][m] = base[k][j * stride[k]];
            if (++m < BLOCK) continue;
            staged_block(f, in, o, nout, out, done, m);
            done += m;
            m = 0;
        }
    }
    if (m > 0) staged_block(f, in, o, nout, out, done, m);
}

/* Runs f over in[0..nin) broadcast to the shape of the results out[0..nout)
 * (tensors of that shape, made by the caller; NULL: not wanted; at least
 * one is not NULL). */
static ALWAYS_INLINE void select_apply(SelectBlock f, const Tensor *const *in, int nin,
                                       Tensor *const *out, int nout) {
    const Tensor *shape_of = NULL;
    double *o[MAX_OUT];
    for (int k = 0; k < nout; k++) {
        o[k] = out[k] ? tensor_values(out[k]) : NULL;
        if (out[k]) shape_of = out[k];
    }
    BroadcastIter it;
    if (!ag_broadcast_iter_init_n(&it, shape_of->ndim, shape_of->shape, in, nin)) return;
    int64_t n = shape_of->numel;
    /* Every operand whole or a single value: the whole as one row. */
    bool one_row = true;
    for (int k = 0; k < nin; k++) one_row = one_row && (in[k]->numel == n || in[k]->numel == 1);
    if (n < BLOCK || (!one_row && it.row_len < BLOCK)) {
        gathered_rows(f, nin, in, nout, o, &it);
        return;
    }
    _Alignas(64) double splat[MAX_IN][BLOCK], scratch[MAX_OUT][BLOCK];
    const double *base[MAX_IN];
    int64_t stride[MAX_IN];
    for (int k = 0; k < nin; k++) {
        base[k] = tensor_values(in[k]);
        stride[k] = in[k]->numel == n;
        if (!stride[k])
            for (int i = 0; i < BLOCK; i++) splat[k][i] = base[k][0];
    }
    if (one_row) {
        row_blocks(f, nin, base, stride, splat, nout, o, scratch, n);
        return;
    }
    int last = it.ndim - 1;
    for (bool more = true; more; more = ag_broadcast_iter_next(&it)) {
        for (int k = 0; k < nin; k++) {
            base[k] = tensor_values(in[k]) + it.offset[k];
            stride[k] = it.stride[k][last];
            if (!stride[k])
                for (int i = 0; i < BLOCK; i++) splat[k][i] = base[k][0];
        }
        row_blocks(f, nin, base, stride, splat, nout, o, scratch, it.row_len);
        for (int k = 0; k < nout; k++)
            if (o[k]) o[k] += it.row_len;
    }
}

/* The output of op (its name) over operands in[0..n) broadcast together,
 * or NULL with a message naming every shape. */
static Tensor *select_out(const char *op, Tensor *const *in, int n) {
    for (int k = 0; k < n; k++)
        if (!in[k]) return ag_fail("%s: an operand is NULL", op);
    int64_t shape[AG_MAX_DIMS];
    int ndim;
    if (ag_broadcast_shapes_n(op, (const Tensor *const *)in, n, shape, &ndim) != 0) return NULL;
    return ag_tensor_new(ndim, shape);
}

/* A gradient in g's shape for t, if t requires grad (else NULL). *ok is
 * false when the allocation failed. */
static Tensor *grad_for(const Tensor *t, const Tensor *g, bool *ok) {
    if (!t->requires_grad) return NULL;
    Tensor *r = ag_tensor_new_like(g);
    *ok = *ok && r;
    return r;
}

/* Hands each gradient made to its input (releasing them all when one
 * could not be made). */
static void accumulate_all(Tensor *const *inputs, Tensor **grads, int n, bool ok) {
    for (int k = 0; k < n; k++) {
        if (ok && grads[k]) ag_accumulate_grad(inputs[k], grads[k]);
        else tensor_release(grads[k]);
    }
}

/* ======================================================================
 * maximum, minimum: a (..) and b (..) -> out (broadcast shape)
 *   maximum: out = nan if either is nan, else the larger (a at a tie,
 *   so maximum(-0, 0) is -0: PyTorch's std::max on one element)
 *   grad_a = g where a > b, g / 2 where a == b, 0 where a < b, g at nan;
 *   grad_b the same with a and b swapped (PyTorch's rule:
 *   where(a == b, g / 2, g).masked_fill_(a < b, 0), and for b a > b)
 *   minimum: the same with < and > exchanged
 * ====================================================================== */

static void maximum_block(const double *const *in, double *const *out) {
    const double *restrict a = in[0], *restrict b = in[1];
    double *restrict y = out[0];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = a[i] < b[i] || b[i] != b[i] ? b[i] : a[i];
}

static void minimum_block(const double *const *in, double *const *out) {
    const double *restrict a = in[0], *restrict b = in[1];
    double *restrict y = out[0];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = b[i] < a[i] || b[i] != b[i] ? b[i] : a[i];
}

/* in: g, a, b; out: grad_a, grad_b (of maximum) */
static void maximum_grad_block(const double *const *in, double *const *out) {
    const double *restrict g = in[0], *restrict a = in[1], *restrict b = in[2];
    double *restrict ga = out[0], *restrict gb = out[1];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        double h = a[i] == b[i] ? g[i] / 2 : g[i];
        ga[i] = a[i] < b[i] ? 0.0 : h;
        gb[i] = a[i] > b[i] ? 0.0 : h;
    }
}

static void minimum_grad_block(const double *const *in, double *const *out) {
    const double *restrict g = in[0], *restrict a = in[1], *restrict b = in[2];
    double *restrict ga = out[0], *restrict gb = out[1];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        double h = a[i] == b[i] ? g[i] / 2 : g[i];
        ga[i] = a[i] > b[i] ? 0.0 : h;
        gb[i] = a[i] < b[i] ? 0.0 : h;
    }
}

/* The forward of maximum or minimum (op) by its block. */
static ALWAYS_INLINE Tensor *extremum_forward(int op, SelectBlock f, Tensor *a, Tensor *b) {
    Tensor *in[] = {a, b}, *out = select_out(ag_op_at(op)->name, in, 2), *ca, *cb;
    if (!out) return NULL;
    if (ag_common_operands(a, b, &ca, &cb) != 0) { /* float32 beside float64: as float32 */
        tensor_release(out);
        return NULL;
    }
    select_apply(f, (const Tensor *[]){ca, cb}, 2, &out, 1);
    ag_common_release(ca, a);
    ag_common_release(cb, b);
    return ag_graph_record(out, op, in, 2, NULL, 0);
}

static ALWAYS_INLINE void extremum_backward(Function *self, Tensor *g, SelectBlock f) {
    Tensor **in = self->inputs, *grads[2] = {NULL, NULL};
    bool ok = true;
    for (int k = 0; k < 2; k++) grads[k] = grad_for(in[k], g, &ok);
    if (ok) select_apply(f, (const Tensor *[]){g, in[0], in[1]}, 3, grads, 2);
    accumulate_all(in, grads, 2, ok);
}

static void maximum_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    extremum_backward(self, g, maximum_grad_block);
}

static void minimum_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    extremum_backward(self, g, minimum_grad_block);
}

/* The kernels' selections as recorded ops: h = where(a == b, g / 2, g);
 * grad_a = where(a loses, 0, h), grad_b = where(b loses, 0, h), where a
 * loses when a < b (maximum) or a > b (minimum). */
static int extremum_graph(Function *self, Tensor *g, Tensor **grads, bool is_max) {
    GradTemps t = {0};
    Tensor *a = self->inputs[0], *b = self->inputs[1], *zero = ag_grad_num(&t, 0.0);
    Tensor *tie = ag_grad_tmp(&t, tensor_eq(a, b));
    Tensor *half = ag_grad_tmp(&t, tensor_div(g, ag_grad_num(&t, 2.0)));
    Tensor *h = ag_grad_tmp(&t, tensor_where(tie, half, g));
    if (ag_grad_wanted(self, 0)) {
        Tensor *a_loses = ag_grad_tmp(&t, is_max ? tensor_lt(a, b) : tensor_gt(a, b));
        grads[0] = ag_grad_out(&t, tensor_where(a_loses, zero, h));
    }
    if (ag_grad_wanted(self, 1)) {
        Tensor *b_loses = ag_grad_tmp(&t, is_max ? tensor_gt(a, b) : tensor_lt(a, b));
        grads[1] = ag_grad_out(&t, tensor_where(b_loses, zero, h));
    }
    return ag_grad_done(&t);
}

static int maximum_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    return extremum_graph(self, g, grads, true);
}

static int minimum_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    return extremum_graph(self, g, grads, false);
}

Tensor *tensor_maximum(Tensor *a, Tensor *b) {
    return extremum_forward(AG_OP_MAXIMUM, maximum_block, a, b);
}

Tensor *tensor_minimum(Tensor *a, Tensor *b) {
    return extremum_forward(AG_OP_MINIMUM, minimum_block, a, b);
}

const AgOpInfo ag_op_maximum = {
    .id = AG_OP_MAXIMUM, .name = "maximum", .signature = "maximum(input, other)", .params = "TT",
    .help = "the larger of a and b element-wise (nan if either is), broadcasting",
    .rule = "grad_a = g where a > b (or either is nan), g / 2 where a == b, else 0; "
            "grad_b the same with a and b swapped",
    .backward_name = "MaximumBackward", .binary = tensor_maximum, .backward = maximum_backward,
    .graph_backward = maximum_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS, .grad_reads = {1 | 2, 1 | 2},
};

const AgOpInfo ag_op_minimum = {
    .id = AG_OP_MINIMUM, .name = "minimum", .signature = "minimum(input, other)", .params = "TT",
    .help = "the smaller of a and b element-wise (nan if either is), broadcasting",
    .rule = "grad_a = g where a < b (or either is nan), g / 2 where a == b, else 0; "
            "grad_b the same with a and b swapped",
    .backward_name = "MinimumBackward", .binary = tensor_minimum, .backward = minimum_backward,
    .graph_backward = minimum_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS, .grad_reads = {1 | 2, 1 | 2},
};

/* ======================================================================
 * where: condition (..), a (..), b (..) -> out (the three broadcast)
 *   out = a where condition != 0 (nan counts as true), else b
 *   grad_a = g where condition, else 0; grad_b = g where not condition;
 *   condition gets none (PyTorch's condition is boolean): the result is a
 *   constant unless a or b requires grad
 * ====================================================================== */

static void where_block(const double *const *in, double *const *out) {
    const double *restrict c = in[0], *restrict a = in[1], *restrict b = in[2];
    double *restrict y = out[0];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = c[i] != 0.0 ? a[i] : b[i];
}

/* in: condition, g; out: grad_a, grad_b */
static void where_grad_block(const double *const *in, double *const *out) {
    const double *restrict c = in[0], *restrict g = in[1];
    double *restrict ga = out[0], *restrict gb = out[1];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        ga[i] = c[i] != 0.0 ? g[i] : 0.0;
        gb[i] = c[i] != 0.0 ? 0.0 : g[i];
    }
}

static void where_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    Tensor **in = self->inputs, *grads[2] = {NULL, NULL};
    bool ok = true;
    for (int k = 0; k < 2; k++) grads[k] = grad_for(in[k + 1], g, &ok);
    if (ok) select_apply(where_grad_block, (const Tensor *[]){in[0], g}, 2, grads, 2);
    accumulate_all(in + 1, grads, 2, ok);
}

/* where's gradients as recorded ops: where(c, g, 0) and where(c, 0, g). */
static int where_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)ctx;
    GradTemps t = {0};
    Tensor *c = self->inputs[0], *zero = ag_grad_num(&t, 0.0);
    if (ag_grad_wanted(self, 1)) grads[1] = ag_grad_out(&t, tensor_where(c, g, zero));
    if (ag_grad_wanted(self, 2)) grads[2] = ag_grad_out(&t, tensor_where(c, zero, g));
    return ag_grad_done(&t);
}

Tensor *tensor_where(Tensor *condition, Tensor *a, Tensor *b) {
    Tensor *in[] = {condition, a, b}, *out = select_out("where", in, 3);
    if (!out) return NULL;
    select_apply(where_block, (const Tensor *[]){condition, a, b}, 3, &out, 1);
    if (!a->requires_grad && !b->requires_grad) /* a constant, as in PyTorch */
        return ag_typed_constant(out, AG_OP_WHERE, in, 3);
    return ag_graph_record(out, AG_OP_WHERE, in, 3, NULL, 0);
}

static Tensor *where_call(const AgOpArgs *a) { return tensor_where(a->t[0], a->t[1], a->t[2]); }

const AgOpInfo ag_op_where = {
    .id = AG_OP_WHERE, .name = "where", .signature = "where(condition, input, other)",
    .params = "TTT",
    .help = "input where condition is true (nonzero), else other, broadcasting all three",
    .rule = "grad_input = g where condition, else 0; grad_other = g where not condition; "
            "condition gets none",
    .backward_name = "WhereBackward", .call = where_call, .backward = where_backward,
    .graph_backward = where_graph,
    .flags = AG_OP_SAVES_READS, .dtype_rule = AG_DTYPE_NOT_FIRST,
    .grad_reads = {0, 1, 1}, /* the condition alone */
};

/* ======================================================================
 * clamp: x (..), min (..) or None, max (..) or None -> out (broadcast)
 *   out = min(max(x, min), max): max where min > max; nan where x, min or
 *   max is nan (PyTorch's clamp with tensor bounds; std::max and std::min,
 *   so clamp(-0, min=0) is -0)
 *   grad_x   = g where min <= x <= max, else 0 (nan: 0)
 *   grad_min = g where x < min and min < max   (no max: where x < min)
 *   grad_max = g where x > max or max < min    (no min: where x > max)
 *   (PyTorch's clamp_backward and clamp_backward_min_max: the three never
 *   overlap, and with min == max and x < min none of them gets g)
 * ====================================================================== */

typedef struct {
    bool has_min, has_max; /* inputs: x, then min if given, then max if given */
} ClampCtx;

/* in: x, min, max */
static void clamp_block(const double *const *in, double *const *out) {
    const double *restrict x = in[0], *restrict lo = in[1], *restrict hi = in[2];
    double *restrict y = out[0];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        double r = x[i] < lo[i] ? lo[i] : x[i];
        r = hi[i] < r ? hi[i] : r;
        y[i] = lo[i] != lo[i] || hi[i] != hi[i] ? NAN : r;
    }
}

/* in: x, min */
static void clamp_min_block(const double *const *in, double *const *out) {
    const double *restrict x = in[0], *restrict lo = in[1];
    double *restrict y = out[0];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = x[i] < lo[i] || lo[i] != lo[i] ? lo[i] : x[i];
}

/* in: x, max */
static void clamp_max_block(const double *const *in, double *const *out) {
    const double *restrict x = in[0], *restrict hi = in[1];
    double *restrict y = out[0];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) y[i] = hi[i] < x[i] || hi[i] != hi[i] ? hi[i] : x[i];
}

/* in: g, x, min, max; out: grad_x, grad_min, grad_max */
static void clamp_grad_block(const double *const *in, double *const *out) {
    const double *restrict g = in[0], *restrict x = in[1], *restrict lo = in[2], *restrict hi = in[3];
    double *restrict gx = out[0], *restrict glo = out[1], *restrict ghi = out[2];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        gx[i] = x[i] >= lo[i] && x[i] <= hi[i] ? g[i] : 0.0;
        glo[i] = x[i] < lo[i] && lo[i] < hi[i] ? g[i] : 0.0;
        ghi[i] = x[i] > hi[i] || hi[i] < lo[i] ? g[i] : 0.0;
    }
}

/* in: g, x, min; out: grad_x, grad_min */
static void clamp_min_grad_block(const double *const *in, double *const *out) {
    const double *restrict g = in[0], *restrict x = in[1], *restrict lo = in[2];
    double *restrict gx = out[0], *restrict glo = out[1];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        gx[i] = x[i] >= lo[i] ? g[i] : 0.0;
        glo[i] = x[i] < lo[i] ? g[i] : 0.0;
    }
}

/* in: g, x, max; out: grad_x, grad_max */
static void clamp_max_grad_block(const double *const *in, double *const *out) {
    const double *restrict g = in[0], *restrict x = in[1], *restrict hi = in[2];
    double *restrict gx = out[0], *restrict ghi = out[1];
    SIMD_LOOP for (int i = 0; i < BLOCK; i++) {
        gx[i] = x[i] <= hi[i] ? g[i] : 0.0;
        ghi[i] = x[i] > hi[i] ? g[i] : 0.0;
    }
}

static void clamp_backward(Function *self, void *ctx, Tensor *g) {
    const ClampCtx *c = ctx;
    Tensor **in = self->inputs, *grads[3] = {NULL, NULL, NULL};
    int n = self->num_inputs;
    bool ok = true;
    for (int k = 0; k < n; k++) grads[k] = grad_for(in[k], g, &ok);
    if (ok) {
        const Tensor *operands[] = {g, in[0], in[1], n == 3 ? in[2] : NULL};
        if (n == 3)
            select_apply(clamp_grad_block, operands, 4, grads, 3);
        else if (c->has_min)
            select_apply(clamp_min_grad_block, operands, 3, grads, 2);
        else
            select_apply(clamp_max_grad_block, operands, 3, grads, 2);
    }
    accumulate_all(in, grads, n, ok);
}

/* where(mask, g, 0) for a mask made in t (the engine takes the result). */
static Tensor *g_where(GradTemps *t, Tensor *mask, Tensor *g) {
    return ag_grad_out(t, tensor_where(ag_grad_tmp(t, mask), g, ag_grad_num(t, 0.0)));
}

/* The kernels' masks as recorded ops (both bounds):
 *   grad_x = where(x >= min and x <= max, g, 0),
 *   grad_min = where(x < min and min < max, g, 0),
 *   grad_max = where(x > max or max < min, g, 0) */
static void clamp_both_graph(Function *self, Tensor *g, Tensor **grads, GradTemps *t) {
    Tensor *x = self->inputs[0], *lo = self->inputs[1], *hi = self->inputs[2];
    if (ag_grad_wanted(self, 0))
        grads[0] = g_where(t, tensor_logical_and(ag_grad_tmp(t, tensor_ge(x, lo)),
                                                 ag_grad_tmp(t, tensor_le(x, hi))), g);
    if (ag_grad_wanted(self, 1))
        grads[1] = g_where(t, tensor_logical_and(ag_grad_tmp(t, tensor_lt(x, lo)),
                                                 ag_grad_tmp(t, tensor_lt(lo, hi))), g);
    if (ag_grad_wanted(self, 2))
        grads[2] = g_where(t, tensor_logical_or(ag_grad_tmp(t, tensor_gt(x, hi)),
                                                ag_grad_tmp(t, tensor_lt(hi, lo))), g);
}

/* One bound: grad_x = where(x >= min, g, 0), grad_min = where(x < min, g, 0)
 * (a max: x <= max and x > max). */
static int clamp_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    const ClampCtx *c = ctx;
    GradTemps t = {0};
    Tensor *x = self->inputs[0], *bound = self->inputs[1];
    if (self->num_inputs == 3) {
        clamp_both_graph(self, g, grads, &t);
    } else {
        if (ag_grad_wanted(self, 0))
            grads[0] = g_where(&t, c->has_min ? tensor_ge(x, bound) : tensor_le(x, bound), g);
        if (ag_grad_wanted(self, 1))
            grads[1] = g_where(&t, c->has_min ? tensor_lt(x, bound) : tensor_gt(x, bound), g);
    }
    return ag_grad_done(&t);
}

Tensor *tensor_clamp(Tensor *x, Tensor *min, Tensor *max) {
    if (!min && !max) return ag_fail("clamp: at least one of min and max must be given");
    Tensor *in[3] = {x, min ? min : max, max};
    int n = min && max ? 3 : 2;
    Tensor *out = select_out("clamp", in, n);
    if (!out) return NULL;
    const Tensor *operands[] = {x, in[1], max};
    if (n == 3)
        select_apply(clamp_block, operands, 3, &out, 1);
    else if (min)
        select_apply(clamp_min_block, operands, 2, &out, 1);
    else
        select_apply(clamp_max_block, operands, 2, &out, 1);
    ClampCtx *c;
    out = ag_graph_record(out, AG_OP_CLAMP, in, n, (void **)&c, sizeof *c);
    if (c) *c = (ClampCtx){min != NULL, max != NULL};
    return out;
}

static Tensor *clamp_call(const AgOpArgs *a) { return tensor_clamp(a->t[0], a->t[1], a->t[2]); }

const AgOpInfo ag_op_clamp = {
    .id = AG_OP_CLAMP, .name = "clamp", .alias = "clip", .signature = "clamp(input, min=None, max=None)",
    .params = "Ttt",
    .help = "x limited to [min, max] (either bound may be omitted), broadcasting",
    .rule = "grad_x = g where min <= x <= max, else 0; grad_min = g where x < min < max; "
            "grad_max = g where x > max or max < min (one bound alone: x < min, x > max)",
    .backward_name = "ClampBackward", .call = clamp_call, .backward = clamp_backward,
    .graph_backward = clamp_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_READS,
    .grad_reads = {7, 7, 7}, /* x and the bounds, never the result */
};
