/*
 * bytewise.c - a program whose launch reads 24 named strings of 240 bytes each, about 1.4
 * pages at 4 KiB, one byte at a time, as a hand-written scan does. Under `record --data` each
 * string's 15 granules cost 240 faults, so a recorder that stops watching a page after a
 * fixed number of faults misses the strings further on it.
 *
 * Then it reads two more that share one 16-byte granule: `granule_first` (11 bytes,
 * 16-aligned) and right after it `granule_second` (4 bytes). The recorder records a
 * granule's first touch only, inside the first, so the second is known to be read only by
 * the granule it lies in.
 *
 * First of all it reads one entry of a 64 KiB table, `bytewise_sparse_table`: a piece read
 * at one place, which `generate` puts after the strings the launch reads whole. Then it
 * prints a string literal, which lld merges with the program's other literals: an lld script
 * puts that merged piece where the launch first read it, before the named strings.
 */
#include <stdio.h>

const char bytewise_doc_0[] = "doc 0: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time,";
const char bytewise_doc_1[] = "doc 1: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time,";
const char bytewise_doc_2[] = "doc 2: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time,";
const char bytewise_doc_3[] = "doc 3: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time,";
const char bytewise_doc_4[] = "doc 4: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time,";
const char bytewise_doc_5[] = "doc 5: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time,";
const char bytewise_doc_6[] = "doc 6: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time,";
const char bytewise_doc_7[] = "doc 7: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time,";
const char bytewise_doc_8[] = "doc 8: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time,";
const char bytewise_doc_9[] = "doc 9: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time,";
const char bytewise_doc_10[] = "doc 10: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_11[] = "doc 11: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_12[] = "doc 12: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_13[] = "doc 13: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_14[] = "doc 14: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_15[] = "doc 15: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_16[] = "doc 16: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_17[] = "doc 17: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_18[] = "doc 18: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_19[] = "doc 19: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_20[] = "doc 20: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_21[] = "doc 21: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_22[] = "doc 22: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";
const char bytewise_doc_23[] = "doc 23: the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time, as a parser or strlen over a doc string does; the launch reads this text one byte at a time";

const int bytewise_sparse_table[16384] = {3, 1, 4, 1, 5};

__attribute__((aligned(16))) const char granule_first[] = "first text";
const char granule_second[] = "two";

static const char *const bytewise_docs[] = {
    bytewise_doc_0,
    bytewise_doc_1,
    bytewise_doc_2,
    bytewise_doc_3,
    bytewise_doc_4,
    bytewise_doc_5,
    bytewise_doc_6,
    bytewise_doc_7,
    bytewise_doc_8,
    bytewise_doc_9,
    bytewise_doc_10,
    bytewise_doc_11,
    bytewise_doc_12,
    bytewise_doc_13,
    bytewise_doc_14,
    bytewise_doc_15,
    bytewise_doc_16,
    bytewise_doc_17,
    bytewise_doc_18,
    bytewise_doc_19,
    bytewise_doc_20,
    bytewise_doc_21,
    bytewise_doc_22,
    bytewise_doc_23,
};

/* A byte loop the compiler keeps as one: the reads go through a volatile pointer. */
__attribute__((noinline)) static unsigned long scan(const char *text) {
  const volatile char *byte = text;
  unsigned long sum = 0;
  while (*byte != 0) {
    sum += (unsigned char)*byte++;
  }
  return sum;
}

int main(int argc, char **argv) {
  (void)argv;
  unsigned long sum = (unsigned long)bytewise_sparse_table[argc];
  puts("bytewise: the launch starts");
  for (unsigned i = 0; i < sizeof bytewise_docs / sizeof bytewise_docs[0]; i++) {
    sum += scan(bytewise_docs[i]);
  }
  sum += scan(granule_first) + scan(granule_second);
  printf("bytewise: %lu\n", sum);
  return 0;
}
