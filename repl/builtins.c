/*
 * builtins.c — the table of builtins and the one call path: a signature
 * read once per row, arguments bound to it (positional, keyword, defaults,
 * *args), arity and keywords checked here for every builtin, and the arg_*
 * helpers the implementations read their arguments with.
 */
#include "builtins.h"
#include "modules.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * Signatures
 * ====================================================================== */

typedef struct {
    char name[32];
    bool required, varargs, keyword_only;
    Value def;              /* the default (number, bool, None, string, tuple) */
} Param;

typedef struct {
    Param params[MAX_PARAMS];
    int count;
    int positional;         /* parameters a positional argument can fill */
    bool read;              /* parsed (signature_of parses each at its first use) */
    int varargs;            /* index of *args, or -1 */
} Signature;

static const Builtin *all_builtins(int *count);
static Signature *signatures;    /* parallel to the builtins, read at first use */

/* One default value from the signature text at *p ("None", "0.01",
 * "'mean'", "(0.9, 0.999)"); advances *p. Strings point into the row's
 * signature, which is static. */
static Value parse_default(const char **p) {
    const char *c = *p;
    Value v = value_none();
    if (strncmp(c, "None", 4) == 0) {
        c += 4;
    } else if (strncmp(c, "True", 4) == 0 || strncmp(c, "False", 5) == 0) {
        v = value_bool(c[0] == 'T');
        c += c[0] == 'T' ? 4 : 5;
    } else if (*c == '\'') {
        const char *end = strchr(c + 1, '\'');
        v = (Value){.kind = VAL_STRING, .as.string = {c + 1, (size_t)(end - c - 1), NULL}};
        c = end + 1;
    } else if (*c == '(') {
        double items[4];
        int n = 0;
        for (c++; *c != ')' && n < 4; n++) {
            char *end;
            items[n] = strtod(c, &end);
            c = end + strspn(end, ", ");
        }
        c++;
        ValueList *l = value_list_new(n, true);
        for (int i = 0; l && i < n; i++) l->items[i] = value_number(items[i]);
        if (l) v = (Value){.kind = VAL_LIST, .as.list = l};
        value_keep(&v); /* static, as the row: the collector must not empty it */
    } else {
        char *end;
        v = value_number(strtod(c, &end));
        c = end;
    }
    *p = c;
    return v;
}

/* Reads "name(a, b=1, *rest, c=None)". The table is ours: a malformed
 * signature is a bug, caught by the tests that call every builtin. An op
 * whose first parameter is a list of tensors (stack(tensors, dim=0)) binds
 * it as *tensors: the list, or the tensors as arguments (see bi_op). */
static void parse_signature(const char *text, bool list_first, Signature *sig) {
    memset(sig, 0, sizeof *sig);
    sig->varargs = -1;
    const char *c = strchr(text, '(') + 1;
    bool keyword_only = false;
    while (*c && *c != ')' && sig->count < MAX_PARAMS) {
        c += strspn(c, ", ");
        if (*c == ')') break;
        Param *p = &sig->params[sig->count];
        bool list = list_first && sig->count == 0;
        if (c[0] == '*' && c[1] == '*') { /* **kwargs: BI_KWARGS takes the other keywords */
            c += strcspn(c, ",)");
            continue;
        }
        if (*c == '*' || list) {
            c += !list;
            if (*c == ',' || *c == ')') { /* a bare '*': keyword-only from here */
                keyword_only = true;
                continue;
            }
            p->varargs = true;
            sig->varargs = sig->count;
            keyword_only = true;
        }
        size_t n = strcspn(c, "=,)");
        memcpy(p->name, c, n < sizeof p->name ? n : sizeof p->name - 1);
        c += n;
        p->keyword_only = keyword_only && !p->varargs;
        if (*c == '=') {
            c++;
            p->def = parse_default(&c);
        } else {
            p->required = !p->varargs;
            p->def = value_void();
        }
        if (!p->varargs && !p->keyword_only) sig->positional++;
        sig->count++;
    }
}

/* b's signature, parsed the first time it is needed (a script calls few
 * of the builtins: start-up parses none). */
static const Signature *signature_of(const Builtin *b) {
    int n;
    const Builtin *first = all_builtins(&n);
    if (!signatures) {
        signatures = calloc((size_t)n, sizeof *signatures);
        if (!signatures) abort(); /* at start-up, a few KiB: nothing sensible to do */
    }
    Signature *sig = &signatures[b - first];
    if (!sig->read) {
        parse_signature(b->signature, b->op && b->op->params[0] == 'L', sig);
        sig->read = true;
    }
    return sig;
}

/* ======================================================================
 * Binding arguments: the one call path
 * ====================================================================== */

/* a ready for a builtin whose signature has count parameters: those
 * zeroed (no argument: VAL_VOID is 0), and nothing else, since a builtin
 * reads only its own (a CallArgs is 700 bytes, and isinstance(x, C) is
 * called once per micrograd op). A debug build fills the rest with a byte
 * no value has, so that a read past them shows. */
