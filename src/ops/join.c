/*
 * join.c — stack (equal-shape tensors joined along a new dimension) and cat
 * (tensors joined along an existing one, where their sizes may differ).
 * Copies, a contiguous block per input and outer index; backward hands
 * each input its slice of g, copied the same way (create_graph: by select
 * and a slicing index, the same copies recorded).
 */
#include "../internal.h"

#include <string.h>

typedef struct {
    int dim;
} JoinCtx;

/* The slice k of g along dim (of size n): what input k receives. */
static Tensor *slice_of(const Tensor *g, const Tensor *like, int dim, int k, int n) {
    Tensor *r = ag_tensor_new_like(like);
    if (!r || r->numel == 0) return r;
    int64_t outer = ag_shape_prod(g->shape, 0, dim), inner = ag_shape_prod(g->shape, dim + 1, g->ndim);
    for (int64_t o = 0; o < outer; o++)
        memcpy(tensor_values(r) + o * inner, tensor_values(g) + (o * n + k) * inner, (size_t)inner * sizeof(double));
    return r;
}

static void stack_backward(Function *self, void *ctx, Tensor *g) {
    JoinCtx *c = ctx;
    for (int k = 0; k < self->num_inputs; k++) {
        Tensor *x = self->inputs[k];
        if (!x->requires_grad) continue;
        Tensor *r = slice_of(g, x, c->dim, k, self->num_inputs);
        if (!r) return;
        ag_accumulate_grad(x, r);
    }
}

/* The same as recorded ops: input k's gradient is g[..., k, ...], select's copy. */
static int stack_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    JoinCtx *c = ctx;
    GradTemps t = {0};
    for (int k = 0; k < self->num_inputs; k++)
        if (ag_grad_wanted(self, k)) grads[k] = ag_grad_out(&t, tensor_select(g, c->dim, k));
    return ag_grad_done(&t);
}

Tensor *tensor_stack(Tensor *const *xs, int n, int dim) {
    char s0[AG_SHAPE_STR_MAX], sk[AG_SHAPE_STR_MAX];
    if (!xs || n <= 0) return ag_fail("stack: needs at least one tensor");
    for (int k = 0; k < n; k++)
        if (!xs[k]) return ag_fail("stack: tensor %d is NULL", k);
    if (xs[0]->ndim >= AG_MAX_DIMS)
        return ag_fail("stack: tensors have at most %d dimensions", AG_MAX_DIMS);
    if ((dim = ag_normalize_axis("stack", dim, xs[0]->ndim + 1)) < 0) return NULL;
    for (int k = 1; k < n; k++)
        if (!ag_shape_equal(xs[0]->ndim, xs[0]->shape, xs[k]->ndim, xs[k]->shape))
            return ag_fail("stack: tensors must have the same shape, got %s (item 1) and %s "
                           "(item %d)", tensor_shape_str(xs[0], s0, sizeof s0),
                           tensor_shape_str(xs[k], sk, sizeof sk), k + 1);
    int64_t shape[AG_MAX_DIMS];
    int ndim = 0;
    for (int i = 0; i <= xs[0]->ndim; i++)
        shape[ndim++] = i == dim ? n : xs[0]->shape[i < dim ? i : i - 1];
    Tensor *out = ag_tensor_new(ndim, shape);
    if (!out) return NULL;
    int64_t outer = ag_shape_prod(shape, 0, dim), inner = ag_shape_prod(shape, dim + 1, ndim);
    for (int64_t o = 0; out->numel > 0 && o < outer; o++)
        for (int k = 0; k < n; k++)
            memcpy(tensor_values(out) + (o * n + k) * inner, tensor_values(xs[k]) + o * inner,
                   (size_t)inner * sizeof(double));
    if (!ag_any_requires_grad(xs, n)) /* constants: nothing to record */
        return ag_typed_constant(out, AG_OP_STACK, xs, n);
    JoinCtx *c;
    out = ag_graph_record(out, AG_OP_STACK, xs, n, (void **)&c, sizeof *c);
    if (c) c->dim = dim;
    return out;
}

static Tensor *stack_call(const AgOpArgs *a) {
    return tensor_stack(a->list, a->list_len, (int)a->ints[0]);
}

const AgOpInfo ag_op_stack = {
    .id = AG_OP_STACK, .name = "stack", .signature = "stack(tensors, dim=0)", .params = "Li",
    .help = "equal-shape tensors joined along a new dimension dim",
    .rule = "grad of each input = its slice of g", .backward_name = "StackBackward",
    .call = stack_call, .backward = stack_backward, .graph_backward = stack_graph,
    .flags = AG_OP_SAVES_NOTHING,
};

/* ======================================================================
 * cat: tensors equal in shape except along dim, joined along it. As in
 * PyTorch, 1-D tensors with no elements ((0,): what [] makes) are skipped
 * whatever their shape beside the others (its legacy rule), and a 0-d
 * tensor cannot be joined.
 * ====================================================================== */

typedef struct {
    int dim;
} CatCtx;

static bool cat_skipped(const Tensor *x) { return x->ndim == 1 && x->shape[0] == 0; }

/* Input k's slice of g: for each outer index, its inner_k values from
 * offset[k] within g's row of row values. */
