#!/usr/bin/env python3
"""Generate the feature handlers of the Swift and Rust examples.

Usage: gen-handlers.py swift OUTFILE
       gen-handlers.py rust OUTFILE
       gen-handlers.py --all      (rewrites both examples' files in place)

Both examples are the core of a pretend application with 24 features. Each
feature has six handlers, in this source order: load, export, validate, sync,
apply, repair. A launch runs load, validate and apply of the features the
launch needs; export, sync and repair wait for later (the examples run them
only when named on the command line, after the launch). So, as in real programs, the launch code is scattered between
code the launch does not need, and the default layout spreads it over many
pages.

Every handler is a short run of statements drawn from a fixed menu by a
seeded generator: the bodies differ in shape, not only in constants, so no
compiler folds them together (swiftc merges functions that differ only in
constants). The output is deterministic; files are only rewritten when their
text changes.
"""

import os
import random
import sys

FEATURES = [
    "settings", "theme", "accounts", "catalog", "search", "history", "sync", "media",
    "fonts", "keymap", "plugins", "network", "cache", "locale", "session", "editor",
    "preview", "export", "billing", "notify", "sharing", "backup", "metrics", "admin",
]
HANDLERS = ["load", "export", "validate", "sync", "apply", "repair"]
LAUNCH_HANDLERS = ["load", "validate", "apply"]
# The features a launch needs, in the order it initializes them.
LAUNCH_FEATURES = [
    "settings", "locale", "theme", "fonts", "keymap", "accounts", "session", "cache",
    "plugins", "catalog", "history", "editor",
]

# One statement per entry: (Swift, Rust). {k} and {m} are small constants, {r} a radix.
STATEMENTS = [
    ("context.numbers.append(context.numbers.count &* {k} &+ {m})",
     "context.numbers.push((context.numbers.len() as u64).wrapping_mul({k}).wrapping_add({m}));"),
    ("for word in context.words where word.utf8.count > {m} % 7 {{ context.total &+= UInt64(word.utf8.count) &* {k} }}",
     "for word in context.words.iter().filter(|w| w.len() > {m} % 7) {{ context.total = context.total.wrapping_add((word.len() as u64).wrapping_mul({k})); }}"),
    ("context.table[\"key{k}\", default: 0] &+= context.numbers.last ?? {m}",
     "*context.table.entry(String::from(\"key{k}\")).or_insert(0) += context.numbers.last().copied().unwrap_or({m});"),
    ("context.words.append(String(context.total % {k}, radix: {r}))",
     "context.words.push(format!(\"{{:x}}\", context.total % {k}));"),
    ("context.total = (context.total << 5) ^ (context.total >> 3) ^ {k}",
     "context.total = (context.total << 5) ^ (context.total >> 3) ^ {k};"),
    ("if context.numbers.count > {k} {{ context.numbers.removeFirst({m} % 3 + 1) }}",
     "if context.numbers.len() > {k} {{ context.numbers.drain(..({m} % 3 + 1)); }}"),
    ("context.total &+= UInt64((Double(context.total % 1000) / {k}.0).squareRoot() * 1000)",
     "context.total = context.total.wrapping_add(((context.total % 1000) as f64 / {k}.0).sqrt() as u64 * 1000);"),
    ("if context.words.count > {k} % 5 + 6 {{ context.words.removeLast() }}",
     "if context.words.len() > {k} % 5 + 6 {{ context.words.pop(); }}"),
    ("context.total &+= UInt64(context.table.count) &* {k} &+ UInt64(context.words.joined(separator: \"-\").utf8.count)",
     "context.total = context.total.wrapping_add((context.table.len() as u64).wrapping_mul({k})).wrapping_add(context.words.join(\"-\").len() as u64);"),
    ("for (index, value) in context.numbers.enumerated() where index % {m} == 0 {{ context.total ^= UInt64(truncatingIfNeeded: value) &* {k} }}",
     "for (index, value) in context.numbers.iter().enumerate().filter(|(i, _)| i % {m} == 0) {{ context.total ^= value.wrapping_mul({k}); let _ = index; }}"),
    ("context.words.append(\"{name}-\\(context.numbers.count % {k})\")",
     "context.words.push(format!(\"{name}-{{}}\", context.numbers.len() % {k}));"),
    ("context.numbers = context.numbers.filter {{ $0 % {k} != {m} % {k} }}",
     "context.numbers.retain(|value| value % {k} != {m} % {k});"),
]