static void call_args_init(CallArgs *a, int count) {
    size_t n = (size_t)count;
    memset(a->arg, 0, n * sizeof a->arg[0]);
    memset(a->node, 0, n * sizeof a->node[0]);
    memset(a->given, 0, n * sizeof a->given[0]);
    memset(a->position, 0, n * sizeof a->position[0]);
#ifdef AG_DEBUG
    memset(a->arg + n, 0xA5, (MAX_PARAMS - n) * sizeof a->arg[0]);
    memset(a->node + n, 0xA5, (MAX_PARAMS - n) * sizeof a->node[0]);
    memset(a->given + n, 0xA5, (MAX_PARAMS - n) * sizeof a->given[0]);
    memset(a->position + n, 0xA5, (MAX_PARAMS - n) * sizeof a->position[0]);
#endif
    a->rest = NULL;
    a->rest_node = NULL;
    a->num_rest = a->rest_first = 0;
    a->rest_keyword = value_void();
    a->rest_keyword_node = NULL;
    a->extra_kw = NULL;
    a->extra_kw_nodes = NULL;
    a->num_extra_kw = 0;
    memset(&a->func, 0, sizeof a->func);
}

static void release_call(CallArgs *a, int count) {
    for (int i = 0; i < count; i++) value_release(&a->arg[i]);
    for (int i = 0; i < a->num_rest; i++) value_release(&a->rest[i]);
}

/* A .py file's errors begin with the exception Python raises: for a
 * call's arguments, TypeError. */
static const char *type_error(const Session *s) { return s->python ? "TypeError: " : ""; }

/* "1", "at most 3", "1 to 3": how many positional arguments b takes. */
static void arity_text(const Signature *sig, char *buf, size_t size) {
    int required = 0;
    for (int i = 0; i < sig->count; i++) required += sig->params[i].required;
    if (sig->varargs >= 0) snprintf(buf, size, "at least %d", required);
    else if (required == sig->positional) snprintf(buf, size, "%d", required);
    else if (required == 0) snprintf(buf, size, "at most %d", sig->positional);
    else snprintf(buf, size, "%d to %d", required, sig->positional);
}

static bool arity_error(Session *s, const Builtin *b, const Signature *sig, int line, int col,
                        int given) {
    char range[48];
    arity_text(sig, range, sizeof range);
    return session_fail(s, line, col, "%s%s takes %s argument%s, got %d: %s", type_error(s),
                        b->name, range, strcmp(range, "1") == 0 ? "" : "s", given, b->signature);
}

/* The parameter a keyword names (dim and axis are one), or -1. */
static int keyword_param(const Signature *sig, const char *name, size_t len) {
    for (int i = 0; i < sig->count; i++) {
        const char *p = sig->params[i].name;
        bool same = strlen(p) == len && memcmp(p, name, len) == 0;
        bool alias = strcmp(p, "dim") == 0 && len == 4 && memcmp(name, "axis", 4) == 0;
        if ((same || alias) && !sig->params[i].varargs) return i;
    }
    return -1;
}

static bool unknown_keyword(Session *s, const Builtin *b, const Signature *sig,
                            const Node *kw) {
    char accepted[256] = "";
    size_t used = 0;
    for (int i = 0; i < sig->count; i++) { /* *size is a keyword too (randn(size=...)) */
        if (sig->params[i].varargs && strcmp(sig->params[i].name, "args") == 0) continue;
        used += (size_t)snprintf(accepted + used, used < sizeof accepted ? sizeof accepted - used : 0,
                                 "%s%s", used ? ", " : "", sig->params[i].name);
    }
    if (used == 0)
        return session_fail(s, kw->line, kw->col, "%s%s takes no keyword arguments (got %.*s=)",
                            type_error(s), b->name, (int)kw->as.text.length, kw->as.text.text);
    return session_fail(s, kw->line, kw->col, "%s%s has no keyword '%.*s' (it takes %s)",
                        type_error(s), b->name,
                        (int)(kw->as.text.length > 40 ? 40 : kw->as.text.length),
                        kw->as.text.text, accepted);
}

/* Binds the keyword arguments into a; false (values released by the
 * caller) on an unknown or repeated keyword. */
