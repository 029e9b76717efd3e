/*
 * pyops.h — Python's operators on Python's values, for the evaluator's
 * binary operators: is / is not / in / not in in both dialects, and in a
 * .py file ints (exact, 64-bit, an OverflowError rather than a wrap),
 * strings, lists and tuples, == between non-tensors, and
 * ZeroDivisionError for numbers.
 */
#ifndef AG_PYOPS_H
#define AG_PYOPS_H

#include <stdbool.h>

#include "session.h"

/* a op b when Python's rules decide it: *done true, with the result in
 * out or the error set (false); *done false when the operation is the
 * engine's (a tensor operand, or .ag numbers). */
/* old OP= rhs where Python changes old itself (.py): list += iterable of
 * a list or tuple, list *= int, set |= &= -= ^= set, dict |= dict. True
 * when it did (*done), with old (a new reference) in out or the error set;
 * *done false for every other case, which the caller computes as old OP
 * rhs and rebinds. */
bool pyops_in_place(Session *s, const Node *n, TokenType op, const Value *old, const Value *rhs,
                    Value *out, bool *done);
bool pyops_binary(Session *s, const Node *n, TokenType op, const Value *a, const Value *b,
                  Value *out, bool *done);

#endif
