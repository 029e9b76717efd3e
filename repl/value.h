/*
 * value.h — what an expression evaluates to in the shell: a tensor, a
 * number, a boolean, a string, a shape, a list or tuple, None, an
 * optimizer, or nothing (a call that returns nothing). Values own what they
 * hold: value_release frees it, value_copy makes a second owner.
 *
 * A number is a Python float (x.item(), len(x), a loop over range). A
 * numeric literal is a number marked `literal`: on its own it is the 0-d
 * constant tensor it always was (5 prints tensor(5.)), beside a number it
 * acts as one (i + 1 prints 1).
 */
#ifndef AG_VALUE_H
#define AG_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ag.h"
#include "ast.h"
#include "print.h"
#include "pyformat.h"
#include "strbuf.h"

typedef enum {
    VAL_VOID,    /* a call that returns nothing (backward, print) */
    VAL_NONE,
    VAL_TENSOR,
    VAL_NUMBER,
    VAL_BOOL,
    VAL_STRING,  /* owns its bytes (shared, refcounted); bound only in .py files */
    VAL_SHAPE,   /* x.shape: a tuple of integers */
    VAL_LIST,    /* [a, b] of expressions, or a tuple (a, b) */
    VAL_GRAD_FN, /* x.grad_fn: prints as <MulBackward> */
    VAL_OPTIM,   /* an optimizer: opt = SGD([w, b], lr=0.1) */
    VAL_INT,     /* Python's int (.py files): exact, 64-bit */
    VAL_DICT,    /* Python's dict, or a set (as.dict->set): shared, insertion-ordered */
    VAL_FUNCTION,/* a function you defined (def, f(x) = ..., lambda): as.function */
    VAL_CLASS,   /* a class: as.cls */
    VAL_INSTANCE,/* an object of a class: as.object */
    VAL_METHOD,  /* a function bound to an object (obj.f), or super()'s view of one: as.bound */
    VAL_BUILTIN, /* a builtin as a value (act = torch.tanh): as.builtin */
    VAL_MODULE,  /* import math, import torch.nn.functional as F: as.module */
    VAL_DTYPE,   /* torch.float64, x.dtype: as.module holds its name ("torch.float64") */
    VAL_GENERATOR, /* torch.Generator(): a random stream of its own (as.generator) */
} ValueKind;

typedef struct Value Value;

/* Blocks for the objects a Python program makes and drops by the
 * thousand (a call's Env, an object, its dict and the dict's entries, a
 * function): freed ones are kept by size and handed out again before
 * malloc is asked, as CPython's free lists do. A block of one may be freed
 * with the other (value_block_free(p, size) of a malloc'd block of size
 * bytes, free() of a value_block_alloc'd one): the cache holds plain
 * malloc blocks. value_block_alloc's block is not zeroed; NULL when memory
 * runs out. */
void *value_block_alloc(size_t size);
void value_block_free(void *p, size_t size);
static inline void *value_block_zalloc(size_t size) {
    void *p = value_block_alloc(size);
    if (p) memset(p, 0, size);
    return p;
}

/* Whether the n bytes at a and b are the same: names and keys are short, so
 * a loop here beats a call to memcmp. */
static inline bool value_same_bytes(const char *a, const char *b, size_t n) {
    if (a == b) return true;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return false;
    return true;
}
/* x.shape's dimensions: shared by the values that hold them (refs), so
 * that a value stays four words. */
typedef struct ShapeObj {
    int refs;
    int ndim;
    int64_t dims[AG_MAX_DIMS];
} ShapeObj;
/* What session_collect's census knows of a container: the census that last
 * counted it, and its references from outside the containers counted. */
typedef struct {
    unsigned census;
    int outside;
} GcCount;
typedef struct ValueList ValueList;
typedef struct ValueDict ValueDict;
typedef struct UserFunc UserFunc;
typedef struct Env Env;
typedef struct ClassObj ClassObj;
typedef struct Instance Instance;
typedef struct Bound Bound;
struct Builtin;

/* One parameter group of an optimizer (PyTorch's opt.param_groups[i]):
 * its own engine optimizer, since each group has its own options, and its
 * tensors, updated in place. */