static bool bind_keywords(Session *s, const Builtin *b, const Signature *sig, CallArgs *a,
                          Value *kw, const Node **kw_nodes, int nkw) {
    for (int k = 0; k < nkw; k++) {
        const Node *node = kw_nodes[k];
        int i = keyword_param(sig, node->as.text.text, node->as.text.length);
        if (i < 0 && node->as.text.length == 8 && memcmp(node->as.text.text, "keepdims", 8) == 0)
            i = keyword_param(sig, "keepdim", 7); /* NumPy's spelling, which PyTorch takes too */
        bool names_rest = i < 0 && sig->varargs >= 0 && strcmp(sig->params[sig->varargs].name, "args") != 0 &&
                          strlen(sig->params[sig->varargs].name) == node->as.text.length &&
                          memcmp(sig->params[sig->varargs].name, node->as.text.text,
                                 node->as.text.length) == 0;
        if (names_rest && a->num_rest > 0)
            return session_fail(s, node->line, node->col, "%s%s got two values for '%s'",
                                type_error(s), b->name, sig->params[sig->varargs].name);
        if (names_rest) {
            /* randn(size=(2, 3)): the *args given as one keyword (PyTorch's) */
            a->rest_keyword = kw[k];
            kw[k] = value_void();
            a->rest_keyword_node = node->left;
            a->rest = &a->rest_keyword;
            a->rest_node = &a->rest_keyword_node;
            a->num_rest = 1;
            continue;
        }
        if (i < 0 && (b->flags & BI_KWARGS)) {
            /* **kwargs: moved down to the front of kw, in order (the slots below
             * k hold extras or keywords already bound, their values moved out);
             * kw still owns them, released after the call */
            int at = a->num_extra_kw++;
            kw[at] = kw[k], kw_nodes[at] = node;
            if (at != k) kw[k] = value_void();
            a->extra_kw = kw, a->extra_kw_nodes = kw_nodes;
            continue;
        }
        if (i < 0) return unknown_keyword(s, b, sig, node);
        if (a->given[i])
            return session_fail(s, node->line, node->col, "%s%s got two values for '%s'",
                                type_error(s), b->name, sig->params[i].name);
        a->arg[i] = kw[k];
        kw[k] = value_void();
        a->node[i] = node->left;
        a->given[i] = true;
    }
    return true;
}

bool builtin_call(Session *s, const Builtin *b, const BuiltinArgs *args, Value *out) {
    int line = args->line, col = args->col, n = args->n, nkw = args->nkw;
    Value *pos = args->pos, *kw = args->kw;
    const Node **pos_nodes = args->pos_nodes, **kw_nodes = args->kw_nodes;
    bool grad_flag = args->grad_flag;
    const FuncRef *func = args->func;
    const Signature *sig = signature_of(b);
    CallArgs a;
    call_args_init(&a, sig->count);
    a.b = b;
    a.line = line;
    a.col = col;
    if (func) a.func = *func;
    bool ok = true;
    /* A function named first (grad(f, ...)) fills the first parameter. */
    int skip = func && sig->varargs != 0 ? 1 : 0; /* plot(*args): the function apart */
    if (skip) a.arg[0] = value_none(), a.given[0] = true;
    int fixed = (sig->varargs >= 0 ? sig->varargs : sig->positional) - skip;
    if (n > fixed && sig->varargs < 0) ok = arity_error(s, b, sig, line, col, n + skip);
    for (int i = 0; ok && i < n && i < fixed; i++) { /* positional parameters */
        a.arg[i + skip] = pos[i];
        pos[i] = value_void();
        a.node[i + skip] = pos_nodes[i];
        a.given[i + skip] = true;
        a.position[i + skip] = i + skip + 1;
    }
    a.rest_first = fixed + skip + 1;
    if (ok && n > fixed) { /* the rest go to *args */
        a.rest = pos + fixed;
        a.rest_node = pos_nodes + fixed;
        a.num_rest = n - fixed;
    }
    ok = ok && bind_keywords(s, b, sig, &a, kw, kw_nodes, nkw);
    for (int i = 0; ok && i < sig->count; i++) {
        const Param *p = &sig->params[i];
        if (a.given[i] || p->varargs) continue;
        if (p->required) ok = arity_error(s, b, sig, line, col, n);
        else ok = value_copy(&p->def, &a.arg[i]) || session_fail(s, line, col, "out of memory");
    }
    if (ok && grad_flag) { /* tensor(x, grad): requires_grad=True */
        int i = keyword_param(sig, "requires_grad", 13);
        if (i < 0) /* Python's range(3, grad) took the place of ag's creation builtin */
            ok = session_fail(s, line, col, "%s has no requires_grad: a trailing bare grad "
                              "marks a tensor that ag's creation builtins make", b->name);
        else
            value_release(&a.arg[i]), a.arg[i] = value_bool(true);
    }
    *out = value_void();
    if (ok) ok = b->fn(s, &a, out);
    if (!ok) value_release(out);
    release_call(&a, sig->count);
    for (int i = 0; i < n; i++) value_release(&pos[i]);
    for (int i = 0; i < nkw; i++) value_release(&kw[i]);
    return ok;
}

/* ======================================================================
 * Reading arguments
 * ====================================================================== */

/* The value of argument i (a parameter, or REST(k)). */
static Value *slot(CallArgs *a, int i) { return i >= 0 ? &a->arg[i] : &a->rest[REST(i)]; }

bool arg_error(Session *s, const CallArgs *a, int i, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const Node *n = i >= 0 ? a->node[i] : a->rest_node[REST(i)];
    int line = n ? n->line : a->line, col = n ? n->col : a->col;
    const char *colon = strstr(msg, "Error: ");
    if (colon && colon - msg < 30 && !memchr(msg, ' ', (size_t)(colon - msg)))
        return session_fail(s, line, col, "%s", msg); /* Python's exception, worded as Python */
    bool by_keyword = i >= 0 ? a->position[i] == 0 : a->rest == &a->rest_keyword;
    int number = i >= 0 ? a->position[i] : a->rest_first + REST(i);
    /* in a .py file a TypeError, as Python's for a bad argument, so that
     * an except clause sees it */
    const char *kind = s->python ? "TypeError: " : "";
    if (by_keyword) { /* given by keyword, or a default */
        const Signature *sig = signature_of(a->b);
        return session_fail(s, line, col, "%sbad argument '%s' to '%s': %s", kind,
                            sig->params[i >= 0 ? i : sig->varargs].name, a->b->name, msg);
    }
    return session_fail(s, line, col, "%sbad argument #%d to '%s': %s", kind, number,
                        a->b->name, msg);
}

