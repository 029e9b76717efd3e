/*
 * builtins_values.c — backward and gradients, values as numbers (item,
 * len, numel), constant copies, and printing (print, set_printoptions).
 */
#include <limits.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "builtins.h"

/* ======================================================================
 * Autograd
 * ====================================================================== */

/* PyTorch's words for a freed graph in a .py file (ag's own, which say
 * what to do in ag, otherwise), every backward failure a RuntimeError. */
/* The error of a torch.autograd.Function's backward (a Python error) that
 * stopped the engine's backward, kept here for autograd_error to report
 * ("" when none). */
static char custom_error[sizeof ((Session *)0)->error];

static bool autograd_error(Session *s, const CallArgs *a) {
    const char *message = ag_error();
    if (custom_error[0]) {
        session_set_error(s, a->line, a->col, "%s", custom_error);
        custom_error[0] = '\0';
        return false;
    }
    if (s->python && strncmp(message, "backward: the loss does not require grad", 40) == 0)
        message = "element 0 of tensors does not require grad and does not have a grad_fn";
    else if (s->python && ag_error_freed_graph())
        message = "Trying to backward through the graph a second time (or directly access "
                  "saved tensors after they have already been freed). Saved intermediate "
                  "values of the graph are freed when you call .backward() or autograd.grad(). "
                  "Specify retain_graph=True if you need to backward through the graph a "
                  "second time or if you need to access saved tensors after calling backward.";
    session_set_error(s, a->line, a->col, "%s%s", s->python ? "RuntimeError: " : "", message);
    return false;
}

/* Tensors given as one tensor or a list or tuple of them (items None too,
 * where none_ok: grad_outputs), borrowed from the argument. *n of them, in
 * *out (malloc'd; the caller frees it). */
static bool arg_tensors(Session *s, CallArgs *a, int i, bool none_ok, Tensor ***out, int *n) {
    const Value *v = &a->arg[i];
    *out = NULL;
    *n = 0;
    if (v->kind != VAL_TENSOR && v->kind != VAL_LIST)
        return arg_error(s, a, i, "TypeError: expected a tensor or a sequence of tensors, got %s",
                         value_type_name(v));
    int count = v->kind == VAL_TENSOR ? 1 : v->as.list->count;
    *out = calloc((size_t)count + 1, sizeof **out);
    if (!*out) return session_fail(s, a->line, a->col, "out of memory");
    for (int k = 0; k < count; k++) {
        const Value *item = v->kind == VAL_TENSOR ? v : &v->as.list->items[k];
        if (item->kind == VAL_TENSOR) (*out)[k] = item->as.tensor;
        else if (!(none_ok && item->kind == VAL_NONE)) {
            free(*out);
            *out = NULL;
            return arg_error(s, a, i, "TypeError: item %d is %s, not a tensor", k,
                             value_type_name(item));
        }
    }
    *n = count;
    return true;
}

/* The flags PyTorch's backward and autograd.grad share, as the engine's
 * graph_flags: retain_graph (None: create_graph's value) and create_graph
 * (the gradients get graphs of their own; the engine then keeps the graph
 * it ran through, whatever retain_graph says). */
static bool arg_graph_flags(Session *s, CallArgs *a, int retain_i, int create_i,
                            unsigned *flags) {
    bool create = false, retain = false;
    if (!arg_bool(s, a, create_i, &create) ||
        (arg_present(a, retain_i) && a->arg[retain_i].kind != VAL_NONE &&
         !arg_bool(s, a, retain_i, &retain)))
        return false;
    *flags = (create ? AG_CREATE_GRAPH : 0) | (retain ? AG_RETAIN_GRAPH : 0);
    return true;
}

/* y.backward(gradient, retain_graph, create_graph, inputs) and
 * torch.autograd.backward(tensors, grad_tensors, retain_graph,
 * create_graph, grad_variables, inputs): the same engine call, ag_backward.
 * In a .ag file, prints the .grads that changed. */
static bool run_backward(Session *s, CallArgs *a, int n, Tensor **ys, Tensor **grads,
                         unsigned flags, int num_inputs, Tensor **inputs) {
    /* Hold each leaf's current gradient: accumulate_grad then leaves it as
     * it was, so a changed pointer means "received a gradient". Only the
     * variables there now: a custom Function's backward or a hook, Python
     * code, may make more (loading a module binds its hidden global). */
    int vars = s->num_vars;
    Tensor **before = calloc((size_t)vars + 1, sizeof *before);
    if (!before) return session_fail(s, a->line, a->col, "out of memory");
    for (int i = 0; i < vars; i++)
        if (s->vars[i].value.kind == VAL_TENSOR)
            before[i] = tensor_retain(s->vars[i].value.as.tensor->grad);
    custom_error[0] = '\0';
    session_keep_graph(s);
    bool ok = ag_backward(n, ys, grads, flags, num_inputs, inputs) == 0;
    if (!ok) autograd_error(s, a);
    else if (!s->quiet && !s->python && session_print_grads(s, before, vars) == 0 && s->interactive)
        fprintf(s->out, "note: no variable received a gradient: the leaves this backward "
                        "reached are not bound to names\n");
    for (int i = 0; i < vars; i++) tensor_release(before[i]);
    free(before);
    return ok;
}

