/* A launch whose functions carry much more code than the launch runs: each stage checks
 * its input against many error cases that never happen at launch, each with its own
 * report. Splitting those blocks out leaves little hot code; ordering whole functions
 * cannot. Unrelated functions sit between the stages in link order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static const char *const kinds[] = {"config", "store", "index", "cache"};

/* One error case: a test the launch never passes and a report that is never printed. */
#define CHECK(n)                                                                              \
  if (value == 1000003 * (n) + 17) {                                                          \
    fprintf(stderr, "stage %s: value %d hit case " #n " (%s, %ld)\n", kinds[(n) % 4], value,  \
            getenv("APP_DEBUG_" #n) ? getenv("APP_DEBUG_" #n) : "unset", (long)(n) * value);  \
    exit(10 + (n));                                                                           \
  }
#define CHECKS(k) CHECK(k##0) CHECK(k##1) CHECK(k##2) CHECK(k##3) CHECK(k##4) CHECK(k##5) CHECK(k##6) CHECK(k##7)

#define STAGE(name, k)                                                                        \
  NOINLINE int name(int value) {                                                              \
    CHECKS(k) CHECKS(1##k) CHECKS(2##k)                                                       \
    return value * 3 + k;                                                                     \
  }
#define UNUSED(name, k)                                                                       \
  NOINLINE int name(int value) {                                                              \
    CHECKS(k) CHECKS(1##k) CHECKS(2##k)                                                       \
    return value * 5 - k;                                                                     \
  }

STAGE(stage_config, 1)
UNUSED(unused_export, 2)
STAGE(stage_store, 3)
UNUSED(unused_import, 4)
STAGE(stage_index, 5)
UNUSED(unused_vacuum, 6)
STAGE(stage_cache, 7)
UNUSED(unused_repair, 8)
STAGE(stage_plugins, 9)
UNUSED(unused_migrate, 1)
STAGE(stage_ui, 2)
UNUSED(unused_report, 3)

int main(int argc, char **argv) {
  int value = argc > 1 ? atoi(argv[1]) : 5;
  value = stage_config(value);
  value = stage_store(value);
  value = stage_index(value);
  value = stage_cache(value);
  value = stage_plugins(value);
  value = stage_ui(value);
  if (argc > 5) {
    value += unused_export(value) + unused_import(value) + unused_vacuum(value) + unused_repair(value)
             + unused_migrate(value) + unused_report(value);
  }
  printf("launch value %d\n", value);
  return 0;
}
