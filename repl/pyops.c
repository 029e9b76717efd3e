/*
 * pyops.c — Python's own operators (pyops.h): exact 64-bit ints with
 * Python's floor division, modulo and power; strings; list and tuple
 * concatenation and repetition; identity and membership; float division by
 * zero. What is a tensor operation is left to the evaluator.
 */
#include "pyops.h"

#include <math.h>
#include <string.h>

#include "builtins.h"


/* Python's floor division and modulo of ints (the remainder takes the
 * divisor's sign). */
static int64_t floor_div(int64_t x, int64_t y) {
    int64_t q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}

static bool int_power(int64_t base, int64_t exp, int64_t *out) {
    int64_t r = 1;
    while (exp > 0) {
        if ((exp & 1) && __builtin_mul_overflow(r, base, &r)) return false;
        exp >>= 1;
        if (exp && __builtin_mul_overflow(base, base, &base)) return false;
    }
    *out = r;
    return true;
}

/* Python's int arithmetic: exact, an error past 64 bits (never a wrap);
 * int / int and a negative power give floats. False with the error set. */
static bool int_binary(Session *s, const Node *n, TokenType op, int64_t x, int64_t y, Value *out) {
    int64_t r = 0;
    bool overflow = false;
    switch (op) {
    case TOK_PLUS: overflow = __builtin_add_overflow(x, y, &r); break;
    case TOK_MINUS: overflow = __builtin_sub_overflow(x, y, &r); break;
    case TOK_STAR: overflow = __builtin_mul_overflow(x, y, &r); break;
    case TOK_SLASH:
        if (y == 0) return session_fail(s, n->line, n->col, "ZeroDivisionError: division by zero");
        *out = value_number((double)x / (double)y);
        return true;
    case TOK_SLASHSLASH: case TOK_PERCENT:
        if (y == 0) return session_fail(s, n->line, n->col, "ZeroDivisionError: integer "
                                        "division or modulo by zero");
        if (x == INT64_MIN && y == -1) overflow = true;
        else r = op == TOK_SLASHSLASH ? floor_div(x, y) : x - floor_div(x, y) * y;
        break;
    case TOK_STARSTAR:
        if (y < 0) {
            if (x == 0) return session_fail(s, n->line, n->col, "ZeroDivisionError: 0.0 cannot "
                                            "be raised to a negative power");
            *out = value_number(pow((double)x, (double)y));
            return true;
        }
        overflow = !int_power(x, y, &r);
        break;
    case TOK_EQ: *out = value_bool(x == y); return true;
    case TOK_NE: *out = value_bool(x != y); return true;
    case TOK_LT: *out = value_bool(x < y); return true;
    case TOK_LE: *out = value_bool(x <= y); return true;
    case TOK_GT: *out = value_bool(x > y); return true;
    case TOK_GE: *out = value_bool(x >= y); return true;
    case TOK_AMP: r = x & y; break;
    case TOK_PIPE: r = x | y; break;
    case TOK_CARET: r = x ^ y; break;
    case TOK_LSHIFT: case TOK_RSHIFT:
        if (y < 0) return session_fail(s, n->line, n->col, "ValueError: negative shift count");
        if (op == TOK_RSHIFT) r = y >= 64 ? (x < 0 ? -1 : 0) : x >> y; /* floor, as Python's */
        else if (x == 0) r = 0;
        else overflow = y >= 63 || (x > 0 ? x > INT64_MAX >> y : x < INT64_MIN >> y),
             r = overflow ? 0 : (int64_t)((uint64_t)x << y);
        break;
    default: return session_fail(s, n->line, n->col, "TypeError: unsupported operand type(s) for "
                                 "%s: 'int' and 'int'", token_text(op));
    }
    if (overflow)
        return session_fail(s, n->line, n->col, "OverflowError: the result of %s passes "
                            "ag's 64-bit ints (2**63 - 1 at most)", token_text(op));
    *out = (Value){.kind = VAL_INT, .as.integer = r};
    return true;
}

