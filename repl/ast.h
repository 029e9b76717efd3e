/*
 * ast.h — the syntax tree the parser builds and the evaluator walks:
 * expressions (Node) and statements (Stmt), whose block statements hold
 * child statements; and the bump arena they live in (freed with the
 * statement, or kept with a user function's body).
 */
#ifndef AG_AST_H
#define AG_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scan.h"

enum { MAX_ARGS = 64 };  /* arguments of one call, items of one list or index */

typedef enum {
    NODE_NUMBER,    /* as.number */
    NODE_STRING,    /* as.text: the decoded characters */
    NODE_CONST,     /* True, False, None: op is TOK_TRUE, TOK_FALSE or TOK_NONE */
    NODE_NAME,      /* as.text; torch: written torch.NAME (always the builtin) */
    NODE_LIST,      /* a list literal of numbers: a constant tensor (as.list) */
    NODE_LIST_EXPR, /* [a, b, ...] holding expressions: kids */
    NODE_TUPLE,     /* (a, b), (a,), (): kids */
    NODE_UNARY,     /* op left: '-', '+' or not */
    NODE_BINARY,    /* left op right: arithmetic, comparison, and, or */
    NODE_CALL,      /* left(kids): left is the callee, a NAME or, for a method
                       call x.f(...), an ATTR; positional arguments first, then
                       NODE_KEYWORD ones */
    NODE_KEYWORD,   /* as.text = left, inside a call */
    NODE_ATTR,      /* left.as.text */
    NODE_INDEX,     /* left[kids] */
    NODE_SLICE,     /* a:b:c inside an index: kids[0..2], each may be NULL */
    NODE_LAMBDA,    /* lambda P, Q=D: left; kids: the parameters' NAMEs, then their
                       defaults (NULL: none); num_positional: how many parameters;
                       as.text: the lambda's source text */
    NODE_TERNARY,   /* left if kids[0] else right */
    NODE_CHAIN,     /* a < b <= c (Python's chained comparison): kids, the BINARY
                       comparisons in order, each one's left the previous one's right */
    NODE_COMP,      /* [left for ...], {left for ...}, {left: right for ...},
                       (left for ...): op TOK_LBRACKET, TOK_LBRACE (a set, or a dict
                       when right is set) or TOK_LPAREN; kids: its COMP_FOR and
                       COMP_IF clauses in order */
    NODE_COMP_FOR,  /* for left in right */
    NODE_COMP_IF,   /* if left */
    NODE_DICT,      /* {k: v, ...}: kids, key then value */
    NODE_SET,       /* {a, b}: kids */
    NODE_STARRED,   /* *left, an argument of a call (f(*args)) */
    NODE_FSTRING,   /* f"..{x:.2f}..": kids, each a STRING or a FIELD */
    NODE_FIELD,     /* {left!op:spec} of an f-string: op the conversion ('r', 's',
                       'a' or 0), as.text the format spec (its raw text) */
} NodeKind;

typedef struct Node Node;
struct Node {
    NodeKind kind;
    TokenType op;         /* UNARY, BINARY, CONST */
    int line, col;        /* where a message about this node points */
    int height;           /* of the subtree: bounds the evaluator's recursion */
    bool parenthesized;   /* written inside ( ): (a < b) < c is no chain */
    bool torch;           /* NAME: written torch.NAME */
    bool integer;         /* NUMBER: written without '.' or exponent (Python's int) */
    bool too_big;         /* NUMBER: an integer past 2**63 - 1 */
    int64_t ivalue;       /* NUMBER: the integer, exactly, when integer */
    int num_kids;
    int num_positional;   /* CALL: kids before the first keyword argument */
    Node *left, *right;
    Node **kids;
    union {
        double number;
        struct { const char *text; size_t length; } text;  /* NAME, STRING, ATTR, KEYWORD */
        struct { int ndim; int64_t shape[8]; int64_t count; double *values; } list;
    } as;
    /* NAME: where the variable was last found (eval.c's lookup cache), and
     * the builtin of that name (found once: the table never changes) */
    int cache_slot;
    uint32_t cache_generation;
    int local_slot;       /* NAME: 1 + where in a call's variables it was last found */
    const char *ident;    /* NAME, ATTR: its text's interned copy (eval.c's name_ident), or NULL
                             until first needed: variables are bound under it, so that
                             finding one is mostly comparing two pointers */
    int attr_slot;        /* ATTR: where in an object's attributes it was last found
                             (value_own_attr's hint) */
    const void *builtin;
    bool builtin_known;
    /* Whether a call in the subtree names a builtin that returns nothing
     * (eval.c's check_void_calls): 0 not yet known, 1 no, 2 yes. */
    signed char names_void;
    /* LAMBDA: whether its body reads a name other than its parameters
     * (eval.c's needs_closure): 0 not yet known, 1 no, 2 yes. */
    signed char free_names;
    /* NAME: how many envs up from the running call's it was last found (with
     * local_slot: a comprehension's body reading its function's variables) */
    signed char local_depth;
};