static BUILTIN(bi_backward) {
    (void)out;
    Tensor *y = NULL, *g = NULL, **inputs = NULL;
    unsigned flags = 0;
    int num_inputs = 0;
    if (!arg_tensor(s, a, 0, &y) || (arg_present(a, 1) && !arg_tensor(s, a, 1, &g)) ||
        !arg_graph_flags(s, a, 2, 3, &flags) ||
        (arg_present(a, 4) && !arg_tensors(s, a, 4, false, &inputs, &num_inputs)))
        return false;
    bool ok = run_backward(s, a, 1, &y, &g, flags, num_inputs, inputs);
    free(inputs);
    return ok;
}

/* torch.autograd.backward(tensors, grad_tensors=None, ...) */
static BUILTIN(bi_autograd_backward) {
    (void)out;
    Tensor **ys = NULL, **grads = NULL, **inputs = NULL;
    int n = 0, num_grads = 0, num_inputs = 0;
    int grads_i = arg_present(a, 1) ? 1 : 4; /* grad_variables: grad_tensors's old name */
    unsigned flags = 0;
    bool ok = arg_tensors(s, a, 0, false, &ys, &n) &&
                      (!arg_present(a, grads_i) ||
                       arg_tensors(s, a, grads_i, true, &grads, &num_grads)) &&
                      arg_graph_flags(s, a, 2, 3, &flags) &&
                      (!arg_present(a, 5) || arg_tensors(s, a, 5, false, &inputs, &num_inputs));
    if (ok && grads && num_grads != n)
        ok = arg_error(s, a, grads_i, "RuntimeError: grad_tensors has %d tensors, for %d "
                       "outputs: they must be as many", num_grads, n);
    if (ok) ok = run_backward(s, a, n, ys, grads, flags, num_inputs, inputs);
    free(ys), free(grads), free(inputs);
    return ok;
}

/* torch.autograd.grad(outputs, inputs, grad_outputs=None, retain_graph=None,
 * create_graph=False, only_inputs=True, allow_unused=False): a tuple of the
 * gradients of outputs with respect to inputs (None where unused and
 * allowed); no .grad changes. only_inputs is ignored, as PyTorch ignores
 * it (deprecated). */
static BUILTIN(bi_autograd_grad) {
    Tensor **ys = NULL, **inputs = NULL, **grads = NULL, **results = NULL;
    int n = 0, num_inputs = 0, num_grads = 0;
    unsigned flags = 0;
    bool allow_unused = false;
    bool ok = arg_tensors(s, a, 0, false, &ys, &n) &&
              arg_tensors(s, a, 1, false, &inputs, &num_inputs) &&
              (!arg_present(a, 2) || arg_tensors(s, a, 2, true, &grads, &num_grads)) &&
              arg_graph_flags(s, a, 3, 4, &flags) && arg_bool(s, a, 6, &allow_unused);
    if (ok && grads && num_grads != n)
        ok = arg_error(s, a, 2, "RuntimeError: grad_outputs has %d tensors, for %d outputs: "
                       "they must be as many", num_grads, n);
    if (ok && !(results = calloc((size_t)num_inputs + 1, sizeof *results)))
        ok = session_fail(s, a->line, a->col, "out of memory");
    custom_error[0] = '\0';
    if (ok) session_keep_graph(s);
    if (ok && ag_grad(n, ys, grads, num_inputs, inputs, flags, allow_unused, results) != 0)
        ok = autograd_error(s, a);
    ValueList *l = ok ? value_list_new(num_inputs, true) : NULL;
    if (ok && !l) ok = session_fail(s, a->line, a->col, "out of memory");
    for (int j = 0; ok && j < num_inputs; j++)
        l->items[j] = results[j] ? value_tensor(results[j]) : value_none(); /* taken */
    if (ok) *out = (Value){.kind = VAL_LIST, .as.list = l};
    else
        for (int j = 0; results && j < num_inputs; j++) tensor_release(results[j]);
    free(ys), free(inputs), free(grads), free(results);
    return ok;
}

/* ---- torch.autograd.Function: the engine's custom Function, its
 * backward a Python function (repl/torch_autograd.c's Function.apply calls
 * _custom_function) ---- */

typedef struct {
    Session *s;
    Value backward;      /* backward(*grad_outputs): cls.backward bound to its ctx */
    int line, col;       /* the apply call: where its errors point */
    int num_args;        /* forward's arguments, and which were the tensor inputs: */
    int position[MAX_ARGS];
    const char *name;    /* its Function's name (lasting_name) */
} PyFunction;

static void py_function_release(void *ctx) {
    PyFunction *f = ctx;
    value_release(&f->backward);
    free(f);
}

/* The gradient backward gave for argument k: a tensor, None (NULL), or an
 * error. */
static bool one_grad(const Value *v, Tensor **out) {
    *out = NULL;
    if (v->kind == VAL_NONE) return true;
    if (v->kind == VAL_TENSOR) return *out = tensor_retain(v->as.tensor), true;
    snprintf(custom_error, sizeof custom_error, "TypeError: backward returned %s where a "
             "gradient (a tensor or None) was expected", value_type_name(v));
    return false;
}

/* The engine's callback: calls backward(grad_output) and hands over the
 * gradient of each tensor input (backward returns one per argument of
 * forward, as PyTorch's, and may return more if the rest are None: forward
 * took fewer than its parameters). */
