#!/usr/bin/env python3
"""Generate launchpad's record codecs from schema/records.def.

Usage: gen-records.py SCHEMA OUTDIR
       gen-records.py --list-domains SCHEMA   (what the Makefile builds)

Writes OUTDIR/records.h (every record's struct and the type descriptors),
OUTDIR/records_DOMAIN.c for each domain and OUTDIR/records_index.c (the list
of domains). Each record gets ten entry points, as an interface compiler
would emit them: init, set (a field from text), validate, encode and decode
(a tag/varint wire format, see src/wire.c), print, equal, hash, merge and
diff. They take `void *` so that the descriptor table can call them without
casts. Files are only rewritten when their text changes, so make does not
rebuild what did not change.
"""

import os
import re
import sys

C_KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "while", "bool", "true", "false",
    # GNU C keywords and the macros gnu11 predefines
    "asm", "typeof", "unix", "linux", "i386",
}

SCALARS = {
    "u32": ("uint32_t", "varint"),
    "u64": ("uint64_t", "varint"),
    "i32": ("int32_t", "zigzag"),
    "i64": ("int64_t", "zigzag"),
    "f64": ("double", "fixed64"),
    "bool": ("uint8_t", "varint"),
}


class Field:
    def __init__(self, name, spec, number, where):
        self.name = name
        self.number = number
        if spec in SCALARS:
            self.kind = "scalar"
            self.ctype, self.wire = SCALARS[spec]
            self.spec = spec
            return
        m = re.fullmatch(r"(str|bytes)(\d+)", spec)
        if m:
            self.kind = m.group(1)
            self.size = int(m.group(2))
            smallest = 2 if self.kind == "str" else 1
            if self.size < smallest:
                raise SystemExit(f"{where}: '{spec}' holds nothing: use {self.kind}{smallest} or more")
            return
        m = re.fullmatch(r"u32\[(\d+)\]", spec)
        if m:
            self.kind = "array"
            self.size = int(m.group(1))
            if self.size < 1:
                raise SystemExit(f"{where}: '{spec}' holds nothing")
            return
        raise SystemExit(f"{where}: unknown field type '{spec}'")


class Record:
    def __init__(self, domain, name, fields):
        self.domain = domain
        self.name = name
        self.fields = fields
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
        self.cname = f"{domain}_{snake}"


def parse(path):
    domains = {}
    order = []
    current = None
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            where = f"{path}:{lineno}"
            if not line:
                continue
            words = line.split()
            if words[0] == "domain":
                if len(words) != 2 or not re.fullmatch(r"[a-z]+", words[1]):
                    raise SystemExit(f"{where}: expected 'domain NAME' (lower-case letters)")
                current = words[1]
                if current == "rec":
                    raise SystemExit(f"{where}: 'rec' is reserved for the type tables (rec_DOMAIN_types)")
                if current in domains:
                    raise SystemExit(f"{where}: domain '{current}' declared twice")
                domains[current] = []
                order.append(current)
                continue
            if current is None:
                raise SystemExit(f"{where}: a record before the first 'domain' line")
            if not re.fullmatch(r"[A-Z][A-Za-z0-9]*", words[0]):
                raise SystemExit(f"{where}: record names are CamelCase, got '{words[0]}'")
            fields = []
            for number, word in enumerate(words[1:], 1):
                name, sep, spec = word.partition(":")
                if not sep or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
                    raise SystemExit(f"{where}: expected field:type, got '{word}'")
                if name in C_KEYWORDS:
                    raise SystemExit(f"{where}: field '{name}' is a C keyword")
                if any(f.name == name for f in fields):
                    raise SystemExit(f"{where}: field '{name}' appears twice")
                fields.append(Field(name, spec, number, where))
            if not fields:
                raise SystemExit(f"{where}: record '{words[0]}' has no fields")
            if any(r.name == words[0] for r in domains[current]):
                raise SystemExit(f"{where}: record '{words[0]}' appears twice in domain '{current}'")
            domains[current].append(Record(current, words[0], fields))
    return order, domains


