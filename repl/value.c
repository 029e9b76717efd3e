/*
 * value.c — the shell's values: ownership, conversions to tensors, and the
 * way each kind prints (value.h).
 */
#include "value.h"

#include "ast.h"
#include "pyformat.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

/* The circle of every list and dict (value.h's GcLink), and on it the
 * boundary between the old ones (before it) and the young ones made since
 * the collector last ran (after it: gc_track appends). The boundary is no
 * list or dict: every walk passes over it. */
static GcLink gc_young;
static GcLink gc_all = {&gc_young, &gc_young, false};
static GcLink gc_young = {&gc_all, &gc_all, false};

static void gc_track(GcLink *l, bool dict) {
    l->dict = dict;
    l->prev = gc_all.prev, l->next = &gc_all;
    gc_all.prev->next = l, gc_all.prev = l;
}

static void gc_untrack(GcLink *l) {
    l->prev->next = l->next, l->next->prev = l->prev;
    l->prev = l->next = l;
}

#define GC_OWNER(link, type) ((type *)(void *)((char *)(link) - offsetof(type, gc)))

/* value_block_alloc's cache: a list of freed blocks for each size in
 * BLOCK_STEP steps up to BLOCK_MAX bytes, each list at most BLOCK_KEEP long
 * (what a collector's pass frees at once is many times that: the rest goes
 * back to malloc). Every block of a size up to BLOCK_MAX is malloc'd at its
 * bin's size, so any block of the bin serves any request of it. Under
 * AddressSanitizer the cache is off, so that a block used after it was
 * freed is still caught. */
enum { BLOCK_STEP = 16, BLOCK_MAX = 512, BLOCK_KEEP = 4096 };
typedef struct FreeBlock {
    struct FreeBlock *next;
} FreeBlock;
static FreeBlock *free_blocks[BLOCK_MAX / BLOCK_STEP + 1];
static int num_free_blocks[BLOCK_MAX / BLOCK_STEP + 1];
#if defined(__SANITIZE_ADDRESS__)
#define BLOCK_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BLOCK_CACHE 0
#endif
#endif
#ifndef BLOCK_CACHE
#define BLOCK_CACHE 1
#endif

void *value_block_alloc(size_t size) {
    size_t bin = (size + BLOCK_STEP - 1) / BLOCK_STEP;
    if (!BLOCK_CACHE || bin * BLOCK_STEP > BLOCK_MAX) return malloc(size);
    FreeBlock *b = free_blocks[bin];
    if (!b) return malloc(bin * BLOCK_STEP); /* the bin's size, so that it may be kept */
    free_blocks[bin] = b->next;
    num_free_blocks[bin]--;
    return b;
}

void value_block_free(void *p, size_t size) {
    size_t bin = (size + BLOCK_STEP - 1) / BLOCK_STEP;
    if (!p) return;
    if (!BLOCK_CACHE || bin * BLOCK_STEP > BLOCK_MAX || num_free_blocks[bin] >= BLOCK_KEEP) {
        free(p);
        return;
    }
    FreeBlock *b = p;
    b->next = free_blocks[bin];
    free_blocks[bin] = b;
    num_free_blocks[bin]++;
}

/* The bytes of a list with room for own_cap items of its own. */
static size_t list_bytes(int own_cap) { return sizeof(ValueList) + (size_t)own_cap * sizeof(Value); }

struct StrObj {
    int refs;
    size_t length;
    uint64_t hash;   /* of the whole text: a dict key's, found once */
    char text[];
};

static uint64_t string_hash(const char *text, size_t length) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < length; i++) h = (h ^ (unsigned char)text[i]) * 1099511628211ULL;
    return h;
}

static struct StrObj *str_new(const char *text, size_t length) {
    struct StrObj *o = malloc(sizeof *o + length + 1);
    if (!o) return NULL;
    o->refs = 1;
    o->length = length;
    o->hash = string_hash(text, length);
    memcpy(o->text, text, length);
    o->text[length] = '\0';
    return o;
}

bool value_string(const char *text, size_t length, Value *out) {
    struct StrObj *o = str_new(text, length);
    *out = value_void();
    if (!o) return false;
    *out = (Value){.kind = VAL_STRING, .as.string = {o->text, length, o}};
    return true;
}

/* Attribute names, one string each, kept for the program's life: a new
 * attribute (self.grad = 0 in each of a million objects) then takes a
 * reference to its name instead of a copy. Names come from the source, so
 * the table stays small; past INTERN_MAX (setattr with made-up names) new
 * names are copied as before. */
enum { INTERN_MAX = 1 << 14 };
static struct StrObj **interned;
static int64_t num_interned, cap_interned;

static struct StrObj *intern_find(const char *name, size_t length);

static bool intern_grow(void) {
    int64_t cap = cap_interned ? cap_interned * 2 : 256;
    struct StrObj **table = calloc((size_t)cap, sizeof *table);
    if (!table) return false;
    for (int64_t i = 0; i < cap_interned; i++) {
        if (!interned[i]) continue;
        int64_t at = (int64_t)(interned[i]->hash & (uint64_t)(cap - 1));
        while (table[at]) at = (at + 1) & (cap - 1);
        table[at] = interned[i];
    }
    free(interned);
    interned = table, cap_interned = cap;
    return true;
}

/* A key for the attribute name in out (a new reference): the interned
 * string, or a fresh copy past INTERN_MAX; false when memory ran out. */
/* Interned strings by their text's address: a name given as its interned
 * copy already (an attribute node's, value_intern's) is found without
 * hashing it. Interned strings are never freed, so an address that matches
 * is that string. */
enum { INTERN_RECENT = 64 };
static struct StrObj *intern_recent[INTERN_RECENT];

static size_t intern_recent_slot(const char *text) {
    return (size_t)((uintptr_t)text >> 4) % INTERN_RECENT;
}

/* The interned string of the name (the table's reference: borrowed), made
 * when new; NULL past INTERN_MAX or when memory runs out. */
static struct StrObj *intern(const char *name, size_t length) {
    struct StrObj *recent = intern_recent[intern_recent_slot(name)];
    if (recent && recent->text == name && recent->length == length) return recent;
    struct StrObj *o = intern_find(name, length);
    if (o) intern_recent[intern_recent_slot(o->text)] = o;
    return o;
}

/* intern's lookup in the table (and insertion). */
static struct StrObj *intern_find(const char *name, size_t length) {
    uint64_t hash = string_hash(name, length);
    if (num_interned * 2 >= cap_interned && (num_interned >= INTERN_MAX || !intern_grow()))
        return NULL;
    int64_t at = (int64_t)(hash & (uint64_t)(cap_interned - 1));
    for (; interned[at]; at = (at + 1) & (cap_interned - 1))
        if (interned[at]->hash == hash && interned[at]->length == length &&
            memcmp(interned[at]->text, name, length) == 0)
            return interned[at];
    if (!(interned[at] = str_new(name, length))) return NULL; /* new: the table holds its one reference */
    num_interned++;
    return interned[at];
}

bool value_intern_failed;

const char *value_intern(const char *name, size_t length) {
    struct StrObj *o = intern(name, length);
    if (!o) value_intern_failed = true;
    return o ? o->text : NULL;
}

static bool name_key(const char *name, size_t length, Value *out) {
    struct StrObj *o = intern(name, length);
    if (!o) return value_string(name, length, out);
    o->refs++;
    *out = (Value){.kind = VAL_STRING, .as.string = {o->text, length, o}};
    return true;
}

static void dict_release(ValueDict *d);

void class_release(ClassObj *c) {
    if (!c || --c->refs > 0) return;
    Value attrs = {.kind = VAL_DICT, .as.dict = c->attrs};
    class_release(c->base);
    if (c->attrs) value_release(&attrs);
    free(c->name);
    free(c);
}

