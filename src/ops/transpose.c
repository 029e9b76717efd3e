/*
 * transpose.c — transpose(x, a, b), permute(x, dims) and t(x): the axes of
 * x reordered, copying (ag has no views). One kernel serves the three: a
 * copy of x with its axes permuted. Backward permutes g back with the
 * inverse permutation (create_graph: by permute, the same copy recorded).
 */
#include "../internal.h"

#include <string.h>

typedef struct {
    int perm[AG_MAX_DIMS]; /* out's axis i is x's axis perm[i] (normalised) */
} PermuteCtx;

/* A new tensor holding x with its axes in the order perm: out's shape[i]
 * is x's shape[perm[i]]. */
static Tensor *permuted(const Tensor *x, const int *perm) {
    int64_t shape[AG_MAX_DIMS], in_stride[AG_MAX_DIMS], stride[AG_MAX_DIMS];
    int nd = x->ndim;
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        in_stride[i] = s;
        s *= x->shape[i];
    }
    for (int i = 0; i < nd; i++) {
        shape[i] = x->shape[perm[i]];
        stride[i] = in_stride[perm[i]];
    }
    Tensor *out = ag_tensor_new(nd, shape);
    if (!out || out->numel == 0) return out;
    /* Walk out in order; off is the matching offset in x. */
    int64_t index[AG_MAX_DIMS] = {0}, off = 0;
    int64_t row = nd > 0 ? shape[nd - 1] : 1, row_stride = nd > 0 ? stride[nd - 1] : 1;
    double *o = tensor_values(out);
    const double *xv = tensor_values(x);
    for (int64_t done = 0; done < out->numel; done += row) {
        double *dst = o + done;
        if (row_stride == 1)
            memcpy(dst, xv + off, (size_t)row * sizeof *dst);
        else
            for (int64_t j = 0; j < row; j++) dst[j] = xv[off + j * row_stride];
        for (int d = nd - 2; d >= 0; d--) {
            off += stride[d];
            if (++index[d] < shape[d]) break;
            off -= stride[d] * shape[d];
            index[d] = 0;
        }
    }
    return out;
}

/* The inverse of c's permutation of n axes: axis perm[i] of x is axis i
 * of out. */
static void inverse_of(const PermuteCtx *c, int n, int *inverse) {
    for (int i = 0; i < n; i++) inverse[c->perm[i]] = i;
}

/* x (axes in x's order) -> out (axes perm); dx = g with the inverse
 * permutation: dx's axis perm[i] is g's axis i. */
static void permute_backward(Function *self, void *ctx, Tensor *g) {
    int inverse[AG_MAX_DIMS];
    inverse_of(ctx, g->ndim, inverse);
    Tensor *dx = permuted(g, inverse);
    if (dx) ag_accumulate_grad(self->inputs[0], dx);
}

/* The same as a recorded op: dx = permute(g, inverse), permuted's copy. */
static int permute_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    (void)self;
    int inverse[AG_MAX_DIMS];
    int64_t dims[AG_MAX_DIMS];
    inverse_of(ctx, g->ndim, inverse);
    for (int i = 0; i < g->ndim; i++) dims[i] = inverse[i];
    grads[0] = tensor_permute(g, dims, g->ndim);
    return grads[0] ? 0 : -1;
}

/* out = x permuted, recorded as op with its permutation. */
static Tensor *permute_record(Tensor *x, int op, const int *perm) {
    PermuteCtx *c;
    Tensor *out = ag_graph_record(permuted(x, perm), op, &x, 1, (void **)&c, sizeof *c);
    if (c) memcpy(c->perm, perm, sizeof c->perm);
    return ag_mark_copy_of(out, x); /* PyTorch's permute and transpose are views */
}

/* The identity permutation of n axes. */
static void identity(int *perm, int n) {
    for (int i = 0; i < AG_MAX_DIMS; i++) perm[i] = i < n ? i : 0;
}

/* ======================================================================
 * transpose(x, a, b): axes a and b swapped
 * ====================================================================== */

