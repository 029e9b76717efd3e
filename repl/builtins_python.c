/*
 * builtins_python.c — Python's builtins and the methods of Python's values
 * (the .py dialect): each row of python_builtins beside its body, read by
 * the same binder as every builtin (builtins.h). Rows flagged BI_PY_VARIANT
 * share a name with one of ag's ops (sum, max, len, ...) and stand for it in
 * a .py file when the first argument is not a tensor.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "modules.h"
#include "pyformat.h"

/* ======================================================================
 * Helpers
 * ====================================================================== */


static Value int_value(int64_t i) { return (Value){.kind = VAL_INT, .as.integer = i}; }
static int64_t int_of_value(const Value *v) {
    return v->kind == VAL_BOOL ? (int64_t)v->as.truth : v->as.integer;
}

static bool no_memory(Session *s, const CallArgs *a) {
    return session_fail(s, a->line, a->col, "MemoryError");
}

/* A new list (or tuple) holding the items of v: anything a for loop walks. */
static bool items_of(Session *s, CallArgs *a, int i, bool tuple, Value *out) {
    if (!session_iterable(s, a->line, a->col, &a->arg[i])) return false;
    const Value *v = &a->arg[i];
    int64_t n = value_item_count(v);
    if (n < 0)
        return arg_error(s, a, i, "TypeError: '%s' object is not iterable", value_type_name(v));
    if (n > INT32_MAX) return no_memory(s, a);
    ValueList *l = value_list_new((int)n, tuple);
    if (!l) return no_memory(s, a);
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int64_t k = 0; k < n; k++)
        if (!value_item(v, k, s->python, &l->items[k])) {
            value_release(out);
            return session_fail(s, a->line, a->col, "%s", ag_error());
        }
    if (v->kind == VAL_LIST && v->as.list->iterator) { /* list(it): it is used up */
        ValueList *from = v->as.list;
        for (int k = 0; k < from->count; k++) value_release(&from->items[k]);
        from->count = 0;
    }
    return true;
}

static bool truth_of(Session *s, const CallArgs *a, const Value *v, bool *out);

/* Python's a < b for numbers, strings, and tuples or lists of them (one-
 * element tensors as numbers); false with the error set when they do not
 * compare. */
static bool less_than(Session *s, const CallArgs *a, const Value *x, const Value *y, bool *out) {
    bool nx = value_is_scalar(x) || (x->kind == VAL_TENSOR && x->as.tensor->numel == 1);
    bool ny = value_is_scalar(y) || (y->kind == VAL_TENSOR && y->as.tensor->numel == 1);
    if (nx && ny) {
        double u = value_is_scalar(x) ? value_scalar(x) : tensor_values(x->as.tensor)[0];
        double v = value_is_scalar(y) ? value_scalar(y) : tensor_values(y->as.tensor)[0];
        if (x->kind == VAL_INT && y->kind == VAL_INT) *out = x->as.integer < y->as.integer;
        else *out = u < v;
        return true;
    }
    if (x->kind == VAL_TENSOR || y->kind == VAL_TENSOR) /* element-wise, then its truth */
        return session_fail(s, a->line, a->col, "RuntimeError: Boolean value of Tensor with more "
                            "than one value is ambiguous");
    if (x->kind == VAL_STRING && y->kind == VAL_STRING) {
        size_t n = x->as.string.length < y->as.string.length ? x->as.string.length : y->as.string.length;
        int c = memcmp(x->as.string.text, y->as.string.text, n);
        *out = c < 0 || (c == 0 && x->as.string.length < y->as.string.length);
        return true;
    }
    if (x->kind == VAL_LIST && y->kind == VAL_LIST && x->as.list->tuple == y->as.list->tuple) {
        const ValueList *p = x->as.list, *q = y->as.list;
        for (int i = 0; i < p->count && i < q->count; i++) {
            if (value_equal(&p->items[i], &q->items[i])) continue;
            return less_than(s, a, &p->items[i], &q->items[i], out);
        }
        *out = p->count < q->count;
        return true;
    }
    if (x->kind == VAL_INSTANCE || y->kind == VAL_INSTANCE) { /* x.__lt__(y), or y.__gt__(x) */
        Value r;
        if (!s->binary(s, a->line, a->col, TOK_LT, x, y, &r)) return false;
        bool ok = truth_of(s, a, &r, out);
        value_release(&r);
        return ok;
    }
    return session_fail(s, a->line, a->col, "TypeError: '<' not supported between instances of "
                        "'%s' and '%s'", value_type_name(x), value_type_name(y));
}

/* key(v) when key is given (not None), else a copy of v. */
static bool keyed(Session *s, const CallArgs *a, const Value *key, const Value *v, Value *out) {
    if (key->kind == VAL_NONE || key->kind == VAL_VOID) return value_copy(v, out);
    return s->call_value(s, a->line, a->col, key, v, 1, out);
}

/* ======================================================================
 * Python's builtins
 * ====================================================================== */

static BUILTIN(py_len) {
    const Value *v = &a->arg[0];
    bool found;
    if (!session_call_special(s, a->line, a->col, v, "__len__", NULL, 0, out, &found)) return false;
    if (found && out->kind != VAL_INT && out->kind != VAL_BOOL) {
        session_set_error(s, a->line, a->col, "TypeError: '%s' object cannot be interpreted as "
                          "an integer", value_type_name(out));
        value_release(out);
        return false;
    }
    if (found) return *out = int_value(value_int(out)), true;
    int64_t n = v->kind == VAL_TENSOR && v->as.tensor->ndim == 0 ? -1 : value_item_count(v);
    if (n < 0) return arg_error(s, a, 0, "TypeError: object of type '%s' has no len()", value_type_name(v));
    *out = int_value(n);
    return true;
}

/* sum(iterable, start=0): Python's, left to right (tensors add as tensors). */
static BUILTIN(py_sum) {
    Value items;
    if (!items_of(s, a, 0, false, &items)) return false;
    Value acc = a->given[1] ? a->arg[1] : int_value(0);
    value_copy(&acc, &acc);
    bool ok = true;
    for (int i = 0; ok && i < items.as.list->count; i++) {
        Value next;
        ok = s->binary(s, a->line, a->col, TOK_PLUS, &acc, &items.as.list->items[i], &next);
        value_release(&acc);
        acc = ok ? next : value_void();
    }
    value_release(&items);
    if (ok) *out = acc;
    return ok;
}

/* max and min: of one iterable, or of two or more arguments; key=. */
static bool extreme(Session *s, CallArgs *a, bool want_max, Value *out) {
    Value items;
    if (a->num_rest == 1) {
        Value saved = a->arg[0];
        a->arg[0] = a->rest[0];
        bool ok = items_of(s, a, 0, false, &items);
        a->arg[0] = saved;
        if (!ok) return false;
    } else {
        ValueList *l = value_list_new(a->num_rest, false);
        if (!l) return no_memory(s, a);
        for (int i = 0; i < a->num_rest; i++) value_copy(&a->rest[i], &l->items[i]);
        items = (Value){.kind = VAL_LIST, .as.list = l};
    }
    const ValueList *l = items.as.list;
    const Value *key = &a->arg[1];
    if (l->count == 0) {
        value_release(&items);
        if (arg_present(a, 2)) return value_copy(&a->arg[2], out);
        return session_fail(s, a->line, a->col, "ValueError: %s() arg is an empty sequence",
                            want_max ? "max" : "min");
    }
    int best = 0;
    Value best_key = value_void();
    bool ok = keyed(s, a, key, &l->items[0], &best_key);
    for (int i = 1; ok && i < l->count; i++) {
        Value k;
        bool better;
        if (!(ok = keyed(s, a, key, &l->items[i], &k))) break;
        ok = want_max ? less_than(s, a, &best_key, &k, &better) : less_than(s, a, &k, &best_key, &better);
        if (ok && better) {
            value_release(&best_key);
            best_key = k, best = i;
        } else {
            value_release(&k);
        }
    }
    value_release(&best_key);
    if (ok) value_copy(&l->items[best], out);
    value_release(&items);
    return ok;
}

static BUILTIN(py_max) { return extreme(s, a, true, out); }
static BUILTIN(py_min) { return extreme(s, a, false, out); }

/* abs(obj), round(obj), int(obj), float(obj) of an object: its class's
 * __abs__ (and kin) with the call's other arguments; *handled false when
 * arg 0 is no object or its class has none (then the builtin goes on). */
static bool object_dunder(Session *s, CallArgs *a, const char *name, int nargs, Value *out,
                          bool *handled) {
    *handled = false;
    if (a->arg[0].kind != VAL_INSTANCE) return true;
    int n = nargs > 0 && arg_present(a, 1) && a->arg[1].kind != VAL_NONE ? 1 : 0;
    bool ok = session_call_special(s, a->line, a->col, &a->arg[0], name, &a->arg[1], n, out,
                                   handled);
    return ok;
}

static BUILTIN(py_abs) {
    const Value *v = &a->arg[0];
    bool handled;
    if (!object_dunder(s, a, "__abs__", 0, out, &handled)) return false;
    if (handled) return true;
    if (v->kind == VAL_INT || v->kind == VAL_BOOL) {
        int64_t i = v->kind == VAL_BOOL ? v->as.truth : v->as.integer;
        if (i == INT64_MIN) return session_fail(s, a->line, a->col, "OverflowError: abs(-2**63)");
        *out = int_value(i < 0 ? -i : i);
    } else if (v->kind == VAL_NUMBER) {
        *out = value_number(fabs(v->as.number));
    } else {
        return arg_error(s, a, 0, "TypeError: bad operand type for abs(): '%s'", value_type_name(v));
    }
    return true;
}

/* round(x) is an int (halves to even); round(x, n) a float; an int stays one. */
static BUILTIN(py_round) {
    const Value *v = &a->arg[0];
    bool handled;
    if (!object_dunder(s, a, "__round__", 1, out, &handled)) return false;
    if (handled) return true;
    if (v->kind == VAL_INT || v->kind == VAL_BOOL) {
        *out = int_value(v->kind == VAL_BOOL ? v->as.truth : v->as.integer);
        return true;
    }
    if (!arg_present(a, 1)) {
        double x;
        if (!arg_number(s, a, 0, &x)) return false;
        if (!isfinite(x) || fabs(x) >= 0x1p63)
            return session_fail(s, a->line, a->col, "%s", isnan(x)
                                ? "ValueError: cannot convert float NaN to integer"
                                : "OverflowError: cannot convert float infinity to integer");
        *out = int_value((int64_t)nearbyint(x));
        return true;
    }
    return bi_round(s, a, out);
}

static bool truth_of(Session *s, const CallArgs *a, const Value *v, bool *out) {
    switch (v->kind) {
    case VAL_TENSOR:
        if (v->as.tensor->numel != 1)
            return session_fail(s, a->line, a->col, "RuntimeError: Boolean value of Tensor with "
                                "more than one value is ambiguous");
        *out = tensor_values(v->as.tensor)[0] != 0;
        return true;
    case VAL_NONE: case VAL_VOID: *out = false; return true;
    case VAL_INSTANCE: return session_object_truth(s, a->line, a->col, v, out);
    default:
        if (value_is_scalar(v)) *out = value_scalar(v) != 0;
        else *out = value_item_count(v) != 0;
        return true;
    }
}

static bool any_all(Session *s, CallArgs *a, bool any, Value *out) {
    Value items;
    if (!items_of(s, a, 0, false, &items)) return false;
    bool result = !any, ok = true;
    for (int i = 0; ok && i < items.as.list->count && result == !any; i++) {
        bool t;
        ok = truth_of(s, a, &items.as.list->items[i], &t);
        if (ok && t == any) result = any;
    }
    value_release(&items);
    *out = value_bool(result);
    return ok;
}

static BUILTIN(py_any) { return any_all(s, a, true, out); }
static BUILTIN(py_all) { return any_all(s, a, false, out); }

/* range(stop), range(start, stop[, step]): Python's, as a list of ints. */
static BUILTIN(py_range) {
    int64_t v[3] = {0, 0, 1};
    int n = a->num_rest;
    if (n < 1 || n > 3)
        return session_fail(s, a->line, a->col, "TypeError: range expected at most 3 arguments, "
                            "got %d", n);
    for (int i = 0; i < n; i++) {
        const Value *x = &a->rest[i];
        if (x->kind != VAL_INT && x->kind != VAL_BOOL && !value_is_index_tensor(x))
            return arg_error(s, a, REST(i), "TypeError: '%s' object cannot be interpreted as an "
                             "integer", value_type_name(x));
        v[n == 1 ? 1 : i] = x->kind == VAL_INT ? x->as.integer : x->kind == VAL_BOOL
                            ? x->as.truth : (int64_t)tensor_values(x->as.tensor)[0]; /* range(t) */
    }
    int64_t start = v[0], stop = v[1], step = v[2];
    if (step == 0) return session_fail(s, a->line, a->col, "ValueError: range() arg 3 must not be zero");
    double count = step > 0 ? ceil(((double)stop - (double)start) / (double)step)
                            : ceil(((double)start - (double)stop) / (double)-step);
    if (count < 0) count = 0;
    if (count > 100000000) return session_fail(s, a->line, a->col, "MemoryError: range of %.0f "
                                               "items made whole (loop over it in a for instead)", count);
    ValueList *l = value_list_new((int)count, false);
    if (!l) return no_memory(s, a);
    for (int64_t k = 0; k < (int64_t)count; k++) l->items[k] = int_value(start + k * step);
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    return true;
}

static bool sort_items(Session *s, CallArgs *a, ValueList *l, const Value *key, bool reverse) {
    /* insertion sort on the keys: stable, as Python's; lists here are small */
    Value *keys = calloc((size_t)(l->count ? l->count : 1), sizeof *keys);
    if (!keys) return no_memory(s, a);
    bool ok = true;
    int made = 0;
    for (; ok && made < l->count; made++) ok = keyed(s, a, key, &l->items[made], &keys[made]);
    for (int i = 1; ok && i < l->count; i++) {
        Value k = keys[i], item = l->items[i];
        int j = i;
        while (j > 0) {
            bool before;
            ok = reverse ? less_than(s, a, &keys[j - 1], &k, &before)
                         : less_than(s, a, &k, &keys[j - 1], &before);
            if (!ok || !before) break;
            keys[j] = keys[j - 1], l->items[j] = l->items[j - 1];
            j--;
        }
        keys[j] = k, l->items[j] = item;
    }
    for (int i = 0; i < made; i++) value_release(&keys[i]);
    free(keys);
    return ok;
}

static BUILTIN(py_sorted) {
    bool reverse = false;
    if (!items_of(s, a, 0, false, out) || !arg_bool(s, a, 2, &reverse)) return false;
    if (!sort_items(s, a, out->as.list, &a->arg[1], reverse)) return value_release(out), false;
    return true;
}

static BUILTIN(py_reversed) {
    if (!items_of(s, a, 0, false, out)) return false;
    ValueList *l = out->as.list;
    for (int i = 0, j = l->count - 1; i < j; i++, j--) {
        Value t = l->items[i];
        l->items[i] = l->items[j], l->items[j] = t;
    }
    return true;
}

/* iter(x): its items, as a list (ag's loops take lists; no lazy iterator). */
/* iter(iterable): its items; iter(callable, sentinel): callable() called
 * until it gives sentinel, the values before it (made at once: at most
 * 10^7, an error past them rather than a hang). */
static BUILTIN(py_iter) {
    if (!a->given[1]) { /* iter(f, None) has a sentinel */
        if (a->arg[0].kind == VAL_LIST && a->arg[0].as.list->iterator)
            return value_copy(&a->arg[0], out); /* iter(it) is it */
        if (!items_of(s, a, 0, false, out)) return false;
        out->as.list->iterator = true;
        return true;
    }
    ValueList *l = value_list_new(0, false);
    if (!l) return no_memory(s, a);
    l->iterator = true;
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int64_t n = 0;; n++) {
        Value v;
        if (n == 10000000) {
            session_set_error(s, a->line, a->col, "ag calls iter(callable, sentinel)'s callable "
                              "at once: more than 10000000 values before the sentinel");
            break;
        }
        if (!s->call_value(s, a->line, a->col, &a->arg[0], NULL, 0, &v)) break;
        bool end = value_equal(&v, &a->arg[1]);
        if (end) return value_release(&v), true;
        if (!value_list_append(l, v)) {
            no_memory(s, a);
            break;
        }
    }
    value_release(out);
    return false;
}

static BUILTIN(py_list) {
    if (!arg_present(a, 0)) {
        ValueList *l = value_list_new(0, false);
        return l ? (*out = (Value){.kind = VAL_LIST, .as.list = l}, true) : no_memory(s, a);
    }
    return items_of(s, a, 0, false, out);
}

static BUILTIN(py_tuple) {
    if (!arg_present(a, 0)) {
        ValueList *l = value_list_new(0, true);
        return l ? (*out = (Value){.kind = VAL_LIST, .as.list = l}, true) : no_memory(s, a);
    }
    return items_of(s, a, 0, true, out);
}

/* Adds the items of v to d: keys (a set), or (key, value) pairs (a dict). */
static bool fill_dict(Session *s, CallArgs *a, int i, ValueDict *d) {
    Value items;
    if (a->arg[i].kind == VAL_DICT && !a->arg[i].as.dict->set && !d->set) {
        const ValueDict *from = a->arg[i].as.dict;
        for (int64_t k = 0; k < from->count; k++) {
            Value key, value;
            value_copy(&from->entries[k].key, &key);
            value_copy(&from->entries[k].value, &value);
            if (!value_dict_set(d, key, value)) return no_memory(s, a);
        }
        return true;
    }
    if (a->arg[i].kind == VAL_LIST) /* a list or tuple: its items as they are (set(_children)) */
        value_copy(&a->arg[i], &items);
    else if (!items_of(s, a, i, false, &items))
        return false;
    bool ok = true;
    for (int k = 0; ok && k < items.as.list->count; k++) {
        const Value *item = &items.as.list->items[k];
        Value key, value = value_none();
        if (!d->set && (item->kind != VAL_LIST || item->as.list->count != 2)) {
            ok = session_fail(s, a->line, a->col, "ValueError: dictionary update sequence "
                              "element #%d has the wrong length", k);
            break;
        }
        value_copy(d->set ? item : &item->as.list->items[0], &key);
        if (!d->set) value_copy(&item->as.list->items[1], &value);
        if (!value_hashable(&key)) {
            ok = session_fail(s, a->line, a->col, "TypeError: unhashable type: '%s'", value_type_name(&key));
            value_release(&key);
            value_release(&value);
            break;
        }
        ok = value_dict_set(d, key, value) || no_memory(s, a);
    }
    value_release(&items);
    return ok;
}

/* A new dict (a set) of argument i's items, then the keywords. */
static bool new_dict(Session *s, CallArgs *a, bool set, int i, Value *out) {
    ValueDict *d = value_dict_new(set);
    if (!d) return no_memory(s, a);
    *out = (Value){.kind = VAL_DICT, .as.dict = d};
    if (arg_present(a, i) && !fill_dict(s, a, i, d)) return value_release(out), false;
    for (int k = 0; k < a->num_extra_kw; k++) { /* dict(a=1, b=2): the keywords, in order */
        const Node *n = a->extra_kw_nodes[k];
        Value key, value;
        if (!value_string(n->as.text.text, n->as.text.length, &key)) return value_release(out), no_memory(s, a);
        if (!value_copy(&a->extra_kw[k], &value) || !value_dict_set(d, key, value))
            return value_release(out), no_memory(s, a);
    }
    return true;
}

static BUILTIN(py_dict) { return new_dict(s, a, false, 0, out); }
static BUILTIN(py_set) { return new_dict(s, a, true, 0, out); }

/* collections.OrderedDict(iterable=None, **kwargs) */
static BUILTIN(py_ordered_dict) {
    if (!new_dict(s, a, false, 0, out)) return false;
    out->as.dict->flavor = DICT_ORDERED;
    return true;
}

/* collections.defaultdict(default_factory=None, iterable=None, **kwargs) */
static BUILTIN(py_defaultdict) {
    const Value *f = &a->arg[0];
    if (arg_present(a, 0) && f->kind != VAL_NONE && !value_is_callable(f))
        return arg_error(s, a, 0, "TypeError: first argument must be callable or None");
    if (!new_dict(s, a, false, 1, out)) return false;
    Value factory = value_none();
    if (arg_present(a, 0)) value_copy(f, &factory);
    return value_dict_set_factory(out->as.dict, factory) || (value_release(out), no_memory(s, a));
}

/* Adds n to d[key]'s count (a Counter's). */
static bool count_add(Session *s, CallArgs *a, ValueDict *d, const Value *key, const Value *n) {
    if (!value_hashable(key))
        return session_fail(s, a->line, a->col, "TypeError: unhashable type: '%s'", value_type_name(key));
    const Value *was = value_dict_get(d, key);
    Value sum, k;
    if (was && !(value_is_scalar(was) && value_is_scalar(n)))
        return session_fail(s, a->line, a->col, "TypeError: unsupported operand type(s) for +: "
                            "'%s' and '%s'", value_type_name(was), value_type_name(n));
    if (!was) value_copy(n, &sum);
    else if (was->kind == VAL_NUMBER || n->kind == VAL_NUMBER)
        sum = value_number(value_scalar(was) + value_scalar(n));
    else if (__builtin_add_overflow(value_int(was), value_int(n), &sum.as.integer))
        return session_fail(s, a->line, a->col, "OverflowError: a count past 2**63 - 1");
    else sum.kind = VAL_INT, sum.literal = false;
    value_copy(key, &k);
    return value_dict_set(d, k, sum) || no_memory(s, a);
}

/* Counts argument i's items into Counter d: a mapping's values added, an
 * iterable's items one each. */
static bool count_items(Session *s, CallArgs *a, int i, ValueDict *d) {
    if (a->arg[i].kind == VAL_DICT && !a->arg[i].as.dict->set) {
        const ValueDict *from = a->arg[i].as.dict;
        for (int64_t k = 0; k < from->count; k++)
            if (!count_add(s, a, d, &from->entries[k].key, &from->entries[k].value)) return false;
        return true;
    }
    Value items, one = value_integer(1);
    if (!items_of(s, a, i, false, &items)) return false;
    bool ok = true;
    for (int k = 0; ok && k < items.as.list->count; k++)
        ok = count_add(s, a, d, &items.as.list->items[k], &one);
    value_release(&items);
    return ok;
}

/* collections.Counter(iterable=None, **kwargs) */
static BUILTIN(py_counter) {
    ValueDict *d = value_dict_new(false);
    if (!d) return no_memory(s, a);
    d->flavor = DICT_COUNTER;
    *out = (Value){.kind = VAL_DICT, .as.dict = d};
    bool ok = !arg_present(a, 0) || count_items(s, a, 0, d);
    for (int k = 0; ok && k < a->num_extra_kw; k++) {
        const Node *n = a->extra_kw_nodes[k];
        Value key;
        ok = value_string(n->as.text.text, n->as.text.length, &key) || no_memory(s, a);
        ok = ok && count_add(s, a, d, &key, &a->extra_kw[k]);
        value_release(&key);
    }
    if (!ok) value_release(out);
    return ok;
}

/* A Counter's own method: AttributeError of another dict. */
static bool counter_only(Session *s, const CallArgs *a, const char *name) {
    if (a->arg[0].as.dict->flavor == DICT_COUNTER) return true;
    return session_fail(s, a->line, a->col, "AttributeError: '%s' object has no attribute '%s'",
                        value_type_name(&a->arg[0]), name);
}

/* Counter.most_common(n=None): (key, count) pairs, the largest counts
 * first, ties in insertion order. */