/* Releasing a value can release what it holds, and so on down a chain
 * (a linked list of a million objects, xs = [xs] a million times): past
 * RELEASE_DEPTH nested releases the rest waits in `deferred` and the
 * outermost release finishes it, so the C stack never grows with the
 * chain (CPython's trashcan). */
enum { RELEASE_DEPTH = 1000 };
static int release_depth;
static bool draining;
static Value *deferred;
static int64_t num_deferred, cap_deferred;

static bool holds_values(ValueKind kind) {
    return kind == VAL_LIST || kind == VAL_DICT || kind == VAL_INSTANCE || kind == VAL_METHOD ||
           kind == VAL_FUNCTION || kind == VAL_CLASS;
}

static bool defer_release(Value *v) {
    if (num_deferred == cap_deferred) {
        int64_t cap = cap_deferred ? cap_deferred * 2 : 256;
        Value *grown = realloc(deferred, (size_t)cap * sizeof *grown);
        if (!grown) return false; /* release it now, on the stack */
        deferred = grown, cap_deferred = cap;
    }
    deferred[num_deferred++] = *v;
    *v = value_void();
    return true;
}

static void release_now(Value *v);

void value_release_held(Value *v) {
    if (release_depth >= RELEASE_DEPTH && holds_values(v->kind) && defer_release(v)) return;
    release_depth++;
    release_now(v);
    release_depth--;
    if (release_depth > 0 || draining || !num_deferred) return;
    draining = true;
    while (num_deferred > 0) {
        Value next = deferred[--num_deferred];
        release_depth++;
        release_now(&next);
        release_depth--;
    }
    free(deferred);
    deferred = NULL, cap_deferred = 0;
    draining = false;
}

static void release_now(Value *v) {
    switch (v->kind) {
    case VAL_STRING:
        if (v->as.string.owner && --v->as.string.owner->refs == 0) free(v->as.string.owner);
        break;
    case VAL_TENSOR: tensor_release(v->as.tensor); break;
    case VAL_SHAPE:
        if (--v->as.shape->refs == 0) free(v->as.shape);
        break;
    case VAL_LIST:
        if (v->as.list && --v->as.list->refs == 0) {
            gc_untrack(&v->as.list->gc);
            for (int i = 0; i < v->as.list->count; i++) value_release(&v->as.list->items[i]);
            if (v->as.list->items != v->as.list->own) free(v->as.list->items);
            value_block_free(v->as.list, list_bytes(v->as.list->own_cap));
        }
        break;
    case VAL_OPTIM: optimizer_release(v->as.optim); break;
    case VAL_GENERATOR: generator_release(v->as.generator); break;
    case VAL_FUNCTION: userfunc_release(v->as.function); break;
    case VAL_DICT: dict_release(v->as.dict); break;
    case VAL_CLASS: class_release(v->as.cls); break;
    case VAL_INSTANCE:
        if (v->as.object && --v->as.object->refs == 0) {
            Value attrs = {.kind = VAL_DICT, .as.dict = v->as.object->attrs};
            class_release(v->as.object->cls);
            value_release(&attrs);
            value_block_free(v->as.object, sizeof *v->as.object);
        }
        break;
    case VAL_METHOD:
        if (v->as.bound && --v->as.bound->refs == 0) {
            value_release(&v->as.bound->func);
            value_release(&v->as.bound->self);
            class_release(v->as.bound->from);
            free(v->as.bound);
        }
        break;
    default: break;
    }
    *v = value_void();
}

/* The bytes of a dict's entries and slots (twice as many) at cap entries. */
static size_t entries_bytes(int64_t cap) {
    return (size_t)cap * sizeof(DictEntry) + (size_t)cap * 2 * sizeof(int64_t);
}

static void dict_release(ValueDict *d) {
    if (!d || --d->refs > 0) return;
    gc_untrack(&d->gc);
    if (d->factory) value_release(d->factory), free(d->factory);
    for (int64_t i = 0; i < d->count; i++) {
        value_release(&d->entries[i].key);
        value_release(&d->entries[i].value);
    }
    value_block_free(d->entries, entries_bytes(d->cap)); /* and the slots after them */
    value_block_free(d, sizeof *d);
}

ValueDict *value_dict_new(bool set) {
    ValueDict *d = value_block_zalloc(sizeof *d);
    if (d) d->refs = 1, d->set = set, gc_track(&d->gc, true);
    return d;
}

const char *value_dict_type_name(const ValueDict *d) {
    static const char *const names[] = {"dict", "OrderedDict", "defaultdict", "Counter"};
    return d->set ? "set" : names[d->flavor];
}

bool value_dict_set_factory(ValueDict *d, Value factory) {
    Value *held = malloc(sizeof *held);
    if (!held) return value_release(&factory), false;
    *held = factory;
    if (d->factory) value_release(d->factory), free(d->factory);
    d->factory = held;
    d->flavor = DICT_DEFAULT;
    return true;
}

bool value_shape(int ndim, const int64_t *dims, Value *out) {
    ShapeObj *shape = malloc(sizeof *shape);
    if (!shape) return *out = value_void(), false;
    shape->refs = 1;
    shape->ndim = ndim;
    memcpy(shape->dims, dims, (size_t)ndim * sizeof *dims);
    *out = (Value){.kind = VAL_SHAPE, .as.shape = shape};
    return true;
}

bool value_hashable(const Value *v) {
    switch (v->kind) {
    case VAL_NONE: case VAL_BOOL: case VAL_INT: case VAL_NUMBER: case VAL_STRING:
    case VAL_TENSOR: case VAL_SHAPE: case VAL_CLASS: case VAL_FUNCTION:
        return true;
    case VAL_INSTANCE: /* a class with __eq__ and no __hash__ has none (Python sets it None) */
        return !value_object_defines(v, "__eq__") || value_object_defines(v, "__hash__");
    case VAL_LIST:
        if (!v->as.list->tuple) return false;
        for (int i = 0; i < v->as.list->count; i++)
            if (!value_hashable(&v->as.list->items[i])) return false;
        return true;
    default: return false;
    }
}

static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static uint64_t value_hash(const Value *v);

uint64_t value_key_hash(const Value *v) { return value_hash(v); }

static uint64_t value_hash(const Value *v) {
    switch (v->kind) {
    case VAL_NONE: return 0x9e3779b97f4a7c15ULL;
    case VAL_BOOL: case VAL_INT: case VAL_NUMBER: {
        double x = value_scalar(v);
        if (v->kind == VAL_INT) return mix((uint64_t)v->as.integer);
        if (x == floor(x) && fabs(x) < 0x1p63) return mix((uint64_t)(int64_t)x); /* 1 == 1.0 */
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        return mix(bits);
    }
    case VAL_STRING: {
        const struct StrObj *o = v->as.string.owner;
        if (o && o->text == v->as.string.text && o->length == v->as.string.length) return o->hash;
        return string_hash(v->as.string.text, v->as.string.length);
    }
    case VAL_TENSOR: return mix((uint64_t)(uintptr_t)v->as.tensor);
    case VAL_INSTANCE: {
        uint64_t h;
        if (!value_object_hooks.hash || !value_object_defines(v, "__hash__"))
            return mix((uint64_t)(uintptr_t)v->as.object);
        if (!value_object_hooks.hash(value_object_hooks.ctx, v, &h)) value_hook_failed = true, h = 0;
        return mix(h);
    }
    case VAL_CLASS: return mix((uint64_t)(uintptr_t)v->as.cls);
    case VAL_FUNCTION: return mix((uint64_t)(uintptr_t)v->as.function);
    case VAL_LIST: {
        uint64_t h = 0x345678;
        for (int i = 0; i < v->as.list->count; i++) h = mix(h ^ value_hash(&v->as.list->items[i]));
        return h;
    }
    case VAL_SHAPE: {
        uint64_t h = 0x345678;
        for (int i = 0; i < v->as.shape->ndim; i++) h = mix(h ^ mix((uint64_t)v->as.shape->dims[i]));
        return h;
    }
    default: return 0;
    }
}