typedef struct OptimGroup {
    AgOptimizer *engine;
    AgOptimConfig config;  /* the options the engine has now */
    int count;
    Tensor **params;       /* count tensors, retained */
    char **names;          /* how each was written (w), for printing; NULL where it was no name */
    ValueDict *options;    /* 'params' and each option: the dict the script sees and may
                              change (opt.param_groups[0]['lr'] = 0.01), read at each step */
} OptimGroup;

/* An optimizer as the shell holds it: its groups (every name, list and
 * object holding one of their tensors sees each step). Shared by the
 * values that hold it (refs). builtins_optim.c makes it; value.c frees it,
 * as it frees every kind of value (so value.c calls nothing above it). */
typedef struct Optimizer {
    int refs;
    AgOptimKind kind;
    int num_groups;
    OptimGroup *groups;
    char *text;      /* "Adam(lr=0.001, ...)": how it prints, before " over [w, b]" */
} Optimizer;
void optimizer_release(Optimizer *o);

/* torch.Generator(): the engine's generator, shared by the values that
 * hold it (refs), as Python's names share one object. builtins_create.c
 * makes it; value.c frees it. */
typedef struct Generator {
    int refs;
    AgGenerator *engine;
} Generator;
void generator_release(Generator *g);

struct Value {
    ValueKind kind;
    bool literal;   /* NUMBER: written as a number literal */
    union {
        Tensor *tensor;                                      /* owned reference */
        double number;
        bool truth;
        struct { const char *text; size_t length; struct StrObj *owner; } string;
                         /* owner: the refcounted bytes text points into, or NULL
                            for static text (a signature's default) */
        struct ShapeObj *shape;                              /* one of its refs */
        ValueList *list;                                     /* one of its refs */
        ValueDict *dict;                                     /* one of its refs */
        struct { const char *name; const void *node; uint64_t stamp; } grad_fn;
                         /* name: static text; node: the Function, printed as its
                            address, never read (it goes with the arena); stamp:
                            its generation and seq, its identity (is, ==) */
        Optimizer *optim;                                    /* one of its refs */
        Generator *generator;                                /* one of its refs */
        int64_t integer;
        UserFunc *function;                                  /* one of its refs */
        ClassObj *cls;                                       /* one of its refs */
        Instance *object;                                    /* one of its refs */
        Bound *bound;                                        /* one of its refs */
        struct { const struct Builtin *row; const char *name; bool type; } builtin;
                         /* static; type: a type (int, list, torch.Tensor), printed
                            as <class 'int'> */
        const char *module;                                  /* "torch.nn.functional" (static) */
    } as;
};

/* Every list and dict is on one circle, so that the session's collector
 * can find those nothing reaches (a cycle refcounts never free: a.append(a),
 * node.me = node, an object's method stored in it): every cycle of values
 * passes through a list, a dict (an object's attributes) or an env. */
typedef struct GcLink {
    struct GcLink *prev, *next;
    bool dict;                 /* a ValueDict; else a ValueList */
} GcLink;

/* Shared by the values that hold it (refs), as Python's lists are: an
 * append through one name is seen through every other. */
struct ValueList {
    int refs;
    unsigned seen;             /* session_collect's pass that last reached it */
    GcCount census;            /* session_collect's count of its references */
    GcLink gc;
    bool tuple;     /* written (a, b) rather than [a, b] */
    bool iterator;  /* what iter() or a generator's call gave: its items are taken as they
                       are read (next(), a for loop, list(), islice) */
    const char *type_name;        /* a named tuple's ("torch.return_types.max"), or NULL */
    const char *const *fields;    /* its items' names ({"values", "indices"}), or NULL */
    int count, cap;
    int own_cap;    /* how many items own has room for */
    Value *items;   /* own, the items made with the list, until it grows past them
                       (value_list_reserve) */
    Value own[];
};
/* Room for at least count items in l; false when memory runs out. */
bool value_list_reserve(ValueList *l, int64_t count);

/* The source text and syntax tree that functions run: shared (refs) by the
 * functions whose trees live in it, and by the calls running them. */