static BUILTIN(py_most_common) {
    if (!counter_only(s, a, "most_common")) return false;
    const ValueDict *d = a->arg[0].as.dict;
    int64_t n = d->count;
    if (arg_present(a, 1) && !arg_int(s, a, 1, "n", INT64_MIN, INT64_MAX, &n)) return false;
    if (n < 0) n = 0;
    if (n > d->count) n = d->count;
    int64_t *order = value_counter_order(d);
    ValueList *l = order ? value_list_new((int)n, false) : NULL;
    if (!l) return free(order), no_memory(s, a);
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int64_t i = 0; i < n; i++) {
        ValueList *pair = value_list_new(2, true);
        if (!pair) return free(order), value_release(out), no_memory(s, a);
        value_copy(&d->entries[order[i]].key, &pair->items[0]);
        value_copy(&d->entries[order[i]].value, &pair->items[1]);
        l->items[i] = (Value){.kind = VAL_LIST, .as.list = pair};
    }
    free(order);
    return true;
}

/* Counter.total(): the counts added up. */
static BUILTIN(py_counter_total) {
    if (!counter_only(s, a, "total")) return false;
    const ValueDict *d = a->arg[0].as.dict;
    Value sum = value_integer(0);
    for (int64_t i = 0; i < d->count; i++) {
        const Value *v = &d->entries[i].value;
        if (!value_is_scalar(v))
            return session_fail(s, a->line, a->col, "TypeError: unsupported operand type(s) for "
                                "+: 'int' and '%s'", value_type_name(v));
        if (v->kind == VAL_NUMBER || sum.kind == VAL_NUMBER)
            sum = value_number(value_scalar(&sum) + value_scalar(v));
        else if (__builtin_add_overflow(sum.as.integer, value_int(v), &sum.as.integer))
            return session_fail(s, a->line, a->col, "OverflowError: a count past 2**63 - 1");
    }
    *out = sum;
    return true;
}

/* d.copy(): a new dict (set) of the same kind and items. */
static BUILTIN(py_dict_copy) {
    const ValueDict *from = a->arg[0].as.dict;
    ValueDict *d = value_dict_new(from->set);
    if (!d) return no_memory(s, a);
    *out = (Value){.kind = VAL_DICT, .as.dict = d};
    d->flavor = from->flavor;
    Value factory;
    if (from->factory && (value_copy(from->factory, &factory), !value_dict_set_factory(d, factory)))
        return value_release(out), no_memory(s, a);
    for (int64_t k = 0; k < from->count; k++) {
        Value key, value;
        value_copy(&from->entries[k].key, &key);
        value_copy(&from->entries[k].value, &value);
        if (!value_dict_set(d, key, value)) return value_release(out), no_memory(s, a);
    }
    return true;
}

/* int(x): a number truncated, a string parsed, a one-element tensor. */
static BUILTIN(py_int) {
    const Value *v = &a->arg[0];
    int64_t base = 10;
    bool handled;
    if (!arg_present(a, 1) && !object_dunder(s, a, "__int__", 0, out, &handled)) return false;
    if (!arg_present(a, 1) && handled) return true;
    if (arg_present(a, 1) && (v->kind != VAL_STRING))
        return session_fail(s, a->line, a->col, "TypeError: int() can't convert non-string with "
                            "explicit base");
    if (arg_present(a, 1) && !arg_int(s, a, 1, "a base", 0, 36, &base)) return false;
    if (base == 1) return session_fail(s, a->line, a->col, "ValueError: int() base must be >= 2 and <= 36, or 0");
    if (v->kind == VAL_STRING) {
        char *end, text[64];
        size_t n = v->as.string.length < sizeof text - 1 ? v->as.string.length : sizeof text - 1;
        memcpy(text, v->as.string.text, n);
        text[n] = '\0';
        long long i = strtoll(text, &end, (int)base); /* base 0: the literal's prefix says */
        while (*end == ' ') end++;
        if (end == text || *end)
            return session_fail(s, a->line, a->col, "ValueError: invalid literal for int() with "
                                "base %lld: '%s'", (long long)base, text);
        *out = int_value(i);
        return true;
    }
    if (v->kind == VAL_INT || v->kind == VAL_BOOL) return *out = int_value(int_of_value(v)), true;
    double x;
    if (!arg_number(s, a, 0, &x)) return false;
    if (!isfinite(x) || fabs(x) >= 0x1p63)
        return session_fail(s, a->line, a->col, "%s", isnan(x)
                            ? "ValueError: cannot convert float NaN to integer"
                            : "OverflowError: cannot convert float infinity to integer");
    *out = int_value((int64_t)trunc(x));
    return true;
}

static BUILTIN(py_float) {
    const Value *v = &a->arg[0];
    bool handled;
    if (!object_dunder(s, a, "__float__", 0, out, &handled)) return false;
    if (handled) return true;
    if (v->kind == VAL_STRING) {
        char *end, text[400];
        size_t n = v->as.string.length < sizeof text - 1 ? v->as.string.length : sizeof text - 1;
        memcpy(text, v->as.string.text, n);
        text[n] = '\0';
        double x = strtod(text, &end);
        while (*end == ' ') end++;
        if (end == text || *end)
            return session_fail(s, a->line, a->col, "ValueError: could not convert string to "
                                "float: '%s'", text);
        *out = value_number(x);
        return true;
    }
    double x;
    if (!arg_number(s, a, 0, &x)) return false;
    *out = value_number(x);
    return true;
}

static bool text_of(Session *s, CallArgs *a, bool repr, Value *out) {
    StrBuf sb;
    strbuf_init(&sb);
    const Value *v = &a->arg[0];
    if (v->kind == VAL_STRING && repr) pyfmt_str_repr(&sb, v->as.string.text, v->as.string.length);
    else value_format(&sb, v, &s->print, repr);
    bool ok = !sb.oom && value_string(sb.data, sb.len, out);
    strbuf_free(&sb);
    return ok || no_memory(s, a);
}

static BUILTIN(py_str) {
    if (!a->given[0]) return value_string("", 0, out) || no_memory(s, a); /* str(None): 'None' */
    return text_of(s, a, false, out);
}
static BUILTIN(py_repr) { return text_of(s, a, true, out); }

static BUILTIN(py_bool) {
    bool t = false;
    if (arg_present(a, 0) && !truth_of(s, a, &a->arg[0], &t)) return false;
    *out = value_bool(t);
    return true;
}

/* Whether v is an instance of the type a builtin value stands for (int,
 * float, str, list, tuple, dict, set, bool, torch.Tensor,
 * torch.optim.Optimizer). */
static bool instance_of(const Value *v, const Value *type) {
    if (type->kind == VAL_CLASS && !type->as.cls->base && strcmp(type->as.cls->name, "object") == 0)
        return true; /* builtins' object (exceptions.c) */
    if (type->kind == VAL_CLASS) {
        for (const ClassObj *c = v->kind == VAL_INSTANCE ? v->as.object->cls : NULL; c; c = c->base)
            if (c == type->as.cls) return true;
        return false;
    }
    if (type->kind == VAL_LIST) {
        for (int i = 0; i < type->as.list->count; i++)
            if (instance_of(v, &type->as.list->items[i])) return true;
        return false;
    }
    if (type->kind != VAL_BUILTIN) return false;
    const char *t = type->as.builtin.name;
    if (strcmp(t, "int") == 0) return v->kind == VAL_INT || v->kind == VAL_BOOL;
    if (strcmp(t, "Tensor") == 0 || strcmp(t, "tensor") == 0 || strcmp(t, "Variable") == 0)
        return v->kind == VAL_TENSOR;
    if (strcmp(t, "Parameter") == 0) return v->kind == VAL_TENSOR && v->as.tensor->parameter;
    if (strcmp(t, "Optimizer") == 0) return v->kind == VAL_OPTIM;
    if (strcmp(t, "object") == 0) return true;
    if (strcmp(t, "dict") == 0) return v->kind == VAL_DICT && !v->as.dict->set; /* OrderedDict too */
    return strcmp(t, value_type_name(v)) == 0;
}

/* torch.optim.Optimizer: the base of ag's optimizers, for isinstance;
 * ag's optimizers are made by their own classes (SGD, Adam, ...). */
static BUILTIN(py_optimizer) {
    (void)out;
    return session_fail(s, a->line, a->col, "ag's torch.optim.Optimizer is for isinstance(opt, "
                        "torch.optim.Optimizer): make an optimizer with its class (SGD, Adam, "
                        "...)");
}

static BUILTIN(py_isinstance) {
    const Value *type = &a->arg[1];
    if (type->kind != VAL_BUILTIN && type->kind != VAL_LIST && type->kind != VAL_CLASS)
        return arg_error(s, a, 1, "TypeError: isinstance() arg 2 must be a type or tuple of types");
    *out = value_bool(instance_of(&a->arg[0], type));
    return true;
}

static BUILTIN(py_ord) {
    const char *text;
    size_t n;
    if (!arg_string(s, a, 0, &text, &n)) return false;
    unsigned char c = n ? (unsigned char)text[0] : 0;
    /* one character: one UTF-8 sequence, as long as its first byte says (a
     * byte that starts none, which a .py file's text may hold: itself) */
    size_t want = c >= 0xC0 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF8 ? 4 : 1;
    if (n != want) {
        size_t chars = 0; /* Python's length: the bytes that start a character */
        for (size_t i = 0; i < n; i++) chars += ((unsigned char)text[i] & 0xC0) != 0x80;
        return session_fail(s, a->line, a->col, "TypeError: ord() expected a character, but "
                            "string of length %zu found", chars);
    }
    if (want == 1) return *out = int_value(c), true;
    int64_t cp = c < 0x80 ? c : c < 0xE0 ? ((c & 0x1F) << 6) | (text[1] & 0x3F)
                 : c < 0xF0 ? ((c & 0x0F) << 12) | ((text[1] & 0x3F) << 6) | (text[2] & 0x3F)
                            : ((c & 0x07) << 18) | ((text[1] & 0x3F) << 12) |
                                  ((text[2] & 0x3F) << 6) | (text[3] & 0x3F);
    *out = int_value(cp);
    return true;
}

/* a * b % m for a, b < m < 2^63, without overflow: doubling and adding. */
static uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t m) {
    uint64_t r = 0;
    for (a %= m; b > 0; b >>= 1, a = a >= m - a ? a - (m - a) : a + a)
        if (b & 1) r = r >= m - a ? r - (m - a) : r + a;
    return r;
}

/* The inverse of b mod m (extended Euclid), or false when there is none. */
static bool inverse_mod(int64_t b, int64_t m, int64_t *out) {
    int64_t t = 0, nt = 1, r = m, nr = b;
    while (nr != 0) {
        int64_t q = r / nr, x = t - q * nt, y = r - q * nr;
        t = nt, nt = x, r = nr, nr = y;
    }
    *out = (t % m + m) % m;
    return r == 1;
}

/* pow(base, exp, mod=None): base ** exp, Python's; with mod, ints only,
 * (base ** exp) % mod by squaring (a negative exp: the inverse's power),
 * of the modulus's sign. */
static BUILTIN(py_pow) {
    if (!arg_present(a, 2) || a->arg[2].kind == VAL_NONE)
        return s->binary(s, a->line, a->col, TOK_STARSTAR, &a->arg[0], &a->arg[1], out);
    if (!value_is_int(&a->arg[0]) || !value_is_int(&a->arg[1]) || !value_is_int(&a->arg[2]))
        return session_fail(s, a->line, a->col, "TypeError: pow() 3rd argument not allowed "
                            "unless all arguments are integers");
    int64_t base = value_int(&a->arg[0]), exp = value_int(&a->arg[1]), mod = value_int(&a->arg[2]);
    if (mod == 0) return session_fail(s, a->line, a->col, "ValueError: pow() 3rd argument cannot be 0");
    if (mod == INT64_MIN || exp == INT64_MIN)
        return session_fail(s, a->line, a->col, "OverflowError: ag's ints are 64-bit");
    int64_t m = mod < 0 ? -mod : mod, b = (base % m + m) % m;
    if (exp < 0 && !inverse_mod(b, m, &b))
        return session_fail(s, a->line, a->col, "ValueError: base is not invertible for the given "
                            "modulus");
    uint64_t r = 1 % (uint64_t)m, sq = (uint64_t)b;
    for (uint64_t e = exp < 0 ? (uint64_t)-exp : (uint64_t)exp; e > 0; e >>= 1) {
        if (e & 1) r = mul_mod(r, sq, (uint64_t)m);
        sq = mul_mod(sq, sq, (uint64_t)m);
    }
    int64_t v = (int64_t)r;
    *out = int_value(mod < 0 && v != 0 ? v - m : v);
    return true;
}

/* divmod(a, b): (a // b, a % b), Python's floor division and modulo. */
static BUILTIN(py_divmod) {
    ValueList *l = value_list_new(2, true);
    if (!l) return no_memory(s, a);
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    bool ok = s->binary(s, a->line, a->col, TOK_SLASHSLASH, &a->arg[0], &a->arg[1], &l->items[0]) &&
              s->binary(s, a->line, a->col, TOK_PERCENT, &a->arg[0], &a->arg[1], &l->items[1]);
    if (!ok) value_release(out);
    return ok;
}

/* bin(i), oct(i), hex(i): the int's digits in base 2, 8 or 16, prefixed
 * 0b, 0o, 0x (after a minus sign). */
static bool int_digits(Session *s, CallArgs *a, int base, const char *prefix, Value *out) {
    if (!value_is_int(&a->arg[0]))
        return session_fail(s, a->line, a->col, "TypeError: '%s' object cannot be interpreted as "
                            "an integer", value_type_name(&a->arg[0]));
    int64_t v = value_int(&a->arg[0]);
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char digits[70], text[80];
    int n = 0;
    do digits[n++] = "0123456789abcdef"[m % (uint64_t)base], m /= (uint64_t)base; while (m);
    int k = snprintf(text, sizeof text, "%s%s", v < 0 ? "-" : "", prefix);
    while (n > 0) text[k++] = digits[--n];
    return value_string(text, (size_t)k, out) || no_memory(s, a);
}
static BUILTIN(py_bin) { return int_digits(s, a, 2, "0b", out); }
static BUILTIN(py_oct) { return int_digits(s, a, 8, "0o", out); }
static BUILTIN(py_hex) { return int_digits(s, a, 16, "0x", out); }

