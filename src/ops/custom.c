/*
 * custom.c — a Function whose backward is a client's: PyTorch's
 * torch.autograd.Function (LegendrePolynomial3, a learner's own exp). The
 * client computes the output itself (a constant) and hands over a callback
 * that makes the inputs' gradients from the output's; ag_custom_function
 * records it as made from the inputs. Its first-order backward and its
 * graph_backward are the same callback, run with grad mode off and on: a
 * backward written in ops is differentiable under create_graph, as in
 * PyTorch. The callback's ctx lives as long as the Function: released
 * after a backward that frees the graph, or with the arena
 * (ag_custom_release).
 */
#include "../internal.h"

typedef struct {
    AgCustomBackward backward;
    void *ctx;
    void (*release)(void *ctx);
} CustomCtx;

/* The client's backward: grads[i] for input i (new references, or NULL). */
static int custom_graph(Function *self, void *ctx, Tensor *g, Tensor **grads) {
    CustomCtx *c = ctx;
    if (c->backward(c->ctx, g, self->num_inputs, grads) == 0) return 0;
    for (int i = 0; i < self->num_inputs; i++) tensor_release(grads[i]), grads[i] = NULL;
    return -1;
}

static void custom_backward(Function *self, void *ctx, Tensor *g) {
    ag_apply_by_graph(self, ctx, g, custom_graph);
}

void ag_custom_release(Function *fn) {
    if (fn->apply != custom_backward) return;
    CustomCtx *c = ag_function_ctx(fn);
    if (c->release) c->release(c->ctx);
    c->release = NULL;
}

Tensor *ag_custom_function(Tensor *out, Tensor *const *inputs, int n, const char *name,
                           AgCustomBackward client, void *ctx, void (*release)(void *ctx)) {
    if (!out || !client || n < 0 || (n > 0 && !inputs) || ag_version_of(out) > 255) {
        if (release) release(ctx);
        tensor_release(out);
        return out ? ag_fail("custom function: no backward, or no inputs, or an output "
                             "changed in place over 255 times") : NULL;
    }
    void *slot = NULL;
    uint8_t version = (uint8_t)ag_version_of(out); /* the client's in-place changes before */
    out = ag_graph_record_named(out, AG_OP_CUSTOM, name, inputs, n, &slot, sizeof(CustomCtx));
    if (!slot) { /* a constant: nothing requires grad, or grad mode is off */
        if (release) release(ctx);
        return out;
    }
    out->grad_fn->output_version = version;
    *(CustomCtx *)slot = (CustomCtx){.backward = client, .ctx = ctx, .release = release};
    return out;
}

const AgOpInfo ag_op_custom = {
    .id = AG_OP_CUSTOM, .name = "custom_function", .signature = "custom_function(*inputs)",
    .params = "L", .help = "a Function whose backward is the client's (torch.autograd.Function)",
    .rule = "grad_inputs = the client's backward(g)", .backward_name = "CustomFunctionBackward",
    .backward = custom_backward, .graph_backward = custom_graph, .flags = AG_OP_HIDDEN,
    .dtype_rule = AG_DTYPE_OWN,
};