typedef struct Code {
    int refs;
    char *source;
    AstArena arena;
    int64_t bytes;     /* source and tree: counted against the memory limit */
} Code;

/* A variable of a function call. Names point into the Code of the
 * function the call runs (the Env keeps it), or, in an env with no Code (a
 * comprehension at the top level), are copies it owns. */
typedef struct {
    const char *name;
    size_t length;
    Value value;
} Local;

/* The variables of one call of a function, shared with the functions
 * defined during the call (closures see them, as Python's cells). Every Env
 * is on its session's list, so that envs kept alive only by each other
 * (a nested function stored in the env it closes over) can be found and
 * cleared (session_collect). */
enum { ENV_FEW_LOCALS = 6 };
struct Env {
    int refs;
    Local *locals;             /* few, until more are bound */
    int num_locals, cap_locals;
    Env *parent;               /* the env the function was defined in, or NULL */
    Code *code;                /* what the names point into */
    Node *const *globals;      /* names a global statement made global here */
    int num_globals;
    Node *const *nonlocals;    /* names a nonlocal statement binds in a parent */
    int num_nonlocals;
    Env *prev, *next;          /* the session's list */
    bool marked;               /* reachable, during session_collect */
    GcCount census;            /* session_collect's count of its references */
    bool class_scope;          /* a class body's namespace: functions defined in it do
                                  not close over it */
    Local few[ENV_FEW_LOCALS]; /* a call's first variables, with no allocation of their own */
};
/* Frees e's locals array unless it is e's own few. */
static inline void env_free_locals(Env *e, Local *locals) {
    if (locals != e->few) free(locals);
}

/* A function: a def (or ag's f(x) = EXPR, f(x) { ... }) or a lambda, with
 * its defaults (evaluated where it was defined) and the env it closes
 * over. */
struct UserFunc {
    int refs;
    unsigned seen;             /* session_collect's pass that last reached it */
    GcCount census;            /* session_collect's count of its references */
    Code *code;                /* owns def's or lambda's tree */
    const Stmt *def;           /* or */
    const Node *lambda;        /* NODE_LAMBDA */
    const char *name;          /* the def's name, or "<lambda>" */
    size_t name_length;
    Value *defaults;           /* one per parameter; VAL_VOID where none; or NULL */
    Env *closure;              /* the defining call's variables, or NULL (top level) */
    bool python;               /* defined in the .py dialect: its calls run in it, wherever
                                  they come from (a class :load-ed at the prompt) */
    bool module;               /* defined by a module's code (torch.nn's, an imported .py's,
                                  or a function of theirs): the builtins it names are the
                                  builtins, whatever the script's globals hold, as a
                                  Python module's globals are its own */
};

/* f's parameters (NAME nodes), *n of them. */
static inline Node *const *userfunc_params(const UserFunc *f, int *n) {
    *n = f->def ? f->def->num_params : f->lambda->num_positional;
    return f->def ? f->def->params : f->lambda->kids;
}

/* A class: its name, its base (single inheritance) and its namespace (the
 * names its body bound: methods, class attributes), keyed by strings. */
struct ClassObj {
    int refs;
    unsigned seen;             /* session_collect's pass that last reached it */
    GcCount census;            /* session_collect's count of its references */
    char *name;
    ClassObj *base;            /* one of its refs, or NULL */
    ValueDict *attrs;
    int64_t object_attrs;      /* how many attributes its last new object had after
                                  __init__: the next one's dict is made that big at once */
    uint32_t defines_generation; /* value_object_defines's answers, while value.c's class
                                    generation is this one: */
    bool defines_eq, defines_hash, defines_setattr, defines_getattr;
};
/* Bumped at every change of a class's attributes (value_setattr): a
 * class's cached answers of value_object_defines hold while it stands. */
extern uint32_t value_class_generation;
/* Finds c's answers for value_object_defines again. */
void value_class_defines(ClassObj *c);

/* An object: its class and its attributes. */
struct Instance {
    int refs;
    unsigned seen;             /* session_collect's pass that last reached it */
    GcCount census;            /* session_collect's count of its references */
    ClassObj *cls;
    ValueDict *attrs;
};