/* Python's == walks nested lists and dicts; past EQUAL_DEPTH levels (a
 * list nested 300,000 deep) it stops, unequal, and says so in
 * value_equal_too_deep, so that == can raise Python's RecursionError. */
enum { EQUAL_DEPTH = 2000 };
static int equal_depth;
bool value_equal_too_deep;

static bool equal_nested(const Value *a, const Value *b) {
    if (equal_depth >= EQUAL_DEPTH) return value_equal_too_deep = true, false;
    equal_depth++;
    bool same = value_equal(a, b);
    equal_depth--;
    return same;
}

bool value_equal(const Value *a, const Value *b) {
    if (value_is_scalar(a) && value_is_scalar(b)) {
        if (a->kind != VAL_NUMBER && b->kind != VAL_NUMBER) /* ints exactly */
            return (a->kind == VAL_INT ? a->as.integer : (int64_t)a->as.truth) ==
                   (b->kind == VAL_INT ? b->as.integer : (int64_t)b->as.truth);
        return value_scalar(a) == value_scalar(b);
    }
    if ((a->kind == VAL_SHAPE) != (b->kind == VAL_SHAPE)) { /* torch.Size is a tuple of ints */
        const Value *shape = a->kind == VAL_SHAPE ? a : b, *other = shape == a ? b : a;
        if (other->kind != VAL_LIST || !other->as.list->tuple ||
            other->as.list->count != shape->as.shape->ndim)
            return false;
        for (int i = 0; i < other->as.list->count; i++) {
            const Value *item = &other->as.list->items[i];
            if (!value_is_scalar(item) || value_scalar(item) != (double)shape->as.shape->dims[i])
                return false;
        }
        return true;
    }
    if ((a->kind == VAL_INSTANCE || b->kind == VAL_INSTANCE) && value_object_hooks.equal &&
        !(a->kind == b->kind && a->as.object == b->as.object) &&
        (value_object_defines(a, "__eq__") || value_object_defines(b, "__eq__"))) {
        bool same = false; /* Python's a == b, its __eq__'s (or the reflected one's) */
        if (!value_object_hooks.equal(value_object_hooks.ctx, a, b, &same)) value_hook_failed = true;
        return same;
    }
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case VAL_NONE: return true;
    case VAL_STRING:
        return a->as.string.length == b->as.string.length &&
               value_same_bytes(a->as.string.text, b->as.string.text, a->as.string.length);
    case VAL_TENSOR: return a->as.tensor == b->as.tensor;
    case VAL_MODULE: case VAL_DTYPE: return strcmp(a->as.module, b->as.module) == 0;
    case VAL_FUNCTION: return a->as.function == b->as.function;
    case VAL_GRAD_FN: return a->as.grad_fn.stamp == b->as.grad_fn.stamp;
    case VAL_INSTANCE: return a->as.object == b->as.object;
    case VAL_CLASS: return a->as.cls == b->as.cls;
    case VAL_BUILTIN: return a->as.builtin.row == b->as.builtin.row;
    case VAL_SHAPE:
        return a->as.shape->ndim == b->as.shape->ndim &&
               memcmp(a->as.shape->dims, b->as.shape->dims, (size_t)a->as.shape->ndim * sizeof(int64_t)) == 0;
    case VAL_LIST:
        if (a->as.list == b->as.list) return true; /* Python compares items by identity first */
        if (a->as.list->tuple != b->as.list->tuple || a->as.list->count != b->as.list->count)
            return false;
        for (int i = 0; i < a->as.list->count; i++)
            if (!equal_nested(&a->as.list->items[i], &b->as.list->items[i])) return false;
        return true;
    case VAL_DICT: {
        const ValueDict *x = a->as.dict, *y = b->as.dict;
        if (x == y) return true;
        if (x->count != y->count || x->set != y->set) return false;
        bool ordered = x->flavor == DICT_ORDERED && y->flavor == DICT_ORDERED;
        for (int64_t i = 0; ordered && i < x->count; i++) /* two OrderedDicts: in order */
            if (!equal_nested(&x->entries[i].key, &y->entries[i].key)) return false;
        for (int64_t i = 0; i < x->count; i++) {
            const Value *other = value_dict_get(y, &x->entries[i].key);
            if (!other || !equal_nested(&x->entries[i].value, other)) return false;
        }
        return true;
    }
    default: return false;
    }
}

static int64_t *dict_slot(const ValueDict *d, const Value *key, uint64_t hash);

/* Whether comparing a and b runs Python code (an object's __eq__). */
static bool compares_by_method(const Value *a, const Value *b) {
    return value_object_hooks.equal && (a->kind == VAL_INSTANCE || b->kind == VAL_INSTANCE) &&
           (value_object_defines(a, "__eq__") || value_object_defines(b, "__eq__"));
}

/* value_equal of entry e's key and key where that runs an __eq__, which
 * may change d: *moved says it did (the slots must be probed again, as
 * CPython's lookdict starts over). */
static bool equal_by_method(const ValueDict *d, const DictEntry *e, const Value *key, bool *moved) {
    const DictEntry *entries = d->entries;
    const int64_t *slots = d->slots;
    int64_t at = e - entries;
    Value held;
    value_copy(&e->key, &held);
    bool same = value_equal(&held, key);
    /* moved: d grew (its arrays are new), or the entry holds another key */
    *moved = d->entries != entries || d->slots != slots || at >= d->count ||
             d->entries[at].key.kind != held.kind ||
             value_identity(&d->entries[at].key) != value_identity(&held);
    value_release(&held);
    return same;
}

static int64_t *dict_slot(const ValueDict *d, const Value *key, uint64_t hash) {
    for (int restarts = 0;; restarts++) {
        if (!d->num_slots) return NULL;
        int64_t mask = d->num_slots - 1; /* a power of two */
        bool moved = false;
        for (int64_t at = (int64_t)(hash & (uint64_t)mask);; at = (at + 1) & mask) {
            int64_t *slot = &d->slots[at];
            if (!*slot) return slot;
            const DictEntry *e = &d->entries[*slot - 1];
            if (e->hash != hash) continue;
            if (!compares_by_method(&e->key, key)) {
                if (value_equal(&e->key, key)) return slot;
                continue;
            }
            bool same = equal_by_method(d, e, key, &moved);
            if (moved) break;
            if (same) return slot;
        }
        if (restarts == 100) { /* an __eq__ that grows the dict each time: give up */
            value_hook_failed = true;
            value_hook_message = "RuntimeError: a dict grew during each of 100 lookups of a "
                                 "key (its __eq__ changes the dict)";
            return NULL;
        }
    }
}

/* value_dict_get of a key already hashed (a lookup through several dicts
 * hashes the name once). */
static Value *dict_get_hashed(const ValueDict *d, const Value *key, uint64_t hash) {
    int64_t *slot = dict_slot(d, key, hash);
    return slot && *slot ? &d->entries[*slot - 1].value : NULL;
}

Value *value_dict_get(const ValueDict *d, const Value *key) {
    return dict_get_hashed(d, key, value_hash(key));
}

/* The entries and the slots share one allocation (the entries first, so
 * that freeing d->entries frees both): one malloc per growth. */