bool values_indices_result(Session *s, CallArgs *a, const char *type_name, Tensor *values,
                           Tensor *indices, Value *out) {
    ValueList *l = values && indices ? value_list_new(2, true) : NULL;
    if (!l) {
        tensor_release(values), tensor_release(indices);
        return session_fail(s, a->line, a->col, "%s", values && indices ? "MemoryError" : ag_error());
    }
    static const char *const fields[] = {"values", "indices"};
    l->type_name = type_name;
    l->fields = fields;
    l->items[0] = value_tensor(values);
    l->items[1] = value_tensor(indices);
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    return true;
}

void shape_brackets(const Tensor *t, char *buf, size_t size) {
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < t->ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, i ? ", %lld" : "%lld",
                                 (long long)t->shape[i]);
    if (used < size) snprintf(buf + used, size - used, "]");
}

bool arg_present(const CallArgs *a, int i) {
    return a->arg[i].kind != VAL_NONE && a->arg[i].kind != VAL_VOID;
}

/* PyTorch's sizes of nested lists: each level's length, read down the
 * first items (torch's compute_sizes); how many in *ndim. */
static void first_lengths(const Value *v, int64_t *sizes, int *ndim) {
    *ndim = 0;
    while (v->kind == VAL_LIST && *ndim < AG_MAX_DIMS) {
        sizes[(*ndim)++] = v->as.list->count;
        if (v->as.list->count == 0) break;
        v = &v->as.list->items[0];
    }
}

/* The first list, depth first, whose length is not its level's in sizes:
 * true with PyTorch's ValueError for it in out. */
static bool ragged_at(const Value *v, int dim, const int64_t *sizes, int ndim, char *out,
                      size_t size) {
    if (v->kind != VAL_LIST || dim >= ndim) return false;
    if (v->as.list->count != sizes[dim]) {
        snprintf(out, size, "ValueError: expected sequence of length %lld at dim %d (got %lld)",
                 (long long)sizes[dim], dim, (long long)v->as.list->count);
        return true;
    }
    for (int i = 0; i < v->as.list->count; i++)
        if (ragged_at(&v->as.list->items[i], dim + 1, sizes, ndim, out, size)) return true;
    return false;
}

/* A ragged list's message in a .py file: PyTorch's, where it names the
 * lengths (why is left as it was otherwise). */
static void ragged_sequence(const Value *v, char *why, size_t size) {
    int64_t sizes[AG_MAX_DIMS];
    int ndim;
    first_lengths(v, sizes, &ndim);
    ragged_at(v, 0, sizes, ndim, why, size);
}

bool arg_tensor(Session *s, CallArgs *a, int i, Tensor **t) {
    Value *v = slot(a, i);
    if (v->kind == VAL_TENSOR) {
        *t = v->as.tensor;
        return true;
    }
    char why[200] = "a shape";
    Tensor *converted = v->kind == VAL_SHAPE ? NULL : value_to_tensor(v, why, sizeof why);
    if (!converted && s->python && strstr(why, "a ragged list") == why)
        ragged_sequence(v, why, sizeof why);
    if (!converted && v->kind == VAL_LIST && !v->as.list->tuple && why[0])
        return arg_error(s, a, i, "%s", why);
    if (!converted)
        return why[0] ? arg_error(s, a, i, "expected a tensor, got %s", why)
                      : arg_error(s, a, i, "%s", ag_error());
    /* a Python number became PyTorch's wrapped number (tensor_number: x.add_(2.5),
     * where(m, x, 0.5)) */
    value_release(v);
    *v = value_tensor(converted);
    *t = converted;
    return true;
}

bool arg_number(Session *s, CallArgs *a, int i, double *out) {
    const Value *v = slot(a, i);
    if (value_is_scalar(v)) {
        *out = value_scalar(v);
        return true;
    }
    if (v->kind != VAL_TENSOR) return arg_error(s, a, i, "expected a number, got %s", value_kind_name(v));
    if (v->as.tensor->numel != 1) {
        char shape[AG_SHAPE_STR_MAX];
        return arg_error(s, a, i, "expected a number, got a tensor of shape %s",
                         tensor_shape_str(v->as.tensor, shape, sizeof shape));
    }
    *out = tensor_values(v->as.tensor)[0];
    return true;
}

/* v as Python's repr writes it, for messages: 2.0000000000000004, not 2. */
static const char *number_text(double v, char *buf, size_t size) {
    StrBuf sb;
    strbuf_init(&sb);
    format_number(&sb, v);
    snprintf(buf, size, "%s", sb.data);
    strbuf_free(&sb);
    return buf;
}