def struct(rec):
    out = ["typedef struct {"]
    for f in rec.fields:
        if f.kind == "scalar":
            out.append(f"  {f.ctype} {f.name};")
        elif f.kind == "str":
            out.append(f"  char {f.name}[{f.size}];")
        elif f.kind == "bytes":
            out.append(f"  uint8_t {f.name}[{f.size}];")
            out.append(f"  uint32_t {f.name}_len;")
        else:
            out.append(f"  uint32_t {f.name}[{f.size}];")
            out.append(f"  uint32_t {f.name}_count;")
    out.append(f"}} {rec.cname};")
    return "\n".join(out)


ENTRY_POINTS = [
    ("void", "init", "void *msg"),
    ("int", "set", "void *msg, const char *field, const char *value"),
    ("int", "validate", "const void *msg, char *err, size_t cap"),
    ("void", "encode", "const void *msg, wire_writer *w"),
    ("int", "decode", "void *msg, wire_reader *r"),
    ("void", "print", "const void *msg, strbuf *out"),
    ("int", "equal", "const void *a, const void *b"),
    ("uint32_t", "hash", "const void *msg"),
    ("int", "merge", "void *dst, const void *src"),
    ("int", "diff", "const void *a, const void *b, strbuf *out"),
]


def header(order, domains):
    out = [
        "/* Generated by tools/gen-records.py from schema/records.def: do not edit. */",
        "#ifndef LAUNCHPAD_RECORDS_H",
        "#define LAUNCHPAD_RECORDS_H",
        "",
        '#include "launchpad.h"',
        '#include "wire.h"',
        "",
    ]
    for d in order:
        for rec in domains[d]:
            out.append(struct(rec))
            for ret, fn, params in ENTRY_POINTS:
                out.append(f"{ret} {rec.cname}_{fn}({params});")
            out.append("")
    for d in order:
        out.append(f"extern const rec_type rec_{d}_types[];")
        out.append(f"extern const size_t rec_{d}_type_count;")
    out += ["", "#endif", ""]
    return "\n".join(out)


def gen_init(rec):
    return [f"void {rec.cname}_init(void *msg) {{", f"  memset(msg, 0, sizeof({rec.cname}));", "}"]


def gen_set(rec):
    out = [
        f"int {rec.cname}_set(void *msg, const char *field, const char *value) {{",
        f"  {rec.cname} *m = msg;",
    ]
    for f in rec.fields:
        out.append(f'  if (strcmp(field, "{f.name}") == 0) {{')
        if f.kind == "scalar":
            if f.spec == "f64":
                out.append(f"    return wire_parse_double(value, &m->{f.name});")
            elif f.spec == "bool":
                out.append("    uint64_t v;")
                out.append("    if (wire_parse_bool(value, &v) != 0) return -1;")
                out.append(f"    m->{f.name} = (uint8_t)v;")
                out.append("    return 0;")
            elif f.spec.startswith("u"):
                limit = "UINT32_MAX" if f.spec == "u32" else "UINT64_MAX"
                out.append("    uint64_t v;")
                out.append(f"    if (wire_parse_unsigned(value, {limit}, &v) != 0) return -1;")
                out.append(f"    m->{f.name} = ({f.ctype})v;")
                out.append("    return 0;")
            else:
                lo, hi = ("INT32_MIN", "INT32_MAX") if f.spec == "i32" else ("INT64_MIN", "INT64_MAX")
                out.append("    int64_t v;")
                out.append(f"    if (wire_parse_signed(value, {lo}, {hi}, &v) != 0) return -1;")
                out.append(f"    m->{f.name} = ({f.ctype})v;")
                out.append("    return 0;")
        elif f.kind == "str":
            out.append("    size_t n = strlen(value);")
            out.append(f"    if (n >= sizeof m->{f.name}) return -1;")
            out.append(f"    memcpy(m->{f.name}, value, n + 1);")
            out.append("    return 0;")
        elif f.kind == "bytes":
            out.append(f"    long n = wire_parse_hex(value, m->{f.name}, sizeof m->{f.name});")
            out.append("    if (n < 0) return -1;")
            out.append(f"    m->{f.name}_len = (uint32_t)n;")
            out.append("    return 0;")
        else:
            out.append(f"    long n = wire_parse_list(value, m->{f.name}, {f.size});")
            out.append("    if (n < 0) return -1;")
            out.append(f"    m->{f.name}_count = (uint32_t)n;")
            out.append("    return 0;")
        out.append("  }")
    out += ["  return -2; /* no such field */", "}"]
    return out


