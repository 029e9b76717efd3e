/*
 * ast.c — the syntax tree's arena: chunks bumped and freed together.
 */
#include "ast.h"

#include <stdio.h>
#include <stdlib.h>

#include "ag.h"

struct AstChunk {
    AstChunk *next;
    size_t size, used;
    _Alignas(16) unsigned char bytes[];
};

enum { AST_CHUNK = 16 * 1024 };

/* Every arena's chunks together: the trees count against the memory limit
 * with the tensors and the graph, so that function bodies or a huge
 * statement cannot take gigabytes under --memory-limit 10M. (The engine's
 * own check does not see them: tensors and trees together stay under twice
 * the limit, and a MiB more.) */
static int64_t total_bytes;
static char alloc_error[160] = "out of memory";

const char *ast_alloc_error(void) { return alloc_error; }

/* The first MiB of trees is not checked: a statement of ordinary size
 * always parses, so that backward(y) can still free a graph that fills the
 * limit. */
enum { TREE_ALLOWANCE = 1 << 20 };

/* Whether `more` bytes of chunks fit under the memory limit. */
static bool fits_limit(size_t more) {
    int64_t limit = ag_memory_limit();
    if (limit <= 0 || total_bytes + (int64_t)more <= TREE_ALLOWANCE) return true;
    AgStats st = ag_stats();
    int64_t free_bytes = limit - st.live_bytes - st.arena_bytes - total_bytes;
    if (free_bytes >= 0 && more <= (uint64_t)free_bytes) return true;
    snprintf(alloc_error, sizeof alloc_error, "out of memory: the syntax tree passes the "
             "%lld-byte memory limit (split the statement, or raise the limit)",
             (long long)limit);
    return false;
}

void *ast_alloc(AstArena *a, size_t size) {
    size = (size + 15) & ~(size_t)15;
    AstChunk *c = a->chunks;
    if (!c || c->size - c->used < size) {
        size_t n = size > AST_CHUNK ? size : AST_CHUNK;
        if (!fits_limit(sizeof *c + n)) return NULL;
        c = malloc(sizeof *c + n);
        if (!c) {
            snprintf(alloc_error, sizeof alloc_error, "out of memory");
            return NULL;
        }
        total_bytes += (int64_t)(sizeof *c + n);
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
        total_bytes -= (int64_t)(sizeof *c + c->size);
        free(c);
    }
    a->chunks = NULL;
    a->bytes = 0;
}