static bool dict_grow_to(ValueDict *d, int64_t cap) {
    int64_t num_slots = cap * 2;
    char *block = value_block_alloc(entries_bytes(cap));
    if (!block) return false;
    DictEntry *entries = (DictEntry *)(void *)block;
    int64_t *slots = (int64_t *)(void *)(block + (size_t)cap * sizeof(DictEntry));
    if (d->count) memcpy(entries, d->entries, (size_t)d->count * sizeof *entries);
    memset(slots, 0, (size_t)num_slots * sizeof *slots);
    value_block_free(d->entries, entries_bytes(d->cap));
    d->entries = entries;
    d->slots = slots;
    d->num_slots = num_slots;
    d->cap = cap;
    for (int64_t i = 0; i < d->count; i++) *dict_slot(d, &d->entries[i].key, d->entries[i].hash) = i + 1;
    return true;
}

/* Room for twice the entries: 4 at first (a set of a node's two children,
 * a small dict), so that a million small dicts stay small. */
static bool dict_grow(ValueDict *d) { return dict_grow_to(d, d->cap ? d->cap * 2 : 4); }

bool value_dict_reserve(ValueDict *d, int64_t count) {
    if (count <= d->cap) return true;
    int64_t cap = 4;
    while (cap < count) cap *= 2;
    return cap <= (INT64_C(1) << 40) && dict_grow_to(d, cap);
}

/* Adds key (not in d; hashed) with value, taking both; slot is the empty
 * one dict_slot found for it, or NULL (d has no slots yet). */
static bool dict_add(ValueDict *d, Value key, Value value, uint64_t hash, int64_t *slot) {
    if (d->count == d->cap) {
        if (d->cap > (INT64_C(1) << 40) || !dict_grow(d)) {
            value_release(&key);
            value_release(&value);
            return false;
        }
        slot = dict_slot(d, &key, hash); /* the slots moved */
    }
    d->entries[d->count] = (DictEntry){key, value, hash};
    *slot = ++d->count;
    return true;
}

bool value_dict_set(ValueDict *d, Value key, Value value) {
    uint64_t hash = value_hash(&key);
    int64_t *slot = dict_slot(d, &key, hash);
    if (slot && *slot) {
        value_release(&key);
        value_release(&d->entries[*slot - 1].value);
        d->entries[*slot - 1].value = value;
        return true;
    }
    return dict_add(d, key, value, hash, slot);
}

bool value_dict_remove(ValueDict *d, const Value *key) {
    int64_t *slot = dict_slot(d, key, value_hash(key));
    if (!slot || !*slot) return false;
    int64_t at = *slot - 1;
    value_release(&d->entries[at].key);
    value_release(&d->entries[at].value);
    memmove(&d->entries[at], &d->entries[at + 1], (size_t)(d->count - at - 1) * sizeof *d->entries);
    d->count--;
    memset(d->slots, 0, (size_t)d->num_slots * sizeof *d->slots); /* the order moved: index again */
    for (int64_t i = 0; i < d->count; i++) *dict_slot(d, &d->entries[i].key, d->entries[i].hash) = i + 1;
    return true;
}

ValueObjectHooks value_object_hooks;
bool value_hook_failed;
const char *value_hook_message;

uint32_t value_class_generation = 1;

/* Looks up __eq__, __hash__, __setattr__ and __getattr__ along c's bases,
 * once per value_class_generation. */
void value_class_defines(ClassObj *c) {
    static uint64_t eq_hash, hash_hash;
    if (!eq_hash) eq_hash = string_hash("__eq__", 6), hash_hash = string_hash("__hash__", 8);
    const Value eq_key = {.kind = VAL_STRING, .as.string = {"__eq__", 6, NULL}};
    const Value hash_key = {.kind = VAL_STRING, .as.string = {"__hash__", 8, NULL}};
    c->defines_eq = c->defines_hash = false;
    c->defines_setattr = value_class_lookup(c, "__setattr__", 11) != NULL;
    c->defines_getattr = value_class_lookup(c, "__getattr__", 11) != NULL;
    bool hash_known = false;
    for (const ClassObj *k = c; k; k = k->base) {
        const Value *e = dict_get_hashed(k->attrs, &eq_key, eq_hash);
        const Value *h = dict_get_hashed(k->attrs, &hash_key, hash_hash);
        if (e) c->defines_eq = true;
        if (!hash_known && (h || e)) { /* __eq__ alone makes Python's __hash__ None */
            hash_known = true;
            c->defines_hash = h && h->kind != VAL_NONE;
        }
    }
    c->defines_generation = value_class_generation;
}


uintptr_t value_identity(const Value *v) {
    switch (v->kind) {
    case VAL_TENSOR: return (uintptr_t)v->as.tensor;
    case VAL_LIST: return (uintptr_t)v->as.list;
    case VAL_DICT: return (uintptr_t)v->as.dict;
    case VAL_FUNCTION: return (uintptr_t)v->as.function;
    case VAL_CLASS: return (uintptr_t)v->as.cls;
    case VAL_INSTANCE: return (uintptr_t)v->as.object;
    case VAL_METHOD: return (uintptr_t)v->as.bound;
    case VAL_OPTIM: return (uintptr_t)v->as.optim;
    case VAL_GENERATOR: return (uintptr_t)v->as.generator;
    case VAL_BUILTIN: return (uintptr_t)v->as.builtin.row;
    case VAL_MODULE: case VAL_DTYPE: return (uintptr_t)v->as.module;
    case VAL_STRING: return (uintptr_t)v->as.string.text;
    case VAL_GRAD_FN: return (uintptr_t)(v->as.grad_fn.stamp | UINT64_C(1) << 63);
    default: return 0;
    }
}

/* A string key for a lookup, borrowing the text (and, when the name is
 * an interned string's text, that string, whose hash is kept: a key that
 * is never released, so it takes no reference). */
static Value key_of(const char *name, size_t length) {
    struct StrObj *recent = intern_recent[intern_recent_slot(name)];
    struct StrObj *owner = recent && recent->text == name && recent->length == length ? recent : NULL;
    return (Value){.kind = VAL_STRING, .as.string = {name, length, owner}};
}

/* value_class_lookup of a key already hashed. */
static const Value *class_lookup_hashed(const ClassObj *c, const Value *key, uint64_t hash) {
    for (; c; c = c->base) {
        const Value *v = dict_get_hashed(c->attrs, key, hash);
        if (v) return v;
    }
    return NULL;
}

const Value *value_class_lookup(const ClassObj *c, const char *name, size_t length) {
    Value key = key_of(name, length);
    return class_lookup_hashed(c, &key, value_hash(&key));
}

/* How a class attribute f binds: 0 not at all (no function, or a
 * staticmethod), 1 to the object, 2 to its class (a classmethod). */
static int binding_of(const Value *f) {
    if (f->kind != VAL_FUNCTION || !f->as.function->def) return f->kind == VAL_FUNCTION;
    const Stmt *def = f->as.function->def;
    return def->staticmethod ? 0 : def->classmethod ? 2 : 1;
}

/* f bound to self (a new VAL_METHOD; a classmethod to self's class, or to
 * self itself when it is a class), or a copy of f when it is no function to
 * bind (a class attribute) or a staticmethod. */
static bool bind_method(const Value *f, const Value *self, Value *out) {
    int binding = binding_of(f);
    if (binding == 0 || (binding == 1 && self->kind == VAL_CLASS)) return value_copy(f, out);
    Value cls = {.kind = VAL_CLASS};
    if (binding == 2 && self->kind == VAL_INSTANCE) cls.as.cls = self->as.object->cls;
    if (binding == 2) self = self->kind == VAL_CLASS ? self : &cls;
    Bound *b = calloc(1, sizeof *b);
    if (!b) return false;
    b->refs = 1;
    value_copy(f, &b->func);
    value_copy(self, &b->self);
    *out = (Value){.kind = VAL_METHOD, .as.bound = b};
    return true;
}