static int py_function_backward(void *ctx, Tensor *grad_output, int n, Tensor **grads) {
    PyFunction *f = ctx;
    Value g = value_tensor(tensor_retain(grad_output)), result;
    bool ok = f->s->call_value(f->s, f->line, f->col, &f->backward, &g, 1, &result);
    value_release(&g);
    if (!ok) return snprintf(custom_error, sizeof custom_error, "%s", f->s->error), -1;
    bool many = result.kind == VAL_LIST;
    int count = many ? (int)result.as.list->count : 1;
    bool extra_none = count > f->num_args; /* PyTorch drops trailing Nones past the inputs */
    for (int k = f->num_args; extra_none && k < count; k++)
        extra_none = result.as.list->items[k].kind == VAL_NONE;
    if (count != f->num_args && !extra_none) {
        snprintf(custom_error, sizeof custom_error, "RuntimeError: function %s returned an "
                 "incorrect number of gradients (expected %d, got %d)", f->name, f->num_args,
                 count);
        value_release(&result);
        return -1;
    }
    for (int i = 0; ok && i < n; i++) {
        int k = f->position[i];
        ok = one_grad(many ? &result.as.list->items[k] : &result, &grads[i]);
    }
    value_release(&result);
    return ok ? 0 : -1;
}

/* _custom_function(output, args, name, backward): output (forward's, made
 * under no_grad) recorded as made from the tensors among args by a Function
 * named name, whose backward calls backward(grad_output). */
static BUILTIN(bi_custom_function) {
    Tensor *y = NULL;
    const Value *args = &a->arg[1], *name = &a->arg[2];
    if (!arg_tensor(s, a, 0, &y)) return false;
    if (args->kind != VAL_LIST || name->kind != VAL_STRING)
        return arg_error(s, a, 1, "TypeError: expected a tuple of arguments and a name");
    PyFunction *f = calloc(1, sizeof *f);
    if (!f) return session_fail(s, a->line, a->col, "MemoryError");
    *f = (PyFunction){.s = s, .line = a->line, .col = a->col,
                      .num_args = (int)args->as.list->count};
    Tensor *inputs[MAX_ARGS];
    int n = 0;
    for (int k = 0; k < f->num_args && k < MAX_ARGS; k++)
        if (args->as.list->items[k].kind == VAL_TENSOR) {
            f->position[n] = k;
            inputs[n++] = args->as.list->items[k].as.tensor;
        }
    value_copy(&a->arg[3], &f->backward);
    const char *fn_name = f->name = print_custom_function_name(name->as.string.text,
                                                               name->as.string.length);
    /* The result itself is recorded, as PyTorch's apply does, so that
     * forward's ctx.save_for_backward(result) saves the output with its
     * graph (a double backward then goes through it); a copy when it is
     * one of the inputs or has a graph or requires grad already. */
    bool own = !y->requires_grad && !y->grad_fn && tensor_version(y) <= 255;
    for (int i = 0; i < n && own; i++) own = inputs[i] != y;
    Tensor *copy = own ? tensor_retain(y) : tensor_copy(y);
    if (copy && !own) tensor_set_dtype(copy, (AgDtype)y->dtype);
    Tensor *r = copy ? ag_custom_function(copy, inputs, n, fn_name, py_function_backward, f,
                                          py_function_release)
                     : (py_function_release(f), NULL);
    return result_tensor(s, a, r, out);
}

/* ---- Tensor.register_hook: the engine's gradient hook calling a Python
 * function; the handle is torch.autograd's _RemovableHandle (Python) ---- */

typedef struct {
    SessionHook link;    /* on the session's list, for session_free */
    Session *s;
    Value hook;          /* hook(grad) -> a new gradient, or None */
    int line, col;       /* the register_hook call */
} PyHook;

static void py_hook_release(void *ctx) {
    PyHook *h = ctx;
    session_hook_unlink(&h->link);
    value_release(&h->hook);
    free(h);
}

static Tensor *py_hook_call(void *ctx, Tensor *grad, bool *failed) {
    PyHook *h = ctx;
    Value g = value_tensor(tensor_retain(grad)), r;
    bool ok = h->s->call_value(h->s, h->line, h->col, &h->hook, &g, 1, &r);
    value_release(&g);
    Tensor *out = NULL;
    if (!ok) {
        snprintf(custom_error, sizeof custom_error, "%s", h->s->error);
    } else if (r.kind == VAL_TENSOR &&
               r.as.tensor->numel == grad->numel && r.as.tensor->ndim == grad->ndim) {
        out = tensor_retain(r.as.tensor);
    } else if (r.kind != VAL_NONE && r.kind != VAL_VOID) { /* (no return: void) */
        const Value *f = &h->hook;
        int len = f->kind == VAL_FUNCTION ? (int)f->as.function->name_length : 4;
        const char *name = f->kind == VAL_FUNCTION ? f->as.function->name : "hook";
        if (r.kind == VAL_TENSOR)
            snprintf(custom_error, sizeof custom_error, "RuntimeError: hook '%.*s' has changed "
                     "the size of value", len, name);
        else
            snprintf(custom_error, sizeof custom_error, "TypeError: expected Variable, but hook "
                     "returned '%s'", value_type_name(&r));
        ok = false;
    }
    value_release(&r);
    *failed = !ok;
    return out;
}