/* Python's float division by zero is an error (PyTorch's tensors give inf). */
static bool float_zero_division(Session *s, const Node *n, TokenType op, double y) {
    if (y != 0 || (op != TOK_SLASH && op != TOK_SLASHSLASH && op != TOK_PERCENT)) return false;
    session_set_error(s, n->line, n->col, "ZeroDivisionError: %s",
                      op == TOK_SLASH ? "float division by zero"
                      : op == TOK_SLASHSLASH ? "float floor division by zero" : "float modulo");
    return true;
}

/* Python's float powers that are no float: 0.0 to a negative power is its
 * ZeroDivisionError, a negative number to a fractional power its complex
 * number, which ag has not (never a silent nan). */
static bool float_power_refused(Session *s, const Node *n, TokenType op, double x, double y) {
    if (op != TOK_STARSTAR) return false;
    if (x == 0 && y < 0)
        session_set_error(s, n->line, n->col, "ZeroDivisionError: 0.0 cannot be raised to a "
                          "negative power");
    else if (x < 0 && isfinite(x) && isfinite(y) && y != trunc(y))
        session_set_error(s, n->line, n->col, "ValueError: ag has no complex numbers: %.17g ** "
                          "%.17g is complex in Python", x, y);
    else
        return false;
    return true;
}



/* is / is not: None, booleans and small things by value, objects by identity. */
static bool identical(const Value *a, const Value *b) {
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case VAL_NONE: return true;
    case VAL_BOOL: return a->as.truth == b->as.truth;
    case VAL_INT: return a->as.integer == b->as.integer;
    case VAL_STRING: return value_equal(a, b);
    case VAL_BUILTIN: /* a type with no row of its own (type(len)) is its interned name */
        return a->as.builtin.row == b->as.builtin.row && a->as.builtin.name == b->as.builtin.name;
    default: return value_identity(a) != 0 && value_identity(a) == value_identity(b);
    }
}

/* a in b, for b a list, tuple, string or shape. */
static bool contains(Session *s, const Node *n, const Value *a, const Value *b, bool *out) {
    *out = false;
    if (b->kind == VAL_INSTANCE) { /* its __contains__, or a search of what __iter__ gives */
        Value r, items;
        bool found;
        if (!session_call_special(s, n->line, n->col, b, "__contains__", a, 1, &r, &found))
            return false;
        if (found) {
            *out = value_is_scalar(&r) ? value_scalar(&r) != 0 /* bool(r) */
                   : r.kind == VAL_NONE ? false : value_item_count(&r) != 0;
            value_release(&r);
            return true;
        }
        value_copy(b, &items);
        bool ok = session_iterable(s, n->line, n->col, &items) && contains(s, n, a, &items, out);
        value_release(&items);
        return ok;
    }
    if (b->kind == VAL_LIST) {
        for (int i = 0; i < b->as.list->count && !*out; i++) *out = value_equal(a, &b->as.list->items[i]);
        return true;
    }
    if (b->kind == VAL_DICT) {
        if (!value_hashable(a))
            return session_fail(s, n->line, n->col, "TypeError: unhashable type: '%s'", value_type_name(a));
        *out = value_dict_get(b->as.dict, a) != NULL;
        return true;
    }
    if (b->kind == VAL_TENSOR && (value_is_scalar(a) || a->kind == VAL_TENSOR)) {
        /* PyTorch's Tensor.__contains__: (b == a).any() */
        Tensor *ta = value_to_tensor(a, (char[8]){0}, 8);
        Tensor *eq = ta ? tensor_eq(b->as.tensor, ta) : NULL;
        for (int64_t i = 0; eq && i < eq->numel && !*out; i++) *out = tensor_values(eq)[i] != 0;
        tensor_release(eq);
        tensor_release(ta);
        return eq || session_fail(s, n->line, n->col, "%s", ag_error());
    }
    if (b->kind == VAL_SHAPE && value_is_scalar(a)) {
        for (int i = 0; i < b->as.shape->ndim && !*out; i++) *out = b->as.shape->dims[i] == value_scalar(a);
        return true;
    }
    if (b->kind == VAL_STRING && a->kind == VAL_STRING) {
        size_t na = a->as.string.length, nb = b->as.string.length;
        for (size_t i = 0; na <= nb && i + na <= nb && !*out; i++)
            *out = memcmp(b->as.string.text + i, a->as.string.text, na) == 0;
        return true;
    }
    return session_fail(s, n->line, n->col, "TypeError: argument of type '%s' is not iterable",
                        value_type_name(b));
}

