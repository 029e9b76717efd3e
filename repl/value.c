/*
 * value.c — the shell's values: ownership, conversions to tensors, and the
 * way each kind prints (value.h).
 */
#include "value.h"

#include "ast.h"
#include "pyformat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct StrObj {
    int refs;
    char text[];
};

bool value_string(const char *text, size_t length, Value *out) {
    struct StrObj *o = malloc(sizeof *o + length + 1);
    *out = value_void();
    if (!o) return false;
    o->refs = 1;
    memcpy(o->text, text, length);
    o->text[length] = '\0';
    *out = (Value){.kind = VAL_STRING, .as.string = {o->text, length, o}};
    return true;
}

void value_release(Value *v) {
    switch (v->kind) {
    case VAL_STRING:
        if (v->as.string.owner && --v->as.string.owner->refs == 0) free(v->as.string.owner);
        break;
    case VAL_TENSOR: tensor_release(v->as.tensor); break;
    case VAL_LIST:
        if (v->as.list && --v->as.list->refs == 0) {
            for (int i = 0; i < v->as.list->count; i++) value_release(&v->as.list->items[i]);
            free(v->as.list->items);
            free(v->as.list);
        }
        break;
    case VAL_OPTIM: optimizer_release(v->as.optim); break;
    default: break;
    }
    *v = value_void();
}

ValueList *value_list_new(int count, bool tuple) {
    ValueList *l = calloc(1, sizeof *l);
    Value *items = l ? calloc((size_t)(count ? count : 1), sizeof *items) : NULL;
    if (!items) {
        free(l);
        return NULL;
    }
    l->refs = 1;
    l->tuple = tuple;
    l->count = l->cap = count;
    l->items = items;
    for (int i = 0; i < count; i++) l->items[i] = value_void();
    return l;
}

bool value_list_append(ValueList *l, Value v) {
    if (l->count == l->cap) {
        int cap = l->cap < 4 ? 8 : l->cap * 2;
        Value *bigger = l->count < (1 << 28) ? realloc(l->items, (size_t)cap * sizeof *bigger) : NULL;
        if (!bigger) {
            value_release(&v);
            return false;
        }
        l->items = bigger;
        l->cap = cap;
    }
    l->items[l->count++] = v;
    return true;
}

bool value_copy(const Value *v, Value *out) {
    *out = *v;
    switch (v->kind) {
    case VAL_TENSOR: tensor_retain(v->as.tensor); break;
    case VAL_OPTIM: v->as.optim->refs++; break;
    case VAL_LIST: v->as.list->refs++; break;
    case VAL_STRING:
        if (v->as.string.owner) v->as.string.owner->refs++;
        break;
    default: break;
    }
    return true;
}

int64_t value_item_count(const Value *v) {
    return v->kind == VAL_LIST ? v->as.list->count
           : v->kind == VAL_SHAPE ? v->as.shape.ndim
           : v->kind == VAL_TENSOR && v->as.tensor->ndim > 0 ? v->as.tensor->shape[0]
                                                            : -1;
}

bool value_item(const Value *v, int64_t k, bool as_int, Value *out) {
    *out = value_void();
    if (v->kind == VAL_LIST) return value_copy(&v->as.list->items[k], out);
    if (v->kind == VAL_SHAPE) {
        int64_t d = v->as.shape.dims[k];
        *out = as_int ? (Value){.kind = VAL_INT, .as.integer = d} : value_number((double)d);
        return true;
    }
    Tensor *t = tensor_select(v->as.tensor, 0, k);
    if (!t) return false;
    *out = value_tensor(t);
    out->boolean = v->boolean;
    return true;
}

