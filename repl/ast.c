/*
 * ast.c — the syntax tree's arena: chunks bumped and freed together.
 */
#include "ast.h"

#include <stdlib.h>

struct AstChunk {
    AstChunk *next;
    size_t size, used;
    _Alignas(16) unsigned char bytes[];
};

enum { AST_CHUNK = 16 * 1024 };

void *ast_alloc(AstArena *a, size_t size) {
    size = (size + 15) & ~(size_t)15;
    AstChunk *c = a->chunks;
    if (!c || c->size - c->used < size) {
        size_t n = size > AST_CHUNK ? size : AST_CHUNK;
        c = malloc(sizeof *c + n);
        if (!c) return NULL;
        c->size = n;
        c->used = 0;
        c->next = a->chunks;
        a->chunks = c;
    }
    void *p = c->bytes + c->used;
    c->used += size;
    a->bytes += size;
    return p;
}

void ast_arena_free(AstArena *a) {
    for (AstChunk *c = a->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    a->chunks = NULL;
    a->bytes = 0;
}