Value *value_own_attr_lookup(const Instance *o, const char *name, size_t length, int *hint) {
    const ValueDict *d = o->attrs;
    Value key = key_of(name, length);
    int64_t *slot = dict_slot(d, &key, value_hash(&key));
    if (!slot || !*slot) return NULL;
    if (hint && *slot - 1 < INT_MAX) *hint = (int)(*slot - 1);
    return &d->entries[*slot - 1].value;
}

bool value_getattr(const Value *obj, const char *name, size_t length, Value *out) {
    *out = value_void();
    if (obj->kind == VAL_INSTANCE) {
        const Value *own = value_own_attr(obj->as.object, name, length, NULL);
        if (own) return value_copy(own, out);
        const Value *f = value_class_lookup(obj->as.object->cls, name, length);
        return f && bind_method(f, obj, out);
    }
    if (obj->kind == VAL_CLASS) {
        const Value *f = value_class_lookup(obj->as.cls, name, length);
        return f && bind_method(f, obj, out); /* a classmethod binds; others stay plain */
    }
    if (obj->kind == VAL_METHOD && obj->as.bound->from) { /* super().name */
        const Value *f = value_class_lookup(obj->as.bound->from, name, length);
        return f && bind_method(f, &obj->as.bound->self, out);
    }
    return false;
}

const Value *value_method_of(const Value *obj, const char *name, size_t length) {
    Value key = key_of(name, length);
    uint64_t hash = value_hash(&key);
    if (dict_get_hashed(obj->as.object->attrs, &key, hash)) return NULL; /* its own attribute */
    const Value *f = class_lookup_hashed(obj->as.object->cls, &key, hash);
    return f && binding_of(f) == 1 ? f : NULL;
}

bool value_delattr(const Value *obj, const char *name, size_t length) {
    if (obj->kind == VAL_CLASS && length > 4 && name[0] == '_' && name[1] == '_')
        value_class_generation++; /* as value_setattr */
    ValueDict *d = obj->kind == VAL_INSTANCE ? obj->as.object->attrs
                   : obj->kind == VAL_CLASS  ? obj->as.cls->attrs
                                             : NULL;
    Value key = key_of(name, length);
    return d && value_dict_remove(d, &key);
}

bool value_setattr(const Value *obj, const char *name, size_t length, int *hint, Value v) {
    /* Cls.__eq__ = f: value_object_defines's answers go (only a dunder can
     * change them: Cls.count += 1 in each __init__ keeps them) */
    if (obj->kind == VAL_CLASS && length > 4 && name[0] == '_' && name[1] == '_')
        value_class_generation++;
    ValueDict *d = obj->kind == VAL_INSTANCE ? obj->as.object->attrs
                   : obj->kind == VAL_CLASS  ? obj->as.cls->attrs
                                             : NULL;
    if (!d) {
        value_release(&v);
        return false;
    }
    if (obj->kind != VAL_INSTANCE) hint = NULL;
    Value key = key_of(name, length);
    Value *old = value_attr_at_hint(d, name, length, hint);
    uint64_t hash = old ? 0 : value_hash(&key);
    int64_t *slot = old ? NULL : dict_slot(d, &key, hash); /* looked for once: found, or where
                                                               it goes */
    if (slot && *slot) old = &d->entries[*slot - 1].value;
    if (slot && *slot && hint && *slot - 1 < INT_MAX) *hint = (int)(*slot - 1);
    if (old) { /* self.grad += ...: the key is there, so no copy of it is made */
        Value was = *old;
        *old = v;
        value_release(&was);
        return true;
    }
    if (!name_key(name, length, &key)) {
        value_release(&v);
        return false;
    }
    return dict_add(d, key, v, hash, slot);
}

void code_release(Code *c) {
    if (!c || --c->refs > 0) return;
    ast_arena_free(&c->arena);
    free(c->source);
    free(c);
}

void env_release(Env *e) {
    if (!e || --e->refs > 0) return;
    e->prev->next = e->next; /* off the session's list (a circle with a sentinel) */
    e->next->prev = e->prev;
    for (int i = 0; i < e->num_locals; i++) {
        value_release(&e->locals[i].value);
        if (!e->code) free((char *)e->locals[i].name); /* env_bind's copies */
    }
    env_free_locals(e, e->locals);
    env_release(e->parent);
    code_release(e->code);
    value_block_free(e, sizeof *e);
}

void generator_release(Generator *g) {
    if (!g || --g->refs > 0) return;
    ag_generator_free(g->engine);
    free(g);
}

void optimizer_release(Optimizer *o) {
    if (!o || --o->refs > 0) return;
    for (int g = 0; g < o->num_groups; g++) {
        OptimGroup *grp = &o->groups[g];
        ag_optim_free(grp->engine);
        for (int i = 0; i < grp->count; i++) {
            tensor_release(grp->params[i]);
            if (grp->names) free(grp->names[i]);
        }
        free(grp->params);
        free(grp->names);
        if (grp->options) dict_release(grp->options);
    }
    free(o->groups);
    free(o->text);
    free(o);
}

void userfunc_release(UserFunc *f) {
    if (!f || --f->refs > 0) return;
    int n = f->def ? f->def->num_params : f->lambda ? f->lambda->num_positional : 0;
    for (int i = 0; f->defaults && i < n; i++) value_release(&f->defaults[i]);
    free(f->defaults);
    env_release(f->closure);
    code_release(f->code);
    value_block_free(f, sizeof *f);
}

bool value_is_callable(const Value *v) {
    switch (v->kind) {
    case VAL_FUNCTION: case VAL_BUILTIN: case VAL_CLASS: case VAL_METHOD: return true;
    case VAL_INSTANCE: return value_class_lookup(v->as.object->cls, "__call__", 8) != NULL;
    default: return false;
    }
}

void value_keep(const Value *v) {
    if (v->kind == VAL_LIST) gc_untrack(&v->as.list->gc);
    else if (v->kind == VAL_DICT) gc_untrack(&v->as.dict->gc);
}

static Value tracked_value(GcLink *l) {
    return l->dict ? (Value){.kind = VAL_DICT, .as.dict = GC_OWNER(l, ValueDict)}
                   : (Value){.kind = VAL_LIST, .as.list = GC_OWNER(l, ValueList)};
}

void value_each_tracked(void (*fn)(void *ctx, const Value *v), void *ctx) {
    for (GcLink *l = gc_all.next; l != &gc_all; l = l->next) {
        if (l == &gc_young) continue;
        Value v = tracked_value(l);
        fn(ctx, &v);
    }
}

void value_each_young(void (*fn)(void *ctx, const Value *v), void *ctx) {
    for (GcLink *l = gc_young.next; l != &gc_all; l = l->next) {
        Value v = tracked_value(l);
        fn(ctx, &v);
    }
}

void value_promote_young(void) {
    gc_young.prev->next = gc_young.next, gc_young.next->prev = gc_young.prev;
    gc_young.prev = gc_all.prev, gc_young.next = &gc_all;
    gc_all.prev->next = &gc_young, gc_all.prev = &gc_young;
}

void value_empty_container(const Value *v) {
    if (v->kind == VAL_DICT) {
        ValueDict *d = v->as.dict;
        int64_t count = d->count;
        d->count = 0;
        if (d->factory) { /* a defaultdict's factory may close over the cycle */
            value_release(d->factory);
            *d->factory = value_none();
        }
        if (d->slots) memset(d->slots, 0, (size_t)d->num_slots * sizeof *d->slots);
        for (int64_t e = 0; e < count; e++) {
            value_release(&d->entries[e].key);
            value_release(&d->entries[e].value);
        }
    } else if (v->kind == VAL_LIST) {
        ValueList *list = v->as.list;
        int count = list->count;
        list->count = 0;
        for (int e = 0; e < count; e++) value_release(&list->items[e]);
    }
}

