/*
 * reshape.c — reshape: the same elements in a new shape, copied (ag has no
 * views). One dimension may be -1, inferred from the element count.
 * Backward copies g back into x's shape.
 */
#include "../internal.h"

#include <string.h>

/* Copies a same-numel tensor's data into a new tensor of shape (ndim). */
static Tensor *copy_as(const Tensor *src, int ndim, const int64_t *shape) {
    Tensor *r = ag_tensor_new(ndim, shape);
    if (r) memcpy(r->data, src->data, (size_t)src->numel * sizeof(double));
    return r;
}

/* x (..) -> out (shape); dx = g in x's shape */
static void reshape_backward(Function *self, void *ctx, Tensor *g) {
    (void)ctx;
    Tensor *x = self->inputs[0];
    Tensor *dx = copy_as(g, x->ndim, x->shape);
    if (dx) ag_accumulate_grad(x, dx);
}

/* Resolves one -1 in shape against numel; -1 with a message when the shape
 * cannot hold exactly numel elements. */
static int resolve_shape(const Tensor *x, int ndim, const int64_t *req, int64_t *shape) {
    char sx[AG_SHAPE_STR_MAX], sr[AG_SHAPE_STR_MAX];
    int infer = -1;
    int64_t known = 1;
    for (int i = 0; i < ndim; i++) {
        shape[i] = req[i];
        if (req[i] == -1 && infer < 0) {
            infer = i;
        } else if (req[i] < 0) {
            ag_fail("reshape: invalid dimension %lld in %s (only one -1 may be inferred)",
                    (long long)req[i], ag_shape_str(ndim, req, sr, sizeof sr));
            return -1;
        } else if (req[i] != 0 && known > INT64_MAX / req[i]) {
            known = -1; /* overflow: cannot match any real element count */
            break;
        } else {
            known *= req[i];
        }
    }
    if (infer >= 0 && known > 0 && x->numel % known == 0) shape[infer] = x->numel / known;
    bool ok = known >= 0 && (infer >= 0 ? known > 0 && x->numel % known == 0 : known == x->numel);
    if (!ok) {
        ag_fail("reshape: cannot reshape %s (%lld elements) to %s", tensor_shape_str(x, sx, sizeof sx),
                (long long)x->numel, ag_shape_str(ndim, req, sr, sizeof sr));
        return -1;
    }
    return 0;
}

Tensor *tensor_reshape(Tensor *x, int ndim, const int64_t *req) {
    if (!x || (ndim > 0 && !req)) return ag_fail("reshape: argument is NULL");
    if (ndim < 0 || ndim > AG_MAX_DIMS)
        return ag_fail("reshape: tensors have at most %d dimensions, not %d", AG_MAX_DIMS, ndim);
    int64_t shape[AG_MAX_DIMS];
    if (resolve_shape(x, ndim, req, shape) != 0) return NULL;
    Tensor *out = copy_as(x, ndim, shape);
    return ag_graph_record(out, AG_OP_RESHAPE, &x, 1, NULL, 0);
}

static Tensor *reshape_call(const AgOpArgs *a) {
    return tensor_reshape(a->t[0], a->num_dims, a->dims);
}

const AgOpInfo ag_op_reshape = {
    .id = AG_OP_RESHAPE, .name = "reshape", .alias = "view", .signature = "reshape(input, *shape)",
    .params = "TD", .help = "the same elements in shape (d...); one d can be -1",
    .rule = "grad_x = g reshaped back to x's shape", .backward_name = "ReshapeBackward",
    .call = reshape_call, .backward = reshape_backward, .flags = AG_OP_METHOD | AG_OP_KEEPS_BOOL,
};