/* Operators on strings: + and comparisons; * by an int. */
static bool string_binary(Session *s, const Node *n, TokenType op, const Value *a, const Value *b,
                          Value *out) {
    if (a->kind == VAL_STRING && b->kind == VAL_STRING) {
        const char *x = a->as.string.text, *y = b->as.string.text;
        size_t nx = a->as.string.length, ny = b->as.string.length;
        if (op == TOK_PLUS) {
            StrBuf sb;
            strbuf_init(&sb);
            strbuf_appendn(&sb, x, nx);
            strbuf_appendn(&sb, y, ny);
            bool ok = !sb.oom && value_string(sb.data, sb.len, out);
            strbuf_free(&sb);
            return ok || session_fail(s, n->line, n->col, "out of memory");
        }
        int c = memcmp(x, y, nx < ny ? nx : ny);
        if (c == 0) c = nx < ny ? -1 : nx > ny;
        if (token_compares(op)) {
            bool r = op == TOK_EQ ? c == 0 : op == TOK_NE ? c != 0 : op == TOK_LT ? c < 0
                     : op == TOK_LE ? c <= 0 : op == TOK_GT ? c > 0 : c >= 0;
            *out = value_bool(r);
            return true;
        }
    }
    if (op == TOK_EQ || op == TOK_NE) { /* a string equals nothing else */
        *out = value_bool(op == TOK_NE);
        return true;
    }
    if (op == TOK_STAR && (value_is_int(a) || value_is_int(b))) {
        const Value *str = a->kind == VAL_STRING ? a : b;
        int64_t times = value_int(a->kind == VAL_STRING ? b : a);
        StrBuf sb;
        strbuf_init(&sb);
        for (int64_t i = 0; i < times && !sb.oom && sb.len < (1u << 30); i++)
            strbuf_appendn(&sb, str->as.string.text, str->as.string.length);
        bool ok = !sb.oom && value_string(sb.data, sb.len, out);
        strbuf_free(&sb);
        return ok || session_fail(s, n->line, n->col, "out of memory");
    }
    if (token_compares(op)) /* 'a' < 2: CPython's words for an ordering */
        return session_fail(s, n->line, n->col, "TypeError: '%s' not supported between instances "
                            "of '%s' and '%s'", token_text(op), value_type_name(a),
                            value_type_name(b));
    return session_fail(s, n->line, n->col, "TypeError: unsupported operand type(s) for %s: "
                        "'%s' and '%s'", token_text(op), value_type_name(a), value_type_name(b));
}

/* list + list, tuple + tuple, list * n: new sequences (a list and a
 * tensor go to the engine, as in PyTorch: [1, 2] + t adds). */
