/*
 * index.c — taking parts of a tensor: select (x[i] along one dimension,
 * the dimension removed). A copy (ag has no views); backward puts g back
 * at the selected place of a zero gradient in x's shape.
 */
#include "../internal.h"

#include <string.h>

typedef struct {
    int dim;
    int64_t index;
} SelectCtx;

/* x viewed as (outer, n, inner) around dim: out[o, i] = x[o, index, i]. */
static void select_copy(const Tensor *x, int dim, int64_t index, double *out) {
    if (x->numel == 0) return; /* no lanes: (10^18, 2, 0) must not loop 10^18 times */
    int64_t outer = ag_shape_prod(x->shape, 0, dim), n = x->shape[dim];
    int64_t inner = ag_shape_prod(x->shape, dim + 1, x->ndim);
    for (int64_t o = 0; o < outer; o++)
        memcpy(out + o * inner, x->data + (o * n + index) * inner, (size_t)inner * sizeof *out);
}

static void select_backward(Function *self, void *ctx, Tensor *g) {
    SelectCtx *c = ctx;
    Tensor *x = self->inputs[0];
    Tensor *dx = ag_tensor_filled_like(x, 0.0);
    if (!dx) return;
    if (x->numel == 0) {
        ag_accumulate_grad(x, dx);
        return;
    }
    int64_t outer = ag_shape_prod(x->shape, 0, c->dim), n = x->shape[c->dim];
    int64_t inner = ag_shape_prod(x->shape, c->dim + 1, x->ndim);
    for (int64_t o = 0; o < outer; o++)
        memcpy(dx->data + (o * n + c->index) * inner, g->data + o * inner,
               (size_t)inner * sizeof(double));
    ag_accumulate_grad(x, dx);
}

Tensor *tensor_select(Tensor *x, int dim, int64_t index) {
    if (!x) return ag_fail("select: argument is NULL");
    if (x->ndim == 0) return ag_fail("select: a 0-d tensor cannot be indexed");
    if ((dim = ag_normalize_axis("select", dim, x->ndim)) < 0) return NULL;
    int64_t n = x->shape[dim];
    if (index < -n || index >= n)
        return ag_fail("index %lld is out of range for dimension %d of size %lld", (long long)index,
                       dim, (long long)n);
    if (index < 0) index += n;
    int64_t shape[AG_MAX_DIMS];
    int ndim = 0;
    for (int i = 0; i < x->ndim; i++)
        if (i != dim) shape[ndim++] = x->shape[i];
    Tensor *out = ag_tensor_new(ndim, shape);
    if (!out) return NULL;
    select_copy(x, dim, index, out->data);
    SelectCtx *c;
    out = ag_graph_record(out, AG_OP_SELECT, &x, 1, (void **)&c, sizeof *c);
    if (c) *c = (SelectCtx){dim, index};
    return out;
}

static Tensor *select_call(const AgOpArgs *a) {
    return tensor_select(a->t[0], (int)a->ints[0], a->ints[1]);
}

const AgOpInfo ag_op_select = {
    .id = AG_OP_SELECT, .name = "select", .signature = "select(input, dim, index)",
    .params = "Tii", .help = "the slice at index along dim (removed): x[index] for dim 0",
    .rule = "grad_x = g at the selected index, 0 elsewhere", .backward_name = "SelectBackward",
    .call = select_call, .backward = select_backward,
    .flags = AG_OP_METHOD | AG_OP_KEEPS_BOOL,
};
