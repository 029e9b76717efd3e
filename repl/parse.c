/*
 * parse.c — a Pratt parser driven by a table (clox's compiler.c shape),
 * building the tree in ast.h. Precedence, lowest first:
 *   + -        (left)
 *   * / @      (left)
 *   unary - +
 *   **         (right; its right operand may be unary: 2**-1)
 *   postfix    call f(...), attribute x.grad
 * Not here: what names mean (eval.c).
 */
#include "parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    PREC_NONE,
    PREC_TERM,    /* + - */
    PREC_FACTOR,  /* * / @ */
    PREC_UNARY,   /* - + */
    PREC_POWER,   /* ** */
    PREC_POSTFIX, /* () . */
} Precedence;

typedef Node *(*PrefixFn)(Parser *p);
typedef Node *(*InfixFn)(Parser *p, Node *left);

typedef struct {
    PrefixFn prefix;
    InfixFn infix;
    Precedence precedence;
} ParseRule;

static Node *expression(Parser *p, Precedence min);

/* ======================================================================
 * Tokens and errors
 * ====================================================================== */

static void fail_at(Parser *p, const Token *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail_at(Parser *p, const Token *t, const char *fmt, ...) {
    if (p->failed) return;
    p->failed = true;
    /* Input that ends inside a bracket is not wrong, only unfinished. */
    p->incomplete = t->type == TOK_EOF && p->scanner.depth > 0;
    p->error_line = t->line;
    p->error_col = t->col;
    if (p->incomplete) {
        /* Point at the bracket left open: that is what to fix. */
        int d = p->scanner.depth - 1;
        if (d < SCAN_TRACKED_BRACKETS) {
            p->error_line = p->scanner.open_line[d];
            p->error_col = p->scanner.open_col[d];
        }
        snprintf(p->error, sizeof p->error, "the bracket opened here is never closed (the input ends inside it)");
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->error, sizeof p->error, fmt, ap);
    va_end(ap);
}

static void advance(Parser *p) {
    p->previous = p->current;
    p->current = scan_token(&p->scanner);
    if (p->current.type == TOK_ERROR)
        fail_at(p, &p->current, "%.*s", (int)p->current.length, p->current.start);
}

static bool check(const Parser *p, TokenType type) { return p->current.type == type; }

static bool match(Parser *p, TokenType type) {
    if (!check(p, type)) return false;
    advance(p);
    return true;
}

static void expect(Parser *p, TokenType type, const char *what) {
    if (check(p, type)) {
        advance(p);
        return;
    }
    char found[64];
    fail_at(p, &p->current, "expected %s, found %s", what,
            token_describe(&p->current, found, sizeof found));
}

static Node *new_node(Parser *p, NodeKind kind, const Token *at) {
    Node *n = ast_alloc(p->arena, sizeof *n);
    if (!n) {
        fail_at(p, at, "out of memory");
        return NULL;
    }
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->line = at->line;
    n->col = at->col;
    n->height = 1;
    return n;
}

/* Sets n's height from its children; fails past MAX_HEIGHT. */
static Node *grown(Parser *p, Node *n, const Node *a, const Node *b) {
    if (!n) return NULL;
    int h = a ? a->height : 0;
    if (b && b->height > h) h = b->height;
    n->height = h + 1;
    if (n->height > MAX_HEIGHT) {
        Token at = {TOK_ERROR, NULL, 0, n->line, n->col};
        fail_at(p, &at, "expression too long: more than %d operators deep (split it with "
                "variables)", MAX_HEIGHT);
        return NULL;
    }
    return n;
}

/* ======================================================================
 * Prefix rules
 * ====================================================================== */

/* Converts a number token (not NUL-terminated) to a double. */
static bool token_number(Parser *p, const Token *t, double *out) {
    char buf[400];
    if (t->length >= sizeof buf) {
        fail_at(p, t, "number literal too long (%zu characters)", t->length);
        return false;
    }
    memcpy(buf, t->start, t->length);
    buf[t->length] = '\0';
    *out = strtod(buf, NULL); /* overflow gives inf, as Python's float() */
    return true;
}

static Node *number(Parser *p) {
    Node *n = new_node(p, NODE_NUMBER, &p->previous);
    if (n && !token_number(p, &p->previous, &n->as.number)) return NULL;
    return n;
}

static Node *name(Parser *p) {
    Node *n = new_node(p, NODE_NAME, &p->previous);
    if (n) {
        n->as.name.text = p->previous.start;
        n->as.name.length = p->previous.length;
    }
    return n;
}

static Node *grouping(Parser *p) {
    Token open = p->previous;
    Node *inner = expression(p, PREC_TERM);
    if (p->failed) return NULL;
    char what[64];
    snprintf(what, sizeof what, "')' to close '(' at %d:%d", open.line, open.col);
    expect(p, TOK_RPAREN, what);
    return p->failed ? NULL : inner;
}

static Node *unary(Parser *p) {
    Token op = p->previous;
    Node *operand = expression(p, PREC_UNARY);
    if (!operand) return NULL;
    Node *n = new_node(p, NODE_UNARY, &op);
    if (!n) return NULL;
    n->op = op.type;
    n->left = operand;
    return grown(p, n, operand, NULL);
}

/* ---- list literals: rectangular, numbers with an optional sign ---- */

static bool push_value(Parser *p, double v) {
    if (p->num_values == p->cap_values) {
        int64_t cap = p->cap_values ? p->cap_values * 2 : 64;
        double *grown_values = realloc(p->values, (size_t)cap * sizeof *grown_values);
        if (!grown_values) {
            fail_at(p, &p->previous, "out of memory reading a list literal");
            return false;
        }
        p->values = grown_values;
        p->cap_values = cap;
    }
    p->values[p->num_values++] = v;
    return true;
}

static bool list_number(Parser *p) {
    bool negative = false;
    if (match(p, TOK_MINUS)) negative = true;
    else match(p, TOK_PLUS);
    if (!check(p, TOK_NUMBER)) {
        char found[64];
        fail_at(p, &p->current, "list elements must be numbers or lists, found %s "
                "(use tensor(EXPR) to build from a value)",
                token_describe(&p->current, found, sizeof found));
        return false;
    }
    advance(p);
    double v;
    return token_number(p, &p->previous, &v) && push_value(p, negative ? -v : v);
}

/* Parses the list whose '[' was just consumed, at nesting level `level`;
 * the first list at each level fixes that level's length (shape), later
 * ones must agree. shape_known[level] says whether it is fixed yet. */
static void list_level(Parser *p, int level, int64_t *shape, bool *shape_known, int *ndim) {
    Token open = p->previous;
    if (level >= 8) {
        fail_at(p, &open, "list literal nested deeper than 8 levels");
        return;
    }
    int64_t count = 0;
    bool sublists = check(p, TOK_LBRACKET);
    if (!check(p, TOK_RBRACKET)) {
        do {
            if (sublists != check(p, TOK_LBRACKET)) {
                fail_at(p, &p->current, "ragged list literal: numbers and lists mixed at one level");
                return;
            }
            if (sublists) {
                advance(p);
                list_level(p, level + 1, shape, shape_known, ndim);
            } else {
                list_number(p);
            }
            count++;
        } while (!p->failed && match(p, TOK_COMMA) && !check(p, TOK_RBRACKET));
    }
    if (p->failed) return;
    char what[64];
    snprintf(what, sizeof what, "']' to close '[' at %d:%d", open.line, open.col);
    expect(p, TOK_RBRACKET, what);
    if (p->failed) return;
    int depth = sublists ? 0 : level + 1; /* a list of numbers ends the shape */
    if (!shape_known[level]) {
        shape_known[level] = true;
        shape[level] = count;
        if (!sublists) *ndim = depth;
    } else if (shape[level] != count || (!sublists && *ndim != depth)) {
        fail_at(p, &open, "ragged list literal: a list at depth %d has %lld element%s, "
                "the first had %lld", level + 1, (long long)count, count == 1 ? "" : "s",
                (long long)shape[level]);
    }
}

static Node *list(Parser *p) {
    Token open = p->previous;
    Node *n = new_node(p, NODE_LIST, &open);
    if (!n) return NULL;
    int64_t shape[8] = {0};
    bool known[8] = {false};
    int ndim = 1;
    p->num_values = 0;
    list_level(p, 0, shape, known, &ndim);
    if (p->failed) return NULL;
    if (!known[ndim - 1]) ndim = 1; /* [] */
    n->as.list.ndim = ndim;
    memcpy(n->as.list.shape, shape, sizeof shape);
    n->as.list.count = p->num_values;
    n->as.list.values = ast_alloc(p->arena, (size_t)p->num_values * sizeof(double) + 1);
    if (!n->as.list.values) {
        fail_at(p, &open, "out of memory reading a list literal");
        return NULL;
    }
    if (p->num_values) memcpy(n->as.list.values, p->values, (size_t)p->num_values * sizeof(double));
    return n;
}

/* ======================================================================
 * Infix and postfix rules
 * ====================================================================== */

static ParseRule rule_for(TokenType type);

static Node *binary(Parser *p, Node *left) {
    Token op = p->previous;
    /* ** is right-associative and takes a unary right operand (2**-1). */
    Precedence next = op.type == TOK_STARSTAR ? PREC_UNARY : rule_for(op.type).precedence + 1;
    Node *right = expression(p, next);
    if (!right) return NULL;
    Node *n = new_node(p, NODE_BINARY, &op);
    if (!n) return NULL;
    n->op = op.type;
    n->left = left;
    n->right = right;
    return grown(p, n, left, right);
}

static Node *call(Parser *p, Node *callee) {
    Token open = p->previous;
    if (callee->kind != NODE_NAME) {
        fail_at(p, &open, "only a named function can be called");
        return NULL;
    }
    Node *args[64];
    int n = 0;
    if (!check(p, TOK_RPAREN)) {
        do {
            if (n == 64) {
                fail_at(p, &p->current, "too many arguments (at most 64)");
                return NULL;
            }
            args[n] = expression(p, PREC_TERM);
            if (!args[n++]) return NULL;
        } while (match(p, TOK_COMMA));
    }
    char what[64];
    snprintf(what, sizeof what, "')' to close '(' at %d:%d", open.line, open.col);
    expect(p, TOK_RPAREN, what);
    if (p->failed) return NULL;
    callee->kind = NODE_CALL;
    callee->num_args = n;
    callee->args = ast_alloc(p->arena, (size_t)n * sizeof *args + 1);
    if (!callee->args) {
        fail_at(p, &open, "out of memory");
        return NULL;
    }
    int height = 0;
    for (int i = 0; i < n; i++) {
        callee->args[i] = args[i];
        if (args[i]->height > height) height = args[i]->height;
    }
    callee->height = height + 1;
    return callee->height > MAX_HEIGHT ? grown(p, callee, callee, NULL) : callee;
}

static Node *attribute(Parser *p, Node *object) {
    Token dot = p->previous;
    expect(p, TOK_NAME, "an attribute name after '.' (grad, shape or T)");
    if (p->failed) return NULL;
    Node *n = new_node(p, NODE_ATTR, &dot);
    if (!n) return NULL;
    n->as.name.text = p->previous.start;
    n->as.name.length = p->previous.length;
    n->left = object;
    return grown(p, n, object, NULL);
}

static ParseRule rule_for(TokenType type) {
    static const ParseRule rules[] = {
        [TOK_NUMBER] = {number, NULL, PREC_NONE},
        [TOK_NAME] = {name, NULL, PREC_NONE},
        [TOK_LPAREN] = {grouping, call, PREC_POSTFIX},
        [TOK_LBRACKET] = {list, NULL, PREC_NONE},
        [TOK_DOT] = {NULL, attribute, PREC_POSTFIX},
        [TOK_PLUS] = {unary, binary, PREC_TERM},
        [TOK_MINUS] = {unary, binary, PREC_TERM},
        [TOK_STAR] = {NULL, binary, PREC_FACTOR},
        [TOK_SLASH] = {NULL, binary, PREC_FACTOR},
        [TOK_AT] = {NULL, binary, PREC_FACTOR},
        [TOK_STARSTAR] = {NULL, binary, PREC_POWER},
    };
    if ((size_t)type < sizeof rules / sizeof rules[0]) return rules[type];
    return (ParseRule){NULL, NULL, PREC_NONE};
}

/* The core of the Pratt parser: a prefix, then infix operators binding at
 * least as tightly as min. */
static Node *expression(Parser *p, Precedence min) {
    if (++p->nesting > MAX_NESTING) {
        fail_at(p, &p->current, "expression nested too deeply (more than %d levels)", MAX_NESTING);
        return NULL;
    }
    Node *left = NULL;
    PrefixFn prefix = rule_for(p->current.type).prefix;
    if (!prefix) {
        char found[64];
        fail_at(p, &p->current, "expected an expression, found %s",
                token_describe(&p->current, found, sizeof found));
    } else {
        advance(p);
        left = prefix(p);
    }
    while (left && !p->failed && rule_for(p->current.type).infix &&
           rule_for(p->current.type).precedence >= min) {
        advance(p);
        left = rule_for(p->previous.type).infix(p, left);
    }
    p->nesting--;
    return p->failed ? NULL : left;
}

/* ======================================================================
 * Statements
 * ====================================================================== */

void parser_init(Parser *p, const char *src, size_t len, int first_line, AstArena *arena) {
    memset(p, 0, sizeof *p);
    scanner_init(&p->scanner, src, len, first_line);
    p->arena = arena;
    advance(p);
}

void parser_free(Parser *p) {
    free(p->values);
    p->values = NULL;
}

/* NAME = EXPR, or NAME(P...) = EXPR, given the left side already parsed. */
static Stmt *assignment(Parser *p, Stmt *s, Node *target, const Token *eq) {
    bool params_ok = target->kind == NODE_CALL;
    for (int i = 0; params_ok && i < target->num_args; i++)
        params_ok = target->args[i]->kind == NODE_NAME;
    if (target->kind != NODE_NAME && !params_ok) {
        fail_at(p, eq, target->kind == NODE_CALL
                           ? "a function's parameters must be plain names"
                           : "only a name (x = ...) or a function (f(x) = ...) can be assigned");
        return NULL;
    }
    s->kind = target->kind == NODE_NAME ? STMT_ASSIGN : STMT_DEF;
    s->name = target->as.name.text;
    s->name_length = target->as.name.length;
    s->params = target->args;
    s->num_params = target->num_args;
    s->expr = expression(p, PREC_TERM);
    return s->expr ? s : NULL;
}

ParseStatus parse_statement(Parser *p, Stmt **out) {
    *out = NULL;
    while (!p->failed && match(p, TOK_END_STMT)) {}
    if (p->failed) return p->incomplete ? PARSE_INCOMPLETE : PARSE_ERROR;
    if (check(p, TOK_EOF)) return PARSE_END;
    Token first = p->current;
    Stmt *s = ast_alloc(p->arena, sizeof *s);
    if (!s) {
        fail_at(p, &first, "out of memory");
        return PARSE_ERROR;
    }
    memset(s, 0, sizeof *s);
    s->kind = STMT_EXPR;
    s->line = first.line;
    s->col = first.col;
    s->expr = expression(p, PREC_TERM);
    if (s->expr && check(p, TOK_EQUAL)) {
        Token eq = p->current;
        advance(p);
        s = assignment(p, s, s->expr, &eq);
    }
    if (s && !p->failed && !check(p, TOK_EOF) && !check(p, TOK_END_STMT)) {
        char found[64];
        fail_at(p, &p->current, "expected the end of the statement, found %s",
                token_describe(&p->current, found, sizeof found));
    }
    if (p->failed) return p->incomplete ? PARSE_INCOMPLETE : PARSE_ERROR;
    s->text = first.start; /* up to the last token: no trailing comment */
    s->text_length = (size_t)(p->previous.start + p->previous.length - first.start);
    *out = s;
    return PARSE_OK;
}

ParseStatus parse_check_complete(const char *src, size_t len) {
    AstArena arena = {0};
    Parser p;
    parser_init(&p, src, len, 1, &arena);
    ParseStatus status;
    Stmt *s;
    do status = parse_statement(&p, &s);
    while (status == PARSE_OK);
    parser_free(&p);
    ast_arena_free(&arena);
    return status == PARSE_INCOMPLETE ? PARSE_INCOMPLETE : PARSE_OK;
}
