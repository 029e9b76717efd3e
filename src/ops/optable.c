/*
 * optable.c — the op table: every op's row (defined in its op file, beside
 * its forward and backward), in the order of ops.h, and the lookups.
 */
#include <string.h>

#include "../internal.h"

#define AG_OP_ROW(ID, row) &ag_op_##row,
static const AgOpInfo *const table[] = {AG_OP_LIST(AG_OP_ROW)};
#undef AG_OP_ROW

/* The table and the ids come from one list, so their counts cannot differ
 * (a _Static_assert of that could never fail). What can go wrong is a
 * row's .id that is not its place in the list: test_op_table checks it. */

int ag_op_count(void) { return AG_OP_COUNT; }

const AgOpInfo *ag_op_at(int i) { return i >= 0 && i < AG_OP_COUNT ? table[i] : NULL; }

const AgOpInfo *ag_op_find(const char *name) {
    if (!name) return NULL;
    for (int i = 0; i < AG_OP_COUNT; i++)
        if (strcmp(table[i]->name, name) == 0 ||
            (table[i]->alias && strcmp(table[i]->alias, name) == 0))
            return table[i];
    return NULL;
}

const char *ag_op_rule(const char *name) {
    static _Thread_local char text[256];
    const AgOpInfo *op = ag_op_find(name);
    if (!op || !op->rule) return NULL;
    snprintf(text, sizeof text, "%s: %s", op->name, op->rule);
    return text;
}