int64_t value_clear_unseen(unsigned pass) {
    int64_t n = 0;
    for (GcLink *l = gc_all.next; l != &gc_all; l = l->next)
        n += l != &gc_young &&
             (l->dict ? GC_OWNER(l, ValueDict)->seen : GC_OWNER(l, ValueList)->seen) != pass;
    static GcLink **dead; /* reused by each pass, grown as the heap grows */
    static int64_t dead_cap;
    if (n > dead_cap) {
        GcLink **grown = realloc(dead, (size_t)n * 2 * sizeof *grown);
        if (grown) dead = grown, dead_cap = n * 2;
    }
    if (!n || n > dead_cap) return 0; /* nothing to do, or no memory: the cycles wait */
    int64_t k = 0;
    for (GcLink *l = gc_all.next; l != &gc_all; l = l->next) {
        if (l == &gc_young) continue;
        if (l->dict && GC_OWNER(l, ValueDict)->seen != pass) GC_OWNER(l, ValueDict)->refs++;
        else if (!l->dict && GC_OWNER(l, ValueList)->seen != pass) GC_OWNER(l, ValueList)->refs++;
        else continue;
        dead[k++] = l; /* held, so that emptying one cannot free another under us */
    }
    for (int64_t i = 0; i < k; i++) { /* empty each: what only they held goes */
        Value v = tracked_value(dead[i]);
        value_empty_container(&v);
    }
    for (int64_t i = 0; i < k; i++) { /* and let them go */
        Value v = tracked_value(dead[i]);
        value_release(&v);
    }
    return k;
}

ValueList *value_list_new(int count, bool tuple) {
    /* one allocation: the items made with it follow the list (a tuple
     * (self, other) costs one malloc) */
    int own_cap = count ? count : 1;
    ValueList *l = count >= 0 && count < (1 << 28) ? value_block_alloc(list_bytes(own_cap)) : NULL;
    if (!l) return NULL;
    memset(l, 0, sizeof *l);
    l->own_cap = own_cap;
    l->refs = 1;
    l->tuple = tuple;
    gc_track(&l->gc, false);
    l->count = l->cap = count;
    l->items = l->own;
    for (int i = 0; i < count; i++) l->items[i] = value_void();
    return l;
}

bool value_list_reserve(ValueList *l, int64_t count) {
    if (count <= l->cap) return true;
    if (count >= (1 << 28)) return false;
    int64_t cap = l->cap < 4 ? 8 : (int64_t)l->cap * 2;
    if (cap < count) cap = count;
    Value *bigger = l->items == l->own ? malloc((size_t)cap * sizeof *bigger)
                                       : realloc(l->items, (size_t)cap * sizeof *bigger);
    if (!bigger) return false;
    if (l->items == l->own) memcpy(bigger, l->own, (size_t)l->count * sizeof *bigger);
    l->items = bigger;
    l->cap = (int)cap;
    return true;
}

bool value_list_append(ValueList *l, Value v) {
    if (l->count == l->cap && !value_list_reserve(l, (int64_t)l->count + 1)) {
        value_release(&v);
        return false;
    }
    l->items[l->count++] = v;
    return true;
}

/* value_counted_refs: each kind of VALUE_COUNTED_MASK points at a struct
 * whose first member is its count. */
_Static_assert(offsetof(ShapeObj, refs) == 0, "ShapeObj's count comes first");
_Static_assert(offsetof(ValueList, refs) == 0, "ValueList's count comes first");
_Static_assert(offsetof(ValueDict, refs) == 0, "ValueDict's count comes first");
_Static_assert(offsetof(Optimizer, refs) == 0, "Optimizer's count comes first");
_Static_assert(offsetof(Generator, refs) == 0, "Generator's count comes first");
_Static_assert(offsetof(UserFunc, refs) == 0, "UserFunc's count comes first");
_Static_assert(offsetof(ClassObj, refs) == 0, "ClassObj's count comes first");
_Static_assert(offsetof(Instance, refs) == 0, "Instance's count comes first");
_Static_assert(offsetof(Bound, refs) == 0, "Bound's count comes first");

void value_copy_held(const Value *v) {
    switch (v->kind) {
    case VAL_TENSOR: tensor_retain(v->as.tensor); break;
    case VAL_SHAPE: v->as.shape->refs++; break;
    case VAL_OPTIM: v->as.optim->refs++; break;
    case VAL_GENERATOR: v->as.generator->refs++; break;
    case VAL_LIST: v->as.list->refs++; break;
    case VAL_FUNCTION: v->as.function->refs++; break;
    case VAL_DICT: v->as.dict->refs++; break;
    case VAL_CLASS: v->as.cls->refs++; break;
    case VAL_INSTANCE: v->as.object->refs++; break;
    case VAL_METHOD: v->as.bound->refs++; break;
    case VAL_STRING:
        if (v->as.string.owner) v->as.string.owner->refs++;
        break;
    default: break;
    }
}

int64_t value_item_count(const Value *v) {
    return v->kind == VAL_LIST ? v->as.list->count
           : v->kind == VAL_DICT ? v->as.dict->count
           : v->kind == VAL_STRING ? (int64_t)v->as.string.length
           : v->kind == VAL_SHAPE ? v->as.shape->ndim
           : v->kind == VAL_TENSOR && v->as.tensor->ndim > 0 ? v->as.tensor->shape[0]
                                                            : -1;
}

bool value_item(const Value *v, int64_t k, bool as_int, Value *out) {
    *out = value_void();
    if (v->kind == VAL_LIST) return value_copy(&v->as.list->items[k], out);
    if (v->kind == VAL_DICT) return value_copy(&v->as.dict->entries[k].key, out);
    if (v->kind == VAL_STRING) return value_string(v->as.string.text + k, 1, out);
    if (v->kind == VAL_SHAPE) {
        int64_t d = v->as.shape->dims[k];
        *out = as_int ? (Value){.kind = VAL_INT, .as.integer = d} : value_number((double)d);
        return true;
    }
    Tensor *t = tensor_select(v->as.tensor, 0, k);
    if (!t) return false;
    /* Python iterates a tensor through x.unbind(0): its items' grad_fn is
     * PyTorch's UnbindBackward0 (one select each here, the same gradient) */
    if (as_int && t->grad_fn) t->grad_fn->name = t->op_name = "UnbindBackward";
    *out = value_tensor(t);
    return true;
}

Value value_element(const Tensor *t, int64_t i, bool python) {
    double v = tensor_values(t)[i];
    if (python && (t->dtype == AG_INT64 || t->dtype == AG_INT32)) return value_integer((int64_t)v);
    if (python && t->dtype == AG_BOOL) return value_bool(v != 0);
    return value_number(v);
}

/* The dtypes' values: VAL_DTYPE holds the canonical name (modules.c). */
static const char *const dtype_values[AG_DTYPE_COUNT] = {
    [AG_FLOAT64] = "torch.float64", [AG_FLOAT32] = "torch.float32", [AG_INT64] = "torch.int64",
    [AG_INT32] = "torch.int32", [AG_BOOL] = "torch.bool",
};

Value value_dtype(AgDtype dtype) { return (Value){.kind = VAL_DTYPE, .as.module = dtype_values[dtype]}; }

bool value_as_dtype(const Value *v, AgDtype *out) {
    if (v->kind != VAL_DTYPE) return false;
    for (int d = 0; d < AG_DTYPE_COUNT; d++)
        if (strcmp(v->as.module, dtype_values[d]) == 0) return *out = (AgDtype)d, true;
    return false;
}