static inline bool value_object_defines(const Value *v, const char *name) {
    if (v->kind != VAL_INSTANCE) return false;
    ClassObj *c = v->as.object->cls;
    if (c->defines_generation != value_class_generation) value_class_defines(c);
    switch (name[2]) {
    case 'e': return c->defines_eq;
    case 'h': return c->defines_hash;
    case 's': return c->defines_setattr;
    default: return c->defines_getattr;
    }
}

/* obj.method: the function and the object it is bound to; or super()'s
 * view of an object (func void, from: the class the lookup starts at). */
struct Bound {
    int refs;
    unsigned seen;             /* session_collect's pass that last reached it */
    GcCount census;            /* session_collect's count of its references */
    Value func;
    Value self;
    ClassObj *from;            /* super(): one of its refs; NULL for a bound method */
};

void class_release(ClassObj *c);

/* The attribute NAME of an object, a class or super()'s view (obj.x): the
 * object's own, then its class's and the bases' (a function found there
 * bound to the object, unless it is a staticmethod); a new value in out, or
 * false when there is none. */
bool value_getattr(const Value *obj, const char *name, size_t length, Value *out);
/* The function obj.NAME(...) would call with obj first (borrowed): a
 * method of obj's class (not a staticmethod) that no attribute of obj's
 * own hides; NULL otherwise. obj is an object (VAL_INSTANCE). */
const Value *value_method_of(const Value *obj, const char *name, size_t length);
/* The attribute NAME of object o's own (borrowed), or NULL. hint, unless
 * NULL, is where among o's attributes the caller found NAME last (an
 * attribute node's: objects of a class get their attributes in the same
 * order): looked at first (value_own_attr, inline, below), then set to
 * where it is. */
Value *value_own_attr_lookup(const Instance *o, const char *name, size_t length, int *hint);
/* obj.NAME = v (taking v) on an object or a class; false (v released) when
 * obj is neither or memory runs out. hint as value_own_attr's. */
bool value_setattr(const Value *obj, const char *name, size_t length, int *hint, Value v);
/* del obj.NAME of an object or a class: false when it has no such
 * attribute of its own (or is neither). */
bool value_delattr(const Value *obj, const char *name, size_t length);
/* Whether v can be called: a function, a builtin, a class, a bound
 * method, an object whose class has __call__. */
bool value_is_callable(const Value *v);
/* The value NAME names in class c or its bases (borrowed), or NULL. */
const Value *value_class_lookup(const ClassObj *c, const char *name, size_t length);
void code_release(Code *c);
void env_release(Env *e);
void userfunc_release(UserFunc *f);

static inline Value value_void(void) { return (Value){.kind = VAL_VOID}; }
static inline Value value_none(void) { return (Value){.kind = VAL_NONE}; }
static inline Value value_tensor(Tensor *t) { return (Value){.kind = VAL_TENSOR, .as.tensor = t}; }
static inline Value value_number(double v) { return (Value){.kind = VAL_NUMBER, .as.number = v}; }
static inline Value value_integer(int64_t v) { return (Value){.kind = VAL_INT, .as.integer = v}; }
static inline Value value_bool(bool b) { return (Value){.kind = VAL_BOOL, .as.truth = b}; }

/* Element i of t as the Python value PyTorch's item() gives: an int of an
 * integer tensor and a bool of a bool one in a .py file (python), else a
 * number. */
Value value_element(const Tensor *t, int64_t i, bool python);
/* torch.float32 and the others as values, and back: false for a value
 * that is no dtype ag has (torch.float16 among them). */
Value value_dtype(AgDtype dtype);
bool value_as_dtype(const Value *v, AgDtype *out);

/* A torch.Size of ndim dims; false when out of memory. */
bool value_shape(int ndim, const int64_t *dims, Value *out);
/* The one copy of the name kept for the program's life (the table that
 * attribute names share): the same pointer for the same name, wherever it
 * was written; NULL when the table is full (names past 16,384) or memory
 * runs out. */