static BUILTIN(py_chr) {
    int64_t cp;
    if (!arg_int(s, a, 0, "a code point", 0, 0x10FFFF, &cp)) return false;
    char text[4];
    size_t n;
    if (cp < 0x80) text[0] = (char)cp, n = 1;
    else if (cp < 0x800) text[0] = (char)(0xC0 | (cp >> 6)), text[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        text[0] = (char)(0xE0 | (cp >> 12)), text[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
        text[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    else
        text[0] = (char)(0xF0 | (cp >> 18)), text[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
        text[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), text[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    return value_string(text, n, out) || no_memory(s, a);
}

/* ======================================================================
 * Methods of lists
 * ====================================================================== */

static bool mutable_list(Session *s, const CallArgs *a, const char *name) {
    if (!a->arg[0].as.list->tuple) return true;
    return session_fail(s, a->line, a->col, "AttributeError: 'tuple' object has no attribute "
                        "'%s'", name);
}

static BUILTIN(py_list_append) {
    (void)out;
    if (!mutable_list(s, a, "append")) return false;
    Value v;
    value_copy(&a->arg[1], &v);
    return value_list_append(a->arg[0].as.list, v) || no_memory(s, a);
}

static BUILTIN(py_list_extend) {
    (void)out;
    Value items;
    if (!mutable_list(s, a, "extend") || !items_of(s, a, 1, false, &items)) return false;
    bool ok = true;
    for (int i = 0; ok && i < items.as.list->count; i++) {
        Value v;
        value_copy(&items.as.list->items[i], &v);
        ok = value_list_append(a->arg[0].as.list, v) || no_memory(s, a);
    }
    value_release(&items);
    return ok;
}

/* An index into a list of count items, Python's negative ones included. */
static bool list_index(Session *s, CallArgs *a, int i, int count, bool insert, int *out) {
    int64_t k;
    if (!arg_int(s, a, i, "an index", INT64_MIN / 2, INT64_MAX / 2, &k)) return false;
    if (k < 0) k += count;
    if (insert) k = k < 0 ? 0 : k > count ? count : k;
    else if (k < 0 || k >= count)
        return session_fail(s, a->line, a->col, "IndexError: pop index out of range");
    *out = (int)k;
    return true;
}

static BUILTIN(py_list_pop) {
    ValueList *l = a->arg[0].as.list;
    int k = l->count - 1;
    if (!mutable_list(s, a, "pop")) return false;
    if (l->count == 0) return session_fail(s, a->line, a->col, "IndexError: pop from empty list");
    if (arg_present(a, 1) && !list_index(s, a, 1, l->count, false, &k)) return false;
    *out = l->items[k];
    memmove(&l->items[k], &l->items[k + 1], (size_t)(l->count - k - 1) * sizeof *l->items);
    l->count--;
    return true;
}

/* next(iterator, default): iter() gives a list (ag's iterator), from which
 * next takes the first item off; at its end default, else StopIteration. */
static BUILTIN(py_next) {
    const Value *v = &a->arg[0];
    if (v->kind != VAL_LIST || v->as.list->tuple)
        return arg_error(s, a, 0, "TypeError: '%s' object is not an iterator", value_type_name(v));
    ValueList *l = v->as.list;
    if (l->count == 0) {
        if (arg_present(a, 1)) return value_copy(&a->arg[1], out) || no_memory(s, a);
        return session_fail(s, a->line, a->col, "StopIteration");
    }
    *out = l->items[0];
    memmove(&l->items[0], &l->items[1], (size_t)(l->count - 1) * sizeof *l->items);
    l->count--;
    return true;
}

static BUILTIN(py_list_insert) {
    (void)out;
    ValueList *l = a->arg[0].as.list;
    int k;
    Value v;
    if (!mutable_list(s, a, "insert") || !list_index(s, a, 1, l->count, true, &k)) return false;
    value_copy(&a->arg[2], &v);
    if (!value_list_append(l, v)) return no_memory(s, a);
    memmove(&l->items[k + 1], &l->items[k], (size_t)(l->count - 1 - k) * sizeof *l->items);
    l->items[k] = v;
    return true;
}

/* list.index(value, start=0, end=len): start and end as a slice's. */
static BUILTIN(py_list_index) {
    const ValueList *l = a->arg[0].as.list;
    int64_t bound[2] = {0, l->count};
    for (int k = 0; k < 2; k++) {
        if (!arg_present(a, 2 + k)) continue;
        if (!arg_int(s, a, 2 + k, "an index", INT64_MIN / 2, INT64_MAX / 2, &bound[k])) return false;
        if (bound[k] < 0) bound[k] += l->count;
        bound[k] = bound[k] < 0 ? 0 : bound[k] > l->count ? l->count : bound[k];
    }
    for (int64_t i = bound[0]; i < bound[1] && i < l->count; i++)
        if (value_equal(&l->items[i], &a->arg[1])) return *out = int_value(i), true;
    StrBuf text;
    strbuf_init(&text);
    value_format(&text, &a->arg[1], &s->print, true);
    bool ok = session_fail(s, a->line, a->col, "ValueError: %.*s is not in list", 300, text.data);
    strbuf_free(&text);
    return ok;
}

/* list.remove(x): its first item equal to x goes. */
static BUILTIN(py_list_remove) {
    (void)out;
    if (!mutable_list(s, a, "remove")) return false;
    ValueList *l = a->arg[0].as.list;
    for (int i = 0; i < l->count; i++) {
        if (!value_equal(&l->items[i], &a->arg[1])) continue;
        if (i >= l->count) break; /* an __eq__ that emptied the list */
        value_release(&l->items[i]);
        memmove(&l->items[i], &l->items[i + 1], (size_t)(l->count - i - 1) * sizeof l->items[0]);
        l->count--;
        return true;
    }
    return session_fail(s, a->line, a->col, "ValueError: list.remove(x): x not in list");
}

static BUILTIN(py_list_count) {
    (void)s;
    const ValueList *l = a->arg[0].as.list;
    int64_t n = 0;
    for (int i = 0; i < l->count; i++) n += value_equal(&l->items[i], &a->arg[1]);
    *out = int_value(n);
    return true;
}

static BUILTIN(py_list_reverse) {
    (void)out;
    if (!mutable_list(s, a, "reverse")) return false;
    ValueList *l = a->arg[0].as.list;
    for (int i = 0, j = l->count - 1; i < j; i++, j--) {
        Value t = l->items[i];
        l->items[i] = l->items[j], l->items[j] = t;
    }
    return true;
}

static BUILTIN(py_list_sort) {
    (void)out;
    bool reverse = false;
    return mutable_list(s, a, "sort") && arg_bool(s, a, 2, &reverse) &&
           sort_items(s, a, a->arg[0].as.list, &a->arg[1], reverse);
}

static BUILTIN(py_list_copy) { return items_of(s, a, 0, false, out); }

static BUILTIN(py_list_clear) {
    (void)out;
    ValueList *l = a->arg[0].as.list;
    if (!mutable_list(s, a, "clear")) return false;
    for (int i = 0; i < l->count; i++) value_release(&l->items[i]);
    l->count = 0;
    return true;
}

/* ======================================================================
 * Methods of dicts and sets
 * ====================================================================== */

static bool dict_only(Session *s, const CallArgs *a, bool set, const char *name) {
    if (a->arg[0].as.dict->set == set) return true;
    return session_fail(s, a->line, a->col, "AttributeError: '%s' object has no attribute '%s'",
                        set ? "dict" : "set", name);
}

static bool hashable_arg(Session *s, CallArgs *a, int i) {
    if (value_hashable(&a->arg[i])) return true;
    return arg_error(s, a, i, "TypeError: unhashable type: '%s'", value_type_name(&a->arg[i]));
}

/* keys(), values(), items(): as lists (Python's views print otherwise). */
static bool dict_view(Session *s, CallArgs *a, int which, const char *name, Value *out) {
    if (!dict_only(s, a, false, name)) return false;
    const ValueDict *d = a->arg[0].as.dict;
    if (d->count > INT32_MAX) return no_memory(s, a);
    ValueList *l = value_list_new((int)d->count, false);
    if (!l) return no_memory(s, a);
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int64_t i = 0; i < d->count; i++) {
        if (which < 2) {
            value_copy(which == 0 ? &d->entries[i].key : &d->entries[i].value, &l->items[i]);
            continue;
        }
        ValueList *pair = value_list_new(2, true);
        if (!pair) return value_release(out), no_memory(s, a);
        value_copy(&d->entries[i].key, &pair->items[0]);
        value_copy(&d->entries[i].value, &pair->items[1]);
        l->items[i] = (Value){.kind = VAL_LIST, .as.list = pair};
    }
    return true;
}

static BUILTIN(py_dict_keys) { return dict_view(s, a, 0, "keys", out); }
static BUILTIN(py_dict_values) { return dict_view(s, a, 1, "values", out); }
static BUILTIN(py_dict_items) { return dict_view(s, a, 2, "items", out); }

static BUILTIN(py_dict_get) {
    if (!dict_only(s, a, false, "get") || !hashable_arg(s, a, 1)) return false;
    const Value *v = value_dict_get(a->arg[0].as.dict, &a->arg[1]);
    return value_copy(v ? v : &a->arg[2], out);
}

static BUILTIN(py_dict_setdefault) {
    if (!dict_only(s, a, false, "setdefault") || !hashable_arg(s, a, 1)) return false;
    ValueDict *d = a->arg[0].as.dict;
    const Value *v = value_dict_get(d, &a->arg[1]);
    if (!v) {
        Value key, value;
        value_copy(&a->arg[1], &key);
        value_copy(&a->arg[2], &value);
        if (!value_dict_set(d, key, value)) return no_memory(s, a);
        v = value_dict_get(d, &a->arg[1]);
    }
    return value_copy(v, out);
}

static BUILTIN(py_dict_update) {
    (void)out;
    if (a->arg[0].as.dict->flavor == DICT_COUNTER) return count_items(s, a, 1, a->arg[0].as.dict);
    return fill_dict(s, a, 1, a->arg[0].as.dict);
}

/* set.remove(x) (KeyError when absent), set.discard(x), dict.pop(k[, d]). */
static bool remove_key(Session *s, CallArgs *a, bool set, bool quiet, Value *out) {
    if (!dict_only(s, a, set, set ? (quiet ? "discard" : "remove") : "pop") || !hashable_arg(s, a, 1))
        return false;
    ValueDict *d = a->arg[0].as.dict;
    const Value *v = value_dict_get(d, &a->arg[1]);
    if (!v && (quiet || (!set && a->given[2]))) return set ? true : value_copy(&a->arg[2], out);
    if (!v) {
        StrBuf text;
        strbuf_init(&text);
        value_format(&text, &a->arg[1], &s->print, true);
        bool ok = session_fail(s, a->line, a->col, "KeyError: %.*s", 300, text.data);
        strbuf_free(&text);
        return ok;
    }
    if (!set) value_copy(v, out);
    value_dict_remove(d, &a->arg[1]);
    return true;
}

static BUILTIN(py_set_remove) { (void)out; return remove_key(s, a, true, false, out); }
static BUILTIN(py_set_discard) { (void)out; return remove_key(s, a, true, true, out); }

/* dict.pop(key[, default]); set.pop(): an item, removed (the first in
 * ag's order, where CPython's follows its hash table), KeyError when
 * empty. */
static BUILTIN(py_dict_pop) {
    ValueDict *d = a->arg[0].as.dict;
    if (!d->set) {
        if (!a->given[1])
            return session_fail(s, a->line, a->col, "TypeError: pop expected at least 1 "
                                "argument, got 0");
        return remove_key(s, a, false, false, out);
    }
    if (a->given[1] || a->given[2])
        return session_fail(s, a->line, a->col, "TypeError: set.pop() takes no arguments (%d "
                            "given)", a->given[1] + a->given[2]);
    if (d->count == 0) return session_fail(s, a->line, a->col, "KeyError: 'pop from an empty set'");
    Value key;
    if (!value_copy(&d->entries[0].key, &key)) return no_memory(s, a);
    value_dict_remove(d, &key);
    *out = key;
    return true;
}

/* dict.popitem(): the last pair put in, removed, as a tuple. */
static BUILTIN(py_dict_popitem) {
    if (!dict_only(s, a, false, "popitem")) return false;
    ValueDict *d = a->arg[0].as.dict;
    if (d->count == 0)
        return session_fail(s, a->line, a->col, "KeyError: 'popitem(): dictionary is empty'");
    ValueList *pair = value_list_new(2, true);
    if (!pair) return no_memory(s, a);
    *out = (Value){.kind = VAL_LIST, .as.list = pair};
    const Value *key = &d->entries[d->count - 1].key;
    if (!value_copy(key, &pair->items[0]) || !value_copy(&d->entries[d->count - 1].value,
                                                         &pair->items[1])) {
        value_release(out);
        return no_memory(s, a);
    }
    value_dict_remove(d, &pair->items[0]);
    return true;
}

/* Empties d (a dict's or set's clear(); a set's in-place operators). */
static void dict_empty(ValueDict *d) {
    while (d->count > 0) value_dict_remove(d, &d->entries[d->count - 1].key);
}

static BUILTIN(py_dict_clear) {
    (void)s, (void)out;
    dict_empty(a->arg[0].as.dict);
    return true;
}

/* set.union(other) and its kin: the operator's set of self and other's
 * items (any iterable); into self for the _update ones (in_place). */
static bool set_method(Session *s, CallArgs *a, TokenType op, bool in_place, const char *name,
                       Value *out) {
    if (!dict_only(s, a, true, name)) return false;
    Value other, made;
    if (!new_dict(s, a, true, 1, &other)) return false;
    bool ok = s->binary(s, a->line, a->col, op, &a->arg[0], &other, &made);
    value_release(&other);
    if (!ok || !in_place) return ok && (*out = made, true);
    ValueDict *d = a->arg[0].as.dict;
    dict_empty(d);
    for (int64_t i = 0; ok && i < made.as.dict->count; i++) {
        Value key;
        ok = value_copy(&made.as.dict->entries[i].key, &key) && value_dict_set(d, key, value_none());
    }
    value_release(&made);
    return ok || no_memory(s, a);
}

static BUILTIN(py_set_union) { return set_method(s, a, TOK_PIPE, false, "union", out); }
static BUILTIN(py_set_intersection) {
    return set_method(s, a, TOK_AMP, false, "intersection", out);
}
static BUILTIN(py_set_difference) { return set_method(s, a, TOK_MINUS, false, "difference", out); }
static BUILTIN(py_set_symmetric_difference) {
    return set_method(s, a, TOK_CARET, false, "symmetric_difference", out);
}
static BUILTIN(py_set_intersection_update) {
    (void)out;
    Value none;
    return set_method(s, a, TOK_AMP, true, "intersection_update", &none);
}
static BUILTIN(py_set_difference_update) {
    (void)out;
    Value none;
    return set_method(s, a, TOK_MINUS, true, "difference_update", &none);
}
static BUILTIN(py_set_symmetric_difference_update) {
    (void)out;
    Value none;
    return set_method(s, a, TOK_CARET, true, "symmetric_difference_update", &none);
}
static BUILTIN(py_set_issubset) { return set_method(s, a, TOK_LE, false, "issubset", out); }
static BUILTIN(py_set_issuperset) { return set_method(s, a, TOK_GE, false, "issuperset", out); }

static BUILTIN(py_set_isdisjoint) {
    Value common;
    if (!set_method(s, a, TOK_AMP, false, "isdisjoint", &common)) return false;
    *out = value_bool(common.as.dict->count == 0);
    value_release(&common);
    return true;
}

static BUILTIN(py_set_add) {
    (void)out;
    if (!dict_only(s, a, true, "add") || !hashable_arg(s, a, 1)) return false;
    Value key;
    value_copy(&a->arg[1], &key);
    return value_dict_set(a->arg[0].as.dict, key, value_none()) || no_memory(s, a);
}

/* ======================================================================
 * Methods of strings
 * ====================================================================== */

static bool string_result(Session *s, CallArgs *a, StrBuf *sb, Value *out) {
    bool ok = !sb->oom && value_string(sb->data, sb->len, out);
    strbuf_free(sb);
    return ok || no_memory(s, a);
}

static BUILTIN(py_str_join) {
    Value items;
    if (!items_of(s, a, 1, false, &items)) return false;
    StrBuf sb;
    strbuf_init(&sb);
    const Value *sep = &a->arg[0];
    bool ok = true;
    for (int i = 0; ok && i < items.as.list->count; i++) {
        const Value *v = &items.as.list->items[i];
        if (v->kind != VAL_STRING) {
            ok = session_fail(s, a->line, a->col, "TypeError: sequence item %d: expected str "
                              "instance, %s found", i, value_type_name(v));
            break;
        }
        if (i) strbuf_appendn(&sb, sep->as.string.text, sep->as.string.length);
        strbuf_appendn(&sb, v->as.string.text, v->as.string.length);
    }
    value_release(&items);
    if (!ok) return strbuf_free(&sb), false;
    return string_result(s, a, &sb, out);
}

static bool push_piece(Session *s, CallArgs *a, ValueList *l, const char *text, size_t n) {
    Value piece;
    return (value_string(text, n, &piece) && value_list_append(l, piece)) || no_memory(s, a);
}

static bool is_white(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* The next piece of text[*lo, *hi) from its start (right: its end) when
 * sep is NULL: the run of non-space after the spaces, which go. */
static void next_word(const char *text, size_t *lo, size_t *hi, bool right, size_t *b, size_t *e) {
    if (!right) {
        for (*e = *b = *lo; *e < *hi && !is_white(text[*e]);) ++*e;
        *lo = *e;
    } else {
        for (*b = *e = *hi; *b > *lo && !is_white(text[*b - 1]);) --*b;
        *hi = *b;
    }
}

/* ... and when it is not: the text before the first sep (right: after the
 * last); false when there is none. */
static bool next_field(const char *text, size_t *lo, size_t *hi, bool right, const char *sep,
                       size_t sep_len, size_t *b, size_t *e) {
    for (size_t k = 0; *lo + sep_len + k <= *hi; k++) {
        size_t i = right ? *hi - sep_len - k : *lo + k;
        if (memcmp(text + i, sep, sep_len) != 0) continue;
        if (right) *b = i + sep_len, *e = *hi, *hi = i;
        else *b = *lo, *e = i, *lo = i + sep_len;
        return true;
    }
    return false;
}

/* str.split(sep=None, maxsplit=-1) (right: rsplit, from the end): at
 * most maxsplit splits (all when negative); sep None splits at runs of
 * whitespace, and what is left after the last split keeps its inner and
 * far-end whitespace, as CPython's. */
static bool split_text(Session *s, CallArgs *a, bool right, Value *out) {
    const char *text = a->arg[0].as.string.text, *sep = NULL;
    size_t n = a->arg[0].as.string.length, sep_len = 0, lo = 0, hi = n, b, e;
    int64_t max = -1;
    if (arg_present(a, 1) && a->arg[1].kind != VAL_NONE && !arg_string(s, a, 1, &sep, &sep_len))
        return false;
    if (arg_present(a, 2) && !arg_int(s, a, 2, "maxsplit", INT64_MIN, INT64_MAX, &max)) return false;
    if (sep && sep_len == 0) return session_fail(s, a->line, a->col, "ValueError: empty separator");
    ValueList *l = value_list_new(0, false);
    if (!l) return no_memory(s, a);
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    bool ok = true;
    for (;; max -= max > 0) {
        if (!sep) { /* the near end's whitespace goes */
            while (!right && lo < hi && is_white(text[lo])) lo++;
            while (right && hi > lo && is_white(text[hi - 1])) hi--;
            if (lo == hi) break;
        }
        if (max == 0 || (sep ? !next_field(text, &lo, &hi, right, sep, sep_len, &b, &e)
                             : (next_word(text, &lo, &hi, right, &b, &e), false))) {
            if (max == 0 || sep) b = lo, e = hi; /* the rest, whole */
            ok = push_piece(s, a, l, text + b, e - b);
            break;
        }
        if (!(ok = push_piece(s, a, l, text + b, e - b))) break;
    }
    for (int i = 0, j = l->count - 1; right && i < j; i++, j--) { /* found from the end */
        Value t = l->items[i];
        l->items[i] = l->items[j], l->items[j] = t;
    }
    if (!ok) value_release(out);
    return ok;
}

static BUILTIN(py_str_split) { return split_text(s, a, false, out); }
static BUILTIN(py_str_rsplit) { return split_text(s, a, true, out); }

/* str.partition(sep) (right: rpartition): (before, sep, after) at the
 * first sep (the last), or (text, '', '') (('', '', text)). */
static bool partition_text(Session *s, CallArgs *a, bool right, Value *out) {
    const char *text = a->arg[0].as.string.text, *sep;
    size_t n = a->arg[0].as.string.length, sep_len, lo = 0, hi = n, b, e;
    if (!arg_string(s, a, 1, &sep, &sep_len)) return false;
    if (sep_len == 0) return session_fail(s, a->line, a->col, "ValueError: empty separator");
    bool found = next_field(text, &lo, &hi, right, sep, sep_len, &b, &e);
    size_t cut[3][2] = {{0, n}, {0, 0}, {n, n}}; /* not found: the text, then nothing */
    if (found && !right) cut[0][1] = e, cut[1][0] = e, cut[1][1] = lo, cut[2][0] = lo;
    if (found && right) cut[0][1] = hi, cut[1][0] = hi, cut[1][1] = b, cut[2][0] = b;
    if (!found && right) cut[0][1] = 0, cut[2][0] = 0;
    ValueList *l = value_list_new(3, true);
    if (!l) return no_memory(s, a);
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int k = 0; k < 3; k++)
        if (!value_string(text + cut[k][0], cut[k][1] - cut[k][0], &l->items[k])) {
            value_release(out);
            return no_memory(s, a);
        }
    return true;
}

static BUILTIN(py_str_partition) { return partition_text(s, a, false, out); }
static BUILTIN(py_str_rpartition) { return partition_text(s, a, true, out); }

/* str.removeprefix(p) (suffix: removesuffix(p)). */
static bool remove_affix(Session *s, CallArgs *a, bool suffix, Value *out) {
    const char *text = a->arg[0].as.string.text, *p;
    size_t n = a->arg[0].as.string.length, np;
    if (!arg_string(s, a, 1, &p, &np)) return false;
    bool has = np <= n && memcmp(text + (suffix ? n - np : 0), p, np) == 0;
    if (!has) return value_copy(&a->arg[0], out);
    return value_string(text + (suffix ? 0 : np), n - np, out) || no_memory(s, a);
}

static BUILTIN(py_str_removeprefix) { return remove_affix(s, a, false, out); }
static BUILTIN(py_str_removesuffix) { return remove_affix(s, a, true, out); }

/* str.splitlines(keepends=False): the lines, split at \n, \r\n, \r and
 * CPython's other ASCII line boundaries (\v \f \x1c \x1d \x1e); no empty
 * last line for a text that ends in one. */
static BUILTIN(py_str_splitlines) {
    const char *text = a->arg[0].as.string.text;
    size_t n = a->arg[0].as.string.length, start = 0;
    bool keep = false;
    if (arg_present(a, 1) && !arg_bool(s, a, 1, &keep)) return false;
    ValueList *l = value_list_new(0, false);
    if (!l) return no_memory(s, a);
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        if (!memchr("\n\r\v\f\x1c\x1d\x1e", text[i], 7)) continue;
        size_t end = i + (text[i] == '\r' && i + 1 < n && text[i + 1] == '\n');
        ok = push_piece(s, a, l, text + start, (keep ? end + 1 : i) - start);
        i = end, start = end + 1;
    }
    if (ok && start < n) ok = push_piece(s, a, l, text + start, n - start);
    if (!ok) value_release(out);
    return ok;
}

static bool strip(Session *s, CallArgs *a, bool left, bool right, Value *out) {
    const char *text = a->arg[0].as.string.text, *chars = " \t\n\r\f\v";
    size_t n = a->arg[0].as.string.length, nc = 6, i = 0;
    if (arg_present(a, 1) && !arg_string(s, a, 1, &chars, &nc)) return false;
    while (left && i < n && memchr(chars, text[i], nc)) i++;
    while (right && n > i && memchr(chars, text[n - 1], nc)) n--;
    return value_string(text + i, n - i, out) || no_memory(s, a);
}

static BUILTIN(py_str_strip) { return strip(s, a, true, true, out); }
static BUILTIN(py_str_lstrip) { return strip(s, a, true, false, out); }
static BUILTIN(py_str_rstrip) { return strip(s, a, false, true, out); }

static bool change_case(Session *s, CallArgs *a, bool upper, Value *out) {
    StrBuf sb;
    strbuf_init(&sb);
    for (size_t i = 0; i < a->arg[0].as.string.length; i++) {
        char c = a->arg[0].as.string.text[i];
        if (upper && c >= 'a' && c <= 'z') c = (char)(c - 32);
        if (!upper && c >= 'A' && c <= 'Z') c = (char)(c + 32);
        strbuf_appendn(&sb, &c, 1);
    }
    return string_result(s, a, &sb, out);
}

static BUILTIN(py_str_upper) { return change_case(s, a, true, out); }

/* capitalize(), title(): the first letter (of each word) a capital, the
 * rest small (ASCII). */
static bool recase(Session *s, CallArgs *a, bool words, Value *out) {
    StrBuf sb;
    strbuf_init(&sb);
    bool start = true;
    for (size_t i = 0; i < a->arg[0].as.string.length; i++) {
        char c = a->arg[0].as.string.text[i];
        bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (start && c >= 'a' && c <= 'z') c = (char)(c - 32);
        else if (!start && c >= 'A' && c <= 'Z') c = (char)(c + 32);
        start = words ? !letter : false;
        strbuf_appendn(&sb, &c, 1);
    }
    return string_result(s, a, &sb, out);
}

static BUILTIN(py_str_capitalize) { return recase(s, a, false, out); }
static BUILTIN(py_str_title) { return recase(s, a, true, out); }

/* ljust, rjust, center, zfill: padded to width with fillchar (CPython's
 * center puts the extra space on the right when the padding is odd and the
 * width even... as its formula: left = pad / 2 + (pad & width & 1)). */
static bool justify(Session *s, CallArgs *a, char how, Value *out) {
    int64_t width;
    const char *fill = how == 'z' ? "0" : " ";
    size_t nf = 1, n = a->arg[0].as.string.length;
    if (!arg_int(s, a, 1, "width", INT64_MIN / 2, 1 << 24, &width)) return false;
    if (how != 'z' && arg_present(a, 2) && (!arg_string(s, a, 2, &fill, &nf) || nf != 1))
        return session_fail(s, a->line, a->col, "TypeError: The fill character must be exactly "
                            "one character long");
    int64_t pad = width > (int64_t)n ? width - (int64_t)n : 0;
    int64_t left = how == 'r' || how == 'z' ? pad : how == 'c' ? pad / 2 + (pad & width & 1) : 0;
    const char *text = a->arg[0].as.string.text;
    StrBuf sb;
    strbuf_init(&sb);
    size_t sign = how == 'z' && n && (text[0] == '-' || text[0] == '+');
    if (sign) strbuf_appendn(&sb, text, 1);
    for (int64_t i = 0; i < left; i++) strbuf_appendn(&sb, fill, 1);
    strbuf_appendn(&sb, text + sign, n - sign);
    for (int64_t i = left; i < pad; i++) strbuf_appendn(&sb, fill, 1);
    return string_result(s, a, &sb, out);
}

static BUILTIN(py_str_ljust) { return justify(s, a, 'l', out); }
static BUILTIN(py_str_rjust) { return justify(s, a, 'r', out); }
static BUILTIN(py_str_center) { return justify(s, a, 'c', out); }
static BUILTIN(py_str_zfill) { return justify(s, a, 'z', out); }

/* isdigit, isalpha, isspace, isupper, islower (ASCII). */
static bool char_class(CallArgs *a, int (*test)(int), bool cased, Value *out) {
    size_t n = a->arg[0].as.string.length;
    bool all = n > 0, any_cased = false;
    for (size_t i = 0; i < n && all; i++) {
        int c = (unsigned char)a->arg[0].as.string.text[i];
        if (cased && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) continue;
        any_cased = true;
        all = test(c) != 0;
    }
    *out = value_bool(all && (!cased || any_cased));
    return true;
}

static int is_digit_char(int c) { return c >= '0' && c <= '9'; }
static int is_alpha_char(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_alnum_char(int c) { return is_digit_char(c) || is_alpha_char(c); }
static int is_space_char(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static int is_upper_char(int c) { return c >= 'A' && c <= 'Z'; }
static int is_lower_char(int c) { return c >= 'a' && c <= 'z'; }
static BUILTIN(py_str_isdigit) { (void)s; return char_class(a, is_digit_char, false, out); }
static BUILTIN(py_str_isalpha) { (void)s; return char_class(a, is_alpha_char, false, out); }
static BUILTIN(py_str_isalnum) { (void)s; return char_class(a, is_alnum_char, false, out); }

/* str.isascii(): every byte below 128; True for "" (unlike the others). */
static BUILTIN(py_str_isascii) {
    (void)s;
    size_t n = a->arg[0].as.string.length;
    bool all = true;
    for (size_t i = 0; i < n && all; i++) all = (unsigned char)a->arg[0].as.string.text[i] < 128;
    *out = value_bool(all);
    return true;
}
static BUILTIN(py_str_isspace) { (void)s; return char_class(a, is_space_char, false, out); }
static BUILTIN(py_str_isupper) { (void)s; return char_class(a, is_upper_char, true, out); }
static BUILTIN(py_str_islower) { (void)s; return char_class(a, is_lower_char, true, out); }
static BUILTIN(py_str_lower) { return change_case(s, a, false, out); }

static BUILTIN(py_str_replace) {
    const char *old, *new_text, *text = a->arg[0].as.string.text;
    size_t no, nn, n = a->arg[0].as.string.length;
    if (!arg_string(s, a, 1, &old, &no) || !arg_string(s, a, 2, &new_text, &nn)) return false;
    StrBuf sb;
    strbuf_init(&sb);
    for (size_t i = 0; i < n;) {
        if (no && i + no <= n && memcmp(text + i, old, no) == 0) {
            strbuf_appendn(&sb, new_text, nn);
            i += no;
        } else {
            strbuf_appendn(&sb, text + i++, 1);
        }
    }
    return string_result(s, a, &sb, out);
}

static bool affix(Session *s, CallArgs *a, bool start, Value *out) {
    const char *p;
    size_t np, n = a->arg[0].as.string.length;
    if (!arg_string(s, a, 1, &p, &np)) return false;
    const char *text = a->arg[0].as.string.text;
    *out = value_bool(np <= n && memcmp(start ? text : text + n - np, p, np) == 0);
    return true;
}

static BUILTIN(py_str_startswith) { return affix(s, a, true, out); }
static BUILTIN(py_str_endswith) { return affix(s, a, false, out); }


/* Describes up to n values for pyformat (texts: 2n buffers). */
static void describe_args(Session *s, const Value *values, int n, PyfmtArg *args, StrBuf *texts) {
    for (int i = 0; i < n; i++) {
        strbuf_init(&texts[2 * i]);
        strbuf_init(&texts[2 * i + 1]);
        args[i] = value_pyfmt_arg(&values[i], &s->print, &texts[2 * i], &texts[2 * i + 1]);
    }
}

static void free_texts(StrBuf *texts, int n) {
    for (int i = 0; i < 2 * n; i++) strbuf_free(&texts[i]);
}

/* "...".format(*args, **kwargs): str.format's template, its fields by
 * position ({}, {0}) or by name ({name}). */
static BUILTIN(py_str_format) {
    PyfmtArg args[MAX_ARGS], kwargs[MAX_ARGS];
    StrBuf texts[2 * MAX_ARGS], kw_texts[2 * MAX_ARGS], names;
    PyfmtNamed named[MAX_ARGS];
    int n = a->num_rest < MAX_ARGS ? a->num_rest : MAX_ARGS;
    int nk = a->num_extra_kw < MAX_ARGS ? a->num_extra_kw : MAX_ARGS;
    describe_args(s, a->rest, n, args, texts);
    describe_args(s, a->extra_kw, nk, kwargs, kw_texts);
    strbuf_init(&names); /* the names, each ended by a NUL, for PyfmtNamed */
    size_t at[MAX_ARGS];
    for (int k = 0; k < nk; k++) {
        at[k] = names.len;
        strbuf_appendn(&names, a->extra_kw_nodes[k]->as.text.text, a->extra_kw_nodes[k]->as.text.length);
        strbuf_appendn(&names, "", 1);
    }
    for (int k = 0; k < nk && !names.oom; k++)
        named[k] = (PyfmtNamed){.name = names.data + at[k], .value = kwargs[k]};
    PyfmtArgs all = {.pos = args, .npos = n, .named = named, .nnamed = names.oom ? 0 : nk};
    StrBuf sb;
    strbuf_init(&sb);
    char err[PYFMT_ERR_MAX];
    bool ok = !names.oom && pyfmt_template(&sb, a->arg[0].as.string.text,
                                           a->arg[0].as.string.length, pyfmt_lookup_args, &all,
                                           err, sizeof err);
    if (names.oom) snprintf(err, sizeof err, "MemoryError");
    free_texts(texts, n);
    free_texts(kw_texts, nk);
    strbuf_free(&names);
    if (!ok) {
        strbuf_free(&sb);
        return session_fail(s, a->line, a->col, "%s", err);
    }
    return string_result(s, a, &sb, out);
}

/* FORMAT % ARGS: str's % operator (the evaluator's, for a string on the left). */
bool python_percent(Session *s, int line, int col, const Value *format, const Value *rhs, Value *out) {
    bool tuple = rhs->kind == VAL_LIST && rhs->as.list->tuple;
    const Value *values = tuple ? rhs->as.list->items : rhs;
    int n = tuple ? rhs->as.list->count : 1;
    if (n > MAX_ARGS) return session_fail(s, line, col, "TypeError: too many arguments for format string");
    PyfmtArg args[MAX_ARGS];
    StrBuf texts[2 * MAX_ARGS];
    describe_args(s, values, n, args, texts);
    StrBuf sb;
    strbuf_init(&sb);
    char err[PYFMT_ERR_MAX];
    bool ok = pyfmt_percent(&sb, format->as.string.text, format->as.string.length, args, n, tuple,
                            err, sizeof err);
    free_texts(texts, n);
    if (ok) ok = !sb.oom && value_string(sb.data, sb.len, out);
    else session_set_error(s, line, col, "%s", err);
    strbuf_free(&sb);
    return ok;
}

static BUILTIN(py_str_count) {
    const char *p, *text = a->arg[0].as.string.text;
    size_t np, n = a->arg[0].as.string.length;
    if (!arg_string(s, a, 1, &p, &np)) return false;
    int64_t count = 0;
    for (size_t i = 0; i + np <= n;) {
        if (np == 0 || memcmp(text + i, p, np) == 0) count++, i += np ? np : 1;
        else i++;
    }
    if (np == 0) count = (int64_t)n + 1;
    *out = int_value(count);
    return true;
}

/* str.find(sub, start=None, end=None) (last: rfind): start and end as a
 * slice's. */
static bool str_find(Session *s, CallArgs *a, bool last, Value *out) {
    const char *p, *text = a->arg[0].as.string.text;
    size_t np;
    int64_t n = (int64_t)a->arg[0].as.string.length, bound[2] = {0, n};
    if (!arg_string(s, a, 1, &p, &np)) return false;
    for (int k = 0; k < 2; k++) {
        if (!arg_present(a, 2 + k) || a->arg[2 + k].kind == VAL_NONE) continue;
        if (!arg_int(s, a, 2 + k, "an index", INT64_MIN / 2, INT64_MAX / 2, &bound[k])) return false;
        if (bound[k] < 0) bound[k] += n;
        if (k == 0 && bound[0] > n) return *out = int_value(-1), true; /* "".find("", 1) */
        bound[k] = bound[k] < 0 ? 0 : bound[k] > n ? n : bound[k];
    }
    int64_t found = -1;
    for (int64_t i = bound[0]; i + (int64_t)np <= bound[1] && (last || found < 0); i++)
        if (memcmp(text + i, p, np) == 0) found = i;
    *out = int_value(found);
    return true;
}

static BUILTIN(py_str_find) { return str_find(s, a, false, out); }
static BUILTIN(py_str_rfind) { return str_find(s, a, true, out); }

/* str.index and rindex: find's, and ValueError where find says -1. */
static bool str_index(Session *s, CallArgs *a, bool last, Value *out) {
    if (!str_find(s, a, last, out)) return false;
    if (out->as.integer >= 0) return true;
    return session_fail(s, a->line, a->col, "ValueError: substring not found");
}

static BUILTIN(py_str_index) { return str_index(s, a, false, out); }
static BUILTIN(py_str_rindex) { return str_index(s, a, true, out); }

/* ======================================================================
 * Functions and torch's dtypes
 * ====================================================================== */

/* map(f, *iterables) and filter(f, iterable), run to their end (lists). */
static BUILTIN(py_map) {
    int64_t shortest = INT64_MAX;
    for (int i = 0; i < a->num_rest; i++) {
        if (!session_iterable(s, a->line, a->col, &a->rest[i])) return false;
        int64_t n = value_item_count(&a->rest[i]);
        if (n < 0) return arg_error(s, a, REST(i), "TypeError: '%s' object is not iterable",
                                    value_type_name(&a->rest[i]));
        if (n < shortest) shortest = n;
    }
    if (a->num_rest == 0 || a->num_rest > MAX_ARGS)
        return session_fail(s, a->line, a->col, "TypeError: map() must have at least two arguments.");
    ValueList *l = value_list_new(0, false);
    if (!l) return no_memory(s, a);
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    bool ok = true;
    for (int64_t k = 0; ok && k < shortest; k++) {
        Value args[MAX_ARGS], r;
        int n = 0;
        while (ok && n < a->num_rest) ok = value_item(&a->rest[n], k, true, &args[n]), n += ok;
        ok = ok && s->call_value(s, a->line, a->col, &a->arg[0], args, n, &r);
        for (int i = 0; i < n; i++) value_release(&args[i]);
        if (ok) ok = value_list_append(l, r) || no_memory(s, a);
    }
    if (!ok) value_release(out);
    return ok;
}

static BUILTIN(py_filter) {
    Value items;
    if (!items_of(s, a, 1, false, &items)) return false;
    ValueList *l = value_list_new(0, false);
    bool ok = l || no_memory(s, a);
    if (ok) *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int i = 0; ok && i < items.as.list->count; i++) {
        const Value *item = &items.as.list->items[i];
        Value r = value_void();
        bool keep;
        if (a->arg[0].kind == VAL_NONE) ok = truth_of(s, a, item, &keep);
        else ok = s->call_value(s, a->line, a->col, &a->arg[0], item, 1, &r) && truth_of(s, a, &r, &keep),
             value_release(&r);
        if (ok && keep) {
            Value copy;
            value_copy(item, &copy);
            ok = value_list_append(l, copy) || no_memory(s, a);
        }
    }
    value_release(&items);
    if (!ok && l) value_release(out);
    return ok;
}

static BUILTIN(py_get_default_dtype) {
    (void)s, (void)a;
    *out = value_dtype(ag_default_dtype());
    return true;
}

static BUILTIN(py_set_default_dtype) {
    AgDtype d;
    *out = value_void();
    if (!arg_dtype(s, a, 0, &d)) return false;
    if (ag_set_default_dtype(d) != 0)
        return arg_error(s, a, 0, "TypeError: only floating-point types are supported as the "
                         "default type");
    return true;
}

/* x's values as dtype (x itself when it has it), into out. */
static bool cast_result(Session *s, CallArgs *a, Tensor *x, AgDtype dtype, Value *out) {
    Tensor *r = tensor_to(x, dtype);
    if (!r) return session_fail(s, a->line, a->col, "%s", ag_error());
    *out = value_tensor(r);
    return true;
}

/* x.float(), x.double(), x.long(), x.int(), x.bool(): the dtype the
 * method's name says (modules.c's names of the dtypes). */
static BUILTIN(py_cast) {
    Tensor *t;
    AgDtype dtype = AG_FLOAT64;
    Value named = {.kind = VAL_DTYPE, .as.module = module_dtype(a->b->name, strlen(a->b->name))};
    value_as_dtype(&named, &dtype);
    return arg_tensor(s, a, 0, &t) && cast_result(s, a, t, dtype, out);
}

/* x.to(dtype), x.to('cpu'), x.to(other) (other's dtype), x.cpu(). */
static BUILTIN(py_to) {
    Tensor *t;
    if (!arg_tensor(s, a, 0, &t)) return false;
    int i = arg_index(a, "dtype");
    const Value *d = i >= 0 && arg_present(a, i) ? &a->arg[i] : NULL;
    AgDtype dtype = (AgDtype)t->dtype;
    bool cpu = d && d->kind == VAL_STRING && d->as.string.length == 3 &&
               memcmp(d->as.string.text, "cpu", 3) == 0;
    if (d && d->kind == VAL_STRING && !cpu) /* x.to('cuda'): PyTorch's CPU-only build says */
        return arg_error(s, a, i, "%s", d->as.string.length >= 4 &&
                         memcmp(d->as.string.text, "cuda", 4) == 0
                             ? "AssertionError: Torch not compiled with CUDA enabled"
                             : "RuntimeError: ag's tensors are on the CPU only");
    if (d && d->kind == VAL_TENSOR) dtype = (AgDtype)d->as.tensor->dtype;
    else if (d && d->kind != VAL_STRING && d->kind != VAL_NONE && !arg_dtype(s, a, i, &dtype))
        return false;
    return cast_result(s, a, t, dtype, out);
}

/* The legacy type names, x.type()'s answers. */
static const char *const tensor_type_names[AG_DTYPE_COUNT] = {
    [AG_FLOAT64] = "torch.DoubleTensor", [AG_FLOAT32] = "torch.FloatTensor",
    [AG_INT64] = "torch.LongTensor", [AG_INT32] = "torch.IntTensor", [AG_BOOL] = "torch.BoolTensor",
};

/* x.type(dtype) or x.type('torch.LongTensor'): x as that dtype; x.type()
 * with no dtype: its type's name. */
static BUILTIN(py_tensor_type) {
    Tensor *t;
    if (!arg_tensor(s, a, 0, &t)) return false;
    const char *own = tensor_type_names[t->dtype];
    if (!arg_present(a, 1)) return value_string(own, strlen(own), out) || no_memory(s, a);
    const Value *d = &a->arg[1];
    if (d->kind == VAL_STRING) {
        for (int k = 0; k < AG_DTYPE_COUNT; k++)
            if (strlen(tensor_type_names[k]) == d->as.string.length &&
                memcmp(d->as.string.text, tensor_type_names[k], d->as.string.length) == 0)
                return cast_result(s, a, t, (AgDtype)k, out);
        return arg_error(s, a, 1, "ValueError: invalid type: '%.*s'", (int)d->as.string.length,
                         d->as.string.text);
    }
    AgDtype dtype;
    return arg_dtype(s, a, 1, &dtype) && cast_result(s, a, t, dtype, out);
}

/* torch.any(input, dim=None, keepdim=False), torch.all, x.any(), x.all():
 * a bool tensor, whether some (every) element is nonzero (nan is), over
 * everything or along dim; any of none is False, all of none True. Not a
 * tensor: Python's any and all. */
static BUILTIN(py_tensor_all_any) {
    bool all = strcmp(a->b->name, "all") == 0;
    if (a->arg[0].kind != VAL_TENSOR && !a->given[1] && !a->given[2])
        return any_all(s, a, !all, out);
    Tensor *t;
    bool keepdim = false;
    int axis = 0;
    if (!arg_tensor(s, a, 0, &t) || (a->given[1] && !arg_axis(s, a, 1, &axis)) ||
        !arg_bool(s, a, 2, &keepdim))
        return false;
    /* count the elements that decide (zeros for all, nonzeros for any) */
    Tensor *zero = tensor_number(0.0, AG_FLOAT64);
    Tensor *hits = zero ? (all ? tensor_eq(t, zero) : tensor_ne(t, zero)) : NULL;
    int64_t dim = axis;
    Tensor *count = !hits ? NULL
                    : a->given[1] ? tensor_sum_dims(hits, &dim, 1, keepdim)
                                  : tensor_sum(hits);
    Tensor *r = count ? (all ? tensor_eq(count, zero) : tensor_ne(count, zero)) : NULL;
    tensor_release(zero);
    tensor_release(hits);
    tensor_release(count);
    return result_tensor(s, a, r, out);
}

static BUILTIN(py_is_floating_point) {
    Tensor *t;
    if (!arg_tensor(s, a, 0, &t)) return false;
    *out = value_bool(ag_dtype_is_floating((AgDtype)t->dtype));
    return true;
}

/* PyTorch's name of the Function ag's grad_fn name stands for
 * (MulBackward0; its hand-written C++ ones qualified:
 * torch::autograd::CopySlices), in buf (or name itself). */
static const char *grad_fn_pytorch_name(const char *name, char *buf, size_t size) {
    return print_grad_fn_custom(name) ? name : ag_function_pytorch_name(name, buf, size);
}

/* grad_fn.name() */
static BUILTIN(py_grad_fn_name) {
    StrBuf sb;
    strbuf_init(&sb);
    char pytorch[128];
    strbuf_append(&sb, grad_fn_pytorch_name(a->arg[0].as.grad_fn.name, pytorch, sizeof pytorch));
    return string_result(s, a, &sb, out);
}

/* tolist(): nested lists of the elements (a 0-d tensor: its number). */
static void tensor_list(const Tensor *t, int dim, int64_t *at, Value *out) {
    if (dim == t->ndim) {
        *out = value_element(t, (*at)++, true);
        return;
    }
    ValueList *l = value_list_new((int)t->shape[dim], false);
    if (!l) {
        *out = value_void();
        return;
    }
    for (int64_t i = 0; i < t->shape[dim]; i++) tensor_list(t, dim + 1, at, &l->items[i]);
    *out = (Value){.kind = VAL_LIST, .as.list = l};
}

static BUILTIN(py_tolist) {
    Tensor *t;
    if (!arg_tensor(s, a, 0, &t)) return false;
    if (t->numel > (1 << 26)) return no_memory(s, a);
    Tensor *c = tensor_retain(t);
    if (!c) return session_fail(s, a->line, a->col, "%s", ag_error());
    int64_t at = 0;
    tensor_list(c, 0, &at, out);
    tensor_release(c);
    return out->kind != VAL_VOID || no_memory(s, a);
}

/* The type of values no builtin makes (type(len), type(y.grad_fn)): a
 * builtin value of this row, named by its type's interned name, which it
 * prints (<class 'torch.Size'>); calling it is Python's TypeError
 * (builtin_type_only's caller says so). */
static BUILTIN(py_type_only) {
    (void)out;
    return session_fail(s, a->line, a->col, "TypeError: cannot create instances of this type");
}
static const Builtin type_only_row = {"type", "", "", NULL, py_type_only, BI_TYPE, VAL_VOID, NULL};

bool builtin_type_only(const Value *v) {
    return v->kind == VAL_BUILTIN && v->as.builtin.row == &type_only_row;
}

/* The name of v's type where value_type_name has none of its own: a
 * grad_fn's PyTorch class (SumBackward0), an optimizer's (qualified as
 * PyTorch's: torch.optim.sgd.SGD), a generator's (torch._C.Generator); in
 * buf, or static. */
static const char *type_only_name(const Value *v, char *buf, size_t size) {
    if (v->kind == VAL_GRAD_FN) return grad_fn_pytorch_name(v->as.grad_fn.name, buf, size);
    if (v->kind == VAL_GENERATOR) return "torch._C.Generator";
    if (v->kind == VAL_TENSOR && v->as.tensor->parameter) return "Parameter"; /* nn.Parameter's */
    if (v->kind == VAL_OPTIM) {
        const char *name = ag_optim_name(v->as.optim->kind);
        size_t at = (size_t)snprintf(buf, size, "torch.optim.");
        for (const char *c = name; *c && at + 1 < size; c++)
            buf[at++] = (char)tolower((unsigned char)*c);
        snprintf(buf + at, size - at, ".%s", name);
        return buf;
    }
    return value_type_name(v);
}

bool builtin_type_of(const Value *v, Value *out) {
    if (v->kind == VAL_INSTANCE) { /* its class */
        v->as.object->cls->refs++;
        *out = (Value){.kind = VAL_CLASS, .as.cls = v->as.object->cls};
        return true;
    }
    char buf[128];
    const char *name = type_only_name(v, buf, sizeof buf);
    for (int i = 0; i < num_python_builtins; i++)
        if ((python_builtins[i].flags & BI_TYPE) && strcmp(python_builtins[i].name, name) == 0) {
            int n;
            const Builtin *all = builtin_list(&n);
            *out = builtin_as_value(&all[n - num_python_builtins + i]);
            return true;
        }
    const char *interned = value_intern(name, strlen(name));
    if (!interned) return false;
    *out = (Value){.kind = VAL_BUILTIN, .as.builtin = {&type_only_row, interned, true}};
    return true;
}

/* type(obj) */
static BUILTIN(py_type) { return builtin_type_of(&a->arg[0], out) || no_memory(s, a); }

/* id(obj): an identity: the address of what it holds, or its value. */
static BUILTIN(py_id) {
    (void)s;
    const Value *v = &a->arg[0];
    uintptr_t p = value_identity(v);
    if (!p) p = (uintptr_t)(int64_t)value_scalar(v);
    *out = int_value((int64_t)(p & INT64_MAX));
    return true;
}

/* hash(): CPython's numbers (its hash of ints, floats and tuples of them,
 * sys.hash_info's modulus 2**61 - 1); an object's __hash__ where its class
 * has one; identities hashed as CPython's pointers; a string's ag's own
 * (CPython salts each run's). */
enum { HASH_BITS = 61 };
static const uint64_t HASH_MODULUS = ((uint64_t)1 << HASH_BITS) - 1;

static int64_t hash_int(int64_t n) {
    uint64_t m = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
    int64_t h = (int64_t)(m % HASH_MODULUS);
    if (n < 0) h = -h;
    return h == -1 ? -2 : h;
}

/* CPython's _Py_HashDouble, for a finite x. */
static int64_t hash_float(double x) {
    if (isinf(x)) return x > 0 ? 314159 : -314159;
    int e;
    double m = frexp(x, &e);
    int sign = 1;
    if (m < 0) sign = -1, m = -m;
    uint64_t h = 0;
    while (m) { /* 28 bits of the mantissa at a time */
        h = ((h << 28) & HASH_MODULUS) | h >> (HASH_BITS - 28);
        m *= 268435456.0;
        e -= 28;
        uint64_t y = (uint64_t)m;
        m -= (double)y;
        h += y;
        if (h >= HASH_MODULUS) h -= HASH_MODULUS;
    }
    e = e >= 0 ? e % HASH_BITS : HASH_BITS - 1 - ((-1 - e) % HASH_BITS);
    h = ((h << e) & HASH_MODULUS) | h >> (HASH_BITS - e);
    int64_t r = sign * (int64_t)h;
    return r == -1 ? -2 : r;
}

static int64_t hash_pointer(uintptr_t p) {
    uint64_t h = ((uint64_t)p >> 4) | ((uint64_t)p << 60);
    return (int64_t)h == -1 ? -2 : (int64_t)h;
}

static bool hash_of(Session *s, CallArgs *a, const Value *v, int64_t *out);

/* CPython's tuple hash (xxHash's rounds over the items' hashes). */
static bool hash_tuple(Session *s, CallArgs *a, const ValueList *t, int64_t *out) {
    const uint64_t p1 = 11400714785074694791ULL, p2 = 14029467366897019727ULL,
                   p5 = 2870177450012600261ULL;
    uint64_t acc = p5;
    for (int i = 0; i < t->count; i++) {
        int64_t lane;
        if (!hash_of(s, a, &t->items[i], &lane)) return false;
        acc += (uint64_t)lane * p2;
        acc = (acc << 31) | (acc >> 33);
        acc *= p1;
    }
    acc += (uint64_t)t->count ^ (p5 ^ 3527539UL);
    *out = acc == UINT64_MAX ? 1546275796 : (int64_t)acc;
    return true;
}

/* An object's hash: its class's __hash__, or its identity's. */
static bool hash_object(Session *s, CallArgs *a, const Value *v, int64_t *out) {
    const Value *method = value_method_of(v, "__hash__", 8);
    if (!method) return *out = hash_pointer(value_identity(v)), true;
    Value r;
    if (!s->call_value(s, a->line, a->col, method, v, 1, &r)) return false;
    bool integer = r.kind == VAL_INT || r.kind == VAL_BOOL;
    int64_t h = !integer ? 0 : r.kind == VAL_BOOL ? r.as.truth : r.as.integer; /* as returned */
    if (h == -1) h = -2;
    value_release(&r);
    if (!integer)
        return session_fail(s, a->line, a->col, "TypeError: __hash__ method should return an integer");
    return *out = h, true;
}

static bool hash_of(Session *s, CallArgs *a, const Value *v, int64_t *out) {
    switch (v->kind) {
    case VAL_INT: *out = hash_int(v->as.integer); return true;
    case VAL_BOOL: *out = v->as.truth; return true;
    case VAL_NUMBER:
        if (isnan(v->as.number)) return *out = 0, true; /* CPython 3.10 on: the object's id */
        *out = hash_float(v->as.number);
        return true;
    case VAL_NONE: case VAL_VOID: *out = 4238894112; return true; /* CPython 3.12's */
    case VAL_STRING: *out = (int64_t)value_key_hash(v); return *out == -1 ? *out = -2, true : true;
    case VAL_LIST:
        if (v->as.list->tuple) return hash_tuple(s, a, v->as.list, out);
        break;
    case VAL_INSTANCE: return hash_object(s, a, v, out);
    case VAL_DICT: case VAL_SHAPE: break;
    default:
        if (value_identity(v)) return *out = hash_pointer(value_identity(v)), true;
    }
    return session_fail(s, a->line, a->col, "TypeError: unhashable type: '%s'", value_type_name(v));
}

static BUILTIN(py_hash) {
    int64_t h;
    if (!hash_of(s, a, &a->arg[0], &h)) return false;
    *out = int_value(h);
    return true;
}

/* dict.fromkeys(iterable, value=None): a dict of the iterable's items, each
 * key bound to value (the one value, shared, as Python's). */
static BUILTIN(py_dict_fromkeys) {
    ValueDict *d = value_dict_new(false);
    if (!d) return no_memory(s, a);
    *out = (Value){.kind = VAL_DICT, .as.dict = d};
    Value items;
    if (!items_of(s, a, 0, false, &items)) return value_release(out), false;
    bool ok = true;
    for (int k = 0; ok && k < items.as.list->count; k++) {
        Value key, value;
        value_copy(&items.as.list->items[k], &key);
        if (!value_hashable(&key)) {
            ok = session_fail(s, a->line, a->col, "TypeError: unhashable type: '%s'",
                              value_type_name(&key));
            value_release(&key);
            break;
        }
        if (arg_present(a, 1)) value_copy(&a->arg[1], &value);
        else value = value_none();
        ok = value_dict_set(d, key, value) || no_memory(s, a);
    }
    value_release(&items);
    if (!ok) value_release(out);
    return ok;
}

/* torch.device('cpu'): the device's name (ag computes on the CPU). */
static BUILTIN(py_device) {
    const char *text;
    size_t n;
    if (!arg_string(s, a, 0, &text, &n)) return false;
    if (!(n == 3 && memcmp(text, "cpu", 3) == 0))
        return arg_error(s, a, 0, "ag computes on the CPU: device '%.*s' is not available", (int)n, text);
    return value_copy(&a->arg[0], out);
}

/* one_hot(tensor, num_classes=-1): int64 rows of zeros with a one at each
 * index. A .py file's indices must be int64, as PyTorch's; the .ag
 * dialect's literals are floats, so there integral floats serve. */
static BUILTIN(py_one_hot) {
    Tensor *t;
    int64_t classes = -1;
    if (!arg_tensor(s, a, 0, &t) || !arg_int(s, a, 1, "num_classes", -1, 1 << 24, &classes))
        return false;
    if (s->python && t->dtype != AG_INT64)
        return arg_error(s, a, 0, "RuntimeError: one_hot is only applicable to index tensor.");
    Tensor *c = tensor_retain(t);
    if (!c) return session_fail(s, a->line, a->col, "%s", ag_error());
    int64_t top = -1;
    bool ok = true;
    for (int64_t i = 0; ok && i < c->numel; i++) {
        double v = tensor_values(c)[i];
        if (v != floor(v) || v < 0)
            ok = arg_error(s, a, 0, "RuntimeError: Class values must be non-negative.");
        if (v > top) top = (int64_t)v;
    }
    if (ok && classes < 0) classes = top + 1;
    if (ok && top >= classes) ok = arg_error(s, a, 0, "RuntimeError: Class values must be smaller than num_classes.");
    if (ok && (c->ndim >= AG_MAX_DIMS || c->numel * classes > (INT64_C(1) << 31)))
        ok = no_memory(s, a);
    Tensor *r = NULL;
    if (ok) {
        int64_t shape[AG_MAX_DIMS];
        memcpy(shape, c->shape, (size_t)c->ndim * sizeof *shape);
        shape[c->ndim] = classes;
        r = tensor_zeros(c->ndim + 1, shape, false);
        if (r) tensor_set_dtype(r, AG_INT64);
        for (int64_t i = 0; r && i < c->numel; i++) tensor_values(r)[i * classes + (int64_t)tensor_values(c)[i]] = 1;
    }
    tensor_release(c);
    return ok && result_tensor(s, a, r, out);
}

/* nonzero(x): the int64 (count, ndim) indices of x's nonzero elements
 * (nan is nonzero), in row-major order, as PyTorch's. */
static BUILTIN(py_nonzero) {
    Tensor *t;
    if (!arg_tensor(s, a, 0, &t)) return false;
    int64_t count = 0;
    const double *tv = tensor_values(t);
    for (int64_t i = 0; i < t->numel; i++) count += tv[i] != 0;
    Tensor *r = tensor_zeros(2, (int64_t[]){count, t->ndim}, false);
    if (!r) return session_fail(s, a->line, a->col, "%s", ag_error());
    tensor_set_dtype(r, AG_INT64);
    for (int64_t i = 0, k = 0; i < t->numel; i++) {
        if (tensor_values(t)[i] == 0) continue;
        for (int64_t d = t->ndim - 1, rest = i; d >= 0; d--) { /* i's coordinates */
            tensor_values(r)[k * t->ndim + d] = (double)(rest % t->shape[d]);
            rest /= t->shape[d];
        }
        k++;
    }
    return result_tensor(s, a, r, out);
}

/* PyTorch's isclose of x and y (broadcast) as a bool tensor: x == y, or
 * both nan with equal_nan, or |x - y| finite and <= atol + |rtol * y|;
 * NULL with the engine's error set. x and y have one dtype. */
static Tensor *isclose_of(Tensor *x, Tensor *y, double rtol, double atol, bool equal_nan) {
    bool was = ag_set_grad_enabled(false);
    Tensor *r_t = tensor_number(rtol, AG_FLOAT64), *a_t = tensor_number(atol, AG_FLOAT64);
    Tensor *ry = tensor_mul(y, r_t), *ary = ry ? tensor_abs(ry) : NULL;
    Tensor *allowed = ary ? tensor_add(ary, a_t) : NULL;
    Tensor *diff = tensor_sub(x, y), *actual = diff ? tensor_abs(diff) : NULL;
    Tensor *le = actual && allowed ? tensor_le(actual, allowed) : NULL;
    Tensor *same = tensor_eq(x, y), *xn = tensor_ne(x, x), *yn = tensor_ne(y, y);
    Tensor *nans = xn && yn ? tensor_logical_and(xn, yn) : NULL;
    ag_set_grad_enabled(was);
    Tensor *close = le && same && nans ? tensor_copy(same) : NULL;
    bool floating = ag_dtype_is_floating((AgDtype)x->dtype);
    for (int64_t i = 0; close && i < close->numel; i++)
        tensor_values(close)[i] = tensor_values(same)[i] != 0 || (equal_nan && floating && tensor_values(nans)[i] != 0) ||
                         ((rtol != 0 || atol != 0) && isfinite(tensor_values(actual)[i]) && tensor_values(le)[i] != 0);
    Tensor *all[] = {r_t, a_t, ry, ary, allowed, diff, actual, le, same, xn, yn, nans};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tensor_release(all[i]);
    return close;
}

/* isclose's (and allclose's) arguments, checked: PyTorch refuses two
 * dtypes. */
static bool isclose_args(Session *s, CallArgs *a, Tensor **x, Tensor **y, double *rtol,
                         double *atol, bool *equal_nan) {
    if (!arg_tensor(s, a, 0, x) || !arg_tensor(s, a, 1, y) || !arg_number(s, a, 2, rtol) ||
        !arg_number(s, a, 3, atol) || !arg_bool(s, a, 4, equal_nan))
        return false;
    if ((*x)->dtype != (*y)->dtype)
        return session_fail(s, a->line, a->col, "RuntimeError: %s did not match %s",
                            ag_dtype_scalar_name((AgDtype)(*x)->dtype),
                            ag_dtype_scalar_name((AgDtype)(*y)->dtype));
    return true;
}

/* isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) */
static BUILTIN(py_isclose) {
    Tensor *x, *y;
    double rtol, atol;
    bool equal_nan = false;
    return isclose_args(s, a, &x, &y, &rtol, &atol, &equal_nan) &&
           result_tensor(s, a, isclose_of(x, y, rtol, atol, equal_nan), out);
}

/* allclose(...): isclose's every element, a Python bool. */
static BUILTIN(py_allclose) {
    Tensor *x, *y;
    double rtol, atol;
    bool equal_nan = false;
    if (!isclose_args(s, a, &x, &y, &rtol, &atol, &equal_nan)) return false;
    Tensor *close = isclose_of(x, y, rtol, atol, equal_nan);
    if (!close) return session_fail(s, a->line, a->col, "RuntimeError: %s", ag_error());
    bool all = true;
    for (int64_t i = 0; all && i < close->numel; i++) all = tensor_values(close)[i] != 0;
    tensor_release(close);
    *out = value_bool(all);
    return true;
}

/* getattr(obj, name[, default]), hasattr(obj, name), setattr(obj, name, v):
 * the attributes of objects and classes, and a module's names as
 * module.NAME finds them (getattr(torch, "tanh")). */
/* Whether v's attributes are the evaluator's to find (properties,
 * __getattr__, a list's or string's methods bound to it), an
 * AttributeError where there is none: an object, a class, a list, a dict,
 * a string. */
static bool object_like(const Value *v) {
    return v->kind == VAL_INSTANCE || v->kind == VAL_CLASS || v->kind == VAL_LIST ||
           v->kind == VAL_DICT || v->kind == VAL_STRING;
}

/* Whether the error just set is an AttributeError (getattr's default and
 * hasattr take those alone, as Python's). */
static bool attribute_error(const Session *s) {
    return strncmp(s->error, "AttributeError", 14) == 0;
}

static BUILTIN(py_getattr) {
    const char *name;
    size_t n;
    if (!arg_string(s, a, 1, &name, &n)) return false;
    if (a->arg[0].kind == VAL_MODULE) {
        bool missing;
        if (s->module_value(s, a->line, a->col, a->arg[0].as.module, name, n, out,
                            a->given[2] ? &missing : NULL))
            return true;
        return a->given[2] && missing && value_copy(&a->arg[2], out);
    }
    if (object_like(&a->arg[0]) && s->attr_value) {
        if (s->attr_value(s, a->line, a->col, &a->arg[0], name, n, out)) return true;
        if (!a->given[2] || !attribute_error(s)) return false;
        session_forget_error(s);
        return value_copy(&a->arg[2], out);
    }
    if (value_getattr(&a->arg[0], name, n, out)) return true;
    if (a->given[2]) return value_copy(&a->arg[2], out);
    return session_fail(s, a->line, a->col, "AttributeError: '%s' object has no attribute '%.*s'",
                        value_type_name(&a->arg[0]), (int)n, name);
}

/* nn.Parameter(data, requires_grad=True): a leaf sharing data's elements
 * (as PyTorch's), marked so that a Module registers it and print shows
 * "Parameter containing:". */
static BUILTIN(py_parameter) {
    Tensor *t;
    bool requires_grad = true;
    if (!arg_present(a, 0)) return arg_error(s, a, 0, "ag's Parameter needs its data (a tensor)");
    if (!arg_tensor(s, a, 0, &t) || !arg_bool(s, a, 1, &requires_grad)) return false;
    Tensor *p = tensor_detach(t);
    if (!p) return session_fail(s, a->line, a->col, "%s", ag_error());
    p->requires_grad = requires_grad;
    p->parameter = true;
    *out = value_tensor(p);
    return true;
}

/* A tensor argument that may be None (NULL then). */
static bool optional_tensor(Session *s, CallArgs *a, int i, Tensor **t) {
    *t = NULL;
    return !arg_present(a, i) || arg_tensor(s, a, i, t);
}

/* F.dropout(input, p=0.5, training=True, inplace=False): PyTorch's mask,
 * from its stream; inplace writes the result into input (PyTorch's
 * input.mul_(noise): recorded onto input's history when it has one, and
 * PyTorch's error for a leaf that requires grad). */
static BUILTIN(py_dropout) {
    Tensor *x;
    double p = 0.5;
    bool training = true, inplace = false;
    if (!arg_tensor(s, a, 0, &x) || (arg_present(a, 1) && !arg_number(s, a, 1, &p)) ||
        !arg_bool(s, a, 2, &training) || !arg_bool(s, a, 3, &inplace))
        return false;
    Tensor *r = tensor_dropout(x, p, training, NULL);
    if (!inplace || !r || r == x) return result_tensor(s, a, r, out);
    int rc = tensor_has_graph(r) ? ag_rebase_in_place(x, r) : tensor_assign(x, r);
    tensor_release(r);
    if (rc != 0)
        return session_fail(s, a->line, a->col, "%s%s", s->python ? "RuntimeError: " : "",
                            ag_error());
    *out = value_tensor(tensor_retain(x));
    return true;
}

/* F.batch_norm(input, running_mean, running_var, weight=None, bias=None,
 * training=False, momentum=0.1, eps=1e-05): the running statistics change
 * in place in training, as PyTorch's. */
static BUILTIN(py_batch_norm) {
    Tensor *x, *rm, *rv, *w, *b;
    double momentum = 0.1, eps = 1e-5;
    bool training = false;
    if (!arg_tensor(s, a, 0, &x) || !optional_tensor(s, a, 1, &rm) ||
        !optional_tensor(s, a, 2, &rv) || !optional_tensor(s, a, 3, &w) ||
        !optional_tensor(s, a, 4, &b) || !arg_bool(s, a, 5, &training) ||
        (arg_present(a, 6) && !arg_number(s, a, 6, &momentum)) ||
        (arg_present(a, 7) && !arg_number(s, a, 7, &eps)))
        return false;
    return result_tensor(s, a, tensor_batch_norm(x, rm, rv, w, b, training, momentum, eps), out);
}

/* F.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
 * over input's last dims, normalized_shape an int or a list, tuple or Size. */
static BUILTIN(py_layer_norm) {
    Tensor *x, *w, *b;
    double eps = 1e-5;
    int nd = 0;
    int64_t shape[AG_MAX_DIMS];
    if (!arg_tensor(s, a, 0, &x) || !arg_axes(s, a, 1, &nd, shape) ||
        !optional_tensor(s, a, 2, &w) || !optional_tensor(s, a, 3, &b) ||
        (arg_present(a, 4) && !arg_number(s, a, 4, &eps)))
        return false;
    return result_tensor(s, a, tensor_layer_norm(x, nd, shape, w, b, eps), out);
}

/* torch.is_grad_enabled(): whether operations are recorded now. */
static BUILTIN(py_is_grad_enabled) {
    (void)s;
    (void)a;
    *out = value_bool(ag_is_grad_enabled());
    return true;
}

/* torch.set_grad_enabled(mode) as a call: grad mode on or off from here on
 * (with torch.set_grad_enabled(mode): is the with statement's). */
static BUILTIN(py_set_grad_enabled) {
    bool mode;
    if (!arg_bool(s, a, 0, &mode)) return false;
    ag_set_grad_enabled(mode);
    *out = value_none();
    return true;
}

/* Whether a Python number fits an integer dtype's range (nan does not):
 * PyTorch's masked_fill refuses one that does not; tensor_number converts
 * the rest (2.7 into int64 is 2). */
static bool number_fits(double v, AgDtype dtype) {
    if (dtype != AG_INT64 && dtype != AG_INT32) return true;
    return dtype == AG_INT32 ? v > -0x1p31 - 1 && v < 0x1p31 : v >= -0x1p63 && v < 0x1p63;
}

/* Renames r's Function (a where standing for PyTorch's op) to PyTorch's. */
static Tensor *named(Tensor *r, const char *name) {
    if (r && r->grad_fn) r->op_name = r->grad_fn->name = name;
    return r;
}

/* x.masked_fill(mask, value): value where the bool mask (broadcast) is
 * true, x elsewhere, in x's dtype: where(mask, value, x) under PyTorch's
 * name, MaskedFillBackward0 (a number), MaskedFillBackward1 (a 0-d
 * tensor, whose gradient is g summed where mask is true). */
static BUILTIN(py_masked_fill) {
    Tensor *x, *mask, *value;
    if (!arg_tensor(s, a, 0, &x) || !arg_tensor(s, a, 1, &mask) || !arg_tensor(s, a, 2, &value))
        return false;
    const char *type = s->python ? "RuntimeError: " : "";
    if (mask->dtype != AG_BOOL)
        return session_fail(s, a->line, a->col, "%smasked_fill only supports boolean masks, but "
                            "got mask with dtype %s", type,
                            ag_dtype_scalar_name((AgDtype)mask->dtype));
    if (value->ndim != 0)
        return session_fail(s, a->line, a->col, "%smasked_fill_ only supports a 0-dimensional "
                            "value tensor, but got tensor with %d dimension(s).", type, value->ndim);
    bool number = value->wrapped_number;
    if (number && !number_fits(tensor_values(value)[0], (AgDtype)x->dtype))
        return session_fail(s, a->line, a->col, "%svalue cannot be converted to type %s without "
                            "overflow", type, x->dtype == AG_INT32 ? "int" : "int64_t");
    Tensor *filler = number ? tensor_number(tensor_values(value)[0], (AgDtype)x->dtype)
                     : value->dtype != x->dtype && !value->requires_grad ? tensor_to(value, (AgDtype)x->dtype)
                                                                          : tensor_retain(value);
    Tensor *r = filler ? tensor_where(mask, filler, x) : NULL;
    tensor_release(filler);
    return result_tensor(s, a, named(r, number ? "MaskedFillBackward" : "MaskedFillBackward1"), out);
}

/* tril(x, diagonal=0) and triu: x's elements on and below (above) the
 * k-th diagonal of its last two dimensions, 0 elsewhere: where(mask, x, 0)
 * under PyTorch's name. */
static bool triangle(Session *s, CallArgs *a, bool lower, Value *out) {
    Tensor *x;
    int64_t k = 0;
    if (!arg_tensor(s, a, 0, &x) ||
        (arg_present(a, 1) && !arg_int(s, a, 1, "diagonal", -INT32_MAX, INT32_MAX, &k)))
        return false;
    if (x->ndim < 2)
        return session_fail(s, a->line, a->col, "%sDimension out of range (expected to be in "
                            "range of [-1, 0], but got -2)", s->python ? "IndexError: " : "");
    int64_t rows = x->shape[x->ndim - 2], cols = x->shape[x->ndim - 1];
    Tensor *mask = tensor_zeros(2, (int64_t[]){rows, cols}, false);
    if (!mask) return session_fail(s, a->line, a->col, "%s", ag_error());
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            tensor_values(mask)[i * cols + j] = lower ? j - i <= k : j - i >= k;
    tensor_set_dtype(mask, AG_BOOL);
    Tensor *zero = tensor_number(0, (AgDtype)x->dtype);
    Tensor *r = zero ? tensor_where(mask, x, zero) : NULL;
    tensor_release(zero);
    tensor_release(mask);
    return result_tensor(s, a, named(r, lower ? "TrilBackward" : "TriuBackward"), out);
}

static BUILTIN(py_tril) { return triangle(s, a, true, out); }
static BUILTIN(py_triu) { return triangle(s, a, false, out); }

/* An int64 tensor 0, 1, ..., n - 1 shaped to stand along dim d of ndim
 * dimensions (1 elsewhere), for advanced indexing. */
static Tensor *arange_along(int64_t n, int d, int ndim) {
    int64_t shape[AG_MAX_DIMS];
    for (int k = 0; k < ndim; k++) shape[k] = k == d ? n : 1;
    Tensor *t = tensor_zeros(ndim, shape, false);
    if (!t) return NULL;
    for (int64_t i = 0; i < n; i++) tensor_values(t)[i] = (double)i;
    tensor_set_dtype(t, AG_INT64);
    return t;
}

/* x's elements at index along dim (index of x's dimensions, its values in
 * range): gather without its checks, as indexing with the other
 * dimensions' positions broadcast; NULL with the engine's error. */
static Tensor *take_along(Tensor *x, int dim, Tensor *index) {
    int n = x->ndim;
    AgIndex items[AG_MAX_DIMS] = {{0}};
    Tensor *held[AG_MAX_DIMS] = {NULL};
    bool ok = true;
    for (int d = 0; d < n; d++) {
        held[d] = d == dim ? tensor_retain(index) : arange_along(index->shape[d], d, n);
        ok = ok && held[d];
        items[d] = (AgIndex){.kind = AG_INDEX_TENSOR, .tensor = held[d]};
    }
    Tensor *r = ok ? tensor_index(x, items, n) : NULL;
    for (int d = 0; d < n; d++) tensor_release(held[d]);
    return r;
}

/* The checks of torch.gather(input, dim, index), PyTorch's words. */
static bool gather_checks(Session *s, CallArgs *a, const Tensor *x, int dim, const Tensor *index) {
    const char *rt = s->python ? "RuntimeError: " : "";
    if (index->dtype != AG_INT64)
        return session_fail(s, a->line, a->col, "%sgather(): Expected dtype int64 for index", rt);
    if (index->ndim != x->ndim)
        return session_fail(s, a->line, a->col, "%sIndex tensor must have the same number of "
                            "dimensions as input tensor", rt);
    for (int d = 0; d < x->ndim; d++)
        if (d != dim && index->shape[d] > x->shape[d]) {
            char want[AG_SHAPE_STR_MAX + 8], have[AG_SHAPE_STR_MAX + 8];
            shape_brackets(index, want, sizeof want);
            shape_brackets(x, have, sizeof have);
            return session_fail(s, a->line, a->col, "%sSize does not match at dimension %d "
                                "expected index %s to be smaller than self %s apart from "
                                "dimension %d", rt, d, want, have, dim);
        }
    for (int64_t i = 0; i < index->numel; i++)
        if (tensor_values(index)[i] < 0 || tensor_values(index)[i] >= (double)x->shape[dim])
            return session_fail(s, a->line, a->col, "%sindex %lld is out of bounds for dimension "
                                "%d with size %lld", rt, (long long)tensor_values(index)[i], dim,
                                (long long)x->shape[dim]);
    return true;
}

/* torch.gather(input, dim, index): out[i][j] = input[i][index[i][j]] (dim
 * 1), index of input's dimensions: x[arange, ..., index, ...] with the
 * other dimensions' positions broadcast, recorded as that indexing under
 * PyTorch's name GatherBackward0 (its gradient adds up repeated picks, as
 * gather's scatter_add does). */
static BUILTIN(py_gather) {
    Tensor *x, *index;
    int dim;
    if (!arg_tensor(s, a, 0, &x) || !arg_axis(s, a, 1, &dim) || !arg_tensor(s, a, 2, &index))
        return false;
    int n = x->ndim;
    if (n == 0 || dim < -n || dim >= n)
        return session_fail(s, a->line, a->col, "%sDimension out of range (expected to be in "
                            "range of [%d, %d], but got %d)", s->python ? "IndexError: " : "",
                            n ? -n : -1, n ? n - 1 : 0, dim);
    if (dim < 0) dim += n;
    if (!gather_checks(s, a, x, dim, index)) return false;
    return result_tensor(s, a, named(take_along(x, dim, index), "GatherBackward"), out);
}

/* The order sort and topk put a lane in: by value, nan last (first when
 * descending), ties in the order they stand (a stable sort). */
typedef struct {
    const double *lane;
    int64_t stride;
    bool descending;
} LaneOrder;
static _Thread_local LaneOrder lane_order_now;

static int compare_in_lane(const void *pa, const void *pb) {
    const LaneOrder *o = &lane_order_now;
    int64_t i = *(const int64_t *)pa, j = *(const int64_t *)pb;
    double x = o->lane[i * o->stride], y = o->lane[j * o->stride];
    bool nx = isnan(x), ny = isnan(y);
    int c = nx || ny ? (nx == ny ? 0 : nx ? 1 : -1) : (x < y ? -1 : x > y ? 1 : 0);
    if (o->descending) c = -c;
    return c ? c : (i > j) - (i < j);
}

/* The first k positions of each lane of x along dim in that order, an
 * int64 tensor of x's shape with k along dim; NULL with a message. */
static Tensor *lane_positions(Tensor *x, int dim, bool descending, int64_t k) {
    int64_t size = x->shape[dim], inner = 1, outer = 1;
    for (int d = dim + 1; d < x->ndim; d++) inner *= x->shape[d];
    for (int d = 0; d < dim; d++) outer *= x->shape[d];
    int64_t shape[AG_MAX_DIMS];
    for (int d = 0; d < x->ndim; d++) shape[d] = d == dim ? k : x->shape[d];
    Tensor *r = tensor_zeros(x->ndim, shape, false);
    int64_t *order = r ? malloc((size_t)(size ? size : 1) * sizeof *order) : NULL;
    if (!order) return tensor_release(r), NULL;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            for (int64_t j = 0; j < size; j++) order[j] = j;
            lane_order_now = (LaneOrder){tensor_values(x) + o * size * inner + i, inner, descending};
            qsort(order, (size_t)size, sizeof *order, compare_in_lane);
            for (int64_t j = 0; j < k; j++) tensor_values(r)[(o * k + j) * inner + i] = (double)order[j];
        }
    free(order);
    tensor_set_dtype(r, AG_INT64);
    return r;
}

/* The dim argument i of sort, argsort or topk (-1 when absent), in range. */
static bool lane_dim(Session *s, CallArgs *a, int i, const Tensor *x, int *dim) {
    *dim = -1;
    if (arg_present(a, i) && !arg_axis(s, a, i, dim)) return false;
    int n = x->ndim ? x->ndim : 1;
    if (*dim < -n || *dim >= n)
        return session_fail(s, a->line, a->col, "%sDimension out of range (expected to be in "
                            "range of [%d, %d], but got %d)", s->python ? "IndexError: " : "",
                            -n, n - 1, *dim);
    if (*dim < 0) *dim += n;
    if (x->ndim == 0) return session_fail(s, a->line, a->col, "ag sorts tensors of at least one "
                                          "dimension");
    return true;
}

/* sort's and argsort's arguments: (input, dim=-1, descending=False). */
static bool sort_args(Session *s, CallArgs *a, Tensor **x, int *dim, bool *descending) {
    *descending = false;
    return arg_tensor(s, a, 0, x) && lane_dim(s, a, 1, *x, dim) && arg_bool(s, a, 2, descending);
}

/* torch.sort(input, dim=-1, descending=False): (values, indices), nan
 * last, ties in their order (a stable sort; PyTorch's unstable one agrees
 * on short lanes); values under SortBackward0. */
static BUILTIN(py_sort) {
    Tensor *x;
    int dim;
    bool descending;
    if (!sort_args(s, a, &x, &dim, &descending)) return false;
    Tensor *idx = lane_positions(x, dim, descending, x->shape[dim]);
    Tensor *values = idx ? named(take_along(x, dim, idx), "SortBackward") : NULL;
    return values_indices_result(s, a, "torch.return_types.sort", values, idx, out);
}

/* torch.argsort(input, dim=-1, descending=False): sort's indices. */
static BUILTIN(py_argsort) {
    Tensor *x;
    int dim;
    bool descending;
    return sort_args(s, a, &x, &dim, &descending) &&
           result_tensor(s, a, lane_positions(x, dim, descending, x->shape[dim]), out);
}

/* torch.topk(input, k, dim=-1, largest=True, sorted=True): the k largest
 * (smallest) of each lane, in order, with their indices; values under
 * TopkBackward0. Tied values come in the order they stand, where
 * PyTorch's partial sort may order them otherwise. */
static BUILTIN(py_topk) {
    Tensor *x;
    int64_t k;
    int dim;
    bool largest = true;
    if (!arg_tensor(s, a, 0, &x) || !arg_int(s, a, 1, "k", INT64_MIN + 1, INT64_MAX, &k) ||
        !lane_dim(s, a, 2, x, &dim) || !arg_bool(s, a, 3, &largest))
        return false;
    if (k < 0 || k > x->shape[dim])
        return session_fail(s, a->line, a->col, "%sselected index k out of range",
                            s->python ? "RuntimeError: " : "");
    Tensor *idx = lane_positions(x, dim, largest, k);
    Tensor *values = idx ? named(take_along(x, dim, idx), "TopkBackward") : NULL;
    return values_indices_result(s, a, "torch.return_types.topk", values, idx, out);
}

/* The pieces of x along dim of the given sizes (they sum to its size), as
 * a tuple, each a slice under PyTorch's name for split's Function. */
static bool pieces(Session *s, CallArgs *a, Tensor *x, int dim, const int64_t *sizes, int count,
                   const char *name, Value *out) {
    ValueList *l = value_list_new(count, true);
    if (!l) return session_fail(s, a->line, a->col, "MemoryError");
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    AgIndex items[AG_MAX_DIMS];
    for (int d = 0; d < dim; d++) items[d] = (AgIndex){.kind = AG_INDEX_SLICE, .step = 1};
    int64_t at = 0;
    for (int i = 0; i < count; i++) {
        items[dim] = (AgIndex){.kind = AG_INDEX_SLICE, .start = at, .stop = at + sizes[i],
                               .step = 1, .has_start = true, .has_stop = true};
        Tensor *r = named(tensor_index(x, items, dim + 1), name);
        if (!r) return value_release(out), session_fail(s, a->line, a->col, "%s", ag_error());
        l->items[i] = value_tensor(r);
        at += sizes[i];
    }
    return true;
}

/* Pieces of each along a size (the last smaller; one empty piece of an
 * empty size) through pieces(). */
static bool equal_pieces(Session *s, CallArgs *a, Tensor *x, int dim, int64_t each,
                         const char *name, Value *out) {
    int64_t size = x->shape[dim], count = size == 0 ? 1 : (size + each - 1) / each;
    if (count > INT32_MAX) return session_fail(s, a->line, a->col, "MemoryError");
    int64_t *sizes = malloc((size_t)count * sizeof *sizes);
    if (!sizes) return session_fail(s, a->line, a->col, "MemoryError");
    for (int64_t i = 0; i < count; i++) sizes[i] = size - i * each < each ? size - i * each : each;
    bool ok = pieces(s, a, x, dim, sizes, (int)count, name, out);
    free(sizes);
    return ok;
}

/* The dimension argument i of chunk/split (0 when absent), in range. */
static bool split_dim(Session *s, CallArgs *a, int i, const Tensor *x, int *dim) {
    *dim = 0;
    if (arg_present(a, i) && !arg_axis(s, a, i, dim)) return false;
    int n = x->ndim;
    if (n == 0 || *dim < -n || *dim >= n)
        return session_fail(s, a->line, a->col, "%sDimension out of range (expected to be in "
                            "range of [%d, %d], but got %d)", s->python ? "IndexError: " : "",
                            n ? -n : -1, n ? n - 1 : 0, *dim);
    if (*dim < 0) *dim += n;
    return true;
}

/* x.chunk(chunks, dim=0): pieces of ceil(size / chunks) (fewer pieces when
 * they run out), PyTorch's split under SplitBackward0. */
static BUILTIN(py_chunk) {
    Tensor *x;
    int64_t chunks;
    int dim;
    if (!arg_tensor(s, a, 0, &x) || !arg_int(s, a, 1, "chunks", INT64_MIN + 1, INT64_MAX, &chunks) ||
        !split_dim(s, a, 2, x, &dim))
        return false;
    if (chunks <= 0)
        return session_fail(s, a->line, a->col, "%schunk expects `chunks` to be greater than 0, "
                            "got: %lld", s->python ? "RuntimeError: " : "", (long long)chunks);
    int64_t size = x->shape[dim], each = size / chunks + (size % chunks != 0);
    return equal_pieces(s, a, x, dim, each > 0 ? each : 1, "SplitBackward", out);
}

/* PyTorch's legacy constructors, torch.Tensor(...) and torch.LongTensor(...)
 * and the others: of sizes (ints, or a torch.Size), a tensor of them (zeros,
 * where PyTorch leaves the memory as it was), else of data (a list, a
 * number's list, a tensor: copied), always of the constructor's dtype
 * (torch.Tensor's the default floating one: torch.Tensor([1, 2]) is
 * tensor([1., 2.])). */
static bool legacy_tensor(Session *s, CallArgs *a, AgDtype dtype, Value *out) {
    int n = a->num_rest;
    int64_t shape[AG_MAX_DIMS];
    bool sizes = n <= AG_MAX_DIMS;
    for (int i = 0; i < n && sizes; i++) sizes = value_is_int(&a->rest[i]);
    if (n == 1 && a->rest[0].kind == VAL_SHAPE) { /* torch.Tensor(x.shape) */
        sizes = true;
        n = a->rest[0].as.shape->ndim;
        for (int i = 0; i < n; i++) shape[i] = a->rest[0].as.shape->dims[i];
    } else if (sizes) {
        for (int i = 0; i < n; i++) shape[i] = value_int(&a->rest[i]);
    }
    for (int i = 0; sizes && i < n; i++)
        if (shape[i] < 0)
            return session_fail(s, a->line, a->col, "RuntimeError: Trying to create tensor with "
                                "negative dimension %lld: [%lld]", (long long)shape[i],
                                (long long)shape[i]);
    Tensor *t = NULL, *from = NULL;
    char why[120] = "";
    if (sizes) {
        t = n == 0 ? tensor_zeros(1, (int64_t[]){0}, false) : tensor_zeros(n, shape, false);
    } else if (n == 1 && a->rest[0].kind == VAL_TENSOR && a->rest[0].as.tensor->dtype != dtype) {
        return session_fail(s, a->line, a->col, "TypeError: expected a tensor of %s (got %s)",
                            ag_dtype_name(dtype), ag_dtype_name((AgDtype)a->rest[0].as.tensor->dtype));
    } else if (n == 1) {
        from = value_to_tensor(&a->rest[0], why, sizeof why);
        t = from ? tensor_copy(from) : NULL;
        tensor_release(from);
        if (!t && why[0])
            return session_fail(s, a->line, a->col, "TypeError: new(): data must be a sequence "
                                "(got %s)", value_type_name(&a->rest[0]));
    } else {
        return session_fail(s, a->line, a->col, "TypeError: new() received an invalid "
                            "combination of arguments");
    }
    if (t && t->dtype != dtype && tensor_set_dtype(t, dtype) != 0) {
        tensor_release(t);
        t = NULL;
    }
    return result_tensor(s, a, t, out);
}

static BUILTIN(py_legacy_tensor) { return legacy_tensor(s, a, ag_default_dtype(), out); }
static BUILTIN(py_long_tensor) { return legacy_tensor(s, a, AG_INT64, out); }
static BUILTIN(py_int_tensor) { return legacy_tensor(s, a, AG_INT32, out); }
static BUILTIN(py_float_tensor) { return legacy_tensor(s, a, AG_FLOAT32, out); }
static BUILTIN(py_double_tensor) { return legacy_tensor(s, a, AG_FLOAT64, out); }
static BUILTIN(py_bool_tensor) { return legacy_tensor(s, a, AG_BOOL, out); }

/* torch.autograd.Variable(data, requires_grad=False, volatile=False), from
 * before PyTorch 0.4: data detached (its elements shared), a leaf that
 * requires grad as asked; isinstance(x, Variable) of every tensor. */
static BUILTIN(py_variable) {
    Tensor *x;
    bool requires_grad = false;
    if (!arg_tensor(s, a, 0, &x) || (arg_present(a, 1) && !arg_bool(s, a, 1, &requires_grad)))
        return false;
    Tensor *v = tensor_detach(x);
    if (v && requires_grad && tensor_set_requires_grad(v, true) != 0) {
        tensor_release(v);
        v = NULL;
    }
    return result_tensor(s, a, v, out);
}

/* F.embedding(input, weight): the rows of weight that input's integers
 * name, in input's shape followed by weight's second (EmbeddingBackward0:
 * each row's gradient summed into weight's). */
static BUILTIN(py_embedding) {
    Tensor *ix, *w;
    if (!arg_tensor(s, a, 0, &ix) || !arg_tensor(s, a, 1, &w)) return false;
    if (ix->dtype != AG_INT64 && ix->dtype != AG_INT32)
        return session_fail(s, a->line, a->col, "%sExpected tensor for argument #1 'indices' to "
                            "have one of the following scalar types: Long, Int; but got "
                            "torch.%sTensor instead (while checking arguments for embedding)",
                            s->python ? "RuntimeError: " : "",
                            ag_dtype_scalar_name((AgDtype)ix->dtype));
    if (w->ndim != 2)
        return session_fail(s, a->line, a->col, "%s'weight' must be 2-D",
                            s->python ? "RuntimeError: " : "");
    for (int64_t i = 0; i < ix->numel; i++)
        if (tensor_values(ix)[i] < 0 || tensor_values(ix)[i] >= (double)w->shape[0])
            return session_fail(s, a->line, a->col, "%sindex out of range in self",
                                s->python ? "IndexError: " : "");
    AgIndex item = {.kind = AG_INDEX_TENSOR, .tensor = ix};
    return result_tensor(s, a, named(tensor_index(w, &item, 1), "EmbeddingBackward"), out);
}

/* x rolled by shift along dim: its last shift elements first (a new
 * reference; x retained when the shift is a whole turn). */
static Tensor *rolled(Tensor *x, int64_t shift, int dim) {
    int64_t size = x->shape[dim], k = size ? ((shift % size) + size) % size : 0;
    if (k == 0) return tensor_retain(x);
    AgIndex items[AG_MAX_DIMS];
    for (int d = 0; d < dim; d++) items[d] = (AgIndex){.kind = AG_INDEX_SLICE, .step = 1};
    items[dim] = (AgIndex){.kind = AG_INDEX_SLICE, .start = size - k, .stop = size, .step = 1,
                           .has_start = true, .has_stop = true};
    Tensor *tail = tensor_index(x, items, dim + 1);
    items[dim] = (AgIndex){.kind = AG_INDEX_SLICE, .start = 0, .stop = size - k, .step = 1,
                           .has_start = true, .has_stop = true};
    Tensor *head = tail ? tensor_index(x, items, dim + 1) : NULL;
    Tensor *r = head ? tensor_cat((Tensor *[]){tail, head}, 2, dim) : NULL;
    tensor_release(tail);
    tensor_release(head);
    return r;
}

/* torch.roll(input, shifts, dims=None): the elements moved shifts along
 * each of dims (with none, along the flattened tensor, then reshaped), as
 * the concatenation of two slices (RollBackward0's gradient: the
 * gradient rolled back). */
static BUILTIN(py_roll) {
    Tensor *x;
    if (!arg_tensor(s, a, 0, &x)) return false;
    const Value *sv = &a->arg[1], *dv = &a->arg[2];
    int n = sv->kind == VAL_LIST ? sv->as.list->count : 1;
    int nd = dv->kind == VAL_LIST ? dv->as.list->count : arg_present(a, 2) ? 1 : 0;
    if (n > AG_MAX_DIMS || (nd && nd != n))
        return session_fail(s, a->line, a->col, "%sshifts and dimensions must align. shifts: "
                            "%d, dims:%d", s->python ? "RuntimeError: " : "", n, nd);
    int64_t shifts[AG_MAX_DIMS];
    int dims[AG_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        const Value *v = sv->kind == VAL_LIST ? &sv->as.list->items[i] : sv;
        const Value *d = dv->kind == VAL_LIST ? &dv->as.list->items[i] : dv;
        if (!value_is_int(v) || (nd && !value_is_int(d)))
            return arg_error(s, a, 1, "shifts and dims must be ints");
        shifts[i] = value_int(v);
        dims[i] = nd ? (int)value_int(d) : 0;
        if (nd && (dims[i] < -x->ndim || dims[i] >= x->ndim))
            return session_fail(s, a->line, a->col, "%sDimension out of range (expected to be in "
                                "range of [%d, %d], but got %d)", s->python ? "IndexError: " : "",
                                -x->ndim, x->ndim - 1, dims[i]);
        if (dims[i] < 0) dims[i] += x->ndim;
    }
    if (!nd && n != 1)
        return session_fail(s, a->line, a->col, "%sshifts and dimensions must align. shifts: %d, "
                            "dims:0", s->python ? "RuntimeError: " : "", n);
    Tensor *r = nd ? tensor_retain(x) : tensor_flatten(x, 0, -1);
    for (int i = 0; r && i < n; i++) {
        Tensor *next = rolled(r, shifts[i], dims[i]);
        tensor_release(r);
        r = next;
    }
    if (r && !nd) {
        Tensor *back = tensor_reshape(r, x->ndim, x->shape);
        tensor_release(r);
        r = back;
    }
    return result_tensor(s, a, named(r, "RollBackward"), out);
}

/* x.narrow(dim, start, length): x[..., start:start + length] along dim
 * (a negative start counts from the end), PyTorch's checks and words. */
static BUILTIN(py_narrow) {
    Tensor *x;
    int dim;
    int64_t start, length;
    if (!arg_tensor(s, a, 0, &x) || !split_dim(s, a, 1, x, &dim) ||
        !arg_int(s, a, 2, "start", INT64_MIN / 2, INT64_MAX / 2, &start) ||
        !arg_int(s, a, 3, "length", INT64_MIN / 2, INT64_MAX / 2, &length))
        return false;
    const char *rt = s->python ? "RuntimeError: " : "";
    int64_t size = x->shape[dim];
    if (start < -size || start >= size) /* PyTorch 1.13 wraps start as a dimension */
        return session_fail(s, a->line, a->col, "%sDimension out of range (expected to be in "
                            "range of [%lld, %lld], but got %lld)", s->python ? "IndexError: " : "",
                            (long long)-size, (long long)size - 1, (long long)start);
    if (start < 0) start += size;
    if (length < 0 || start + length > size) /* PyTorch 1.13 words a negative length so too */
        return session_fail(s, a->line, a->col, "%sstart (%lld) + length (%lld) exceeds "
                            "dimension size (%lld).", rt, (long long)start, (long long)length,
                            (long long)size);
    AgIndex items[AG_MAX_DIMS];
    for (int d = 0; d < dim; d++) items[d] = (AgIndex){.kind = AG_INDEX_SLICE, .step = 1};
    items[dim] = (AgIndex){.kind = AG_INDEX_SLICE, .start = start, .stop = start + length,
                           .step = 1, .has_start = true, .has_stop = true};
    return result_tensor(s, a, tensor_index(x, items, dim + 1), out);
}

/* x.split(split_size_or_sections, dim=0): pieces of that size (the last
 * smaller), or of the sizes listed (SplitWithSizesBackward0). */
static BUILTIN(py_split) {
    Tensor *x;
    int dim;
    if (!arg_tensor(s, a, 0, &x) || !split_dim(s, a, 2, x, &dim)) return false;
    const char *rt = s->python ? "RuntimeError: " : "";
    int64_t size = x->shape[dim], sizes[MAX_ARGS];
    int count = 0;
    const Value *v = &a->arg[1];
    if (v->kind == VAL_LIST) {
        int64_t sum = 0;
        for (int i = 0; i < v->as.list->count; i++) {
            const Value *it = &v->as.list->items[i];
            if (it->kind != VAL_INT || count == MAX_ARGS || it->as.integer < 0)
                return session_fail(s, a->line, a->col, "%ssplit_with_sizes expects a list of "
                                    "at most %d non-negative ints", rt, MAX_ARGS);
            sizes[count++] = it->as.integer;
            sum += it->as.integer;
        }
        if (sum != size) {
            StrBuf text;
            strbuf_init(&text);
            value_format(&text, v, &s->print, true);
            bool failed = session_fail(s, a->line, a->col, "%ssplit_with_sizes expects "
                                       "split_sizes to sum exactly to %lld (input tensor's size "
                                       "at dimension %d), but got split_sizes=%s", rt,
                                       (long long)size, dim, text.data);
            strbuf_free(&text);
            return failed;
        }
        return pieces(s, a, x, dim, sizes, count, "SplitWithSizesBackward", out);
    }
    int64_t each;
    if (!arg_int(s, a, 1, "split_size", 0, INT64_MAX, &each)) return false;
    if (each == 0 && size != 0)
        return session_fail(s, a->line, a->col, "%ssplit_size can only be 0 if dimension size is "
                            "0, but got dimension size of %lld", rt, (long long)size);
    return equal_pieces(s, a, x, dim, each > 0 ? each : 1, "SplitBackward", out);
}

/* x.repeat(*sizes): x tiled sizes[d] times along each dimension (x's shape
 * padded with leading 1s to as many): x viewed as (1, s0, 1, s1, ...),
 * expanded to (r0, s0, r1, s1, ...) and reshaped to (r0 * s0, ...), the
 * last under PyTorch's name, RepeatBackward0. */
static BUILTIN(py_repeat) {
    Tensor *x;
    int n;
    int64_t reps[AG_MAX_DIMS];
    if (!arg_tensor(s, a, 0, &x) || !arg_dims(s, a, false, &n, reps)) return false;
    if (n < x->ndim)
        return session_fail(s, a->line, a->col, "%sNumber of dimensions of repeat dims can not "
                            "be smaller than number of dimensions of tensor",
                            s->python ? "RuntimeError: " : "");
    if (2 * n > AG_MAX_DIMS)
        return session_fail(s, a->line, a->col, "ag repeats tensors of at most %d dimensions",
                            AG_MAX_DIMS / 2);
    int64_t pair[AG_MAX_DIMS], wide[AG_MAX_DIMS], shape[AG_MAX_DIMS];
    for (int d = 0; d < n; d++) {
        int64_t size = d < n - x->ndim ? 1 : x->shape[d - (n - x->ndim)];
        pair[2 * d] = 1, pair[2 * d + 1] = size;
        wide[2 * d] = reps[d], wide[2 * d + 1] = size;
        shape[d] = reps[d] * size;
    }
    Tensor *v = tensor_reshape(x, 2 * n, pair);
    Tensor *e = v ? tensor_expand(v, 2 * n, wide) : NULL;
    Tensor *r = e ? tensor_reshape(e, n, shape) : NULL;
    tensor_release(v);
    tensor_release(e);
    return result_tensor(s, a, named(r, "RepeatBackward"), out);
}

/* torch.flip(x, dims): x reversed along each of dims, as indexing with
 * reversed positions under PyTorch's name, FlipBackward0. */
static BUILTIN(py_flip) {
    Tensor *x;
    int count;
    int64_t dims[AG_MAX_DIMS];
    if (!arg_tensor(s, a, 0, &x) || !arg_axis_list(s, a, &count, dims)) return false;
    int n = x->ndim;
    Tensor *held[AG_MAX_DIMS] = {NULL}; /* the reversed positions of each flipped dim */
    bool ok = true;
    for (int i = 0; ok && i < count; i++) {
        int64_t d = dims[i];
        if (d < -n || d >= n || n == 0)
            ok = session_fail(s, a->line, a->col, "%sDimension out of range (expected to be in "
                              "range of [%d, %d], but got %lld)", s->python ? "IndexError: " : "",
                              n ? -n : -1, n ? n - 1 : 0, (long long)d);
        else if (held[d < 0 ? d + n : d])
            ok = session_fail(s, a->line, a->col, "%sdim %lld appears multiple times in the list "
                              "of dims", s->python ? "RuntimeError: " : "", (long long)d);
        else {
            int k = (int)(d < 0 ? d + n : d);
            held[k] = arange_along(x->shape[k], 0, 1);
            ok = held[k] || session_fail(s, a->line, a->col, "%s", ag_error());
            for (int64_t j = 0; ok && j < x->shape[k]; j++)
                tensor_values(held[k])[j] = (double)(x->shape[k] - 1 - j);
        }
    }
    /* one reversed axis at a time: several index tensors would pair up */
    Tensor *r = ok ? tensor_retain(x) : NULL;
    for (int d = 0; r && d < n; d++) {
        if (!held[d]) continue;
        AgIndex one[AG_MAX_DIMS]; /* x[:, ..., positions] */
        for (int k = 0; k < d; k++) one[k] = (AgIndex){.kind = AG_INDEX_SLICE, .step = 1};
        one[d] = (AgIndex){.kind = AG_INDEX_TENSOR, .tensor = held[d]};
        Tensor *next = tensor_index(r, one, d + 1);
        tensor_release(r);
        r = next;
    }
    for (int d = 0; d < n; d++) tensor_release(held[d]);
    if (!ok) return false;
    if (r && r == x) { /* no dims: x itself, as a new tensor */
        tensor_release(r);
        r = tensor_copy(x);
    }
    return result_tensor(s, a, named(r, "FlipBackward"), out);
}

/* torch.meshgrid(*tensors, indexing='ij'): each 1-D tensor viewed along
 * its own axis and expanded to the grid (ExpandBackward0, as PyTorch's);
 * indexing='xy' swaps the first two axes of the grid. */
static BUILTIN(py_meshgrid) {
    const Value *items = a->rest;
    int n = a->num_rest;
    if (n == 1 && a->rest[0].kind == VAL_LIST) { /* meshgrid([a, b]) */
        n = a->rest[0].as.list->count;
        items = a->rest[0].as.list->items;
    }
    const char *how = "ij";
    size_t how_len = 2;
    int at = arg_index(a, "indexing");
    if (at >= 0 && arg_present(a, at) && !arg_string(s, a, at, &how, &how_len)) return false;
    bool xy = how_len == 2 && memcmp(how, "xy", 2) == 0;
    if (!xy && !(how_len == 2 && memcmp(how, "ij", 2) == 0))
        return session_fail(s, a->line, a->col, "%storch.meshgrid: indexing must be one of "
                            "\"xy\" or \"ij\", but received: %.*s",
                            s->python ? "ValueError: " : "", (int)how_len, how);
    if (n < 1 || n > AG_MAX_DIMS)
        return session_fail(s, a->line, a->col, "meshgrid takes 1 to %d tensors", AG_MAX_DIMS);
    int64_t grid[AG_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        if (items[i].kind != VAL_TENSOR || items[i].as.tensor->ndim > 1) {
            char shape[AG_SHAPE_STR_MAX + 8] = "not a tensor";
            if (items[i].kind == VAL_TENSOR) shape_brackets(items[i].as.tensor, shape, sizeof shape);
            return session_fail(s, a->line, a->col, "%storch.meshgrid: Expected 0D or 1D tensor "
                                "in the tensor list but got: a tensor of shape %s",
                                s->python ? "RuntimeError: " : "", shape);
        }
        grid[i] = items[i].as.tensor->numel;
    }
    int axis[AG_MAX_DIMS] = {0}; /* all set below: gcc -g cannot tell */
    for (int i = 0; i < n; i++) axis[i] = xy && n >= 2 && i < 2 ? 1 - i : i;
    int64_t shape[AG_MAX_DIMS];
    for (int i = 0; i < n; i++) shape[axis[i]] = grid[i];
    ValueList *l = value_list_new(n, true);
    if (!l) return session_fail(s, a->line, a->col, "MemoryError");
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    for (int i = 0; i < n; i++) {
        int64_t view[AG_MAX_DIMS];
        for (int k = 0; k < n; k++) view[k] = k == axis[i] ? grid[i] : 1;
        Tensor *v = tensor_reshape(items[i].as.tensor, n, view);
        Tensor *e = v ? tensor_expand(v, n, shape) : NULL;
        tensor_release(v);
        if (!e) return value_release(out), session_fail(s, a->line, a->col, "%s", ag_error());
        l->items[i] = value_tensor(e);
    }
    return true;
}

/* torch.diag(x, diagonal=0): of a vector, the square matrix with it on the
 * diagonal-th diagonal (where(on the diagonal, x, 0)); of a matrix, that
 * diagonal (indexing); both under PyTorch's name, DiagBackward0. */
static BUILTIN(py_diag) {
    Tensor *x;
    int64_t k = 0;
    if (!arg_tensor(s, a, 0, &x) ||
        (arg_present(a, 1) && !arg_int(s, a, 1, "diagonal", -INT32_MAX, INT32_MAX, &k)))
        return false;
    if (x->ndim != 1 && x->ndim != 2)
        return session_fail(s, a->line, a->col, "%smatrix or a vector expected",
                            s->python ? "RuntimeError: " : "");
    Tensor *r = NULL;
    if (x->ndim == 1) { /* (i, i + k) holds x[min(i, i + k)] */
        int64_t n = x->shape[0] + (k < 0 ? -k : k);
        Tensor *mask = tensor_zeros(2, (int64_t[]){n, n}, false);
        Tensor *pos = mask ? tensor_zeros(2, (int64_t[]){n, n}, false) : NULL;
        for (int64_t i = 0; pos && i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                bool on = j - i == k;
                tensor_values(mask)[i * n + j] = on;
                tensor_values(pos)[i * n + j] = on ? (double)(k >= 0 ? i : j) : 0;
            }
        if (pos) tensor_set_dtype(mask, AG_BOOL), tensor_set_dtype(pos, AG_INT64);
        AgIndex item = {.kind = AG_INDEX_TENSOR, .tensor = pos};
        Tensor *spread = pos ? tensor_index(x, &item, 1) : NULL;
        Tensor *zero = spread ? tensor_number(0, (AgDtype)x->dtype) : NULL;
        r = zero ? tensor_where(mask, spread, zero) : NULL;
        tensor_release(zero), tensor_release(spread), tensor_release(pos), tensor_release(mask);
    } else {
        int64_t rows = x->shape[0], cols = x->shape[1];
        int64_t first_row = k < 0 ? -k : 0, first_col = k > 0 ? k : 0;
        int64_t len = rows - first_row < cols - first_col ? rows - first_row : cols - first_col;
        if (len < 0) len = 0;
        Tensor *ri = arange_along(len, 0, 1), *ci = ri ? arange_along(len, 0, 1) : NULL;
        for (int64_t i = 0; ci && i < len; i++)
            tensor_values(ri)[i] = (double)(first_row + i), tensor_values(ci)[i] = (double)(first_col + i);
        AgIndex items[2] = {{.kind = AG_INDEX_TENSOR, .tensor = ri},
                            {.kind = AG_INDEX_TENSOR, .tensor = ci}};
        r = ci ? tensor_index(x, items, 2) : NULL;
        tensor_release(ri), tensor_release(ci);
    }
    return result_tensor(s, a, named(r, "DiagBackward"), out);
}


/* torch.square(x): PyTorch's pow(x, 2) (PowBackward0, x ** 2's bits). */
static BUILTIN(py_square) {
    Tensor *x;
    if (!arg_tensor(s, a, 0, &x)) return false;
    Tensor *two = tensor_number(2, AG_INT64);
    Tensor *r = two ? tensor_pow(x, two) : NULL;
    tensor_release(two);
    return result_tensor(s, a, r, out);
}

/* F.normalize(input, p=2.0, dim=1, eps=1e-12): PyTorch's input /
 * norm(input, p, dim, keepdim).clamp_min(eps).expand_as(input). */
static BUILTIN(py_normalize) {
    Tensor *x;
    double p = 2.0, eps = 1e-12;
    int dim = 1;
    if (!arg_tensor(s, a, 0, &x) || (arg_present(a, 1) && !arg_number(s, a, 1, &p)) ||
        (arg_present(a, 2) && !arg_axis(s, a, 2, &dim)) ||
        (arg_present(a, 3) && !arg_number(s, a, 3, &eps)))
        return false;
    int n = x->ndim ? x->ndim : 1;
    if (dim < -n || dim >= n)
        return session_fail(s, a->line, a->col, "%sDimension out of range (expected to be in "
                            "range of [%d, %d], but got %d)", s->python ? "IndexError: " : "",
                            -n, n - 1, dim);
    int64_t d = dim < 0 ? dim + n : dim;
    Tensor *norm = tensor_norm_dims(x, p, &d, 1, true);
    Tensor *floor = norm ? tensor_number(eps, AG_FLOAT64) : NULL;
    Tensor *denom = floor ? tensor_clamp(norm, floor, NULL) : NULL;
    Tensor *wide = denom ? tensor_expand(denom, x->ndim, x->shape) : NULL;
    Tensor *r = wide ? tensor_div(x, wide) : NULL;
    tensor_release(norm), tensor_release(floor), tensor_release(denom), tensor_release(wide);
    return result_tensor(s, a, r, out);
}

/* F.pad(input, pad, mode='constant', value=0.0): pad = (left, right) of
 * the last dimension, then (top, bottom) of the one before, ...: input
 * written into a tensor of value, recorded as that write under PyTorch's
 * name, ConstantPadNdBackward0. Constant mode and pads of 0 or more only. */
static BUILTIN(py_pad) {
    Tensor *x;
    int count;
    int64_t pad[2 * AG_MAX_DIMS];
    double value = 0.0;
    const char *mode = "constant";
    size_t mode_len = 8;
    const Value *pv = &a->arg[1];
    if (!arg_tensor(s, a, 0, &x)) return false;
    if (pv->kind != VAL_LIST || pv->as.list->count > 2 * AG_MAX_DIMS)
        return arg_error(s, a, 1, "pad must be a tuple of ints, two per padded dimension");
    count = pv->as.list->count;
    for (int i = 0; i < count; i++) {
        const Value *it = &pv->as.list->items[i];
        if (it->kind != VAL_INT) return arg_error(s, a, 1, "pad must be a tuple of ints");
        pad[i] = it->as.integer;
    }
    if (arg_present(a, 2) && !arg_string(s, a, 2, &mode, &mode_len)) return false;
    if (arg_present(a, 3) && a->arg[3].kind != VAL_NONE && !arg_number(s, a, 3, &value)) return false;
    const char *rt = s->python ? "RuntimeError: " : "";
    if (!(mode_len == 8 && memcmp(mode, "constant", 8) == 0))
        return session_fail(s, a->line, a->col, "ag pads in mode 'constant' only, not '%.*s'",
                            (int)mode_len, mode);
    if (count % 2)
        return session_fail(s, a->line, a->col, "%sPadding length must be divisible by 2", rt);
    if (count / 2 > x->ndim)
        return session_fail(s, a->line, a->col, "%sPadding length too large", rt);
    int64_t shape[AG_MAX_DIMS];
    AgIndex items[AG_MAX_DIMS];
    for (int d = 0; d < x->ndim; d++) {
        int k = x->ndim - 1 - d; /* pad[2k], pad[2k + 1] pad dimension d when k < count / 2 */
        int64_t lo = k < count / 2 ? pad[2 * k] : 0, hi = k < count / 2 ? pad[2 * k + 1] : 0;
        if (lo < 0 || hi < 0)
            return session_fail(s, a->line, a->col, "ag pads by 0 or more, not by %lld",
                                (long long)(lo < 0 ? lo : hi));
        shape[d] = x->shape[d] + lo + hi;
        items[d] = (AgIndex){.kind = AG_INDEX_SLICE, .start = lo, .stop = lo + x->shape[d],
                             .step = 1, .has_start = true, .has_stop = true};
    }
    Tensor *base = tensor_full(value, x->ndim, shape, false);
    if (base) tensor_set_dtype(base, (AgDtype)x->dtype);
    Tensor *r = base ? tensor_index_put(base, items, x->ndim, x) : NULL;
    tensor_release(base);
    return result_tensor(s, a, named(r, "ConstantPadNdBackward"), out);
}

/* torch.bmm(batch1, batch2): matmul of two 3-D tensors with the same
 * batch, with PyTorch's checks and words. */
static BUILTIN(py_bmm) {
    Tensor *x, *y;
    if (!arg_tensor(s, a, 0, &x) || !arg_tensor(s, a, 1, &y)) return false;
    const char *type = s->python ? "RuntimeError: " : "";
    if (x->ndim != 3 || y->ndim != 3)
        return session_fail(s, a->line, a->col, "%sbatch%d must be a 3D tensor", type,
                            x->ndim != 3 ? 1 : 2);
    if (y->shape[0] != x->shape[0] || y->shape[1] != x->shape[2])
        return session_fail(s, a->line, a->col, "%sExpected size for first two dimensions of "
                            "batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld].", type,
                            (long long)x->shape[0], (long long)x->shape[2],
                            (long long)y->shape[0], (long long)y->shape[1]);
    return result_tensor(s, a, named(tensor_matmul(x, y), "BmmBackward"), out);
}

/* x.contiguous(): x itself. Every tensor of ag is laid out as PyTorch's
 * contiguous ones (a transpose is a copy), and PyTorch returns a
 * contiguous tensor itself. */
static BUILTIN(py_contiguous) {
    Tensor *x;
    if (!arg_tensor(s, a, 0, &x)) return false;
    *out = value_tensor(tensor_retain(x));
    return true;
}

/* x.size(dim=None): x.shape, or its size along dim (an int). */
static BUILTIN(py_size) {
    Tensor *x;
    if (!arg_tensor(s, a, 0, &x)) return false;
    if (!arg_present(a, 1)) {
        return value_shape(x->ndim, x->shape, out) ||
               session_fail(s, a->line, a->col, "MemoryError");
    }
    int dim, n = x->ndim;
    if (!arg_axis(s, a, 1, &dim)) return false;
    if (dim < -(n ? n : 1) || dim >= (n ? n : 1))
        return session_fail(s, a->line, a->col, "%sDimension out of range (expected to be in "
                            "range of [%d, %d], but got %d)", s->python ? "IndexError: " : "",
                            n ? -n : -1, n ? n - 1 : 0, dim);
    if (n == 0) /* PyTorch: a 0-d tensor has no dimension to size */
        return session_fail(s, a->line, a->col, "%sDimension specified as %d but tensor has no "
                            "dimensions", s->python ? "IndexError: " : "", dim);
    *out = int_value(x->shape[dim < 0 ? dim + n : dim]);
    return true;
}

/* x.dim(): the number of dimensions (x.ndim). */
static BUILTIN(py_dim) {
    Tensor *x;
    if (!arg_tensor(s, a, 0, &x)) return false;
    *out = int_value(x->ndim);
    return true;
}

/* torch.equal(a, b): the same shape and the same values (nan never equal). */
static BUILTIN(py_equal) {
    Tensor *x, *y;
    if (!arg_tensor(s, a, 0, &x) || !arg_tensor(s, a, 1, &y)) return false;
    bool same = x->ndim == y->ndim && x->numel == y->numel &&
                memcmp(x->shape, y->shape, (size_t)x->ndim * sizeof *x->shape) == 0;
    for (int64_t i = 0; same && i < x->numel; i++) same = tensor_values(x)[i] == tensor_values(y)[i];
    *out = value_bool(same);
    return true;
}

/* x.view_as(other), x.reshape_as(other): x reshaped to other's shape
 * (the view and reshape ops: their rules, their gradient). */
static BUILTIN(py_view_as) {
    Tensor *x, *other;
    if (!arg_tensor(s, a, 0, &x) || !arg_tensor(s, a, 1, &other)) return false;
    return result_tensor(s, a, tensor_view(x, other->ndim, other->shape), out);
}

/* x.expand_as(other): x.expand(other.size()). */
static BUILTIN(py_expand_as) {
    Tensor *x, *other;
    if (!arg_tensor(s, a, 0, &x) || !arg_tensor(s, a, 1, &other)) return false;
    return result_tensor(s, a, tensor_expand(x, other->ndim, other->shape), out);
}

/* x.is_contiguous(): True, every tensor of ag being laid out so (see
 * py_contiguous; PyTorch says False of a transposed view). */
static BUILTIN(py_is_contiguous) {
    Tensor *x;
    if (!arg_tensor(s, a, 0, &x)) return false;
    *out = value_bool(true);
    return true;
}

static BUILTIN(py_reshape_as) {
    Tensor *x, *other;
    if (!arg_tensor(s, a, 0, &x) || !arg_tensor(s, a, 1, &other)) return false;
    return result_tensor(s, a, tensor_reshape(x, other->ndim, other->shape), out);
}

/* vars(obj): the object's own attributes, the dict itself (a change
 * through it is the object's), as Python's __dict__. */
static BUILTIN(py_vars) {
    const Value *v = &a->arg[0];
    if (v->kind != VAL_INSTANCE)
        return arg_error(s, a, 0, "TypeError: vars() argument must have __dict__ attribute");
    Value attrs = {.kind = VAL_DICT, .as.dict = v->as.object->attrs};
    return value_copy(&attrs, out);
}

/* dir's order: the names' bytes (Python's code points, for UTF-8). */
static int compare_names(const void *x, const void *y) {
    const Value *a = x, *b = y;
    size_t n = a->as.string.length < b->as.string.length ? a->as.string.length : b->as.string.length;
    int c = memcmp(a->as.string.text, b->as.string.text, n);
    return c ? c : (a->as.string.length > b->as.string.length) - (a->as.string.length < b->as.string.length);
}

/* Adds the string keys of d to names (a set). */
static bool add_names(ValueDict *names, const ValueDict *d) {
    for (int64_t i = 0; d && i < d->count; i++) {
        const Value *k = &d->entries[i].key;
        Value key;
        if (k->kind == VAL_STRING && (!value_copy(k, &key) || !value_dict_set(names, key, value_none())))
            return false;
    }
    return true;
}

/* dir(obj) of an object or a class: sorted, its own attributes, its class's
 * and the bases', and those every class of CPython 3.11 has from object. */
static BUILTIN(py_dir) {
    static const char *const from_object[] = {
        "__class__", "__delattr__", "__dict__", "__dir__", "__doc__", "__eq__", "__format__",
        "__ge__", "__getattribute__", "__getstate__", "__gt__", "__hash__", "__init__",
        "__init_subclass__", "__le__", "__lt__", "__module__", "__ne__", "__new__",
        "__reduce__", "__reduce_ex__", "__repr__", "__setattr__", "__sizeof__", "__str__",
        "__subclasshook__", "__weakref__"};
    const Value *v = &a->arg[0];
    if (!arg_present(a, 0) || (v->kind != VAL_INSTANCE && v->kind != VAL_CLASS))
        return session_fail(s, a->line, a->col, "NotImplementedError: ag's dir() lists the "
                            "attributes of an object or a class%s", arg_present(a, 0) ? "" :
                            " (not the names in scope)");
    ValueDict *names = value_dict_new(true);
    bool ok = names != NULL;
    for (size_t i = 0; ok && i < sizeof from_object / sizeof from_object[0]; i++) {
        Value key;
        ok = value_string(from_object[i], strlen(from_object[i]), &key) &&
             value_dict_set(names, key, value_none());
    }
    if (ok && v->kind == VAL_INSTANCE) ok = add_names(names, v->as.object->attrs);
    for (const ClassObj *c = v->kind == VAL_INSTANCE ? v->as.object->cls : v->as.cls; ok && c;
         c = c->base)
        ok = add_names(names, c->attrs);
    ValueList *l = ok ? value_list_new((int)names->count, false) : NULL;
    for (int64_t i = 0; l && i < names->count; i++) value_copy(&names->entries[i].key, &l->items[i]);
    if (l) qsort(l->items, (size_t)l->count, sizeof *l->items, compare_names);
    Value held = {.kind = VAL_DICT, .as.dict = names};
    if (names) value_release(&held);
    if (!l) return session_fail(s, a->line, a->col, "MemoryError");
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    return true;
}

/* Whether a value of a built-in kind has the attribute name: the container
 * protocol's methods (len, indexing, iteration, in) of lists, tuples,
 * dicts, strings, sizes and tensors, __call__ of what can be called, and a
 * tensor's attributes and methods. */
static bool builtin_has(const Value *v, const char *name, size_t n) {
    static const char *const container[] = {"__len__", "__getitem__", "__iter__", "__contains__"};
    static const char *const tensor_attrs[] = {"shape", "grad", "dtype", "requires_grad", "data",
                                               "T", "ndim", "device", "grad_fn", "is_leaf"};
    bool sized = v->kind == VAL_LIST || v->kind == VAL_DICT || v->kind == VAL_STRING ||
                 v->kind == VAL_SHAPE || v->kind == VAL_TENSOR;
    for (size_t i = 0; sized && i < sizeof container / sizeof container[0]; i++)
        if (strlen(container[i]) == n && memcmp(container[i], name, n) == 0) return true;
    if (v->kind != VAL_INSTANCE && value_is_callable(v) && n == 8 && memcmp(name, "__call__", 8) == 0) return true;
    if (v->kind != VAL_TENSOR) return false;
    for (size_t i = 0; i < sizeof tensor_attrs / sizeof tensor_attrs[0]; i++)
        if (strlen(tensor_attrs[i]) == n && memcmp(tensor_attrs[i], name, n) == 0) return true;
    const Builtin *b = builtin_method(VAL_TENSOR, name, n);
    if (!b) b = builtin_find(name, n);
    return b && (b->self_kind == VAL_TENSOR || (b->flags & BI_METHOD));
}

static BUILTIN(py_hasattr) {
    const char *name;
    size_t n;
    Value v;
    if (!arg_string(s, a, 1, &name, &n)) return false;
    bool missing = false;
    if (object_like(&a->arg[0]) && s->attr_value) { /* Python's: hasattr catches AttributeError only */
        bool has = s->attr_value(s, a->line, a->col, &a->arg[0], name, n, &v);
        if (!has && !attribute_error(s)) return false;
        if (has) value_release(&v);
        else session_forget_error(s);
        *out = value_bool(has || builtin_has(&a->arg[0], name, n)); /* [].__len__ */
        return true;
    }
    bool has = a->arg[0].kind == VAL_MODULE
                   ? s->module_value(s, a->line, a->col, a->arg[0].as.module, name, n, &v, &missing)
                   : value_getattr(&a->arg[0], name, n, &v);
    if (!has && !missing && a->arg[0].kind == VAL_MODULE) return false; /* loading it failed */
    if (has) value_release(&v);
    *out = value_bool(has || builtin_has(&a->arg[0], name, n));
    return true;
}

/* torch.is_tensor(obj) */
static BUILTIN(py_is_tensor) {
    (void)s;
    *out = value_bool(a->arg[0].kind == VAL_TENSOR);
    return true;
}

/* torch.Size's numel(): the product of its sizes. */
static BUILTIN(py_size_numel) {
    (void)s;
    int64_t n = 1;
    for (int i = 0; i < a->arg[0].as.shape->ndim; i++) n *= a->arg[0].as.shape->dims[i];
    *out = (Value){.kind = VAL_INT, .as.integer = n};
    return true;
}

/* delattr(obj, name): del obj.name */
static BUILTIN(py_delattr) {
    (void)out;
    const char *name;
    size_t n;
    if (!arg_string(s, a, 1, &name, &n)) return false;
    if (value_delattr(&a->arg[0], name, n)) return true;
    return session_fail(s, a->line, a->col, "AttributeError: '%s' object has no attribute '%.*s'",
                        value_type_name(&a->arg[0]), (int)n, name);
}

/* callable(obj): functions, methods, builtins, classes, and objects whose
 * class has __call__. */
static BUILTIN(py_callable) {
    (void)s;
    const Value *v = &a->arg[0];
    bool yes = v->kind == VAL_FUNCTION || v->kind == VAL_BUILTIN || v->kind == VAL_METHOD ||
               v->kind == VAL_CLASS ||
               (v->kind == VAL_INSTANCE && value_class_lookup(v->as.object->cls, "__call__", 8));
    *out = value_bool(yes);
    return true;
}

/* issubclass(cls, classinfo): cls or one of its bases is classinfo (or one
 * in a tuple of them); every class is object's. */
static BUILTIN(py_issubclass) {
    const Value *c = &a->arg[0], *of = &a->arg[1];
    if (c->kind != VAL_CLASS && c->kind != VAL_BUILTIN)
        return arg_error(s, a, 0, "TypeError: issubclass() arg 1 must be a class");
    bool yes = false;
    int n = of->kind == VAL_LIST ? of->as.list->count : 1;
    for (int i = 0; i < n && !yes; i++) {
        const Value *t = of->kind == VAL_LIST ? &of->as.list->items[i] : of;
        if (t->kind == VAL_CLASS && !t->as.cls->base && strcmp(t->as.cls->name, "object") == 0)
            yes = true; /* builtins' object */
        else if (t->kind == VAL_CLASS && c->kind == VAL_CLASS)
            for (const ClassObj *k = c->as.cls; k && !yes; k = k->base) yes = k == t->as.cls;
        else if (t->kind == VAL_BUILTIN && c->kind == VAL_BUILTIN)
            yes = strcmp(t->as.builtin.name, c->as.builtin.name) == 0 ||
                  (strcmp(c->as.builtin.name, "bool") == 0 && strcmp(t->as.builtin.name, "int") == 0);
        else if (t->kind != VAL_CLASS && t->kind != VAL_BUILTIN)
            return arg_error(s, a, 1, "TypeError: issubclass() arg 2 must be a class, a tuple of "
                             "classes, or a union");
    }
    *out = value_bool(yes);
    return true;
}

/* format(value, format_spec=''): the value by the format-spec mini-language. */
static BUILTIN(py_format) {
    const char *spec = "";
    size_t n = 0;
    if (arg_present(a, 1) && !arg_string(s, a, 1, &spec, &n)) return false;
    StrBuf text, repr, sb;
    strbuf_init(&text);
    strbuf_init(&repr);
    strbuf_init(&sb);
    PyfmtArg p = value_pyfmt_arg(&a->arg[0], &s->print, &text, &repr);
    char err[PYFMT_ERR_MAX];
    bool ok = pyfmt_spec(&sb, &p, spec, n, err, sizeof err);
    strbuf_free(&text);
    strbuf_free(&repr);
    if (!ok) {
        strbuf_free(&sb);
        return session_fail(s, a->line, a->col, "%s", err);
    }
    return string_result(s, a, &sb, out);
}

static BUILTIN(py_setattr) {
    (void)out;
    const char *name;
    size_t n;
    Value v;
    if (!arg_string(s, a, 1, &name, &n)) return false;
    value_copy(&a->arg[2], &v);
    if (a->arg[0].kind == VAL_MODULE)
        return session_set_module_attr(s, a->line, a->col, a->arg[0].as.module, name, n, v);
    return value_setattr(&a->arg[0], name, n, NULL, v) ||
           session_fail(s, a->line, a->col, "AttributeError: '%s' object attributes cannot be "
                        "set", value_type_name(&a->arg[0]));
}

/* ======================================================================
 * The rows
 * ====================================================================== */

#define PY(name, sig, help, fn, flags) {name, sig, help, NULL, fn, flags, VAL_VOID, NULL}
#define METHOD(kind, name, sig, help, fn) {name, sig, help, NULL, fn, 0, kind, NULL}

const Builtin python_builtins[] = {
    PY("len", "len(obj)", "Python's len: items of a list, tuple, dict, set, str or a tensor's "
       "first axis (an int)", py_len, BI_PY_VARIANT),
    PY("sum", "sum(iterable, start=0)", "Python's sum: start + each item, left to right", py_sum,
       BI_PY_VARIANT),
    PY("max", "max(*args, key=None, default=None)", "Python's max: of one iterable or of the "
       "arguments", py_max, BI_PY_VARIANT),
    PY("min", "min(*args, key=None, default=None)", "Python's min: of one iterable or of the "
       "arguments", py_min, BI_PY_VARIANT),
    PY("abs", "abs(x)", "Python's abs of a number", py_abs, BI_PY_VARIANT),
    PY("pow", "pow(base, exp, mod=None)", "Python's pow: base ** exp, or (base ** exp) % mod of "
       "ints", py_pow, BI_PY_VARIANT),
    PY("round", "round(number, ndigits=None)", "Python's round: an int (halves to even), or a "
       "float to ndigits", py_round, BI_PY_VARIANT),
    PY("range", "range(*args)", "Python's range, as a list of ints", py_range, BI_PY_VARIANT),
    PY("any", "any(input, dim=None, keepdim=False)", "a bool tensor: whether some element "
       "is nonzero, over everything or along dim; of a list: whether an item is true",
       py_tensor_all_any, BI_METHOD),
    PY("all", "all(input, dim=None, keepdim=False)", "a bool tensor: whether every element "
       "is nonzero, over everything or along dim; of a list: whether every item is true",
       py_tensor_all_any, BI_METHOD),
    PY("any", "any(iterable)", "Python's any: whether an item is true", py_any, BI_PY_VARIANT),
    PY("all", "all(iterable)", "Python's all: whether every item is true", py_all,
       BI_PY_VARIANT),
    PY("sorted", "sorted(iterable, key=None, reverse=False)", "a sorted list (stable)", py_sorted, 0),
    PY("reversed", "reversed(seq)", "the items in reverse order, as a list", py_reversed, 0),
    PY("iter", "iter(iterable, sentinel=None)", "an iterator of the items: next(), a for loop, "
       "list() and islice take them; with a sentinel, callable()'s values until it",
       py_iter, 0),
    PY("next", "next(iterator, default=None)", "the next item of what iter() gave (ag's "
       "iterators are lists: next takes their first item off); default at the end, if given",
       py_next, 0),
    PY("list", "list(iterable=None)", "a new list of the items", py_list, BI_TYPE),
    PY("tuple", "tuple(iterable=None)", "a tuple of the items", py_tuple, BI_TYPE),
    PY("dict", "dict(iterable=None, **kwargs)", "a dict from (key, value) pairs or another "
       "dict, then the keywords", py_dict, BI_TYPE | BI_KWARGS),
    PY("OrderedDict", "OrderedDict(iterable=None, **kwargs)", "collections.OrderedDict: a dict "
       "(== between two minds the order)", py_ordered_dict,
       BI_TYPE | BI_KWARGS | BI_MODULE_COLLECTIONS),
    PY("defaultdict", "defaultdict(default_factory=None, iterable=None, **kwargs)",
       "collections.defaultdict: d[k] of a missing key stores default_factory()", py_defaultdict,
       BI_TYPE | BI_KWARGS | BI_MODULE_COLLECTIONS),
    PY("Counter", "Counter(iterable=None, **kwargs)", "collections.Counter: the items counted "
       "(a missing one's count is 0)", py_counter, BI_TYPE | BI_KWARGS | BI_MODULE_COLLECTIONS),
    PY("dict.fromkeys", "fromkeys(iterable, value=None)", "a dict of the items, each a key "
       "bound to value", py_dict_fromkeys, 0),
    PY("hash", "hash(obj)", "obj's hash: CPython's of numbers and tuples of them; an object's "
       "__hash__", py_hash, 0),
    PY("set", "set(iterable=None)", "a set of the items", py_set, BI_TYPE),
    PY("int", "int(x=0, base=None)", "an int: a number truncated, or a string's digits in base",
       py_int, BI_TYPE),
    PY("divmod", "divmod(a, b)", "(a // b, a % b)", py_divmod, 0),
    PY("bin", "bin(i)", "the int's binary digits, '0b...'", py_bin, 0),
    PY("oct", "oct(i)", "the int's octal digits, '0o...'", py_oct, 0),
    PY("hex", "hex(i)", "the int's hexadecimal digits, '0x...'", py_hex, 0),
    PY("float", "float(x=0)", "a float: of a number, a string or a one-element tensor", py_float,
       BI_TYPE),
    PY("str", "str(object=None)", "the text print would show", py_str, BI_TYPE),
    PY("repr", "repr(object)", "the text the prompt would show (strings quoted)", py_repr, 0),
    PY("bool", "bool(x=False)", "the truth of x", py_bool, BI_TYPE),
    PY("getattr", "getattr(object, name, default=None)", "object.name (default when there is "
       "none, if given)", py_getattr, 0),
    PY("hasattr", "hasattr(object, name)", "whether object.name exists", py_hasattr, 0),
    PY("setattr", "setattr(object, name, value)", "object.name = value", py_setattr, BI_VOID),
    PY("delattr", "delattr(object, name)", "del object.name", py_delattr, BI_VOID),
    PY("callable", "callable(obj)", "whether obj can be called", py_callable, 0),
    PY("issubclass", "issubclass(cls, classinfo)", "whether cls is classinfo or derives from it",
       py_issubclass, 0),
    PY("format", "format(value, format_spec='')", "value formatted by format_spec (the "
       "format-spec mini-language)", py_format, 0),
    PY("dim", "dim(input)", "the number of dimensions (x.ndim)", py_dim, BI_METHOD),
    PY("ndimension", "ndimension(input)", "as dim: the number of dimensions", py_dim, BI_METHOD),
    PY("size", "size(input, dim=None)", "x.shape, or the size along dim", py_size, BI_METHOD),
    PY("is_grad_enabled", "is_grad_enabled()", "whether operations are recorded now (False "
       "under no_grad)", py_is_grad_enabled, 0),
    PY("set_grad_enabled", "set_grad_enabled(mode)", "grad mode on (True) or off (False) from "
       "here on; with torch.set_grad_enabled(mode): for a block", py_set_grad_enabled, 0),
    PY("masked_fill", "masked_fill(input, mask, value)", "value where the bool mask is true, "
       "input elsewhere, in input's dtype", py_masked_fill, BI_METHOD),
    PY("tril", "tril(input, diagonal=0)", "the elements on and below the diagonal-th diagonal "
       "of the last two dimensions, 0 above", py_tril, BI_METHOD),
    PY("triu", "triu(input, diagonal=0)", "the elements on and above the diagonal-th diagonal "
       "of the last two dimensions, 0 below", py_triu, BI_METHOD),
    PY("gather", "gather(input, dim, index)", "input's elements at index along dim: "
       "out[i][j] = input[i][index[i][j]] for dim 1", py_gather, BI_METHOD),
    PY("Variable", "Variable(data, requires_grad=False, volatile=False)", "data detached, a "
       "leaf that requires grad as asked (torch.autograd.Variable, PyTorch before 0.4)",
       py_variable, BI_TYPE),
    PY("embedding", "embedding(input, weight)", "the rows of weight that input's integers name "
       "(torch.nn.functional.embedding)", py_embedding, 0),
    PY("roll", "roll(input, shifts, dims=None)", "the elements moved shifts along dims (none: "
       "the flattened tensor), those pushed off the end coming first", py_roll, BI_METHOD),
    PY("narrow", "narrow(input, dim, start, length)", "input[..., start:start + length] along "
       "dim", py_narrow, BI_METHOD),
    PY("chunk", "chunk(input, chunks, dim=0)", "a tuple of chunks pieces along dim (fewer when "
       "the size runs out)", py_chunk, BI_METHOD),
    PY("split", "split(tensor, split_size_or_sections, dim=0)", "a tuple of pieces along dim: "
       "of that size (the last smaller), or of the sizes listed", py_split, BI_METHOD),
    PY("repeat", "repeat(input, *sizes)", "the tensor tiled sizes[d] times along each "
       "dimension", py_repeat, BI_METHOD),
    PY("flip", "flip(input, *dims)", "the tensor reversed along each of dims", py_flip,
       BI_METHOD),
    PY("meshgrid", "meshgrid(*tensors, indexing='ij')", "the grids of 1-D tensors: each "
       "expanded along its own axis ('xy': the first two axes swapped)", py_meshgrid, 0),
    PY("sort", "sort(input, dim=-1, descending=False)", "(values, indices) of each lane along "
       "dim in order, nan last", py_sort, BI_METHOD),
    PY("argsort", "argsort(input, dim=-1, descending=False)", "the indices that sort each lane "
       "along dim", py_argsort, BI_METHOD),
    PY("topk", "topk(input, k, dim=-1, largest=True, sorted=True)", "(values, indices) of the k "
       "largest (smallest) of each lane along dim, in order", py_topk, BI_METHOD),
    PY("diag", "diag(input, diagonal=0)", "a vector on the diagonal-th diagonal of a square "
       "matrix, or that diagonal of a matrix", py_diag, BI_METHOD),
    PY("square", "square(input)", "x ** 2", py_square, BI_METHOD),
    PY("normalize", "normalize(input, p=2.0, dim=1, eps=1e-12)", "F.normalize: input over its "
       "p-norm along dim (at least eps)", py_normalize, 0),
    PY("pad", "pad(input, pad, mode='constant', value=None)", "F.pad: value around the last "
       "dimensions, (left, right, top, bottom, ...)", py_pad, 0),
    PY("bmm", "bmm(input, mat2)", "batched matrix product of two 3-D tensors with the same "
       "batch: (b, n, m) @ (b, m, p) is (b, n, p)", py_bmm, BI_METHOD),
    PY("contiguous", "contiguous(input)", "the tensor itself: ag's tensors are all laid out "
       "contiguously (a transpose is a copy)", py_contiguous, BI_METHOD),
    PY("dropout", "dropout(input, p=0.5, training=True, inplace=False)", "F.dropout: in training, "
       "each element zeroed with probability p (PyTorch's mask from its stream), the rest "
       "scaled by 1 / (1 - p); inplace: written into input", py_dropout, 0),
    PY("layer_norm", "layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)",
       "F.layer_norm: (x - mean) / sqrt(var + eps) * weight + bias over the last dims",
       py_layer_norm, 0),
    PY("batch_norm", "batch_norm(input, running_mean, running_var, weight=None, bias=None, "
       "training=False, momentum=0.1, eps=1e-05)", "F.batch_norm over (N, C) or (N, C, L): "
       "batch statistics in training (the running ones updated in place), else the running "
       "ones", py_batch_norm, 0),
    PY("equal", "equal(input, other)", "whether the two have the same shape and values",
       py_equal, BI_METHOD),
    PY("empty_like", "empty_like(input, requires_grad=False, dtype=None, device=None)", "as "
       "zeros_like: PyTorch leaves the memory as it was; ag clears it", bi_zeros_like,
       BI_CREATION),
    PY("Parameter", "Parameter(data=None, requires_grad=True)", "torch.nn.Parameter: a leaf "
       "sharing data's elements, which a Module registers", py_parameter, BI_TYPE),
    PY("vars", "vars(object)", "the object's attributes: the dict itself, in the order they "
       "were set", py_vars, 0),
    PY("dir", "dir(object=None)", "an object's or a class's attribute names, sorted: its own, "
       "its class's and bases', and those of CPython's object", py_dir, 0),
    PY("type", "type(object)", "the type of a value (type(3) is int)", py_type, BI_TYPE),
    PY("id", "id(object)", "a number that is the same for the same object", py_id, 0),
    PY("device", "device(type)", "torch.device('cpu'): ag computes on the CPU", py_device, 0),
    PY("one_hot", "one_hot(tensor, num_classes=-1)", "int64 rows with a one at each class "
       "index", py_one_hot, BI_METHOD),
    PY("nonzero", "nonzero(input)", "the int64 indices of the nonzero elements, one row each",
       py_nonzero, BI_METHOD),
    PY("allclose", "allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)", "whether "
       "isclose holds everywhere (a Python bool)", py_allclose, BI_METHOD),
    PY("isclose", "isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)", "a bool "
       "tensor: x == y, or |x - y| <= atol + |rtol * y| (finite), or both nan with equal_nan",
       py_isclose, BI_METHOD),
    PY("view_as", "view_as(input, other)", "as view(other.shape): x reshaped to other's shape",
       py_view_as, BI_METHOD),
    PY("reshape_as", "reshape_as(input, other)", "as reshape(other.shape)", py_reshape_as,
       BI_METHOD),
    PY("expand_as", "expand_as(input, other)", "as expand(other.shape)", py_expand_as, BI_METHOD),
    PY("is_contiguous", "is_contiguous(input)", "True: ag lays every tensor out contiguously "
       "(a transpose is a copy; PyTorch's view says False)", py_is_contiguous, BI_METHOD),
    PY("nelement", "nelement(input)", "as numel: the number of elements", bi_numel, BI_METHOD),
    PY("tolist", "tolist(input)", "the elements as nested lists of floats (0-d: a float)",
       py_tolist, BI_METHOD),
    PY("isinstance", "isinstance(obj, classinfo)", "whether obj is of the type (int, float, str, "
       "list, tuple, dict, set, bool, torch.Tensor) or one of a tuple of them", py_isinstance, 0),
    PY("Optimizer", "Optimizer(params, defaults)", "torch.optim.Optimizer, the optimizers' "
       "base: isinstance(opt, torch.optim.Optimizer)", py_optimizer, BI_TYPE),
    PY("ord", "ord(c)", "the code point of a one-character string", py_ord, 0),
    PY("chr", "chr(i)", "the one-character string of a code point", py_chr, 0),
    PY("map", "map(function, *iterables)", "function of each item (of the i-th items of each "
       "iterable), as a list", py_map, 0),
    PY("filter", "filter(function, iterable)", "the items function finds true (None: the true "
       "items), as a list", py_filter, 0),
    PY("Tensor", "Tensor(*data)", "a tensor of the default floating dtype, of data or of sizes "
       "(zeros) (torch.Tensor; isinstance(x, torch.Tensor))", py_legacy_tensor, BI_TYPE),
    PY("LongTensor", "LongTensor(*data)", "as Tensor, int64", py_long_tensor, 0),
    PY("IntTensor", "IntTensor(*data)", "as Tensor, int32", py_int_tensor, 0),
    PY("FloatTensor", "FloatTensor(*data)", "as Tensor, float32", py_float_tensor, 0),
    PY("DoubleTensor", "DoubleTensor(*data)", "as Tensor, float64", py_double_tensor, 0),
    PY("BoolTensor", "BoolTensor(*data)", "as Tensor, bool", py_bool_tensor, 0),
    PY("empty", "empty(*size, requires_grad=False, dtype=None, device=None)", "as zeros: "
       "PyTorch leaves the memory as it was; ag clears it", bi_zeros, BI_CREATION),
    PY("get_default_dtype", "get_default_dtype()", "the dtype of new floating tensors "
       "(torch.float64 unless set)", py_get_default_dtype, 0),
    PY("set_default_dtype", "set_default_dtype(d)", "sets the dtype of new floating tensors "
       "(torch.float64 or torch.float32)", py_set_default_dtype, BI_VOID),
    PY("to", "to(input, dtype=None)", "x as dtype (x itself when it has it); a device string "
       "('cpu') changes nothing; a tensor gives its dtype", py_to, BI_METHOD),
    PY("cpu", "cpu(input)", "the tensor itself: ag computes on the CPU", py_to, BI_METHOD),
    METHOD(VAL_TENSOR, "double", "double(self)", "x as float64", py_cast),
    METHOD(VAL_TENSOR, "float", "float(self)", "x as float32", py_cast),
    METHOD(VAL_TENSOR, "long", "long(self)", "x as int64", py_cast),
    METHOD(VAL_TENSOR, "int", "int(self)", "x as int32", py_cast),
    METHOD(VAL_TENSOR, "bool", "bool(self)", "x as bool (nonzero is True)", py_cast),
    METHOD(VAL_TENSOR, "is_floating_point", "is_floating_point(self)", "whether x's dtype is "
           "float64 or float32", py_is_floating_point),
    METHOD(VAL_TENSOR, "type", "type(self, dtype=None)", "x as dtype (or a legacy name, "
           "'torch.LongTensor'); with no dtype, the name of its type",
           py_tensor_type),
    METHOD(VAL_SHAPE, "numel", "numel(self)", "the product of the sizes", py_size_numel),
    PY("is_tensor", "is_tensor(obj)", "whether obj is a tensor", py_is_tensor, 0),
    METHOD(VAL_GRAD_FN, "name", "name(self)", "the Function's name, as PyTorch's "
           "(MulBackward0)", py_grad_fn_name),
    METHOD(VAL_LIST, "append", "append(self, object)", "adds an item at the end", py_list_append),
    METHOD(VAL_LIST, "extend", "extend(self, iterable)", "adds the items at the end", py_list_extend),
    METHOD(VAL_LIST, "pop", "pop(self, index=None)", "removes and gives the last (or index-th) "
           "item", py_list_pop),
    METHOD(VAL_LIST, "insert", "insert(self, index, object)", "inserts before index", py_list_insert),
    METHOD(VAL_LIST, "remove", "remove(self, value)", "removes the first item equal to value",
           py_list_remove),
    METHOD(VAL_LIST, "index", "index(self, value, start=0, end=None)", "the first index of value "
           "(in [start, end))", py_list_index),
    METHOD(VAL_LIST, "count", "count(self, value)", "how many items equal value", py_list_count),
    METHOD(VAL_LIST, "reverse", "reverse(self)", "reverses the list in place", py_list_reverse),
    METHOD(VAL_LIST, "sort", "sort(self, key=None, reverse=False)", "sorts the list in place "
           "(stable)", py_list_sort),
    METHOD(VAL_LIST, "copy", "copy(self)", "a new list of the same items", py_list_copy),
    METHOD(VAL_LIST, "clear", "clear(self)", "removes every item", py_list_clear),
    METHOD(VAL_DICT, "keys", "keys(self)", "the keys, as a list", py_dict_keys),
    METHOD(VAL_DICT, "values", "values(self)", "the values, as a list", py_dict_values),
    METHOD(VAL_DICT, "items", "items(self)", "the (key, value) pairs, as a list", py_dict_items),
    METHOD(VAL_DICT, "get", "get(self, key, default=None)", "the value of key, or default",
           py_dict_get),
    METHOD(VAL_DICT, "setdefault", "setdefault(self, key, default=None)", "the value of key, "
           "storing default first if there is none", py_dict_setdefault),
    METHOD(VAL_DICT, "update", "update(self, other)", "adds other's pairs (or a set's items)",
           py_dict_update),
    METHOD(VAL_DICT, "add", "add(self, item)", "adds an item to a set", py_set_add),
    METHOD(VAL_DICT, "copy", "copy(self)", "a new dict (or set) of the same kind and items",
           py_dict_copy),
    METHOD(VAL_DICT, "most_common", "most_common(self, n=None)", "a Counter's (item, count) "
           "pairs, the largest counts first", py_most_common),
    METHOD(VAL_DICT, "total", "total(self)", "a Counter's counts added up", py_counter_total),
    METHOD(VAL_DICT, "remove", "remove(self, item)", "removes an item of a set (KeyError when "
           "absent)", py_set_remove),
    METHOD(VAL_DICT, "discard", "discard(self, item)", "removes an item of a set if there",
           py_set_discard),
    METHOD(VAL_DICT, "pop", "pop(self, key=None, default=None)", "removes key and gives its "
           "value (or default); a set's pop() removes and gives an item", py_dict_pop),
    METHOD(VAL_DICT, "popitem", "popitem(self)", "removes and gives the last (key, value) pair",
           py_dict_popitem),
    METHOD(VAL_DICT, "clear", "clear(self)", "removes every item", py_dict_clear),
    METHOD(VAL_DICT, "union", "union(self, other)", "a set's items and other's", py_set_union),
    METHOD(VAL_DICT, "intersection", "intersection(self, other)", "a set's items also in other",
           py_set_intersection),
    METHOD(VAL_DICT, "difference", "difference(self, other)", "a set's items not in other",
           py_set_difference),
    METHOD(VAL_DICT, "symmetric_difference", "symmetric_difference(self, other)", "the items in "
           "one of a set and other, not both", py_set_symmetric_difference),
    METHOD(VAL_DICT, "intersection_update", "intersection_update(self, other)", "keeps the "
           "items also in other", py_set_intersection_update),
    METHOD(VAL_DICT, "difference_update", "difference_update(self, other)", "removes other's "
           "items", py_set_difference_update),
    METHOD(VAL_DICT, "symmetric_difference_update", "symmetric_difference_update(self, other)",
           "the items in one of the set and other, not both", py_set_symmetric_difference_update),
    METHOD(VAL_DICT, "issubset", "issubset(self, other)", "whether other holds every item",
           py_set_issubset),
    METHOD(VAL_DICT, "issuperset", "issuperset(self, other)", "whether it holds other's items",
           py_set_issuperset),
    METHOD(VAL_DICT, "isdisjoint", "isdisjoint(self, other)", "whether no item is in other",
           py_set_isdisjoint),
    METHOD(VAL_STRING, "join", "join(self, iterable)", "the strings joined by this one", py_str_join),
    METHOD(VAL_STRING, "split", "split(self, sep=None, maxsplit=-1)", "the pieces between "
           "separators (or runs of whitespace), at most maxsplit splits", py_str_split),
    METHOD(VAL_STRING, "rsplit", "rsplit(self, sep=None, maxsplit=-1)", "split's, the splits "
           "counted from the end", py_str_rsplit),
    METHOD(VAL_STRING, "partition", "partition(self, sep)", "(before, sep, after) at the first "
           "sep, or (self, '', '')", py_str_partition),
    METHOD(VAL_STRING, "rpartition", "rpartition(self, sep)", "(before, sep, after) at the last "
           "sep, or ('', '', self)", py_str_rpartition),
    METHOD(VAL_STRING, "removeprefix", "removeprefix(self, prefix)", "the text less prefix when "
           "it begins so", py_str_removeprefix),
    METHOD(VAL_STRING, "removesuffix", "removesuffix(self, suffix)", "the text less suffix when "
           "it ends so", py_str_removesuffix),
    METHOD(VAL_STRING, "splitlines", "splitlines(self, keepends=False)", "the lines, without "
           "their line breaks (with them: keepends=True)", py_str_splitlines),
    METHOD(VAL_STRING, "strip", "strip(self, chars=None)", "without leading and trailing "
           "whitespace (or chars)", py_str_strip),
    METHOD(VAL_STRING, "lstrip", "lstrip(self, chars=None)", "without leading whitespace",
           py_str_lstrip),
    METHOD(VAL_STRING, "rstrip", "rstrip(self, chars=None)", "without trailing whitespace",
           py_str_rstrip),
    METHOD(VAL_STRING, "upper", "upper(self)", "in capitals (ASCII)", py_str_upper),
    METHOD(VAL_STRING, "lower", "lower(self)", "in small letters (ASCII)", py_str_lower),
    METHOD(VAL_STRING, "capitalize", "capitalize(self)", "the first letter a capital, the rest "
           "small", py_str_capitalize),
    METHOD(VAL_STRING, "title", "title(self)", "each word's first letter a capital", py_str_title),
    METHOD(VAL_STRING, "ljust", "ljust(self, width, fillchar=' ')", "padded on the right to width",
           py_str_ljust),
    METHOD(VAL_STRING, "rjust", "rjust(self, width, fillchar=' ')", "padded on the left to width",
           py_str_rjust),
    METHOD(VAL_STRING, "center", "center(self, width, fillchar=' ')", "centred in width",
           py_str_center),
    METHOD(VAL_STRING, "zfill", "zfill(self, width)", "zeros on the left to width (after a sign)",
           py_str_zfill),
    METHOD(VAL_STRING, "isdigit", "isdigit(self)", "whether every character is a digit",
           py_str_isdigit),
    METHOD(VAL_STRING, "isalpha", "isalpha(self)", "whether every character is a letter",
           py_str_isalpha),
    METHOD(VAL_STRING, "isalnum", "isalnum(self)", "whether every character is a letter or a digit",
           py_str_isalnum),
    METHOD(VAL_STRING, "isdecimal", "isdecimal(self)", "whether every character is a digit "
           "(ASCII)", py_str_isdigit),
    METHOD(VAL_STRING, "isnumeric", "isnumeric(self)", "whether every character is a digit "
           "(ASCII)", py_str_isdigit),
    METHOD(VAL_STRING, "isascii", "isascii(self)", "whether every character is ASCII",
           py_str_isascii),
    METHOD(VAL_STRING, "isspace", "isspace(self)", "whether every character is white space",
           py_str_isspace),
    METHOD(VAL_STRING, "isupper", "isupper(self)", "whether its letters are capitals",
           py_str_isupper),
    METHOD(VAL_STRING, "islower", "islower(self)", "whether its letters are small", py_str_islower),
    METHOD(VAL_STRING, "replace", "replace(self, old, new)", "every old replaced by new",
           py_str_replace),
    METHOD(VAL_STRING, "startswith", "startswith(self, prefix)", "whether it begins so",
           py_str_startswith),
    METHOD(VAL_STRING, "endswith", "endswith(self, suffix)", "whether it ends so", py_str_endswith),
    {"format", "format(self, *args, **kwargs)", "str.format: fields by position or by name", NULL,
     py_str_format, BI_KWARGS, VAL_STRING, NULL},
    METHOD(VAL_STRING, "count", "count(self, sub)", "how many times sub occurs", py_str_count),
    METHOD(VAL_STRING, "find", "find(self, sub, start=None, end=None)", "the first index of sub "
           "(in [start, end)), or -1", py_str_find),
    METHOD(VAL_STRING, "rfind", "rfind(self, sub, start=None, end=None)", "the last index of "
           "sub (in [start, end)), or -1", py_str_rfind),
    METHOD(VAL_STRING, "index", "index(self, sub, start=None, end=None)", "find's, but "
           "ValueError where find gives -1", py_str_index),
    METHOD(VAL_STRING, "rindex", "rindex(self, sub, start=None, end=None)", "rfind's, but "
           "ValueError where rfind gives -1", py_str_rindex),
};

const int num_python_builtins = (int)(sizeof python_builtins / sizeof python_builtins[0]);