/* x.register_hook(hook): hook(grad) runs on the gradient backward computes
 * for x (PyTorch's); returns a handle whose remove() takes it off. */
static BUILTIN(bi_register_hook) {
    Tensor *x = NULL;
    if (!arg_tensor(s, a, 0, &x)) return false;
    /* What PyTorch says at the backward that calls it, said here: a hook
     * that is a tensor would hold one that holds it, a cycle of the
     * engine's that no collector sees. */
    if (!value_is_callable(&a->arg[1]))
        return arg_error(s, a, 1, "TypeError: '%s' object is not callable",
                         value_type_name(&a->arg[1]));
    PyHook *h = calloc(1, sizeof *h);
    if (!h) return session_fail(s, a->line, a->col, "MemoryError");
    *h = (PyHook){.s = s, .line = a->line, .col = a->col};
    h->link.prev = h->link.next = &h->link; /* on no list yet */
    value_copy(&a->arg[1], &h->hook);
    int handle = tensor_register_hook(x, py_hook_call, h, py_hook_release);
    if (handle < 0) /* h released */
        return session_fail(s, a->line, a->col, "%s%s", s->python ? "RuntimeError: " : "",
                            ag_error());
    h->link.tensor = x;
    h->link.handle = handle;
    session_hook_link(s, &h->link);
    Value cls, args[2] = {value_tensor(tensor_retain(x)), value_integer(handle)};
    bool ok = s->module_value(s, a->line, a->col, "torch.autograd", "_RemovableHandle",
                              strlen("_RemovableHandle"), &cls, NULL);
    if (ok) {
        ok = s->call_value(s, a->line, a->col, &cls, args, 2, out);
        value_release(&cls); /* whether or not the call failed (it leaked when it did) */
    }
    value_release(&args[0]);
    return ok;
}

/* _remove_hook(x, handle): RemovableHandle.remove(). */
static BUILTIN(bi_remove_hook) {
    Tensor *x = NULL;
    int64_t handle = 0;
    if (!arg_tensor(s, a, 0, &x) || !arg_int(s, a, 1, "a handle", 0, INT_MAX, &handle))
        return false;
    tensor_remove_hook(x, (int)handle);
    *out = value_none();
    return true;
}

static BUILTIN(bi_zero_grad) {
    (void)out;
    for (int k = 0; k < a->num_rest; k++)
        if (a->rest[k].kind != VAL_TENSOR)
            return arg_error(s, a, REST(k), "expected a tensor, got %s",
                             value_kind_name(&a->rest[k]));
    for (int i = 0; i < a->num_rest; i++) tensor_zero_grad(a->rest[i].as.tensor);
    if (a->num_rest > 0) return true;
    /* every variable: the running call's and those it closes over, and the globals */
    for (Env *e = s->frame ? s->frame->env : NULL; e; e = e->parent)
        for (int i = 0; i < e->num_locals; i++)
            if (e->locals[i].value.kind == VAL_TENSOR) tensor_zero_grad(e->locals[i].value.as.tensor);
    for (int i = 0; i < s->num_vars; i++)
        if (s->vars[i].value.kind == VAL_TENSOR) tensor_zero_grad(s->vars[i].value.as.tensor);
    return true;
}

/* x.requires_grad_(): the flag of a leaf, changed in place (PyTorch's
 * idiom x = torch.arange(4.); x.requires_grad_(True)). */
static BUILTIN(bi_requires_grad_) {
    Tensor *x = NULL;
    bool flag;
    if (!arg_tensor(s, a, 0, &x) || !arg_bool(s, a, 1, &flag)) return false;
    if (tensor_set_requires_grad(x, flag) != 0)
        return s->python ? session_fail(s, a->line, a->col, "RuntimeError: %s", ag_error())
                         : arg_error(s, a, 0, "%s", ag_error());
    *out = value_tensor(tensor_retain(x));
    return true;
}

/* x.retain_grad(): a non-leaf keeps the gradient backward gives it. */
static BUILTIN(bi_retain_grad) {
    Tensor *x = NULL;
    if (!arg_tensor(s, a, 0, &x)) return false;
    if (tensor_retain_grad(x) != 0)
        return session_fail(s, a->line, a->col, "%s%s", s->python ? "RuntimeError: " : "",
                            ag_error());
    *out = value_void();
    return true;
}

/* torch.autograd.set_detect_anomaly(mode): the engine's anomaly mode
 * (PyTorch's warnings that it is on are not printed). */
static BUILTIN(bi_set_detect_anomaly) {
    bool on, check_nan;
    if (!arg_bool(s, a, 0, &on) || !arg_bool(s, a, 1, &check_nan)) return false;
    ag_set_detect_anomaly(on && check_nan);
    *out = value_void();
    return true;
}

static BUILTIN(bi_is_anomaly_enabled) {
    (void)s, (void)a;
    *out = value_bool(ag_is_anomaly_enabled());
    return true;
}

static BUILTIN(bi_detach) {
    Tensor *x = NULL;
    return arg_tensor(s, a, 0, &x) && result_tensor(s, a, tensor_detach(x), out);
}

/* torch.clamp_min(x, min), x.clamp_min(min) (max: clamp_max): clamp with
 * one bound, PyTorch's ClampMinBackward0 (ClampMaxBackward0). */