def gen_validate(rec):
    out = [
        f"int {rec.cname}_validate(const void *msg, char *err, size_t cap) {{",
        f"  const {rec.cname} *m = msg;",
    ]
    for f in rec.fields:
        fail = lambda why: f'    snprintf(err, cap, "{rec.domain}.{rec.name}.{f.name}: {why}");'
        if f.kind == "str":
            out.append(f"  if (!memchr(m->{f.name}, 0, sizeof m->{f.name})) {{")
            out += [fail("not terminated"), "    return -1;", "  }"]
            if f.name.endswith("email"):
                out.append(f"  if (m->{f.name}[0] && !strchr(m->{f.name}, '@')) {{")
                out += [fail("not an address"), "    return -1;", "  }"]
        elif f.kind == "bytes":
            out.append(f"  if (m->{f.name}_len > sizeof m->{f.name}) {{")
            out += [fail("too long"), "    return -1;", "  }"]
        elif f.kind == "array":
            out.append(f"  if (m->{f.name}_count > {f.size}) {{")
            out += [fail("too many items"), "    return -1;", "  }"]
        elif f.spec == "f64":
            out.append(f"  if (!isfinite(m->{f.name})) {{")
            out += [fail("not a finite number"), "    return -1;", "  }"]
        elif f.spec == "bool":
            out.append(f"  if (m->{f.name} > 1) {{")
            out += [fail("not a boolean"), "    return -1;", "  }"]
        elif "percent" in f.name:
            out.append(f"  if (m->{f.name} > 100) {{")
            out += [fail("above 100"), "    return -1;", "  }"]
        elif f.name.endswith("month"):
            out.append(f"  if (m->{f.name} > 12) {{")
            out += [fail("not a month"), "    return -1;", "  }"]
    if len(out) == 2:
        out.append("  (void)m, (void)err, (void)cap; /* nothing to check */")
    out += ["  return 0;", "}"]
    return out


def gen_encode(rec):
    out = [f"void {rec.cname}_encode(const void *msg, wire_writer *w) {{", f"  const {rec.cname} *m = msg;"]
    for f in rec.fields:
        n = f.number
        if f.kind == "scalar":
            if f.wire == "varint":
                out.append(f"  if (m->{f.name}) wire_put_uint(w, {n}, m->{f.name});")
            elif f.wire == "zigzag":
                out.append(f"  if (m->{f.name}) wire_put_sint(w, {n}, m->{f.name});")
            else:
                out.append(f"  if (m->{f.name} != 0.0) wire_put_double(w, {n}, m->{f.name});")
        elif f.kind == "str":
            out.append(f"  if (m->{f.name}[0]) wire_put_bytes(w, {n}, m->{f.name}, strlen(m->{f.name}));")
        elif f.kind == "bytes":
            out.append(f"  if (m->{f.name}_len) wire_put_bytes(w, {n}, m->{f.name}, m->{f.name}_len);")
        else:
            out.append(f"  for (uint32_t i = 0; i < m->{f.name}_count; i++) wire_put_uint(w, {n}, m->{f.name}[i]);")
    out.append("}")
    return out


def gen_decode(rec):
    out = [
        f"int {rec.cname}_decode(void *msg, wire_reader *r) {{",
        f"  {rec.cname} *m = msg;",
        "  uint32_t field, type;",
        "  while (wire_next(r, &field, &type)) {",
        "    switch (field) {",
    ]
    for f in rec.fields:
        out.append(f"    case {f.number}:")
        if f.kind == "scalar":
            # A value out of the field's range is malformed input, not something to truncate.
            if f.spec == "u64":
                out.append(f"      m->{f.name} = wire_get_uint(r, type);")
            elif f.spec in ("u32", "bool"):
                limit = "1" if f.spec == "bool" else "UINT32_MAX"
                out.append(f"      m->{f.name} = ({f.ctype})wire_get_uint_max(r, type, {limit});")
            elif f.spec == "i64":
                out.append(f"      m->{f.name} = wire_get_sint(r, type);")
            elif f.spec == "i32":
                out.append(f"      m->{f.name} = (int32_t)wire_get_sint_range(r, type, INT32_MIN, INT32_MAX);")
            else:
                out.append(f"      m->{f.name} = wire_get_double(r, type);")
        elif f.kind == "str":
            out.append(f"      wire_get_string(r, type, m->{f.name}, sizeof m->{f.name});")
        elif f.kind == "bytes":
            out.append(f"      m->{f.name}_len = (uint32_t)wire_get_bytes(r, type, m->{f.name}, sizeof m->{f.name});")
        else:
            out.append(f"      if (m->{f.name}_count < {f.size}) m->{f.name}[m->{f.name}_count++] = (uint32_t)wire_get_uint_max(r, type, UINT32_MAX);")
            out.append("      else wire_fail(r);")
        out.append("      break;")
    out += [
        "    default:",
        "      wire_skip(r, type);",
        "    }",
        "  }",
        "  return r->error ? -1 : 0;",
        "}",
    ]
    return out