typedef enum {
    STMT_EXPR,      /* expr: evaluate and print (at the top level) */
    STMT_ASSIGN,    /* target = expr; target a NAME, x.grad or x[...] */
    STMT_AUGASSIGN, /* target op= expr */
    STMT_DEF,       /* name(params) = expr, or name(params) { body } */
    STMT_FOR,       /* for target in expr { body } */
    STMT_WHILE,     /* while expr { body } */
    STMT_IF,        /* if expr { body } else { orelse } (else if: one IF inside) */
    STMT_NO_GRAD,   /* no_grad { body } */
    STMT_BREAK,
    STMT_CONTINUE,
    STMT_RETURN,    /* return [expr] */
    STMT_IMPORT,    /* import A.B [as N], ... (kids: the dotted NAMEs, with as.text the
                       whole dotted name, and aliases) / from A.B import N [as M], ... */
    STMT_PASS,
    STMT_GLOBAL,    /* global / nonlocal names: params */
    STMT_ASSERT,    /* assert expr [, message]: expr, target = the message */
    STMT_DEL,       /* del TARGET, ...: params */
    STMT_CLASS,     /* class target[(expr)]: body */
    STMT_YIELD,     /* yield [expr], in a def that is a generator */
    STMT_RAISE,     /* raise [expr] (.py): raises expr, a BaseException class or object */
    STMT_TRY,       /* try: body, handlers (EXCEPTs), else: orelse, finally: finalbody (.py) */
    STMT_EXCEPT,    /* a TRY's except [expr [as target]]: body (expr NULL: a bare except) */
    STMT_WITH,      /* with expr [as target]: body, a context manager (.py; several: nested) */
} StmtKind;

typedef struct Stmt Stmt;

typedef struct {
    Stmt **items;
    int count;
} Block;

struct Stmt {
    StmtKind kind;
    int line, col;
    TokenType op;          /* AUGASSIGN: TOK_PLUS, TOK_MINUS, TOK_STAR, TOK_SLASH */
    Node *target;          /* ASSIGN, AUGASSIGN, FOR; DEF: the NAME */
    Node *expr;            /* value, condition, iterable, returned value (may be NULL) */
    Block body, orelse;
    Block handlers;        /* TRY: its EXCEPT clauses, in order */
    Block finalbody;       /* TRY: finally's (count 0: none) */
    Node **params;         /* DEF: NAME nodes; IMPORT: the imported names; GLOBAL: names;
                              ASSIGN: the targets after the first (a = b = 0) */
    Node **defaults;       /* DEF: each parameter's default (NULL: none); IMPORT: aliases */
    int star;              /* DEF: the index of the *args parameter, or -1; those after it
                              (before **kwargs) are keyword-only */
    bool bare_star;        /* DEF: that parameter is a bare * (its tuple must be empty) */
    int dstar;             /* DEF: the index of the **kwargs parameter (the last), or -1 */
    int num_params;
    bool enable_grad;      /* NO_GRAD: with torch.enable_grad() */
    bool anomaly;          /* NO_GRAD: with torch.autograd.detect_anomaly() (expr: the
                              call, whose argument, if any, says on or off), not grad mode */
    bool set_grad;         /* NO_GRAD: with torch.set_grad_enabled(mode) (expr: the call,
                              whose argument says the grad mode) */
    bool python_block;     /* DEF: def NAME(...): (Python's rules for its body) */
    bool generator;        /* DEF: its body yields (a call gives the yielded values) */
    signed char grad_mode; /* DEF: @torch.no_grad() (-1) or @torch.enable_grad() (1) on it */
    bool staticmethod;     /* DEF: @staticmethod on it (no self when called on an object) */
    bool classmethod;      /* DEF: @classmethod on it (its class, not the object, comes first) */
    Node **decorators;     /* DEF: the other decorators, top first: f = d0(d1(...(f))) */
    int num_decorators;
    bool nonlocal;         /* GLOBAL: nonlocal rather than global */
    Node **globals;        /* DEF (.py): the names of every global statement in its body,
                              which Python applies to the whole call wherever they stand */
    int num_globals;
    Node **nonlocals;      /* DEF (.py): the same for nonlocal */
    int num_nonlocals;
    Node *module;          /* IMPORT: from MODULE import ... (NULL: import ...) */
    bool has_block;        /* DEF: f(x) { ... } */
    signed char free_names;/* DEF: as Node's (0 not yet known, 1 no, 2 yes) */
    const char *text;      /* DEF: the statement's source, for :vars and re-parsing */
    size_t text_length;
};

/* A bump allocator of 16-byte aligned blocks. */
typedef struct AstChunk AstChunk;
typedef struct {
    AstChunk *chunks;
    size_t bytes;       /* in use, for limits */
} AstArena;

/* NULL when out of memory: malloc failing, or the trees of every arena
 * together, with the engine's tensors and graph, passing the memory limit
 * (ag_memory_limit; ast_alloc_error says which). */
void *ast_alloc(AstArena *a, size_t size);
void ast_arena_free(AstArena *a);
/* The reason of the last failed ast_alloc, for the message. */
const char *ast_alloc_error(void);

#endif