const char *value_intern(const char *name, size_t length);
/* Whether value_intern ever failed (its table full, or memory out): until
 * then, two names it gave are the same name exactly when they are the
 * same pointer. */
extern bool value_intern_failed;
/* A string value owning a copy of text; false when out of memory. */
bool value_string(const char *text, size_t length, Value *out);

/* The kinds whose values hold a reference to something (value_release
 * has work to do, value_copy a count to raise): a bit per ValueKind. */
#define VALUE_HOLDS_MASK                                                                     \
    ((1u << VAL_STRING) | (1u << VAL_TENSOR) | (1u << VAL_SHAPE) | (1u << VAL_LIST) |       \
     (1u << VAL_DICT) | (1u << VAL_OPTIM) | (1u << VAL_GENERATOR) | (1u << VAL_FUNCTION) | \
     (1u << VAL_CLASS) | (1u << VAL_INSTANCE) | (1u << VAL_METHOD))
void value_release_held(Value *v);
void value_copy_held(const Value *v);
/* The kinds whose value points at a struct that begins with its count
 * (int refs; value.c asserts it of each): a reference is taken or dropped
 * (while others remain) here, inline, with no call. */
#define VALUE_COUNTED_MASK                                                                   \
    ((1u << VAL_SHAPE) | (1u << VAL_LIST) | (1u << VAL_DICT) | (1u << VAL_OPTIM) |           \
     (1u << VAL_GENERATOR) | (1u << VAL_FUNCTION) | (1u << VAL_CLASS) | (1u << VAL_INSTANCE) | \
     (1u << VAL_METHOD))
/* The count of what v points at, for the kinds of VALUE_COUNTED_MASK: a
 * pointer to a struct is one to its first member, whichever of the union's
 * pointers v was made with. */
static inline int *value_counted_refs(const Value *v) { return (int *)(void *)v->as.list; }
/* Drops v's reference (freeing what no other value holds); v becomes VAL_VOID.
 * Inline, since most values the evaluator drops are numbers or one of
 * several references. */
static inline void value_release(Value *v) {
    unsigned kind = 1u << v->kind;
    if ((kind & VALUE_COUNTED_MASK) && v->as.list && *value_counted_refs(v) > 1) {
        --*value_counted_refs(v);
        *v = value_void();
    } else if (kind & VALUE_HOLDS_MASK) {
        value_release_held(v);
    } else {
        *v = value_void();
    }
}
/* A second owner of v's contents (a second reference); true (the bool is
 * kept for the callers written when lists were deep copies). */
static inline bool value_copy(const Value *v, Value *out) {
    unsigned kind = 1u << v->kind;
    *out = *v;
    if (kind & VALUE_COUNTED_MASK) ++*value_counted_refs(v);
    else if (kind & VALUE_HOLDS_MASK) value_copy_held(v);
    return true;
}
/* A new list of count items, all VAL_VOID; NULL when out of memory. */
ValueList *value_list_new(int count, bool tuple);
/* Appends v to l (taking it); false when out of memory (v released). */
bool value_list_append(ValueList *l, Value v);

/* A dict (or set): entries in insertion order, found by hash. Keys are
 * Python's hashable values: None, bools, numbers (1 and 1.0 are the same
 * key), strings, tuples of them, and tensors (by identity, as PyTorch's). */
typedef struct {
    Value key, value;
    uint64_t hash;
} DictEntry;
/* The dicts of Python's collections module: a dict all the same (every
 * dict operation takes one), printed and named as its type. */
typedef enum {
    DICT_PLAIN,
    DICT_ORDERED, /* OrderedDict: == between two of them minds the order */
    DICT_DEFAULT, /* defaultdict: d[k] of a missing key stores factory() */
    DICT_COUNTER, /* Counter: d[k] of a missing key is 0 (not stored) */
} DictFlavor;