static bool clamp_one(Session *s, CallArgs *a, bool min, Value *out) {
    Tensor *x = NULL, *bound = NULL;
    if (!arg_tensor(s, a, 0, &x) || !arg_tensor(s, a, 1, &bound)) return false;
    Tensor *r = min ? tensor_clamp(x, bound, NULL) : tensor_clamp(x, NULL, bound);
    if (r && r->grad_fn) r->op_name = r->grad_fn->name = min ? "ClampMinBackward" : "ClampMaxBackward";
    return result_tensor(s, a, r, out);
}

static BUILTIN(bi_clamp_min) { return clamp_one(s, a, true, out); }
static BUILTIN(bi_clamp_max) { return clamp_one(s, a, false, out); }

/* x.detach_(): x itself cut from its graph; x returned. */
static BUILTIN(bi_detach_) {
    Tensor *x = NULL;
    if (!arg_tensor(s, a, 0, &x)) return false;
    if (tensor_detach_in_place(x) != 0)
        return session_fail(s, a->line, a->col, "%s%s", s->python ? "RuntimeError: " : "",
                            ag_error());
    *out = value_tensor(tensor_retain(x));
    return true;
}

/* torch.unbind(input, dim=0), x.unbind(dim): the slices along dim, a
 * tuple; each a select whose grad_fn is PyTorch's UnbindBackward0 (the
 * same gradient as its one node's). */
static BUILTIN(bi_unbind) {
    Tensor *x = NULL;
    int64_t dim = 0;
    if (!arg_tensor(s, a, 0, &x)) return false;
    if (x->ndim == 0)
        return session_fail(s, a->line, a->col, "%sDimension specified as 0 but tensor has no "
                            "dimensions", s->python ? "IndexError: " : "");
    if (arg_present(a, 1) && !arg_int(s, a, 1, "dim", INT64_MIN / 2, INT64_MAX / 2, &dim))
        return false;
    if (dim < -x->ndim || dim >= x->ndim)
        return session_fail(s, a->line, a->col, "%sDimension out of range (expected to be in "
                            "range of [%d, %d], but got %lld)", s->python ? "IndexError: " : "",
                            -x->ndim, x->ndim - 1, (long long)dim);
    if (dim < 0) dim += x->ndim;
    int64_t n = x->shape[dim];
    ValueList *l = n <= INT32_MAX ? value_list_new((int)n, true) : NULL;
    if (!l) return session_fail(s, a->line, a->col, "MemoryError");
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int64_t i = 0; i < n; i++) {
        Tensor *t = tensor_select(x, (int)dim, i);
        if (!t) {
            value_release(out);
            return session_fail(s, a->line, a->col, "%s", ag_error());
        }
        if (t->grad_fn) t->grad_fn->name = t->op_name = "UnbindBackward";
        l->items[i] = value_tensor(t);
    }
    return true;
}

/* ======================================================================
 * Numbers
 * ====================================================================== */

BUILTIN(bi_numel) {
    Tensor *x = NULL;
    if (!arg_tensor(s, a, 0, &x)) return false;
    *out = s->python ? (Value){.kind = VAL_INT, .as.integer = x->numel} : value_number((double)x->numel);
    return true;
}

static BUILTIN(bi_item) {
    Tensor *x = NULL;
    if (!arg_tensor(s, a, 0, &x)) return false;
    if (x->numel != 1 && s->python) /* PyTorch 1.13's words */
        return arg_error(s, a, 0, "ValueError: only one element tensors can be converted to "
                         "Python scalars");
    if (x->numel != 1) {
        char shape[AG_SHAPE_STR_MAX];
        return arg_error(s, a, 0, "item() needs a tensor with one element, not shape %s",
                         tensor_shape_str(x, shape, sizeof shape));
    }
    *out = value_element(x, 0, s->python);
    return true;
}

/* Python's round: to ndigits decimals (None: to an integer), halves to
 * even, on the exact binary value (as Python's correctly rounded repr:
 * glibc's printf rounds the exact value too). */
BUILTIN(bi_round) {
    double v;
    int64_t digits = 0;
    if (a->arg[0].kind == VAL_TENSOR && !arg_present(a, 1)) /* torch.round(x), x.round() */
        return result_tensor(s, a, tensor_round(a->arg[0].as.tensor), out);
    if (a->arg[0].kind == VAL_TENSOR)
        return arg_error(s, a, 1, "ag rounds a tensor to integers only: no ndigits");
    if (!arg_number(s, a, 0, &v)) return false;
    if (arg_present(a, 1) && !arg_int(s, a, 1, "ndigits", -308, 308, &digits)) return false;
    if (!arg_present(a, 1) || !isfinite(v)) {
        /* + 0.0: an integer, so round(-0.4) is 0, not -0 (Python's int) */
        *out = value_number(isfinite(v) ? nearbyint(v) + 0.0 : v);
        return true;
    }
    char text[700]; /* 309 digits before the point, 308 after, at most */
    if (digits >= 0) {
        snprintf(text, sizeof text, "%.*f", (int)digits, v);
        *out = value_number(strtod(text, NULL));
    } else { /* round(1234.5, -2) = 1200: to a multiple of 10^-digits */
        double scale = pow(10.0, (double)-digits);
        *out = value_number(nearbyint(v / scale) * scale);
    }
    return true;
}

