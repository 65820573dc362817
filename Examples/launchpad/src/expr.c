/*
 * expr.c - a tiny arithmetic expression language, used by the config file
 * (computed values such as "cache.glyphs = max(256, workers * 96)") and by
 * the "calc" command and the /calc endpoint.
 *
 * Grammar (precedence low to high):
 *   expr    := cond
 *   cond    := or ('?' expr ':' expr)?
 *   or      := and ('||' and)*
 *   and     := cmp ('&&' cmp)*
 *   cmp     := sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)?
 *   sum     := term (('+'|'-') term)*
 *   term    := unary (('*'|'/'|'%') unary)*
 *   unary   := ('-'|'!')* power
 *   power   := primary ('^' unary)?
 *   primary := number | name | name '(' args ')' | '(' expr ')'
 */
#include "launchpad.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { N_NUM, N_VAR, N_CALL, N_NEG, N_NOT, N_BIN, N_COND } node_kind;

struct expr {
  node_kind kind;
  char op[3];
  double num;
  const char *name;
  struct expr *a, *b, *c;
  struct expr *args[6];
  int nargs;
};

typedef enum { T_END, T_NUM, T_NAME, T_OP, T_LPAREN, T_RPAREN, T_COMMA, T_QUEST, T_COLON, T_BAD } tok_kind;

typedef struct {
  const char *src, *p;
  tok_kind kind;
  double num;
  char text[32];
  arena *mem;
  char *err;
  size_t errcap;
  int failed;
  int depth;
} parser;

static void parse_error(parser *ps, const char *what) {
  if (ps->failed) return;
  ps->failed = 1;
  snprintf(ps->err, ps->errcap, "%s at column %d", what, (int)(ps->p - ps->src) + 1);
}

static void lex_number(parser *ps) {
  char *end;
  ps->num = strtod(ps->p, &end);
  /* Size suffixes: 4k = 4096, 2M = 2097152. */
  if (*end == 'k' || *end == 'K') {
    ps->num *= 1024;
    end++;
  } else if (*end == 'M') {
    ps->num *= 1024 * 1024;
    end++;
  }
  ps->p = end;
  ps->kind = T_NUM;
}

static void lex_name(parser *ps) {
  size_t n = 0;
  while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.') {
    if (n + 1 < sizeof ps->text) ps->text[n++] = *ps->p;
    ps->p++;
  }
  ps->text[n] = '\0';
  ps->kind = T_NAME;
}

static void lex_next(parser *ps) {
  while (isspace((unsigned char)*ps->p)) ps->p++;
  char c = *ps->p;
  if (c == '\0') {
    ps->kind = T_END;
    return;
  }
  if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)ps->p[1]))) {
    lex_number(ps);
    return;
  }
  if (isalpha((unsigned char)c) || c == '_') {
    lex_name(ps);
    return;
  }
  static const char *const two[] = {"==", "!=", "<=", ">=", "&&", "||"};
  for (size_t i = 0; i < sizeof two / sizeof two[0]; i++) {
    if (c == two[i][0] && ps->p[1] == two[i][1]) {
      memcpy(ps->text, two[i], 3);
      ps->p += 2;
      ps->kind = T_OP;
      return;
    }
  }
  ps->p++;
  ps->text[0] = c;
  ps->text[1] = '\0';
  switch (c) {
  case '(': ps->kind = T_LPAREN; break;
  case ')': ps->kind = T_RPAREN; break;
  case ',': ps->kind = T_COMMA; break;
  case '?': ps->kind = T_QUEST; break;
  case ':': ps->kind = T_COLON; break;
  case '+': case '-': case '*': case '/': case '%': case '^': case '<': case '>': case '!':
    ps->kind = T_OP;
    break;
  default: ps->kind = T_BAD; parse_error(ps, "unexpected character"); break;
  }
}

static expr *new_node(parser *ps, node_kind kind) {
  expr *e = arena_calloc(ps->mem, 1, sizeof *e);
  e->kind = kind;
  return e;
}

static int is_op(const parser *ps, const char *op) { return ps->kind == T_OP && strcmp(ps->text, op) == 0; }

static expr *parse_expr(parser *ps);
static expr *parse_unary(parser *ps);

static expr *binary(parser *ps, const char *op, expr *a, expr *b) {
  expr *e = new_node(ps, N_BIN);
  snprintf(e->op, sizeof e->op, "%s", op);
  e->a = a;
  e->b = b;
  return e;
}

