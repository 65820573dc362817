#include "swiftapp_support.h"

// Not called at launch: it sits between the launch's C functions in the source.
uint64_t swiftapp_repair_fold(uint64_t checksum, uint64_t value) {
  for (int round = 0; round < 7; round++) checksum = (checksum << 7) ^ (checksum >> 2) ^ (value + round);
  return checksum;
}

static uint64_t mix(uint64_t hash, unsigned char byte) { return (hash ^ byte) * 1099511628211ull; }

uint64_t swiftapp_seed(const char *name) {
  uint64_t hash = 14695981039346656037ull;
  for (const char *p = name; *p; p++) hash = mix(hash, (unsigned char)*p);
  return hash;
}
