/* A library built with branch protection (-mbranch-protection=standard: paciasp / bti c at
 * entries, return addresses signed) and linked -z force-bti without crt files (Debian's
 * arm64 crt files carry no BTI note), so the loader maps its code guarded: an indirect
 * branch may land only on a landing pad. */
#define NOINLINE __attribute__((noinline))

static unsigned counter;

/* A leaf: bti c only. */
NOINLINE unsigned guarded_leaf(unsigned x) { return x * 3u + 1u; }

/* Saves the link register: paciasp at the entry, autiasp before the return. */
NOINLINE unsigned guarded_signed(unsigned x) {
  counter += guarded_leaf(x);
  return counter ^ 0x5au;
}

static NOINLINE unsigned guarded_static(unsigned x) { return guarded_signed(x) + 7u; }

/* Reached through a pointer only: an indirect branch onto an armed entry. */
static unsigned (*volatile indirect)(unsigned) = guarded_static;

NOINLINE unsigned guarded_entry(unsigned x) { return indirect(x) + guarded_leaf(x + 1u); }

/* No landing pad: a pointer call to it faults where the code is guarded, which shows that
 * it is. */
__attribute__((noinline, target("branch-protection=none"))) unsigned guarded_no_pad(unsigned x) { return x + 1u; }
