/*
 * inspect.c — making the engine's workings visible: :graph (the graph
 * behind a value as an indented tree), :dot (the same as Graphviz DOT) and
 * :trace (one line per step of backward, from the engine's trace hook).
 * Functions are labelled by op and a number (#1, #2, ...) so that a node met
 * twice can be referred to; tensors by the variable that holds them.
 */
#include "inspect.h"

#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "print.h"

/* ======================================================================
 * Labels: a number per Function, a name per tensor
 * ====================================================================== */

/* The numbering every display shares, so that MulBackward#2 in :graph is
 * MulBackward#2 in :trace; it starts afresh when the graph is freed. */
static Labels *labels_now(Session *s) {
    Labels *l = &s->labels;
    uint64_t generation = ag_stats().generation;
    if (generation != l->generation) {
        ptrmap_clear(&l->numbers);
        l->count = 0;
        l->generation = generation;
    }
    return l;
}

/* The Function's number, given in order of first asking; 0 when memory
 * runs out. */
static int label_number(Labels *l, const Function *fn) {
    int id = ptrmap_get(&l->numbers, fn);
    if (id) return id;
    if (l->count == l->cap) {
        int cap = l->cap ? l->cap * 2 : 64;
        bool *shown = realloc(l->shown, (size_t)cap * sizeof *shown);
        if (!shown) return 0;
        l->shown = shown;
        l->cap = cap;
    }
    if (!ptrmap_put(&l->numbers, fn, l->count + 1)) return 0;
    l->shown[l->count] = false;
    return ++l->count;
}

static void labels_unshow(Labels *l) {
    for (int i = 0; i < l->count; i++) l->shown[i] = false;
}

/* Which variable holds each tensor, for one display: variable index + 1. */
static void name_map(Session *s, PtrMap *names) {
    for (int i = s->num_vars - 1; i >= 0; i--) /* the first bound wins */
        if (s->vars[i].value.kind == VAL_TENSOR) ptrmap_put(names, s->vars[i].value.as.tensor, i + 1);
}

/* The first variable bound to t, or NULL. */
static const char *name_of(Session *s, const PtrMap *names, const Tensor *t) {
    int i = ptrmap_get(names, t);
    return i ? s->vars[i - 1].name : NULL;
}

/* "x", "a = MulBackward#3", "MulBackward#3", "a leaf", "2." (a constant). */
static void tensor_label(Session *s, const PtrMap *names, Labels *l, const Tensor *t, char *buf,
                         size_t size) {
    const char *name = name_of(s, names, t);
    if (tensor_has_graph(t)) {
        snprintf(buf, size, "%s%s%s#%d", name ? name : "", name ? " = " : "", t->grad_fn->name,
                 label_number(l, t->grad_fn));
    } else if (name) {
        snprintf(buf, size, "%s", name);
    } else if (t->requires_grad) {
        snprintf(buf, size, tensor_is_leaf(t) ? "a leaf" : "a value whose graph was freed");
    } else if (t->numel == 1) {
        snprintf(buf, size, "%.6g", tensor_values(t)[0]);
    } else {
        snprintf(buf, size, "a constant");
    }
}

static const char *shape_of(const Tensor *t, char *buf, size_t size) {
    return tensor_shape_str(t, buf, size);
}

/* ======================================================================
 * :graph — an indented tree, iterative (graphs can be 100,000 deep)
 * ====================================================================== */

enum { GRAPH_MAX_LINES = 400, GRAPH_MAX_INDENT = 30 };

typedef struct {
    const Tensor *t;
    bool last;                              /* the last input of its consumer */
    char prefix[GRAPH_MAX_INDENT * 3 + 1];  /* what stands before its branch */
} GraphItem;