const char *value_type_name(const Value *v) {
    switch (v->kind) {
    case VAL_INT: return "int";
    case VAL_NUMBER: return "float";
    case VAL_BOOL: return "bool";
    case VAL_NONE: case VAL_VOID: return "NoneType";
    case VAL_STRING: return "str";
    case VAL_LIST: return v->as.list->iterator ? "list_iterator" : v->as.list->tuple ? "tuple" : "list";
    case VAL_DICT: return value_dict_type_name(v->as.dict);
    case VAL_TENSOR: return "Tensor";
    case VAL_SHAPE: return "torch.Size";
    case VAL_MODULE: return "module";
    case VAL_DTYPE: return "torch.dtype";
    case VAL_FUNCTION: return "function";
    case VAL_BUILTIN: return v->as.builtin.type ? "type" : "builtin_function_or_method";
    case VAL_CLASS: return "type";
    case VAL_INSTANCE: return v->as.object->cls->name;
    case VAL_METHOD: /* a built-in value's method bound to it (f = xs.append) is CPython's */
        return v->as.bound->func.kind == VAL_BUILTIN ? "builtin_function_or_method" : "method";
    case VAL_GENERATOR: return "Generator";
    case VAL_OPTIM: return ag_optim_name(v->as.optim->kind); /* its class's: 'Adam' */
    default: return "object";
    }
}

PyfmtArg value_pyfmt_arg(const Value *v, const PrintOptions *opts, StrBuf *text, StrBuf *repr) {
    PyfmtArg a = {.kind = PYFMT_OTHER, .type_name = value_type_name(v)};
    if (v->kind == VAL_INT) a.kind = PYFMT_INT, a.i = v->as.integer;
    else if (v->kind == VAL_BOOL) a.kind = PYFMT_BOOL, a.i = v->as.truth;
    else if (v->kind == VAL_NUMBER) a.kind = PYFMT_FLOAT, a.f = v->as.number;
    else if (v->kind == VAL_TENSOR && v->as.tensor->ndim == 0 && v->as.tensor->dtype != AG_BOOL) {
        bool integer = v->as.tensor->dtype == AG_INT64 || v->as.tensor->dtype == AG_INT32;
        if (integer) a.kind = PYFMT_INT, a.i = (int64_t)tensor_values(v->as.tensor)[0];
        else a.kind = PYFMT_FLOAT, a.f = tensor_values(v->as.tensor)[0];
    }
    else if (v->kind == VAL_STRING) a.kind = PYFMT_STR;
    value_format(text, v, opts, false);
    if (v->kind == VAL_STRING) pyfmt_str_repr(repr, v->as.string.text, v->as.string.length);
    else value_format(repr, v, opts, true);
    a.str = text->data, a.str_len = text->len;
    a.repr = repr->data, a.repr_len = repr->len;
    return a;
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
    case VAL_FUNCTION: case VAL_BUILTIN: case VAL_METHOD: return "a function";
    case VAL_CLASS: return "a class";
    case VAL_INSTANCE: return "an object";
    case VAL_DICT: return v->as.dict->set ? "a set" : "a dict";
    case VAL_MODULE: return "a module";
    case VAL_DTYPE: return "a dtype";
    case VAL_GENERATOR: return "a generator";
    }
    return "a value";
}

/* A list nested deeper than a tensor's dimensions (a list that holds
 * itself: a.append(a)) is no tensor: the walks below stop there. */

static Tensor *to_tensor_at(const Value *v, int depth, char *why, size_t size);