static expr *parse_call(parser *ps, const char *name) {
  expr *e = new_node(ps, N_CALL);
  e->name = arena_strdup(ps->mem, name);
  lex_next(ps); /* '(' */
  if (ps->kind == T_RPAREN) {
    lex_next(ps);
    return e;
  }
  for (;;) {
    if (e->nargs == (int)(sizeof e->args / sizeof e->args[0])) {
      parse_error(ps, "too many arguments");
      return e;
    }
    e->args[e->nargs++] = parse_expr(ps);
    if (ps->failed) return e;
    if (ps->kind == T_COMMA) {
      lex_next(ps);
      continue;
    }
    if (ps->kind == T_RPAREN) {
      lex_next(ps);
      return e;
    }
    parse_error(ps, "expected ',' or ')'");
    return e;
  }
}

static expr *parse_primary(parser *ps) {
  if (ps->failed) return NULL;
  if (ps->kind == T_NUM) {
    expr *e = new_node(ps, N_NUM);
    e->num = ps->num;
    lex_next(ps);
    return e;
  }
  if (ps->kind == T_NAME) {
    char name[32];
    memcpy(name, ps->text, sizeof name);
    lex_next(ps);
    if (ps->kind == T_LPAREN) return parse_call(ps, name);
    expr *e = new_node(ps, N_VAR);
    e->name = arena_strdup(ps->mem, name);
    return e;
  }
  if (ps->kind == T_LPAREN) {
    if (++ps->depth > 64) {
      parse_error(ps, "expression nested too deeply");
      return NULL;
    }
    lex_next(ps);
    expr *e = parse_expr(ps);
    if (ps->kind != T_RPAREN) parse_error(ps, "expected ')'");
    lex_next(ps);
    ps->depth--;
    return e;
  }
  parse_error(ps, ps->kind == T_END ? "unexpected end of expression" : "expected a value");
  return NULL;
}

static expr *parse_power(parser *ps) {
  expr *base = parse_primary(ps);
  if (is_op(ps, "^")) {
    lex_next(ps);
    return binary(ps, "^", base, parse_unary(ps));
  }
  return base;
}

static expr *parse_unary(parser *ps) {
  if (is_op(ps, "-") || is_op(ps, "!")) {
    node_kind k = ps->text[0] == '-' ? N_NEG : N_NOT;
    lex_next(ps);
    expr *e = new_node(ps, k);
    e->a = parse_unary(ps);
    return e;
  }
  return parse_power(ps);
}

static expr *parse_term(parser *ps) {
  expr *e = parse_unary(ps);
  while (is_op(ps, "*") || is_op(ps, "/") || is_op(ps, "%")) {
    char op[3];
    memcpy(op, ps->text, 3);
    lex_next(ps);
    e = binary(ps, op, e, parse_unary(ps));
  }
  return e;
}

static expr *parse_sum(parser *ps) {
  expr *e = parse_term(ps);
  while (is_op(ps, "+") || is_op(ps, "-")) {
    char op[3];
    memcpy(op, ps->text, 3);
    lex_next(ps);
    e = binary(ps, op, e, parse_term(ps));
  }
  return e;
}

static expr *parse_cmp(parser *ps) {
  expr *e = parse_sum(ps);
  static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    if (is_op(ps, ops[i])) {
      lex_next(ps);
      return binary(ps, ops[i], e, parse_sum(ps));
    }
  }
  return e;
}

static expr *parse_and(parser *ps) {
  expr *e = parse_cmp(ps);
  while (is_op(ps, "&&")) {
    lex_next(ps);
    e = binary(ps, "&&", e, parse_cmp(ps));
  }
  return e;
}

static expr *parse_or(parser *ps) {
  expr *e = parse_and(ps);
  while (is_op(ps, "||")) {
    lex_next(ps);
    e = binary(ps, "||", e, parse_and(ps));
  }
  return e;
}

static expr *parse_expr(parser *ps) {
  expr *e = parse_or(ps);
  if (ps->kind == T_QUEST) {
    lex_next(ps);
    expr *c = new_node(ps, N_COND);
    c->a = e;
    c->b = parse_expr(ps);
    if (ps->kind != T_COLON) {
      parse_error(ps, "expected ':'");
      return c;
    }
    lex_next(ps);
    c->c = parse_expr(ps);
    return c;
  }
  return e;
}

expr *expr_parse(const char *text, arena *a, char *err, size_t errcap) {
  parser ps = {.src = text, .p = text, .mem = a, .err = err, .errcap = errcap};
  lex_next(&ps);
  expr *e = parse_expr(&ps);
  if (!ps.failed && ps.kind != T_END) parse_error(&ps, "trailing input");
  return ps.failed ? NULL : e;
}

/* ---- built-in functions ---- */

typedef int (*builtin_fn)(const double *v, int n, double *out);

static int fn_min(const double *v, int n, double *out) {
  if (n < 1) return -1;
  double m = v[0];
  for (int i = 1; i < n; i++) m = v[i] < m ? v[i] : m;
  *out = m;
  return 0;
}