/* Prints t's line; true when its inputs should be shown below it. */
static bool graph_line(Session *s, const PtrMap *names, Labels *l, const Tensor *t) {
    char label[160], shape[AG_SHAPE_STR_MAX];
    tensor_label(s, names, l, t, label, sizeof label);
    shape_of(t, shape, sizeof shape);
    if (tensor_has_graph(t)) {
        int id = label_number(l, t->grad_fn);
        if (id > 0 && l->shown[id - 1]) {
            fprintf(s->out, "%s  (shown above)\n", label);
            return false;
        }
        if (id > 0) l->shown[id - 1] = true;
        fprintf(s->out, "%s %s  pending %d\n", label, shape, t->grad_fn->pending_count);
        return true;
    }
    if (t->requires_grad)
        fprintf(s->out, "%s %s  %s\n", label, shape,
                tensor_is_leaf(t) ? "leaf, requires grad" : "graph freed");
    else
        fprintf(s->out, "%s %s  constant\n", label, shape);
    return false;
}

/* Pushes fn's inputs (the first on top) with the prefix their lines need. */
static bool push_inputs(GraphItem **stack, int *top, int *cap, const GraphItem *parent,
                        bool is_root, const Function *fn) {
    if (*top + fn->num_inputs > *cap) {
        GraphItem *bigger = realloc(*stack, (size_t)(*cap * 2) * sizeof **stack);
        if (!bigger) return false;
        *stack = bigger;
        *cap *= 2;
    }
    char prefix[sizeof parent->prefix];
    snprintf(prefix, sizeof prefix, "%s", parent->prefix);
    size_t len = strlen(prefix);
    if (!is_root && len + 3 < sizeof prefix) memcpy(prefix + len, parent->last ? "   " : "|  ", 4);
    for (int i = fn->num_inputs - 1; i >= 0; i--) {
        GraphItem *it = &(*stack)[(*top)++];
        it->t = fn->inputs[i];
        it->last = i == fn->num_inputs - 1;
        memcpy(it->prefix, prefix, sizeof prefix);
    }
    return true;
}

void inspect_graph(Session *s, const Tensor *root, const char *name) {
    char shape[AG_SHAPE_STR_MAX];
    if (!tensor_has_graph(root)) {
        if (!tensor_is_leaf(root))
            fprintf(s->out, "%s = %s %s: its graph was freed by a backward (recompute %s to "
                    "see it)\n", name, root->op_name, shape_of(root, shape, sizeof shape), name);
        else
            fprintf(s->out, "%s is a leaf %s%s: no graph behind it\n", name,
                    shape_of(root, shape, sizeof shape),
                    root->requires_grad ? " that requires grad" : " (a constant)");
        return;
    }
    Labels *l = labels_now(s);
    labels_unshow(l);
    PtrMap names = {0};
    name_map(s, &names);
    int cap = 64, top = 0, lines = 0;
    GraphItem *stack = malloc((size_t)cap * sizeof *stack);
    if (!stack) {
        ptrmap_clear(&names);
        return;
    }
    stack[top++] = (GraphItem){root, true, ""};
    while (top > 0 && lines < GRAPH_MAX_LINES) {
        GraphItem it = stack[--top];
        bool is_root = it.t == root && lines == 0;
        if (!is_root) fprintf(s->out, "%s%s", it.prefix, it.last ? "`- " : "|- ");
        lines++;
        if (graph_line(s, &names, l, it.t) &&
            !push_inputs(&stack, &top, &cap, &it, is_root, it.t->grad_fn))
            break;
    }
    if (top > 0) fprintf(s->out, "... (the graph goes on; the first %d lines are shown)\n", lines);
    free(stack);
    ptrmap_clear(&names);
}

/* ======================================================================
 * :dot — Graphviz: leaves, ops and the loss styled apart
 * ====================================================================== */

/* What one :dot display keeps: names of variables, numbers of the
 * tensors without a graph already declared, the Functions to visit. */
typedef struct {
    Session *s;
    FILE *f;
    PtrMap names, leaves;
    int num_leaves;
    Labels *labels;
    const Function **stack;
    int top, cap;
} Dot;

/* The DOT node for a tensor with no graph (leaf or constant), declared the
 * first time it is met. Returns its number (0 when out of memory). */