def handler_name(feature, handler, language):
    if language == "swift":
        return feature + handler[0].upper() + handler[1:]
    return feature + "_" + handler


def body(feature, handler, language, rng):
    count = rng.randint(5, 9)
    lines = []
    for _ in range(count):
        swift, rust = STATEMENTS[rng.randrange(len(STATEMENTS))]
        template = swift if language == "swift" else rust
        lines.append(template.format(k=rng.randint(3, 97), m=rng.randint(2, 13), r=rng.choice([2, 8, 16, 36]),
                                     name=feature + "." + handler))
    return lines


# How each language spells the parts around the statements.
SYNTAX = {
    "swift": {
        "prelude": "",
        "indent": "  ",
        "function": "@inline(never)\nfunc %s(_ context: inout Context) {\n",
        "launch_table": "let launchHandlers: [(String, @Sendable (inout Context) -> Void)] = [\n",
        "launch_entry": "(\"%s\", %s),",
        "all_table": "let allHandlers: [String: @Sendable (inout Context) -> Void] = [\n",
        "all_entry": "\"%s\": %s,",
        "table_end": "]\n",
    },
    "rust": {
        "prelude": "use crate::Context;\n\n",
        "indent": "    ",
        "function": "#[inline(never)]\npub fn %s(context: &mut Context) {\n",
        "launch_table": "pub static LAUNCH_HANDLERS: &[(&str, fn(&mut Context))] = &[\n",
        "launch_entry": "(\"%s\", %s),",
        "all_table": "pub static ALL_HANDLERS: &[(&str, fn(&mut Context))] = &[\n",
        "all_entry": "(\"%s\", %s),",
        "table_end": "];\n",
    },
}


def table(language, comment, kind, pairs):
    """A table of handlers: kind is "launch" or "all"."""
    syntax = SYNTAX[language]
    out = [comment, syntax[kind + "_table"]]
    for feature, handler in pairs:
        name = "%s.%s" % (feature, handler)
        out.append(syntax["indent"] + syntax[kind + "_entry"] % (name, handler_name(feature, handler, language)) + "\n")
    out.append(syntax["table_end"])
    return out


def generate(language):
    rng = random.Random(20260101)
    syntax = SYNTAX[language]
    out = ["// Generated by Examples/tools/gen-handlers.py: do not edit.\n", syntax["prelude"]]
    for feature in FEATURES:
        for handler in HANDLERS:
            out.append(syntax["function"] % handler_name(feature, handler, language))
            out.extend(syntax["indent"] + line + "\n" for line in body(feature, handler, language, rng))
            out.append("}\n\n")
    out += table(language, "/// The launch handlers of every feature the launch needs, in launch order.\n",
                 "launch", [(f, h) for f in LAUNCH_FEATURES for h in LAUNCH_HANDLERS])
    out.append("\n")
    out += table(language, "/// Every handler by name, for the commands that run after the launch.\n",
                 "all", [(f, h) for f in FEATURES for h in HANDLERS])
    return "".join(out)


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as existing:
            if existing.read() == text:
                return
    except FileNotFoundError:
        pass
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as output:
        output.write(text)
    os.replace(temporary, path)


def main(arguments):
    here = os.path.dirname(os.path.abspath(__file__))
    if arguments == ["--all"]:
        write_if_changed(os.path.join(here, "../swift-app/Sources/SwiftAppCore/Handlers.swift"), generate("swift"))
        write_if_changed(os.path.join(here, "../rust-app/src/handlers.rs"), generate("rust"))
        return 0
    if len(arguments) != 2 or arguments[0] not in ("swift", "rust"):
        sys.stderr.write(__doc__)
        return 64
    write_if_changed(arguments[1], generate(arguments[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
