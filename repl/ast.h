/*
 * ast.h — the syntax tree the parser builds and the evaluator walks, and
 * the bump arena its nodes live in (freed with the statement, or kept with
 * a user function's body).
 */
#ifndef AG_AST_H
#define AG_AST_H

#include <stddef.h>
#include <stdint.h>

#include "scan.h"

typedef enum {
    NODE_NUMBER,  /* number */
    NODE_LIST,    /* list literal: shape and values */
    NODE_NAME,    /* name */
    NODE_UNARY,   /* op operand: '-' or '+' */
    NODE_BINARY,  /* left op right: + - * / @ ** */
    NODE_CALL,    /* name(args) */
    NODE_ATTR,    /* object.name */
} NodeKind;

typedef struct Node Node;
struct Node {
    NodeKind kind;
    int line, col;        /* where a message about this node points */
    int height;           /* of the subtree: bounds the evaluator's recursion */
    union {
        double number;
        struct { int ndim; int64_t shape[8]; int64_t count; double *values; } list;
        struct { const char *text; size_t length; } name;  /* NAME, CALL callee, ATTR name */
    } as;
    TokenType op;         /* UNARY, BINARY */
    Node *left, *right;   /* UNARY: left; BINARY: both; ATTR: left is the object */
    Node **args;          /* CALL */
    int num_args;
};

typedef enum {
    STMT_EXPR,    /* EXPR: evaluate and print */
    STMT_ASSIGN,  /* NAME = EXPR */
    STMT_DEF,     /* NAME(P1, P2) = EXPR */
} StmtKind;

typedef struct {
    StmtKind kind;
    int line, col;
    const char *name;     /* ASSIGN, DEF (not NUL-terminated: name_length) */
    size_t name_length;
    Node *expr;           /* the value or the function body */
    Node **params;        /* DEF: NAME nodes */
    int num_params;
    const char *text;     /* DEF: the statement's source, for :help and listing */
    size_t text_length;
} Stmt;

/* A bump allocator of 16-byte aligned blocks. */
typedef struct AstChunk AstChunk;
typedef struct {
    AstChunk *chunks;
    size_t bytes;       /* in use, for limits */
} AstArena;

void *ast_alloc(AstArena *a, size_t size); /* NULL when out of memory */
void ast_arena_free(AstArena *a);

#endif