/* Items of a list stacked along a new first axis. */
static Tensor *stack_list(const ValueList *l, int depth, char *why, size_t size) {
    int n = l->count;
    if (depth >= AG_MAX_DIMS)
        return snprintf(why, size, "a list nested more than %d deep (a tensor has at most %d "
                        "dimensions)", AG_MAX_DIMS, AG_MAX_DIMS), NULL;
    Tensor **items = calloc((size_t)(n > 0 ? n : 1), sizeof *items);
    if (!items) return snprintf(why, size, "out of memory"), NULL;
    for (int i = 0; i < n; i++) {
        items[i] = to_tensor_at(&l->items[i], depth + 1, why, size);
        if (!items[i] && l->items[i].kind != VAL_LIST && !(why[0] == 'o' && why[1] == 'u'))
            snprintf(why, size, "item %d is %s, not a number or a tensor", i + 1,
                     value_kind_name(&l->items[i]));
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
    return to_tensor_at(v, 0, why, size);
}

static Tensor *to_tensor_at(const Value *v, int depth, char *why, size_t size) {
    why[0] = '\0';
    switch (v->kind) {
    case VAL_TENSOR: return tensor_retain(v->as.tensor);
    case VAL_NUMBER: return tensor_number(v->as.number, AG_FLOAT64); /* PyTorch's wrapped numbers */
    case VAL_INT: return tensor_number(value_scalar(v), AG_INT64);
    case VAL_BOOL: return tensor_number(value_scalar(v), AG_BOOL);
    case VAL_LIST:
        if (!v->as.list->tuple) return stack_list(v->as.list, depth, why, size);
        snprintf(why, size, "a tuple");
        return NULL;
    default: snprintf(why, size, "%s", value_kind_name(v)); return NULL;
    }
}

/* ======================================================================
 * Printing
 * ====================================================================== */

/* "Adam(lr=0.001, betas=(0.9, 0.999), ...) over [w, b]": the text its
 * row made of its options (builtins_optim.c). */
static void format_optimizer(StrBuf *out, const Optimizer *o) {
    strbuf_append(out, o->text);
    strbuf_append(out, " over [");
    for (int g = 0, k = 0; g < o->num_groups; g++) {
        const OptimGroup *grp = &o->groups[g];
        for (int i = 0; i < grp->count; i++, k++) {
            char shape[AG_SHAPE_STR_MAX];
            if (grp->names[i]) strbuf_appendf(out, "%s%s", k ? ", " : "", grp->names[i]);
            else strbuf_appendf(out, "%stensor of shape %s", k ? ", " : "",
                                tensor_shape_str(grp->params[i], shape, sizeof shape));
        }
    }
    strbuf_append(out, "]");
}

/* The lists and dicts being written, outermost first: one met again is a
 * cycle, written [...] or {...} as Python writes it (a.append(a); print(a)),
 * and nesting deeper than REPR_DEPTH is written so too (Python raises
 * RecursionError there), so the C stack stays bounded. */
enum { REPR_DEPTH = 1000 };
static const void *repr_open[REPR_DEPTH];
static int repr_depth;

static bool repr_enter(const void *container) {
    for (int i = 0; i < repr_depth; i++)
        if (repr_open[i] == container) return false;
    if (repr_depth == REPR_DEPTH) return false;
    repr_open[repr_depth++] = container;
    return true;
}

/* PyTorch's named tuple of values and indices (torch.max(x, 1)):
 * torch.return_types.max(\nvalues=...,\nindices=...) */
static void format_named_tuple(StrBuf *out, const ValueList *l, const PrintOptions *opts) {
    strbuf_appendf(out, "%s(\n", l->type_name);
    for (int i = 0; i < l->count; i++) {
        strbuf_appendf(out, "%s%s=", i ? ",\n" : "", l->fields[i]);
        value_format(out, &l->items[i], opts, true);
    }
    strbuf_append(out, ")");
}

static void format_tuple(StrBuf *out, const ValueList *l, const PrintOptions *opts) {
    if (l->type_name && l->fields) {
        format_named_tuple(out, l, opts);
        return;
    }
    if (!repr_enter(l)) {
        strbuf_append(out, l->tuple ? "(...)" : "[...]");
        return;
    }
    strbuf_append(out, l->tuple ? "(" : "[");
    for (int i = 0; i < l->count; i++) {
        if (i) strbuf_append(out, ", ");
        Value item = l->items[i];
        item.literal = false; /* (2, 3) holds numbers, as Python's tuple */
        value_format(out, &item, opts, true);
    }
    if (l->tuple && l->count == 1) strbuf_append(out, ",");
    strbuf_append(out, l->tuple ? ")" : "]");
    repr_depth--;
}

int64_t *value_counter_order(const ValueDict *d) {
    int64_t *order = malloc((size_t)(d->count ? d->count : 1) * sizeof *order);
    for (int64_t i = 0; order && i < d->count; i++) { /* insertion sort: stable */
        int64_t j = i;
        double c = value_is_scalar(&d->entries[i].value) ? value_scalar(&d->entries[i].value) : 0;
        for (; j > 0; j--) {
            const Value *prev = &d->entries[order[j - 1]].value;
            if ((value_is_scalar(prev) ? value_scalar(prev) : 0) >= c) break;
            order[j] = order[j - 1];
        }
        order[j] = i;
    }
    return order;
}

/* {k: v, ...} (a set's {k, ...}), entries in order (NULL: as stored);
 * pairs: OrderedDict's [(k, v), ...]. */
static void format_entries(StrBuf *out, const ValueDict *d, const int64_t *order, bool pairs,
                           const PrintOptions *opts) {
    strbuf_append(out, pairs ? "[" : "{");
    for (int64_t n = 0; n < d->count; n++) {
        const DictEntry *e = &d->entries[order ? order[n] : n];
        if (n) strbuf_append(out, ", ");
        if (pairs) strbuf_append(out, "(");
        value_format(out, &e->key, opts, true);
        if (d->set) continue;
        strbuf_append(out, pairs ? ", " : ": ");
        value_format(out, &e->value, opts, true);
        if (pairs) strbuf_append(out, ")");
    }
    strbuf_append(out, pairs ? "]" : "}");
}

/* The module a builtin type's name is printed in (torch.Tensor,
 * collections.Counter), with its dot; "" for Python's own. */
static const char *builtin_type_module(const char *name) {
    if (strcmp(name, "Tensor") == 0) return "torch.";
    if (strcmp(name, "Parameter") == 0) return "torch.nn.parameter.";
    if (strcmp(name, "OrderedDict") == 0 || strcmp(name, "defaultdict") == 0 ||
        strcmp(name, "Counter") == 0)
        return "collections.";
    return "";
}

/* A dict as CPython 3.11 prints it: {...}, set(), OrderedDict([(k, v)]),
 * defaultdict(<class 'int'>, {...}), Counter({...}) by count. */
static void format_dict(StrBuf *out, const ValueDict *d, const PrintOptions *opts) {
    bool named = d->flavor != DICT_PLAIN && !d->set;
    if (d->count == 0 && (d->set || d->flavor == DICT_ORDERED || d->flavor == DICT_COUNTER)) {
        strbuf_appendf(out, "%s()", value_dict_type_name(d));
        return;
    }
    if (!repr_enter(d)) {
        strbuf_append(out, "{...}");
        return;
    }
    if (named) strbuf_appendf(out, "%s(", value_dict_type_name(d));
    if (d->flavor == DICT_DEFAULT) {
        if (d->factory) value_format(out, d->factory, opts, true);
        else strbuf_append(out, "None");
        strbuf_append(out, ", ");
    }
    int64_t *order = d->flavor == DICT_COUNTER ? value_counter_order(d) : NULL;
    format_entries(out, d, order, d->flavor == DICT_ORDERED, opts);
    free(order);
    if (named) strbuf_append(out, ")");
    repr_depth--;
}

void value_format(StrBuf *out, const Value *v, const PrintOptions *opts, bool quote_strings) {
    char buf[AG_SHAPE_STR_MAX];
    switch (v->kind) {
    case VAL_VOID: break;
    case VAL_NONE: strbuf_append(out, "None"); break;
    case VAL_TENSOR: format_tensor(out, v->as.tensor, opts); break;
    case VAL_NUMBER:
        if (v->literal) { /* on its own, a literal is the constant tensor it writes */
            double x = v->as.number; /* a view of it: no allocation, so under the memory
                                        limit's last bytes it still prints */
            const Tensor t = {.values = &x, .ndim = 0, .numel = 1};
            format_tensor(out, &t, opts);
        } else if (opts->python) {
            pyfmt_float_repr(out, v->as.number);
        } else {
            format_number(out, v->as.number);
        }
        break;
    case VAL_BOOL: strbuf_append(out, v->as.truth ? "True" : "False"); break;
    case VAL_STRING:
        if (quote_strings) pyfmt_str_repr(out, v->as.string.text, v->as.string.length);
        else strbuf_appendn(out, v->as.string.text, v->as.string.length);
        break;
    case VAL_SHAPE:
        if (opts->python) { /* torch.Size([2, 3]) */
            strbuf_append(out, "torch.Size([");
            for (int i = 0; i < v->as.shape->ndim; i++)
                strbuf_appendf(out, "%s%lld", i ? ", " : "", (long long)v->as.shape->dims[i]);
            strbuf_append(out, "])");
        } else {
            strbuf_append(out, ag_shape_str(v->as.shape->ndim, v->as.shape->dims, buf, sizeof buf));
        }
        break;
    case VAL_LIST:
        if (v->as.list->iterator) strbuf_appendf(out, "<list_iterator object at %p>", (void *)v->as.list);
        else format_tuple(out, v->as.list, opts);
        break;
    case VAL_DICT: format_dict(out, v->as.dict, opts); break;
    case VAL_GRAD_FN: {
        const char *name = v->as.grad_fn.name;
        if (!opts->python) { /* version 2's <MulBackward> */
            strbuf_appendf(out, "<%.*s>", print_grad_fn_shown(name), name);
            break;
        } /* Python's repr of the node object, as PyTorch's */
        strbuf_appendf(out, "<%s%s%s object at %p>",
                       print_grad_fn_custom(name) ? "torch.autograd.function." : "", name,
                       print_grad_fn_number(name), v->as.grad_fn.node);
        break;
    }
    case VAL_OPTIM: format_optimizer(out, v->as.optim); break;
    case VAL_INT: strbuf_appendf(out, "%lld", (long long)v->as.integer); break;
    case VAL_FUNCTION:
        strbuf_appendf(out, "<function %.*s>", (int)v->as.function->name_length,
                       v->as.function->name);
        break;
    case VAL_CLASS: strbuf_appendf(out, "<class '__main__.%s'>", v->as.cls->name); break;
    case VAL_METHOD:
        if (v->as.bound->func.kind == VAL_BUILTIN) /* CPython's, the object's address as ag's */
            strbuf_appendf(out, "<built-in method %s of %s object at %p>",
                           v->as.bound->func.as.builtin.name,
                           value_type_name(&v->as.bound->self),
                           (void *)value_identity(&v->as.bound->self));
        else
            strbuf_append(out, "<bound method>");
        break;
    case VAL_INSTANCE:
        if (!opts->text || !opts->text(opts->text_ctx, v, quote_strings, out))
            strbuf_appendf(out, "<__main__.%s object at %p>", v->as.object->cls->name,
                           (void *)v->as.object);
        break;
    case VAL_BUILTIN:
        if (v->as.builtin.type)
            strbuf_appendf(out, "<class '%s%s'>", builtin_type_module(v->as.builtin.name),
                           v->as.builtin.name);
        else
            strbuf_appendf(out, "<built-in function %s>", v->as.builtin.name);
        break;
    case VAL_MODULE: strbuf_appendf(out, "<module '%s'>", v->as.module); break;
    case VAL_DTYPE: strbuf_append(out, v->as.module); break;
    case VAL_GENERATOR:
        strbuf_appendf(out, "<torch._C.Generator object at %p>", (void *)v->as.generator);
        break;
    }
}