def gen_print(rec):
    out = [
        f"void {rec.cname}_print(const void *msg, strbuf *out) {{",
        f"  const {rec.cname} *m = msg;",
        f'  sb_append(out, "{rec.domain}.{rec.name} {{\\n");',
    ]
    formats = {"u32": "%u", "u64": "%llu", "i32": "%d", "i64": "%lld", "f64": "%g", "bool": "%s"}
    casts = {"u64": "(unsigned long long)", "i64": "(long long)"}
    for f in rec.fields:
        if f.kind == "scalar":
            value = f'm->{f.name} ? "true" : "false"' if f.spec == "bool" else f"{casts.get(f.spec, '')}m->{f.name}"
            out.append(f'  sb_appendf(out, "  {f.name}: {formats[f.spec]}\\n", {value});')
        elif f.kind == "str":
            out.append(f'  sb_append(out, "  {f.name}: ");')
            out.append(f"  sb_append_json_string(out, m->{f.name});")
            out.append('  sb_append_char(out, \'\\n\');')
        elif f.kind == "bytes":
            out.append(f'  sb_append(out, "  {f.name}: ");')
            out.append(f"  wire_append_hex(out, m->{f.name}, m->{f.name}_len);")
            out.append('  sb_append_char(out, \'\\n\');')
        else:
            out.append(f'  sb_append(out, "  {f.name}: [");')
            out.append(f'  for (uint32_t i = 0; i < m->{f.name}_count; i++) sb_appendf(out, "%s%u", i ? ", " : "", m->{f.name}[i]);')
            out.append('  sb_append(out, "]\\n");')
    out += ['  sb_append(out, "}\\n");', "}"]
    return out


def gen_equal(rec):
    out = [f"int {rec.cname}_equal(const void *a, const void *b) {{", f"  const {rec.cname} *x = a, *y = b;"]
    for f in rec.fields:
        out.append(f"  if ({differs(f)}) return 0;")
    out += ["  return 1;", "}"]
    return out


def differs(f):
    if f.kind == "scalar":
        return f"x->{f.name} != y->{f.name}"
    if f.kind == "str":
        return f"strcmp(x->{f.name}, y->{f.name}) != 0"
    if f.kind == "bytes":
        return f"x->{f.name}_len != y->{f.name}_len || memcmp(x->{f.name}, y->{f.name}, x->{f.name}_len) != 0"
    return (f"x->{f.name}_count != y->{f.name}_count || "
            f"memcmp(x->{f.name}, y->{f.name}, x->{f.name}_count * sizeof x->{f.name}[0]) != 0")


def gen_hash(rec):
    out = [f"uint32_t {rec.cname}_hash(const void *msg) {{", f"  const {rec.cname} *m = msg;", "  uint32_t h = 2166136261u;"]
    for f in rec.fields:
        if f.kind == "scalar":
            out.append(f"  h = wire_hash(h, &m->{f.name}, sizeof m->{f.name});")
        elif f.kind == "str":
            out.append(f"  h = wire_hash(h, m->{f.name}, strlen(m->{f.name}));")
        elif f.kind == "bytes":
            out.append(f"  h = wire_hash(h, m->{f.name}, m->{f.name}_len);")
        else:
            out.append(f"  h = wire_hash(h, m->{f.name}, m->{f.name}_count * sizeof m->{f.name}[0]);")
    out += ["  return h;", "}"]
    return out