static BUILTIN(bi_len) {
    const Value *v = &a->arg[0];
    if (v->kind == VAL_SHAPE) *out = value_number(v->as.shape->ndim);
    else if (v->kind == VAL_LIST) *out = value_number(v->as.list->count);
    else if (v->kind != VAL_TENSOR) return arg_error(s, a, 0, "len() of %s", value_kind_name(v));
    else if (v->as.tensor->ndim == 0) return arg_error(s, a, 0, "len() of a 0-d tensor");
    else if (s->python) *out = (Value){.kind = VAL_INT, .as.integer = v->as.tensor->shape[0]};
    else *out = value_number((double)v->as.tensor->shape[0]);
    return true;
}

/* ======================================================================
 * Printing
 * ====================================================================== */

/* print's sep= or end=: a string, or None for the default. */
static bool print_text(Session *s, CallArgs *a, int i, const char *fallback, const char **text,
                       size_t *len) {
    const Value *v = &a->arg[i];
    *text = fallback, *len = strlen(fallback);
    if (v->kind == VAL_NONE || v->kind == VAL_VOID) return true;
    if (v->kind != VAL_STRING)
        return arg_error(s, a, i, "TypeError: %s must be None or a string, not %s",
                         i == 1 ? "sep" : "end", value_kind_name(v));
    *text = v->as.string.text, *len = v->as.string.length;
    return true;
}

/* file.NAME(args) (n of them: 0 or 1, a string) for print's file=. */
static bool call_file_method(Session *s, CallArgs *a, const Value *file, const char *name,
                             const char *text, size_t len, int n) {
    Value method, arg = value_void(), r;
    if (!value_getattr(file, name, strlen(name), &method))
        return n == 0 || arg_error(s, a, 3, "AttributeError: '%s' object has no attribute '%s'",
                                   value_type_name(file), name); /* no flush: nothing to do */
    bool ok = n == 0 || value_string(text, len, &arg) ||
              session_fail(s, a->line, a->col, "MemoryError");
    ok = ok && s->call_value(s, a->line, a->col, &method, n ? &arg : NULL, n, &r); /* borrows */
    if (ok) value_release(&r);
    value_release(&arg);
    value_release(&method);
    return ok;
}

/* The text print writes for a value: str's. */
static void print_piece(StrBuf *sb, Session *s, const Value *v) {
    /* a function that returned nothing prints as None, as in Python */
    Value shown = v->kind == VAL_VOID ? value_none() : *v;
    shown.literal = false; /* print(5) writes 5, as Python */
    value_format(sb, &shown, &s->print, false);
}

/* print(..., file=f): f.write of each value's text, of sep between them
 * and of end, one call each (as CPython's print), then f.flush() when
 * flush is true. */
static bool print_to(Session *s, CallArgs *a, const Value *file, const char *sep,
                     size_t sep_len, const char *end, size_t end_len, bool flush) {
    bool ok = true;
    for (int i = 0; ok && i < a->num_rest; i++) {
        if (i) ok = call_file_method(s, a, file, "write", sep, sep_len, 1);
        StrBuf sb;
        strbuf_init(&sb);
        print_piece(&sb, s, &a->rest[i]);
        ok = ok && call_file_method(s, a, file, "write", sb.data ? sb.data : "", sb.len, 1);
        strbuf_free(&sb);
    }
    ok = ok && call_file_method(s, a, file, "write", end, end_len, 1);
    return ok && (!flush || call_file_method(s, a, file, "flush", NULL, 0, 0));
}

static BUILTIN(bi_print) {
    (void)out;
    const char *sep, *end;
    size_t sep_len, end_len;
    bool flush = false;
    if (!print_text(s, a, 1, " ", &sep, &sep_len) || !print_text(s, a, 2, "\n", &end, &end_len))
        return false;
    if (arg_present(a, 4)) /* any value: its truth (a number's, else true) */
        flush = value_is_scalar(&a->arg[4]) ? value_scalar(&a->arg[4]) != 0
                                            : a->arg[4].kind != VAL_NONE;
    if (arg_present(a, 3) && a->arg[3].kind != VAL_NONE)
        return print_to(s, a, &a->arg[3], sep, sep_len, end, end_len, flush);
    StrBuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < a->num_rest; i++) {
        if (i) strbuf_appendn(&sb, sep, sep_len);
        print_piece(&sb, s, &a->rest[i]);
    }
    strbuf_appendn(&sb, end, end_len);
    fwrite(sb.data, 1, sb.len, s->out);
    if (flush) fflush(s->out);
    strbuf_free(&sb);
    return true;
}

/* One whole-number option in [lo, hi] when given (not None). */
static bool option(Session *s, CallArgs *a, int i, int lo, int64_t hi, int *field) {
    int64_t v = 0;
    if (!arg_present(a, i)) return true;
    if (a->arg[i].kind == VAL_NUMBER && a->arg[i].as.number == 1.0 / 0.0) { /* threshold=inf */
        *field = INT_MAX;
        return true;
    }
    if (!arg_int(s, a, i, "the option", lo, hi, &v)) return false;
    *field = (int)v;
    return true;
}

/* set_printoptions(precision=None, threshold=None, edgeitems=None,
 * linewidth=None, sci_mode=None): as PyTorch, options left None keep their
 * value, except sci_mode, which None sets back to "decide per tensor". */
