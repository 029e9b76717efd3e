/*
 * transpose.c — transpose(x, a, b): swaps two axes, copying (ag has no
 * views). Backward transposes g back with the same two axes.
 */
#include "../internal.h"

typedef struct {
    int axis_a, axis_b; /* normalised */
} TransposeCtx;

/* A new tensor holding x with axes a and b swapped. */
static Tensor *swap_axes(const Tensor *x, int a, int b) {
    int64_t shape[AG_MAX_DIMS], in_stride[AG_MAX_DIMS], stride[AG_MAX_DIMS];
    int nd = x->ndim;
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        in_stride[i] = s;
        s *= x->shape[i];
    }
    for (int i = 0; i < nd; i++) {
        shape[i] = x->shape[i];
        stride[i] = in_stride[i];
    }
    shape[a] = x->shape[b];
    shape[b] = x->shape[a];
    stride[a] = in_stride[b];
    stride[b] = in_stride[a];
    Tensor *out = ag_tensor_new(nd, shape);
    if (!out || out->numel == 0) return out;
    /* Walk out in order; off is the matching offset in x. */
    int64_t index[AG_MAX_DIMS] = {0}, off = 0;
    int64_t row = nd > 0 ? shape[nd - 1] : 1, row_stride = nd > 0 ? stride[nd - 1] : 1;
    for (int64_t done = 0; done < out->numel; done += row) {
        double *dst = out->data + done;
        for (int64_t j = 0; j < row; j++) dst[j] = x->data[off + j * row_stride];
        for (int d = nd - 2; d >= 0; d--) {
            off += stride[d];
            if (++index[d] < shape[d]) break;
            off -= stride[d] * shape[d];
            index[d] = 0;
        }
    }
    return out;
}

/* x (.., A, .., B, ..) -> out (.., B, .., A, ..); dx = g with the axes swapped back */
static void transpose_backward(Function *self, void *ctx, Tensor *g) {
    TransposeCtx *c = ctx;
    Tensor *dx = swap_axes(g, c->axis_a, c->axis_b);
    if (dx) ag_accumulate_grad(self->inputs[0], dx);
}

Tensor *tensor_transpose(Tensor *x, int axis_a, int axis_b) {
    if (!x) return ag_fail("transpose: argument is NULL");
    int a, b;
    if (x->ndim == 0) { /* axis 0 or -1, as PyTorch: a copy */
        bool ok_a = axis_a == 0 || axis_a == -1, ok_b = axis_b == 0 || axis_b == -1;
        if (!ok_a || !ok_b) return ag_normalize_axis("transpose", ok_a ? axis_b : axis_a, 0), NULL;
        a = b = 0;
    } else if ((a = ag_normalize_axis("transpose", axis_a, x->ndim)) < 0 ||
               (b = ag_normalize_axis("transpose", axis_b, x->ndim)) < 0) {
        return NULL;
    }
    TransposeCtx *c;
    Tensor *out = ag_graph_record(swap_axes(x, a, b), AG_OP_TRANSPOSE, &x, 1, (void **)&c,
                                  sizeof *c);
    if (c) *c = (TransposeCtx){a, b};
    return out;
}

/* transpose(x, dim0, dim1); with neither dim, the last two (x.T). */
static Tensor *transpose_call(const AgOpArgs *a) {
    if (a->has_int[0] != a->has_int[1])
        return ag_fail("transpose: give both dims, or neither (the last two)");
    if (!a->has_int[0]) return tensor_transpose(a->t[0], -2, -1);
    return tensor_transpose(a->t[0], (int)a->ints[0], (int)a->ints[1]);
}

const AgOpInfo ag_op_transpose = {
    .id = AG_OP_TRANSPOSE, .name = "transpose", .signature = "transpose(input, dim0=None, dim1=None)",
    .params = "Tii", .help = "swaps dims dim0 and dim1 (default: the last two)",
    .rule = "grad_x = g with the two axes swapped back", .backward_name = "TransposeBackward",
    .call = transpose_call, .backward = transpose_backward,
    .flags = AG_OP_METHOD | AG_OP_KEEPS_BOOL,
};