static int fn_max(const double *v, int n, double *out) {
  if (n < 1) return -1;
  double m = v[0];
  for (int i = 1; i < n; i++) m = v[i] > m ? v[i] : m;
  *out = m;
  return 0;
}

static int fn_abs(const double *v, int n, double *out) {
  if (n != 1) return -1;
  *out = fabs(v[0]);
  return 0;
}

static int fn_clamp(const double *v, int n, double *out) {
  if (n != 3 || v[1] > v[2]) return -1;
  *out = v[0] < v[1] ? v[1] : v[0] > v[2] ? v[2] : v[0];
  return 0;
}

static int fn_sqrt(const double *v, int n, double *out) {
  if (n != 1 || v[0] < 0) return -1;
  *out = sqrt(v[0]);
  return 0;
}

static int fn_pow(const double *v, int n, double *out) {
  if (n != 2) return -1;
  *out = pow(v[0], v[1]);
  return isfinite(*out) ? 0 : -1;
}

static int fn_floor(const double *v, int n, double *out) {
  if (n != 1) return -1;
  *out = floor(v[0]);
  return 0;
}

static int fn_ceil(const double *v, int n, double *out) {
  if (n != 1) return -1;
  *out = ceil(v[0]);
  return 0;
}

static int fn_round(const double *v, int n, double *out) {
  if (n < 1 || n > 2) return -1;
  double scale = n == 2 ? pow(10, v[1]) : 1;
  *out = round(v[0] * scale) / scale;
  return 0;
}

static int fn_log2(const double *v, int n, double *out) {
  if (n != 1 || v[0] <= 0) return -1;
  *out = log2(v[0]);
  return 0;
}

static int fn_ln(const double *v, int n, double *out) {
  if (n != 1 || v[0] <= 0) return -1;
  *out = log(v[0]);
  return 0;
}

static int fn_exp(const double *v, int n, double *out) {
  if (n != 1) return -1;
  *out = exp(v[0]);
  return isfinite(*out) ? 0 : -1;
}

static int fn_hypot(const double *v, int n, double *out) {
  if (n != 2) return -1;
  *out = hypot(v[0], v[1]);
  return 0;
}

static int fn_sign(const double *v, int n, double *out) {
  if (n != 1) return -1;
  *out = v[0] > 0 ? 1 : v[0] < 0 ? -1 : 0;
  return 0;
}

static int fn_avg(const double *v, int n, double *out) {
  if (n < 1) return -1;
  double s = 0;
  for (int i = 0; i < n; i++) s += v[i];
  *out = s / n;
  return 0;
}

static int fn_pow2(const double *v, int n, double *out) {
  /* Smallest power of two >= v: table sizes. */
  if (n != 1 || v[0] < 0 || v[0] > 1e15) return -1;
  double p = 1;
  while (p < v[0]) p *= 2;
  *out = p;
  return 0;
}

static int fn_kib(const double *v, int n, double *out) {
  if (n != 1) return -1;
  *out = v[0] * 1024;
  return 0;
}

static int fn_mib(const double *v, int n, double *out) {
  if (n != 1) return -1;
  *out = v[0] * 1024 * 1024;
  return 0;
}

static const struct {
  const char *name;
  builtin_fn fn;
} builtins[] = {
    {"min", fn_min},     {"max", fn_max},   {"abs", fn_abs},   {"clamp", fn_clamp}, {"sqrt", fn_sqrt},
    {"pow", fn_pow},     {"floor", fn_floor}, {"ceil", fn_ceil}, {"round", fn_round}, {"log2", fn_log2},
    {"ln", fn_ln},       {"exp", fn_exp},   {"hypot", fn_hypot}, {"sign", fn_sign}, {"avg", fn_avg},
    {"pow2", fn_pow2},   {"kib", fn_kib},   {"mib", fn_mib},
};

typedef struct {
  expr_lookup_fn lookup;
  void *ctx;
  char *err;
  size_t errcap;
} eval_ctx;

static int eval_node(const expr *e, eval_ctx *ec, double *out);

static int eval_call(const expr *e, eval_ctx *ec, double *out) {
  double args[6];
  for (int i = 0; i < e->nargs; i++)
    if (eval_node(e->args[i], ec, &args[i]) != 0) return -1;
  for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
    if (strcmp(builtins[i].name, e->name) != 0) continue;
    if (builtins[i].fn(args, e->nargs, out) != 0) {
      snprintf(ec->err, ec->errcap, "bad arguments to %s()", e->name);
      return -1;
    }
    return 0;
  }
  snprintf(ec->err, ec->errcap, "unknown function %s()", e->name);
  return -1;
}