bool arg_int(Session *s, CallArgs *a, int i, const char *what, int64_t lo, int64_t hi,
             int64_t *out) {
    double v = 0;
    char text[40];
    if (!arg_number(s, a, i, &v)) return false;
    if (v != floor(v))
        return arg_error(s, a, i, "%s must be an integer, not %s", what,
                         number_text(v, text, sizeof text));
    /* (double)INT64_MAX rounds up to 2^63, which does not fit: compare below it. */
    bool below_hi = hi == INT64_MAX ? v < 0x1p63 : v <= (double)hi;
    if (!(v >= (double)lo && below_hi)) {
        number_text(v, text, sizeof text);
        if (v > 0 && hi == INT64_MAX) return arg_error(s, a, i, "%s %s is too large", what, text);
        if (lo == 0 && hi > ((int64_t)1 << 40))
            return arg_error(s, a, i, "%s must be a non-negative integer, not %s", what, text);
        return arg_error(s, a, i, "%s must be from %lld to %lld, not %s", what, (long long)lo,
                         (long long)hi, text);
    }
    *out = (int64_t)v;
    return true;
}

bool arg_axis(Session *s, CallArgs *a, int i, int *axis) {
    int64_t v = 0;
    if (!arg_int(s, a, i, "a dimension", INT32_MIN, INT32_MAX, &v)) return false;
    *axis = (int)v;
    return true;
}

int arg_index(const CallArgs *a, const char *name) {
    const Signature *sig = signature_of(a->b);
    for (int i = 0; i < sig->count; i++)
        if (strcmp(sig->params[i].name, name) == 0) return i;
    return -1;
}

const char *arg_name(const CallArgs *a, int i) {
    return i >= 0 ? signature_of(a->b)->params[i].name : "";
}

int arg_count(const CallArgs *a) { return signature_of(a->b)->count; }

bool arg_axes(Session *s, CallArgs *a, int i, int *count, int64_t *axes) {
    Value *v = slot(a, i), saved = *v;
    bool many = v->kind == VAL_LIST || v->kind == VAL_SHAPE ||
                (v->kind == VAL_TENSOR && v->as.tensor->ndim == 1);
    int n = !many ? 1
            : v->kind == VAL_LIST  ? v->as.list->count
            : v->kind == VAL_SHAPE ? v->as.shape->ndim
                                   : (int)v->as.tensor->numel;
    if (n > AG_MAX_DIMS) return arg_error(s, a, i, "too many dimensions (at most %d)", AG_MAX_DIMS);
    bool ok = true;
    /* Each item through the argument's slot, so the usual checks apply. */
    for (int k = 0; ok && k < n; k++) {
        if (many)
            *v = saved.kind == VAL_LIST    ? saved.as.list->items[k]
                 : saved.kind == VAL_SHAPE ? value_number((double)saved.as.shape->dims[k])
                                           : value_number(tensor_values(saved.as.tensor)[k]);
        int axis = 0;
        ok = arg_axis(s, a, i, &axis);
        axes[k] = axis;
    }
    *v = saved;
    *count = n;
    return ok;
}

bool arg_axis_list(Session *s, CallArgs *a, int *count, int64_t *axes) {
    *count = 0;
    if (a->num_rest == 1 && (a->rest[0].kind == VAL_LIST || a->rest[0].kind == VAL_SHAPE ||
                             (a->rest[0].kind == VAL_TENSOR && a->rest[0].as.tensor->ndim == 1)))
        return arg_axes(s, a, REST(0), count, axes);
    if (a->num_rest > AG_MAX_DIMS)
        return arg_error(s, a, REST(AG_MAX_DIMS), "too many dimensions (at most %d)", AG_MAX_DIMS);
    for (int k = 0; k < a->num_rest; k++) {
        int axis;
        if (!arg_axis(s, a, REST(k), &axis)) return false;
        axes[k] = axis;
        *count = k + 1;
    }
    return true;
}

bool arg_dtype(Session *s, CallArgs *a, int i, AgDtype *out) {
    const Value *v = &a->arg[i];
    if (value_as_dtype(v, out)) return true;
    if (v->kind == VAL_DTYPE)
        return arg_error(s, a, i, "ag has no %s tensors: its dtypes are float64, float32, "
                         "int64, int32 and bool", v->as.module);
    return arg_error(s, a, i, "TypeError: %s must be a torch.dtype, not %s", arg_name(a, i),
                     value_type_name(v));
}

bool arg_bool(Session *s, CallArgs *a, int i, bool *out) {
    const Value *v = slot(a, i);
    if (v->kind == VAL_BOOL) *out = v->as.truth;
    else if (v->kind == VAL_NUMBER && (v->as.number == 0 || v->as.number == 1)) *out = v->as.number != 0;
    else return arg_error(s, a, i, "expected True or False, got %s", value_kind_name(v));
    return true;
}

bool arg_string(Session *s, CallArgs *a, int i, const char **text, size_t *length) {
    const Value *v = slot(a, i);
    if (v->kind != VAL_STRING)
        return arg_error(s, a, i, "expected a string in quotes, got %s", value_kind_name(v));
    *text = v->as.string.text;
    *length = v->as.string.length;
    return true;
}