static int dot_leaf(Dot *d, const Tensor *t) {
    int id = ptrmap_get(&d->leaves, t);
    if (id) return id;
    if (!ptrmap_put(&d->leaves, t, d->num_leaves + 1)) return 0;
    id = ++d->num_leaves;
    char label[160], shape[AG_SHAPE_STR_MAX];
    const char *name = name_of(d->s, &d->names, t);
    if (name) snprintf(label, sizeof label, "%s", name);
    else if (!t->requires_grad && t->numel == 1) snprintf(label, sizeof label, "%.6g", tensor_values(t)[0]);
    else snprintf(label, sizeof label, t->requires_grad ? "leaf" : "constant");
    shape_of(t, shape, sizeof shape);
    if (!tensor_is_leaf(t)) /* made by an op whose graph a backward freed */
        fprintf(d->f, "  t%d [label=\"%s = %s\\n%s\\n(graph freed)\", shape=box, style=dashed];\n",
                id, label, t->op_name, shape);
    else if (t->requires_grad)
        fprintf(d->f, "  t%d [label=\"%s\\n%s\", shape=ellipse, style=filled, fillcolor=\"#cfe2f3\"];\n",
                id, label, shape);
    else
        fprintf(d->f, "  t%d [label=\"%s\\n%s\", shape=plaintext, fontcolor=\"#666666\"];\n", id,
                label, shape);
    return id;
}

/* Pushes fn unless it is already queued (its shown flag); false when out
 * of memory. */
static bool dot_queue(Dot *d, const Function *fn) {
    int id = label_number(d->labels, fn);
    if (id == 0 || d->labels->shown[id - 1]) return id != 0;
    d->labels->shown[id - 1] = true;
    if (d->top == d->cap) {
        int cap = d->cap ? d->cap * 2 : 64;
        const Function **bigger = realloc(d->stack, (size_t)cap * sizeof *bigger);
        if (!bigger) return false;
        d->stack = bigger;
        d->cap = cap;
    }
    d->stack[d->top++] = fn;
    return true;
}

/* One Function's node and the edges into it; false when out of memory. */
static bool dot_function(Dot *d, const Function *fn, const Function *root) {
    int id = label_number(d->labels, fn);
    char shape[AG_SHAPE_STR_MAX];
    const char *out_name = fn->output ? name_of(d->s, &d->names, fn->output) : NULL;
    fprintf(d->f, "  f%d [label=\"%s%s%s#%d\\n%s\", shape=box%s];\n", id,
            out_name ? out_name : "", out_name ? " = " : "", fn->name, id,
            fn->output ? shape_of(fn->output, shape, sizeof shape) : "",
            fn == root ? ", style=\"filled,bold\", fillcolor=\"#f4cccc\"" : "");
    for (int i = 0; i < fn->num_inputs; i++) {
        const Tensor *in = fn->inputs[i];
        if (!tensor_has_graph(in)) {
            int leaf = dot_leaf(d, in);
            if (!leaf) return false;
            fprintf(d->f, "  t%d -> f%d;\n", leaf, id);
            continue;
        }
        fprintf(d->f, "  f%d -> f%d;\n", label_number(d->labels, in->grad_fn), id);
        if (!dot_queue(d, in->grad_fn)) return false;
    }
    return true;
}

bool inspect_dot(Session *s, const Tensor *root, const char *name, FILE *f) {
    fprintf(f, "digraph \"%s\" {\n  rankdir=BT;\n  node [fontname=\"Helvetica\", fontsize=11];\n",
            name);
    Dot d = {.s = s, .f = f, .labels = labels_now(s)};
    labels_unshow(d.labels);
    name_map(s, &d.names);
    bool ok = true;
    if (!tensor_has_graph(root)) ok = dot_leaf(&d, root) != 0;
    else ok = dot_queue(&d, root->grad_fn);
    while (ok && d.top > 0) {
        if (session_interrupted) {
            ok = session_fail(s, 0, 0, "interrupted");
            break;
        }
        ok = dot_function(&d, d.stack[--d.top], root->grad_fn);
    }
    if (!ok && !session_interrupted) session_set_error(s, 0, 0, "out of memory drawing the graph");
    fprintf(f, "}\n");
    ptrmap_clear(&d.names);
    ptrmap_clear(&d.leaves);
    free(d.stack);
    return ok;
}