static bool sequence_binary(Session *s, const Node *n, TokenType op, const Value *a,
                            const Value *b, Value *out) {
    bool repeat = op == TOK_STAR && (value_is_int(a) || value_is_int(b));
    if (!repeat && !(a->kind == VAL_LIST && b->kind == VAL_LIST)) {
        return session_fail(s, n->line, n->col, "TypeError: %s %s %s", a->kind == VAL_LIST &&
                            b->kind == VAL_LIST ? "can't multiply sequence by non-int of type" :
                            "unsupported operand type(s) for", token_text(op), value_type_name(b));
    }
    if (!repeat && a->as.list->tuple != b->as.list->tuple)
        return session_fail(s, n->line, n->col, "TypeError: can only concatenate %s (not \"%s\") "
                            "to %s", value_type_name(a), value_type_name(b), value_type_name(a));
    const Value *seq = a->kind == VAL_LIST ? a : b;
    int64_t times = repeat ? value_int(a->kind == VAL_LIST ? b : a) : 1;
    int64_t count = repeat ? (times > 0 ? seq->as.list->count * times : 0)
                           : (int64_t)a->as.list->count + b->as.list->count;
    ValueList *l = count <= INT32_MAX ? value_list_new((int)count, seq->as.list->tuple) : NULL;
    if (!l) return session_fail(s, n->line, n->col, "MemoryError");
    for (int64_t i = 0; i < count; i++) {
        const Value *from = repeat ? &seq->as.list->items[i % seq->as.list->count]
                            : i < a->as.list->count ? &a->as.list->items[i]
                                                    : &b->as.list->items[i - a->as.list->count];
        value_copy(from, &l->items[i]);
    }
    *out = (Value){.kind = VAL_LIST, .as.list = l};
    return true;
}

static bool is_set(const Value *v) { return v->kind == VAL_DICT && v->as.dict->set; }

/* Whether every item of a is in b (a <= b of sets). */
static bool subset(const ValueDict *a, const ValueDict *b) {
    for (int64_t i = 0; i < a->count; i++)
        if (!value_dict_get(b, &a->entries[i].key)) return false;
    return true;
}

/* a | b, a & b, a - b, a ^ b of two sets: a new set (a's items in their
 * order, then b's); a < b, a <= b, a > b, a >= b: whether one holds the
 * other. */
static bool set_binary(Session *s, const Node *n, TokenType op, const ValueDict *a,
                       const ValueDict *b, Value *out) {
    if (token_compares(op) && op != TOK_EQ && op != TOK_NE) {
        bool smaller = op == TOK_LT || op == TOK_LE;
        const ValueDict *x = smaller ? a : b, *y = smaller ? b : a;
        bool strict = op == TOK_LT || op == TOK_GT;
        *out = value_bool(subset(x, y) && (!strict || x->count < y->count));
        return true;
    }
    ValueDict *r = value_dict_new(true);
    if (!r) return session_fail(s, n->line, n->col, "MemoryError");
    *out = (Value){.kind = VAL_DICT, .as.dict = r};
    bool ok = true;
    for (int side = 0; side < 2 && ok; side++) {
        const ValueDict *from = side ? b : a, *other = side ? a : b;
        for (int64_t i = 0; i < from->count && ok; i++) {
            bool there = value_dict_get(other, &from->entries[i].key) != NULL;
            bool keep = op == TOK_PIPE ? !side || !there : op == TOK_AMP ? !side && there
                        : op == TOK_MINUS ? !side && !there : !there;
            Value key;
            if (keep) ok = value_copy(&from->entries[i].key, &key) &&
                           value_dict_set(r, key, value_none());
        }
    }
    if (!ok) value_release(out);
    return ok || session_fail(s, n->line, n->col, "MemoryError");
}