/* One dimension: an integer (>= -1 when allow_infer, else >= 0). */
static bool check_dim(Session *s, CallArgs *a, int i, bool allow_infer, int64_t *dim) {
    if (!arg_int(s, a, i, "a dimension", INT64_MIN, INT64_MAX, dim)) return false;
    if (*dim < (allow_infer ? -1 : 0))
        return arg_error(s, a, i, "a dimension must be a non-negative integer%s, not %lld",
                         allow_infer ? " or -1" : "", (long long)*dim);
    return true;
}

/* The dimensions of one shape, tuple or list argument (zeros((2, 3))). */
static bool dims_of_list(Session *s, CallArgs *a, int i, bool allow_infer, int *ndim,
                         int64_t *shape) {
    const Value *v = slot(a, i);
    if (v->kind == VAL_SHAPE) {
        *ndim = v->as.shape->ndim;
        memcpy(shape, v->as.shape->dims, (size_t)*ndim * sizeof *shape);
        return true;
    }
    const ValueList *l = v->as.list;
    if (l->count > AG_MAX_DIMS)
        return arg_error(s, a, i, "too many dimensions (at most %d)", AG_MAX_DIMS);
    /* Each item through the argument's slot, so the usual checks apply. */
    Value saved = *slot(a, i);
    bool ok = true;
    for (*ndim = 0; ok && *ndim < l->count; (*ndim)++) {
        *slot(a, i) = l->items[*ndim];
        ok = check_dim(s, a, i, allow_infer, &shape[*ndim]);
    }
    *slot(a, i) = saved;
    return ok;
}

/* The dimensions in a 1-D tensor of integers: zeros([2, 3]) (a list of
 * numbers is a tensor in ag; PyTorch takes a list there). */
static bool dims_of_tensor(Session *s, CallArgs *a, int i, bool allow_infer, int *ndim,
                           int64_t *shape) {
    Tensor *t = slot(a, i)->as.tensor;
    if (t->numel > AG_MAX_DIMS)
        return arg_error(s, a, i, "too many dimensions (at most %d)", AG_MAX_DIMS);
    Value saved = *slot(a, i);
    bool ok = true;
    for (*ndim = 0; ok && *ndim < t->numel; (*ndim)++) {
        *slot(a, i) = value_number(tensor_values(t)[*ndim]);
        ok = check_dim(s, a, i, allow_infer, &shape[*ndim]);
    }
    *slot(a, i) = saved;
    return ok;
}

bool arg_dims(Session *s, CallArgs *a, bool allow_infer, int *ndim, int64_t *shape) {
    *ndim = 0;
    if (a->num_rest == 1 && (a->rest[0].kind == VAL_SHAPE || a->rest[0].kind == VAL_LIST))
        return dims_of_list(s, a, REST(0), allow_infer, ndim, shape);
    if (a->num_rest == 1 && a->rest[0].kind == VAL_TENSOR && a->rest[0].as.tensor->ndim == 1)
        return dims_of_tensor(s, a, REST(0), allow_infer, ndim, shape);
    if (a->num_rest > AG_MAX_DIMS)
        return arg_error(s, a, REST(AG_MAX_DIMS), "too many dimensions (at most %d)", AG_MAX_DIMS);
    for (int k = 0; k < a->num_rest; k++) {
        if (a->rest[k].kind == VAL_SHAPE || a->rest[k].kind == VAL_LIST)
            return arg_error(s, a, REST(k), "give the dimensions as integers or as one shape, "
                             "not both");
        if (!check_dim(s, a, REST(k), allow_infer, &shape[k])) return false;
        *ndim = k + 1;
    }
    return true;
}

bool result_tensor(Session *s, const CallArgs *a, Tensor *t, Value *out) {
    if (!t) return session_fail(s, a->line, a->col, "%s", session_engine_error(s));
    *out = value_tensor(t);
    return true;
}

/* ======================================================================
 * The table
 * ====================================================================== */

/* The whole list, built once from the rows of each file that holds
 * builtins' bodies (each row beside its body), in :help's order: creation,
 * the op table's (an op is a builtin of its name, and of its alias),
 * autograd and values, grad and gradcheck, data files, plot, the
 * optimizers, math's and random's functions, then Python's (which must
 * come last: builtin_python_variant). */

static Builtin *builtins;
static int num_builtins;

/* a followed by b, in memory that lives as long as the shell. */
static char *joined(const char *a, const char *b) {
    size_t n = strlen(a), m = strlen(b);
    char *text = malloc(n + m + 1);
    if (!text) abort(); /* at start-up: nothing sensible to do */
    memcpy(text, a, n);
    memcpy(text + n, b, m + 1);
    return text;
}

/* The builtin an op becomes, under its name or its alias (whose help says
 * which op it is). */
static Builtin op_builtin(const AgOpInfo *op, const char *alias) {
    Builtin b = {.name = op->name, .signature = op->signature, .help = op->help, .fn = bi_op,
                 .self_kind = VAL_VOID, .op = op};
    if (op->flags & AG_OP_METHOD) b.flags |= BI_METHOD;
    if (op->rule) b.flags |= BI_OP;
    if (alias) { /* view(input, *shape): as reshape */
        b.name = alias;
        b.signature = joined(alias, strchr(op->signature, '('));
        b.help = joined("as ", op->name);
    }
    return b;
}

