/*
 * ops.h — the list of every op, once: the order of the op table
 * (optable.c). From it come the ids ops record their Functions with
 * (AG_OP_EXP) and the declarations of the rows each op file defines beside
 * its forward and backward (ag_op_exp). An op missing from the list cannot
 * record (its id does not exist); a listed op without its row does not
 * link: a forgotten entry fails the build.
 *
 * To add an op: its forward, backward and row in its op file, one line
 * here, its declaration in include/ag.h, its test.
 */
#ifndef AG_OPS_H
#define AG_OPS_H

/* X(ID, row): the ops, grouped by the file that defines them. */
#define AG_OP_LIST(X)                                                          \
    /* binary.c */                                                             \
    X(ADD, add) X(SUB, sub) X(MUL, mul) X(DIV, div) X(POW, pow)                \
    X(TANH_BACKWARD, tanh_backward)                                            \
    X(THRESHOLD_BACKWARD, threshold_backward)                                  \
    X(LEAKY_RELU_BACKWARD, leaky_relu_backward) X(HARDTANH_BACKWARD, hardtanh_backward) \
    X(XLOGY, xlogy)                                                            \
    /* compare.c */                                                            \
    X(REMAINDER, remainder) X(FLOOR_DIVIDE, floor_divide)                      \
    X(EQ, eq) X(NE, ne) X(LT, lt) X(LE, le) X(GT, gt) X(GE, ge)                \
    X(BITWISE_AND, bitwise_and) X(BITWISE_OR, bitwise_or)                      \
    X(BITWISE_XOR, bitwise_xor) X(BITWISE_NOT, bitwise_not)                    \
    X(LOGICAL_AND, logical_and) X(LOGICAL_OR, logical_or)                      \
    X(LOGICAL_XOR, logical_xor) X(LOGICAL_NOT, logical_not)                    \
    /* unary.c */                                                              \
    X(NEG, neg) X(RECIPROCAL, reciprocal) X(CLONE, clone) X(SINH, sinh)        \
    X(COSH, cosh) X(EXP, exp) X(LOG, log) X(LOG10, log10) X(LOG2, log2)       \
    X(SQRT, sqrt) X(TANH, tanh)                                                \
    X(SIGMOID, sigmoid) X(RELU, relu) X(ABS, abs) X(SIN, sin) X(COS, cos)      \
    X(SIGN, sign) X(ROUND, round) X(FLOOR, floor) X(CEIL, ceil) X(TRUNC, trunc) \
    /* special.c */                                                            \
    X(TAN, tan) X(ATAN, atan) X(ASIN, asin) X(ACOS, acos) X(ERF, erf)          \
    X(LOG1P, log1p) X(EXPM1, expm1) X(RSQRT, rsqrt)                            \
    /* activation.c */                                                         \
    X(LEAKY_RELU, leaky_relu) X(ELU, elu) X(GELU, gelu) X(SILU, silu)          \
    X(RELU6, relu6) X(HARDSIGMOID, hardsigmoid) X(HARDSWISH, hardswish)        \
    X(SOFTPLUS, softplus)                                                      \
    X(ELU_BACKWARD, elu_backward) X(GELU_BACKWARD, gelu_backward)              \
    X(SILU_BACKWARD, silu_backward) X(SOFTPLUS_BACKWARD, softplus_backward)    \
    /* select.c */                                                             \
    X(CLAMP, clamp) X(WHERE, where) X(MINIMUM, minimum) X(MAXIMUM, maximum)    \
    /* reduce.c, extreme.c */                                                  \
    X(SUM, sum) X(MEAN, mean) X(VAR, var) X(STD, std) X(NORM, norm)            \
    X(LOGSUMEXP, logsumexp) X(PROD, prod)                                      \
    X(MAX, max) X(MIN, min) X(ARGMAX, argmax) X(ARGMIN, argmin)                \
    /* reshape.c, transpose.c, matmul.c */                                     \
    X(RESHAPE, reshape) X(VIEW, view) X(FLATTEN, flatten) X(SQUEEZE, squeeze)                \
    X(UNSQUEEZE, unsqueeze) X(EXPAND, expand) X(TRANSPOSE, transpose) X(PERMUTE, permute) X(T, t) \
    X(MATMUL, matmul) X(DOT, dot) X(MV, mv) X(MM, mm) X(LINEAR, linear)       \
    X(MATMUL_NT, matmul_nt) X(MATMUL_TN, matmul_tn)                            \
    /* nn.c */                                                                 \
    X(SOFTMAX, softmax) X(LOG_SOFTMAX, log_softmax)                            \
    X(SOFTMAX_BACKWARD, softmax_backward)                                      \
    X(LOG_SOFTMAX_BACKWARD, log_softmax_backward)                              \
    /* loss.c */                                                               \
    X(MSE_LOSS, mse_loss) X(L1_LOSS, l1_loss)                                  \
    X(SMOOTH_L1_LOSS, smooth_l1_loss) X(HUBER_LOSS, huber_loss)                \
    X(BINARY_CROSS_ENTROPY, binary_cross_entropy)                              \
    X(BCE_WITH_LOGITS, binary_cross_entropy_with_logits)                       \
    X(NLL_LOSS, nll_loss) X(CROSS_ENTROPY, cross_entropy) X(KL_DIV, kl_div)    \
    X(HINGE_EMBEDDING_LOSS, hinge_embedding_loss)                              \
    X(COSINE_EMBEDDING_LOSS, cosine_embedding_loss)                            \
    X(TRIPLET_MARGIN_LOSS, triplet_margin_loss)                                \
    X(CROSS_ENTROPY_BACKWARD, cross_entropy_backward)                          \
    X(ROW_NORM, row_norm) X(ROW_NORM_BACKWARD, row_norm_backward)              \
    /* index.c, join.c */                                                      \
    X(SELECT, select) X(INDEX, index) X(INDEX_SCATTER, index_scatter)          \
    X(INDEX_PUT, index_put)                                                    \
    X(STACK, stack) X(CAT, cat)                                                \
    /* cumulative.c */                                                         \
    X(CUMSUM, cumsum) X(CUMPROD, cumprod)                                      \
    X(CUMSUM_BACKWARD, cumsum_backward) X(CUMPROD_BACKWARD, cumprod_backward)  \
    /* ../dtype.c, custom.c */                                                 \
    X(TO, to) X(CUSTOM, custom)

#define AG_OP_ENUM(ID, row) AG_OP_##ID,
enum { AG_OP_LIST(AG_OP_ENUM) AG_OP_COUNT };
#undef AG_OP_ENUM

#define AG_OP_DECLARE(ID, row) extern const AgOpInfo ag_op_##row;
AG_OP_LIST(AG_OP_DECLARE)
#undef AG_OP_DECLARE

#endif