const char *value_kind_name(const Value *v) {
    switch (v->kind) {
    case VAL_VOID: return "nothing";
    case VAL_NONE: return "None";
    case VAL_TENSOR: return "a tensor";
    case VAL_NUMBER: return "a number";
    case VAL_BOOL: return "a boolean";
    case VAL_STRING: return "a string";
    case VAL_SHAPE: return "a shape";
    case VAL_LIST: return v->as.list->tuple ? "a tuple" : "a list";
    case VAL_GRAD_FN: return "a grad_fn";
    case VAL_OPTIM: return "an optimizer";
    case VAL_INT: return "an int";
    case VAL_MODULE: return "a module";
    }
    return "a value";
}

bool value_all_boolean(const Value *v) {
    if (v->kind == VAL_BOOL || (v->kind == VAL_TENSOR && v->boolean)) return true;
    if (v->kind != VAL_LIST || v->as.list->count == 0) return false;
    for (int i = 0; i < v->as.list->count; i++)
        if (!value_all_boolean(&v->as.list->items[i])) return false;
    return true;
}

bool value_is_scalar(const Value *v) {
    return v->kind == VAL_NUMBER || v->kind == VAL_BOOL || v->kind == VAL_INT;
}

double value_scalar(const Value *v) {
    return v->kind == VAL_BOOL ? (v->as.truth ? 1.0 : 0.0)
           : v->kind == VAL_INT ? (double)v->as.integer
                                : v->as.number;
}

/* Items of a list stacked along a new first axis. */
static Tensor *stack_list(const ValueList *l, char *why, size_t size) {
    int n = l->count;
    Tensor **items = calloc((size_t)(n > 0 ? n : 1), sizeof *items);
    if (!items) return snprintf(why, size, "out of memory"), NULL;
    for (int i = 0; i < n; i++) {
        items[i] = value_to_tensor(&l->items[i], why, size);
        bool ragged = items[i] && i > 0 &&
                      !(items[i]->ndim == items[0]->ndim &&
                        memcmp(items[i]->shape, items[0]->shape,
                               (size_t)items[0]->ndim * sizeof(int64_t)) == 0);
        if (ragged) {
            char s0[AG_SHAPE_STR_MAX], si[AG_SHAPE_STR_MAX];
            snprintf(why, size, "a ragged list: item %d has shape %s, item 1 has %s", i + 1,
                     tensor_shape_str(items[i], si, sizeof si),
                     tensor_shape_str(items[0], s0, sizeof s0));
        }
        if (!items[i] || ragged) {
            for (int j = 0; j <= i; j++) tensor_release(items[j]);
            free(items);
            return NULL;
        }
    }
    Tensor *r = n == 0 ? tensor_create(1, (int64_t[]){0}, NULL, false) : tensor_stack(items, n, 0);
    for (int i = 0; i < n; i++) tensor_release(items[i]);
    free(items);
    return r;
}

Tensor *value_to_tensor(const Value *v, char *why, size_t size) {
    why[0] = '\0';
    switch (v->kind) {
    case VAL_TENSOR: return tensor_retain(v->as.tensor);
    case VAL_NUMBER:
    case VAL_INT:
    case VAL_BOOL: return tensor_scalar(value_scalar(v));
    case VAL_LIST:
        if (!v->as.list->tuple) return stack_list(v->as.list, why, size);
        snprintf(why, size, "a tuple");
        return NULL;
    default: snprintf(why, size, "%s", value_kind_name(v)); return NULL;
    }
}

/* ======================================================================
 * Printing
 * ====================================================================== */

/* "Adam(lr=0.001, betas=(0.9, 0.999), ...) over [w, b]": the options this
 * kind takes, as PyTorch names them. */