Tensor *tensor_transpose(Tensor *x, int axis_a, int axis_b) {
    if (!x) return ag_fail("transpose: argument is NULL");
    int a, b, perm[AG_MAX_DIMS];
    if (x->ndim == 0) { /* axis 0 or -1, as PyTorch: a copy */
        bool ok_a = axis_a == 0 || axis_a == -1, ok_b = axis_b == 0 || axis_b == -1;
        if (!ok_a || !ok_b) return ag_normalize_axis("transpose", ok_a ? axis_b : axis_a, 0), NULL;
        a = b = 0;
    } else if ((a = ag_normalize_axis("transpose", axis_a, x->ndim)) < 0 ||
               (b = ag_normalize_axis("transpose", axis_b, x->ndim)) < 0) {
        return NULL;
    }
    identity(perm, x->ndim);
    perm[a] = b;
    perm[b] = a;
    return permute_record(x, AG_OP_TRANSPOSE, perm);
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
    .call = transpose_call, .backward = permute_backward, .graph_backward = permute_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
};

/* ======================================================================
 * permute(x, dims): out's axis i is x's axis dims[i]; dims names each of
 * x's axes once (negative ones counted from the end)
 * ====================================================================== */

Tensor *tensor_permute(Tensor *x, const int64_t *dims, int ndims) {
    if (!x || (ndims > 0 && !dims)) return ag_fail("permute: argument is NULL");
    char sx[AG_SHAPE_STR_MAX];
    if (ndims != x->ndim)
        return ag_fail("permute: %d dim%s given for a tensor of %d dimension%s (shape %s); name "
                       "each once", ndims, ndims == 1 ? "" : "s", x->ndim, x->ndim == 1 ? "" : "s",
                       tensor_shape_str(x, sx, sizeof sx));
    int perm[AG_MAX_DIMS];
    unsigned seen = 0;
    identity(perm, x->ndim);
    for (int i = 0; i < ndims; i++) {
        if ((perm[i] = ag_normalize_axis("permute", dims[i], x->ndim)) < 0) return NULL;
        if (seen >> perm[i] & 1)
            return ag_fail("permute: dim %d appears more than once in the list of dims", perm[i]);
        seen |= 1u << perm[i];
    }
    return permute_record(x, AG_OP_PERMUTE, perm);
}

static Tensor *permute_call(const AgOpArgs *a) {
    return tensor_permute(a->t[0], a->dims, a->num_dims);
}

const AgOpInfo ag_op_permute = {
    .id = AG_OP_PERMUTE, .name = "permute", .signature = "permute(input, *dims)", .params = "TP",
    .help = "the dims reordered: out's dim i is dims[i] of input",
    .rule = "grad_x = g permuted back (the inverse permutation)",
    .backward_name = "PermuteBackward",
    .call = permute_call, .backward = permute_backward, .graph_backward = permute_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
};

/* ======================================================================
 * t(x): a matrix transposed; a 0-d or 1-D x as it is (a copy). PyTorch's
 * t takes no more than 2 dimensions.
 * ====================================================================== */

Tensor *tensor_t(Tensor *x) {
    if (!x) return ag_fail("t: argument is NULL");
    char sx[AG_SHAPE_STR_MAX];
    if (x->ndim > 2)
        return ag_fail("t: expects a tensor of at most 2 dimensions, got %s (use transpose or "
                       "permute)", tensor_shape_str(x, sx, sizeof sx));
    int perm[AG_MAX_DIMS];
    identity(perm, x->ndim);
    if (x->ndim == 2) perm[0] = 1, perm[1] = 0;
    return permute_record(x, AG_OP_T, perm);
}

const AgOpInfo ag_op_t = {
    .id = AG_OP_T, .name = "t", .signature = "t(input)", .params = "T",
    .help = "a matrix transposed (0-D and 1-D: as they are)",
    .rule = "grad_x = g transposed back", .backward_name = "TBackward", .unary = tensor_t,
    .backward = permute_backward, .graph_backward = permute_graph,
    .flags = AG_OP_METHOD | AG_OP_SAVES_NOTHING,
};