struct ValueDict {
    int refs;
    unsigned seen;             /* session_collect's pass that last reached it */
    GcCount census;            /* session_collect's count of its references */
    GcLink gc;
    bool set;
    unsigned char flavor;      /* a DictFlavor */
    Value *factory;            /* DICT_DEFAULT's default_factory (owned), or NULL */
    int64_t count, cap;
    DictEntry *entries;
    int64_t *slots;        /* open addressing: entry index + 1, 0 empty; in the entries'
                              allocation, after them (freeing entries frees both) */
    int64_t num_slots;
};
/* value_own_attr_lookup, with its hint looked at first, inline. A name that
 * is the interned copy (value_intern) matches an attribute's key, which is
 * too (value_setattr interns them), at one pointer comparison. */
static inline Value *value_attr_at_hint(const ValueDict *d, const char *name, size_t length,
                                        const int *hint) {
    if (hint && *hint >= 0 && *hint < d->count) {
        DictEntry *e = &d->entries[*hint];
        if (e->key.kind == VAL_STRING && e->key.as.string.length == length &&
            value_same_bytes(e->key.as.string.text, name, length))
            return &e->value;
    }
    return NULL;
}
static inline Value *value_own_attr(const Instance *o, const char *name, size_t length,
                                    int *hint) {
    Value *v = value_attr_at_hint(o->attrs, name, length, hint);
    return v ? v : value_own_attr_lookup(o, name, length, hint);
}
ValueDict *value_dict_new(bool set);
/* d's type as Python names it: dict, set, OrderedDict, defaultdict, Counter. */
const char *value_dict_type_name(const ValueDict *d);
/* A Counter's entries (their indexes) in its printing and most_common
 * order: by count, largest first, ties in insertion order (CPython sorts
 * stably); d->count of them, to free; NULL when memory runs out. */
int64_t *value_counter_order(const ValueDict *d);
/* Makes d a defaultdict of factory (taken; VAL_NONE: none); false when
 * memory runs out (factory released). */
bool value_dict_set_factory(ValueDict *d, Value factory);
/* Room for count entries in d at once (a power of two); false when memory
 * runs out (d unchanged). */
bool value_dict_reserve(ValueDict *d, int64_t count);
/* Whether v can be a key; false with its type's name in *type. */
bool value_hashable(const Value *v);
/* The hash a dict keys v by (v hashable). */
uint64_t value_key_hash(const Value *v);
/* The value stored under key, or NULL. */
Value *value_dict_get(const ValueDict *d, const Value *key);
/* d[key] = value (taking both); false when out of memory (both released). */
bool value_dict_set(ValueDict *d, Value key, Value value);
/* Removes key from d; false if it is not there. */
bool value_dict_remove(ValueDict *d, const Value *key);
/* Empties every list and dict whose seen is not pass (the collector's
 * pass found nothing that reaches them), which frees their cycles;
 * returns how many it emptied. Only the collector calls it, where every
 * live list and dict is reachable from what the pass marked. */
int64_t value_clear_unseen(unsigned pass);
/* Calls fn with every list and dict on the collector's circle (as a
 * borrowed value), for the collector's census; value_each_young with those
 * made since value_promote_young last ran (the young generation). */
void value_each_tracked(void (*fn)(void *ctx, const Value *v), void *ctx);
void value_each_young(void (*fn)(void *ctx, const Value *v), void *ctx);
/* Makes every list and dict on the circle old. */
void value_promote_young(void);
/* Empties the list or dict v holds (releasing its items), which breaks the
 * cycles through it; the collector's sweep. */
void value_empty_container(const Value *v);

/* Takes the list or dict v holds off the collector's circle: it lives as
 * long as the program, held where no pass looks (a signature's default,
 * betas=(0.9, 0.999)). */
void value_keep(const Value *v);

/* The address of the object v holds (a tensor, list, dict, function,
 * class, instance, optimizer, builtin's row or module), the same for every
 * value that holds it: Python's identity (is, id); 0 for plain values
 * (numbers, bools, None). */
uintptr_t value_identity(const Value *v);
/* Set when value_equal stopped at its depth (lists nested thousands deep):
 * its false then means "could not tell"; the caller clears it. */