static int eval_binary(const expr *e, eval_ctx *ec, double *out) {
  double a, b;
  if (eval_node(e->a, ec, &a) != 0) return -1;
  /* Short-circuit logic operators. */
  if (strcmp(e->op, "&&") == 0 && a == 0) return *out = 0, 0;
  if (strcmp(e->op, "||") == 0 && a != 0) return *out = 1, 0;
  if (eval_node(e->b, ec, &b) != 0) return -1;
  switch (e->op[0]) {
  case '+': *out = a + b; return 0;
  case '-': *out = a - b; return 0;
  case '*': *out = a * b; return 0;
  case '/':
  case '%':
    if (b == 0) {
      snprintf(ec->err, ec->errcap, "division by zero");
      return -1;
    }
    *out = e->op[0] == '/' ? a / b : fmod(a, b);
    return 0;
  case '^': *out = pow(a, b); return 0;
  case '&': *out = a != 0 && b != 0; return 0;
  case '|': *out = a != 0 || b != 0; return 0;
  case '=': *out = a == b; return 0;
  case '!': *out = a != b; return 0;
  case '<': *out = e->op[1] == '=' ? a <= b : a < b; return 0;
  case '>': *out = e->op[1] == '=' ? a >= b : a > b; return 0;
  }
  snprintf(ec->err, ec->errcap, "unknown operator %s", e->op);
  return -1;
}

static int eval_node(const expr *e, eval_ctx *ec, double *out) {
  double v;
  switch (e->kind) {
  case N_NUM: *out = e->num; return 0;
  case N_VAR:
    if (ec->lookup && ec->lookup(ec->ctx, e->name, out) == 0) return 0;
    if (strcmp(e->name, "pi") == 0) return *out = M_PI, 0;
    snprintf(ec->err, ec->errcap, "unknown name '%s'", e->name);
    return -1;
  case N_CALL: return eval_call(e, ec, out);
  case N_NEG:
    if (eval_node(e->a, ec, &v) != 0) return -1;
    *out = -v;
    return 0;
  case N_NOT:
    if (eval_node(e->a, ec, &v) != 0) return -1;
    *out = v == 0;
    return 0;
  case N_BIN: return eval_binary(e, ec, out);
  case N_COND:
    if (eval_node(e->a, ec, &v) != 0) return -1;
    return eval_node(v != 0 ? e->b : e->c, ec, out);
  }
  return -1;
}

int expr_eval(const expr *e, expr_lookup_fn lookup, void *ctx, double *out, char *err, size_t errcap) {
  eval_ctx ec = {lookup, ctx, err, errcap};
  return eval_node(e, &ec, out);
}

int expr_eval_text(const char *text, expr_lookup_fn lookup, void *ctx, double *out, char *err, size_t errcap) {
  arena a;
  arena_init(&a, 4096);
  expr *e = expr_parse(text, &a, err, errcap);
  int rc = e ? expr_eval(e, lookup, ctx, out, err, errcap) : -1;
  arena_destroy(&a);
  return rc;
}

int expr_is_constant(const expr *e) {
  if (!e) return 1;
  switch (e->kind) {
  case N_NUM: return 1;
  case N_VAR: return 0;
  case N_CALL:
    for (int i = 0; i < e->nargs; i++)
      if (!expr_is_constant(e->args[i])) return 0;
    return 1;
  default: return expr_is_constant(e->a) && expr_is_constant(e->b) && expr_is_constant(e->c);
  }
}

int expr_format(const expr *e, strbuf *out) {
  switch (e->kind) {
  case N_NUM: sb_appendf(out, "%g", e->num); break;
  case N_VAR: sb_append(out, e->name); break;
  case N_CALL:
    sb_appendf(out, "%s(", e->name);
    for (int i = 0; i < e->nargs; i++) {
      if (i) sb_append(out, ", ");
      expr_format(e->args[i], out);
    }
    sb_append_char(out, ')');
    break;
  case N_NEG:
  case N_NOT:
    sb_append_char(out, e->kind == N_NEG ? '-' : '!');
    expr_format(e->a, out);
    break;
  case N_BIN:
    sb_append_char(out, '(');
    expr_format(e->a, out);
    sb_appendf(out, " %s ", e->op);
    expr_format(e->b, out);
    sb_append_char(out, ')');
    break;
  case N_COND:
    expr_format(e->a, out);
    sb_append(out, " ? ");
    expr_format(e->b, out);
    sb_append(out, " : ");
    expr_format(e->c, out);
    break;
  }
  return out->oom ? -1 : 0;
}

size_t expr_node_count(const expr *e) {
  if (!e) return 0;
  size_t n = 1 + expr_node_count(e->a) + expr_node_count(e->b) + expr_node_count(e->c);
  for (int i = 0; i < e->nargs; i++) n += expr_node_count(e->args[i]);
  return n;
}