bool pyops_in_place(Session *s, const Node *n, TokenType op, const Value *old, const Value *rhs,
                    Value *out, bool *done) {
    *done = false;
    if (!s->python) return true;
    bool list = old->kind == VAL_LIST && !old->as.list->tuple && !old->as.list->fields;
    if (list && op == TOK_PLUS && rhs->kind == VAL_LIST) { /* a += b: extend a */
        const ValueList *from = rhs->as.list;
        int count = from->count; /* a += a adds a's items once */
        for (int i = 0; i < count; i++) {
            Value item;
            value_copy(&from->items[i], &item);
            if (!value_list_append(old->as.list, item))
                return *done = true, session_fail(s, n->line, n->col, "MemoryError");
        }
    } else if (list && op == TOK_STAR && value_is_int(rhs)) { /* a *= 3: a's items 3 times */
        ValueList *l = old->as.list;
        int64_t times = value_int(rhs), count = l->count;
        if (count > 0 && times > INT32_MAX / count) /* a list holds fewer: CPython's error too */
            return *done = true, session_fail(s, n->line, n->col, "MemoryError");
        if (times <= 0) {
            for (int i = 0; i < l->count; i++) value_release(&l->items[i]);
            l->count = 0;
        }
        for (int64_t k = 1; k < times && count > 0; k++) /* [] *= 10**18: nothing to repeat */
            for (int64_t i = 0; i < count; i++) {
                Value item;
                value_copy(&l->items[i], &item);
                if (!value_list_append(l, item))
                    return *done = true, session_fail(s, n->line, n->col, "MemoryError");
            }
    } else if (is_set(old) && is_set(rhs) && (op == TOK_PIPE || op == TOK_AMP ||
                                              op == TOK_MINUS || op == TOK_CARET)) {
        Value made; /* the new items, then old's emptied and refilled: old stays the object */
        if (!set_binary(s, n, op, old->as.dict, rhs->as.dict, &made)) return *done = true, false;
        ValueDict *d = old->as.dict;
        while (d->count > 0) value_dict_remove(d, &d->entries[d->count - 1].key);
        bool ok = true;
        for (int64_t i = 0; ok && i < made.as.dict->count; i++) {
            Value key;
            ok = value_copy(&made.as.dict->entries[i].key, &key) &&
                 value_dict_set(d, key, value_none());
        }
        value_release(&made);
        if (!ok) return *done = true, session_fail(s, n->line, n->col, "MemoryError");
    } else if (old->kind == VAL_DICT && !old->as.dict->set && rhs->kind == VAL_DICT &&
               !rhs->as.dict->set && op == TOK_PIPE) { /* d |= e: e's pairs into d */
        const ValueDict *e = rhs->as.dict;
        for (int64_t i = 0; i < e->count; i++) {
            Value key, v;
            if (!value_copy(&e->entries[i].key, &key) || !value_copy(&e->entries[i].value, &v) ||
                !value_dict_set(old->as.dict, key, v))
                return *done = true, session_fail(s, n->line, n->col, "MemoryError");
        }
    } else {
        return true;
    }
    *done = true;
    return value_copy(old, out);
}

/* Python's own operators: identity, membership, ints, strings, float
 * division by zero. True when it took the operation (*done), with its
 * result or its error. */
/* a op b of two items of sequences being ordered: numbers, strings,
 * sequences; Python's TypeError for others. */
static bool order_items(Session *s, const Node *n, TokenType op, const Value *a, const Value *b,
                        bool *out) {
    if (value_is_scalar(a) && value_is_scalar(b)) {
        bool ints = value_is_int(a) && value_is_int(b);
        int64_t i = ints ? value_int(a) : 0, j = ints ? value_int(b) : 0;
        double x = value_scalar(a), y = value_scalar(b);
        *out = op == TOK_LT ? (ints ? i < j : x < y) : op == TOK_LE ? (ints ? i <= j : x <= y)
             : op == TOK_GT ? (ints ? i > j : x > y) : (ints ? i >= j : x >= y);
        return true;
    }
    bool done;
    Value r;
    if (!pyops_binary(s, n, op, a, b, &r, &done)) return false;
    if (done && r.kind == VAL_BOOL) return *out = r.as.truth, true;
    if (done) value_release(&r);
    return session_fail(s, n->line, n->col, "TypeError: '%s' not supported between instances of "
                        "'%s' and '%s'", token_text(op), value_type_name(a), value_type_name(b));
}

/* Python's ordering of two lists or two tuples: at the first items that
 * differ, those items' order; else the shorter first. */
static bool sequence_order(Session *s, const Node *n, TokenType op, const ValueList *a,
                           const ValueList *b, Value *out) {
    int i = 0;
    while (i < a->count && i < b->count && value_equal(&a->items[i], &b->items[i])) i++;
    bool r;
    if (i < a->count && i < b->count) {
        if (!order_items(s, n, op, &a->items[i], &b->items[i], &r)) return false;
    } else {
        int x = a->count, y = b->count;
        r = op == TOK_LT ? x < y : op == TOK_LE ? x <= y : op == TOK_GT ? x > y : x >= y;
    }
    *out = value_bool(r);
    return true;
}