static BUILTIN(bi_set_printoptions) {
    (void)out;
    PrintOptions o = s->print;
    if (!option(s, a, 0, 0, 40, &o.precision) || !option(s, a, 1, 0, INT_MAX, &o.threshold) ||
        !option(s, a, 2, 1, 1000, &o.edgeitems) || !option(s, a, 3, 1, 100000, &o.linewidth))
        return false;
    bool sci = false;
    if (arg_present(a, 4) && !arg_bool(s, a, 4, &sci)) return false;
    o.sci_mode = arg_present(a, 4) ? sci : -1;
    s->print = o;
    return true;
}

/* ======================================================================
 * Iteration helpers: enumerate and zip, built whole as lists of tuples
 * ====================================================================== */

/* The number of items of argument v (i, or REST(k)), or an error. */
static bool iterable_count(Session *s, CallArgs *a, int i, Value *v, int64_t *count) {
    if (!session_iterable(s, a->line, a->col, v)) return false; /* an object: its __iter__ */
    *count = value_item_count(v);
    if (*count >= 0) return true;
    return arg_error(s, a, i, "TypeError: '%s' object is not iterable",
                     s->python ? value_type_name(v) : value_kind_name(v));
}

/* A tuple of n values (taken) appended to list; false when out of memory. */
static bool append_tuple(ValueList *list, Value *items, int n) {
    ValueList *t = value_list_new(n, true);
    if (!t) {
        for (int i = 0; i < n; i++) value_release(&items[i]);
        return false;
    }
    for (int i = 0; i < n; i++) t->items[i] = items[i];
    return value_list_append(list, (Value){.kind = VAL_LIST, .as.list = t});
}

static bool list_result(Session *s, CallArgs *a, ValueList *l, bool ok, Value *out) {
    Value v = {.kind = VAL_LIST, .as.list = l};
    if (!ok) {
        value_release(&v);
        return s->error[0] ? false : session_fail(s, a->line, a->col, "%s", ag_error());
    }
    *out = v;
    return true;
}

static BUILTIN(bi_enumerate) {
    int64_t count, start = 0;
    if (!iterable_count(s, a, 0, &a->arg[0], &count)) return false;
    if (arg_present(a, 1) && !arg_int(s, a, 1, "start", INT64_MIN / 2, INT64_MAX / 2, &start))
        return false;
    ValueList *l = value_list_new(0, false);
    if (!l) return session_fail(s, a->line, a->col, "out of memory");
    s->error[0] = '\0';
    bool ok = true;
    for (int64_t k = 0; ok && k < count; k++) {
        Value pair[2] = {s->python ? (Value){.kind = VAL_INT, .as.integer = start + k}
                                   : value_number((double)(start + k))};
        ok = value_item(&a->arg[0], k, s->python, &pair[1]) && append_tuple(l, pair, 2);
    }
    return list_result(s, a, l, ok, out);
}

static BUILTIN(bi_zip) {
    int64_t shortest = INT64_MAX;
    for (int i = 0; i < a->num_rest; i++) {
        int64_t n;
        if (!iterable_count(s, a, REST(i), &a->rest[i], &n)) return false;
        if (n < shortest) shortest = n;
    }
    if (a->num_rest == 0) shortest = 0;
    ValueList *l = value_list_new(0, false);
    if (!l) return session_fail(s, a->line, a->col, "out of memory");
    s->error[0] = '\0';
    bool ok = true;
    for (int64_t k = 0; ok && k < shortest; k++) {
        Value items[MAX_ARGS];
        int n = 0;
        while (ok && n < a->num_rest) ok = value_item(&a->rest[n], k, s->python, &items[n]), n += ok;
        if (ok) ok = append_tuple(l, items, n);
        else
            for (int j = 0; j < n; j++) value_release(&items[j]);
    }
    return list_result(s, a, l, ok, out);
}

/* ======================================================================
 * The rows of this file's builtins (builtins.c puts every file's in one
 * list, in :help's order)
 * ====================================================================== */