static void add_rows(const Builtin *rows, int n) {
    for (int i = 0; i < n; i++) builtins[num_builtins++] = rows[i];
}

static void build_builtins(void) {
    int ops = 0;
    for (int k = 0; k < ag_op_count(); k++)
        if (!(ag_op_at(k)->flags & AG_OP_HIDDEN)) ops += 1 + (ag_op_at(k)->alias != NULL);
    int files = num_create_builtins + num_values_builtins + num_grad_builtins +
                num_data_builtins + num_plot_builtins + num_graph_builtins;
    builtins = calloc((size_t)(files + ops + optim_builtin_count() + num_module_builtins +
                               num_python_builtins),
                      sizeof *builtins);
    if (!builtins) abort(); /* at start-up, a few KiB */
    add_rows(create_builtins, num_create_builtins);
    for (int k = 0; k < ag_op_count(); k++) {
        const AgOpInfo *op = ag_op_at(k);
        if (op->flags & AG_OP_HIDDEN) continue;
        builtins[num_builtins++] = op_builtin(op, NULL);
        if (op->alias) builtins[num_builtins++] = op_builtin(op, op->alias);
    }
    add_rows(values_builtins, num_values_builtins);
    add_rows(grad_builtins, num_grad_builtins);
    add_rows(data_builtins, num_data_builtins);
    add_rows(plot_builtins, num_plot_builtins);
    add_rows(graph_builtins, num_graph_builtins);
    for (int k = 0; k < optim_builtin_count(); k++) builtins[num_builtins++] = *optim_builtin(k);
    add_rows(module_builtins, num_module_builtins);
    add_rows(python_builtins, num_python_builtins);
}

enum { BI_MODULE = BI_MODULE_MATH | BI_MODULE_RANDOM | BI_MODULE_TIME | BI_MODULE_AUTOGRAD |
                   BI_MODULE_DEVICE | BI_MODULE_COLLECTIONS | BI_MODULE_SYS };

const Builtin *builtin_in_module(const char *module, const char *name, size_t length) {
    unsigned flag = strcmp(module, "math") == 0 ? BI_MODULE_MATH
                    : strcmp(module, "random") == 0 ? BI_MODULE_RANDOM
                    : strcmp(module, "time") == 0   ? BI_MODULE_TIME
                    : strcmp(module, "collections") == 0 ? BI_MODULE_COLLECTIONS
                    : strcmp(module, "sys") == 0 ? BI_MODULE_SYS
                    : strcmp(module, "torch.autograd") == 0 ? BI_MODULE_AUTOGRAD
                    : strcmp(module, "torch.cuda") == 0 || strcmp(module, "torch.backends.mps") == 0 ||
                      strcmp(module, "torch.backends.cudnn") == 0 ? BI_MODULE_DEVICE : 0;
    int n;
    const Builtin *b = all_builtins(&n);
    for (int i = 0; flag && i < n; i++)
        if ((b[i].flags & flag) && strlen(b[i].name) == length && memcmp(b[i].name, name, length) == 0)
            return &b[i];
    return NULL;
}

const Builtin *builtin_of_module(const char *module, const char *name, size_t length) {
    const Builtin *own = builtin_in_module(module, name, length);
    return own || !module_is_torch(module) ? own : builtin_find(name, length);
}

Value builtin_as_value(const Builtin *b) {
    return (Value){.kind = VAL_BUILTIN, .as.builtin = {b, b->name, (b->flags & BI_TYPE) != 0}};
}

/* Each builtin's Python variant (or NULL), found once: a .py file asks at
 * every call of sum, len, isinstance... */
static const Builtin **variants;
/* Per builtin, what builtin_python_variant asks of its name, found once:
 * VARIANT_ITERATES, VARIANT_RANGE, VARIANT_BARE (Python's only when called
 * by its bare name: pow(2, x) is Python's, torch.pow(2, x) torch's). */
enum { VARIANT_ITERATES = 1, VARIANT_RANGE = 2, VARIANT_BARE = 4 };
static unsigned char *variant_traits;

/* Python's builtins that iterate over their argument: a tensor is its
 * first axis's items there (sum(x) of a matrix is its column sums), where
 * torch.sum, torch.max ... reduce it whole. */
static bool iterates(const Builtin *b) {
    static const char *const names[] = {"sum", "max", "min", "any", "all"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(b->name, names[i]) == 0) return true;
    return false;
}