/* ======================================================================
 * :trace — one line per step of backward
 * ====================================================================== */


/* "tensor([1., 2.])" as "[1., 2.]" on one line, for gradients of up to 8
 * elements; "" for bigger ones (the shape says enough). */
static void small_values(const Tensor *t, char *buf, size_t size) {
    buf[0] = '\0';
    if (t->numel > 8) return;
    StrBuf sb;
    strbuf_init(&sb);
    format_tensor(&sb, t, &print_defaults);
    const char *p = sb.data + strlen("tensor(");
    size_t n = 0, len = sb.len > strlen("tensor()") ? sb.len - strlen("tensor()") : 0;
    n += (size_t)snprintf(buf, size, " = ");
    for (size_t i = 0; i < len && n + 1 < size; i++) {
        if (p[i] == '\n') {
            buf[n++] = ' ';
            while (i + 1 < len && p[i + 1] == ' ') i++;
        } else {
            buf[n++] = p[i];
        }
    }
    buf[n] = '\0';
    strbuf_free(&sb);
}

/* ", summing axes (0, 2) to (3,)": the reduction accumulate_grad does. */
static void reduction(const Tensor *grad, const Tensor *t, char *buf, size_t size) {
    buf[0] = '\0';
    if (grad->ndim == t->ndim &&
        memcmp(grad->shape, t->shape, (size_t)t->ndim * sizeof *t->shape) == 0)
        return;
    size_t n = (size_t)snprintf(buf, size, ", summing axes (");
    int lead = grad->ndim - t->ndim, count = 0;
    for (int i = 0; i < grad->ndim && n < size; i++) {
        bool summed = i < lead || (t->shape[i - lead] == 1 && grad->shape[i] != 1);
        if (summed) n += (size_t)snprintf(buf + n, size - n, count++ ? ", %d" : "%d", i);
    }
    char shape[AG_SHAPE_STR_MAX];
    if (n < size)
        snprintf(buf + n, size - n, "%s) to %s", count == 1 ? "," : "",
                 tensor_shape_str(t, shape, sizeof shape));
}

static void trace_event(const AgTraceEvent *e, void *ctx) {
    Session *s = ctx;
    char shape[AG_SHAPE_STR_MAX], values[256], label[160], reduced[160];
    Labels *l = labels_now(s);
    switch (e->kind) {
    case AG_TRACE_APPLY:
        small_values(e->grad, values, sizeof values);
        fprintf(s->out, "apply %s#%d: grad %s%s\n", e->fn->name, label_number(l, e->fn),
                tensor_shape_str(e->grad, shape, sizeof shape), values);
        break;
    case AG_TRACE_ACCUMULATE: {
        PtrMap names = {0};
        name_map(s, &names);
        tensor_label(s, &names, l, e->tensor, label, sizeof label);
        ptrmap_clear(&names);
        small_values(e->grad, values, sizeof values);
        reduction(e->grad, e->tensor, reduced, sizeof reduced);
        fprintf(s->out, "  accumulate into %s: grad %s%s%s%s\n", label,
                tensor_shape_str(e->grad, shape, sizeof shape), values, reduced,
                e->summed ? ", added to the gradient already there" : "");
        break;
    }
    case AG_TRACE_PENDING:
        fprintf(s->out, "  pending %s#%d: %d -> %d%s\n", e->fn->name,
                label_number(l, e->fn), e->pending + 1, e->pending,
                e->pending == 0 ? ", ready" : "");
        break;
    }
}

void inspect_trace(Session *s, bool on) {
    s->tracing = on;
    ag_set_trace(on ? trace_event : NULL, s);
}