const Builtin values_builtins[] = {
    {"backward", "backward(tensor, gradient=None, retain_graph=None, create_graph=False, "
     "inputs=None)", "differentiates y; prints and accumulates leaf .grads", "y must hold one "
     "element, or gradient (of y's shape) is given: the vector-Jacobian product; afterwards "
     "the graph is freed (:help arena), unless retain_graph=True keeps it for another "
     "backward (the gradients then accumulate again); inputs=[leaves] accumulates into "
     "those only; create_graph=True records the gradients' own graph (x.grad then has a "
     "grad_fn), so they can be differentiated again", bi_backward,
     BI_VOID | BI_METHOD, VAL_VOID, NULL},
    {"backward", "backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, "
     "grad_variables=None, inputs=None)", "torch.autograd.backward: differentiates several "
     "outputs at once", "tensors: a tensor or a sequence of them, grad_tensors one gradient "
     "(or None) for each; otherwise as y.backward()", bi_autograd_backward,
     BI_VOID | BI_MODULE_AUTOGRAD, VAL_VOID, NULL},
    {"grad", "grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, "
     "only_inputs=True, allow_unused=False)", "torch.autograd.grad: the gradients of outputs with respect to "
     "inputs, as a tuple", "no .grad changes; inputs may be leaves or intermediates; an input "
     "the outputs do not depend on is an error, or None with allow_unused=True; the graph is "
     "freed unless retain_graph=True; create_graph=True gives gradients with graphs of their "
     "own (and keeps the graph): differentiate them again for second derivatives",
     bi_autograd_grad, BI_MODULE_AUTOGRAD, VAL_VOID, NULL},
    {"_custom_function", "_custom_function(output, args, name, backward)", "records a "
     "torch.autograd.Function's output (its apply calls this)", "output: forward's result; "
     "backward(*grads) returns a gradient per argument of forward", bi_custom_function,
     BI_MODULE_AUTOGRAD, VAL_VOID, NULL},
    {"register_hook", "register_hook(input, hook)", "hook(grad) runs on the gradient backward "
     "computes for x; a tensor it returns replaces that gradient (PyTorch's register_hook)",
     "returns a handle: handle.remove() takes the hook off", bi_register_hook, BI_METHOD,
     VAL_VOID, NULL},
    {"_remove_hook", "_remove_hook(input, handle)", "takes a hook off (handle.remove())", NULL,
     bi_remove_hook, BI_MODULE_AUTOGRAD, VAL_VOID, NULL},
    {"set_detect_anomaly", "set_detect_anomaly(mode, check_nan=True)", "torch.autograd's "
     "anomaly mode: backward stops at the first Function whose gradient has a nan",
     "the error names the Function (PyTorch's sentence), then the element, the rule's "
     "arithmetic at its values and the line its forward ran on; in .ag, :anomaly on|off",
     bi_set_detect_anomaly, BI_VOID | BI_MODULE_AUTOGRAD, VAL_VOID, NULL},
    {"is_anomaly_enabled", "is_anomaly_enabled()", "whether anomaly mode is on "
     "(torch.is_anomaly_enabled)", NULL, bi_is_anomaly_enabled, 0, VAL_VOID, NULL},
    {"zero_grad", "zero_grad(*tensors)", "resets .grad to None (no argument: every variable)",
     NULL, bi_zero_grad, BI_VOID, VAL_VOID, NULL},
    {"retain_grad", "retain_grad(input)", "a non-leaf keeps the gradient backward computes for it "
     "in x.grad (PyTorch's retain_grad)", NULL, bi_retain_grad, BI_METHOD, VAL_VOID, NULL},
    {"requires_grad_", "requires_grad_(input, requires_grad=True)", "makes a leaf require "
     "gradients (or not), and returns it: PyTorch's one in-place method", "only a leaf, one no "
     "op has recorded, can change: the same tensor, not a copy", bi_requires_grad_, BI_METHOD, VAL_VOID, NULL},
    {"detach", "detach(input)", "a constant copy of x (no graph, no grad)", NULL, bi_detach,
     BI_METHOD, VAL_VOID, NULL},
    {"numel", "numel(input)", "the number of elements of x", NULL, bi_numel, BI_METHOD, VAL_VOID, NULL},
    {"detach_", "detach_(input)", "x itself cut from its graph: a leaf that does not require "
     "grad", "a view, or a tensor an op has already used, is refused", bi_detach_, BI_METHOD,
     VAL_VOID, NULL},
    {"unbind", "unbind(input, dim=0)", "the slices of x along dim, as a tuple", NULL, bi_unbind,
     BI_METHOD, VAL_VOID, NULL},
    {"clamp_min", "clamp_min(input, min)", "clamp(x, min=min)", NULL, bi_clamp_min, BI_METHOD,
     VAL_VOID, NULL},
    {"clamp_max", "clamp_max(input, max)", "clamp(x, max=max)", NULL, bi_clamp_max, BI_METHOD,
     VAL_VOID, NULL},
    {"item", "item(input)", "the value of a one-element tensor, as a number", NULL, bi_item,
     BI_METHOD, VAL_VOID, NULL},
    {"round", "round(number, ndigits=None)", "a number rounded to ndigits decimals (Python's "
     "round: halves to even); of a tensor, each element to the nearest integer (torch.round)",
     "for printing: print(t, round(loss.item(), 4))", bi_round, BI_METHOD,
     VAL_VOID, NULL},
    {"len", "len(input)", "the size of the first dimension, as a number", NULL, bi_len, 0, VAL_VOID, NULL},
    {"enumerate", "enumerate(iterable, start=0)", "(index, item) pairs of a list, tuple or "
     "tensor's first axis, as a list", NULL, bi_enumerate, 0, VAL_VOID, NULL},
    {"zip", "zip(*iterables)", "tuples of the i-th items of each argument, as a list (as long "
     "as the shortest)", NULL, bi_zip, 0, VAL_VOID, NULL},
    {"print", "print(*values, sep=None, end=None, file=None, flush=False)", "prints its arguments separated by spaces (or sep), then a newline (or end); to file (its write method) when given", NULL, bi_print,
     BI_VOID, VAL_VOID, NULL},
    {"set_printoptions", "set_printoptions(precision=None, threshold=None, edgeitems=None, "
     "linewidth=None, sci_mode=None)", "how tensors print, as PyTorch's", NULL,
     bi_set_printoptions, BI_VOID, VAL_VOID, NULL},
};
const int num_values_builtins = sizeof values_builtins / sizeof values_builtins[0];