bool pyops_binary(Session *s, const Node *n, TokenType op, const Value *a, const Value *b,
                  Value *out, bool *done) {
    *done = true;
    if (op == TOK_IS || op == TOK_IS_NOT) {
        bool same = identical(a, b);
        *out = value_bool(op == TOK_IS ? same : !same);
        return true;
    }
    if (op == TOK_IN || op == TOK_NOT_IN) {
        bool in;
        if (!contains(s, n, a, b, &in)) return false;
        *out = value_bool(op == TOK_IN ? in : !in);
        return true;
    }
    bool sequence_a = a->kind == VAL_STRING || a->kind == VAL_LIST;
    const Value *count = sequence_a ? b : a;
    if (s->python && op == TOK_STAR && (sequence_a || b->kind == VAL_STRING || b->kind == VAL_LIST) &&
        count->kind == VAL_TENSOR) { /* [0] * t: a repeat, t's int as Tensor.__index__ gives it */
        if (!value_is_index_tensor(count))
            return session_fail(s, n->line, n->col, "TypeError: only integer tensors of a single "
                                "element can be converted to an index");
        Value times = value_integer((int64_t)tensor_values(count->as.tensor)[0]);
        return pyops_binary(s, n, op, sequence_a ? a : &times, sequence_a ? &times : b, out, done);
    }
    if (a->kind == VAL_STRING && op == TOK_PERCENT)
        return python_percent(s, n->line, n->col, a, b, out);
    if (a->kind == VAL_STRING || b->kind == VAL_STRING) return string_binary(s, n, op, a, b, out);
    if (s->python && (a->kind == VAL_LIST || b->kind == VAL_LIST) &&
        (op == TOK_PLUS || op == TOK_STAR) && a->kind != VAL_TENSOR && b->kind != VAL_TENSOR)
        return sequence_binary(s, n, op, a, b, out); /* [1, 2] + t: the engine's */
    if ((op == TOK_EQ || op == TOK_NE) && a->kind != VAL_TENSOR && b->kind != VAL_TENSOR &&
        !(value_is_scalar(a) && value_is_scalar(b))) {
        value_equal_too_deep = false;
        bool same = value_equal(a, b); /* Python's list and tuple equality */
        if (value_equal_too_deep)
            return session_fail(s, n->line, n->col, "RecursionError: maximum recursion depth "
                                "exceeded in comparison");
        *out = value_bool(op == TOK_EQ ? same : !same);
        return true;
    }
    if (token_compares(op) && a->kind == VAL_LIST && b->kind == VAL_LIST) { /* (3, 11) >= (3, 8) */
        if (a->as.list->tuple != b->as.list->tuple)
            return session_fail(s, n->line, n->col, "TypeError: '%s' not supported between "
                                "instances of '%s' and '%s'", token_text(op), value_type_name(a),
                                value_type_name(b));
        return sequence_order(s, n, op, a->as.list, b->as.list, out);
    }
    bool bits = op == TOK_AMP || op == TOK_PIPE || op == TOK_CARET;
    if (is_set(a) && is_set(b) && (bits || op == TOK_MINUS || (token_compares(op) &&
                                                              op != TOK_EQ && op != TOK_NE)))
        return set_binary(s, n, op, a->as.dict, b->as.dict, out);
    if (bits && a->kind == VAL_BOOL && b->kind == VAL_BOOL) { /* True & False is a bool */
        bool x = a->as.truth, y = b->as.truth;
        *out = value_bool(op == TOK_AMP ? x && y : op == TOK_PIPE ? x || y : x != y);
        return true;
    }
    if (s->python && value_is_int(a) && value_is_int(b) && op != TOK_AT)
        return int_binary(s, n, op, value_int(a), value_int(b), out);
    if (s->python && value_is_scalar(a) && value_is_scalar(b) &&
        (float_zero_division(s, n, op, value_scalar(b)) ||
         float_power_refused(s, n, op, value_scalar(a), value_scalar(b))))
        return false;
    *done = false;
    return true;
}