static void format_optimizer(StrBuf *out, const Optimizer *o) {
    const AgOptimConfig *c = &o->config;
    strbuf_appendf(out, "%s(lr=", ag_optim_name(o->kind));
    format_number(out, c->lr);
    struct { const char *name; double value; bool on; } opts[] = {
        {"momentum", c->momentum, o->kind == AG_OPTIM_SGD || o->kind == AG_OPTIM_RMSPROP},
        {"dampening", c->dampening, o->kind == AG_OPTIM_SGD},
        {"alpha", c->alpha, o->kind == AG_OPTIM_RMSPROP},
        {"lr_decay", c->lr_decay, o->kind == AG_OPTIM_ADAGRAD},
        {"eps", c->eps, o->kind != AG_OPTIM_SGD},
        {"weight_decay", c->weight_decay, true},
        {"initial_accumulator_value", c->initial_accumulator_value, o->kind == AG_OPTIM_ADAGRAD},
    };
    bool adam = o->kind == AG_OPTIM_ADAM || o->kind == AG_OPTIM_ADAMW;
    if (adam) {
        strbuf_append(out, ", betas=(");
        format_number(out, c->beta1);
        strbuf_append(out, ", ");
        format_number(out, c->beta2);
        strbuf_append(out, ")");
    }
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        if (!opts[i].on) continue;
        strbuf_appendf(out, ", %s=", opts[i].name);
        format_number(out, opts[i].value);
    }
    if (o->kind == AG_OPTIM_SGD) strbuf_appendf(out, ", nesterov=%s", c->nesterov ? "True" : "False");
    if (o->kind == AG_OPTIM_RMSPROP) strbuf_appendf(out, ", centered=%s", c->centered ? "True" : "False");
    if (adam) strbuf_appendf(out, ", amsgrad=%s", c->amsgrad ? "True" : "False");
    if (c->maximize) strbuf_append(out, ", maximize=True");
    strbuf_append(out, ") over [");
    for (int i = 0; i < o->count; i++) strbuf_appendf(out, "%s%s", i ? ", " : "", o->names[i]);
    strbuf_append(out, "]");
}

static void format_tuple(StrBuf *out, const ValueList *l, const PrintOptions *opts) {
    strbuf_append(out, l->tuple ? "(" : "[");
    for (int i = 0; i < l->count; i++) {
        if (i) strbuf_append(out, ", ");
        Value item = l->items[i];
        item.literal = false; /* (2, 3) holds numbers, as Python's tuple */
        value_format(out, &item, opts, true);
    }
    if (l->tuple && l->count == 1) strbuf_append(out, ",");
    strbuf_append(out, l->tuple ? ")" : "]");
}

void value_format(StrBuf *out, const Value *v, const PrintOptions *opts, bool quote_strings) {
    char buf[AG_SHAPE_STR_MAX];
    switch (v->kind) {
    case VAL_VOID: break;
    case VAL_NONE: strbuf_append(out, "None"); break;
    case VAL_TENSOR: format_tensor(out, v->as.tensor, opts, v->boolean); break;
    case VAL_NUMBER:
        if (v->literal) { /* on its own, a literal is the constant tensor it writes */
            Tensor *t = tensor_scalar(v->as.number);
            format_tensor(out, t, opts, false);
            tensor_release(t);
        } else if (opts->python) {
            pyfmt_float_repr(out, v->as.number);
        } else {
            format_number(out, v->as.number);
        }
        break;
    case VAL_BOOL: strbuf_append(out, v->as.truth ? "True" : "False"); break;
    case VAL_STRING:
        if (quote_strings) strbuf_append(out, "'");
        strbuf_appendn(out, v->as.string.text, v->as.string.length);
        if (quote_strings) strbuf_append(out, "'");
        break;
    case VAL_SHAPE: strbuf_append(out, ag_shape_str(v->as.shape.ndim, v->as.shape.dims, buf, sizeof buf)); break;
    case VAL_LIST: format_tuple(out, v->as.list, opts); break;
    case VAL_GRAD_FN: strbuf_appendf(out, "<%s>", v->as.grad_fn); break;
    case VAL_OPTIM: format_optimizer(out, v->as.optim); break;
    case VAL_INT: strbuf_appendf(out, "%lld", (long long)v->as.integer); break;
    case VAL_MODULE: strbuf_appendf(out, "<module '%s'>", v->as.module); break;
    }
}