extern bool value_equal_too_deep;
/* The interpreter's answers for objects whose class defines __eq__ or
 * __hash__, which containers compare and hash by (a set of them, `in`, a
 * dict key): set by the session (eval.c); with none, objects are compared
 * and hashed by identity. Each returns false when the method failed, its
 * error the session's: value_hook_failed is then set, and the statement
 * running fails with that error when it ends. */
typedef struct {
    bool (*equal)(void *ctx, const Value *a, const Value *b, bool *out);
    bool (*hash)(void *ctx, const Value *v, uint64_t *out);
    void *ctx;
} ValueObjectHooks;
extern ValueObjectHooks value_object_hooks;
extern bool value_hook_failed;
/* When value.c failed without a hook's error (a lookup that never ended),
 * its message; else NULL. */
extern const char *value_hook_message;
/* Whether object v's class (or a base) defines NAME: "__eq__",
 * "__hash__" (__hash__ = None, or an __eq__ met first with no __hash__,
 * says it has none, as Python's), "__setattr__" or "__getattr__". */
static inline bool value_object_defines(const Value *v, const char *name);
/* Python's == for values that are not tensors (a tensor equals only itself). */
bool value_equal(const Value *a, const Value *b);

/* How many items a for loop or an unpacking finds in v (a list or tuple,
 * a shape, a tensor's first axis), or -1 when v has none. */
int64_t value_item_count(const Value *v);
/* Item k of v (a new value; a shape's dimensions as `as_int` asks: Python's
 * int or a number); false when the engine or memory fails (ag_error()). */
bool value_item(const Value *v, int64_t k, bool as_int, Value *out);

/* Python's name of v's type ("int", "list", "Tensor"), for messages. */
const char *value_type_name(const Value *v);
/* v described for pyformat (format(), f-strings, %): numbers as
 * themselves (a 0-d tensor as its number, as Tensor.__format__ does),
 * everything with its str() and repr(), which text and repr receive (the
 * caller frees them). */
PyfmtArg value_pyfmt_arg(const Value *v, const PrintOptions *opts, StrBuf *text,
                                StrBuf *repr);

/* "a tensor", "a number", "None", ...: how messages name a kind. */
const char *value_kind_name(const Value *v);
/* Whether v is a number, a boolean or a numeric literal (a scalar that is
 * not a tensor), and its value as a double. */
static inline bool value_is_scalar(const Value *v) {
    return v->kind == VAL_NUMBER || v->kind == VAL_BOOL || v->kind == VAL_INT;
}
/* Whether v is a Python int (or a bool, which is one), and its value. */
static inline bool value_is_int(const Value *v) { return v->kind == VAL_INT || v->kind == VAL_BOOL; }
/* Whether v is a tensor of one integer (or bool) element, which Python's
 * operator.index takes as an int (PyTorch's Tensor.__index__): xs[t],
 * range(t), [0] * t. */
static inline bool value_is_index_tensor(const Value *v) {
    return v->kind == VAL_TENSOR && v->as.tensor->numel == 1 &&
           (v->as.tensor->dtype == AG_INT64 || v->as.tensor->dtype == AG_INT32 ||
            v->as.tensor->dtype == AG_BOOL);
}
static inline int64_t value_int(const Value *v) {
    return v->kind == VAL_BOOL ? (int64_t)v->as.truth : v->as.integer;
}
static inline double value_scalar(const Value *v) {
    return v->kind == VAL_BOOL ? (v->as.truth ? 1.0 : 0.0)
           : v->kind == VAL_INT ? (double)v->as.integer
                                : v->as.number;
}

/* The value as a tensor: a new reference. Numbers and booleans become 0-d
 * constants, a list is stacked along a new first axis (recorded when an
 * item requires grad). NULL with why saying what is wrong ("None", "a
 * string", a ragged list), or why empty and ag_error() set. */
Tensor *value_to_tensor(const Value *v, char *why, size_t size);

/* Appends the value as the shell prints a result (tensors with opts;
 * numbers as Python prints a float, integral values without ".0"; True,
 * False, None; shapes and tuples as Python tuples). Strings as they are
 * (print) or quoted (a result at the prompt). */
void value_format(StrBuf *out, const Value *v, const PrintOptions *opts, bool quote_strings);

#endif