def gen_merge(rec):
    # Protocol-buffer merge: fields at their default leave the destination alone, lists
    # append. A list that would overflow fails the merge before anything changes.
    out = [f"int {rec.cname}_merge(void *dst, const void *src) {{", f"  {rec.cname} *d = dst;", f"  const {rec.cname} *s = src;"]
    for f in rec.fields:
        if f.kind == "array":
            out.append(f"  if (d->{f.name}_count + s->{f.name}_count > {f.size}) return -1;")
    for f in rec.fields:
        if f.kind == "scalar":
            out.append(f"  if (s->{f.name}) d->{f.name} = s->{f.name};")
        elif f.kind == "str":
            out.append(f"  if (s->{f.name}[0]) memcpy(d->{f.name}, s->{f.name}, sizeof d->{f.name});")
        elif f.kind == "bytes":
            out.append(f"  if (s->{f.name}_len) {{")
            out.append(f"    memcpy(d->{f.name}, s->{f.name}, s->{f.name}_len);")
            out.append(f"    d->{f.name}_len = s->{f.name}_len;")
            out.append("  }")
        else:
            out.append(f"  for (uint32_t i = 0; i < s->{f.name}_count; i++) d->{f.name}[d->{f.name}_count++] = s->{f.name}[i];")
    out.append("  return 0;")
    out.append("}")
    return out


def gen_diff(rec):
    out = [
        f"int {rec.cname}_diff(const void *a, const void *b, strbuf *out) {{",
        f"  const {rec.cname} *x = a, *y = b;",
        "  int n = 0;",
    ]
    for f in rec.fields:
        out.append(f"  if ({differs(f)}) {{")
        out.append(f'    sb_append(out, "{rec.domain}.{rec.name}.{f.name} changed\\n");')
        out.append("    n++;")
        out.append("  }")
    out += ["  return n;", "}"]
    return out


GENERATORS = [gen_init, gen_set, gen_validate, gen_encode, gen_decode, gen_print, gen_equal, gen_hash,
              gen_merge, gen_diff]


def domain_file(domain, records):
    out = [
        "/* Generated by tools/gen-records.py from schema/records.def: do not edit. */",
        '#include "records.h"',
        "",
        "#include <math.h>",
        "#include <stdio.h>",
        "#include <string.h>",
        "",
    ]
    for rec in records:
        for gen in GENERATORS:
            out += gen(rec)
            out.append("")
    for rec in records:
        names = ", ".join(f'"{f.name}"' for f in rec.fields)
        out.append(f"static const char *const {rec.cname}_fields[] = {{{names}}};")
    out.append(f"const rec_type rec_{domain}_types[] = {{")
    for rec in records:
        fns = ", ".join(f"{rec.cname}_{fn}" for _, fn, _ in ENTRY_POINTS)
        out.append(f'  {{"{domain}", "{rec.name}", sizeof({rec.cname}), {len(rec.fields)}, {rec.cname}_fields, {fns}}},')
    out.append("};")
    out.append(f"const size_t rec_{domain}_type_count = {len(records)};")
    out.append("")
    return "\n".join(out)


def index_file(order):
    out = [
        "/* Generated by tools/gen-records.py from schema/records.def: do not edit. */",
        '#include "records.h"',
        "",
        "const rec_domain rec_domains[] = {",
    ]
    for d in order:
        out.append(f'  {{"{d}", rec_{d}_types, &rec_{d}_type_count}},')
    out += ["};", f"const size_t rec_domain_count = {len(order)};", ""]
    return "\n".join(out)


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--list-domains":
        schema, outdir = sys.argv[2], None
    elif len(sys.argv) == 3:
        schema, outdir = sys.argv[1], sys.argv[2]
    else:
        raise SystemExit("usage: gen-records.py SCHEMA OUTDIR | gen-records.py --list-domains SCHEMA")
    try:
        order, domains = parse(schema)
    except OSError as error:
        raise SystemExit(f"gen-records: cannot read {schema}: {error.strerror}")
    if not order:
        raise SystemExit(f"{schema}: no domains")
    if outdir is None:
        print(" ".join(order))
        return
    os.makedirs(outdir, exist_ok=True)
    write_if_changed(os.path.join(outdir, "records.h"), header(order, domains))
    for d in order:
        write_if_changed(os.path.join(outdir, f"records_{d}.c"), domain_file(d, domains[d]))
    write_if_changed(os.path.join(outdir, "records_index.c"), index_file(order))


if __name__ == "__main__":
    main()