static void build_variants(void) {
    int count;
    const Builtin *all = all_builtins(&count);
    variants = calloc((size_t)count, sizeof *variants);
    variant_traits = calloc((size_t)count, 1);
    if (!variants || !variant_traits) abort(); /* at start-up: nothing sensible to do */
    for (int k = 0; k < count; k++) {
        /* a module's function (math.pow) is its own, never Python's builtin */
        for (int i = count - num_python_builtins; i < count && !variants[k] &&
                                                  !(all[k].flags & BI_MODULE); i++)
            if ((all[i].flags & BI_PY_VARIANT) && strcmp(all[i].name, all[k].name) == 0)
                variants[k] = &all[i];
        variant_traits[k] = (unsigned char)((iterates(&all[k]) ? VARIANT_ITERATES : 0) |
                                            (strcmp(all[k].name, "range") == 0 ? VARIANT_RANGE : 0) |
                                            (strcmp(all[k].name, "pow") == 0 ? VARIANT_BARE : 0));
    }
}

const Builtin *builtin_python_variant(const Builtin *b, const Value *args, int n, bool bare) {
    int count;
    const Builtin *all = all_builtins(&count);
    if (!variants) build_variants();
    if (b < all || b >= all + count) return NULL;
    unsigned traits = variant_traits[b - all];
    if ((traits & VARIANT_BARE) && !bare) return NULL;
    bool python = bare && (traits & VARIANT_ITERATES); /* sum(x), max(a, b): Python's, tensors or not */
    if (n > 0 && args[0].kind == VAL_TENSOR && !(traits & VARIANT_RANGE) && !python) return NULL;
    return variants[b - all];
}

const Builtin *builtin_value_variant(const Builtin *b) {
    int count;
    const Builtin *all = all_builtins(&count);
    if (!variants) build_variants();
    if (b < all || b >= all + count || !(variant_traits[b - all] & VARIANT_BARE)) return NULL;
    return variants[b - all];
}

static const Builtin *all_builtins(int *count) {
    if (!builtins) build_builtins();
    *count = num_builtins;
    return builtins;
}

const Builtin *builtin_list(int *count) { return all_builtins(count); }

const char *const *builtin_names(int *count) {
    static const char **names;
    static int n;
    if (!names) {
        int total;
        const Builtin *b = all_builtins(&total);
        names = calloc((size_t)total + 1, sizeof *names);
        if (!names) abort();
        for (int i = 0; i < total; i++)
            if (b[i].self_kind == VAL_VOID && !(b[i].flags & (BI_PY_VARIANT | BI_MODULE)))
                names[n++] = b[i].name;
    }
    *count = n;
    return names;
}

/* ---- lookup: an open-addressing hash over the names, built once ---- */

enum { HASH_SLOTS = 1024 };
static short name_slots[HASH_SLOTS]; /* builtin index + 1; 0 empty */

static unsigned name_hash(const char *name, size_t length) {
    unsigned h = 2166136261u;
    for (size_t i = 0; i < length; i++) h = (h ^ (unsigned char)name[i]) * 16777619u;
    return h;
}

static void build_index(void) {
    int n;
    all_builtins(&n);
    if (n >= HASH_SLOTS / 2) abort(); /* the table outgrew the hash: raise HASH_SLOTS */
    for (int i = 0; i < num_builtins; i++) {
        if (builtins[i].self_kind != VAL_VOID || (builtins[i].flags & (BI_PY_VARIANT | BI_MODULE)))
            continue; /* methods: builtin_method; variants: builtin_python_variant;
                         math.exp, random.seed: builtin_in_module */
        unsigned at = name_hash(builtins[i].name, strlen(builtins[i].name)) % HASH_SLOTS;
        while (name_slots[at]) at = (at + 1) % HASH_SLOTS;
        name_slots[at] = (short)(i + 1);
    }
}

/* The methods of values (opt.step, xs.append): a second hash, over
 * (kind, name), built once. */
static short method_slots[HASH_SLOTS];

static unsigned method_hash(ValueKind kind, const char *name, size_t length) {
    return (name_hash(name, length) ^ (unsigned)kind * 2654435761u) % HASH_SLOTS;
}

static void build_method_index(void) {
    int n;
    const Builtin *b = all_builtins(&n);
    for (int i = 0; i < n; i++) {
        if (b[i].self_kind == VAL_VOID) continue;
        unsigned at = method_hash(b[i].self_kind, b[i].name, strlen(b[i].name));
        while (method_slots[at]) at = (at + 1) % HASH_SLOTS;
        method_slots[at] = (short)(i + 1);
    }
}

const Builtin *builtin_method(ValueKind kind, const char *name, size_t length) {
    static bool built;
    if (kind == VAL_VOID) return NULL;
    if (!built) {
        build_method_index();
        built = true;
    }
    for (unsigned at = method_hash(kind, name, length); method_slots[at]; at = (at + 1) % HASH_SLOTS) {
        const Builtin *b = &builtins[method_slots[at] - 1];
        if (b->self_kind == kind && strlen(b->name) == length && memcmp(b->name, name, length) == 0)
            return b;
    }
    return NULL;
}

const Builtin *builtin_find(const char *name, size_t length) {
    static bool built;
    if (!built) {
        build_index();
        built = true;
    }
    for (unsigned at = name_hash(name, length) % HASH_SLOTS; name_slots[at]; at = (at + 1) % HASH_SLOTS) {
        const Builtin *b = &builtins[name_slots[at] - 1];
        if (strlen(b->name) == length && memcmp(b->name, name, length) == 0) return b;
    }
    return NULL;
}
