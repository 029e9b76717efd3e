/*
 * docs.c — the list of every op's derivative rule. The rules themselves are
 * written beside each op's backward (OP_DOC); this only finds them by name.
 */
#include <string.h>

#include "../internal.h"

#define OPS(X)                                                                     \
    X(add) X(sub) X(mul) X(div) X(pow) X(neg) X(exp) X(log) X(sqrt) X(tanh)       \
    X(sigmoid) X(relu) X(abs) X(sin) X(cos) X(sum) X(mean) X(max) X(reshape)      \
    X(transpose) X(matmul) X(softmax) X(log_softmax) X(mse) X(cross_entropy)    \
    X(remainder) X(select) X(stack)

#define DECLARE(op) extern const OpDoc ag_op_doc_##op;
OPS(DECLARE)

#define ENTRY(op) &ag_op_doc_##op,
static const OpDoc *const docs[] = {OPS(ENTRY)};

const char *ag_op_rule(const char *op) {
    if (!op) return NULL;
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        if (strcmp(docs[i]->name, op) == 0) return docs[i]->rule;
    return NULL;
}