static void cat_backward(Function *self, void *ctx, Tensor *g) {
    CatCtx *c = ctx;
    int64_t outer = ag_shape_prod(g->shape, 0, c->dim);
    int64_t row = ag_shape_prod(g->shape, c->dim, g->ndim);
    int64_t offset = 0;
    for (int k = 0; k < self->num_inputs; k++) {
        Tensor *x = self->inputs[k];
        int64_t inner = cat_skipped(x) ? 0 : ag_shape_prod(x->shape, c->dim, x->ndim);
        if (x->requires_grad) {
            Tensor *r = ag_tensor_new_like(x);
            if (!r) return;
            for (int64_t o = 0; r->numel > 0 && o < outer; o++)
                memcpy(tensor_values(r) + o * inner, tensor_values(g) + o * row + offset,
                       (size_t)inner * sizeof(double));
            ag_accumulate_grad(x, r);
        }
        offset += inner;
    }
}

/* The same as recorded ops: input k's gradient is g[:, ..., offset:offset + size]
 * along dim (an index Function: a copy); a skipped (0,) input's, (0,). */
static int cat_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    CatCtx *c = ctx;
    GradTemps t = {0};
    AgIndex items[AG_MAX_DIMS];
    for (int d = 0; d < c->dim; d++) items[d] = (AgIndex){.kind = AG_INDEX_SLICE, .step = 1};
    int64_t offset = 0;
    for (int k = 0; k < self->num_inputs; k++) {
        Tensor *x = self->inputs[k];
        int64_t size = cat_skipped(x) ? 0 : x->shape[c->dim];
        items[c->dim] = (AgIndex){.kind = AG_INDEX_SLICE, .start = offset, .stop = offset + size,
                                  .step = 1, .has_start = true, .has_stop = true};
        if (ag_grad_wanted(self, k))
            grads[k] = ag_grad_out(&t, cat_skipped(x) ? ag_tensor_new_like(x)
                                                      : tensor_index(g, items, c->dim + 1));
        offset += size;
    }
    return ag_grad_done(&t);
}

Tensor *tensor_cat(Tensor *const *xs, int n, int dim) {
    char s0[AG_SHAPE_STR_MAX], sk[AG_SHAPE_STR_MAX];
    if (!xs || n <= 0) return ag_fail("cat: needs at least one tensor");
    int first = -1; /* the first tensor not skipped: the others must match it */
    for (int k = 0; k < n; k++) {
        if (!xs[k]) return ag_fail("cat: tensor %d is NULL", k + 1);
        if (xs[k]->ndim == 0)
            return ag_fail("cat: item %d is 0-d and cannot be joined (stack joins 0-d tensors)",
                           k + 1);
        if (first < 0 && !cat_skipped(xs[k])) first = k;
    }
    if (first < 0) first = 0, dim = 0; /* all (0,): their join is (0,), whatever dim */
    const Tensor *ref = xs[first];
    if ((dim = ag_normalize_axis("cat", dim, ref->ndim)) < 0) return NULL;
    int64_t shape[AG_MAX_DIMS];
    memcpy(shape, ref->shape, sizeof shape);
    shape[dim] = 0;
    for (int k = 0; k < n; k++) {
        const Tensor *x = xs[k];
        if (k != first && cat_skipped(x)) continue;
        bool same = x->ndim == ref->ndim;
        for (int i = 0; same && i < x->ndim; i++) same = i == dim || x->shape[i] == ref->shape[i];
        if (!same)
            return ag_fail("cat: tensors must have the same shape except in dim %d, got %s (item "
                           "%d) and %s (item %d)", dim, tensor_shape_str(ref, s0, sizeof s0),
                           first + 1, tensor_shape_str(x, sk, sizeof sk), k + 1);
        shape[dim] += x->shape[dim];
    }
    Tensor *out = ag_tensor_new(ref->ndim, shape);
    if (!out) return NULL;
    int64_t outer = ag_shape_prod(shape, 0, dim), row = ag_shape_prod(shape, dim, ref->ndim);
    int64_t offset = 0;
    for (int k = 0; out->numel > 0 && k < n; k++) {
        if (cat_skipped(xs[k]) && k != first) continue;
        int64_t inner = ag_shape_prod(xs[k]->shape, dim, xs[k]->ndim);
        for (int64_t o = 0; inner > 0 && o < outer; o++)
            memcpy(tensor_values(out) + o * row + offset, tensor_values(xs[k]) + o * inner,
                   (size_t)inner * sizeof(double));
        offset += inner;
    }
    if (!ag_any_requires_grad(xs, n)) /* constants: nothing to record */
        return ag_typed_constant(out, AG_OP_CAT, xs, n);
    CatCtx *c;
    out = ag_graph_record(out, AG_OP_CAT, xs, n, (void **)&c, sizeof *c);
    if (c) c->dim = dim;
    return out;
}

static Tensor *cat_call(const AgOpArgs *a) {
    return tensor_cat(a->list, a->list_len, (int)a->ints[0]);
}

const AgOpInfo ag_op_cat = {
    .id = AG_OP_CAT, .name = "cat", .signature = "cat(tensors, dim=0)", .params = "Li",
    .help = "tensors joined along dim (their sizes may differ there only)",
    .rule = "grad of each input = its slice of g", .backward_name = "CatBackward",
    .call = cat_call, .backward = cat_backward, .graph_backward = cat_graph,
    .flags = AG_OP_SAVES_NOTHING,
};
